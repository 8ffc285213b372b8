"""The controller installed with the chart's least-privilege RBAC (``rbac.mode=namespaced``): a
Role in the watched namespace and no cluster-wide rule at all, run as that ServiceAccount
(a token kubeconfig, as in a cluster). It serves its namespace from the start, never asking for
cluster-wide reads, and a request whose ServiceAccount lacks a right says which one.
"""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from kubernetes import client as k8s

import helm_core
from e2e.cluster import kubeconfig as kubeconfigs
from e2e.conftest import ClusterInfo, Kubectl
from e2e.operator_kit import (
    FULL_RULES,
    ROOT,
    Controller,
    condition,
    hello_tgz,
    objects,  # noqa: F401 (fixture)
    ready_at,
    request,
    setup_namespace,
    stalled,
    wait_for,
)

RELEASE = "ho"
ACCOUNT = f"{RELEASE}-helm-operator"


def chart_rbac(namespace: str) -> list[dict[str, object]]:
    """The chart's ServiceAccount, Roles and RoleBindings, the controller in ``namespace``
    watching ``namespace`` only."""
    text = helm_core.template(str(ROOT / "charts" / "helm-operator"),
                              {"rbac": {"mode": "namespaced", "userRoles": False},
                               "watchNamespaces": [namespace]},
                              release_name=RELEASE, namespace=namespace)
    kinds = {"ServiceAccount", "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"}
    return [doc for doc in yaml.safe_load_all(text) if doc and doc["kind"] in kinds]


@pytest.fixture
def ctl(cluster: ClusterInfo, kubectl: Kubectl, api: k8s.ApiClient, namespace: str,
        tmp_path: Path) -> Iterator[Controller]:
    for crd in ("helmrequest.yaml", "helmrepository.yaml", "release.yaml"):
        kubectl("apply", "-f", str(ROOT / "manifests" / "crds" / crd))
    docs = chart_rbac(namespace)
    assert {doc["kind"] for doc in docs} == {"ServiceAccount", "Role", "RoleBinding"}
    (tmp_path / "rbac.yaml").write_text(yaml.safe_dump_all(docs))
    kubectl("apply", "-f", str(tmp_path / "rbac.yaml"))
    token = k8s.CoreV1Api(api).create_namespaced_service_account_token(
        ACCOUNT, namespace, {"spec": {"expirationSeconds": 3600}}).status.token
    controller = Controller(cluster, tmp_path / "controller.log", args=("--namespace", namespace),
                            kubeconfig=kubeconfigs.write_token(tmp_path / "kubeconfig", admin=cluster.kubeconfig,
                                                               user=ACCOUNT, token=token))
    controller.start()
    yield controller
    controller.stop()


def test_namespaced_rbac_serves_its_namespace_without_cluster_reads(
        ctl: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str) -> None:
    setup_namespace(api, namespace, chart=hello_tgz())
    request(objects, namespace, "app")
    wait_for(objects, namespace, ready_at(), "app")
    log = ctl.log.read_text()
    # Kopf's namespace and CRD scans are refused to a Role-only account; they were retried (and
    # logged as errors) for about a minute before the first request was served.
    assert "at the cluster scope" not in log
    assert "Not enough permissions" not in log


def test_a_service_account_lacking_a_right_is_named_with_it(
        ctl: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str) -> None:
    no_deployments = [{**rule, "apiGroups": [g for g in rule["apiGroups"] if g != "apps"],
                       "resources": [r for r in rule["resources"] if r not in ("deployments", "replicasets")]}
                      for rule in FULL_RULES]
    setup_namespace(api, namespace, chart=hello_tgz(), rules=no_deployments)
    request(objects, namespace, "app")
    obj = wait_for(objects, namespace, stalled, "app")
    ready = condition(obj, "Ready")
    assert ready is not None and ready["status"] == "False"
    # the install's ownership check reads the Deployment before anything is stored (as helm's):
    # Flux's failed install, Stalled Forbidden (retried at the interval)
    assert (ready["reason"], condition(obj, "Stalled")["reason"]) == ("InstallFailed", "Forbidden")
    assert ready["message"] == (
        f'Helm install failed for release {namespace}/app with chart hello@0.1.0: Forbidden: get Deployment "app-hello" in namespace "{namespace}": deployments.apps "app-hello" is forbidden: '
        f'User "system:serviceaccount:{namespace}:deployer" cannot get resource "deployments" '
        f'in API group "apps" in the namespace "{namespace}"')
    assert ctl.proc is not None and ctl.proc.poll() is None
