"""A drift correction the API server refuses, on the real control plane, as Flux's
CorrectClusterDrift tells it: a Warning DriftCorrectionFailed Event, Ready Unknown and
Reconciling ProgressingWithRetry "correcting cluster drift", no failure of the release; the
correction is tried again (with backoff) until it goes through."""
from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from kubernetes import client as k8s

from e2e.operator_kit import (Controller, condition, controller, get, hello_tgz, objects, ready_at, request,
                              setup_namespace, wait_for)

pytestmark = pytest.mark.e2e

__all__ = ["controller", "objects"]  # fixtures used by the tests below


@pytest.fixture
def refusing(api: k8s.ApiClient, namespace: str) -> Iterator[str]:
    """A ValidatingAdmissionPolicy refusing ConfigMap writes of the ``deployer`` service account
    in ``namespace`` (dry runs pass: drift is still detected); its binding is made by the test."""
    admission = k8s.AdmissionregistrationV1Api(api)
    name = f"refuse-{namespace}"
    admission.create_validating_admission_policy({
        "metadata": {"name": name},
        "spec": {"failurePolicy": "Fail",
                 "matchConstraints": {"resourceRules": [{
                     "apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"],
                     "resources": ["configmaps"]}]},
                 "validations": [{
                     "expression": f"request.dryRun == true || request.userInfo.username != "
                                   f"'system:serviceaccount:{namespace}:deployer'",
                     "message": "writes by the deployer are refused"}]}})
    yield name
    admission.delete_validating_admission_policy(name)


def bind(api: k8s.ApiClient, name: str, namespace: str) -> None:
    k8s.AdmissionregistrationV1Api(api).create_validating_admission_policy_binding({
        "metadata": {"name": name},
        "spec": {"policyName": name, "validationActions": ["Deny"],
                 "matchResources": {"namespaceSelector": {
                     "matchLabels": {"kubernetes.io/metadata.name": namespace}}}}})


def warnings(api: k8s.ApiClient, namespace: str) -> list[tuple[str, str]]:
    found = k8s.CoreV1Api(api).list_namespaced_event(namespace, field_selector="involvedObject.name=app").items
    return [(e.reason, e.message) for e in found if e.type == "Warning"]


def test_a_refused_drift_correction_keeps_the_release_and_is_tried_again_as_flux(
        controller: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str,
        refusing: str) -> None:
    setup_namespace(api, namespace, chart=hello_tgz())
    core = k8s.CoreV1Api(api)
    request(objects, namespace, interval="1s", driftDetection={"mode": "enabled"}, values={"message": "kept"})
    version = wait_for(objects, namespace, ready_at(1))["status"]["version"]
    bind(api, refusing, namespace)
    try:
        time.sleep(2)  # the API server picks the binding up
        core.patch_namespaced_config_map("app-hello", namespace, {"data": {"message": "edited by hand"}})
        obj = wait_for(objects, namespace, lambda o: (condition(o, "Reconciling") or {}).get("message")
                       == "correcting cluster drift", timeout=60)
        assert (condition(obj, "Ready")["status"], condition(obj, "Ready")["reason"]) == ("Unknown", "Progressing")
        assert condition(obj, "Reconciling")["reason"] == "ProgressingWithRetry"
        assert (condition(obj, "Released")["status"], condition(obj, "Released")["reason"]) == (
            "True", "InstallSucceeded")
        assert obj["status"]["version"] == version and not obj["status"].get("installFailures")
        said = [m for r, m in warnings(api, namespace) if r == "DriftCorrectionFailed"]
        assert said and said[0].startswith(
            f"Failed to correct cluster state of release {namespace}/app.v{version}:\n"), said
        assert "writes by the deployer are refused" in said[0]
        assert core.read_namespaced_config_map("app-hello", namespace).data["message"] == "edited by hand"
    finally:
        k8s.AdmissionregistrationV1Api(api).delete_validating_admission_policy_binding(refusing)
    # tried again (5 s, 10 s...): corrected once the API server lets it, Ready again
    obj = wait_for(objects, namespace, lambda o: condition(o, "Ready")["status"] == "True", timeout=60)
    assert core.read_namespaced_config_map("app-hello", namespace).data["message"] == "kept"
    assert condition(obj, "Reconciling") is None and get(objects, namespace)["status"]["version"] == version
