"""The reference ``helm install --wait`` of every shared chart succeeds on the local cluster.

This proves the fake nodes, storage and load balancers are real enough for real charts. Installs
run concurrently (each chart in its own namespace, ``CHART_PARALLELISM`` at a time) to keep the
suite short; charts that cannot share the nodes (same hostPort) take a common lock. Each job
installs, reads the release status, then uninstalls, so one chart's cluster-wide objects (an
APIService, webhooks) do not linger for the next tests.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from kubernetes import client as k8s

from e2e.conftest import ClusterInfo, create_namespace

pytestmark = pytest.mark.e2e

CHARTS_DIR = Path(os.environ.get("HELM_CONTROLLER_SHARED_CHARTS",
                               Path(__file__).resolve().parents[1].parent / "shared" / "charts"))
CHART_PARALLELISM = 3
"""Concurrent installs: enough to overlap waiting, few enough for a 2-core machine."""
INSTALL_TIMEOUT = "5m"
PROCESS_TIMEOUT_S = 420.0
EXCLUSIVE = {
    "prometheus-node-exporter": "host port 9100",
    "prometheus": "host port 9100",
}
"""Charts sharing a key here never run at the same time (their DaemonSets claim one host port)."""


def chart_names() -> list[str]:
    if not CHARTS_DIR.is_dir():
        return []
    return sorted(p.name for p in CHARTS_DIR.iterdir() if (p / "Chart.yaml").is_file())


@dataclass(frozen=True)
class InstallResult:
    chart: str
    namespace: str
    seconds: float
    install: subprocess.CompletedProcess[str]
    status: dict[str, object]
    uninstall: subprocess.CompletedProcess[str]


class ChartRunner:
    """Installs, checks and uninstalls charts with the reference helm, concurrently."""

    def __init__(self, cluster: ClusterInfo, api: k8s.ApiClient, home: Path) -> None:
        self.helm = str(cluster.bin_dir / "helm")
        self.api = api
        self.env = {**os.environ, "KUBECONFIG": str(cluster.kubeconfig),
                    "HELM_CACHE_HOME": str(home / "cache"),
                    "HELM_CONFIG_HOME": str(home / "config"),
                    "HELM_DATA_HOME": str(home / "data")}
        self.locks = {key: threading.Lock() for key in set(EXCLUSIVE.values())}
        self.pool = ThreadPoolExecutor(max_workers=CHART_PARALLELISM)
        self.futures: dict[str, Future[InstallResult]] = {}

    def submit_all(self, charts: list[str]) -> None:
        for chart in charts:
            self.futures[chart] = self.pool.submit(self._run, chart)

    def _helm(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([self.helm, *args], env=self.env, capture_output=True, text=True,
                              timeout=PROCESS_TIMEOUT_S)

    def _run(self, chart: str) -> InstallResult:
        lock = self.locks.get(EXCLUSIVE.get(chart, ""))
        if lock is None:
            return self._install_check_uninstall(chart)
        with lock:
            return self._install_check_uninstall(chart)

    def _install_check_uninstall(self, chart: str) -> InstallResult:
        namespace = create_namespace(self.api, f"chart-{chart}")
        started = time.monotonic()
        install = self._helm("install", chart, str(CHARTS_DIR / chart), "--namespace", namespace,
                             "--wait", "--timeout", INSTALL_TIMEOUT)
        seconds = time.monotonic() - started
        status_run = self._helm("status", chart, "--namespace", namespace, "-o", "json")
        status = json.loads(status_run.stdout) if status_run.returncode == 0 else {}
        uninstall = self._helm("uninstall", chart, "--namespace", namespace, "--wait",
                               "--timeout", INSTALL_TIMEOUT)
        k8s.CoreV1Api(self.api).delete_namespace(namespace)
        return InstallResult(chart, namespace, seconds, install, status, uninstall)


@pytest.fixture(scope="module")
def charts(cluster: ClusterInfo, api: k8s.ApiClient,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChartRunner]:
    if not CHARTS_DIR.is_dir():
        pytest.skip(f"shared charts not found at {CHARTS_DIR}")
    if not os.access(cluster.bin_dir / "helm", os.X_OK):
        pytest.fail(f"reference helm missing from {cluster.bin_dir}", pytrace=False)
    runner = ChartRunner(cluster, api, tmp_path_factory.mktemp("helm-home"))
    runner.submit_all(chart_names())
    yield runner
    runner.pool.shutdown(wait=True, cancel_futures=True)


@pytest.mark.parametrize("chart", chart_names() or ["<no shared charts>"])
def test_reference_helm_install_wait_succeeds(charts: ChartRunner, chart: str) -> None:
    result = charts.futures[chart].result(timeout=3 * PROCESS_TIMEOUT_S)
    print(f"{chart}: installed and ready in {result.seconds:.1f}s")
    assert result.install.returncode == 0, result.install.stderr
    info = result.status.get("info")
    assert isinstance(info, dict) and info.get("status") == "deployed"
    assert result.uninstall.returncode == 0, result.uninstall.stderr


def test_helm_binary_reports_the_pinned_version(cluster: ClusterInfo) -> None:
    helm = shutil.which("helm", path=str(cluster.bin_dir))
    assert helm, f"helm not in {cluster.bin_dir}"
    out = subprocess.run([helm, "version", "--template", "{{.Version}}"],
                         capture_output=True, text=True, check=True).stdout
    assert out == "v3.22.0"
