"""Instructions (valgrind's callgrind ``Ir``) of one warm in-process load + prepare + render, against a revision.

Usage: .venv/bin/python bench/warm_instructions.py --against REV [--generated] chart ...   (names
under ../shared/charts, or paths; needs ``valgrind`` on PATH)

What ``bench/anchors.py --warm-only`` times (``warm ms``), counted instead of timed: on a shared,
loaded machine those times move by 10-30 % from run to run, instruction counts by ~1 %. Per chart
and tree (REV's ``helm_core``, exported as ``bench/cli_runs.py`` does, and this checkout's), one
process renders the chart twice (the first compiles, the second warms what the first left), then
``n`` more times; it runs once with ``n`` = 1 and once with ``n`` = ``1 + EXTRA``, under callgrind
with ``PYTHONHASHSEED=0``, and the difference over ``EXTRA`` is one warm round (what starting the
interpreter, imports and the first renders cost falls out). Prints millions of instructions per
warm round for both trees and this/REV. ``--generated``: the second render generates the code
of the trees that ran (``render.GENERATE_CODE_AT`` = 2 instead of a process's 200th render), so
the warm rounds are those of a set whose code was generated.
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

from cli_runs import chart_path, compiled_trees  # noqa: E402

#: Warm rounds the longer run adds (more: a steadier figure, a longer run under valgrind).
EXTRA = 4

#: The process counted: load + prepare + render, 2 + n times (the tree comes first on sys.path).
WARM_RUNS = r"""
import sys
from helm_core.chart import loader, prepare
from helm_core.engine import render
chart, rounds = sys.argv[1], 2 + int(sys.argv[2])
if sys.argv[3:]:
    render.GENERATE_CODE_AT = int(sys.argv[3])
for _ in range(rounds):
    prepared = prepare.prepare_chart(loader.load(chart), {})
    render.render(prepared.chart, prepared.values)
"""


def instructions(tree: Path, chart: Path, rounds: int, cwd: Path, generate_at: int | None) -> int:
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONHASHSEED="0")
    extra = [str(generate_at)] if generate_at is not None else []
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                           sys.executable, "-c", WARM_RUNS, str(chart), str(rounds), *extra],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env, cwd=cwd, check=False)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or not found:
        raise SystemExit(f"{chart.name}: the run failed: {done.stderr[-500:]}")
    return int(found[1])


def warm_round(tree: Path, chart: Path, cwd: Path, generate_at: int | None) -> float:
    """Millions of instructions of one warm round (see the module's doc)."""
    return (instructions(tree, chart, 1 + EXTRA, cwd, generate_at)
            - instructions(tree, chart, 1, cwd, generate_at)) / EXTRA / 1e6


def main(argv: list[str]) -> int:
    if argv[:1] != ["--against"] or len(argv) < 3 or not shutil.which("valgrind"):
        print(__doc__)
        return 1
    rev, names = argv[1], argv[2:]
    generate_at = 2 if names[:1] == ["--generated"] else None
    names = names[1:] if generate_at else names
    with tempfile.TemporaryDirectory(prefix="bench-warm-instructions-") as tmp:
        cwd = Path(tmp) / "cwd"
        cwd.mkdir()  # empty: python -c imports from its working folder first
        trees = compiled_trees(rev, Path(tmp) / "rev")
        print(f"millions of instructions (callgrind Ir) of one warm load + prepare + render; this/{rev}")
        for name in names:
            chart = chart_path(name)
            before, after = (warm_round(tree, chart, cwd, generate_at) for tree in trees.values())
            print(f"{chart.name:24} {rev} {before:7.1f}  this {after:7.1f}  x{after / before:.3f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
