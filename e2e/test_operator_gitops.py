"""What a Flux HelmRelease user reaches for, through the controller on the local control plane:
post-renderers and common metadata, CRD policies, tests after a release, and a release applied
to a second cluster named by a kubeconfig Secret."""
from __future__ import annotations

import base64
import re
import time
from collections.abc import Iterator

import pytest
import yaml
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException

from e2e import release_kit
from e2e.cluster import errors as cluster_errors
from e2e.cluster import harness
from e2e.conftest import ClusterInfo
from e2e.operator_kit import (GROUP, PLURAL, ROOT, VERSION, Controller, chart_tgz, condition, controller, get,
                              hello_tgz, objects, patch_spec, ready_at, request, setup_namespace, stalled, wait_for,
                              wait_gone)

pytestmark = pytest.mark.e2e

__all__ = ["controller", "objects"]  # fixtures used by the tests below

SLOW_S = 120.0


#: A version's ULID, as Flux's messages name it after ``.v`` (Crockford's base32).
ULID = "[0-9A-HJKMNP-TV-Z]{26}"

def replace_chart(api: k8s.ApiClient, namespace: str, chart: bytes) -> None:
    k8s.CoreV1Api(api).patch_namespaced_config_map("chart", namespace, {
        "binaryData": {"chart.tgz": base64.b64encode(chart).decode()}})


def test_kustomize_patches_images_and_common_metadata_reach_the_deployment(
        controller: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str) -> None:
    setup_namespace(api, namespace, chart=hello_tgz())
    request(objects, namespace, values={"message": "hi"},
            postRenderers=[{"kustomize": {
                "patches": [
                    {"target": {"kind": "Deployment", "labelSelector": "app.kubernetes.io/name=hello"},
                     "patch": "- op: add\n  path: /metadata/labels/environment\n  value: production\n"
                              "- op: replace\n  path: /spec/replicas\n  value: 2\n"},
                    {"patch": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app-hello\n"
                              "spec:\n  template:\n    spec:\n      containers:\n      - name: hello\n"
                              "        env:\n        - name: FROM_PATCH\n          value: \"yes\"\n"}],
                "images": [{"name": "nginx", "newName": "mirror.local/nginx", "newTag": "1.27"}]}}],
            commonMetadata={"labels": {"team": "payments"}, "annotations": {"owner": "ops@example.com"}})
    obj = wait_for(objects, namespace, ready_at(1), timeout=SLOW_S)
    assert condition(obj, "Ready")["reason"] == "InstallSucceeded"
    deployment = k8s.AppsV1Api(api).read_namespaced_deployment("app-hello", namespace)
    assert deployment.metadata.labels["environment"] == "production"
    assert deployment.metadata.labels["team"] == "payments"
    assert deployment.metadata.annotations["owner"] == "ops@example.com"
    assert deployment.spec.replicas == 2
    container = deployment.spec.template.spec.containers[0]
    assert container.image == "mirror.local/nginx:1.27"
    assert [(e.name, e.value) for e in container.env] == [("FROM_PATCH", "yes")]
    assert container.ports[0].container_port == 80  # merged, not replaced
    service = k8s.CoreV1Api(api).read_namespaced_service("app-hello", namespace)
    assert service.metadata.labels["team"] == "payments" and "environment" not in service.metadata.labels

    # a bad patch fails the upgrade before anything is applied, naming the patch
    patch_spec(objects, namespace, "app", {"postRenderers": [{"kustomize": {"patches": [
        {"patch": "- op: remove\n  path: /spec/nothing\n", "target": {"kind": "Service"}}]}}]})
    obj = wait_for(objects, namespace, lambda o: condition(o, "Stalled") is not None, timeout=SLOW_S)
    assert "postRenderers[0].kustomize.patches[0] on Service/app-hello" in condition(obj, "Stalled")["message"]
    assert condition(obj, "Stalled")["reason"] == "RenderFailed"


CRD_V1 = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.{group}
spec:
  group: {group}
  names: {{kind: Widget, plural: widgets, singular: widget}}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {{type: integer}}
"""
CRD_V2 = CRD_V1.replace("              size: {{type: integer}}\n",
                        "              size: {{type: integer}}\n              color: {{type: string}}\n")


def crd_chart(group: str, crd: str, version: str) -> bytes:
    return chart_tgz({
        "Chart.yaml": f"apiVersion: v2\nname: demo\nversion: {version}\n",
        "values.yaml": "size: 1\n",
        "crds/widget.yaml": crd.format(group=group),
        "templates/widget.yaml": f"apiVersion: {group}/v1\nkind: Widget\nmetadata:\n  name: w\n"
                                      "spec:\n  size: {{ .Values.size }}\n"})


def widget_properties(api: k8s.ApiClient, group: str) -> set[str]:
    crd = k8s.ApiextensionsV1Api(api).read_custom_resource_definition(f"widgets.{group}")
    return set(crd.spec.versions[0].schema.open_apiv3_schema.properties["spec"].properties)


def grant_crds(api: k8s.ApiClient, namespace: str) -> None:
    rbac = k8s.RbacAuthorizationV1Api(api)
    rbac.create_cluster_role({"metadata": {"name": f"{namespace}-crds"}, "rules": [
        {"apiGroups": ["apiextensions.k8s.io"], "resources": ["customresourcedefinitions"],
         "verbs": ["get", "list", "watch", "create", "update", "patch"]},
        {"apiGroups": [f"{namespace}.example.com"], "resources": ["widgets"],
         "verbs": ["get", "list", "watch", "create", "update", "patch", "delete"]}]})
    rbac.create_cluster_role_binding({
        "metadata": {"name": f"{namespace}-crds"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": f"{namespace}-crds"},
        "subjects": [{"kind": "ServiceAccount", "name": "deployer", "namespace": namespace}]})


def test_upgrade_crds_skip_leaves_a_crd_and_create_replace_updates_it(
        controller: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str) -> None:
    group = f"{namespace}.example.com"
    setup_namespace(api, namespace, chart=crd_chart(group, CRD_V1, "0.1.0"))
    grant_crds(api, namespace)
    request(objects, namespace)  # install.crds defaults to Create
    wait_for(objects, namespace, ready_at(1), timeout=SLOW_S)
    assert widget_properties(api, group) == {"size"}

    replace_chart(api, namespace, crd_chart(group, CRD_V2, "0.2.0"))
    patch_spec(objects, namespace, "app", {"values": {"size": 2}})  # upgrade.crds defaults to Skip
    obj = wait_for(objects, namespace, ready_at(2), timeout=SLOW_S)
    assert obj["status"]["chartVersion"] == "0.2.0"
    assert widget_properties(api, group) == {"size"}

    patch_spec(objects, namespace, "app", {"values": {"size": 3}, "upgrade": {"crds": "CreateReplace",
                                                                          "timeout": "60s"}})
    wait_for(objects, namespace, ready_at(3), timeout=SLOW_S)
    assert widget_properties(api, group) == {"size", "color"}


TESTED_CHART = {
    "Chart.yaml": "apiVersion: v2\nname: demo\nversion: 0.1.0\n",
    "values.yaml": "fail: false\nmessage: one\n",
    "templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n"
                              "data:\n  message: {{ .Values.message | quote }}\n",
    # kwok runs the pod; a node selector nothing matches plus a 1s deadline makes it fail
    "templates/tests/smoke.yaml": (
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: smoke\n  annotations:\n"
        "    helm.sh/hook: test\n    helm.sh/hook-delete-policy: before-hook-creation\n"
        "spec:\n{{- if .Values.fail }}\n  activeDeadlineSeconds: 1\n{{- end }}\n  backoffLimit: 0\n"
        "  template:\n    spec:\n{{- if .Values.fail }}\n      nodeSelector:\n        no-such-node: \"true\"\n"
        "{{- end }}\n      restartPolicy: Never\n      containers:\n      - name: main\n        image: busybox\n"),
}


def test_failing_test_hook_rolls_the_upgrade_back(
        controller: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str) -> None:
    setup_namespace(api, namespace, chart=chart_tgz(TESTED_CHART))
    request(objects, namespace, test={"enable": True, "timeout": "60s"},
            upgrade={"remediation": {"remediateLastFailure": True}})
    obj = wait_for(objects, namespace, ready_at(1), timeout=SLOW_S)
    first = obj["status"]["version"]
    assert obj["status"]["lastTest"]["phase"] == "Succeeded"
    assert obj["status"]["lastTest"]["version"] == first
    assert (condition(obj, "TestSuccess")["status"], condition(obj, "TestSuccess")["message"]) == (
        "True", f"Helm test succeeded for release {namespace}/app.v{first} with chart demo@0.1.0: "
                "1 test hook completed successfully")
    assert [(h["name"], h["kind"], h["phase"]) for h in obj["status"]["lastTest"]["hooks"]] == [
        ("smoke", "Job", "Succeeded")]
    tested = obj["status"]["history"][0]["testHooks"]  # Flux's, from the run stored in the version
    assert list(tested) == ["smoke"] and tested["smoke"]["phase"] == "Succeeded"
    assert tested["smoke"]["lastStarted"] <= tested["smoke"]["lastCompleted"]

    patch_spec(objects, namespace, "app", {"values": {"fail": True, "message": "two"}})
    obj = wait_for(objects, namespace, lambda o: condition(o, "Stalled") is not None
                   and o["status"].get("observedGeneration") == 2, timeout=SLOW_S)
    assert condition(obj, "Stalled")["message"] == "Failed to upgrade after 1 attempt(s)"  # Flux's
    failed = condition(obj, "Ready")["message"]
    assert re.match(rf"Helm test failed for release {namespace}/app\.v{ULID} with chart demo@0\.1\.0: "
                    "test hooks of release app failed", failed), failed
    assert (f"(remediation: Helm rollback to previous release {namespace}/app.v{first} with chart demo@0.1.0 "
            "succeeded)") in failed
    assert [condition(obj, t)["reason"] for t in ("Ready", "Released", "TestSuccess", "Remediated")] == [
        "RollbackSucceeded", "UpgradeSucceeded", "TestFailed", "RollbackSucceeded"]
    assert obj["status"]["lastTest"]["phase"] == "Failed"
    assert obj["status"]["lastTest"]["hooks"][0]["phase"] == "Failed"
    # the rollback brought the first values back
    assert k8s.CoreV1Api(api).read_namespaced_config_map("app", namespace).data["message"] == "one"
    release = objects.get_namespaced_custom_object(GROUP, VERSION, namespace, "releases", "app")
    assert release["status"]["version"] not in (first, obj["status"].get("version"))


def test_the_rollback_skips_a_version_whose_tests_failed_as_flux(
        controller: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str) -> None:
    """Flux's rollback target is the newest version released before the failed one whose tests
    did not fail: a version kept Ready with its tests failing (ignored then) is skipped."""
    setup_namespace(api, namespace, chart=chart_tgz(TESTED_CHART))
    request(objects, namespace, test={"enable": True, "timeout": "60s"})
    first = wait_for(objects, namespace, ready_at(1), timeout=SLOW_S)["status"]["version"]
    patch_spec(objects, namespace, "app", {"values": {"fail": True, "message": "two"},
                                           "test": {"enable": True, "timeout": "60s", "ignoreFailures": True}})
    obj = wait_for(objects, namespace, ready_at(2), timeout=SLOW_S)
    assert obj["status"]["lastTest"]["phase"] == "Failed"
    patch_spec(objects, namespace, "app", {"values": {"fail": True, "message": "three"},
                                           "test": {"enable": True, "timeout": "60s", "ignoreFailures": False},
                                           "upgrade": {"remediation": {"remediateLastFailure": True}}})
    obj = wait_for(objects, namespace, lambda o: stalled(o) and o["status"].get("observedGeneration") == 3,
                   timeout=SLOW_S)
    assert condition(obj, "Remediated")["message"] == (
        f"Helm rollback to previous release {namespace}/app.v{first} with chart demo@0.1.0 succeeded")
    assert k8s.CoreV1Api(api).read_namespaced_config_map("app", namespace).data["message"] == "one"


def test_failing_test_hook_with_ignore_failures_stays_ready(
        controller: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str) -> None:
    setup_namespace(api, namespace, chart=chart_tgz(TESTED_CHART))
    request(objects, namespace, values={"fail": True},
            test={"enable": True, "timeout": "60s", "ignoreFailures": True})
    obj = wait_for(objects, namespace, ready_at(1), timeout=SLOW_S)
    assert obj["status"]["lastTest"]["phase"] == "Failed"
    assert "smoke" in obj["status"]["lastTest"]["message"]
    assert condition(obj, "Ready")["reason"] == "InstallSucceeded"
    assert obj["status"]["history"][0]["testHooks"]["smoke"]["phase"] == "Failed"
    # Flux's Event for the failure ignored, posted after the install's own
    said = posted(api, namespace, "TestFailed", "Warning")
    assert said == condition(obj, "TestSuccess")["message"] and condition(obj, "TestSuccess")["status"] == "False"
    assert said.startswith(f"Helm test failed for release {namespace}/app.v{obj['status']['version']} "
                           "with chart demo@0.1.0: test hooks of release app failed: ") and "smoke" in said


def test_a_failing_test_left_out_by_the_filters_is_not_run(
        controller: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str) -> None:
    setup_namespace(api, namespace, chart=chart_tgz(TESTED_CHART))
    request(objects, namespace, values={"fail": True},
            test={"enable": True, "timeout": "60s", "filters": [{"name": "smoke", "exclude": True}]})
    obj = wait_for(objects, namespace, ready_at(1), timeout=SLOW_S)
    assert condition(obj, "Ready")["reason"] == "InstallSucceeded"
    assert (obj["status"]["lastTest"]["phase"], obj["status"]["lastTest"]["hooks"]) == ("Succeeded", [])
    assert obj["status"]["history"][0]["testHooks"] == {"smoke": {}}  # a test never run
    assert posted(api, namespace, "TestSucceeded") == condition(obj, "TestSuccess")["message"] == (
        f"Helm test succeeded for release {namespace}/app.v{obj['status']['version']} with chart demo@0.1.0: "
        "no test hooks")


HOOKED_CHART = {
    "Chart.yaml": "apiVersion: v2\nname: demo\nversion: 0.1.0\n",
    "values.yaml": "fail: \"\"\nhang: \"\"\nmessage: one\n",
    "templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n"
                         "data:\n  message: {{ .Values.message | quote }}\n",
    "templates/hooks.yaml": release_kit.FAILING_HOOKS,
}


def warnings(api: k8s.ApiClient, namespace: str) -> list[tuple[str, str]]:
    found = k8s.CoreV1Api(api).list_namespaced_event(namespace, field_selector="involvedObject.name=app").items
    return [(e.reason, e.message) for e in found if e.type == "Warning"]


def events(api: k8s.ApiClient, namespace: str, type_: str = "Normal") -> list[tuple[str, str]]:
    found = k8s.CoreV1Api(api).list_namespaced_event(namespace, field_selector="involvedObject.name=app").items
    return [(e.reason, e.message) for e in found if e.type == type_]


def posted(api: k8s.ApiClient, namespace: str, reason: str, type_: str = "Normal") -> str:
    """The message of the request's Event ``reason`` (posted just after its status is written)."""
    deadline = time.monotonic() + 30
    while not (said := [m for r, m in events(api, namespace, type_) if r == reason]):
        assert time.monotonic() < deadline, f"no {type_} Event {reason}: {events(api, namespace, type_)}"
        time.sleep(0.2)
    return said[0]


def posted_with(api: k8s.ApiClient, namespace: str, event: tuple[str, str],
                type_: str = "Normal") -> list[tuple[str, str]]:
    """The request's Events of ``type_`` once ``event`` (reason, message) is among them. Kopf
    posts Events in the background after the status is written (one object's in order): a
    list read as soon as the status shows may miss the last ones."""
    deadline = time.monotonic() + 30
    while event not in (found := events(api, namespace, type_)):
        assert time.monotonic() < deadline, f"no {type_} Event {event}: {found}"
        time.sleep(0.2)
    return found


def test_a_failed_install_hook_is_remediated_and_retried_and_the_last_failure_left_as_flux_does(
        controller: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str) -> None:
    """A pre-install hook Job that fails is a failed install (Flux's installFailures): uninstalled
    by the remediation, tried again while retries remain; the last failure is left as it is
    (``remediateLastFailure: false``, Flux's default), for debugging. Flux's reasons on the
    conditions and Events, helm's words in the messages; a spec that fixes it installs."""
    setup_namespace(api, namespace, chart=chart_tgz(HOOKED_CHART))
    request(objects, namespace, values={"fail": "pre-install"},
            install={"timeout": "60s", "remediation": {"retries": 1, "remediateLastFailure": False}})
    obj = wait_for(objects, namespace, stalled, timeout=SLOW_S)
    said = (f"Helm install failed for release {namespace}/app with chart demo@0.1.0: HookFailed: failed pre-install: "
            "1 error occurred:\n\t* job app-check failed: DeadlineExceeded")
    # the failed install's version uninstalled (the first one: the second is left)
    uninstalled = re.compile(rf"Helm uninstall remediation for release {namespace}/app\.v{ULID} "
                             r"with chart demo@0\.1\.0 succeeded")
    assert condition(obj, "Stalled")["reason"] == "RetriesExceeded"
    assert condition(obj, "Stalled")["message"] == "Failed to install after 2 attempt(s)"  # Flux's
    assert condition(obj, "Ready")["message"] == said
    assert [condition(obj, t)["reason"] for t in ("Ready", "Released")] == ["InstallFailed", "InstallFailed"]
    assert condition(obj, "Remediated") is None  # the last failure was not remediated
    assert obj["status"]["installFailures"] == 2
    remedied = re.compile(rf"{re.escape(said)} \(remediation: {uninstalled.pattern}\)")
    assert [m for r, m in warnings(api, namespace) if r == "InstallFailed" and remedied.fullmatch(m)]
    assert [m for r, m in events(api, namespace) if r == "UninstallSucceeded" and uninstalled.fullmatch(m)]
    release = objects.get_namespaced_custom_object(GROUP, VERSION, namespace, "releases", "app")
    assert release["status"]["status"] == "failed"  # left as the last install failed

    patch_spec(objects, namespace, "app", {"values": {"fail": ""}})
    obj = wait_for(objects, namespace, ready_at(2), timeout=SLOW_S)
    assert condition(obj, "Ready")["reason"] == "InstallSucceeded"
    assert obj["status"]["installFailures"] == 0


def test_an_upgrade_hook_that_times_out_rolls_the_upgrade_back(
        controller: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str) -> None:
    """A post-upgrade hook Job that never finishes within upgrade.timeout fails the upgrade;
    the upgrade remediation rolls it back to the version still deployed (the last failure too,
    with ``remediateLastFailure``)."""
    setup_namespace(api, namespace, chart=chart_tgz(HOOKED_CHART))
    request(objects, namespace, upgrade={"timeout": "5s", "remediation": {"remediateLastFailure": True}})
    first = wait_for(objects, namespace, ready_at(1), timeout=SLOW_S)["status"]["version"]

    patch_spec(objects, namespace, "app", {"values": {"hang": "post-upgrade", "message": "two"}})
    obj = wait_for(objects, namespace, lambda o: stalled(o) and o["status"].get("observedGeneration") == 2,
                   timeout=SLOW_S)
    said = (f"Helm upgrade failed for release {namespace}/app with chart demo@0.1.0: HookFailed: post-upgrade hooks "
            "failed: 1 error occurred:\n\t* timed out waiting for the condition")
    assert condition(obj, "Stalled")["reason"] == "RetriesExceeded"
    assert condition(obj, "Stalled")["message"] == "Failed to upgrade after 1 attempt(s)"
    assert condition(obj, "Ready")["message"] == (
        f"{said} (remediation: Helm rollback to previous release {namespace}/app.v{first} with chart demo@0.1.0 "
        "succeeded)")
    assert obj["status"]["upgradeFailures"] == 1
    assert k8s.CoreV1Api(api).read_namespaced_config_map("app", namespace).data["message"] == "one"
    release = objects.get_namespaced_custom_object(GROUP, VERSION, namespace, "releases", "app")
    assert release["status"]["version"] != first and release["status"]["status"] == "deployed"


def test_an_upgrade_uninstalled_by_its_remediation_is_installed_again_as_flux(
        controller: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str) -> None:
    """Flux's upgrade remediation ``strategy: uninstall``: the failed upgrade is uninstalled,
    then the release is installed again though the upgrade has no retries left (Flux's
    ``IsUninstallAfterUpgrade``); the install runs no post-upgrade hook and succeeds."""
    setup_namespace(api, namespace, chart=chart_tgz(HOOKED_CHART))
    request(objects, namespace, upgrade={"timeout": "60s", "remediation": {
        "strategy": "uninstall", "remediateLastFailure": True}})
    first = wait_for(objects, namespace, ready_at(1), timeout=SLOW_S)["status"]["version"]

    patch_spec(objects, namespace, "app", {"values": {"fail": "post-upgrade", "message": "two"}})
    obj = wait_for(objects, namespace, ready_at(2), timeout=SLOW_S)
    assert condition(obj, "Ready")["reason"] == "InstallSucceeded"
    assert obj["status"]["version"] != first
    said = (f"Helm upgrade failed for release {namespace}/app with chart demo@0.1.0: HookFailed: post-upgrade hooks "
            "failed: 1 error occurred:\n\t* job app-check failed: DeadlineExceeded")
    # the failed upgrade's version uninstalled
    uninstalled = re.compile(rf"Helm uninstall remediation for release {namespace}/app\.v{ULID} "
                             r"with chart demo@0\.1\.0 succeeded")
    remedied = re.compile(rf"{re.escape(said)} \(remediation: {uninstalled.pattern}\)")
    assert [m for r, m in warnings(api, namespace) if r == "UpgradeFailed" and remedied.fullmatch(m)]
    assert [m for r, m in events(api, namespace) if r == "UninstallSucceeded" and uninstalled.fullmatch(m)]
    assert k8s.CoreV1Api(api).read_namespaced_config_map("app", namespace).data["message"] == "two"


REFUSED_CHART = {
    "Chart.yaml": "apiVersion: v2\nname: demo\nversion: 0.1.0\n",
    "values.yaml": "message: one\nkey: \"\"\n",
    # the API server refuses a data key that is no valid config key (422 Invalid), at apply
    "templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n"
                         "data:\n  message: {{ .Values.message | quote }}\n"
                         "{{- with .Values.key }}\n  {{ . | quote }}: x\n{{- end }}\n",
    "templates/other.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n"
                            "data:\n  message: {{ .Values.message | quote }}\n",
}


def test_an_object_the_api_server_refuses_is_a_failed_upgrade_rolled_back_as_flux_does(
        controller: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str) -> None:
    """An upgrade whose object the API server refuses at apply (its version stored) is a failed
    upgrade, as Flux counts any failed Helm action: rolled back between retries and, with
    ``retries`` > 0, after the last one too (Flux's default); not a cluster error retried."""
    setup_namespace(api, namespace, chart=chart_tgz(REFUSED_CHART))
    request(objects, namespace, upgrade={"remediation": {"retries": 1}})
    first = wait_for(objects, namespace, ready_at(1), timeout=SLOW_S)["status"]["version"]

    patch_spec(objects, namespace, "app", {"values": {"message": "two", "key": "not a key!"}})
    obj = wait_for(objects, namespace, lambda o: stalled(o) and o["status"].get("observedGeneration") == 2,
                   timeout=SLOW_S)
    assert [condition(obj, t)["reason"] for t in ("Ready", "Released", "Remediated", "Stalled")] == [
        "RollbackSucceeded", "UpgradeFailed", "RollbackSucceeded", "RetriesExceeded"]
    message = condition(obj, "Released")["message"]
    assert message.startswith(f"Helm upgrade failed for release {namespace}/app with chart demo@0.1.0: ClusterError: ")
    assert "not a key!" in message
    # the second rollback goes back to the version the first one made
    assert f" (remediation: Helm rollback to previous release {namespace}/app.v" in message
    assert condition(obj, "Stalled")["message"] == "Failed to upgrade after 2 attempt(s)"
    assert obj["status"]["upgradeFailures"] == 2
    assert ("RollbackSucceeded", f"Helm rollback to previous release {namespace}/app.v{first} with chart demo@0.1.0 "
            "succeeded") in events(api, namespace)
    assert {reason for reason, _ in warnings(api, namespace)} == {"UpgradeFailed"}
    # the object applied before the refusal came back with the rollback
    assert k8s.CoreV1Api(api).read_namespaced_config_map("other", namespace).data["message"] == "one"
    release = objects.get_namespaced_custom_object(GROUP, VERSION, namespace, "releases", "app")
    assert release["status"]["status"] == "deployed" and release["status"]["version"] != first


def test_deleting_a_request_waits_until_its_objects_are_gone_as_flux(
        controller: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str) -> None:
    """Flux's uninstall waits for the release's objects to be deleted (``disableWait: false``):
    the request keeps its finalizer while an object of its release is still there."""
    held = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: held\n  finalizers: [example.com/hold]\n"
    setup_namespace(api, namespace, chart=chart_tgz({"Chart.yaml": "apiVersion: v2\nname: demo\nversion: 0.1.0\n",
                                                     "templates/held.yaml": held}))
    request(objects, namespace, uninstall={"timeout": "60s"})
    version = wait_for(objects, namespace, ready_at(1), timeout=SLOW_S)["status"]["version"]
    core = k8s.CoreV1Api(api)
    try:
        objects.delete_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, "app")
        deadline = time.monotonic() + SLOW_S
        while core.read_namespaced_config_map("held", namespace).metadata.deletion_timestamp is None:
            assert time.monotonic() < deadline, "the release's ConfigMap was never deleted"
            time.sleep(0.3)
        time.sleep(2)  # the uninstall waits: the request and its release are still there
        assert get(objects, namespace)["metadata"]["deletionTimestamp"]
        release = objects.get_namespaced_custom_object(GROUP, VERSION, namespace, "releases", "app")
        assert release["status"]["status"] == "uninstalling"
    finally:
        core.patch_namespaced_config_map("held", namespace, {"metadata": {"finalizers": None}})
    wait_gone(objects, namespace)
    # the Event may land after the finalizer was removed: Kopf posts it in the background
    posted_with(api, namespace, ("UninstallSucceeded", f"Helm uninstall succeeded for release {namespace}/app.v{version} "
                                 "with chart demo@0.1.0"))


@pytest.fixture(scope="module")
def second_cluster() -> Iterator[ClusterInfo]:
    """Another control plane (its own etcd and API server), for ``spec.kubeConfig``."""
    try:
        plane = harness.LocalCluster.start(node_count=1)
    except cluster_errors.HarnessError as exc:
        pytest.fail(f"the second control plane did not start: {exc}", pytrace=False)
    try:
        yield ClusterInfo(kubeconfig=plane.kubeconfig, server=plane.server, bin_dir=plane.kubeconfig.parent)
    finally:
        plane.stop()


def test_release_is_applied_to_the_cluster_the_kubeconfig_names(
        controller: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str,
        second_cluster: ClusterInfo) -> None:
    remote = second_cluster.api_client()
    ext = k8s.ApiextensionsV1Api(remote)
    release_crd = yaml.safe_load((ROOT / "manifests" / "crds" / "release.yaml").read_text())
    try:
        ext.create_custom_resource_definition(release_crd)
    except ApiException as exc:
        if exc.status != 409:
            raise
    k8s.CoreV1Api(remote).create_namespace({"metadata": {"name": namespace}})
    # the same service account in the remote cluster, impersonated there
    setup_namespace(remote, namespace, chart=None)
    setup_namespace(api, namespace, chart=hello_tgz())
    k8s.CoreV1Api(api).create_namespaced_secret(namespace, {
        "metadata": {"name": "remote"}, "stringData": {"value.yaml": second_cluster.kubeconfig.read_text()}})
    request(objects, namespace, values={"message": "far away"}, kubeConfig={"secretRef": {"name": "remote"}})
    obj = wait_for(objects, namespace, ready_at(1), timeout=SLOW_S)
    assert condition(obj, "Ready")["reason"] == "InstallSucceeded"
    cm = k8s.CoreV1Api(remote).read_namespaced_config_map("app-hello", namespace)
    assert cm.data["message"] == "far away"
    assert k8s.AppsV1Api(remote).read_namespaced_deployment("app-hello", namespace)
    with pytest.raises(ApiException) as missing:
        k8s.CoreV1Api(api).read_namespaced_config_map("app-hello", namespace)
    assert missing.value.status == 404
    release = k8s.CustomObjectsApi(remote).get_namespaced_custom_object(GROUP, VERSION, namespace, "releases", "app")
    assert release["status"]["version"] == obj["status"]["version"]
    remote_versions = k8s.CoreV1Api(remote).list_namespaced_secret(
        namespace, field_selector="type=helm.sh/release-version").items
    assert len(remote_versions) == 1
    assert k8s.CoreV1Api(api).list_namespaced_secret(
        namespace, field_selector="type=helm.sh/release-version").items == []


def test_kubeconfig_with_a_credential_plugin_is_refused(
        controller: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str) -> None:
    setup_namespace(api, namespace, chart=hello_tgz())
    plugin = ("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: 'https://127.0.0.1:1'}\n"
              "users:\n- name: u\n  user:\n    exec: {apiVersion: client.authentication.k8s.io/v1, command: sh}\n"
              "contexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n")
    k8s.CoreV1Api(api).create_namespaced_secret(namespace, {
        "metadata": {"name": "remote"}, "stringData": {"value": plugin}})
    request(objects, namespace, kubeConfig={"secretRef": {"name": "remote"}})
    obj = wait_for(objects, namespace, lambda o: condition(o, "Stalled") is not None)
    stalled = condition(obj, "Stalled")
    assert stalled["reason"] == "InvalidKubeConfig"
    assert "uses 'exec'" in stalled["message"] and "self-contained" in stalled["message"]

