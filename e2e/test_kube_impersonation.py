"""Acting as a ServiceAccount: RBAC of that account applies, not the caller's (admin)."""
from __future__ import annotations

import time

import pytest

from e2e.conftest import ClusterInfo
from helm_core.errors import ForbiddenError
from helm_core.kube import client as kclient
from helm_core.kube import live

pytestmark = pytest.mark.e2e

RBAC_PROPAGATION_S = 10.0
"""RBAC changes reach the authorizer through informers: allow a short delay."""


@pytest.fixture(scope="module")
def hc(cluster: ClusterInfo) -> live.LiveClient:
    return live.connect(live.LiveOptions(kubeconfig=str(cluster.kubeconfig)))


def _config_map(namespace: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "app", "namespace": namespace}, "data": {"k": "v"}}


def test_service_account_is_denied_then_allowed_by_rbac(hc: live.LiveClient, namespace: str) -> None:
    hc.apply({"apiVersion": "v1", "kind": "ServiceAccount",
              "metadata": {"name": "deployer", "namespace": namespace}})
    deployer = hc.impersonate(service_account="deployer", namespace=namespace)
    with pytest.raises(ForbiddenError) as caught:
        deployer.apply(_config_map(namespace))
    assert str(caught.value) == (
        f'apply ConfigMap "app" in namespace "{namespace}": configmaps "app" is forbidden: '
        f'User "system:serviceaccount:{namespace}:deployer" cannot patch resource "configmaps" '
        f'in API group "" in the namespace "{namespace}"')
    hc.apply({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
              "metadata": {"name": "configmaps", "namespace": namespace},
              "rules": [{"apiGroups": [""], "resources": ["configmaps"],
                         "verbs": ["get", "list", "create", "patch", "delete"]}]})
    hc.apply({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
              "metadata": {"name": "deployer-configmaps", "namespace": namespace},
              "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "configmaps"},
              "subjects": [{"kind": "ServiceAccount", "name": "deployer", "namespace": namespace}]})
    deadline = time.monotonic() + RBAC_PROPAGATION_S
    while True:
        try:
            stored = deployer.apply(_config_map(namespace))
            break
        except ForbiddenError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
    assert stored["data"] == {"k": "v"}
    managers = [m["manager"] for m in stored["metadata"]["managedFields"]]
    assert managers == ["helm-core"]
    # The grant is namespaced: the same account still cannot touch Secrets or other namespaces.
    with pytest.raises(ForbiddenError):
        deployer.list("v1", "Secret", namespace=namespace)
    with pytest.raises(ForbiddenError):
        deployer.get(kclient.ObjectRef("v1", "ConfigMap", "kube-root-ca.crt", "default"))


def test_impersonated_client_still_discovers(hc: live.LiveClient, namespace: str) -> None:
    nobody = hc.impersonate(service_account="default", namespace=namespace)
    assert nobody.discover(refresh=True).find("apps/v1", "Deployment") is not None


def test_waits_fall_back_to_gets_when_the_account_may_not_list(
        hc: live.LiveClient, namespace: str) -> None:
    from helm_core.kube import wait as kwait

    hc.apply({"apiVersion": "v1", "kind": "ServiceAccount",
              "metadata": {"name": "getter", "namespace": namespace}})
    hc.apply({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
              "metadata": {"name": "get-only", "namespace": namespace},
              "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]}]})
    hc.apply({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
              "metadata": {"name": "getter", "namespace": namespace},
              "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "get-only"},
              "subjects": [{"kind": "ServiceAccount", "name": "getter", "namespace": namespace}]})
    refs = []
    for i in range(kwait.LIST_THRESHOLD):
        obj = {**_config_map(namespace), "metadata": {"name": f"app-{i}", "namespace": namespace}}
        refs.append(kclient.ObjectRef.of(hc.apply(obj)))
    getter = hc.impersonate(service_account="getter", namespace=namespace)
    with pytest.raises(ForbiddenError):
        getter.list("v1", "ConfigMap", namespace=namespace)
    deadline = time.monotonic() + RBAC_PROPAGATION_S
    while True:
        try:
            kwait.wait_ready(getter, refs, options=kwait.WaitOptions(timeout_s=5))
            break
        except ForbiddenError:  # RBAC may not have reached the authorizer yet: GETs refused too
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
