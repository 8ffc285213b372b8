"""What the controller's own watches give (operator/helm_operator/watches.py), live: a newer
generation cancels an install's wait, and a changed valuesFrom ConfigMap upgrades at once
although spec.interval is 10 minutes."""
from __future__ import annotations

import json
import time
from typing import Any

import pytest
from kubernetes import client as k8s

from e2e.conftest import Kubectl
from e2e.test_operator_flow import (  # noqa: F401 - `controller` is a fixture
    Controller, chart_tgz, condition, controller, get, objects, patch_spec, ready_at, request,
    setup_namespace, version_secrets, wait_for)

pytestmark = pytest.mark.e2e

#: A Deployment whose pods fit no node while .Values.nodeSelector names a missing label.
STUCK_CHART = {
    "Chart.yaml": "apiVersion: v2\nname: demo\nversion: 1.0.0\n",
    "values.yaml": "nodeSelector: {}\n",
    "templates/deployment.yaml": (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n"
        "  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n"
        "      labels: {app: web}\n    spec:\n"
        "      nodeSelector: {{ toJson .Values.nodeSelector }}\n"
        "      containers:\n      - name: c\n        image: nginx\n"),
}
#: What "at once" means here: the wait polls every 0.5 s; Kopf and the API server add a little.
PROMPT_S = 20.0


def _reasons(kubectl: Kubectl, namespace: str) -> dict[str, list[str]]:
    events = json.loads(kubectl("get", "events", "-n", namespace, "-o", "json").stdout)["items"]
    found: dict[str, list[str]] = {}
    for event in events:
        if event["involvedObject"]["kind"] == "HelmRequest":
            found.setdefault(event["reason"], []).append(event["message"])
    return found


def test_a_new_generation_cancels_the_wait_of_the_previous_one(
        controller: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi,
        kubectl: Kubectl, namespace: str) -> None:
    setup_namespace(api, namespace, chart=chart_tgz(STUCK_CHART))
    request(objects, namespace, values={"nodeSelector": {"no-such-node": "true"}},
            install={"timeout": "5m"}, upgrade={"timeout": "5m"})
    wait_for(objects, namespace, lambda o: (condition(o, "Reconciling") or {}).get("message")
             == "installing the release")
    time.sleep(2)  # the install is now waiting for a Deployment that cannot become ready
    assert condition(get(objects, namespace), "Ready")["status"] == "Unknown"
    patched = time.monotonic()
    # (a merge patch: null removes the key, leaving an empty nodeSelector)
    patch_spec(objects, namespace, "app", {"values": {"nodeSelector": {"no-such-node": None}}})
    obj = wait_for(objects, namespace, ready_at(2), timeout=120)
    took = time.monotonic() - patched
    print(f"generation 2 Ready {took:.1f}s after the patch (install timeout 5m)")
    assert took < PROMPT_S, f"generation 2 was Ready {took:.1f}s after the patch"
    assert condition(obj, "Ready")["reason"] == "InstallSucceeded"
    assert obj["status"]["observedGeneration"] == 2
    deadline = time.monotonic() + 30  # Kopf posts Events in the background
    while not (superseded := _reasons(kubectl, namespace).get("HealthCheckCanceled")):
        assert time.monotonic() < deadline, f"no HealthCheckCanceled Event: {_reasons(kubectl, namespace)}"
        time.sleep(0.3)
    assert superseded == [f"Health checks canceled due to new reconciliation triggered by HelmRequest/{namespace}/app: "
                          "superseded by generation 2: the install of generation 1 stopped "
                          "waiting and its version was marked failed"]
    release = objects.get_namespaced_custom_object("helm.sh", "v1alpha1", namespace, "releases",
                                                   "app")
    assert release["status"]["version"] == obj["status"]["version"]
    assert len(version_secrets(api, namespace)) == 2  # the failed first version, the deployed one
    leases = k8s.CoordinationV1Api(api).list_namespaced_lease(namespace).items
    assert [lease.spec.holder_identity for lease in leases if lease.spec.holder_identity] == []


def test_a_changed_values_from_configmap_upgrades_at_once_despite_a_long_interval(
        controller: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi,
        namespace: str) -> None:
    chart = chart_tgz({"Chart.yaml": "apiVersion: v2\nname: demo\nversion: 1.0.0\n",
                       "values.yaml": "message: default\n",
                       "templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n"
                                            "  name: out\ndata:\n"
                                            "  message: {{ .Values.message | quote }}\n"})
    setup_namespace(api, namespace, chart=chart)
    core = k8s.CoreV1Api(api)
    core.create_namespaced_config_map(namespace, {"metadata": {"name": "vals"},
                                                  "data": {"values.yaml": "message: one\n"}})
    core.create_namespaced_secret(namespace, {"metadata": {"name": "unrelated"},
                                              "stringData": {"values.yaml": "message: x\n"}})
    request(objects, namespace, interval="10m",
            valuesFrom=[{"kind": "ConfigMap", "name": "vals"},
                        {"kind": "Secret", "name": "extra", "optional": True}])
    first = wait_for(objects, namespace, ready_at(1))["status"]["version"]
    assert core.read_namespaced_config_map("out", namespace).data["message"] == "one"

    def upgraded_from(before: str) -> Any:
        return lambda o: o["status"].get("version") not in (None, before) and ready_at(1)(o)

    # an object no request reads changes nothing
    core.patch_namespaced_secret("unrelated", namespace,
                                 {"stringData": {"values.yaml": "message: y\n"}})
    core.patch_namespaced_config_map("vals", namespace, {"data": {"values.yaml": "message: two\n"}})
    changed = time.monotonic()
    obj = wait_for(objects, namespace, upgraded_from(first), timeout=120)
    took = time.monotonic() - changed
    print(f"upgraded {took:.1f}s after the ConfigMap changed (interval 10m)")
    assert took < PROMPT_S, f"upgrade {took:.1f}s after the ConfigMap changed (interval 10m)"
    assert core.read_namespaced_config_map("out", namespace).data["message"] == "two"
    assert len(version_secrets(api, namespace)) == 2

    # an optional Secret created later counts too, and wins (later valuesFrom entries win)
    second = obj["status"]["version"]
    core.create_namespaced_secret(namespace, {"metadata": {"name": "extra"},
                                              "stringData": {"values.yaml": "message: three\n"}})
    wait_for(objects, namespace, upgraded_from(second), timeout=PROMPT_S)
    assert core.read_namespaced_config_map("out", namespace).data["message"] == "three"
    assert len(version_secrets(api, namespace)) == 3


def test_a_spec_fix_during_a_retry_delay_is_handled_at_once(
        controller: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi,
        namespace: str) -> None:
    """A repository nobody answers fails with backoff (5, 10, 20 s ...): a user fixing the
    source must not wait out the delay in progress (operator/helm_operator/progress.py)."""
    setup_namespace(api, namespace, chart=chart_tgz({
        "Chart.yaml": "apiVersion: v2\nname: demo\nversion: 1.0.0\n",
        "templates/cm.yaml": "kind: ConfigMap\napiVersion: v1\nmetadata:\n  name: fixed\n"}))
    request(objects, namespace, chart={"repository": {"url": "http://127.0.0.1:9/charts", "name": "demo"}})
    wait_for(objects, namespace, lambda o: (o.get("status") or {}).get("failures", 0) >= 3, timeout=120)
    patched = time.monotonic()  # now inside the 20 s delay before the fourth attempt
    patch_spec(objects, namespace, "app", {"chart": {"repository": None, "configMapRef": {"name": "chart"}}})
    obj = wait_for(objects, namespace, ready_at(2), timeout=120)
    took = time.monotonic() - patched
    print(f"generation 2 Ready {took:.1f}s after the fix (a 20 s retry delay was in progress)")
    assert took < PROMPT_S / 2, f"generation 2 was Ready {took:.1f}s after the fix"
    assert obj["status"]["chartName"] == "demo"
