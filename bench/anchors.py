"""Our render and CLI against Go Helm's, per chart, with the goals of issue 20 counted.

Usage: .venv/bin/python bench/anchors.py [--warm-only] [chart ...]   (default: every chart in ../shared/charts
and every chart of examples/charts that helm can render: no Lua, no Jinja2 templates; ``rsa-keygen``
names a chart of two RSA key generations, nginx's floor: see KEYGEN_CHART)

``--warm-only``: only ``go ms`` and ``warm ms`` (no processes), each taken in ROUNDS rounds that
alternate Go and ours per chart, so that a change of the machine's load weighs on both.

Five figures per chart, all taken in this one run so that the machine's load weighs on both sides:

- ``go ms``: Go Helm in-process (load + render), through ``helm-python-sdk`` (the Helm Go SDK behind
  a C ABI), best of RUNS. It is installed into a bench-only virtual environment under the cache
  root (never a product dependency); the first run of this script creates it (needs PyPI).
- ``warm ms``: ours in-process, warm (load + prepare + render, after a first render), best of RUNS.
- ``helm ms`` / ``cli ms``: ``helm template`` and ``helm-core template`` processes, interleaved,
  medians. ``helm-core`` is the wheel built from this checkout and installed into the bench
  environment, as users install it (an editable install's import hooks cost more).
  ``cli 1st`` is the median of RUNS first runs, each with an empty cache root of its own (no
  memo), each run's detached memo writer waited for before the next timing (one first run's
  wall time moved by up to 2x from run to run); ``cli ms`` the runs with the memo warm.
  helm-core prints a pure render's output from its memo (``helm_core/cli/rendered.py``), so for
  charts without random values ``cli ms`` times that memo, not a render.
- ``-o/helm -o``: both tools writing to ``--output-dir`` (medians, interleaved with the above):
  helm-core serves such a run from the same memo entry as ``cli ms`` (the key leaves the folder
  out), writing the kept documents for a pure chart and rendering only what drew otherwise.

Goals (issue 20): warm <= 0.5x Go on every chart that takes Go more than 10 ms; cli <= 1.0x helm
with the memo warm (and, here, -o <= 1.0x helm -o); cli 1st <= 2.0x helm. The last lines print
each ratio's range and how many charts meet its goal, and the worst ratio of all.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.cli_runs import adopt_orphans, left_children_cpu  # noqa: E402
from bench.render import CHARTS_DIR, helm_binary, wall_seconds  # noqa: E402
from helm_core.chart import loader, prepare  # noqa: E402
from helm_core.engine import render  # noqa: E402

RUNS = 7
#: ``--warm-only``: rounds of (Go, ours) per chart; the best of each side is kept.
ROUNDS = 3
SDK = "helm-python-sdk==0.2.2"
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "helm-controller" / "bench-anchors"
VENV = CACHE / "venv"

#: Run inside the bench environment: Go Helm's load + render, best of RUNS, per chart (JSON out).
GO_SIDE = r"""
import json, sys, time
import helm_python as helm
runs = int(sys.argv[1]); out = {}
for path in sys.argv[2:]:
    best = float("inf"); error = None
    for _ in range(runs + 1):  # the first is a warm-up
        start = time.perf_counter()
        try:
            with helm.Chart.load(path) as chart:
                chart.render(None, name="release-name", namespace="default", is_install=True)
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"; break
        best = min(best, time.perf_counter() - start)
    out[path] = {"s": best, "error": error}
print(json.dumps(out))
"""


def bench_env(*, with_ours: bool = True) -> Path:
    """The bench-only environment: helm-python-sdk and (``with_ours``) this checkout's wheel,
    re-installed each run."""
    python = VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", SDK], check=True)
    if not with_ours:
        return VENV
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--force-reinstall", "--no-deps", str(ROOT)],
                   check=True, capture_output=True)
    # Dependencies of ours that the SDK environment lacks (a no-op once present).
    subprocess.run([str(python), "-m", "pip", "install", "-q", str(ROOT)], check=True, capture_output=True)
    subprocess.run([str(python), "-m", "compileall", "-q", str(VENV / "lib")], capture_output=True)
    return VENV


def go_times(venv: Path, charts: list[Path]) -> dict[str, dict]:
    result = subprocess.run([str(venv / "bin" / "python"), "-c", GO_SIDE, str(RUNS), *map(str, charts)],
                            check=True, capture_output=True, text=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def ours_warm(chart_dir: Path) -> float:
    """Best of RUNS of load + prepare + render, after one of each (the first compiles)."""
    render.render(*_prepared(chart_dir))
    best = float("inf")
    for _ in range(RUNS):
        start = time.perf_counter()
        render.render(*_prepared(chart_dir))
        best = min(best, time.perf_counter() - start)
    return best


def _prepared(chart_dir: Path) -> tuple:
    prepared = prepare.prepare_chart(loader.load(chart_dir), {})
    return prepared.chart, prepared.values


def cli_times(venv: Path, chart_dir: Path, helm: str) -> dict[str, float]:
    """Interleaved process times: ``first`` (helm-core, empty cache root), then medians of later
    runs: ``cli`` and ``helm`` printing to stdout, ``cli -o`` and ``helm -o`` writing to
    ``--output-dir`` (a new folder each run). ``cli -o`` takes the memo entry ``cli`` keeps
    (``helm_core/cli/rendered.py``): a pure chart's documents are written from it."""
    ours = [str(venv / "bin" / "helm-core"), "template", str(chart_dir)]
    theirs = [helm, "template", str(chart_dir)]
    with tempfile.TemporaryDirectory(prefix="bench-anchors-cache-") as cache:
        env = dict(os.environ, HELM_CORE_CACHE=cache)
        wall_seconds(ours, env)  # fills the memo of the runs below
        left_children_cpu()
        series: dict[str, list[float]] = {"first": [], "cli": [], "helm": [], "cli -o": [], "helm -o": []}
        for run in range(RUNS):
            with tempfile.TemporaryDirectory(prefix="bench-anchors-first-") as empty:
                series["first"].append(wall_seconds(ours, dict(os.environ, HELM_CORE_CACHE=empty)))
                left_children_cpu()  # its memo writer, done before the next timing
            series["cli"].append(wall_seconds(ours, env))
            series["helm"].append(wall_seconds(theirs))
            series["cli -o"].append(wall_seconds([*ours, "--output-dir", f"{cache}/ours{run}"], env))
            series["helm -o"].append(wall_seconds([*theirs, "--output-dir", f"{cache}/helm{run}"]))
    return {name: statistics.median(times) for name, times in series.items()}


def warm_only(venv: Path, charts: list[Path]) -> int:
    """go ms and warm ms, interleaved per chart (see the module's doc), and their ratio."""
    print(f"{'chart':26} {'go ms':>7} {'warm ms':>8} {'warm/go':>7}  load average per round")
    ratios: list[float] = []
    for chart_dir in charts:
        go_best = warm_best = float("inf")
        loads: list[str] = []
        error = None
        for _ in range(ROUNDS):
            g = go_times(venv, [chart_dir])[str(chart_dir)]
            error = g["error"]
            if not error:
                go_best = min(go_best, g["s"])
            warm_best = min(warm_best, ours_warm(chart_dir))
            loads.append(f"{os.getloadavg()[0]:.1f}")
        ratio = warm_best / go_best if not error else float("nan")
        if not error and go_best > 0.010:
            ratios.append(ratio)
        print(f"{chart_dir.name:26} {go_best * 1e3:7.1f} {warm_best * 1e3:8.1f} {ratio:7.2f}  {' '.join(loads)}")
    if ratios:
        within = sum(r <= 0.5 for r in ratios)
        print(f"warm/go   {min(ratios):.2f}-{max(ratios):.2f}, <= 0.5 for {within} of {len(ratios)} charts"
              " (charts where Go takes > 10 ms)")
    return 0


EXAMPLES_DIR = ROOT / "examples" / "charts"


def default_charts() -> list[Path]:
    """Every shared chart, then every example chart helm renders too (no Lua, no Jinja2)."""
    from helm_core.engine import engines

    shared = sorted(d for d in CHARTS_DIR.iterdir() if (d / "Chart.yaml").is_file())
    examples = sorted(d for d in EXAMPLES_DIR.iterdir() if (d / "Chart.yaml").is_file() and not (d / "ext").exists()
                      and not any(engines.is_jinja_file(f.name) for f in d.rglob("*") if f.is_file()))
    return shared + examples


#: A chart made for the run (``rsa-keygen`` on the command line) that only makes what nginx's
#: default TLS Secret makes: a CA and a certificate it signs, two RSA-2048 key generations.
#: Both sides spend nearly all of it generating primes (OpenSSL's for us, Go's crypto/rsa for
#: helm), whose time varies with luck: its ratio is the floor of nginx's.
KEYGEN_CHART = {
    "Chart.yaml": "apiVersion: v2\nname: rsa-keygen\nversion: 0.1.0\n",
    "templates/tls.yaml": ('{{- $ca := genCA "x-ca" 365 }}\n{{- $cert := genSignedCert "x" nil (list "x") 365 $ca }}\n'
                           "apiVersion: v1\nkind: Secret\nmetadata:\n  name: x\ndata:\n"
                           "  tls.crt: {{ $cert.Cert | b64enc }}\n"),
}


def _keygen_chart() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="bench-anchors-")) / "rsa-keygen"
    for name, text in KEYGEN_CHART.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


def _named(name: str) -> Path:
    """A chart named on the command line: a path, a shared chart, an example chart, or
    ``rsa-keygen`` (:data:`KEYGEN_CHART`)."""
    if name == "rsa-keygen" and not Path(name).exists():
        return _keygen_chart()
    for candidate in (Path(name), CHARTS_DIR / name, EXAMPLES_DIR / name):
        if (candidate / "Chart.yaml").is_file():
            return candidate
    raise SystemExit(f"no chart named {name!r}")


def main(argv: list[str]) -> int:
    only_warm = "--warm-only" in argv
    argv = [a for a in argv if a != "--warm-only"]
    if not CHARTS_DIR.is_dir():
        print(f"{CHARTS_DIR} is not present: nothing to measure")
        return 0
    helm = helm_binary()
    if not helm:
        print("no helm binary ($HELM_BIN or PATH): nothing to compare with")
        return 1
    charts = [_named(n) for n in argv] if argv else default_charts()
    venv = bench_env(with_ours=not only_warm)
    if only_warm:
        print(f"load average {os.getloadavg()[0]:.2f}; best of {RUNS} in-process, in {ROUNDS} interleaved rounds")
        return warm_only(venv, charts)
    go = go_times(venv, charts)
    adopt_orphans()  # each first run's detached memo writer becomes ours to wait for
    print(f"load average {os.getloadavg()[0]:.2f}; best of {RUNS} in-process, median of {RUNS} processes")
    print(f"{'chart':26} {'go ms':>7} {'warm ms':>8} {'warm/go':>7} {'helm ms':>8} {'cli 1st':>8} {'cli ms':>7}"
          f" {'1st/helm':>8} {'cli/helm':>8} {'-o/helm -o':>10}")
    ratios: dict[str, list[float]] = {"warm/go": [], "1st/helm": [], "cli/helm": [], "-o/helm -o": []}
    for chart_dir in charts:
        g = go[str(chart_dir)]
        warm = ours_warm(chart_dir)
        t = cli_times(venv, chart_dir, helm)
        if g["error"]:
            go_text, ratio_text = "error", "-"
        else:
            go_text, ratio_text = f"{g['s'] * 1e3:7.1f}", f"{warm / g['s']:7.2f}"
            if g["s"] > 0.010:
                ratios["warm/go"].append(warm / g["s"])
        ratios["1st/helm"].append(t["first"] / t["helm"])
        ratios["cli/helm"].append(t["cli"] / t["helm"])
        ratios["-o/helm -o"].append(t["cli -o"] / t["helm -o"])
        print(f"{chart_dir.name:26} {go_text:>7} {warm * 1e3:8.1f} {ratio_text:>7} {t['helm'] * 1e3:8.1f}"
              f" {t['first'] * 1e3:8.1f} {t['cli'] * 1e3:7.1f} {t['first'] / t['helm']:8.2f}"
              f" {t['cli'] / t['helm']:8.2f} {t['cli -o'] / t['helm -o']:10.2f}")
        if g["error"]:
            print(f"  go: {g['error'][:200]}")
    goals = {"warm/go": 0.5, "1st/helm": 2.0, "cli/helm": 1.0, "-o/helm -o": 1.0}
    for label, values in ratios.items():
        if values:
            within = sum(v <= goals[label] for v in values)
            scope = " (charts where Go takes > 10 ms)" if label == "warm/go" else ""
            print(f"{label:9} {min(values):.2f}-{max(values):.2f}, <= {goals[label]:.1f} for {within} of"
                  f" {len(values)} charts{scope}")
    worst = max(v for values in ratios.values() for v in values)
    print(f"worst ratio of all: {worst:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
