"""Shared helpers of the controller e2e tests: the controller as a real process
(``python -m helm_operator run``), a namespace with a deployer ServiceAccount, HelmRequests made,
read and waited for.

The ``controller`` and ``objects`` fixtures are imported by the test modules that use them
(module scope: one controller process per module).
"""
from __future__ import annotations

import base64
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException

from e2e.conftest import ClusterInfo, Kubectl
from helm_core.sources import package

ROOT = Path(__file__).resolve().parents[1]
HELLO = ROOT / "examples" / "charts" / "hello"
READY_TIMEOUT_S = 60.0
START_TIMEOUT_S = 30.0
GROUP, VERSION, PLURAL = "helm.sh", "v1alpha1", "helmrequests"

FULL_RULES = [
    {"apiGroups": ["", "apps", "batch", "helm.sh", "coordination.k8s.io"],
     "resources": ["configmaps", "services", "secrets", "deployments", "replicasets", "pods", "jobs",
                   "releases", "releases/status", "leases"],
     "verbs": ["get", "list", "watch", "create", "update", "patch", "delete"]},
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Controller:
    """A running ``helm-operator run`` process; ``restart``/``kill`` for crash tests."""

    def __init__(self, cluster: ClusterInfo, log: Path, args: tuple[str, ...] = (), *,
                 kubeconfig: Path | None = None) -> None:
        self.cluster = cluster
        self.log = log
        self.args = args
        """Extra ``helm-operator run`` flags."""
        self.kubeconfig = kubeconfig or cluster.kubeconfig
        """Whom the controller acts as (default: the cluster's admin)."""
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        env = dict(os.environ, HELM_OPERATOR_LUA_ALLOWLIST="io,os", KUBECONFIG=str(self.kubeconfig))
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "helm_operator", "run", "--probe-port", str(self.port),
                 "--metrics-port", "0", "--cache-dir", str(self.log.parent / "cache"), *self.args],
                stdout=out, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"controller exited {self.proc.returncode}:\n{self.log.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/readyz", timeout=1) as rsp:
                    if rsp.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.2)
        raise AssertionError(f"controller not ready:\n{self.log.read_text()[-3000:]}")

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def readyz(self) -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/readyz", timeout=5) as rsp:
            return rsp.read().decode()

    def metrics(self) -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=5) as rsp:
            return rsp.read().decode()


@pytest.fixture(scope="module")
def controller(cluster: ClusterInfo, kubectl: Kubectl, tmp_path_factory: pytest.TempPathFactory
               ) -> Iterator[Controller]:
    for crd in ("helmrequest.yaml", "helmrepository.yaml", "release.yaml"):
        kubectl("apply", "-f", str(ROOT / "manifests" / "crds" / crd))
    kubectl("wait", "--for=condition=Established", "crd/helmrequests.helm.sh", "crd/releases.helm.sh",
            "crd/helmrepositories.helm.sh", "--timeout=60s")
    ctl = Controller(cluster, tmp_path_factory.mktemp("controller") / "controller.log")
    ctl.start()
    yield ctl
    ctl.stop()


def shard_controller(cluster: ClusterInfo, kubectl: Kubectl, log: Path, shard: dict[str, str],
                     *args: str) -> Controller:
    """A started controller (``args`` its extra flags) serving only the HelmRequests labelled
    ``shard``: a module's requests, which other modules' controllers leave alone."""
    for crd in ("helmrequest.yaml", "release.yaml"):
        kubectl("apply", "-f", str(ROOT / "manifests" / "crds" / crd))
    controller = Controller(cluster, log, args=("--selector", ",".join(f"{k}={v}" for k, v in shard.items()),
                                                *args))
    controller.start()
    return controller


@pytest.fixture
def objects(api: k8s.ApiClient) -> k8s.CustomObjectsApi:
    return k8s.CustomObjectsApi(api)


def chart_tgz(files: dict[str, str], name: str = "demo") -> bytes:
    return package.archive_bytes(name, sorted((k, v.encode()) for k, v in files.items()))


def hello_tgz() -> bytes:
    return package.package(HELLO)[1]


def setup_namespace(api: k8s.ApiClient, namespace: str, *, chart: bytes | None,
                    rules: list[dict[str, Any]] | None = None) -> None:
    """A ``deployer`` ServiceAccount with ``rules`` (default FULL_RULES) and, unless ``chart``
    is None, the ConfigMap ``chart`` holding it (the default source of :func:`request`)."""
    core, rbac = k8s.CoreV1Api(api), k8s.RbacAuthorizationV1Api(api)
    core.create_namespaced_service_account(namespace, {"metadata": {"name": "deployer"}})
    rbac.create_namespaced_role(namespace, {"metadata": {"name": "deployer"},
                                            "rules": FULL_RULES if rules is None else rules})
    rbac.create_namespaced_role_binding(namespace, {
        "metadata": {"name": "deployer"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "deployer"},
        "subjects": [{"kind": "ServiceAccount", "name": "deployer", "namespace": namespace}]})
    if chart is not None:
        core.create_namespaced_config_map(namespace, {
            "metadata": {"name": "chart"}, "binaryData": {"chart.tgz": base64.b64encode(chart).decode()}})


def request(objects: k8s.CustomObjectsApi, namespace: str, name: str = "app", *,
            meta_labels: dict[str, str] | None = None, **spec: Any) -> None:
    body = {"apiVersion": f"{GROUP}/{VERSION}", "kind": "HelmRequest",
            "metadata": {"name": name, "namespace": namespace, **({"labels": meta_labels} if meta_labels else {})},
            "spec": {"chart": {"configMapRef": {"name": "chart"}}, "serviceAccountName": "deployer",
                     "install": {"timeout": "60s"}, "upgrade": {"timeout": "60s"}, **spec}}
    objects.create_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, body)


def patch_spec(objects: k8s.CustomObjectsApi, namespace: str, name: str, spec: dict[str, Any]) -> None:
    objects.patch_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, name, {"spec": spec})


def get(objects: k8s.CustomObjectsApi, namespace: str, name: str = "app") -> dict[str, Any]:
    return objects.get_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, name)  # type: ignore[no-any-return]


def condition(obj: dict[str, Any], type_: str) -> dict[str, Any] | None:
    for cond in (obj.get("status") or {}).get("conditions") or []:
        if cond["type"] == type_:
            return dict(cond)
    return None


def wait_for(objects: k8s.CustomObjectsApi, namespace: str, check: Callable[[dict[str, Any]], bool],
             name: str = "app", timeout: float = READY_TIMEOUT_S) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    obj: dict[str, Any] = {}
    while time.monotonic() < deadline:
        obj = get(objects, namespace, name)
        if check(obj):
            return obj
        time.sleep(0.3)
    raise AssertionError(f"timed out; last status: {json.dumps(obj.get('status'), indent=1)}")


def wait_gone(objects: k8s.CustomObjectsApi, namespace: str, name: str = "app",
              timeout: float = READY_TIMEOUT_S) -> None:
    """Wait until the HelmRequest ``name`` is gone (its finalizer, the uninstall, let it go)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            get(objects, namespace, name)
        except ApiException as exc:
            assert exc.status == 404
            return
        time.sleep(0.3)
    raise AssertionError("the HelmRequest (its finalizer) was never removed")


def ready_at(generation: int | None = None) -> Callable[[dict[str, Any]], bool]:
    def check(obj: dict[str, Any]) -> bool:
        ready = condition(obj, "Ready")
        gen = generation or obj["metadata"]["generation"]
        return bool(ready and ready["status"] == "True" and obj["status"].get("observedGeneration") == gen)
    return check


def stalled(obj: dict[str, Any]) -> bool:
    return condition(obj, "Stalled") is not None


def version_secrets(api: k8s.ApiClient, namespace: str) -> list[str]:
    items = k8s.CoreV1Api(api).list_namespaced_secret(namespace, field_selector="type=helm.sh/release-version").items
    return sorted(s.metadata.name for s in items)


def explain(kubectl: Kubectl, field: str, timeout: float = 60.0) -> str:
    """``kubectl explain FIELD`` with whitespace collapsed. The API server publishes a new CRD's
    OpenAPI (and kubectl refreshes its discovery cache) a few seconds after Established: ask
    again for a while before failing."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return " ".join(kubectl("explain", field).stdout.split())
        except AssertionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(2)
