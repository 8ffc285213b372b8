"""Flux's ``spec.upgrade.force`` and ``spec.rollback.force`` with the controller as a real process:
what another field manager set on a release's object (``kubectl annotate``) survives a plain
upgrade and is gone after a forced one, which replaces the object whole, as ``helm upgrade
--force`` does; a ``rollbackTo`` with ``spec.rollback.force`` replaces likewise."""
from __future__ import annotations

import pytest
from kubernetes import client as k8s

from e2e.operator_kit import (Controller, condition, controller, hello_tgz, objects, patch_spec, ready_at,
                              request, setup_namespace, wait_for)

pytestmark = pytest.mark.e2e

__all__ = ["controller", "objects"]  # fixtures used by the tests below

NOTE = "example.com/note"


def _annotate(core: k8s.CoreV1Api, namespace: str) -> None:
    """What ``kubectl annotate cm/app-hello`` writes: a patch under its own field manager."""
    core.patch_namespaced_config_map("app-hello", namespace, {"metadata": {"annotations": {NOTE: "by hand"}}},
                                     field_manager="kubectl-annotate")


def _note(core: k8s.CoreV1Api, namespace: str) -> str | None:
    return (core.read_namespaced_config_map("app-hello", namespace).metadata.annotations or {}).get(NOTE)


def test_upgrade_force_and_rollback_force_replace_what_others_set(
        controller: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str) -> None:
    core = k8s.CoreV1Api(api)
    setup_namespace(api, namespace, chart=hello_tgz())
    request(objects, namespace, values={"message": "one"})
    first = wait_for(objects, namespace, ready_at(1))["status"]["version"]
    uid = core.read_namespaced_config_map("app-hello", namespace).metadata.uid
    _annotate(core, namespace)
    patch_spec(objects, namespace, "app", {"values": {"message": "two"}})
    wait_for(objects, namespace, ready_at(2))
    assert _note(core, namespace) == "by hand"
    patch_spec(objects, namespace, "app", {"values": {"message": "three"},
                                           "upgrade": {"timeout": "60s", "force": True}})
    obj = wait_for(objects, namespace, ready_at(3))
    assert condition(obj, "Ready")["reason"] == "UpgradeSucceeded"
    cm = core.read_namespaced_config_map("app-hello", namespace)
    assert (_note(core, namespace), cm.data["message"], cm.metadata.uid) == (None, "three", uid)
    _annotate(core, namespace)
    patch_spec(objects, namespace, "app", {"rollbackTo": first, "rollback": {"force": True}})
    obj = wait_for(objects, namespace, ready_at(4))
    assert condition(obj, "Ready")["reason"] == "RollbackSucceeded"
    assert _note(core, namespace) is None
    assert core.read_namespaced_config_map("app-hello", namespace).data["message"] == "one"
