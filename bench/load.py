"""Loading and coalescing the largest charts of ../shared/charts, warm and cold (issue 2's target: well under 100 ms warm).

Prints, per chart: files, cold load (first in this process), warm load (median of N), and
warm prepare (dependencies + coalesce + schema) — the work before rendering.
Run: .venv/bin/python bench/load.py [N]
"""
from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

import helm_core
from helm_core.chart import prepare

SHARED = Path(os.environ.get("HELM_CONTROLLER_SHARED_CHARTS",
                            Path(__file__).resolve().parents[1].parent / "shared" / "charts"))


def _median_ms(fn, n: int) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    if not SHARED.is_dir():
        print(f"{SHARED} is not present: nothing to measure")
        return 0
    charts = sorted((sum(1 for _ in p.rglob("*") if _.is_file()), p) for p in SHARED.iterdir() if (p / "Chart.yaml").exists())
    print(f"{'chart':28} {'files':>5} {'cold load':>10} {'warm load':>10} {'warm prepare':>13} {'total warm':>11}")
    for count, path in reversed(charts[-5:]):
        t = time.perf_counter()
        chart = helm_core.load_chart(path)
        cold = (time.perf_counter() - t) * 1000
        load_ms = _median_ms(lambda: helm_core.load_chart(path), n)
        prep_ms = _median_ms(lambda: prepare.prepare_chart(chart, {}), n)
        print(f"{path.name:28} {count:5d} {cold:8.1f}ms {load_ms:8.1f}ms {prep_ms:11.1f}ms {load_ms + prep_ms:9.1f}ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
