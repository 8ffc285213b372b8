"""Every API request the controller makes for one install, counted by the real API server: its
audit log records the requests of the controller's ServiceAccount (``deploy/``), which the
controller here runs as, with a token, as in a cluster (``e2e/cluster/controlplane.py``).

The API server's CPU per install follows these requests (docs/scale.md): adding one is a
visible choice. ``tests/operator/test_runner.py`` counts the controller's own client's requests
on the fake cluster; this counts Kopf's too (its finalizer, the Event) on a real one.
"""
from __future__ import annotations

import collections
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from kubernetes import client as k8s

from e2e import operator_kit
from e2e.cluster import controlplane
from e2e.cluster import kubeconfig as kubeconfigs
from e2e.conftest import ClusterInfo, Kubectl
from e2e.operator_kit import (
    GROUP,
    PLURAL,
    ROOT,
    VERSION,
    Controller,
    chart_tgz,
    get,
    ready_at,
    setup_namespace,
    wait_for,
)
from helm_operator import identity

pytestmark = pytest.mark.e2e

#: Only this module's requests reach its controller (other modules' leftovers would cost requests).
SHARD = {"e2e.helm.sh/module": "requests"}
ACCOUNT_NAMESPACE, ACCOUNT = controlplane.AUDITED_USER.split(":")[2:]
#: How long requests made after the success's Event (none are expected) are given to show.
SETTLE_S = 3.0
#: The Event of a success is posted after the status write that makes the request Ready, by
#: Kopf in the background: on a loaded machine, seconds later.
EVENT_TIMEOUT_S = 60.0
#: An admission policy applied or deleted takes effect once the API server's informer sees it.
POLICY_TIMEOUT_S = 30.0


@pytest.fixture(scope="module")
def ctl(cluster: ClusterInfo, kubectl: Kubectl, api: k8s.ApiClient,
        tmp_path_factory: pytest.TempPathFactory) -> Iterator[Controller]:
    if not audit_log(cluster).exists():
        pytest.skip("the cluster's API server keeps no audit log (an external cluster)")
    for crd in ("helmrequest.yaml", "release.yaml"):
        kubectl("apply", "-f", str(ROOT / "manifests" / "crds" / crd))
    for name in ("namespace.yaml", "serviceaccount.yaml", "rbac.yaml"):
        kubectl("apply", "-f", str(ROOT / "deploy" / name))
    token = k8s.CoreV1Api(api).create_namespaced_service_account_token(
        ACCOUNT, ACCOUNT_NAMESPACE, {"spec": {"expirationSeconds": 3600}}).status.token
    folder = tmp_path_factory.mktemp("requests")
    controller = Controller(cluster, folder / "controller.log",
                            args=("--selector", ",".join(f"{k}={v}" for k, v in SHARD.items())),
                            kubeconfig=kubeconfigs.write_token(folder / "kubeconfig", admin=cluster.kubeconfig,
                                                               user=ACCOUNT, token=token))
    controller.start()
    yield controller
    controller.stop()


def audit_log(cluster: ClusterInfo) -> Path:
    return cluster.kubeconfig.parent / controlplane.AUDIT_LOG


def requests_in(cluster: ClusterInfo, namespace: str, *, after: int) -> list[tuple[str, str]]:
    """``(verb resource[/subresource], name)`` of each audited request about ``namespace`` (its
    objects, or the namespace itself) logged past byte ``after``, in order."""
    found = []
    with audit_log(cluster).open("rb") as log:
        log.seek(after)
        for line in log:
            event = json.loads(line)
            ref = event.get("objectRef") or {}
            about = ref.get("name") if ref.get("resource") == "namespaces" else ref.get("namespace")
            if about != namespace:
                continue
            sub = f"/{ref['subresource']}" if ref.get("subresource") else ""
            found.append((f"{event['verb']} {ref.get('resource')}{sub}", ref.get("name") or ""))
    return found


#: The requests of one install (of a one-ConfigMap chart, with --wait), by verb and resource.
ONE_INSTALL = collections.Counter({
    "patch helmrequests": 1,  # Kopf's finalizer
    "get namespaces": 1, "get serviceaccounts": 1,  # then remembered for a minute
    # the chart; the object about to be applied (helm's ownership check); its readiness is
    # rated from what the apply returned (no read)
    "get configmaps": 2,
    "create leases": 1, "delete leases": 1,  # the release's lock
    "create releases": 1,  # the claim, under the lock: helm-core's history is then known empty
    "list secrets": 1,  # stock helm's versions (adoption)
    "create secrets": 1,  # the version, once: deployed (pending only past the announce grace)
    "patch configmaps": 1,  # the chart's object (server-side apply)
    "patch releases/status": 1,  # deployed
    "patch helmrequests/status": 1,  # Ready
    "create events": 1,  # InstallSucceeded
})

def _finalizer_at_creation(objects: k8s.CustomObjectsApi, namespace: str) -> bool:
    """Whether a HelmRequest created now gets the controller's finalizer from admission (a dry
    run: admission runs, nothing is stored)."""
    body = {"apiVersion": f"{GROUP}/{VERSION}", "kind": "HelmRequest", "metadata": {"name": "probe"},
            "spec": {"chart": {"configMapRef": {"name": "chart"}}}}
    made = objects.create_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, body, dry_run="All")
    return identity.FINALIZER in (made["metadata"].get("finalizers") or [])


@pytest.fixture
def finalizer_policy(kubectl: Kubectl, api: k8s.ApiClient, namespace: str) -> Iterator[None]:
    """deploy/finalizer/ applied, and active, for one test (then removed, and inactive again:
    other modules' requests no controller serves must not get the finalizer)."""
    objects = k8s.CustomObjectsApi(api)

    def until(active: bool) -> None:
        deadline = time.monotonic() + POLICY_TIMEOUT_S
        while _finalizer_at_creation(objects, namespace) != active:
            assert time.monotonic() < deadline, f"the finalizer policy is not {'in' * (not active)}active"
            time.sleep(0.5)

    kubectl("apply", "-k", str(ROOT / "deploy" / "finalizer"))
    try:
        until(active=True)
        yield
    finally:
        kubectl("delete", "-k", str(ROOT / "deploy" / "finalizer"))
        until(active=False)


def _install(cluster: ClusterInfo, api: k8s.ApiClient, namespace: str) -> list[tuple[str, str]]:
    """The audited requests of one install of a one-ConfigMap chart (until its Event)."""
    setup_namespace(api, namespace, chart=chart_tgz({
        "Chart.yaml": "apiVersion: v2\nname: demo\nversion: 1.0.0\n",
        "templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-out\n"
                             "data:\n  v: \"1\"\n"}))
    start = audit_log(cluster).stat().st_size
    objects = k8s.CustomObjectsApi(api)
    operator_kit.request(objects, namespace, meta_labels=SHARD)
    wait_for(objects, namespace, ready_at(1))
    deadline = time.monotonic() + EVENT_TIMEOUT_S
    while "create events" not in {request for request, _ in requests_in(cluster, namespace, after=start)}:
        assert time.monotonic() < deadline, "the success's Event was never posted"
        time.sleep(0.3)
    time.sleep(SETTLE_S)
    return requests_in(cluster, namespace, after=start)


def _described(made: list[tuple[str, str]]) -> str:
    return "\n".join(f"{request} {name}" for request, name in made)


def test_one_install_makes_these_requests(ctl: Controller, cluster: ClusterInfo, api: k8s.ApiClient,
                                          namespace: str) -> None:
    made = _install(cluster, api, namespace)
    assert collections.Counter(request for request, _ in made) == ONE_INSTALL, _described(made)


def test_with_the_finalizer_policy_the_controller_adds_no_finalizer(
        ctl: Controller, cluster: ClusterInfo, api: k8s.ApiClient, namespace: str, finalizer_policy: None) -> None:
    """deploy/finalizer/: the API server adds the finalizer at creation, Kopf finds it and
    writes nothing; the request still carries it (a deletion uninstalls, as before)."""
    made = _install(cluster, api, namespace)
    assert collections.Counter(request for request, _ in made) == \
        ONE_INSTALL - collections.Counter({"patch helmrequests": 1}), _described(made)  # no PATCH
    objects = k8s.CustomObjectsApi(api)
    assert get(objects, namespace)["metadata"]["finalizers"] == [identity.FINALIZER]
    objects.delete_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, "app")
    deadline = time.monotonic() + 60
    while [o for o in objects.list_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL)["items"]]:
        assert time.monotonic() < deadline, "the request was not deleted"
        time.sleep(0.3)
    assert k8s.CoreV1Api(api).list_namespaced_config_map(namespace, field_selector="metadata.name=app-out").items == []
