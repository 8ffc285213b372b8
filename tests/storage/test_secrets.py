"""Version Secrets: layout, compression, round trip, the 1 MiB limit and the Release record."""
from __future__ import annotations

import base64
import gzip
import json
import random
import time

import pytest

from helm_core.errors import StorageError, TooLargeError
from helm_core.kube import client as kclient
from helm_core.kube import fake
from helm_core.storage import release as rel
from helm_core.storage import secrets
from tests.storage.conftest import T0, make_version


def _noise(size: int) -> str:
    """Text gzip cannot shrink much (base64 of random bytes, seeded)."""
    return base64.b64encode(random.Random(7).randbytes(size)).decode()


def test_encode_lays_out_one_secret_per_version():
    version = make_version(version=rel.parse_version("01JD2Q7ZK4V4W6X8Y9Z0A1B2C3"))
    secret = secrets.encode(version)
    assert secret["type"] == "helm.sh/release-version"
    assert secret["metadata"] == {
        "name": "web.01jd2q7zk4v4w6x8y9z0a1b2c3", "namespace": "demo",
        "labels": {"release": "web", "version": "01JD2Q7ZK4V4W6X8Y9Z0A1B2C3",
                   "status": "deployed", "owner": "helm-core"}}
    data = {key: base64.b64decode(value) for key, value in secret["data"].items()}
    assert sorted(data) == sorted([
        "userValues", "chartValues", "manifest", "hooks", "notes", "chartName", "chartVersion",
        "appVersion", "chartSource", "status", "description", "firstDeployed", "lastDeployed",
        "deleted"])
    assert json.loads(gzip.decompress(data["userValues"])) == {"replicas": 2, "password": "s3cret"}
    assert gzip.decompress(data["manifest"]).decode() == version.manifest
    assert data["chartName"] == b"nginx"
    assert data["lastDeployed"] == b"2026-11-23T12:00:00Z"


def test_encode_does_not_mutate_and_decode_round_trips():
    version = make_version(deleted=T0, hooks="---\nkind: Job\n")
    user_values = dict(version.user_values)
    assert secrets.decode(secrets.encode(version)) == version
    assert version.user_values == user_values
    numbered = version.replace(revision=12)  # data key "revision", absent when not recorded
    assert base64.b64decode(secrets.encode(numbered)["data"]["revision"]) == b"12"
    assert secrets.decode(secrets.encode(numbered)).revision == 12
    assert "revision" not in secrets.encode(version)["data"]


def test_encode_is_deterministic():
    version = make_version()
    assert secrets.encode(version) == secrets.encode(version)


def test_large_but_compressible_release_fits():
    manifest = "apiVersion: v1\nkind: ConfigMap\ndata:\n  a: b\n" * 60_000  # ~2.6 MiB raw
    secret = secrets.encode(make_version(manifest=manifest))
    assert len(base64.b64decode(secret["data"]["manifest"])) < secrets.MAX_SECRET_BYTES // 10


def test_release_over_one_mib_is_refused_naming_the_parts():
    version = make_version(version=rel.parse_version("01JD2Q7ZK4V4W6X8Y9Z0A1B2C3"),
                           manifest=_noise(1_000_000), notes=_noise(100_000))
    with pytest.raises(TooLargeError) as caught:
        secrets.encode(version)
    assert str(caught.value) == (
        'release "web" version 01JD2Q7ZK4V4W6X8Y9Z0A1B2C3 is 1.1 MiB once compressed '
        "(manifest 986.4 KiB, notes 98.6 KiB, chartValues 0.1 KiB), over the 1 MiB limit of a "
        "Kubernetes Secret; nothing was applied")


def test_decode_names_a_corrupt_secret():
    secret = secrets.encode(make_version())
    secret["data"]["manifest"] = base64.b64encode(b"not gzip").decode()
    with pytest.raises(StorageError) as caught:
        secrets.decode(secret)
    assert str(caught.value).startswith(
        f'Secret "{secret["metadata"]["name"]}" in namespace "demo" is not a valid release version: ')


def test_release_status_summarises_without_values():
    history = [make_version(status=rel.Status.SUPERSEDED) for _ in range(12)]
    history[-1] = history[-1].with_status(rel.Status.DEPLOYED, "Upgrade complete")
    status = secrets.release_status(history)
    assert status["version"] == str(history[-1].version)
    assert (status["status"], status["chart"], status["appVersion"]) == ("deployed", "nginx-1.2.3", "1.25.0")
    assert [h["version"] for h in status["history"]] == [str(v.version) for v in history[-10:]]
    assert status["history"][-1] == {"version": str(history[-1].version), "status": "deployed",
                                     "chart": "nginx-1.2.3", "appVersion": "1.25.0",
                                     "description": "Upgrade complete", "updated": "2026-11-23T12:00:00Z"}
    assert "s3cret" not in json.dumps(status)


def test_secrets_driver_keeps_release_object_owning_its_secrets():
    client = fake.FakeCluster().client()
    driver = secrets.SecretsDriver(client)
    first = make_version()
    driver.create(first)
    release = client.get(kclient.ObjectRef("helm.sh/v1alpha1", "Release", "web", "demo"))
    secret = client.get(kclient.ObjectRef("v1", "Secret", secrets.secret_name("web", first.version), "demo"))
    assert secret["metadata"]["ownerReferences"] == [{
        "apiVersion": "helm.sh/v1alpha1", "kind": "Release", "name": "web",
        "uid": release["metadata"]["uid"], "controller": True}]
    assert release["status"]["version"] == str(first.version)

    second = make_version(status=rel.Status.PENDING_UPGRADE)
    driver.create(second)
    driver.update(first.with_status(rel.Status.SUPERSEDED))
    release = client.get(kclient.ObjectRef("helm.sh/v1alpha1", "Release", "web", "demo"))
    assert [(h["version"], h["status"]) for h in release["status"]["history"]] == [
        (str(first.version), "superseded"), (str(second.version), "pending-upgrade")]

    driver.delete("demo", "web", second.version)
    driver.delete("demo", "web", first.version)
    assert client.list("helm.sh/v1alpha1", "Release", namespace="demo") == []


def test_decode_without_payloads_skips_compressed_keys():
    version = make_version()
    light = secrets.decode(secrets.encode(version), payloads=False)
    assert light == version.replace(user_values={}, chart_values={}, manifest="", hooks="", notes="")


def test_merge_status_matches_a_status_rebuilt_from_history():
    history = [make_version(status=rel.Status.SUPERSEDED, chart_version=f"1.{i}.0") for i in range(12)]
    status = None
    for version in history:
        status = secrets.merge_status(status, version)
    assert status == secrets.release_status(history)
    # Updating an older version changes its history entry, not the head.
    older = history[3].with_status(rel.Status.FAILED, "Upgrade failed")
    updated = secrets.merge_status(status, older)
    assert updated == secrets.release_status(history[:3] + [older] + history[4:])
    assert updated["chart"] == "nginx-1.11.0"


def test_missing_release_crd_is_a_clear_error_before_any_write():
    cluster = fake.FakeCluster(resources=tuple(r for r in fake.FAKE_RESOURCES if r.kind != "Release"))
    client = cluster.client()
    with pytest.raises(StorageError) as caught:
        secrets.SecretsDriver(client).create(make_version())
    # helm-core tries to install the CRD; this cluster cannot take it, so the error says both.
    assert str(caught.value).startswith(
        'the Release CRD "releases.helm.sh" (helm.sh/v1alpha1) is not installed in the cluster; '
        "apply manifests/crds/release.yaml first (installing it failed: ")
    assert cluster.objects == {}


class CountingClient(fake.FakeClient):
    """Counts GETs by kind."""

    def __init__(self, cluster: fake.FakeCluster) -> None:
        super().__init__(cluster)
        self.gets: list[str] = []

    def get(self, ref):
        self.gets.append(ref.kind)
        return super().get(ref)


def test_an_update_after_the_drivers_own_write_reads_nothing_first():
    client = CountingClient(fake.FakeCluster())
    driver = secrets.SecretsDriver(client)
    pending = make_version(status=rel.Status.PENDING_INSTALL)
    driver.create(pending)
    client.gets.clear()
    driver.update(pending.with_status(rel.Status.DEPLOYED))
    driver.update(pending.with_status(rel.Status.SUPERSEDED))
    assert client.gets == []  # resourceVersions of its own writes are the preconditions
    release = client.get(kclient.ObjectRef("helm.sh/v1alpha1", "Release", "web", "demo"))
    assert [h["status"] for h in release["status"]["history"]] == ["superseded"]
    assert driver.get("demo", "web", pending.version).status is rel.Status.SUPERSEDED


def test_an_update_after_someone_else_wrote_reads_again_and_keeps_their_write():
    client = CountingClient(fake.FakeCluster())
    driver = secrets.SecretsDriver(client)
    first = make_version(status=rel.Status.PENDING_INSTALL)
    driver.create(first)
    other = secrets.SecretsDriver(client)  # another process, e.g. a CLI user
    second = make_version(status=rel.Status.PENDING_UPGRADE)
    other.create(second)
    other.update(first.with_status(rel.Status.FAILED))  # the Secret changed behind `driver`
    client.gets.clear()
    driver.update(first.with_status(rel.Status.SUPERSEDED))
    assert client.gets == ["Secret", "Release"]  # both preconditions failed: read, then write
    release = client.get(kclient.ObjectRef("helm.sh/v1alpha1", "Release", "web", "demo"))
    assert [(h["version"], h["status"]) for h in release["status"]["history"]] == [
        (str(first.version), "superseded"), (str(second.version), "pending-upgrade")]
    assert driver.get("demo", "web", first.version).status is rel.Status.SUPERSEDED


def test_an_update_of_a_version_deleted_meanwhile_says_it_is_missing():
    client = fake.FakeCluster().client()
    driver = secrets.SecretsDriver(client)
    version = make_version(status=rel.Status.PENDING_INSTALL)
    driver.create(version)
    client.delete(kclient.ObjectRef("v1", "Secret", secrets.secret_name("web", version.version), "demo"))
    with pytest.raises(StorageError, match="web"):
        driver.update(version.with_status(rel.Status.DEPLOYED))


def _release_object(client, name="web", namespace="demo"):
    return client.create({"apiVersion": "helm.sh/v1alpha1", "kind": "Release",
                          "metadata": {"name": name, "namespace": namespace}, "spec": {}})


def test_a_release_object_read_elsewhere_is_not_read_again():
    client = CountingClient(fake.FakeCluster())
    driver = secrets.SecretsDriver(client)
    driver.remember_release(_release_object(client))  # the controller's claim read it
    version = make_version(status=rel.Status.PENDING_INSTALL)
    driver.create(version)
    driver.update(version.with_status(rel.Status.DEPLOYED))
    assert client.gets == []
    release = client.get(kclient.ObjectRef("helm.sh/v1alpha1", "Release", "web", "demo"))
    secret = client.get(kclient.ObjectRef("v1", "Secret", secrets.secret_name("web", version.version), "demo"))
    assert secret["metadata"]["ownerReferences"][0]["uid"] == release["metadata"]["uid"]
    assert release["status"]["status"] == "deployed"
    assert driver.known_release("demo", "web")["metadata"]["uid"] == release["metadata"]["uid"]


RELEASE_REF = kclient.ObjectRef("helm.sh/v1alpha1", "Release", "web", "demo")


def _driver_remembering_a_stale_release(**options: object) -> tuple[CountingClient, secrets.SecretsDriver, dict]:
    """A driver that remembers a Release object since deleted and created again by someone else
    (uninstalled and installed again meanwhile); the current object is returned too."""
    client = CountingClient(fake.FakeCluster())
    driver = secrets.SecretsDriver(client, **options)
    driver.remember_release(_release_object(client))
    client.delete(RELEASE_REF)
    return client, driver, _release_object(client)


def test_a_stale_release_object_is_read_again_and_the_version_belongs_to_the_current_one():
    client, driver, current = _driver_remembering_a_stale_release()
    version = make_version(status=rel.Status.PENDING_INSTALL)
    driver.create(version)
    assert client.gets == ["Release"]  # the status write's precondition failed: read, then write
    secret = client.get(kclient.ObjectRef("v1", "Secret", secrets.secret_name("web", version.version), "demo"))
    assert secret["metadata"]["ownerReferences"] == [{
        "apiVersion": "helm.sh/v1alpha1", "kind": "Release", "name": "web",
        "uid": current["metadata"]["uid"], "controller": True}]
    assert client.get(RELEASE_REF)["status"]["version"] == str(version.version)


def _release_status(client, name="web", namespace="demo"):
    return client.get(kclient.ObjectRef("helm.sh/v1alpha1", "Release", name, namespace)).get("status") or {}


class StatusWrites(fake.FakeClient):
    """Records every status written to a Release."""

    def __init__(self, cluster: fake.FakeCluster) -> None:
        super().__init__(cluster)
        self.statuses: list[str] = []

    def apply(self, obj, **kwargs):
        if kwargs.get("subresource") == "status":
            self.statuses.append(obj["status"]["status"])
        return super().apply(obj, **kwargs)


def test_a_fast_operation_writes_only_its_result_to_the_release_status():
    client = StatusWrites(fake.FakeCluster())
    driver = secrets.SecretsDriver(client, announce_after_s=30)
    pending = make_version(status=rel.Status.PENDING_INSTALL)
    driver.create(pending)
    assert driver.get("demo", "web", pending.version).status is rel.Status.PENDING_INSTALL  # the Secret at once
    driver.update(pending.with_status(rel.Status.DEPLOYED))
    assert client.statuses == ["deployed"]
    assert [h["status"] for h in _release_status(client)["history"]] == ["deployed"]


def test_a_hooks_run_is_written_to_the_secret_alone():
    """The Release status holds no hook runs: a write that records one (a hook starting) leaves
    the status as it is, and an unannounced pending version stays unannounced."""
    for announce_after_s in (0.0, 30.0):
        client = StatusWrites(fake.FakeCluster())
        driver = secrets.SecretsDriver(client, announce_after_s=announce_after_s)
        pending = make_version(status=rel.Status.PENDING_INSTALL)
        driver.create(pending)
        written = list(client.statuses)
        running = rel.HookRun("Job", "setup", rel.HookPhase.RUNNING, started=T0)
        driver.update(pending.with_hook_run(running))
        assert client.statuses == written
        assert driver.get("demo", "web", pending.version).hook_runs == (running,)
        driver.update(pending.with_hook_run(running).with_status(rel.Status.DEPLOYED))
        assert client.statuses == [*written, "deployed"]


def test_a_slow_operation_shows_its_pending_version_after_the_grace():
    client = StatusWrites(fake.FakeCluster())
    driver = secrets.SecretsDriver(client, announce_after_s=0.05)
    pending = make_version(status=rel.Status.PENDING_INSTALL)
    driver.create(pending)
    deadline = time.monotonic() + 5
    while not client.statuses and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _release_status(client)["status"] == "pending-install"
    driver.update(pending.with_status(rel.Status.DEPLOYED))
    assert client.statuses == ["pending-install", "deployed"]


def test_an_unannounced_pending_version_is_folded_into_the_next_write():
    """An upgrade faster than the grace: superseding the old version writes the new one's
    pending entry too, so the status never shows the old version as the newest."""
    client = fake.FakeCluster().client()
    driver = secrets.SecretsDriver(client, announce_after_s=30)
    first = make_version()
    driver.create(first)
    second = make_version(status=rel.Status.PENDING_UPGRADE)
    driver.create(second)
    driver.update(first.with_status(rel.Status.SUPERSEDED))
    status = _release_status(client)
    assert (status["version"], status["status"]) == (str(second.version), "pending-upgrade")
    assert [(h["version"], h["status"]) for h in status["history"]] == [
        (str(first.version), "superseded"), (str(second.version), "pending-upgrade")]


def test_a_process_dying_inside_the_grace_leaves_what_recovery_needs():
    """The pending Secret is written at once: the next operation's recovery (under the lock)
    marks it failed, and the Release status then says so."""
    from helm_core.storage import driver as drv

    client = fake.FakeCluster().client()
    dead = secrets.SecretsDriver(client, announce_after_s=30)
    pending = make_version(status=rel.Status.PENDING_INSTALL)
    dead.create(pending)
    assert "status" not in _release_status(client)  # never announced: it died first
    _, recovered = drv.recover(secrets.SecretsDriver(client), secrets.SecretsDriver(client).history("demo", "web"))
    assert [v.version for v in recovered] == [pending.version]
    status = _release_status(client)
    assert (status["version"], status["status"]) == (str(pending.version), "failed")


class SecretWrites(StatusWrites):
    """Records every write of a version Secret (``create pending-install``, ``replace deployed``)."""

    def __init__(self, cluster: fake.FakeCluster) -> None:
        super().__init__(cluster)
        self.secrets: list[str] = []

    def create(self, obj, **kwargs):
        if obj.get("kind") == "Secret":
            self.secrets.append(f"create {obj['metadata']['labels']['status']}")
        return super().create(obj, **kwargs)

    def replace(self, obj, **kwargs):
        if obj.get("kind") == "Secret":
            self.secrets.append(f"replace {obj['metadata']['labels']['status']}")
        return super().replace(obj, **kwargs)


def _claimed(announce_after_s: float) -> tuple[SecretWrites, secrets.SecretsDriver]:
    """A driver whose Release the controller's claim created (as before every install)."""
    client = SecretWrites(fake.FakeCluster())
    driver = secrets.SecretsDriver(client, announce_after_s=announce_after_s)
    assert driver.claim("demo", "web", annotation="helm.sh/helmrequest", claimant="demo/web", new=True) == ""
    return client, driver


def _no_version(driver: secrets.SecretsDriver) -> bool:
    return driver.history("demo", "web") == []


def test_a_fast_operation_on_a_claimed_release_writes_its_version_once():
    """Inside the grace nothing of the pending version is written: its result creates the
    Secret (one write instead of a create and a replace) and the status."""
    client, driver = _claimed(announce_after_s=30)
    pending = make_version(status=rel.Status.PENDING_INSTALL)
    driver.create(pending)
    assert _no_version(driver) and client.secrets == [] and client.statuses == []
    driver.update(pending.with_status(rel.Status.DEPLOYED))
    assert client.secrets == ["create deployed"]
    assert client.statuses == ["deployed"]
    assert driver.get("demo", "web", pending.version).status is rel.Status.DEPLOYED
    secret = client.get(kclient.ObjectRef("v1", "Secret", secrets.secret_name("web", pending.version), "demo"))
    assert secret["metadata"]["ownerReferences"][0]["uid"] == client.get(RELEASE_REF)["metadata"]["uid"]


def test_a_hooks_run_inside_the_grace_changes_the_version_to_be_written():
    client, driver = _claimed(announce_after_s=30)
    pending = make_version(status=rel.Status.PENDING_INSTALL)
    driver.create(pending)
    running = rel.HookRun("Job", "setup", rel.HookPhase.RUNNING, started=T0)
    driver.update(pending.with_hook_run(running))
    assert _no_version(driver) and client.secrets == []
    driver.update(pending.with_hook_run(running).with_status(rel.Status.DEPLOYED))
    assert client.secrets == ["create deployed"] and client.statuses == ["deployed"]
    assert driver.get("demo", "web", pending.version).hook_runs == (running,)


def test_a_hooks_run_keeps_the_announcement_due_when_it_was():
    """A hook's run re-arms the announcement for what is left of the grace, with its content."""
    # the hook's run is to come inside the grace: a second is room for a pause of the process
    client, driver = _claimed(announce_after_s=1.0)
    pending = make_version(status=rel.Status.PENDING_INSTALL)
    driver.create(pending)
    running = rel.HookRun("Job", "setup", rel.HookPhase.RUNNING, started=T0)
    driver.update(pending.with_hook_run(running))
    deadline = time.monotonic() + 5
    while not client.statuses and time.monotonic() < deadline:
        time.sleep(0.01)
    assert client.secrets == ["create pending-install"] and client.statuses == ["pending-install"]
    assert driver.get("demo", "web", pending.version).hook_runs == (running,)
    driver.update(pending.with_hook_run(running).with_status(rel.Status.DEPLOYED))
    assert client.secrets == ["create pending-install", "replace deployed"]


def test_a_slow_operation_on_a_claimed_release_writes_its_pending_version_after_the_grace():
    client, driver = _claimed(announce_after_s=0.05)
    pending = make_version(status=rel.Status.PENDING_INSTALL)
    driver.create(pending)
    deadline = time.monotonic() + 5
    while not client.statuses and time.monotonic() < deadline:
        time.sleep(0.01)
    assert driver.get("demo", "web", pending.version).status is rel.Status.PENDING_INSTALL
    assert _release_status(client)["status"] == "pending-install"
    driver.update(pending.with_status(rel.Status.FAILED, "boom"))
    assert client.secrets == ["create pending-install", "replace failed"]
    assert client.statuses == ["pending-install", "failed"]


def test_another_write_inside_the_grace_writes_the_pending_version_first():
    """An upgrade faster than the grace supersedes the old version: the new one's pending
    Secret is created then (the history never lacks it while the old one is superseded)."""
    client, driver = _claimed(announce_after_s=30)
    first = make_version()
    driver.create(first)
    second = make_version(status=rel.Status.PENDING_UPGRADE)
    driver.create(second)
    assert [v.version for v in driver.history("demo", "web")] == [first.version]
    driver.update(first.with_status(rel.Status.SUPERSEDED))
    assert [(v.version, v.status) for v in driver.history("demo", "web")] == [
        (first.version, rel.Status.SUPERSEDED), (second.version, rel.Status.PENDING_UPGRADE)]
    driver.update(second.with_status(rel.Status.DEPLOYED))
    assert client.secrets == ["create deployed", "create pending-upgrade", "replace superseded",
                              "replace deployed"]
    assert _release_status(client)["status"] == "deployed"


def test_a_process_dying_inside_the_grace_of_a_claimed_release_leaves_no_version():
    """Nothing to recover: the next install (under the lock) finds no history and installs,
    adopting the objects the dead one applied (they carry the release's ownership)."""
    from helm_core.storage import driver as drv

    client, dead = _claimed(announce_after_s=30)
    dead.create(make_version(status=rel.Status.PENDING_INSTALL))
    fresh = secrets.SecretsDriver(client)
    assert drv.recover(fresh, fresh.history("demo", "web")) == ([], [])
    assert "status" not in _release_status(client)


class ListingClient(fake.FakeClient):
    """Counts LISTs."""

    def __init__(self, cluster: fake.FakeCluster) -> None:
        super().__init__(cluster)
        self.lists = 0

    def list(self, *args, **kwargs):
        self.lists += 1
        return super().list(*args, **kwargs)


def test_a_release_its_claim_created_under_the_lock_has_no_history_to_list():
    client = ListingClient(fake.FakeCluster())
    driver = secrets.SecretsDriver(client)
    driver.claim("demo", "web", annotation="helm.sh/helmrequest", claimant="demo/web", new=True)
    assert (driver.history("demo", "web"), client.lists) == ([], 0)
    version = make_version()
    driver.create(version)
    assert [v.version for v in driver.history("demo", "web")] == [version.version]  # listed again
    assert client.lists == 1


def test_a_release_the_claim_found_is_listed():
    """Created meanwhile by someone else, or read (not ``new``): its versions are read."""
    client = ListingClient(fake.FakeCluster())
    first = secrets.SecretsDriver(client)
    first.claim("demo", "web", annotation="helm.sh/helmrequest", claimant="demo/web", new=True)
    first.create(make_version())
    for new in (True, False):
        driver = secrets.SecretsDriver(client)
        driver.claim("demo", "web", annotation="helm.sh/helmrequest", claimant="demo/web", new=new)
        client.lists = 0
        assert len(driver.history("demo", "web")) == 1 and client.lists == 1


def test_a_stale_release_object_found_at_the_deferred_result_write_owns_the_version():
    client, driver, current = _driver_remembering_a_stale_release(announce_after_s=30)
    version = make_version(status=rel.Status.PENDING_INSTALL)
    driver.create(version)
    driver.update(version.with_status(rel.Status.DEPLOYED))
    secret = client.get(kclient.ObjectRef("v1", "Secret", secrets.secret_name("web", version.version), "demo"))
    assert secret["metadata"]["ownerReferences"][0]["uid"] == current["metadata"]["uid"]
    assert driver.get("demo", "web", version.version).status is rel.Status.DEPLOYED
    assert client.get(RELEASE_REF)["status"]["status"] == "deployed"


def test_a_charts_kept_lua_is_stored_compressed_only_when_there_is_some():
    version = make_version(extensions='{"Chart.yaml": "e30="}')
    secret = secrets.encode(version)
    assert gzip.decompress(base64.b64decode(secret["data"]["extensions"])) == b'{"Chart.yaml": "e30="}'
    assert secrets.decode(secret) == version
    assert secrets.decode(secret, payloads=False).extensions == ""
    assert "extensions" not in secrets.encode(version.replace(extensions=""))["data"]


def test_the_release_status_keeps_long_descriptions_cut_and_the_secret_whole():
    """The status lists the newest version twice and ten in all: descriptions of up to ~1 MiB
    each (what a Secret holds) would make its write, after the Secret's, fail at etcd."""
    client = fake.FakeCluster().client()
    driver = secrets.SecretsDriver(client)
    long = "x" * 300_000
    versions = [make_version(version=rel.revision_version(n), description=long) for n in range(1, 4)]
    for version in versions:
        driver.create(version)
    status = client.get(kclient.ObjectRef(secrets.RELEASE_API_VERSION, "Release", "web", "demo"))["status"]
    cut = "x" * (secrets.STATUS_DESCRIPTION_MAX - 3) + "..."
    assert status["description"] == cut and [h["description"] for h in status["history"]] == [cut] * 3
    assert status == secrets.release_status(driver.history("demo", "web"))
    assert [v.description for v in driver.history("demo", "web")] == [long] * 3
    short = "y" * secrets.STATUS_DESCRIPTION_MAX
    assert secrets.release_status([versions[0].replace(description=short)])["description"] == short


def test_a_versions_times_are_stored_as_helm_stamps_them_and_older_ones_still_read(local_tz, monkeypatch):
    """RFC 3339 with nanoseconds in the offset they were taken in (``rel.now``, Go's
    ``time.Now()``), so they print as helm prints its own; versions stored before kept UTC to the
    second, and read as such. The ``Release`` status keeps Kubernetes' UTC seconds."""
    local_tz("Asia/Kolkata")
    monkeypatch.setattr(time, "time_ns", lambda: 1_795_000_000_123_456_789)
    stamp = rel.now()
    version = make_version(first_deployed=stamp, last_deployed=stamp, hook_runs=(
        rel.HookRun("Job", "setup", rel.HookPhase.SUCCEEDED, started=stamp, completed=stamp),))
    secret = secrets.encode(version)
    data = {key: base64.b64decode(value) for key, value in secret["data"].items()}
    assert data["lastDeployed"] == data["firstDeployed"] == b"2026-11-18T16:36:40.123456789+05:30"
    assert data["deleted"] == b""
    assert json.loads(data["hookRuns"])[0]["startedAt"] == "2026-11-18T16:36:40.123456789+05:30"
    read = secrets.decode(secret)
    assert read == version and secrets.encode(read)["data"] == secret["data"]  # nanoseconds kept
    assert secrets.release_status([version])["lastDeployed"] == "2026-11-18T11:06:40Z"

    secret["data"]["lastDeployed"] = base64.b64encode(b"2026-11-23T12:00:00Z").decode()
    assert secrets.decode(secret).last_deployed == T0


class DiscoveryCountingClient(fake.FakeClient):
    """Counts discovery reads that go to the server (``refresh``)."""

    def __init__(self, cluster: fake.FakeCluster) -> None:
        super().__init__(cluster)
        self.refreshes = 0

    def discover(self, *, refresh: bool = False) -> kclient.Discovery:
        self.refreshes += refresh
        return super().discover(refresh=refresh)


def test_without_the_release_crd_discovery_is_read_again_once_per_window(monkeypatch):
    cluster = fake.FakeCluster(resources=tuple(r for r in fake.FAKE_RESOURCES if r.kind != "Release"))
    client = DiscoveryCountingClient(cluster)
    driver = secrets.SecretsDriver(client)
    now = [1000.0]
    monkeypatch.setattr(secrets.time, "monotonic", lambda: now[0])
    for name in ("a", "b", "c"):  # a command reading several releases helm made
        assert driver.owner_reference("demo", name) is None
        assert driver.claimant("demo", name, annotation="x") is None
    assert client.refreshes == 1
    now[0] += secrets.RELEASES_RECHECK_S  # the CRD may have been installed since: read again
    assert driver.claimant("demo", "a", annotation="x") is None
    assert client.refreshes == 2
