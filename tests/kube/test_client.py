"""Object references, discovery queries and the small helpers of the client seam."""
from __future__ import annotations

import pytest

from helm_core.kube import client as kclient


@pytest.mark.parametrize(("ref", "text"), [
    (kclient.ObjectRef("apps/v1", "Deployment", "web", "demo"), 'Deployment "web" in namespace "demo"'),
    (kclient.ObjectRef("rbac.authorization.k8s.io/v1", "ClusterRole", "admin"), 'ClusterRole "admin"'),
], ids=["namespaced", "cluster-scoped"])
def test_object_ref_names_the_object(ref, text):
    assert str(ref) == text


def test_object_ref_of_reads_kind_and_metadata():
    obj = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "x"}}
    ref = kclient.ObjectRef.of(obj)
    assert ref == kclient.ObjectRef("apps/v1", "Deployment", "web", "x")
    assert ref.group == "apps"
    assert kclient.ObjectRef("v1", "Secret", "s").group == ""


DISCOVERY = kclient.Discovery(server_version="v1.37.2", resources=(
    kclient.ApiResource("v1", "Pod", "pods", True),
    kclient.ApiResource("v1", "Namespace", "namespaces", False),
    kclient.ApiResource("apps/v1", "Deployment", "deployments", True),
))


def test_discovery_finds_served_kinds_only():
    assert DISCOVERY.find("apps/v1", "Deployment") == DISCOVERY.resources[2]
    assert DISCOVERY.find("apps/v1beta1", "Deployment") is None
    assert DISCOVERY.find("v1", "Deployment") is None


def test_discovery_api_versions_lists_group_versions_then_kinds():
    assert DISCOVERY.api_versions() == ("v1", "apps/v1", "v1/Pod", "v1/Namespace",
                                        "apps/v1/Deployment")


def test_with_namespace_fills_only_missing_namespace_and_copies():
    obj = {"kind": "ConfigMap", "metadata": {"name": "a"}}
    filled = kclient.with_namespace(obj, "ns")
    assert filled["metadata"] == {"name": "a", "namespace": "ns"}
    assert obj == {"kind": "ConfigMap", "metadata": {"name": "a"}}
    kept = kclient.with_namespace({"metadata": {"name": "a", "namespace": "other"}}, "ns")
    assert kept["metadata"]["namespace"] == "other"


def test_service_account_user_is_the_kubernetes_user_name():
    assert kclient.service_account_user("deployer", "team-a") == "system:serviceaccount:team-a:deployer"


def test_api_versions_count_empty_group_versions_and_subresource_kinds():
    found = kclient.Discovery(
        server_version="v1.37.2",
        resources=(kclient.ApiResource("apps/v1", "Deployment", "deployments", True),),
        group_versions=("apps/v1", "example.com/v1"),
        subresource_kinds=(("apps/v1", "Scale"), ("apps/v1", "Deployment")))
    assert found.api_versions() == ("apps/v1", "example.com/v1", "apps/v1/Deployment", "apps/v1/Scale")
