"""The three fresh-process runs of ``helm-core template`` against ``helm template``: wall and user CPU.

Usage: .venv/bin/python bench/cli_runs.py [--against REV] [RUNS] chart ...   (names under ../shared/charts,
or paths; RUNS defaults to 15)

Per chart, medians of RUNS interleaved rounds (so that a busy moment weighs on every column):

- ``(1) memo``: ``template CHART`` with its memo warm (a pure chart prints its kept output; a chart
  that calls random or clock functions renders from the memo's trees and values);
- ``(2) -o``: ``template CHART --output-dir DIR`` (a new folder each time), served by the same
  memo as (1): a pure chart's kept documents are written, the others render what drew;
- ``(3) first``: ``template CHART`` with an empty cache root;

against ``helm template`` and ``helm template --output-dir``. A process runs as the console
script does (``from helm_core.__main__ import run``) with this checkout's ``helm_core`` on
``PYTHONPATH``, byte-compiled first. ``--against REV`` adds the same rows for that git revision's
``helm_core`` (exported to a temporary folder), for before/after figures from one run.
The load average is printed with each chart: the machine is shared.

The console script writes its memo entries from a child that outlives it (``DiskMemo.
write_pending_detached``): the wall and CPU columns are the process's own, up to its exit, as a
shell waits for it. This bench adopts such children (a Linux child subreaper) and waits for
them before the next run, so that no run shares the machine with the last one's writer; their
CPU (user + system) is the ``+ N writer`` column.
"""
from __future__ import annotations

import compileall
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from render import CHARTS_DIR, helm_binary  # noqa: E402

#: What the console script runs.
ENTRY = "import sys; from helm_core.__main__ import run; sys.exit(run())"


def timed(cwd: Path, command: list[str], env: dict[str, str] | None = None) -> tuple[float, float, float]:
    """(wall, user CPU, CPU of the children it left) seconds of one process ``command``, run in
    ``cwd``, an empty folder outside the checkout: ``python -c`` puts the working folder first on
    sys.path, where this checkout's helm_core would be found, and lists it on the first import
    (the system's temporary folder may hold thousands of entries: milliseconds the console
    script, whose sys.path starts with its bin folder, never spends)."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=cwd)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    assert process.stderr is not None
    error = process.stderr.read()
    process.stderr.close()
    if status != 0:
        raise SystemExit(f"{command} failed: {error[-500:]!r}")
    return wall, usage.ru_utime, left_children_cpu()


def adopt_orphans() -> None:
    """Become the parent of the processes our children leave behind (Linux's child subreaper)."""
    import ctypes

    pr_set_child_subreaper = 36
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_child_subreaper, 1, 0, 0, 0)


def left_children_cpu() -> float:
    """Wait for the adopted children (a run's detached memo writer): their user + system CPU."""
    total = 0.0
    while True:
        try:
            _, _, usage = os.wait4(-1, 0)
        except ChildProcessError:
            return total
        total += usage.ru_utime + usage.ru_stime


def export(rev: str, into: Path) -> Path:
    """``helm_core`` as it is at ``rev``, byte-compiled, under ``into``."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "helm_core"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def compiled_trees(rev: str, into: Path) -> dict[str, Path]:
    """``{rev: helm_core at rev (exported under into), "this": this checkout}``, both byte-compiled
    first, so that neither side pays for compiling in what is measured."""
    into.mkdir(exist_ok=True)
    trees = {rev: export(rev, into), "this": ROOT}
    for tree in trees.values():
        compileall.compile_dir(str(tree / "helm_core"), quiet=1)
    return trees


def chart_path(name: str) -> Path:
    """A shared chart by its name, else the path given."""
    return CHARTS_DIR / name if (CHARTS_DIR / name / "Chart.yaml").is_file() else Path(name)


Series = dict[str, list[tuple[float, float, float]]]


def measure(chart: Path, trees: dict[str, Path], helm: str, runs: int, scratch: Path) -> Series:
    series: Series = {}
    cwd = scratch / "cwd"
    cwd.mkdir()
    envs = {label: dict(os.environ, PYTHONPATH=str(tree), HELM_CORE_CACHE=str(scratch / f"cache-{label}"))
            for label, tree in trees.items()}
    for env in envs.values():  # the memo warm for (1) and (2)
        for _ in range(2):
            timed(cwd, [sys.executable, "-c", ENTRY, "template", str(chart)], env)
    for i in range(runs):
        # Each tree first in every other round: a fixed order weighed on the later tree (its first
        # run came right after the other's, whose memo writes were still being flushed).
        for label, env in (list(envs.items()) if i % 2 == 0 else list(envs.items())[::-1]):
            ours = [sys.executable, "-c", ENTRY, "template", str(chart)]
            series.setdefault(f"{label} (1) memo", []).append(timed(cwd, ours, env))
            series.setdefault(f"{label} (2) -o", []).append(
                timed(cwd, [*ours, "--output-dir", str(scratch / f"out-{label}-{i}")], env))
            series.setdefault(f"{label} (3) first", []).append(
                timed(cwd, ours, dict(env, HELM_CORE_CACHE=str(scratch / f"first-{label}-{i}"))))
        series.setdefault("helm", []).append(timed(cwd, [helm, "template", str(chart)]))
        series.setdefault("helm -o", []).append(
            timed(cwd, [helm, "template", str(chart), "--output-dir", str(scratch / f"out-helm-{i}")]))
    return series


def main(argv: list[str]) -> int:
    against = None
    if argv[:1] == ["--against"]:
        against, argv = argv[1], argv[2:]
    runs = int(argv[0]) if argv and argv[0].isdigit() else 15
    names = argv[1:] if argv and argv[0].isdigit() else argv
    helm = helm_binary()
    if not helm or not names:
        print(__doc__)
        return 1
    adopt_orphans()
    with tempfile.TemporaryDirectory(prefix="bench-cli-runs-") as tmp:
        trees = {"this": ROOT}
        if against:
            trees = {against: export(against, Path(tmp)), **trees}
        for tree in trees.values():
            compileall.compile_dir(str(tree / "helm_core"), quiet=1)
        print(f"median of {runs} interleaved rounds; ms wall / ms user CPU; ratio = wall / helm's wall")
        for name in names:
            chart = CHARTS_DIR / name if (CHARTS_DIR / name / "Chart.yaml").is_file() else Path(name)
            scratch = Path(tmp) / f"scratch-{chart.name}"
            scratch.mkdir()
            series = measure(chart, trees, helm, runs, scratch)
            shutil.rmtree(scratch)
            med = {k: tuple(statistics.median(run[i] for run in v) * 1e3 for i in range(3))
                   for k, v in series.items()}
            print(f"== {chart.name}  helm {med['helm'][0]:.0f} / {med['helm'][1]:.0f}"
                  f"  helm -o {med['helm -o'][0]:.0f} / {med['helm -o'][1]:.0f}"
                  f"  (load average {os.getloadavg()[0]:.2f})")
            for label, (wall, user, writer) in med.items():
                if label.startswith("helm"):
                    continue
                reference = med["helm -o" if "-o" in label else "helm"][0]
                left = f"   + {writer:3.0f} writer" if writer else ""
                print(f"   {label:24} {wall:6.0f} / {user:5.0f}   x{wall / reference:.2f}{left}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
