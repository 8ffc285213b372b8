"""The controller as a real process (``python -m helm_operator run``) against the local control
plane: HelmRequests installed, upgraded, rolled back, refused and uninstalled, acting as each
request's ServiceAccount."""
from __future__ import annotations

import json
import re
import time

import pytest
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException

from e2e.conftest import Kubectl
from e2e.operator_kit import (GROUP, PLURAL, READY_TIMEOUT_S, VERSION, Controller, chart_tgz, condition,
                              controller, get, hello_tgz, objects, patch_spec, ready_at, request,
                              setup_namespace, stalled, version_secrets, wait_for, wait_gone)

pytestmark = pytest.mark.e2e

__all__ = ["controller", "objects"]  # fixtures used by the tests below


def test_apply_installs_then_values_edit_upgrades_then_delete_uninstalls(
        controller: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, kubectl: Kubectl,
        namespace: str) -> None:
    setup_namespace(api, namespace, chart=hello_tgz())
    request(objects, namespace, values={"message": "one"})
    kubectl("wait", "--for=condition=Ready", "hreq/app", "-n", namespace, "--timeout=60s")
    obj = get(objects, namespace)
    first = obj["status"]["version"]
    assert obj["status"]["chartName"] == "hello" and obj["status"]["chartVersion"] == "0.1.0"
    assert [c["type"] for c in obj["status"]["conditions"]] == ["Ready", "Released"]
    cm = k8s.CoreV1Api(api).read_namespaced_config_map("app-hello", namespace)
    assert cm.data["message"] == "one"
    assert version_secrets(api, namespace) == [f"app.{first.lower()}"]
    release = objects.get_namespaced_custom_object(GROUP, VERSION, namespace, "releases", "app")
    assert release["status"]["version"] == first
    assert release["metadata"]["annotations"]["helm.sh/helmrequest"] == f"{namespace}/app"

    patch_spec(objects, namespace, "app", {"values": {"message": "two"}})
    obj = wait_for(objects, namespace, ready_at(2))
    second = obj["status"]["version"]
    assert second != first and second > first
    assert k8s.CoreV1Api(api).read_namespaced_config_map("app-hello", namespace).data["message"] == "two"
    assert version_secrets(api, namespace) == sorted([f"app.{first.lower()}", f"app.{second.lower()}"])
    assert condition(obj, "Ready")["reason"] == "UpgradeSucceeded"

    delete_and_wait_gone(objects, namespace)
    assert version_secrets(api, namespace) == []
    with pytest.raises(ApiException) as gone:
        k8s.CoreV1Api(api).read_namespaced_config_map("app-hello", namespace)
    assert gone.value.status == 404
    # Flux's reasons, the deletion's uninstall included, so alerts written for Flux match (the
    # uninstall's Event may land after the finalizer was removed: Kopf posts it in the background)
    deadline = time.monotonic() + 30
    while True:
        events = kubectl("get", "events", "-n", namespace, "-o", "json").stdout
        ours = [e for e in json.loads(events)["items"] if e["involvedObject"]["kind"] == "HelmRequest"]
        if "UninstallSucceeded" in {e["reason"] for e in ours} or time.monotonic() > deadline:
            break
        time.sleep(0.3)
    assert {"InstallSucceeded", "UpgradeSucceeded", "UninstallSucceeded"} <= {e["reason"] for e in ours}
    # kubectl describe's "From" names the controller (Kopf's default said "kopf")
    assert {e["source"].get("component") for e in ours} == {"helm-operator"}
    assert {e["reportingComponent"] for e in ours} == {"helm-operator"}


def delete_and_wait_gone(objects: k8s.CustomObjectsApi, namespace: str) -> None:
    """Delete HelmRequest ``app`` and wait until its finalizer (the uninstall) let it go."""
    objects.delete_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, "app")
    wait_gone(objects, namespace)


def test_values_from_change_triggers_upgrade(controller: Controller, api: k8s.ApiClient,
                                             objects: k8s.CustomObjectsApi, namespace: str) -> None:
    setup_namespace(api, namespace, chart=hello_tgz())
    core = k8s.CoreV1Api(api)
    core.create_namespaced_config_map(namespace, {"metadata": {"name": "vals"},
                                                  "data": {"values.yaml": "message: from-configmap\n"}})
    request(objects, namespace, interval="1s", valuesFrom=[{"kind": "ConfigMap", "name": "vals"}])
    obj = wait_for(objects, namespace, ready_at(1))
    first = obj["status"]["version"]
    assert core.read_namespaced_config_map("app-hello", namespace).data["message"] == "from-configmap"
    core.patch_namespaced_config_map("vals", namespace, {"data": {"values.yaml": "message: changed\n"}})
    obj = wait_for(objects, namespace, lambda o: o["status"].get("version") not in (None, first), timeout=60)
    assert core.read_namespaced_config_map("app-hello", namespace).data["message"] == "changed"


def test_a_missing_values_from_object_is_retried_until_created_as_flux(
        controller: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str) -> None:
    """Flux's ``ValuesError``: a valuesFrom ConfigMap not there yet is retried (Reconciling,
    never Stalled); once created the request installs with its values."""
    setup_namespace(api, namespace, chart=hello_tgz())
    request(objects, namespace, valuesFrom=[{"kind": "ConfigMap", "name": "vals"}])
    obj = wait_for(objects, namespace, lambda o: (condition(o, "Ready") or {}).get("reason") == "ValuesError")
    assert condition(obj, "Reconciling")["reason"] == "ProgressingWithRetry"
    assert condition(obj, "Stalled") is None
    assert condition(obj, "Ready")["message"] == (
        "valuesFrom[0] (ConfigMap vals, key values.yaml): not found (set optional: true to skip it)")
    core = k8s.CoreV1Api(api)
    core.create_namespaced_config_map(namespace, {"metadata": {"name": "vals"},
                                                  "data": {"values.yaml": "message: at last\n"}})
    wait_for(objects, namespace, ready_at(1), timeout=60)
    assert core.read_namespaced_config_map("app-hello", namespace).data["message"] == "at last"


def test_bad_chart_reference_stalls_with_clear_message(controller: Controller, api: k8s.ApiClient,
                                                       objects: k8s.CustomObjectsApi, namespace: str) -> None:
    setup_namespace(api, namespace, chart=hello_tgz())
    request(objects, namespace, chart={"configMapRef": {"name": "no-such-chart"}})
    obj = wait_for(objects, namespace, stalled)
    assert condition(obj, "Stalled")["reason"] == "ChartSourceFailed"
    assert condition(obj, "Stalled")["message"] == f"configmap/{namespace}/no-such-chart: not found"
    assert condition(obj, "Ready")["status"] == "False"
    assert condition(obj, "Reconciling") is None
    assert version_secrets(api, namespace) == []


SCHEMA_CHART = {
    "Chart.yaml": "apiVersion: v2\nname: demo\nversion: 1.0.0\n",
    "values.yaml": "replicas: 1\n",
    "values.schema.json": json.dumps({"type": "object", "properties": {"replicas": {"type": "integer"}}}),
    "templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\ndata:\n"
                         "  replicas: {{ .Values.replicas | quote }}\n",
}


def test_values_failing_the_schema_stall_and_apply_nothing(controller: Controller, api: k8s.ApiClient,
                                                           objects: k8s.CustomObjectsApi, namespace: str) -> None:
    setup_namespace(api, namespace, chart=chart_tgz(SCHEMA_CHART))
    request(objects, namespace, values={"replicas": "three"})
    obj = wait_for(objects, namespace, stalled)
    assert condition(obj, "Stalled")["reason"] == "ValuesInvalid"
    assert "replicas" in condition(obj, "Stalled")["message"]
    with pytest.raises(ApiException):
        k8s.CoreV1Api(api).read_namespaced_config_map("demo", namespace)
    assert version_secrets(api, namespace) == []


def test_service_account_without_rights_is_refused_and_leaves_nothing(
        controller: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str) -> None:
    rules = [{"apiGroups": ["", "helm.sh", "coordination.k8s.io"],
              "resources": ["configmaps", "secrets", "releases", "releases/status", "leases"],
              "verbs": ["get", "list", "watch", "create", "update", "patch", "delete"]}]
    setup_namespace(api, namespace, chart=hello_tgz(), rules=rules)
    request(objects, namespace)
    obj = wait_for(objects, namespace, lambda o: stalled(o) or condition(o, "Reconciling") is not None
                   and (o["status"].get("failures") or 0) > 0)
    message = condition(obj, "Ready")["message"]
    assert f"system:serviceaccount:{namespace}:deployer" in message
    assert "forbidden" in message
    apps = k8s.AppsV1Api(api)
    assert apps.list_namespaced_deployment(namespace).items == []


LUA_CHART = {
    "Chart.yaml": "apiVersion: v2\nname: demo\nversion: 1.0.0\n",
    "ext/permissions.yaml": "lua: [io]\n",
    "ext/lua/chart.lua": "events.on('pre-render', 0, function(_) end)\n"
                         # reads a file of its own: only with the io permission the request granted
                         "events.on('pre-delete', 0, function(_) assert(io.open('ext/permissions.yaml')) end)\n",
    "templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\ndata:\n  a: b\n",
}


def test_lua_permission_refused_then_accepted_by_the_request(
        controller: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str) -> None:
    setup_namespace(api, namespace, chart=chart_tgz(LUA_CHART))
    request(objects, namespace)
    obj = wait_for(objects, namespace, stalled)
    assert condition(obj, "Stalled")["reason"] == "LuaPermissionDenied"
    assert condition(obj, "Stalled")["message"] == (
        'chart "demo" asks for Lua permissions [io]; granted [] '
        "(not in spec.lua.acceptPermissions: io)")
    patch_spec(objects, namespace, "app", {"lua": {"acceptPermissions": ["io"]}})
    wait_for(objects, namespace, ready_at(2))
    assert k8s.CoreV1Api(api).read_namespaced_config_map("demo", namespace).data == {"a": "b"}
    # the uninstall runs the version's kept pre-delete Lua with the permissions the request grants
    delete_and_wait_gone(objects, namespace)
    assert version_secrets(api, namespace) == []


def test_suspend_then_rollback_to_a_version(controller: Controller, api: k8s.ApiClient,
                                            objects: k8s.CustomObjectsApi, namespace: str) -> None:
    setup_namespace(api, namespace, chart=hello_tgz())
    core = k8s.CoreV1Api(api)
    request(objects, namespace, values={"message": "v1"})
    first = wait_for(objects, namespace, ready_at(1))["status"]["version"]
    patch_spec(objects, namespace, "app", {"values": {"message": "v2"}})
    wait_for(objects, namespace, ready_at(2))
    patch_spec(objects, namespace, "app", {"suspend": True, "values": {"message": "v3"}})
    obj = wait_for(objects, namespace, lambda o: (condition(o, "Ready") or {}).get("reason") == "Suspended")
    assert core.read_namespaced_config_map("app-hello", namespace).data["message"] == "v2"
    assert len(version_secrets(api, namespace)) == 2
    patch_spec(objects, namespace, "app", {"suspend": False, "rollbackTo": first})
    obj = wait_for(objects, namespace, ready_at())
    assert condition(obj, "Ready")["reason"] == "RollbackSucceeded"
    assert core.read_namespaced_config_map("app-hello", namespace).data["message"] == "v1"
    assert len(version_secrets(api, namespace)) == 3


def test_same_release_claimed_twice_stalls_the_second(controller: Controller, api: k8s.ApiClient,
                                                      objects: k8s.CustomObjectsApi, namespace: str) -> None:
    setup_namespace(api, namespace, chart=hello_tgz())
    request(objects, namespace, name="first", releaseName="shared")
    wait_for(objects, namespace, ready_at(1), name="first")
    request(objects, namespace, name="second", releaseName="shared")
    obj = wait_for(objects, namespace, stalled, name="second")
    assert condition(obj, "Stalled")["reason"] == "ReleaseClaimed"
    assert condition(obj, "Stalled")["message"] == (
        f"release {namespace}/shared is already managed by HelmRequest {namespace}/first; "
        "choose another releaseName or targetNamespace")
    objects.delete_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, "second")
    wait_gone(objects, namespace, "second")  # its finalizer ran
    assert len(version_secrets(api, namespace)) == 1  # the second's deletion left the release


def test_metrics_count_reconciles(controller: Controller) -> None:
    text = controller.metrics()
    assert 'helm_operator_reconciles_total{action="install",result="success"}' in text
    assert "helm_operator_operations_in_flight" in text


def test_drift_is_reported_in_warn_mode_and_corrected_in_enabled_mode(
        controller: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str) -> None:
    setup_namespace(api, namespace, chart=hello_tgz())
    core = k8s.CoreV1Api(api)
    request(objects, namespace, interval="1s", driftDetection={"mode": "warn"}, values={"message": "kept"})
    first = wait_for(objects, namespace, ready_at(1))["status"]["version"]
    core.patch_namespaced_config_map("app-hello", namespace, {"data": {"message": "edited by hand"}})
    obj = wait_for(objects, namespace, lambda o: bool(o["status"].get("drift")), timeout=60)
    assert obj["status"]["drift"] == [f'ConfigMap "app-hello" in namespace "{namespace}": changed (data)']
    assert obj["status"]["version"] == first
    assert core.read_namespaced_config_map("app-hello", namespace).data["message"] == "edited by hand"
    patch_spec(objects, namespace, "app", {"driftDetection": {"mode": "enabled"}})
    wait_for(objects, namespace, ready_at(2))  # the spec change upgrades, correcting the edit
    assert core.read_namespaced_config_map("app-hello", namespace).data["message"] == "kept"
    second = get(objects, namespace)["status"]["version"]
    core.delete_namespaced_config_map("app-hello", namespace)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # only the deleted object is applied again
        try:
            restored = core.read_namespaced_config_map("app-hello", namespace)
            break
        except ApiException as exc:
            assert exc.status == 404
            time.sleep(0.3)
    else:
        raise AssertionError("the deleted ConfigMap was never put back")
    assert restored.data["message"] == "kept"
    obj = wait_for(objects, namespace, lambda o: "drift" not in o["status"])
    assert obj["status"]["version"] == second  # no new version: the deployed one runs again
    assert version_secrets(api, namespace) == sorted([f"app.{first.lower()}",
                                                      f"app.{second.lower()}"])


DRIFT_CHART = {
    "Chart.yaml": "apiVersion: v2\nname: demo\nversion: 0.1.0\n",
    "templates/cm.yaml": "".join(
        f"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  count: '1'\n  color: blue\n"
        for name in ("scaled", "plain")),
}


def test_drift_ignore_rules_are_not_compared_nor_reset(
        controller: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str) -> None:
    """Flux's driftDetection.ignore: an ignored path changed by hand is no drift; when another
    field of the same object drifts, the correction keeps the ignored path as the cluster has it;
    objects the rule's target leaves out are compared whole."""
    setup_namespace(api, namespace, chart=chart_tgz(DRIFT_CHART))
    core = k8s.CoreV1Api(api)
    request(objects, namespace, interval="1s", driftDetection={
        "mode": "enabled", "ignore": [{"paths": ["/data/count"], "target": {"kind": "ConfigMap", "name": "sc.*"}}]})
    first = wait_for(objects, namespace, ready_at(1))["status"]["version"]
    core.patch_namespaced_config_map("scaled", namespace, {"data": {"count": "5"}})
    time.sleep(4)  # a few interval checks: nothing to report, nothing put back
    assert "drift" not in get(objects, namespace)["status"]
    assert core.read_namespaced_config_map("scaled", namespace).data == {"count": "5", "color": "blue"}
    for name in ("scaled", "plain"):
        core.patch_namespaced_config_map(name, namespace, {"data": {"count": "7", "color": "red"}})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        data = {n: core.read_namespaced_config_map(n, namespace).data for n in ("scaled", "plain")}
        if data["scaled"]["color"] == "blue" and data["plain"]["color"] == "blue":
            break
        time.sleep(0.3)
    assert data == {"scaled": {"count": "7", "color": "blue"}, "plain": {"count": "1", "color": "blue"}}
    assert get(objects, namespace)["status"]["version"] == first  # corrected in place, no new version


def test_lua_permission_outside_the_admin_allowlist_is_refused_even_when_accepted(
        controller: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str) -> None:
    chart = dict(LUA_CHART, **{"ext/permissions.yaml": "lua: [network]\n"})
    setup_namespace(api, namespace, chart=chart_tgz(chart))
    request(objects, namespace, lua={"acceptPermissions": ["network", "io"]})
    obj = wait_for(objects, namespace, stalled)
    assert condition(obj, "Stalled")["message"] == (
        'chart "demo" asks for Lua permissions [network]; granted [io] '
        "(not in the operator's allowlist: network)")
    with pytest.raises(ApiException):
        k8s.CoreV1Api(api).read_namespaced_config_map("demo", namespace)


def test_deleting_the_namespace_uninstalls_without_event_errors(
        controller: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str) -> None:
    """A namespace deleted with its HelmRequests: each request's finalizer runs, and its outcome
    goes to the controller's log rather than to Events the API server would refuse (Kopf retried
    those, with an ERROR line per attempt)."""
    setup_namespace(api, namespace, chart=hello_tgz())
    request(objects, namespace)
    wait_for(objects, namespace, ready_at(1))
    written = controller.log.stat().st_size
    k8s.CoreV1Api(api).delete_namespace(namespace)
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        try:
            k8s.CoreV1Api(api).read_namespace(namespace)
        except ApiException as exc:
            assert exc.status == 404
            break
        time.sleep(0.5)
    else:
        raise AssertionError(f"namespace {namespace} was never deleted")
    time.sleep(2)  # a refused Event would be retried for seconds
    with open(controller.log, "rb") as log:
        log.seek(written)
        said = log.read().decode(errors="replace")
    # the uninstall races the namespace controller, which removes the service account's rights
    # too: it is uninstalled, or the finalizer is released with the reason; either is logged
    assert re.search(rf"{namespace}/app: (Normal UninstallSucceeded|Warning FinalizerReleased): .*"
                     r"\(no Event: the namespace is being deleted\)", said), said
    # (the controller serves every test's namespace: only this one's lines count)
    ours = "\n".join(line for line in said.splitlines() if namespace in line)
    assert "Failed to post an event" not in ours and "ERROR" not in ours, ours[-3000:]


def test_flux_reconcile_annotations_run_the_check_now_and_force_an_upgrade(
        controller: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, kubectl: Kubectl,
        namespace: str) -> None:
    """What ``flux reconcile hr app [--force]`` writes, by hand: the request's interval is an hour,
    yet the token is handled at once; with forceAt the same token upgrades though nothing changed."""
    setup_namespace(api, namespace, chart=hello_tgz())
    request(objects, namespace, interval="1h", values={"message": "one"})
    first = wait_for(objects, namespace, ready_at(1))["status"]["version"]
    kubectl("annotate", "hreq/app", "-n", namespace, "--overwrite",
            "reconcile.fluxcd.io/requestedAt=2026-11-26T21:00:00.000000000Z")
    obj = wait_for(objects, namespace,
                   lambda o: (o.get("status") or {}).get("lastHandledReconcileAt") == "2026-11-26T21:00:00.000000000Z",
                   timeout=30)
    assert obj["status"]["version"] == first
    kubectl("annotate", "hreq/app", "-n", namespace, "--overwrite",
            "reconcile.fluxcd.io/requestedAt=t2", "reconcile.fluxcd.io/forceAt=t2")
    obj = wait_for(objects, namespace,
                   lambda o: (o.get("status") or {}).get("lastHandledForceAt") == "t2", timeout=30)
    assert obj["status"]["version"] > first
    assert condition(obj, "Ready")["reason"] == "UpgradeSucceeded"
    assert len(version_secrets(api, namespace)) == 2


def test_values_files_of_the_chart_become_its_defaults_and_a_missing_one_stalls(
        controller: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str) -> None:
    """Flux's ``spec.chart.spec.valuesFiles``: per-environment defaults the chart carries."""
    chart = chart_tgz({
        "Chart.yaml": "apiVersion: v2\nname: demo\nversion: 1.0.0\n",
        "values.yaml": "replicas: 1\ntier: base\n",
        "values-prod.yaml": "replicas: 3\n",
        "templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cfg\n"
                             "data:\n  replicas: {{ .Values.replicas | quote }}\n"
                             "  tier: {{ .Values.tier | default \"none\" | quote }}\n"})
    setup_namespace(api, namespace, chart=chart)
    request(objects, namespace, chart={"configMapRef": {"name": "chart"}, "valuesFiles": ["values.yaml", "values-prod.yaml"]},
            values={"tier": "gold"})
    wait_for(objects, namespace, ready_at(1))
    core = k8s.CoreV1Api(api)
    assert core.read_namespaced_config_map("app-cfg", namespace).data == {"replicas": "3", "tier": "gold"}
    patch_spec(objects, namespace, "app", {"values": None,
                                           "chart": {"configMapRef": {"name": "chart"}, "valuesFiles": ["values-prod.yaml"]}})
    wait_for(objects, namespace, ready_at(2))
    assert core.read_namespaced_config_map("app-cfg", namespace).data == {"replicas": "3", "tier": "none"}
    patch_spec(objects, namespace, "app", {"chart": {"configMapRef": {"name": "chart"}, "valuesFiles": ["values-staging.yaml"]}})
    obj = wait_for(objects, namespace, stalled)
    assert condition(obj, "Stalled")["reason"] == "ValuesInvalid"
    assert condition(obj, "Stalled")["message"] == \
        "failed to merge chart values: no values file found at path 'values-staging.yaml'"
