"""Render time per chart vs `helm template` wall time, in the same run.

Usage: .venv/bin/python bench/render.py [chart ...]   (default: every chart in ../shared/charts)

Then the Jinja2 section: warm render time of the example twins (examples/charts/twin-go in Go
templates, twin-jinja in Jinja2, the same objects), with default values and with large ones.

For each chart: load + prepare once, render once (first render: parse + compile), then time
RUNS warm renders (median); time `helm-core template` processes (cold CLI: interpreter
start, imports, load, render, print): once with an empty cache root (`cli 1st`: parses
every template, checks schemas) then RUNS more with the memo that run left (`cli`: parse
trees, YAML documents, toYaml texts and schema passes read from disk, as on a user's second
run); and RUNS `helm template` processes (median), each right after one of ours. Prints ms
and the ratios warm/helm (goal <= 1.0) and cold CLI/helm (goal <= 2.0) for both CLI figures,
then each ratio's range and for how many charts it is within its goal.

Our modules are byte-compiled first (`compileall`), as a wheel install does: an editable
checkout run with PYTHONDONTWRITEBYTECODE would otherwise re-compile them on every run.
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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import helm_core  # noqa: E402
from helm_core.chart import prepare  # noqa: E402
from helm_core.engine import render  # noqa: E402

CHARTS_DIR = Path(os.environ.get("HELM_CONTROLLER_SHARED_CHARTS",
                                  Path(__file__).resolve().parents[1].parent / "shared" / "charts"))
HELM_CORE = Path(sys.executable).with_name("helm-core")
RUNS = 9
BOOTSTRAP_HELM = "/root/.cache/hc-bootstrap/bin/helm"


def helm_binary() -> str | None:
    return os.environ.get("HELM_BIN") or shutil.which("helm") or (
        BOOTSTRAP_HELM if Path(BOOTSTRAP_HELM).is_file() else None)


def time_ours(chart_dir: Path) -> tuple[float, float, int]:
    prepared = prepare.prepare_chart(helm_core.load_chart(chart_dir), {})
    start = time.perf_counter()
    out = render.render(prepared.chart, prepared.values)
    cold = time.perf_counter() - start
    samples = []
    for _ in range(RUNS):
        start = time.perf_counter()
        render.render(prepared.chart, prepared.values)
        samples.append(time.perf_counter() - start)
    return cold, statistics.median(samples), len(out)


EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "charts"
#: Values that make the twins loop: many config keys and ports.
LARGE_TWIN_VALUES = {"config": {f"KEY_{i:04d}": f"value-{i}" for i in range(500)},
                     "ports": [{"name": f"p{i}", "port": 1000 + i} for i in range(200)]}


def time_warm(chart_dir: Path, values: dict[str, object]) -> float:
    """Median warm render time (the first render, which compiles, is not counted)."""
    prepared = prepare.prepare_chart(helm_core.load_chart(chart_dir), values)
    render.render(prepared.chart, prepared.values)
    samples = []
    for _ in range(RUNS):
        start = time.perf_counter()
        render.render(prepared.chart, prepared.values)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def jinja_twins() -> None:
    """Print the Jinja2 twin's warm render time next to its Go-template twin's."""
    print(f"\n{'jinja2 twin':26} {'go ms':>8} {'jinja2 ms':>9} {'jinja2/go':>9}")
    for label, values in (("twin (default values)", {}), ("twin (500 keys, 200 ports)", LARGE_TWIN_VALUES)):
        go_s = time_warm(EXAMPLES / "twin-go", values)
        jinja_s = time_warm(EXAMPLES / "twin-jinja", values)
        print(f"{label:26} {go_s * 1e3:8.2f} {jinja_s * 1e3:9.2f} {jinja_s / go_s:9.2f}")


def wall_seconds(command: list[str], env: dict[str, str] | None = None) -> float:
    """Wall time of one whole process."""
    start = time.perf_counter()
    subprocess.run(command, capture_output=True, check=True, env=env)
    return time.perf_counter() - start


def time_cli(chart_dir: Path, helm: str | None) -> tuple[float, float, float]:
    """(first run with an empty cache root, median of the runs after it) of `helm-core template`,
    and the median of as many `helm template` runs, interleaved with ours so that a busy
    moment on the machine weighs on both sides of the ratio."""
    with tempfile.TemporaryDirectory(prefix="bench-render-cache-") as cache:
        env = dict(os.environ, HELM_CORE_CACHE=cache)
        command = [str(HELM_CORE), "template", str(chart_dir)]
        first = wall_seconds(command, env)
        ours, helms = [], []
        for _ in range(RUNS):
            ours.append(wall_seconds(command, env))
            if helm:
                helms.append(wall_seconds([helm, "template", str(chart_dir)]))
        return first, statistics.median(ours), statistics.median(helms) if helms else float("nan")


def byte_compile() -> None:
    root = Path(__file__).resolve().parents[1]
    for package in ("helm_core",):
        compileall.compile_dir(str(root / package), quiet=1)


def main(argv: list[str]) -> int:
    if not CHARTS_DIR.is_dir():
        print(f"{CHARTS_DIR} is not present: nothing to measure")
        jinja_twins()
        return 0
    names = argv or sorted(d.name for d in CHARTS_DIR.iterdir() if (d / "Chart.yaml").is_file())
    helm = helm_binary()
    byte_compile()
    print(f"{'chart':26} {'files':>5} {'first ms':>9} {'warm ms':>8} {'cli 1st':>8} {'cli ms':>8} {'helm ms':>8}"
          f" {'warm/helm':>9} {'1st/helm':>8} {'cli/helm':>8}")
    ratios: dict[str, list[float]] = {"warm/helm": [], "1st/helm": [], "cli/helm": []}
    for name in names:
        chart_dir = CHARTS_DIR / name
        first, warm, files = time_ours(chart_dir)
        cli_first, cli_s, helm_s = time_cli(chart_dir, helm)
        print(f"{name:26} {files:5d} {first * 1e3:9.1f} {warm * 1e3:8.1f} {cli_first * 1e3:8.1f} {cli_s * 1e3:8.1f}"
              f" {helm_s * 1e3:8.1f} {warm / helm_s:9.2f} {cli_first / helm_s:8.2f} {cli_s / helm_s:8.2f}")
        for label, value in (("warm/helm", warm), ("1st/helm", cli_first), ("cli/helm", cli_s)):
            ratios[label].append(value / helm_s)
    if helm:
        for label, values in ratios.items():
            goal = 1.0 if label == "warm/helm" else 2.0
            within = sum(v <= goal for v in values)
            print(f"{label:10} {min(values):.2f}-{max(values):.2f}, <= {goal:.1f} for {within} of {len(values)} charts")
    jinja_twins()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
