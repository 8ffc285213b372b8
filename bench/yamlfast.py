"""The YAML reader and writer without PyYAML (goyaml_block, goyaml_emit) against the PyYAML
path: per document, one new ``toYaml`` value, and whole CLI runs.

Usage: .venv/bin/python bench/yamlfast.py [--against DIR] [--runs N] [--no-documents] [chart ...]
(charts: names in ../shared/charts or $HELM_CONTROLLER_SHARED_CHARTS; default postgresql redis nginx)

1. Documents: every real text (tests/goyaml_corpus.py: what rendering each chart of the shared
   charts and examples/charts decodes, plus each values.yaml and Chart.yaml). Prints how many
   the block reader takes (by count and by size), then, over those it takes, the time of
   ``goyaml_block.decode`` and of ``goyaml_read.decode`` (PyYAML already imported), in ms of
   process CPU time, best of RUNS passes, interleaved document by document.
2. One new document: fresh processes importing the reader and decoding the smallest real
   Secret, by the block reader and by the PyYAML path (what a warm run pays for the one
   document a random password changes), median and min wall ms.
3. One new ``toYaml`` value (``{"data": {"redis-password": <random>}}``, what redis writes each
   run) in fresh processes: ``goyaml.dump`` (the fast writer) against ``goyaml_write.emit_libyaml``
   (the libyaml path, as every value was written before), import + write, median and min wall ms.
4. CLI: ``helm-core template x CHART`` in fresh processes (collector off, as the console
   script runs), wall ms (from the first import of helm_core) and CPU ms of the whole process
   (less shifted by other processes than wall time), medians of N runs, ours against another checkout's helm_core
   (``--against DIR``; e.g. ``git archive main helm_core | tar -x -C /tmp/base``):
   * ``warm``: the disk memo filled by a first run of the same code; a chart whose templates
     call a random function (a generated password) still decodes that one document each run;
   * ``first``: an empty ``XDG_CACHE_HOME`` each run.
   Runs of the two checkouts alternate; each line gives medians (and minimums) and says whether
   PyYAML was imported.

The machine's load shifts wall times; the load average is printed with each part. Python's
bytecode cache is allowed for the subprocesses (PYTHONDONTWRITEBYTECODE would compile every
module at each start).
"""
from __future__ import annotations

import argparse
import gc
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from helm_core.golib import goyaml_block, goyaml_read  # noqa: E402
from tests import goyaml_corpus  # noqa: E402
from tests.chartkit import SHARED_CHARTS  # noqa: E402

RUNS = 5

#: One CLI run, reporting its wall time and whether PyYAML was loaded (on stderr).
CLI = """
import gc, sys, time
gc.disable()
start = time.perf_counter()
from helm_core import cli
code = cli.main(['template', 'x', sys.argv[1]])
print(time.perf_counter() - start, 'yaml' in sys.modules, file=sys.stderr)
sys.exit(code)
"""


def load() -> str:
    return "load {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())


def documents() -> None:
    texts = [text for _, text in goyaml_corpus.real_texts()]
    taken = [t for t in texts if goyaml_block.decode(t) is not goyaml_block.DECLINED]
    size = sum(map(len, texts))
    print(f"documents: {len(taken)}/{len(texts)} taken ({len(taken) / len(texts):.1%}), "
          f"{sum(map(len, taken)) / size:.1%} of {size / 1e6:.2f} M characters; {load()}")
    fast = [float("inf")] * len(taken)
    full = [float("inf")] * len(taken)
    gc.disable()
    try:
        for _ in range(RUNS):
            for i, text in enumerate(taken):
                start = time.process_time()
                goyaml_block.decode(text)
                middle = time.process_time()
                goyaml_read.decode(text)
                fast[i] = min(fast[i], middle - start)
                full[i] = min(full[i], time.process_time() - middle)
    finally:
        gc.enable()
    ratios = sorted(b / a for a, b in zip(fast, full, strict=True) if a > 0)
    print(f"  decode, taken documents: block {sum(fast) * 1e3:.1f} ms, PyYAML path {sum(full) * 1e3:.1f} ms "
          f"(x{sum(full) / sum(fast):.2f} in all; per document median x{statistics.median(ratios):.2f}, "
          f"range x{ratios[0]:.2f}..x{ratios[-1]:.2f}); best of {RUNS}, {load()}")


def fresh_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "HELM_CORE_CACHE")}
    env.update(extra)
    return env


def one_new_document(runs: int) -> None:
    """What a warm run pays for its one new document: the reader's import and one decode."""
    secrets = sorted((t for _, t in goyaml_corpus.real_texts() if "\nkind: Secret\n" in f"\n{t}"), key=len)
    text = secrets[0] if secrets else goyaml_corpus.real_texts()[0][1]
    calls = {"block (goyaml.decode_uncached)": "goyaml.decode_uncached(text)",
             "PyYAML (goyaml_read.decode)": "from helm_core.golib import goyaml_read; goyaml_read.decode(text)"}
    times: dict[str, list[float]] = {label: [] for label in calls}
    for _ in range(runs):
        for label, call in calls.items():
            code = (f"import sys, time; sys.path.insert(0, {str(ROOT)!r}); text = sys.stdin.read(); "
                    f"from helm_core.golib import goyaml; "  # a CLI run has it (chart loading)
                    f"s = time.perf_counter(); {call}; print(time.perf_counter() - s)")
            times[label].append(float(subprocess.run([sys.executable, "-c", code], input=text, capture_output=True,
                                                     text=True, check=True, env=fresh_env()).stdout))
    print(f"one new document ({len(text)} characters, a Secret) in a fresh process, import + decode, "
          f"median (min) of {runs} alternating processes:")
    for label, t in times.items():
        print(f"  {label:32} {statistics.median(t) * 1e3:7.1f} ms ({min(t) * 1e3:.1f})")
    print(f"  {load()}")


def one_new_value(runs: int) -> None:
    """What a warm run pays for a toYaml value it has never written: the writer's import and one write."""
    calls = {"fast (goyaml.dump)": "goyaml.dump(value)",
             "libyaml (goyaml_write.emit_libyaml)":
                 "from helm_core.golib import goyaml_write; goyaml_write.emit_libyaml(goyaml.json_step(value))"}
    times: dict[str, list[float]] = {label: [] for label in calls}
    pyyaml: dict[str, set[bool]] = {label: set() for label in calls}
    for i in range(runs):
        for label, call in calls.items():
            code = (f"import sys, time; sys.path.insert(0, {str(ROOT)!r}); "
                    f"from helm_core.golib import goyaml; "  # a CLI run has it (chart loading)
                    f"value = {{'data': {{'redis-password': 'pw{i:08d}'}}}}; "
                    f"s = time.perf_counter(); {call}; print(time.perf_counter() - s, 'yaml' in sys.modules)")
            seconds, loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                             env=fresh_env()).stdout.split()
            times[label].append(float(seconds))
            pyyaml[label].add(loaded == "True")
    print(f"one new toYaml value in a fresh process, import + write, median (min) of {runs} alternating processes:")
    for label, t in times.items():
        print(f"  {label:36} {statistics.median(t) * 1e3:7.2f} ms ({min(t) * 1e3:.2f}), "
              f"PyYAML {'/'.join(sorted(map(str, pyyaml[label])))}")
    print(f"  {load()}")


def cli_run(code_dir: Path, chart: Path, env: dict[str, str]) -> tuple[float, float, bool, int]:
    """Wall seconds (from the start of the process's imports), CPU seconds of the whole process,
    whether PyYAML was imported, lines printed."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, "-c", CLI, str(chart)], capture_output=True, text=True, check=False,
                          env={**env, "PYTHONPATH": str(code_dir)}, cwd=env["XDG_CACHE_HOME"])
    if done.returncode:
        raise SystemExit(f"{code_dir}: {done.stderr.strip()[-500:]}")
    now = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = now.ru_utime - used.ru_utime + now.ru_stime - used.ru_stime
    seconds, pyyaml = done.stderr.strip().splitlines()[-1].split()
    return float(seconds), cpu, pyyaml == "True", done.stdout.count("\n")


def _cwd_free_of_code(env: dict[str, str]) -> dict[str, str]:
    """``python -c`` puts its working folder first on sys.path: runs start in the cache folder."""
    Path(env["XDG_CACHE_HOME"]).mkdir(parents=True, exist_ok=True)
    return env


def cli(charts: list[Path], against: Path | None, runs: int) -> None:
    codes = {"ours": ROOT} | ({"other": against} if against else {})
    for code_dir in codes.values():  # bytecode caches written, as an installed package has them
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(code_dir / "helm_core")], check=True,
                       env=fresh_env())
    with tempfile.TemporaryDirectory() as tmp:
        for chart in charts:
            warm = {name: _cwd_free_of_code(fresh_env(XDG_CACHE_HOME=f"{tmp}/{name}-{chart.name}")) for name in codes}
            for name, code_dir in codes.items():
                cli_run(code_dir, chart, warm[name])
            for kind in ("warm", "first"):
                times: dict[str, list[float]] = {name: [] for name in codes}
                cpus: dict[str, list[float]] = {name: [] for name in codes}
                pyyaml: dict[str, set[bool]] = {name: set() for name in codes}
                lines: set[int] = set()
                before = load()
                for i in range(runs):
                    for name, code_dir in codes.items():
                        env = warm[name] if kind == "warm" else _cwd_free_of_code(
                            fresh_env(XDG_CACHE_HOME=f"{tmp}/first-{name}-{i}"))
                        seconds, cpu, loaded, count = cli_run(code_dir, chart, env)
                        times[name].append(seconds)
                        cpus[name].append(cpu)
                        pyyaml[name].add(loaded)
                        lines.add(count)
                medians = {name: statistics.median(t) * 1e3 for name, t in times.items()}
                cpu_medians = {name: statistics.median(t) * 1e3 for name, t in cpus.items()}
                text = ", ".join(f"{name} wall {ms:6.1f} ({min(times[name]) * 1e3:.0f}) CPU {cpu_medians[name]:6.1f} "
                                 f"({min(cpus[name]) * 1e3:.0f}) ms, PyYAML {'/'.join(sorted(map(str, pyyaml[name])))}"
                                 for name, ms in medians.items())
                ratio = (f"; other/ours wall x{medians['other'] / medians['ours']:.2f} "
                         f"CPU x{cpu_medians['other'] / cpu_medians['ours']:.2f}") if against else ""
                same = "" if len(lines) == 1 else f"; OUTPUT LINE COUNTS DIFFER {sorted(lines)}"
                print(f"  {chart.name:11} {kind:5} {text}{ratio}; median of {runs}, {before} -> {load()}{same}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--against", type=Path, help="another checkout whose helm_core is measured too")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--no-documents", action="store_true", help="skip part 1 (the documents' decode times)")
    parser.add_argument("charts", nargs="*", default=["postgresql", "redis", "nginx"])
    args = parser.parse_args(argv[1:])
    if not SHARED_CHARTS.is_dir():
        print(f"{SHARED_CHARTS} is absent (set HELM_CONTROLLER_SHARED_CHARTS): examples/charts only, no CLI part")
    if not args.no_documents:
        documents()
        one_new_document(args.runs)
    one_new_value(args.runs)
    if SHARED_CHARTS.is_dir():
        cli([SHARED_CHARTS / name for name in args.charts], args.against, args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
