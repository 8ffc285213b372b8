"""Instructions (valgrind's callgrind ``Ir``) of fresh ``helm-core template`` processes, against a revision.

Usage: .venv/bin/python bench/instructions.py --against REV chart ...   (names under ../shared/charts,
or paths; needs ``valgrind`` on PATH)

Per chart, for REV's ``helm_core`` (exported as ``bench/cli_runs.py`` does) and this checkout's:
a first run (empty cache root), the same command again (memo warm: its third run, as a chart
that draws random values keeps its prepared chart from its second run on) and then with
``--output-dir`` (``-o``, ``bench/cli_runs.py``'s column (2): the printed run's memo entry serves
it, its documents written to the folder; a chart that draws random values renders its drawing
templates again, as the printed run does), each counted once under callgrind with ``PYTHONHASHSEED=0`` (the second run is not
counted). A run's detached memo writer is waited for before the next run starts (as
``bench/cli_runs.py`` adopts it). On a shared, loaded machine wall and CPU times of these
processes move by 10-20 % from run to run; instruction counts move by well under 1 %, unless
the chart draws random work (nginx's RSA key generations). A run takes ~30-50x longer under
valgrind. Prints both counts (millions) and this/REV.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from cli_runs import ENTRY, adopt_orphans, chart_path, compiled_trees, left_children_cpu  # noqa: E402

#: The runs counted per chart, in this order: their flags ({out}: a folder) and whether the same
#: command runs once before, not counted.
KINDS = (("first", (), False), ("warm", (), True), ("-o", ("--output-dir", "{out}"), False))


#: A run is ~30-50x slower under valgrind, more on a loaded machine: the render limits' default
#: wall and CPU times (30s, 20s) stopped big charts' runs; the same flags for both trees.
_UNDER_VALGRIND = ("--render-timeout", "10m", "--render-cpu", "10m")


def instructions(tree: Path, chart: Path, cache: Path, cwd: Path, extra: tuple[str, ...] = (), *,
                 counted: bool = True) -> int:
    env = dict(os.environ, PYTHONPATH=str(tree), HELM_CORE_CACHE=str(cache), PYTHONHASHSEED="0")
    # valgrind's report of each process in a file of its own: the run's forked children (its memo
    # writer, a parse-ahead child) report too, and on the same stderr the first count found was
    # at times the writer's.
    logs = cwd.parent / f"callgrind-logs-{os.getpid()}"
    shutil.rmtree(logs, ignore_errors=True)
    logs.mkdir()
    callgrind = (["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", f"--log-file={logs}/%p"]
                 if counted else [])
    process = subprocess.Popen([*callgrind, sys.executable, "-c", ENTRY, "template", str(chart), *_UNDER_VALGRIND,
                                *extra], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env, cwd=cwd)
    _, stderr = process.communicate()
    left_children_cpu()  # the run's memo writer, done
    report = logs / str(process.pid)  # the process itself (valgrind runs it under its own pid)
    found = re.search(r"Collected : (\d+)", report.read_text()) if report.is_file() else None
    shutil.rmtree(logs, ignore_errors=True)
    if process.returncode == 0 and not counted:
        return 0
    if process.returncode != 0 or not found:
        raise SystemExit(f"{chart.name}: the run failed: {stderr[-500:]}")
    return int(found[1])


def main(argv: list[str]) -> int:
    if argv[:1] != ["--against"] or len(argv) < 3 or not shutil.which("valgrind"):
        print(__doc__)
        return 1
    rev, names = argv[1], argv[2:]
    adopt_orphans()
    with tempfile.TemporaryDirectory(prefix="bench-instructions-") as tmp:
        (Path(tmp) / "cwd").mkdir()  # empty: python -c imports from its working folder first
        trees = compiled_trees(rev, Path(tmp) / "rev")
        print("millions of instructions (callgrind Ir), one process each; this/REV")
        for name in names:
            chart = chart_path(name)
            counts = {}
            for label, tree in trees.items():
                cache = Path(tmp) / f"cache-{chart.name}-{label}"
                for kind, flags, once_before in KINDS:
                    out = str(Path(tmp) / f"out-{chart.name}-{label}")
                    extra = tuple(f.format(out=out) for f in flags)
                    if once_before:
                        instructions(tree, chart, cache, Path(tmp) / "cwd", extra, counted=False)
                    counts[label, kind] = instructions(tree, chart, cache, Path(tmp) / "cwd", extra)
            for kind, _, _ in KINDS:
                before, after = counts[rev, kind] / 1e6, counts["this", kind] / 1e6
                print(f"{chart.name:24} {kind:5} {rev} {before:8.1f}  this {after:8.1f}  x{after / before:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
