"""What `helm-core template` pays before it reads a chart: interpreter start and imports.

Usage: .venv/bin/python bench/startup.py [--against REV]

Prints, as medians of RUNS processes: the bare interpreter (`python -c pass`, site and .pth
files included), the interpreter plus every module the template command imports (with the
garbage collector off, as the console script runs), and `helm version` as the reference for a
Go binary's start; then the modules with the largest self import time (`-X importtime`, one
run) so that the next start-up cost to cut is visible.

The start path is the modules `helm-core template` imports before rendering: the CLI, the
template action, the loader and the values options (the render itself imports the Sprig
families a chart calls, lazily).

Then the fixed set-up around a command's work, in fresh processes (median of RUNS, milliseconds):
the deep-stack thread started and joined, the render limits (watchdog timer, address-space
limit, budget) entered and left, and a render budget's deadline timer armed and cancelled,
as ``helm-core template`` does them around every render. Threads are what a loaded machine
delays (a start that waits for its new thread waits for the scheduler). With ``--against REV``
the same set-up of that revision's ``helm_core`` is measured interleaved with this checkout's.
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from cli_runs import export  # noqa: E402
from render import byte_compile, helm_binary, wall_seconds  # noqa: E402

RUNS = 21
START_PATH = ("helm_core.cli", "helm_core.action.template", "helm_core.chart.loader",
              "helm_core.action.values_options")
IMPORTS = "import gc; gc.disable(); import " + ", ".join(START_PATH)


#: Prints the set-up's milliseconds: what cli.main does around a command (parse, deep stack,
#: limits), and what engine/render does around a render (the budget's timer), with no work inside.
SET_UP = """
import gc, time; gc.disable()
from helm_core import cli
from helm_core.gotemplate import budget
args = cli.parse(["template", "x", "chart"])
start = time.perf_counter()
def command():
    with cli._render_limits(args), budget.current().timed():
        pass
cli._with_deep_stack(command)
print((time.perf_counter() - start) * 1e3)
"""


def set_up_ms(trees: dict[str, Path]) -> dict[str, float]:
    """Median set-up milliseconds per tree, fresh processes interleaved."""
    samples: dict[str, list[float]] = {label: [] for label in trees}
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as cwd:  # python -c imports from it first
        for _ in range(RUNS):
            for label, tree in trees.items():
                out = subprocess.run([sys.executable, "-c", SET_UP], capture_output=True, text=True, check=True,
                                     cwd=cwd, env=dict(os.environ, PYTHONPATH=str(tree))).stdout
                samples[label].append(float(out))
    return {label: statistics.median(values) for label, values in samples.items()}


#: This checkout's helm_core first on the path (the virtualenv may install another checkout's).
THIS_TREE = dict(os.environ, PYTHONPATH=str(ROOT))


def median_ms(command: list[str]) -> float:
    return statistics.median(wall_seconds(command, THIS_TREE) for _ in range(RUNS)) * 1e3


def self_times() -> list[tuple[int, str]]:
    """(self µs, module) for every module the start path imports, largest first."""
    out = subprocess.run([sys.executable, "-X", "importtime", "-c", IMPORTS],
                         capture_output=True, text=True, check=True, env=THIS_TREE).stderr
    rows = []
    for line in out.splitlines()[1:]:
        self_us, _cumulative, name = line.removeprefix("import time:").split("|")
        rows.append((int(self_us), name.strip()))
    return sorted(rows, reverse=True)


def main(argv: list[str]) -> int:
    byte_compile()
    bare = median_ms([sys.executable, "-c", "pass"])
    start_path = median_ms([sys.executable, "-c", IMPORTS])
    print(f"{'python -c pass':32} {bare:7.1f} ms")
    print(f"{'python + start-path imports':32} {start_path:7.1f} ms  (imports {start_path - bare:.1f} ms)")
    helm = helm_binary()
    if helm:
        print(f"{'helm version':32} {median_ms([helm, 'version']):7.1f} ms")
    rows = self_times()
    print(f"\n{len(rows)} modules imported, {sum(us for us, _ in rows) / 1e3:.1f} ms of self time; largest:")
    for us, name in rows[:15]:
        print(f"  {us / 1e3:6.2f} ms  {name}")
    with tempfile.TemporaryDirectory(prefix="bench-startup-rev-") as tmp:
        trees = {"this": ROOT}
        if argv[:1] == ["--against"] and len(argv) > 1:
            trees = {argv[1]: export(argv[1], Path(tmp)), **trees}
        figures = set_up_ms(trees)
    print("\nset-up around a render (deep-stack thread, limits with the watchdog, budget timer), median ms:")
    for label, ms in figures.items():
        print(f"  {label:10} {ms:7.2f}")
    print(f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
