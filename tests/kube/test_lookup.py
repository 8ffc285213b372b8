"""Helm's lookup semantics on the client seam (the live behaviour is in e2e/)."""
from __future__ import annotations

import pytest

from helm_core.errors import ClusterError
from helm_core.kube import fake
from helm_core.kube import lookup as klookup


@pytest.fixture
def client() -> fake.FakeClient:
    client = fake.FakeCluster().client()
    for ns in ("a", "b"):
        client.create({"apiVersion": "v1", "kind": "ConfigMap",
                       "metadata": {"name": "cfg", "namespace": ns}, "data": {"ns": ns}})
    client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}})
    return client


def test_lookup_by_name_returns_the_object_or_empty(client):
    found = klookup.lookup(client, "v1", "ConfigMap", "a", "cfg")
    assert found["data"] == {"ns": "a"}
    assert klookup.lookup(client, "v1", "ConfigMap", "a", "nope") == {}
    assert klookup.lookup(client, "v1", "ConfigMap", "", "cfg") == {}


def test_lookup_cluster_scoped_ignores_namespace(client):
    assert klookup.lookup(client, "v1", "Namespace", "whatever", "a")["metadata"]["name"] == "a"


def test_lookup_without_name_lists(client):
    listed = klookup.lookup(client, "v1", "ConfigMap", "b", "")
    assert (listed["apiVersion"], listed["kind"]) == ("v1", "ConfigMapList")
    assert [i["data"] for i in listed["items"]] == [{"ns": "b"}]
    everywhere = klookup.make_lookup(client)("v1", "ConfigMap", "", "")
    assert sorted(i["data"]["ns"] for i in everywhere["items"]) == ["a", "b"]


def test_lookup_unknown_kind_in_served_version_is_empty(client):
    assert klookup.lookup(client, "v1", "Gizmo", "a", "x") == {}


def test_lookup_unserved_group_version_is_helms_error(client):
    with pytest.raises(ClusterError) as caught:
        klookup.lookup(client, "example.com/v9", "Widget", "a", "x")
    assert str(caught.value) == ("unable to get apiresource from unstructured: example.com/v9, "
                                 "Kind=Widget: the server could not find the requested resource")


def test_lookup_list_carries_the_list_resource_version(client):
    listed = klookup.lookup(client, "v1", "ConfigMap", "a", "")
    assert listed["metadata"] == {"resourceVersion": str(client.cluster.resource_version)}
