"""The live ClusterClient against the real API server: discovery, SSA apply and conflicts, CRUD."""
from __future__ import annotations

import pytest

from e2e.conftest import ClusterInfo
from helm_core.errors import ClusterError, ConflictError, NotFoundError
from helm_core.kube import client as kclient
from helm_core.kube import live
from helm_core.kube import wait as kwait

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def hc(cluster: ClusterInfo) -> live.LiveClient:
    return live.connect(live.LiveOptions(kubeconfig=str(cluster.kubeconfig)))


def _config_map(namespace: str, data: dict[str, str], name: str = "settings") -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": namespace, "labels": {"app": "demo"}},
            "data": data}


def test_discovery_reports_server_version_and_served_kinds(hc: live.LiveClient) -> None:
    found = hc.discover()
    assert found.server_version == "v1.37.2"
    deployment = found.find("apps/v1", "Deployment")
    assert deployment is not None
    assert (deployment.plural, deployment.namespaced) == ("deployments", True)
    assert {"create", "get", "list", "patch", "delete"} <= set(deployment.verbs)
    assert found.find("v1", "Namespace").namespaced is False
    assert found.find("coordination.k8s.io/v1", "Lease") is not None
    assert found.find("apps/v1beta1", "Deployment") is None
    versions = found.api_versions()
    assert "apps/v1" in versions and "apps/v1/Deployment" in versions and "v1/Secret" in versions


def test_apply_creates_then_updates_with_our_field_manager(hc: live.LiveClient, namespace: str) -> None:
    created = hc.apply(_config_map(namespace, {"a": "1"}))
    assert created["data"] == {"a": "1"}
    updated = hc.apply(_config_map(namespace, {"a": "2", "b": "3"}))
    assert updated["data"] == {"a": "2", "b": "3"}
    assert int(updated["metadata"]["resourceVersion"]) > int(created["metadata"]["resourceVersion"])
    managers = {(m["manager"], m["operation"]) for m in updated["metadata"]["managedFields"]}
    assert managers == {("helm-core", "Apply")}


def test_apply_dropping_a_field_removes_it(hc: live.LiveClient, namespace: str) -> None:
    hc.apply(_config_map(namespace, {"a": "1", "b": "2"}))
    assert hc.apply(_config_map(namespace, {"a": "1"}))["data"] == {"a": "1"}


def test_apply_conflict_with_another_manager_names_object_and_manager(
        hc: live.LiveClient, cluster: ClusterInfo, namespace: str) -> None:
    other = live.connect(live.LiveOptions(kubeconfig=str(cluster.kubeconfig),
                                          field_manager="someone-else"))
    other.apply(_config_map(namespace, {"a": "theirs"}))
    with pytest.raises(ConflictError) as caught:
        hc.apply(_config_map(namespace, {"a": "ours"}))
    assert str(caught.value) == (
        f'apply ConfigMap "settings" in namespace "{namespace}": Apply failed with 1 conflict: '
        'conflict with "someone-else": .data.a')
    assert hc.get(kclient.ObjectRef("v1", "ConfigMap", "settings", namespace))["data"] == {"a": "theirs"}
    forced = hc.apply(_config_map(namespace, {"a": "ours"}), force=True)
    assert forced["data"] == {"a": "ours"}


def test_dry_run_apply_changes_nothing(hc: live.LiveClient, namespace: str) -> None:
    preview = hc.apply(_config_map(namespace, {"a": "1"}), dry_run=True)
    assert preview["data"] == {"a": "1"}
    with pytest.raises(NotFoundError) as caught:
        hc.get(kclient.ObjectRef("v1", "ConfigMap", "settings", namespace))
    assert str(caught.value) == (f'get ConfigMap "settings" in namespace "{namespace}": '
                                 'configmaps "settings" not found')


def test_create_existing_and_stale_replace_are_conflicts(hc: live.LiveClient, namespace: str) -> None:
    first = hc.create(_config_map(namespace, {"a": "1"}))
    with pytest.raises(ConflictError) as caught:
        hc.create(_config_map(namespace, {"a": "2"}))
    assert str(caught.value) == (f'create ConfigMap "settings" in namespace "{namespace}": '
                                 'configmaps "settings" already exists')
    second = hc.replace({**first, "data": {"a": "2"}})
    assert second["data"] == {"a": "2"}
    with pytest.raises(ConflictError) as caught:
        hc.replace({**first, "data": {"a": "3"}})
    assert str(caught.value).startswith(f'update ConfigMap "settings" in namespace "{namespace}": '
                                        'Operation cannot be fulfilled on configmaps "settings": '
                                        'the object has been modified')


def test_list_filters_by_label_and_fills_kind(hc: live.LiveClient, namespace: str) -> None:
    hc.apply(_config_map(namespace, {"a": "1"}, name="one"))
    other = _config_map(namespace, {"a": "2"}, name="two")
    other["metadata"]["labels"] = {"app": "other"}
    hc.apply(other)
    listed = hc.list("v1", "ConfigMap", namespace=namespace, label_selector="app=demo")
    assert [(o["kind"], o["apiVersion"], o["metadata"]["name"]) for o in listed] == [
        ("ConfigMap", "v1", "one")]


def test_delete_is_idempotent_and_honours_preconditions(hc: live.LiveClient, namespace: str) -> None:
    stored = hc.create(_config_map(namespace, {"a": "1"}))
    ref = kclient.ObjectRef.of(stored)
    with pytest.raises(ConflictError):
        hc.delete(ref, resource_version="1")
    assert hc.delete(ref, resource_version=stored["metadata"]["resourceVersion"]) is True
    assert hc.delete(ref) is False


def test_foreground_delete_removes_dependents_first(hc: live.LiveClient, namespace: str) -> None:
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment",
                  "metadata": {"name": "web", "namespace": namespace},
                  "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                           "template": {"metadata": {"labels": {"app": "web"}},
                                        "spec": {"containers": [{"name": "web", "image": "web:1"}]}}}}
    hc.apply(deployment)
    kwait.wait_ready(hc, [kclient.ObjectRef.of(deployment)], options=kwait.WaitOptions(timeout_s=60))
    assert hc.list("apps/v1", "ReplicaSet", namespace=namespace)
    hc.delete(kclient.ObjectRef.of(deployment), propagation=kclient.Propagation.FOREGROUND)
    kwait.wait_deleted(hc, [kclient.ObjectRef.of(deployment)], options=kwait.WaitOptions(timeout_s=60))
    assert hc.list("apps/v1", "ReplicaSet", namespace=namespace) == []


def test_unknown_kind_is_a_clear_error_and_new_crds_are_discovered(
        hc: live.LiveClient, namespace: str) -> None:
    suffix = namespace.rsplit("-", 1)[-1]
    group = f"e2e{suffix}.example.com"
    widget = {"apiVersion": f"{group}/v1", "kind": "Widget",
              "metadata": {"name": "w", "namespace": namespace}, "spec": {"size": 3}}
    hc.discover()
    with pytest.raises(ClusterError) as caught:
        hc.apply(widget)
    assert str(caught.value) == f'the server does not serve kind "Widget" in version "{group}/v1"'
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": f"widgets.{group}"},
           "spec": {"group": group, "scope": "Namespaced",
                    "names": {"kind": "Widget", "plural": "widgets", "singular": "widget"},
                    "versions": [{"name": "v1", "served": True, "storage": True, "schema": {
                        "openAPIV3Schema": {"type": "object", "properties": {"spec": {
                            "type": "object", "x-kubernetes-preserve-unknown-fields": True}}}}}]}}
    hc.apply(crd)
    try:
        kwait.wait_ready(hc, [kclient.ObjectRef.of(crd)], options=kwait.WaitOptions(timeout_s=30))
        stored = _apply_when_served(hc, widget)
        assert stored["spec"] == {"size": 3}
    finally:
        hc.delete(kclient.ObjectRef.of(crd))


def _apply_when_served(hc: live.LiveClient, obj: dict) -> dict:
    """An Established CRD may take a moment to appear in discovery."""
    import time

    deadline = time.monotonic() + 30
    while True:
        try:
            return hc.apply(obj)
        except (ClusterError) as exc:
            if "does not serve" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def test_unreachable_server_is_a_cluster_error_naming_it(tmp_path) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(
        "apiVersion: v1\nkind: Config\ncurrent-context: x\n"
        "clusters: [{name: x, cluster: {server: 'https://127.0.0.1:1'}}]\n"
        "contexts: [{name: x, context: {cluster: x, user: x}}]\nusers: [{name: x, user: {token: t}}]\n")
    client = live.connect(live.LiveOptions(kubeconfig=str(kubeconfig), request_timeout_s=2))
    with pytest.raises(ClusterError) as caught:
        client.discover()
    assert str(caught.value) == ('Kubernetes cluster unreachable: Get "https://127.0.0.1:1/version": '
                                 "dial tcp 127.0.0.1:1: connect: connection refused")  # helm's words


def test_legacy_discovery_finds_the_same_resources(cluster: ClusterInfo, hc: live.LiveClient) -> None:
    import time

    legacy_client = live.connect(live.LiveOptions(kubeconfig=str(cluster.kubeconfig),
                                                  aggregated_discovery=False))
    key = lambda r: (r.api_version, r.kind, r.plural, r.namespaced)  # noqa: E731
    deadline = time.monotonic() + 15  # CRDs deleted by other tests may still be going away
    while True:
        legacy = legacy_client.discover(refresh=True)
        aggregated = hc.discover(refresh=True)
        if (sorted(map(key, legacy.resources)) == sorted(map(key, aggregated.resources))
                and set(legacy.api_versions()) == set(aggregated.api_versions())):
            break
        assert time.monotonic() < deadline, (
            set(map(key, legacy.resources)) ^ set(map(key, aggregated.resources)))
        time.sleep(0.5)
    assert legacy.server_version == aggregated.server_version == "v1.37.2"
    assert len(legacy.resources) > 50


def test_lookup_reads_the_live_cluster(hc: live.LiveClient, namespace: str) -> None:
    from helm_core.kube import lookup as klookup

    hc.apply(_config_map(namespace, {"a": "1"}))
    found = klookup.lookup(hc, "v1", "ConfigMap", namespace, "settings")
    assert found["data"] == {"a": "1"} and found["metadata"]["uid"]
    assert klookup.lookup(hc, "v1", "ConfigMap", namespace, "missing") == {}
    listed = klookup.lookup(hc, "v1", "ConfigMap", namespace, "")
    assert sorted(i["metadata"]["name"] for i in listed["items"]) == ["kube-root-ca.crt", "settings"]
    assert (listed["kind"], set(listed["metadata"])) == ("ConfigMapList", {"resourceVersion"})
    assert klookup.lookup(hc, "v1", "Namespace", "", namespace)["metadata"]["name"] == namespace
    with pytest.raises(ClusterError) as caught:
        klookup.lookup(hc, "nope.example.com/v1", "Widget", namespace, "x")
    assert str(caught.value) == ("unable to get apiresource from unstructured: nope.example.com/v1, "
                                 "Kind=Widget: the server could not find the requested resource")
