"""The controller taking over releases stock helm made (issue 18): a HelmRequest with the same
release name adopts it in place; ``spec.storage: helm`` keeps the release in helm's format."""
from __future__ import annotations

import json
import subprocess

import pytest
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException

from e2e.conftest import ClusterInfo
from e2e.operator_kit import (HELLO, Controller, controller, get, hello_tgz, objects, patch_spec,
                              ready_at, request, setup_namespace, version_secrets, wait_for)
from e2e.test_helm_interop import helm  # noqa: F401 - fixture
from helm_core.storage import helmsecrets

pytestmark = pytest.mark.e2e

__all__ = ["controller", "objects", "helm"]


def run_helm(helm: str, cluster: ClusterInfo, namespace: str, *args: str) -> str:
    result = subprocess.run([helm, *args, "--kubeconfig", str(cluster.kubeconfig), "-n", namespace],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout


def uids(api: k8s.ApiClient, namespace: str, name: str) -> dict[str, str]:
    core, apps = k8s.CoreV1Api(api), k8s.AppsV1Api(api)
    return {"ConfigMap": core.read_namespaced_config_map(f"{name}-hello", namespace).metadata.uid,
            "Service": core.read_namespaced_service(f"{name}-hello", namespace).metadata.uid,
            "Deployment": apps.read_namespaced_deployment(f"{name}-hello", namespace).metadata.uid}


def message(api: k8s.ApiClient, namespace: str, name: str) -> str:
    return k8s.CoreV1Api(api).read_namespaced_config_map(f"{name}-hello", namespace).data["message"]


def helm_secret_labels(api: k8s.ApiClient, namespace: str, name: str) -> list[dict[str, str]]:
    items = k8s.CoreV1Api(api).list_namespaced_secret(
        namespace, label_selector=helmsecrets.selector(name)).items
    return [dict(s.metadata.labels) for s in items]


def test_helm_request_adopts_a_helm_release_in_place_and_rolls_back_to_its_revision(
        controller: Controller, cluster: ClusterInfo, api: k8s.ApiClient,
        objects: k8s.CustomObjectsApi, namespace: str, helm: str) -> None:
    setup_namespace(api, namespace, chart=hello_tgz())
    run_helm(helm, cluster, namespace, "install", "app", str(HELLO), "--set", "message=from-helm")
    before = uids(api, namespace, "app")

    request(objects, namespace, values={"message": "adopted"})
    obj = wait_for(objects, namespace, ready_at(1))
    assert obj["status"]["conditions"][0]["reason"] == "UpgradeSucceeded"  # taken over, not installed
    assert message(api, namespace, "app") == "adopted"
    assert uids(api, namespace, "app") == before
    # helm's revision 1 is now a version of ours, before the new one; helm's Secret is kept.
    secrets = version_secrets(api, namespace)
    assert secrets == sorted(["app.00000000000000000000000001", f"app.{obj['status']['version'].lower()}"])
    [labels] = helm_secret_labels(api, namespace, "app")
    assert labels[helmsecrets.ADOPTED_LABEL] == "true" and labels["version"] == "1"

    patch_spec(objects, namespace, "app", {"rollbackTo": "1"})
    obj = wait_for(objects, namespace, ready_at(2))
    assert obj["status"]["conditions"][0]["reason"] == "RollbackSucceeded"
    assert message(api, namespace, "app") == "from-helm"
    assert uids(api, namespace, "app") == before


def test_helm_request_adoption_can_delete_helms_secrets(
        controller: Controller, cluster: ClusterInfo, api: k8s.ApiClient,
        objects: k8s.CustomObjectsApi, namespace: str, helm: str) -> None:
    setup_namespace(api, namespace, chart=hello_tgz())
    run_helm(helm, cluster, namespace, "install", "app", str(HELLO))
    request(objects, namespace, values={"message": "mine"}, adopt={"helmSecrets": "delete"})
    wait_for(objects, namespace, ready_at(1))
    assert helm_secret_labels(api, namespace, "app") == []
    assert len(version_secrets(api, namespace)) == 2
    assert message(api, namespace, "app") == "mine"


def test_helm_request_with_helm_storage_is_readable_by_helm(
        controller: Controller, cluster: ClusterInfo, api: k8s.ApiClient,
        objects: k8s.CustomObjectsApi, namespace: str, helm: str) -> None:
    setup_namespace(api, namespace, chart=hello_tgz())
    request(objects, namespace, values={"message": "one"}, storage="helm")
    obj = wait_for(objects, namespace, ready_at(1))
    patch_spec(objects, namespace, "app", {"values": {"message": "two"}})
    obj = wait_for(objects, namespace, ready_at(2))
    assert obj["status"]["version"] == "00000000000000000000000002"
    assert version_secrets(api, namespace) == []  # helm's format only
    history = json.loads(run_helm(helm, cluster, namespace, "history", "app", "-o", "json"))
    assert [(h["revision"], h["status"]) for h in history] == [(1, "superseded"), (2, "deployed")]
    assert run_helm(helm, cluster, namespace, "get", "values", "app") == "USER-SUPPLIED VALUES:\nmessage: two\n"
    assert message(api, namespace, "app") == "two"
    with pytest.raises(ApiException) as refused:  # the history lives in helm's format
        patch_spec(objects, namespace, "app", {"storage": "release"})
    assert "storage is immutable" in refused.value.body
    assert get(objects, namespace)["spec"]["storage"] == "helm"
