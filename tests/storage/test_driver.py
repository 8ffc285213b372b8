"""The Driver contract, run on both drivers: memory and Secrets (on the fake client)."""
from __future__ import annotations

import pytest

from helm_core.errors import ReleaseExistsError, ReleaseNotFoundError, TooLargeError
from helm_core.kube import fake
from helm_core.storage import driver as sdriver
from helm_core.storage import memory, secrets
from helm_core.storage import release as rel
from tests.storage.conftest import make_version


@pytest.fixture(params=["memory", "secrets"])
def store(request) -> sdriver.Driver:
    if request.param == "memory":
        return memory.MemoryDriver()
    return secrets.SecretsDriver(fake.FakeCluster().client())


def test_create_then_get_round_trips(store):
    version = make_version()
    store.create(version)
    assert store.get("demo", "web", version.version) == version


def test_create_twice_is_refused(store):
    version = make_version()
    store.create(version)
    with pytest.raises(ReleaseExistsError) as caught:
        store.create(version)
    assert str(caught.value) == (f'release "web" version {version.version} already exists in '
                                 'namespace "demo"')


@pytest.mark.parametrize("operation", ["get", "update", "delete"])
def test_missing_version_is_release_not_found(store, operation):
    version = make_version()
    with pytest.raises(ReleaseNotFoundError) as caught:
        if operation == "update":
            store.update(version)
        else:
            getattr(store, operation)("demo", "web", version.version)
    assert str(caught.value) == f'release "web" has no version {version.version} in namespace "demo"'


def test_too_large_version_is_refused_and_nothing_is_stored(store):
    version = make_version(manifest="".join(chr(0x4E00 + (i * 7919) % 20000) for i in range(600_000)))
    with pytest.raises(TooLargeError):
        store.create(version)
    assert store.history("demo", "web") == []


def test_history_is_ulid_order_per_release_and_namespace(store):
    versions = [make_version() for _ in range(3)]
    for version in reversed(versions):
        store.create(version)
    store.create(make_version("other"))
    store.create(make_version(namespace="elsewhere"))
    assert store.history("demo", "web") == versions
    assert store.history("demo", "nope") == []


def test_update_changes_status(store):
    version = make_version(status=rel.Status.PENDING_INSTALL)
    store.create(version)
    store.update(version.with_status(rel.Status.DEPLOYED, "Install complete"))
    stored = store.get("demo", "web", version.version)
    assert (stored.status, stored.description) == (rel.Status.DEPLOYED, "Install complete")


def test_delete_returns_the_version_and_removes_it(store):
    a, b = make_version(), make_version()
    store.create(a)
    store.create(b)
    assert store.delete("demo", "web", a.version) == a
    assert store.history("demo", "web") == [b]


def test_list_latest_gives_newest_version_of_each_release(store):
    old, new = make_version(), make_version(status=rel.Status.FAILED)
    other = make_version("api")
    elsewhere = make_version(namespace="prod")
    for version in (new, old, other, elsewhere):
        store.create(version)
    assert store.list_latest("demo") == [other, new]
    assert store.list_latest() == [other, new, elsewhere]


def test_recover_interrupted_marks_pending_versions_failed(store):
    done = make_version()
    stuck = make_version(status=rel.Status.PENDING_UPGRADE)
    store.create(done)
    store.create(stuck)
    recovered = sdriver.recover_interrupted(store, "demo", "web")
    assert [v.version for v in recovered] == [stuck.version]
    stored = store.get("demo", "web", stuck.version)
    assert stored.status is rel.Status.FAILED
    assert stored.description == "operation interrupted: pending-upgrade never finished (its lock expired)"
    assert store.get("demo", "web", done.version) == done
    assert sdriver.recover_interrupted(store, "demo", "web") == []


def test_prune_history_keeps_newest_and_last_deployed(store):
    deployed = make_version()
    later = [make_version(status=rel.Status.FAILED) for _ in range(4)]
    for version in (deployed, *later):
        store.create(version)
    pruned = sdriver.prune_history(store, "demo", "web", max_history=3)
    assert pruned == later[:2]
    assert store.history("demo", "web") == [deployed, *later[2:]]
    assert sdriver.prune_history(store, "demo", "web", max_history=0) == []


def test_check_refuses_a_too_large_version_without_storing_it(store):
    store.check(make_version())
    with pytest.raises(TooLargeError):
        store.check(make_version(manifest="".join(chr(0x4E00 + (i * 7919) % 20000) for i in range(600_000))))
    assert store.history("demo", "web") == []


def test_claim_holds_for_its_claimant_and_names_it_to_another(store):
    assert store.claimant("demo", "web", annotation="example.com/owner") is None
    assert store.claim("demo", "web", annotation="example.com/owner", claimant="team/a") == ""
    assert store.claim("demo", "web", annotation="example.com/owner", claimant="team/a") == ""
    assert store.claim("demo", "web", annotation="example.com/owner", claimant="team/b") == "team/a"
    assert store.claimant("demo", "web", annotation="example.com/owner") == "team/a"


def test_an_unclaimed_stored_release_is_taken_by_the_first_claimant(store):
    store.create(make_version())  # installed by the CLI: stored, claimed by nobody
    assert store.claimant("demo", "web", annotation="example.com/owner") == ""
    assert store.claim("demo", "web", annotation="example.com/owner", claimant="team/a") == ""
    assert store.claimant("demo", "web", annotation="example.com/owner") == "team/a"


def test_owner_reference_names_the_release_object_where_there_is_one():
    store = secrets.SecretsDriver(fake.FakeCluster().client())
    assert store.owner_reference("demo", "web") is None
    store.create(make_version())
    ref = store.owner_reference("demo", "web")
    assert (ref["apiVersion"], ref["kind"], ref["name"]) == (secrets.RELEASE_API_VERSION, secrets.RELEASE_KIND, "web")
    assert ref["uid"]
    assert memory.MemoryDriver().owner_reference("demo", "web") is None
