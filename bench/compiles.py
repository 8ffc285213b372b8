"""What a fresh ``helm-core template`` process compiles (regular expressions) and imports.

Usage: .venv/bin/python bench/compiles.py [chart ...]   (names under ../shared/charts, or paths;
default: every chart there)
       .venv/bin/python bench/compiles.py --against REV RUNS chart ...

Per chart, two processes sharing a cache root: ``first`` (the root empty) and ``warm`` (the same
command again: the memo answers). Each wraps ``re._compiler.compile`` (what ``re.compile`` calls
on a cache miss) and prints every compile with its milliseconds and the first caller outside
``re`` (file:line), then the helm_core modules it imported and how many modules in all.
One process per figure on a shared machine: a compile's milliseconds move by ~20%; the load
average is printed with each chart.

``--against REV`` prints, per chart and for this checkout and REV's ``helm_core`` (exported as
``bench/cli_runs.py`` does), medians over RUNS interleaved rounds of: how many patterns were
compiled and their milliseconds, how many modules were imported, for a first and a warm run.
Counts do not depend on the machine's load; milliseconds do.
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHARTS_DIR = Path(os.environ.get("HELM_CONTROLLER_SHARED_CHARTS", ROOT.parent / "shared" / "charts"))

#: Run in the measured process: wrap the compiler, run the CLI as the console script does, report.
PROGRAM = r"""
import sys, time, re._compiler as compiler
real, seen = compiler.compile, []
def compile(p, flags=0):
    start = time.perf_counter()
    try:
        return real(p, flags)
    finally:
        frame = sys._getframe(1)
        while frame and ("/re/" in frame.f_code.co_filename or frame.f_code.co_filename.endswith("functools.py")):
            frame = frame.f_back
        where = f"{frame.f_code.co_filename}:{frame.f_lineno}" if frame else "?"
        seen.append(((time.perf_counter() - start) * 1e3, where, p[:50]))
compiler.compile = compile
import os
real_exit = os._exit
def report(code):
    sys.stdout.flush()
    _report()
    real_exit(code)
os._exit = report
def _report():
    total = sum(ms for ms, _, _ in seen)
    print(f"COMPILES {len(seen)} {total:.2f}", file=sys.stderr)
    for ms, where, pattern in sorted(seen, reverse=True):
        print(f"  {ms:6.2f}  {where}  {pattern!r}", file=sys.stderr)
    ours = sorted(m for m in sys.modules if m.startswith("helm_core"))
    print(f"MODULES {len(sys.modules)} helm_core {len(ours)}", file=sys.stderr)
    print("  " + " ".join(m.removeprefix("helm_core.") for m in ours), file=sys.stderr)
from helm_core.__main__ import run
run()
"""


def run(chart: Path, cache: Path, tree: Path = ROOT) -> str:
    env = dict(os.environ, PYTHONPATH=str(tree), HELM_CORE_CACHE=str(cache))
    done = subprocess.run([sys.executable, "-c", PROGRAM, "template", str(chart)], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, env=env, cwd=cache.parent, check=False)
    report = done.stderr[done.stderr.index("COMPILES"):] if "COMPILES" in done.stderr else done.stderr
    return report.replace(str(ROOT) + "/", "").replace(os.path.dirname(os.__file__) + "/", "")


def _figures(report: str) -> tuple[float, float, float]:
    """(patterns compiled, their ms, modules imported) from one :func:`run` report."""
    words = report.split()
    at, modules = words.index("COMPILES"), words.index("MODULES")
    return float(words[at + 1]), float(words[at + 2]), float(words[modules + 1])


def against(rev: str, runs: int, names: list[str]) -> int:
    sys.path.insert(0, str(ROOT / "bench"))
    from cli_runs import chart_path, compiled_trees

    with tempfile.TemporaryDirectory(prefix="bench-compiles-") as tmp:
        # "rev" is not the runs' working folder: python -c imports from there first
        trees = compiled_trees(rev, Path(tmp) / "rev")
        print(f"medians of {runs} interleaved rounds: patterns compiled / their ms / modules imported")
        for name in names:
            chart = chart_path(name)
            series: dict[str, list[tuple[float, float, float]]] = {}
            for i in range(runs):
                for label, tree in trees.items():
                    cache = Path(tmp) / f"cache-{chart.name}-{label}-{i}"
                    for kind in ("first", "warm"):
                        series.setdefault(f"{label} {kind}", []).append(_figures(run(chart, cache, tree)))
            print(f"== {chart.name}  (load average {os.getloadavg()[0]:.2f})")
            for label, values in series.items():
                count, ms, modules = (statistics.median(v[k] for v in values) for k in range(3))
                print(f"   {label:16} {count:4.0f} / {ms:6.2f} ms / {modules:4.0f}")
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["--against"] and len(argv) > 2:
        return against(argv[1], int(argv[2]), argv[3:])
    names = argv or sorted(p.name for p in CHARTS_DIR.iterdir() if (p / "Chart.yaml").is_file())
    with tempfile.TemporaryDirectory(prefix="bench-compiles-") as tmp:
        for name in names:
            chart = CHARTS_DIR / name if (CHARTS_DIR / name / "Chart.yaml").is_file() else Path(name)
            cache = Path(tmp) / f"cache-{chart.name}"
            print(f"== {chart.name}  (load average {os.getloadavg()[0]:.2f})")
            for label in ("first", "warm"):
                print(f"-- {label}")
                print(run(chart, cache), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
