"""install + upgrade + uninstall of a medium chart: helm-core against the real helm, same cluster.

Usage: ``python bench/release.py [--kubeconfig PATH] [--chart DIR] [--runs N] [--wait]``.
Without ``--kubeconfig`` a local cluster is started (``python -m e2e.cluster build`` first).
Both tools run as command-line processes (what a user pays, start-up included) on the same
control plane in the same run, alternating, each in its own namespace; helm-core also runs the
same cycle through the library in this process (what the controller pays, imports warm); the chart defaults to
../shared/charts/prometheus. Prints the median seconds of each step and of the whole cycle for
both, and the ratio helm-core / helm (goal: at most 1.0x).
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402

from helm_core.kube import client as kclient  # noqa: E402
from helm_core.kube import live  # noqa: E402
from helm_core.kube import wait as kwait  # noqa: E402

GOAL_RATIO = 1.0
DEFAULT_CHART = ROOT.parent / "shared" / "charts" / "prometheus"
HELM_CACHE = Path("/root/.cache/hc-bootstrap/bin/helm")
CRD = ROOT / "manifests" / "crds" / "release.yaml"
STEPS = ("install", "upgrade", "uninstall")


def helm_binary() -> str:
    found = os.environ.get("HELM_BIN") or shutil.which("helm") or (
        str(HELM_CACHE) if HELM_CACHE.exists() else None)
    if not found:
        raise SystemExit("the reference helm binary is needed: set HELM_BIN or put helm on PATH")
    return found


def commands(tool: list[str], chart: str, namespace: str, wait: bool) -> dict[str, list[str]]:
    waiting = ["--wait", "--timeout", "5m"] if wait else []
    return {
        "install": [*tool, "install", "bench", chart, "-n", namespace, *waiting],
        "upgrade": [*tool, "upgrade", "bench", chart, "-n", namespace, "--set",
                    "server.podLabels.bench=two", *waiting],
        "uninstall": [*tool, "uninstall", "bench", "-n", namespace, *(["--wait"] if wait else [])],
    }


def cycle(tool: list[str], chart: str, kubeconfig: str, client: live.LiveClient,
          wait: bool) -> dict[str, float]:
    namespace = f"bench-release-{random.randrange(16**6):06x}"
    client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
    env = {**os.environ, "KUBECONFIG": kubeconfig}
    times = {}
    try:
        for step, command in commands(tool, chart, namespace, wait).items():
            started = time.perf_counter()
            result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
            times[step] = time.perf_counter() - started
            if result.returncode != 0:
                raise SystemExit(f"{' '.join(command)} failed:\n{result.stderr}")
    finally:
        client.delete(kclient.ObjectRef("v1", "Namespace", namespace))
    times["total"] = sum(times.values())
    return times


def cycle_library(chart_dir: str, client: live.LiveClient, wait: bool) -> dict[str, float]:
    """The same cycle through the library in this process (what the controller pays)."""
    import helm_core

    namespace = f"bench-release-{random.randrange(16**6):06x}"
    client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
    cfg = helm_core.actions.config.on_cluster(client)
    times = {}
    try:
        started = time.perf_counter()
        helm_core.install(cfg, chart_dir, name="bench", namespace=namespace, wait=wait)
        times["install"] = time.perf_counter() - started
        started = time.perf_counter()
        helm_core.upgrade(cfg, chart_dir, {"server": {"podLabels": {"bench": "two"}}},
                          name="bench", namespace=namespace, wait=wait)
        times["upgrade"] = time.perf_counter() - started
        started = time.perf_counter()
        helm_core.uninstall(cfg, "bench", namespace, wait=wait)
        times["uninstall"] = time.perf_counter() - started
    finally:
        client.delete(kclient.ObjectRef("v1", "Namespace", namespace))
    times["total"] = sum(times.values())
    return times


def run(kubeconfig: str, chart: str, runs: int, wait: bool) -> None:
    client = live.connect(live.LiveOptions(kubeconfig=kubeconfig))
    crd = yaml.safe_load(CRD.read_text())
    client.apply(crd, force=True)
    kwait.wait_ready(client, [kclient.ObjectRef.of(crd)], options=kwait.WaitOptions(timeout_s=30))
    tools = {"helm-core": [sys.executable, "-m", "helm_core"], "helm": [helm_binary()]}
    results: dict[str, list[dict[str, float]]] = {name: [] for name in (*tools, "library")}
    for _ in range(runs):
        for name, tool in tools.items():
            results[name].append(cycle(tool, chart, kubeconfig, client, wait))
        results["library"].append(cycle_library(chart, client, wait))
    medians = {name: {step: statistics.median(r[step] for r in rows) for step in (*STEPS, "total")}
               for name, rows in results.items()}
    print(f"chart {chart}, {runs} run(s) each, --wait {'on' if wait else 'off'}; median seconds")
    print(f"{'step':<10} {'helm-core':>10} {'library':>10} {'helm':>10} {'ratio':>8} {'lib ratio':>10}")
    for step in (*STEPS, "total"):
        ours, lib, theirs = (medians[n][step] for n in ("helm-core", "library", "helm"))
        print(f"{step:<10} {ours:10.2f} {lib:10.2f} {theirs:10.2f} {ours / theirs:7.2f}x "
              f"{lib / theirs:9.2f}x")
    for label, name in (("helm-core CLI", "helm-core"), ("helm-core library (in process)", "library")):
        ratio = medians[name]["total"] / medians["helm"]["total"]
        print(f"{label} / helm = {ratio:.2f}x (goal <= {GOAL_RATIO:.1f}x): "
              f"{'met' if ratio <= GOAL_RATIO else 'not met'}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kubeconfig")
    parser.add_argument("--chart", default=str(DEFAULT_CHART))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--wait", action="store_true", help="install/upgrade/uninstall with --wait")
    args = parser.parse_args()
    if not Path(args.chart).is_dir():
        raise SystemExit(f"chart folder not found: {args.chart}")
    if args.kubeconfig:
        run(args.kubeconfig, args.chart, args.runs, args.wait)
        return 0
    from e2e.cluster import harness
    cluster = harness.LocalCluster.start()
    try:
        run(str(cluster.kubeconfig), args.chart, args.runs, args.wait)
    finally:
        cluster.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
