"""Packaged charts from a ConfigMap ``binaryData`` / Secret key (bytes handed in by the caller)."""
from __future__ import annotations

import base64

import pytest

from helm_core import errors
from helm_core.sources import ChartRef, Credentials, cache as cache_mod, packaged, resolve
from helm_core.sources import package as package_mod
from tests import chartkit
from tests.sources.conftest import chart_tgz


def test_resolve_packaged_chart(cache: cache_mod.Cache) -> None:
    data = chart_tgz("demo", "3.1.4")
    got = resolve(ChartRef(kind="packaged", data=data, description="configmap/ns/charts[demo.tgz]"),
                  Credentials(), cache)
    assert (got.name, got.version, got.source) == ("demo", "3.1.4", "configmap/ns/charts[demo.tgz]")
    assert got.digest == "sha256:" + cache_mod.sha256_hex(data)
    assert cache.get(got.digest) == data


def test_packaged_digest_pin(cache: cache_mod.Cache) -> None:
    pin = "sha256:" + "1" * 64
    with pytest.raises(errors.DigestMismatchError) as info:
        resolve(ChartRef(kind="packaged", data=chart_tgz(), description="secret/ns/s[c]", digest=pin),
                Credentials(), cache)
    assert str(info.value) == (f"secret/ns/s[c]: digest mismatch: got "
                               f"sha256:{cache_mod.sha256_hex(chart_tgz())}, pinned {pin}")


def test_hostile_packaged_chart_refused(cache: cache_mod.Cache) -> None:
    hostile = chartkit.make_tgz([
        chartkit.tar_entry("demo/Chart.yaml", chartkit.chart_yaml().encode()),
        chartkit.tar_entry("demo/../../etc/cron.d/x", b"owned"),
    ])
    with pytest.raises(errors.ArchiveError):
        resolve(ChartRef(kind="packaged", data=hostile, description="configmap/ns/c[x]"), Credentials(), cache)
    assert not cache.has("sha256:" + cache_mod.sha256_hex(hostile))


def test_an_archive_that_loaded_is_not_loaded_again_a_failing_one_is(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A controller reads the same chart for every request naming its ConfigMap: its name and
    version are kept by digest; an archive that failed to load is loaded (and refused) again."""
    from helm_core.chart import loader

    loads: list[str] = []
    real = loader.load_archive_metadata
    monkeypatch.setattr(loader, "load_archive_metadata",
                        lambda data, **kw: loads.append(kw["source"]) or real(data, **kw))
    data = chart_tgz("kept", "1.2.3")
    first = packaged.load(data, source="configmap/ns/a[c.tgz]")
    again = packaged.load(bytes(data), source="configmap/other/b[c.tgz]")
    assert (again.name, again.version, again.digest) == (first.name, first.version, first.digest) == (
        "kept", "1.2.3", "sha256:" + cache_mod.sha256_hex(data))
    assert loads == ["configmap/ns/a[c.tgz]"]
    broken = b"not a chart"
    for _ in range(2):
        with pytest.raises(errors.ArchiveError):
            packaged.load(broken, source="configmap/ns/x[c.tgz]")
    assert loads[1:] == ["configmap/ns/x[c.tgz]"] * 2


def test_only_chart_yaml_is_decoded_in_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Values, schemas and templates come from strangers: the controller names a packaged chart
    by its Chart.yaml and leaves the rest to its render workers (docs/limits.md)."""
    from helm_core.chart import loader

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("the whole chart was loaded in this process")

    monkeypatch.setattr(loader, "load_files", refused)
    data = package_mod.archive_bytes("named", [
        ("Chart.yaml", chartkit.chart_yaml("named", "2.0.0").encode()),
        ("values.yaml", b"a: *unknown-alias\n")])  # refused by a whole load, not read here
    got = packaged.load(data, source="configmap/ns/n[c.tgz]")
    assert (got.name, got.version) == ("named", "2.0.0")
    with pytest.raises(errors.ChartError, match="Chart.yaml file is missing"):
        packaged.load(package_mod.archive_bytes("x", [("values.yaml", b"a: 1\n")]), source="configmap/ns/x[c.tgz]")


def test_secret_data_is_decoded_and_key_picked() -> None:
    data = chart_tgz()
    decoded = packaged.from_secret_data({"chart.tgz": base64.b64encode(data).decode(), "note": "aGk="})
    assert packaged.pick_key(decoded, "", source="secret/ns/s") == data
    assert packaged.pick_key(decoded, "note", source="secret/ns/s") == b"hi"


@pytest.mark.parametrize("data, key, message", [
    ({"a.tgz": b"", "b.tgz": b""}, "", "secret/ns/s: name the key holding the chart (2 .tgz keys found)"),
    ({"a.tgz": b""}, "zzz", "secret/ns/s: no key 'zzz' (keys: a.tgz)"),
], ids=["ambiguous", "missing-key"])
def test_pick_key_errors(data: dict[str, bytes], key: str, message: str) -> None:
    with pytest.raises(errors.SourceError) as info:
        packaged.pick_key(data, key, source="secret/ns/s")
    assert str(info.value) == message


def test_invalid_base64_is_refused() -> None:
    with pytest.raises(errors.SourceError) as info:
        packaged.from_secret_data({"c.tgz": "***"})
    assert str(info.value) == "key 'c.tgz' is not valid base64"


def test_unknown_kind() -> None:
    with pytest.raises(errors.SourceError) as info:
        resolve(ChartRef(kind="git"), Credentials(), cache_mod.Cache.__new__(cache_mod.Cache))
    assert str(info.value) == "unknown chart source kind 'git' (want one of repo, oci, packaged)"


def _cluster_with(kind: str, field: str, values: dict[str, bytes]):  # type: ignore[no-untyped-def]
    from helm_core.kube import fake
    client = fake.FakeCluster().client()
    client.create({"apiVersion": "v1", "kind": kind, "metadata": {"name": "charts", "namespace": "apps"},
                   field: {k: base64.b64encode(v).decode() for k, v in values.items()}})
    return client


@pytest.mark.parametrize("kind, field", [("ConfigMap", "binaryData"), ("Secret", "data")], ids=["configmap", "secret"])
def test_read_from_cluster(kind: str, field: str, cache: cache_mod.Cache) -> None:
    data = chart_tgz("demo", "1.0.0")
    client = _cluster_with(kind, field, {"demo-1.0.0.tgz": data})
    got, where = packaged.read_from_cluster(client, kind=kind, namespace="apps", name="charts")
    assert (got, where) == (data, f"{kind.lower()}/apps/charts[demo-1.0.0.tgz]")
    resolved = resolve(ChartRef(kind="packaged", data=got, description=where), Credentials(), cache)
    assert resolved.version == "1.0.0"


def test_read_from_cluster_missing_object_and_wrong_kind() -> None:
    from helm_core.kube import fake
    client = fake.FakeCluster().client()
    with pytest.raises(errors.NotFoundError):
        packaged.read_from_cluster(client, kind="Secret", namespace="apps", name="nope")
    with pytest.raises(errors.SourceError) as info:
        packaged.read_from_cluster(client, kind="Pod", namespace="apps", name="p")
    assert str(info.value) == "Pod/apps/p: packaged charts live in a ConfigMap or Secret"
