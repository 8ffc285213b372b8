"""Where Flux's helm-controller stops trying, through the controller on the local control plane:
retries used up and an upgrade with no version to roll back to hold the release (no Helm action
at any check) until the generation, the chart or the values change; values changed in a
valuesFrom ConfigMap count the failures from zero within the same generation."""
from __future__ import annotations

from typing import Any

import pytest
from kubernetes import client as k8s

from e2e.operator_kit import (GROUP, VERSION, Controller, chart_tgz, condition, controller, get, objects,
                              patch_spec, ready_at, request, setup_namespace, stalled, version_secrets,
                              wait_for)
from e2e.test_operator_gitops import HOOKED_CHART, SLOW_S, TESTED_CHART, posted_with, replace_chart, warnings

pytestmark = pytest.mark.e2e

__all__ = ["controller", "objects"]  # fixtures used by the tests below

REQUESTED_AT = "reconcile.fluxcd.io/requestedAt"


def ask_reconcile(objects: k8s.CustomObjectsApi, namespace: str, token: str) -> dict[str, Any]:
    """``flux reconcile hr``: a requestedAt token; the request once the controller handled it."""
    objects.patch_namespaced_custom_object(GROUP, VERSION, namespace, "helmrequests", "app",
                                           {"metadata": {"annotations": {REQUESTED_AT: token}}})
    return wait_for(objects, namespace, lambda o: o["status"].get("lastHandledReconcileAt") == token,
                    timeout=SLOW_S)


def release_state(api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str) -> tuple[Any, ...]:
    """What a Helm action would change: the version Secrets and the Release's newest version."""
    release = objects.get_namespaced_custom_object(GROUP, VERSION, namespace, "releases", "app")
    return tuple(version_secrets(api, namespace)), release["status"]["version"], release["status"]["status"]


@pytest.mark.parametrize("change", ["values", "chart"])
def test_retries_used_up_hold_the_install_until_the_values_or_the_chart_change(
        controller: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str,
        change: str) -> None:
    """Flux: out of retries, nothing is tried again (interval checks and ``flux reconcile hr``
    find it held: no new version, no count, no Event) until what it would release changes; a
    valuesFrom ConfigMap edited (Flux's lastAttemptedConfigDigest) or a new chart version in
    its source (lastAttemptedRevision) starts the counts from zero in the same generation, and
    the install is tried again."""
    setup_namespace(api, namespace, chart=chart_tgz(HOOKED_CHART))
    core = k8s.CoreV1Api(api)
    core.create_namespaced_config_map(namespace, {"metadata": {"name": "extra"},
                                                  "data": {"values.yaml": "fail: pre-install\n"}})
    request(objects, namespace, interval="2s", valuesFrom=[{"kind": "ConfigMap", "name": "extra"}],
            install={"timeout": "60s"})  # remediation.retries 0: the first failure uses them up
    obj = wait_for(objects, namespace, stalled, timeout=SLOW_S)
    assert condition(obj, "Stalled")["reason"] == "RetriesExceeded"
    assert obj["status"]["installFailures"] == 1
    digest = obj["status"]["lastAttemptedConfigDigest"]
    assert digest.startswith("sha256:") and obj["status"]["lastAttemptedRevision"] == "0.1.0"
    before = release_state(api, objects, namespace)
    assert before[2] == "failed"
    # the failure's Event follows its status: the list to compare with has it
    said = posted_with(api, namespace, ("InstallFailed", condition(obj, "Released")["message"]), "Warning")

    held = ask_reconcile(objects, namespace, "t1")  # the interval (2s) passed too, more than once
    assert held["status"]["conditions"] == obj["status"]["conditions"]
    assert held["status"]["installFailures"] == 1
    assert release_state(api, objects, namespace) == before
    assert warnings(api, namespace) == said

    if change == "values":
        core.patch_namespaced_config_map("extra", namespace, {"data": {"values.yaml": "fail: \"\"\n"}})
    else:  # a version without the hook, seen by the interval check
        replace_chart(api, namespace, chart_tgz(dict(HOOKED_CHART, **{
            "Chart.yaml": "apiVersion: v2\nname: demo\nversion: 0.2.0\n", "templates/hooks.yaml": ""})))
    obj = wait_for(objects, namespace, ready_at(1), timeout=SLOW_S)
    assert condition(obj, "Ready")["reason"] == "InstallSucceeded"
    assert obj["status"]["installFailures"] == 0
    assert (obj["status"]["lastAttemptedConfigDigest"] != digest) is (change == "values")
    assert obj["status"]["lastAttemptedRevision"] == ("0.1.0" if change == "values" else "0.2.0")
    assert obj["metadata"]["generation"] == 1


def test_an_upgrade_with_no_version_to_roll_back_to_stalls_as_flux(
        controller: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str) -> None:
    """Flux's MissingRollbackTarget: the only earlier version's tests failed (its install ignored
    them, the upgrade does not), so the rollback remediation has nowhere to go: Stalled with
    Flux's reason and message, the upgrade's failure on Ready and Released and in its Event, no
    retry though one is left, and no check tries again; a new generation does."""
    setup_namespace(api, namespace, chart=chart_tgz(TESTED_CHART))
    request(objects, namespace, interval="2s", values={"fail": True},
            test={"enable": True, "timeout": "60s"},
            install={"timeout": "60s", "remediation": {"ignoreTestFailures": True}})
    # its tests failed, not counted (the install ignores them) but told on Ready as Flux's summary does
    obj = wait_for(objects, namespace, lambda o: (condition(o, "TestSuccess") or {}).get("status") == "False"
                   and o["status"].get("observedGeneration") == 1, timeout=SLOW_S)
    assert obj["status"]["lastTest"]["phase"] == "Failed"
    assert [condition(obj, t)["reason"] for t in ("Ready", "Released")] == ["TestFailed", "InstallSucceeded"]
    assert condition(obj, "Stalled") is None and condition(obj, "Reconciling") is None

    patch_spec(objects, namespace, "app", {"values": {"fail": True, "message": "two"},
                                           "upgrade": {"timeout": "60s", "remediation": {"retries": 1}}})
    obj = wait_for(objects, namespace, lambda o: stalled(o) and o["status"].get("observedGeneration") == 2,
                   timeout=SLOW_S)
    stall = condition(obj, "Stalled")
    assert (stall["reason"], stall["message"]) == (
        "MissingRollbackTarget",
        "Failed to perform remediation: missing target release for rollback: cannot remediate failed release")
    failure = condition(obj, "TestSuccess")["message"]  # Flux's: the upgrade released, its tests failed
    assert "test hooks of release app failed" in failure
    assert [(condition(obj, t)["reason"], condition(obj, t)["message"]) for t in ("Ready", "TestSuccess")] == [
        ("TestFailed", failure), ("TestFailed", failure)]
    assert (condition(obj, "Released")["status"], condition(obj, "Released")["reason"]) == ("True", "UpgradeSucceeded")
    assert condition(obj, "Remediated") is None and condition(obj, "Reconciling") is None
    assert obj["status"]["upgradeFailures"] == 1
    # the failure's Event follows its status: the list to compare with has it
    said = posted_with(api, namespace, ("TestFailed", failure), "Warning")
    before = release_state(api, objects, namespace)
    assert before[2] == "deployed"  # its tests failed: helm leaves it deployed

    held = ask_reconcile(objects, namespace, "t1")
    assert held["status"]["conditions"] == obj["status"]["conditions"]
    assert held["status"]["upgradeFailures"] == 1
    assert release_state(api, objects, namespace) == before
    assert warnings(api, namespace) == said

    patch_spec(objects, namespace, "app", {"values": {"fail": False, "message": "three"}})
    obj = wait_for(objects, namespace, ready_at(3), timeout=SLOW_S)
    assert condition(obj, "Ready")["reason"] == "UpgradeSucceeded"
    assert k8s.CoreV1Api(api).read_namespaced_config_map("app", namespace).data["message"] == "three"
    posted_with(api, namespace, ("UpgradeSucceeded", condition(obj, "Ready")["message"]))
    assert get(objects, namespace)["status"]["upgradeFailures"] == 0

