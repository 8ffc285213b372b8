"""Release objects: ownership metadata, Helm's adoption rules, stale sets and keep policy."""
from __future__ import annotations

import pytest

from helm_core.errors import ClusterError, ConflictError
from helm_core.kube import client as kclient
from helm_core.kube import fake
from helm_core.kube import resources as kres

OWNER = kres.Owner("web", "demo", {"apiVersion": "helm.sh/v1alpha1", "kind": "Release",
                                   "name": "web", "uid": "u-1"})


def _cm(name: str = "cfg", namespace: str | None = None, **meta) -> dict:
    metadata = {"name": name, **meta}
    if namespace is not None:
        metadata["namespace"] = namespace
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": {"a": "1"}}


def test_resolve_fills_namespace_for_namespaced_kinds_only():
    client = fake.FakeCluster().client()
    assert kres.resolve(client, _cm(), "demo")["metadata"]["namespace"] == "demo"
    assert kres.resolve(client, _cm(namespace="other"), "demo")["metadata"]["namespace"] == "other"
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "x", "namespace": "demo"}}
    assert kres.resolve(client, ns, "demo")["metadata"] == {"name": "x"}
    assert ns["metadata"] == {"name": "x", "namespace": "demo"}


def test_resolve_unknown_kind_uses_helms_words():
    client = fake.FakeCluster().client()
    with pytest.raises(ClusterError) as caught:
        kres.resolve(client, {"apiVersion": "example.com/v1", "kind": "Widget",
                              "metadata": {"name": "w"}}, "demo")
    assert str(caught.value) == ('resource mapping not found for name: "w" namespace: "": no matches '
                                 'for kind "Widget" in version "example.com/v1"; ensure CRDs are '
                                 "installed first")


def test_mark_adds_helm_metadata_and_owner_in_release_namespace_only():
    marked = kres.mark(_cm(namespace="demo", labels={"app": "x"}), OWNER)
    assert marked["metadata"]["labels"] == {"app": "x", "app.kubernetes.io/managed-by": "Helm"}
    assert marked["metadata"]["annotations"] == {"meta.helm.sh/release-name": "web",
                                                 "meta.helm.sh/release-namespace": "demo"}
    assert marked["metadata"]["ownerReferences"] == [OWNER.reference]
    elsewhere = kres.mark(_cm(namespace="other"), OWNER)
    assert "ownerReferences" not in elsewhere["metadata"]
    unowned = kres.mark(_cm(namespace="demo"), kres.Owner("web", "demo"))
    assert "ownerReferences" not in unowned["metadata"]


PROBLEMS = [
    ("unlabelled", {}, {},
     'invalid ownership metadata; label validation error: missing key "app.kubernetes.io/managed-by": '
     'must be set to "Helm"; annotation validation error: missing key "meta.helm.sh/release-name": '
     'must be set to "web"; annotation validation error: missing key "meta.helm.sh/release-namespace": '
     'must be set to "demo"'),
    ("other-release", {"app.kubernetes.io/managed-by": "Helm"},
     {"meta.helm.sh/release-name": "api", "meta.helm.sh/release-namespace": "demo"},
     'invalid ownership metadata; annotation validation error: key "meta.helm.sh/release-name" must '
     'equal "web": current value is "api"'),
    ("ours", {"app.kubernetes.io/managed-by": "Helm"},
     {"meta.helm.sh/release-name": "web", "meta.helm.sh/release-namespace": "demo"}, ""),
]


@pytest.mark.parametrize(("labels", "annotations", "problem"), [p[1:] for p in PROBLEMS],
                         ids=[p[0] for p in PROBLEMS])
def test_ownership_problem_matches_helm(labels, annotations, problem):
    existing = _cm(namespace="demo", labels=labels, annotations=annotations)
    assert kres.ownership_problem(existing, OWNER) == problem


def test_check_adoption_refuses_foreign_objects_unless_adopting():
    client = fake.FakeCluster().client()
    client.create(_cm(namespace="demo", labels={"app.kubernetes.io/managed-by": "Helm"},
                      annotations={"meta.helm.sh/release-name": "api",
                                   "meta.helm.sh/release-namespace": "demo"}))
    objects = [_cm(namespace="demo"), _cm("fresh", namespace="demo")]
    with pytest.raises(ConflictError) as caught:
        kres.check_adoption(client, objects, OWNER)
    assert str(caught.value) == (
        'Unable to continue with install: ConfigMap "cfg" in namespace "demo" exists and cannot be '
        'imported into the current release: invalid ownership metadata; annotation validation error: '
        'key "meta.helm.sh/release-name" must equal "web": current value is "api"')
    assert kres.check_adoption(client, objects, OWNER, adopt=True) == [
        kclient.ObjectRef("v1", "ConfigMap", "cfg", "demo")]


def test_stale_lists_old_objects_missing_from_new_across_versions():
    old = [_cm("a", "demo"), _cm("b", "demo"),
           {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "namespace": "demo"}}]
    new = [_cm("b", "demo"),
           {"apiVersion": "apps/v1beta1", "kind": "Deployment", "metadata": {"name": "d", "namespace": "demo"}}]
    assert kres.stale(old, new) == [kclient.ObjectRef("v1", "ConfigMap", "a", "demo")]


def test_delete_all_keeps_annotated_and_reports_missing():
    client = fake.FakeCluster().client()
    client.create(_cm("gone-soon", "demo"))
    client.create(_cm("kept", "demo", annotations={"helm.sh/resource-policy": "keep"}))
    refs = [kclient.ObjectRef("v1", "ConfigMap", n, "demo") for n in ("gone-soon", "kept", "never")]
    result = kres.delete_all(client, refs)
    assert result == kres.Deletion(deleted=(refs[0],), kept=(refs[1],), missing=(refs[2],))
    assert [o["metadata"]["name"] for o in client.list("v1", "ConfigMap", namespace="demo")] == ["kept"]


def test_create_missing_never_touches_existing_objects():
    client = fake.FakeCluster().client()
    client.create(_cm("old", "demo"))
    objects = [{**_cm("old", "demo"), "data": {"a": "changed"}}, _cm("new", "demo")]
    created, existing = kres.create_missing(client, objects)
    assert (created, existing) == ([kclient.ObjectRef("v1", "ConfigMap", "new", "demo")],
                                   [kclient.ObjectRef("v1", "ConfigMap", "old", "demo")])
    assert client.get(existing[0])["data"] == {"a": "1"}


def _entry(manager: str, operation: str, fields: dict, *, api_version: str = "v1", **extra) -> dict:
    return {"manager": manager, "operation": operation, "apiVersion": api_version, "time": "2026-11-27T00:00:00Z",
            "fieldsType": "FieldsV1", "fieldsV1": fields, **extra}


def test_applied_ownership_folds_our_puts_fields_into_our_apply_entry():
    applied = _entry("helm-core", "Apply", {"f:data": {"f:a": {}}, "f:metadata": {"f:labels": {"f:x": {}}}})
    put = _entry("helm-core", "Update", {"f:data": {"f:b": {}}, "f:metadata": {"f:labels": {"f:y": {}}}})
    theirs = _entry("kubectl", "Update", {"f:data": {"f:c": {}}})
    status = _entry("helm-core", "Update", {"f:status": {}}, subresource="status")
    folded = kres.applied_ownership([theirs, applied, put, status], "helm-core", "v1")
    assert folded == [theirs, status, _entry("helm-core", "Apply", {
        "f:data": {"f:a": {}, "f:b": {}}, "f:metadata": {"f:labels": {"f:x": {}, "f:y": {}}}})]


def test_applied_ownership_makes_an_apply_entry_and_leaves_what_it_cannot_fold():
    put = _entry("helm-core", "Update", {"f:data": {"f:b": {}}})
    assert kres.applied_ownership([put], "helm-core", "v1") == [
        _entry("helm-core", "Apply", {"f:data": {"f:b": {}}})]
    assert kres.applied_ownership([_entry("kubectl", "Update", {})], "helm-core", "v1") is None
    other_version = _entry("helm-core", "Apply", {}, api_version="v2")
    assert kres.applied_ownership([other_version, _entry("helm-core", "Update", {}, api_version="v2")],
                                  "helm-core", "v1") is None
    assert kres.applied_ownership([other_version, put], "helm-core", "v1") is None


class _Conflicting(fake.FakeClient):
    """Answers the first ``conflicts`` PUTs carrying managedFields with a conflict."""

    def __init__(self, cluster: fake.FakeCluster, conflicts: int) -> None:
        super().__init__(cluster)
        self.conflicts = conflicts
        self.puts = 0

    def replace(self, obj, *, subresource=""):
        self.puts += 1
        if obj["metadata"].get("managedFields") and self.conflicts:
            self.conflicts -= 1
            raise ConflictError("update: the object has been modified")
        return super().replace(obj, subresource=subresource)


def test_replace_puts_the_object_over_the_live_one_and_creates_a_missing_one():
    cluster = fake.FakeCluster()
    client = _Conflicting(cluster, conflicts=1)
    created = kres.replace(client, _cm(namespace="demo"))
    assert client.puts == 0 and created["data"] == {"a": "1"}
    cluster.client("kubectl").apply({**_cm(namespace="demo"), "data": {"b": "2"}})
    done = kres.replace(client, {**_cm(namespace="demo"), "data": {"a": "3"}})
    assert done["data"] == {"a": "3"} and done["metadata"]["uid"] == created["metadata"]["uid"]
    assert client.puts == 3  # the object, its ownership (a conflict), read again and written


def test_replace_words_a_refusal_as_helm_and_returns_it():
    """A refused PUT is returned (helm goes on to the next object), of the server's kind; the
    refusals joined read as helm's, in the objects' order."""
    class Refusing(fake.FakeClient):
        def replace(self, obj, *, subresource=""):
            raise ConflictError('update ConfigMap "cfg": the object has been modified',
                                answer="the object has been modified")

    client = Refusing(fake.FakeCluster())
    client.apply(_cm(namespace="demo"))
    refused = kres.replace(client, _cm(namespace="demo"))
    assert isinstance(refused, ConflictError)
    assert str(refused) == "failed to replace object: the object has been modified"
    both = kres.joined([refused, kres.replace(client, _cm(namespace="demo"))])
    assert isinstance(both, ConflictError) and str(both) == (
        "failed to replace object: the object has been modified && "
        "failed to replace object: the object has been modified")
