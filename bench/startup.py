"""What `helm-core template` pays before it reads a chart: interpreter start and imports.

Usage: .venv/bin/python bench/startup.py

Prints, as medians of RUNS processes: the bare interpreter (`python -c pass`, site and .pth
files included), the interpreter plus every module the template command imports (with the
garbage collector off, as the console script runs), and `helm version` as the reference for a
Go binary's start; then the modules with the largest self import time (`-X importtime`, one
run) so that the next start-up cost to cut is visible.

The start path is the modules `helm-core template` imports before rendering: the CLI, the
template action, the loader and the values options (the render itself imports the Sprig
families a chart calls, lazily).
"""
from __future__ import annotations

import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from render import byte_compile, helm_binary, wall_seconds  # noqa: E402

RUNS = 21
START_PATH = ("helm_core.cli", "helm_core.action.template", "helm_core.chart.loader",
              "helm_core.action.values_options")
IMPORTS = "import gc; gc.disable(); import " + ", ".join(START_PATH)


def median_ms(command: list[str]) -> float:
    return statistics.median(wall_seconds(command) for _ in range(RUNS)) * 1e3


def self_times() -> list[tuple[int, str]]:
    """(self µs, module) for every module the start path imports, largest first."""
    out = subprocess.run([sys.executable, "-X", "importtime", "-c", IMPORTS],
                         capture_output=True, text=True, check=True).stderr
    rows = []
    for line in out.splitlines()[1:]:
        self_us, _cumulative, name = line.removeprefix("import time:").split("|")
        rows.append((int(self_us), name.strip()))
    return sorted(rows, reverse=True)


def main() -> int:
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
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
