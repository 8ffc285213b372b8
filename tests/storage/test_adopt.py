"""Adoption of helm's releases (storage/adopt.py) and storage selection (storage/select.py), on
the fake cluster. With stock helm on a real API server: e2e/test_helm_interop.py."""
from __future__ import annotations

import base64
import datetime as dt

import pytest

from helm_core.kube import fake
from helm_core.storage import adopt, helmsecrets, secrets, select
from helm_core.storage import release as rel
from tests.storage.conftest import make_version
from tests.storage.test_helmsecrets import helm_record, helm_secret, store_helm


@pytest.fixture
def cluster() -> fake.FakeCluster:
    return fake.FakeCluster()


def test_listing_skips_a_record_that_does_not_decode_as_helm_does(cluster):
    store_helm(cluster, helm_record(1))
    broken = helm_secret(helm_record(1))
    broken["metadata"]["name"] = "sh.helm.release.v1.bad.v1"
    broken["metadata"]["labels"]["name"] = "bad"
    broken["data"]["release"] = base64.b64encode(b"garbage").decode()
    cluster.client().create(broken)
    assert [v.name for v in select.open_driver(cluster.client()).list_latest("demo")] == ["web"]


def test_adopting_view_lists_helm_releases_until_a_write_adopts_them(cluster):
    store_helm(cluster, helm_record(1, "superseded"), helm_record(2))
    driver = select.open_driver(cluster.client())
    assert [(v.name, rel.version_text(v.version)) for v in driver.list_latest("demo")] == [("web", "2")]
    assert [rel.version_text(v.version) for v in driver.history("demo", "web")] == ["1", "2"]
    assert driver.get("demo", "web", rel.revision_version(1)).chart == "nginx-1.1.0"

    new = make_version(version=driver.next_version(rel.revision_version(2)), status=rel.Status.PENDING_UPGRADE)
    assert rel.revision_of(new.version) is None  # adopted releases continue with ULIDs
    driver.create(new)
    history = driver.history("demo", "web")
    assert [rel.version_text(v.version) for v in history] == ["1", "2", str(new.version)]
    assert history[1].chart == "nginx-1.2.0" and history[1].manifest.startswith("---\n# Source:")
    # helm-core's own storage now holds the release; helm's Secrets are kept, marked adopted.
    ours = secrets.SecretsDriver(cluster.client())
    assert [v.version for v in ours.history("demo", "web")] == [v.version for v in history]
    kept = [o for r, o in cluster.objects.items() if r.name.startswith("sh.helm.release.v1.web")]
    assert len(kept) == 2 and all(o["metadata"]["labels"][helmsecrets.ADOPTED_LABEL] == "true" for o in kept)
    assert all(o["metadata"]["labels"]["owner"] == "helm" for o in kept)
    # Deleting every version (uninstall) does not bring the kept helm copies back.
    for version in history:
        driver.delete("demo", "web", version.version)
    assert driver.history("demo", "web") == [] and driver.list_latest("demo") == []


def test_adoption_can_delete_helms_secrets(cluster):
    store_helm(cluster, helm_record(1))
    driver = select.open_driver(cluster.client(), helm_secrets="delete")
    driver.create(make_version(version=driver.next_version(rel.revision_version(1))))
    assert not [r for r in cluster.objects if r.name.startswith("sh.helm.release.v1.")]
    assert len(driver.history("demo", "web")) == 2


def test_writes_to_an_unadopted_release_stay_in_helms_storage(cluster):
    store_helm(cluster, helm_record(1, "pending-upgrade"))
    driver = select.open_driver(cluster.client())
    pending = driver.history("demo", "web")[0]
    driver.update(pending.with_status(rel.Status.FAILED, "interrupted"))
    assert secrets.SecretsDriver(cluster.client()).history("demo", "web") == []
    assert helmsecrets.HelmSecretsDriver(cluster.client()).history("demo", "web")[0].status is rel.Status.FAILED


def test_storage_and_policy_names_are_checked(cluster):
    with pytest.raises(ValueError, match='storage "etcd" is not one of: release, helm'):
        select.open_driver(cluster.client(), storage="etcd")
    with pytest.raises(ValueError, match='helm secrets policy "move" is not one of: keep, delete'):
        select.open_driver(cluster.client(), helm_secrets="move")
    assert isinstance(select.open_driver(cluster.client(), storage="helm"), helmsecrets.HelmSecretsDriver)
    assert isinstance(select.open_driver(cluster.client()), adopt.AdoptingDriver)


class _Lists:
    """The fake cluster's client, counting its lists."""

    def __init__(self, cluster: fake.FakeCluster) -> None:
        self._client = cluster.client()
        self.lists = 0

    def __getattr__(self, name):
        return getattr(self._client, name)

    def list(self, *args, **kwargs):
        self.lists += 1
        return self._client.list(*args, **kwargs)


def test_writes_follow_the_last_history_read_without_listing_again(cluster):
    """A create, update or get after a history read knows where the release lives: no list of
    either storage (an install used to list both three more times)."""
    api = _Lists(cluster)
    driver = select.open_driver(api)
    assert driver.history("demo", "web") == [] and api.lists == 2  # ours, then helm's
    version = make_version(status=rel.Status.PENDING_INSTALL)
    driver.create(version)
    driver.update(version.with_status(rel.Status.DEPLOYED, "done"))
    assert driver.get("demo", "web", version.version).status is rel.Status.DEPLOYED
    assert api.lists == 2


def test_a_write_after_a_read_of_a_helm_release_still_adopts_it(cluster):
    store_helm(cluster, helm_record(1))
    driver = select.open_driver(cluster.client())
    assert [rel.version_text(v.version) for v in driver.history("demo", "web")] == ["1"]
    new = make_version(version=driver.next_version(rel.revision_version(1)), status=rel.Status.PENDING_UPGRADE)
    driver.create(new)
    ours = secrets.SecretsDriver(cluster.client())
    assert [v.version for v in ours.history("demo", "web")] == [rel.revision_version(1), new.version]


def test_a_write_without_a_read_first_looks_where_the_release_lives(cluster):
    store_helm(cluster, helm_record(1))
    driver = select.open_driver(cluster.client())
    new = make_version(version=driver.next_version(rel.revision_version(1)), status=rel.Status.PENDING_UPGRADE)
    driver.create(new)  # nothing read before: adopts as it always did
    assert [v.version for v in secrets.SecretsDriver(cluster.client()).history("demo", "web")] == \
        [rel.revision_version(1), new.version]


def test_adoption_keeps_the_hooks_last_runs_helm_recorded(cluster):
    record = helm_record(1)
    record["hooks"][0]["last_run"] = {"started_at": "2026-11-21T10:00:01.5Z",
                                      "completed_at": "2026-11-21T10:00:09.25Z", "phase": "Succeeded"}
    store_helm(cluster, record)
    driver = select.open_driver(cluster.client())
    driver.create(make_version(version=driver.next_version(rel.revision_version(1))))
    copied = secrets.SecretsDriver(cluster.client()).get("demo", "web", rel.revision_version(1))
    assert copied.hook_runs == (rel.HookRun("Job", "web-migrate", rel.HookPhase.SUCCEEDED,
                                            started=dt.datetime(2026, 11, 21, 10, 0, 1, 500000, tzinfo=dt.UTC),
                                            completed=dt.datetime(2026, 11, 21, 10, 0, 9, 250000, tzinfo=dt.UTC)),)
