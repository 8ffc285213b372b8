"""What a render worker adds per render: time (in-process warm vs through the pool warm) and
memory (the workers' RSS), per chart, in the same run.

Usage: .venv/bin/python bench/isolation.py [chart ...]   (default: examples/charts/hello and
every chart in ../shared/charts)

For each chart: prepare + render once in this process and once through a RenderPool of one
worker (both warm up: templates parsed and compiled), then RUNS more of each (median). The
pool's figure includes what the controller pays: pickling the chart and values to the worker,
the schema check there, prepare again here without the schema, and the JSON reply.
"""
from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import helm_core  # noqa: E402
from helm_core.engine import render as render_mod, renderer as renderer_mod  # noqa: E402
from helm_core.isolation import RenderPool  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CHARTS_DIR = Path(os.environ.get("HELM_CONTROLLER_SHARED_CHARTS", ROOT.parent / "shared" / "charts"))
RUNS = 9


def one(renderer: renderer_mod.Renderer, chart_dir: Path) -> float:
    chart = helm_core.load_chart(chart_dir)
    start = time.perf_counter()
    prepared = renderer.prepare(chart, {})
    renderer.render(prepared.chart, prepared.values, render_mod.RenderOptions())
    return time.perf_counter() - start


def median_ms(renderer: renderer_mod.Renderer, chart_dir: Path) -> float:
    one(renderer, chart_dir)
    return 1000 * statistics.median(one(renderer, chart_dir) for _ in range(RUNS))


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def main(argv: list[str]) -> int:
    charts = [Path(a) for a in argv] or [ROOT / "examples" / "charts" / "hello", *(
        sorted(p for p in CHARTS_DIR.iterdir() if (p / "Chart.yaml").exists()) if CHARTS_DIR.is_dir() else [])]
    if not CHARTS_DIR.is_dir() and not argv:
        print(f"note: {CHARTS_DIR} is not present; only the example chart is measured")
    pool = RenderPool(workers=1)
    isolated = pool.renderer(tenant="bench")
    print(f"{'chart':28} {'in-process ms':>14} {'worker ms':>10} {'added ms':>9} {'ratio':>6}")
    try:
        for chart_dir in charts:
            local = median_ms(renderer_mod.LOCAL, chart_dir)
            remote = median_ms(isolated, chart_dir)
            print(f"{chart_dir.name:28} {local:14.1f} {remote:10.1f} {remote - local:9.1f} {remote / local:6.2f}")
        worker = next(iter(pool._all))
        print(f"worker RSS after every chart: {rss_mib(worker.pid):.0f} MiB "
              f"(this process: {rss_mib(os.getpid()):.0f} MiB)")
    finally:
        pool.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
