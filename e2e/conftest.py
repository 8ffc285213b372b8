"""Fixtures for e2e tests: one real control plane per session, a fresh namespace per test.

Rules:
- ``cluster`` starts the local control plane once per session (building the pinned binaries if
  they are missing and Go is available). When it cannot be had, e2e tests fail loudly under CI
  (``CI=true``) and skip with the reason locally; a build or start failure always fails.
- ``HELM_CONTROLLER_E2E_KUBECONFIG`` points the session at an already running cluster (for
  example one from ``python -m e2e.cluster up``) instead of starting one.
- ``namespace`` creates ``e2e-<test>-<random>``, waits for its ``default`` ServiceAccount (pods
  are refused before it exists) and deletes it afterwards without waiting.
"""
from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from kubernetes import client as k8s
from kubernetes import config as k8s_config
from kubernetes.client.rest import ApiException

from e2e.cluster import errors, harness, tools

TYPE_CHECKING = False
if TYPE_CHECKING:
    from helm_core.kube import live

EXTERNAL_KUBECONFIG_ENV = "HELM_CONTROLLER_E2E_KUBECONFIG"
NAMESPACE_READY_TIMEOUT_S = 30.0
KUBECTL_TIMEOUT_S = 120.0


@dataclass(frozen=True)
class ClusterInfo:
    """What tests need to reach the cluster: its kubeconfig, server URL and tool folder."""

    kubeconfig: Path
    server: str
    bin_dir: Path

    def api_client(self) -> k8s.ApiClient:
        return k8s_config.new_client_from_config(config_file=str(self.kubeconfig))


def _unavailable(reason: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"e2e cluster unavailable in CI: {reason}", pytrace=False)
    pytest.skip(f"e2e cluster unavailable: {reason}")


@pytest.fixture(scope="session")
def cluster() -> Iterator[ClusterInfo]:
    external = os.environ.get(EXTERNAL_KUBECONFIG_ENV)
    if external:
        api = k8s_config.new_client_from_config(config_file=external)
        yield ClusterInfo(kubeconfig=Path(external), server=api.configuration.host,
                          bin_dir=tools.bin_dir())
        return
    bin_dir = tools.bin_dir()
    if tools.missing_binaries(bin_dir):
        try:
            tools.build(out=lambda line: print(line, file=sys.__stderr__, flush=True))
        except errors.ToolsMissingError as exc:
            _unavailable(str(exc))
        except errors.ToolBuildError as exc:
            pytest.fail(str(exc), pytrace=False)
    try:
        local = harness.LocalCluster.start(bin_dir=bin_dir)
    except errors.HarnessError as exc:
        pytest.fail(f"the local control plane did not start: {exc}", pytrace=False)
    try:
        yield ClusterInfo(kubeconfig=local.kubeconfig, server=local.server, bin_dir=bin_dir)
    finally:
        local.stop()


@pytest.fixture(scope="session")
def api(cluster: ClusterInfo) -> k8s.ApiClient:
    """An admin (``system:masters``) API client."""
    return cluster.api_client()


def create_namespace(api: k8s.ApiClient, prefix: str) -> str:
    """Create a uniquely named namespace and wait until pods can be created in it."""
    slug = re.sub(r"[^a-z0-9-]+", "-", prefix.lower()).strip("-")[:40].strip("-")
    name = f"e2e-{slug}-{secrets.token_hex(3)}"
    core = k8s.CoreV1Api(api)
    core.create_namespace({"metadata": {"name": name, "labels": {"e2e": "true"}}})
    deadline = time.monotonic() + NAMESPACE_READY_TIMEOUT_S
    while True:
        try:
            core.read_namespaced_service_account("default", name)
            return name
        except ApiException as exc:
            if exc.status != 404 or time.monotonic() > deadline:
                raise
        time.sleep(0.1)


@contextlib.contextmanager
def scratch_namespace(api: k8s.ApiClient, request: pytest.FixtureRequest) -> Iterator[str]:
    """A namespace named after the test, deleted afterwards without waiting."""
    name = create_namespace(api, request.node.name.removeprefix("test_"))
    yield name
    try:
        k8s.CoreV1Api(api).delete_namespace(name)
    except ApiException:
        pass


@pytest.fixture
def namespace(api: k8s.ApiClient, request: pytest.FixtureRequest) -> Iterator[str]:
    with scratch_namespace(api, request) as name:
        yield name


class Kubectl:
    """``kubectl`` bound to the cluster's kubeconfig; tests may use it, the product never does."""

    def __init__(self, kubeconfig: Path) -> None:
        self.kubeconfig = kubeconfig

    def __call__(self, *args: str, stdin: str | None = None, check: bool = True,
                 timeout: float = KUBECTL_TIMEOUT_S) -> subprocess.CompletedProcess[str]:
        command = ["kubectl", f"--kubeconfig={self.kubeconfig}", *args]
        result = subprocess.run(command, input=stdin, capture_output=True, text=True,
                                timeout=timeout)
        if check and result.returncode != 0:
            raise AssertionError(f"{' '.join(command)} failed ({result.returncode}):\n"
                                 f"{result.stdout}{result.stderr}")
        return result


@pytest.fixture(scope="module")
def hc(cluster: ClusterInfo) -> Iterator[live.LiveClient]:
    """A client of the cluster with helm-core's Release CRD installed (the release tests'; the
    kube tests define their own)."""
    from e2e import release_kit

    client = release_kit.connect(cluster.kubeconfig)
    release_kit.install_release_crd(client)
    yield client


@pytest.fixture(scope="session")
def kubectl(cluster: ClusterInfo) -> Kubectl:
    if not shutil.which("kubectl"):
        pytest.skip("kubectl is not on PATH")
    return Kubectl(cluster.kubeconfig)
