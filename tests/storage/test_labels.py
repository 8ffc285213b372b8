"""Custom release labels in both storages (storage/labels.py), on the fake cluster."""
from __future__ import annotations

import pytest

from helm_core.errors import HelmError
from helm_core.kube import client as kclient
from helm_core.kube import fake
from helm_core.storage import helmsecrets, secrets, select
from helm_core.storage import labels as release_labels
from helm_core.storage import release as rel
from tests.storage.conftest import make_version
from tests.storage.test_helmsecrets import helm_record, store_helm


def test_version_secrets_carry_custom_labels_beside_ours_and_read_them_back() -> None:
    version = make_version(labels={"team": "a", "example.com/tier": "web"})
    secret = secrets.encode(version)
    assert secret["metadata"]["labels"] == {
        "team": "a", "example.com/tier": "web", "release": "web", "version": str(version.version),
        "status": "deployed", "owner": "helm-core"}
    assert secrets.decode(secret).labels == {"team": "a", "example.com/tier": "web"}
    assert secrets.decode(secret) == version


def test_our_own_labels_win_over_a_custom_label_of_the_same_name() -> None:
    """The actions refuse such labels; the layout still cannot be broken by one."""
    secret = secrets.encode(make_version(labels={"release": "other", "owner": "me"}))
    assert secret["metadata"]["labels"]["release"] == "web"
    assert secret["metadata"]["labels"]["owner"] == "helm-core"
    assert secrets.decode(secret).labels == {}


def test_helm_records_give_their_custom_labels_and_keep_them_on_update() -> None:
    cluster = fake.FakeCluster()
    store_helm(cluster, helm_record(1))  # labelled team=a beside helm's system labels
    driver = helmsecrets.HelmSecretsDriver(cluster.client())
    [version] = driver.history("demo", "web")
    assert version.labels == {"team": "a"}
    driver.update(version.replace(labels={"team": "b"}).with_status(rel.Status.SUPERSEDED))
    stored = cluster.objects[kclient.ObjectRef("v1", "Secret", "sh.helm.release.v1.web.v1", "demo")]
    assert stored["metadata"]["labels"]["team"] == "b"
    secret = helmsecrets.encode(make_version(version=rel.revision_version(2), labels={"team": "c"}))
    assert secret["metadata"]["labels"]["team"] == "c"


def test_an_adopted_helm_secret_keeps_its_mark_and_the_mark_is_no_custom_label() -> None:
    cluster = fake.FakeCluster()
    store_helm(cluster, helm_record(1))
    ref = kclient.ObjectRef("v1", "Secret", "sh.helm.release.v1.web.v1", "demo")
    cluster.client().apply({"apiVersion": "v1", "kind": "Secret", "metadata": {
        "name": ref.name, "namespace": "demo", "labels": {helmsecrets.ADOPTED_LABEL: "true"}}}, force=True)
    driver = helmsecrets.HelmSecretsDriver(cluster.client())
    [version] = driver.history("demo", "web")
    assert version.labels == {"team": "a"}
    driver.update(version.with_status(rel.Status.SUPERSEDED))
    assert cluster.objects[ref]["metadata"]["labels"][helmsecrets.ADOPTED_LABEL] == "true"


def test_adoption_copies_each_revisions_labels_into_our_storage() -> None:
    cluster = fake.FakeCluster()
    store_helm(cluster, helm_record(1, "superseded"), helm_record(2))
    driver = select.open_driver(cluster.client())
    history = driver.history("demo", "web")
    driver.create(make_version(version=driver.next_version(history[-1].version), labels={"team": "z"}))
    ours = secrets.SecretsDriver(cluster.client()).history("demo", "web")
    assert [v.labels for v in ours] == [{"team": "a"}, {"team": "a"}, {"team": "z"}]
    assert [v.name for v in driver.list_latest("demo") if v.labels == {"team": "z"}] == ["web"]


@pytest.mark.parametrize("labels", [{"name": "x"}, {"team": "a", "modifiedAt": "1"}, {"release": "x"},
                                    {helmsecrets.ADOPTED_LABEL: "true"}])
def test_reserved_names_are_refused_with_helms_message(labels: dict[str, str]) -> None:
    with pytest.raises(HelmError) as refused:
        release_labels.check(labels)
    assert str(refused.value) == (
        "user supplied labels contains system reserved label name. System labels: "
        "[name owner status version createdAt modifiedAt release helm-core.io/adopted]")


def test_other_names_pass_and_helms_system_labels_come_first() -> None:
    release_labels.check({"team": "a", "app.kubernetes.io/name": "web", "Name": "x"})
    assert release_labels.RESERVED[:6] == ("name", "owner", "status", "version", "createdAt", "modifiedAt")


@pytest.mark.parametrize(("current", "desired", "expected"), [
    ({}, {}, {}),
    ({"a": "1"}, {}, {"a": "1"}),
    ({"a": "1"}, {"a": "2", "b": "3"}, {"a": "2", "b": "3"}),
    ({"a": "1", "b": "2"}, {"a": "null"}, {"b": "2"}),
    ({"a": "null"}, {}, {}),  # helm drops "null" whichever side it comes from
    ({}, {"a": "NULL"}, {"a": "NULL"}),
])
def test_merged_is_helms_merge_custom_labels(current: dict[str, str], desired: dict[str, str],
                                             expected: dict[str, str]) -> None:
    assert release_labels.merged(current, desired) == expected
