"""A release's objects on the real API server: marks, adoption refusal, removal, keep, GC."""
from __future__ import annotations

import time
from typing import Any

import pytest

from e2e.conftest import ClusterInfo
from e2e.test_storage_secrets import install_release_crd
from helm_core.errors import ConflictError
from helm_core.kube import client as kclient
from helm_core.kube import live
from helm_core.kube import resources as kres
from helm_core.kube import wait as kwait
from helm_core.storage import secrets

pytestmark = pytest.mark.e2e

GC_TIMEOUT_S = 60.0


@pytest.fixture(scope="module")
def hc(cluster: ClusterInfo) -> live.LiveClient:
    client = live.connect(live.LiveOptions(kubeconfig=str(cluster.kubeconfig)))
    install_release_crd(client)
    return client


def _owner(hc: live.LiveClient, namespace: str) -> kres.Owner:
    release = secrets.SecretsDriver(hc).ensure_release(namespace, "web")
    return kres.Owner("web", namespace, kres.owner_reference(release))


def _manifest(namespace: str, *, keep_extra: bool = False) -> list[dict[str, Any]]:
    labels = {"app": "web"}
    extra_meta: dict[str, Any] = {"name": "extra"}
    if keep_extra:
        extra_meta["annotations"] = {"helm.sh/resource-policy": "keep"}
    return [
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
         "metadata": {"name": f"{namespace}-reader"},
         "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}, "data": {"a": "1"}},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": extra_meta, "data": {"b": "2"}},
        {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
         "spec": {"selector": labels, "ports": [{"port": 80}]}},
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
         "spec": {"replicas": 2, "selector": {"matchLabels": labels},
                  "template": {"metadata": {"labels": labels},
                               "spec": {"containers": [{"name": "web", "image": "web:1"}]}}}},
    ]


def test_release_objects_are_marked_owned_and_garbage_collected(hc: live.LiveClient, namespace: str) -> None:
    owner = _owner(hc, namespace)
    objects = [kres.resolve(hc, obj, namespace) for obj in _manifest(namespace)]
    assert kres.check_adoption(hc, objects, owner) == []
    applied = kres.apply_all(hc, objects, owner)
    refs = kclient.refs(applied)
    try:
        kwait.wait_ready(hc, refs, options=kwait.WaitOptions(timeout_s=60))
        for obj in applied:
            meta = obj["metadata"]
            assert meta["labels"]["app.kubernetes.io/managed-by"] == "Helm"
            assert meta["annotations"]["meta.helm.sh/release-name"] == "web"
            owners = [(o["kind"], o["name"]) for o in meta.get("ownerReferences", [])]
            assert owners == ([] if obj["kind"] == "ClusterRole" else [("Release", "web")])
        hc.delete(kclient.ObjectRef("helm.sh/v1alpha1", "Release", "web", namespace))
        namespaced = [r for r in refs if r.namespace]
        kwait.wait_deleted(hc, namespaced, options=kwait.WaitOptions(timeout_s=GC_TIMEOUT_S))
        assert hc.get(refs[0])["kind"] == "ClusterRole"  # tracked by the manifest, not by GC
    finally:
        hc.delete(refs[0])


def test_object_of_another_release_is_refused_then_adopted_on_request(
        hc: live.LiveClient, cluster: ClusterInfo, namespace: str) -> None:
    other = live.connect(live.LiveOptions(kubeconfig=str(cluster.kubeconfig), field_manager="helm"))
    other.apply({"apiVersion": "v1", "kind": "ConfigMap",
              "metadata": {"name": "settings", "namespace": namespace,
                           "labels": {"app.kubernetes.io/managed-by": "Helm"},
                           "annotations": {"meta.helm.sh/release-name": "api",
                                           "meta.helm.sh/release-namespace": namespace}},
              "data": {"a": "theirs"}})
    owner = _owner(hc, namespace)
    objects = [kres.resolve(hc, obj, namespace) for obj in _manifest(namespace)[1:3]]
    with pytest.raises(ConflictError) as caught:
        kres.check_adoption(hc, objects, owner)
    assert str(caught.value) == (
        f'Unable to continue with install: ConfigMap "settings" in namespace "{namespace}" exists '
        "and cannot be imported into the current release: invalid ownership metadata; annotation "
        'validation error: key "meta.helm.sh/release-name" must equal "web": current value is "api"')
    assert [o["metadata"]["name"] for o in hc.list("v1", "ConfigMap", namespace=namespace)
            if o["metadata"]["name"] in ("settings", "extra")] == ["settings"]  # nothing applied
    adopted = kres.check_adoption(hc, objects, owner, adopt=True)
    assert adopted == [kclient.ObjectRef("v1", "ConfigMap", "settings", namespace)]
    with pytest.raises(ConflictError) as caught:  # the other release's manager owns those fields
        kres.apply_all(hc, objects, owner)
    assert str(caught.value) == (
        f'apply ConfigMap "settings" in namespace "{namespace}": Apply failed with 2 conflicts: '
        'conflicts with "helm":\n- .data.a\n- .metadata.annotations.meta.helm.sh/release-name')
    taken = kres.apply_all(hc, objects, owner, force=True)
    assert taken[0]["data"] == {"a": "1"}
    assert taken[0]["metadata"]["annotations"]["meta.helm.sh/release-name"] == "web"


def test_upgrade_removes_dropped_objects_but_keeps_annotated_ones(
        hc: live.LiveClient, namespace: str) -> None:
    owner = _owner(hc, namespace)
    old = [kres.resolve(hc, obj, namespace) for obj in _manifest(namespace, keep_extra=True)[1:]]
    kres.apply_all(hc, old, owner)
    new = [obj for obj in old if obj["metadata"]["name"] not in ("extra", "settings")]
    kres.apply_all(hc, new, owner)
    dropped = kres.stale(old, new)
    assert [r.name for r in dropped] == ["settings", "extra"]
    result = kres.delete_all(hc, dropped)
    assert ([r.name for r in result.deleted], [r.name for r in result.kept]) == (["settings"], ["extra"])
    # Uninstall: kept objects are disowned first, so deleting the Release leaves them.
    kept = [obj for obj in old if obj["metadata"]["name"] == "extra"]
    kres.apply_all(hc, kept, kres.Owner(owner.name, owner.namespace))
    hc.delete(kclient.ObjectRef("helm.sh/v1alpha1", "Release", "web", namespace))
    kwait.wait_deleted(hc, kclient.refs(new), options=kwait.WaitOptions(timeout_s=GC_TIMEOUT_S))
    time.sleep(1)
    survivor = hc.get(kclient.ObjectRef("v1", "ConfigMap", "extra", namespace))
    assert "ownerReferences" not in survivor["metadata"]


def test_chart_crds_are_created_once_and_waited_until_established(
        hc: live.LiveClient, namespace: str) -> None:
    group = f"{namespace.rsplit('-', 1)[-1]}.crds.example.com"
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": f"gadgets.{group}"},
           "spec": {"group": group, "scope": "Namespaced",
                    "names": {"kind": "Gadget", "plural": "gadgets", "singular": "gadget"},
                    "versions": [{"name": "v1", "served": True, "storage": True, "schema": {
                        "openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]}}
    try:
        created, existing = kres.create_missing(hc, [crd])
        assert (created, existing) == ([kclient.ObjectRef.of(crd)], [])
        kwait.wait_ready(hc, created, options=kwait.WaitOptions(timeout_s=30))
        changed = {**crd, "spec": {**crd["spec"], "names": {**crd["spec"]["names"], "shortNames": ["gd"]}}}
        assert kres.create_missing(hc, [changed]) == ([], [kclient.ObjectRef.of(crd)])
        assert "shortNames" not in hc.get(kclient.ObjectRef.of(crd))["spec"]["names"]
    finally:
        hc.delete(kclient.ObjectRef.of(crd))
