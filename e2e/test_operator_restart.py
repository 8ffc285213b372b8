"""The controller killed mid-install (SIGKILL) and restarted converges: one deployed version, no
lock left; a namespace deleted with its HelmRequest never hangs on the finalizer."""
from __future__ import annotations

import signal
import time
from collections.abc import Iterator

import pytest
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException

from e2e.conftest import ClusterInfo, Kubectl
from e2e.operator_kit import (ROOT, Controller, chart_tgz, condition, get, ready_at, request,
                              setup_namespace, wait_for)

pytestmark = pytest.mark.e2e

MANY = 150
"""ConfigMaps in the slow chart: enough for the install to take a few seconds."""
CONVERGE_TIMEOUT_S = 180.0
"""The dead holder's release lock expires after its 60 s lease; retries back off up to 40 s."""


@pytest.fixture(scope="module")
def ctl(cluster: ClusterInfo, kubectl: Kubectl, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Controller]:
    for crd in ("helmrequest.yaml", "release.yaml"):
        kubectl("apply", "-f", str(ROOT / "manifests" / "crds" / crd))
    controller = Controller(cluster, tmp_path_factory.mktemp("restart") / "controller.log")
    controller.start()
    yield controller
    controller.stop()


def slow_chart() -> bytes:
    body = "".join(f"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i}\ndata:\n  i: \"{i}\"\n"
                   for i in range(MANY))
    return chart_tgz({"Chart.yaml": "apiVersion: v2\nname: demo\nversion: 1.0.0\n", "templates/many.yaml": body})


def test_sigkill_mid_install_then_restart_converges(ctl: Controller, api: k8s.ApiClient, namespace: str) -> None:
    objects = k8s.CustomObjectsApi(api)
    core = k8s.CoreV1Api(api)
    setup_namespace(api, namespace, chart=slow_chart())
    request(objects, namespace)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if len(core.list_namespaced_config_map(namespace, label_selector="").items) > 10:
            break
        time.sleep(0.05)
    ctl.stop(signal.SIGKILL)
    # killed before Ready; inside the announce grace no Reconciling was written either
    assert (condition(get(objects, namespace), "Ready") or {}).get("status") != "True"
    ctl.start()
    obj = wait_for(objects, namespace, ready_at(1), timeout=CONVERGE_TIMEOUT_S)
    assert obj["status"]["failures"] == 0
    assert len(core.list_namespaced_config_map(namespace).items) >= MANY
    releases = objects.get_namespaced_custom_object("helm.sh", "v1alpha1", namespace, "releases", "app")
    assert releases["status"]["status"] == "deployed"
    statuses = [s.metadata.labels.get("status") for s in core.list_namespaced_secret(
        namespace, field_selector="type=helm.sh/release-version").items]
    assert statuses.count("deployed") == 1
    leases = k8s.CoordinationV1Api(api).list_namespaced_lease(namespace).items
    assert leases == []


def test_namespace_deletion_does_not_hang_on_the_finalizer(ctl: Controller, api: k8s.ApiClient,
                                                           namespace: str) -> None:
    objects = k8s.CustomObjectsApi(api)
    setup_namespace(api, namespace, chart=chart_tgz({
        "Chart.yaml": "apiVersion: v2\nname: demo\nversion: 1.0.0\n",
        "templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\n"}))
    request(objects, namespace)
    wait_for(objects, namespace, ready_at(1))
    core = k8s.CoreV1Api(api)
    core.delete_namespace(namespace)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            core.read_namespace(namespace)
        except ApiException as exc:
            assert exc.status == 404
            return
        time.sleep(0.5)
    left = objects.list_namespaced_custom_object("helm.sh", "v1alpha1", namespace, "helmrequests")
    raise AssertionError(f"namespace still terminating; HelmRequests: {left}")
