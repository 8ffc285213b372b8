"""Helm's release format (storage/helmsecrets.py) and the packaged Release CRD (storage/crd.py),
on the fake cluster. Real helm reading and writing them: e2e/test_helm_interop.py."""
from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path

import pytest

from helm_core.errors import ReleaseExistsError, ReleaseNotFoundError, StorageError
from helm_core.kube import client as kclient
from helm_core.kube import fake
from helm_core.storage import crd, helmsecrets
from helm_core.storage import release as rel
from tests.storage.conftest import make_version

ROOT = Path(__file__).resolve().parents[2]

HOOK = ("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: web-migrate\n  annotations:\n"
        '    "helm.sh/hook": pre-upgrade,pre-install\n    "helm.sh/hook-weight": "5"\n'
        '    "helm.sh/hook-delete-policy": hook-succeeded')


def helm_record(revision: int, status: str = "deployed", **changes) -> dict:
    """A release record as Go's helm writes it (nanosecond times, zero ``deleted``)."""
    record = {
        "name": "web", "namespace": "demo", "version": revision,
        "info": {"first_deployed": "2026-11-20T10:00:00.123456789+01:00",
                 "last_deployed": f"2026-11-2{revision}T10:00:00.5Z",
                 "deleted": "0001-01-01T00:00:00Z", "description": "Upgrade complete",
                 "status": status, "notes": "hello"},
        "chart": {"metadata": {"name": "nginx", "version": f"1.{revision}.0", "appVersion": "1.25",
                               "apiVersion": "v2"},
                  "lock": None, "templates": [{"name": "templates/cm.yaml", "data": "YQ=="}],
                  "values": {"replicas": 1, "image": {"tag": "1.25"}}, "schema": None, "files": []},
        "config": {"replicas": revision},
        "manifest": "---\n# Source: nginx/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\n"
                    "metadata:\n  name: web\n",
        "hooks": [{"name": "web-migrate", "kind": "Job", "path": "nginx/templates/job.yaml",
                   "manifest": HOOK, "events": ["pre-upgrade", "pre-install"],
                   "last_run": {"started_at": "", "completed_at": "", "phase": ""}, "weight": 5,
                   "delete_policies": ["hook-succeeded"]}],
    }
    record.update(changes)
    return record


def helm_secret(record: dict, *, compressed: bool = True) -> dict:
    raw = json.dumps(record).encode()
    inner = base64.b64encode(gzip.compress(raw) if compressed else raw)
    return {"apiVersion": "v1", "kind": "Secret", "type": "helm.sh/release.v1",
            "metadata": {"name": f"sh.helm.release.v1.web.v{record['version']}", "namespace": "demo",
                         "labels": {"name": "web", "owner": "helm", "status": record["info"]["status"],
                                    "version": str(record["version"]), "createdAt": "1700000000",
                                    "team": "a"}},
            "data": {"release": base64.b64encode(inner).decode()}}


@pytest.fixture
def cluster() -> fake.FakeCluster:
    return fake.FakeCluster()


def store_helm(cluster: fake.FakeCluster, *records: dict) -> None:
    client = cluster.client(field_manager="helm")
    for record in records:
        client.create(helm_secret(record))


def test_a_record_helm_wrote_reads_as_a_version(local_tz):
    local_tz("UTC")
    version = helmsecrets.decode(helm_secret(helm_record(2)))
    assert version.version == rel.revision_version(2) and rel.version_text(version.version) == "2"
    assert (version.name, version.namespace, version.status) == ("web", "demo", rel.Status.DEPLOYED)
    assert (version.chart, version.app_version) == ("nginx-1.2.0", "1.25")
    assert version.user_values == {"replicas": 2}
    assert version.chart_values == {"replicas": 2, "image": {"tag": "1.25"}}  # chart values under config
    assert version.hooks == f"---\n# Source: nginx/templates/job.yaml\n{HOOK}\n"
    # Go's times: their offsets and nanoseconds kept, written back as helm wrote them
    assert version.last_deployed.isoformat() == "2026-11-22T10:00:00.500000+00:00"
    assert version.first_deployed.isoformat() == "2026-11-20T10:00:00.123456+01:00"
    info = helmsecrets.to_helm(version)["info"]
    assert (info["first_deployed"], info["last_deployed"], info["deleted"]) == (
        "2026-11-20T10:00:00.123456789+01:00", "2026-11-22T10:00:00.5Z", "")  # helm's zero time: ""
    assert version.deleted is None and version.notes == "hello"


def test_uncompressed_records_are_read_like_helm_does():
    assert helmsecrets.decode(helm_secret(helm_record(1), compressed=False)).chart == "nginx-1.1.0"


def test_a_corrupt_record_is_named():
    secret = helm_secret(helm_record(1))
    secret["data"]["release"] = base64.b64encode(b"not base64 !").decode()
    with pytest.raises(StorageError, match='Secret "sh.helm.release.v1.web.v1" in namespace "demo" '
                                           "is not a valid Helm release"):
        helmsecrets.decode(secret)


def test_release_revision_continues_helms_numbering():
    history = [make_version(version=rel.revision_version(n)) for n in (7, 8)]  # 1-6 pruned
    assert rel.next_revision(history) == 9
    assert rel.next_revision([make_version(), make_version()]) == 3
    assert rel.next_revision([]) == 1
    # a version that recorded its revision counts on from it, whatever was pruned before it
    assert rel.next_revision([make_version(), make_version().replace(revision=7)]) == 8


def test_encoding_is_helms_layout_and_round_trips():
    version = make_version(version=rel.revision_version(4), hooks=f"---\n# Source: nginx/templates/job.yaml\n{HOOK}\n")
    secret = helmsecrets.encode(version)
    assert secret["metadata"]["name"] == "sh.helm.release.v1.web.v4"
    assert secret["type"] == "helm.sh/release.v1"
    labels = secret["metadata"]["labels"]
    assert {k: labels[k] for k in ("name", "owner", "status", "version")} == {
        "name": "web", "owner": "helm", "status": "deployed", "version": "4"}
    assert labels["createdAt"].isdigit()
    record = json.loads(gzip.decompress(base64.b64decode(base64.b64decode(secret["data"]["release"]))))
    assert record["version"] == 4 and record["config"] == dict(version.user_values)
    assert record["info"]["deleted"] == ""  # as helm's pkg/time writes its zero time
    assert record["chart"]["metadata"] == {"name": "nginx", "version": "1.2.3", "appVersion": "1.25.0",
                                           "apiVersion": "v2"}
    assert record["hooks"][0]["events"] == ["pre-upgrade", "pre-install"]
    assert (record["hooks"][0]["weight"], record["hooks"][0]["path"]) == (5, "nginx/templates/job.yaml")
    assert helmsecrets.decode(secret) == version


def test_a_ulid_version_cannot_be_kept_in_helms_format():
    with pytest.raises(StorageError, match="is not a Helm revision"):
        helmsecrets.encode(make_version())


def test_helm_driver_counts_revisions_and_keeps_foreign_labels(cluster):
    driver = helmsecrets.HelmSecretsDriver(cluster.client())
    assert driver.next_version(None) == rel.revision_version(1)
    store_helm(cluster, helm_record(1, "superseded"), helm_record(2))
    history = driver.history("demo", "web")
    assert [rel.revision_of(v.version) for v in history] == [1, 2]
    assert driver.next_version(history[-1].version) == rel.revision_version(3)
    driver.update(history[-1].with_status(rel.Status.SUPERSEDED))
    stored = cluster.objects[kclient.ObjectRef("v1", "Secret", "sh.helm.release.v1.web.v2", "demo")]
    assert stored["metadata"]["labels"]["team"] == "a"  # helm keeps custom labels; so do we
    assert stored["metadata"]["labels"]["status"] == "superseded" and "modifiedAt" in stored["metadata"]["labels"]
    with pytest.raises(ReleaseExistsError):
        driver.create(history[0])
    assert driver.delete("demo", "web", history[0].version) == history[0]
    with pytest.raises(ReleaseNotFoundError):
        driver.get("demo", "web", history[0].version)
    assert [v.name for v in driver.list_latest("demo")] == ["web"]


def test_an_update_after_the_drivers_own_write_reads_nothing_and_one_after_another_write_reads_it(cluster):
    reads: list[str] = []

    class Counting(fake.FakeClient):
        def get(self, ref):
            reads.append(ref.name)
            return super().get(ref)

    driver = helmsecrets.HelmSecretsDriver(Counting(cluster))
    version = make_version(version=rel.revision_version(1), status=rel.Status.PENDING_INSTALL)
    driver.create(version)
    driver.update(version.with_status(rel.Status.DEPLOYED))
    assert reads == []  # the resourceVersion of its own write is the precondition
    ref = kclient.ObjectRef("v1", "Secret", "sh.helm.release.v1.web.v1", "demo")
    other = cluster.client()
    marked = other.get(ref)
    marked["metadata"]["labels"][helmsecrets.ADOPTED_LABEL] = "true"  # someone else wrote it
    other.replace(marked)
    driver.update(version.with_status(rel.Status.SUPERSEDED))
    assert reads == [ref.name]
    labels = cluster.objects[ref]["metadata"]["labels"]
    assert labels["status"] == "superseded" and labels[helmsecrets.ADOPTED_LABEL] == "true"


def test_packaged_release_crd_is_the_one_in_manifests():
    packaged = ROOT / "helm_core" / "storage" / "crds" / "release.yaml"
    assert packaged.read_bytes() == (ROOT / "manifests" / "crds" / "release.yaml").read_bytes()
    assert crd.definition()["metadata"]["name"] == crd.CRD_NAME


def test_a_charts_kept_lua_rides_beside_helms_record():
    """helm reads ``data.release`` only; the chart's kept Lua is a key of its own, gzip'd."""
    version = make_version(version=rel.revision_version(2), extensions='{"Chart.yaml": "e30="}')
    secret = helmsecrets.encode(version)
    assert sorted(secret["data"]) == ["extensions", "release"]
    assert gzip.decompress(base64.b64decode(secret["data"]["extensions"])) == b'{"Chart.yaml": "e30="}'
    assert helmsecrets.decode(secret) == version
    assert "extensions" not in helmsecrets.encode(version.replace(extensions=""))["data"]


def test_a_record_helm_wrote_keeps_its_chart_values_and_computes_as_helm():
    """The record's chart values (the chart's defaults) come back as they were, so a status
    change written by helm-core leaves helm's record as helm wrote it; the computed values are
    helm's ``CoalesceValues`` of the record, numbers as Go reads JSON (float64), quietly."""
    from helm_core.action import get
    from helm_core.support import helmlog

    record = helm_record(2, chart={**helm_record(2)["chart"], "values": {"replicas": 1, "image": {"tag": "1.25"},
                                                                         "big": 1000000}},
                         config={"image": {"tag": {"pinned": True}}})
    with helmlog.recording() as said:
        version = helmsecrets.decode(helm_secret(record))
    assert said == []
    assert version.helm_chart_values == {"replicas": 1, "image": {"tag": "1.25"}, "big": 1000000}
    assert helmsecrets.to_helm(version.with_status(rel.Status.SUPERSEDED))["chart"]["values"] == (
        version.helm_chart_values)
    assert [type(version.chart_values[key]) for key in ("replicas", "big")] == [float, float]
    with helmlog.recording() as said:
        assert get.computed_values(version) == version.chart_values
    assert said == ["coalesce.go:319: warning: destination for nginx.image.tag is a table. Ignoring non-table "
                    "value (1.25)"]
