"""Warm in-process render time per chart vs `helm template` wall time.

Usage: .venv/bin/python bench/render.py [chart ...]   (default: every chart in /work/shared/charts)

For each chart: load + prepare once, render once to warm the compiled-template cache, then
time RUNS renders (median) and RUNS `helm template` runs (median). Prints ms and the ratio.
"""
from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from helm_core.chart import loader, prepare  # noqa: E402
from helm_core.engine import render  # noqa: E402

CHARTS_DIR = Path("/work/shared/charts")
RUNS = 5
BOOTSTRAP_HELM = "/root/.cache/hc-bootstrap/bin/helm"


def helm_binary() -> str | None:
    return os.environ.get("HELM_BIN") or shutil.which("helm") or (
        BOOTSTRAP_HELM if Path(BOOTSTRAP_HELM).is_file() else None)


def time_ours(chart_dir: Path) -> tuple[float, float, int]:
    prepared = prepare.prepare_chart(loader.load(chart_dir), {})
    start = time.perf_counter()
    out = render.render(prepared.chart, prepared.values)
    cold = time.perf_counter() - start
    samples = []
    for _ in range(RUNS):
        start = time.perf_counter()
        render.render(prepared.chart, prepared.values)
        samples.append(time.perf_counter() - start)
    return cold, statistics.median(samples), len(out)


def time_helm(helm: str, chart_dir: Path) -> float:
    samples = []
    for _ in range(RUNS):
        start = time.perf_counter()
        subprocess.run([helm, "template", str(chart_dir)], capture_output=True, check=True)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main(argv: list[str]) -> int:
    names = argv or sorted(d.name for d in CHARTS_DIR.iterdir() if (d / "Chart.yaml").is_file())
    helm = helm_binary()
    print(f"{'chart':28} {'files':>5} {'cold ms':>9} {'warm ms':>9} {'helm ms':>9} {'warm/helm':>9}")
    for name in names:
        chart_dir = CHARTS_DIR / name
        cold, warm, files = time_ours(chart_dir)
        helm_s = time_helm(helm, chart_dir) if helm else float("nan")
        print(f"{name:28} {files:5d} {cold * 1e3:9.1f} {warm * 1e3:9.1f} {helm_s * 1e3:9.1f} {warm / helm_s:9.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
