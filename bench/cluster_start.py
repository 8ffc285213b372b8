"""Start-up time and memory of the local control plane with cached binaries.

Usage: ``python bench/cluster_start.py [--runs N] [--settle S]``. Goal: ready in under 15 s.
Prints, per run, the wall time until the cluster is usable (API ready, controllers healthy, nodes
Ready, default ServiceAccount present) and the resident memory of every component after
``--settle`` seconds, then the median. Needs the binaries: ``python -m e2e.cluster build``.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from e2e.cluster import harness, tools  # noqa: E402

GOAL_S = 15.0


def rss_mib(pid: int) -> float:
    """Resident set size of one process in MiB (0 when it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def one_run(settle_s: float) -> tuple[float, float, dict[str, float]]:
    started = time.monotonic()
    cluster = harness.LocalCluster.start()
    wall = time.monotonic() - started
    try:
        time.sleep(settle_s)
        pids = {"supervisor": cluster.supervisor.pid, **cluster.state["pids"]}
        memory = {name: rss_mib(int(pid)) for name, pid in pids.items()}
    finally:
        cluster.stop()
    return wall, float(cluster.state["start_seconds"]), memory


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--settle", type=float, default=10.0,
                        help="seconds to wait after ready before measuring memory")
    args = parser.parse_args()
    missing = tools.missing_binaries()
    if missing:
        print(f"binaries missing ({', '.join(missing)}): run python -m e2e.cluster build")
        return 1
    walls = []
    for run in range(1, args.runs + 1):
        wall, inside, memory = one_run(args.settle)
        walls.append(wall)
        total = sum(memory.values())
        parts = ", ".join(f"{name} {mib:.0f}" for name, mib in memory.items())
        print(f"run {run}: ready in {wall:.2f}s (supervisor: {inside:.2f}s); "
              f"RSS {total:.0f} MiB ({parts})", flush=True)
    median = statistics.median(walls)
    verdict = "meets" if median < GOAL_S else "misses"
    print(f"median start-up {median:.2f}s over {args.runs} runs ({verdict} the {GOAL_S:.0f}s goal)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
