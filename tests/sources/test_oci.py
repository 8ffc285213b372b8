"""OCI registries against the real distribution registry, cross-checked with the reference helm."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from helm_core import errors
from helm_core.cli import main as cli_main
from helm_core.sources import ChartRef, Credentials, cache as cache_mod, oci, resolve
from tests.sources import servers
from tests.sources.conftest import chart_tgz


def push(registry: servers.Registry, cache: cache_mod.Cache, name: str, version: str,
         creds: Credentials = Credentials(), plain_http: bool = True) -> str:
    data = chart_tgz(name, version)
    ref = oci.Reference(registry.host, f"charts/{name}", oci.version_to_tag(version))
    with oci.Registry(registry.host, credentials=creds, cache=cache, plain_http=plain_http) as client:
        return client.push(ref, data, {"name": name, "version": version, "apiVersion": "v2"}, annotations={})


@pytest.mark.parametrize("reference, expected", [
    ("oci://h:5000/a/b/chart", oci.Reference("h:5000", "a/b/chart")),
    ("oci://h/chart:1.0.0", oci.Reference("h", "chart", "1.0.0")),
    ("oci://h/c@sha256:" + "a" * 64, oci.Reference("h", "c", "", "sha256:" + "a" * 64)),
], ids=["path", "tag", "digest"])
def test_reference_parse(reference: str, expected: oci.Reference) -> None:
    assert oci.Reference.parse(reference) == expected
    assert str(expected) == reference


@pytest.mark.parametrize("reference, message", [
    ("https://h/c", "https://h/c: not an OCI reference (must start with oci://)"),
    ("oci://h", "oci://h: invalid OCI reference (want oci://host/path/chart)"),
    ("oci://h/c@sha256:12", "oci://h/c@sha256:12: invalid digest 'sha256:12' (want sha256:<64 hex>)"),
], ids=["scheme", "no-path", "bad-digest"])
def test_reference_parse_errors(reference: str, message: str) -> None:
    with pytest.raises(errors.SourceError) as info:
        oci.Reference.parse(reference)
    assert str(info.value) == message


@pytest.mark.parametrize("version, expected", [
    ("", "1.3.0_build.1"), ("1.0.0", "1.0.0"), ("<1.3", "1.2.0"), ("~1.0.0", "1.0.0"),
    ("1.3.0+build.1", "1.3.0_build.1"), (">1.2.0-0", "1.4.0-rc.1"),
], ids=["latest-stable", "exact", "range", "tilde", "plus-as-underscore", "prerelease-asked"])
def test_select_tag(version: str, expected: str) -> None:
    tags = ["1.0.0", "1.2.0", "1.3.0_build.1", "latest", "1.4.0-rc.1"]
    assert oci.select_tag(tags, version, where="r") == expected


def test_push_then_pull_range_and_digest(registry: servers.Registry, cache: cache_mod.Cache) -> None:
    for version in ("1.0.0", "1.1.0", "2.0.0"):
        push(registry, cache, "demo", version)
    base = f"oci://{registry.host}/charts/demo"
    got = resolve(ChartRef(kind="oci", url=base, version="^1.0", plain_http=True), Credentials(), cache)
    assert (got.name, got.version, got.source) == ("demo", "1.1.0", f"{base}:1.1.0")
    assert got.data == chart_tgz("demo", "1.1.0")
    with oci.Registry(registry.host, cache=cache, plain_http=True) as client:
        pulled = client.pull(oci.Reference.parse(base + ":2.0.0"))
    pinned = resolve(ChartRef(kind="oci", url=f"{base}@{pulled.manifest_digest}", plain_http=True),
                     Credentials(), cache_mod.Cache(cache.root.parent / "c2"))
    assert pinned.version == "2.0.0"


def test_unknown_chart_and_no_matching_tag(registry: servers.Registry, cache: cache_mod.Cache) -> None:
    push(registry, cache, "demo", "1.0.0")
    base = f"oci://{registry.host}/charts"
    with pytest.raises(errors.ChartNotFoundError) as info:
        resolve(ChartRef(kind="oci", url=f"{base}/nope", version="1.0.0", plain_http=True), Credentials(), cache)
    assert str(info.value) == f"{base}/nope: not found in registry {registry.host}"
    with pytest.raises(errors.NoMatchingVersionError) as info2:
        resolve(ChartRef(kind="oci", url=f"{base}/demo", version="^5", plain_http=True), Credentials(), cache)
    assert str(info2.value) == f"{base}/demo: no tag matching version '^5'"


def test_digest_pin_mismatch(registry: servers.Registry, cache: cache_mod.Cache) -> None:
    push(registry, cache, "demo", "1.0.0")
    with oci.Registry(registry.host, cache=cache, plain_http=True) as client:
        other = push(registry, cache, "other", "1.0.0")
        with pytest.raises(errors.ChartNotFoundError):
            client.pull(oci.Reference.parse(f"oci://{registry.host}/charts/demo@{other}"))
    wrong = "sha256:" + "0" * 64
    with pytest.raises(errors.DigestMismatchError) as info:
        resolve(ChartRef(kind="oci", url=f"oci://{registry.host}/charts/demo", version="1.0.0",
                         plain_http=True, digest=wrong), Credentials(), cache)
    assert "digest mismatch: got sha256:" in str(info.value)
    assert str(info.value).endswith(", pinned " + wrong)
    # the pin may name the manifest (what `helm push` prints) or the chart archive
    manifest = push(registry, cache, "demo", "1.0.0")
    for pin in (manifest, resolve(ChartRef(kind="oci", url=f"oci://{registry.host}/charts/demo",
                                           version="1.0.0", plain_http=True), Credentials(), cache).digest):
        got = resolve(ChartRef(kind="oci", url=f"oci://{registry.host}/charts/demo", version="1.0.0",
                               plain_http=True, digest=pin), Credentials(), cache)
        assert got.version == "1.0.0"


def test_cached_layer_is_not_downloaded_again(registry: servers.Registry, cache: cache_mod.Cache,
                                               tmp_path: Path) -> None:
    push(registry, cache, "demo", "1.0.0")
    ref = ChartRef(kind="oci", url=f"oci://{registry.host}/charts/demo", version="1.0.0", plain_http=True)
    fresh = cache_mod.Cache(tmp_path / "fresh")
    first = resolve(ref, Credentials(), fresh)
    assert fresh.has(first.digest)
    registry.stop()
    with pytest.raises(errors.RegistryUnavailableError) as info:
        resolve(ref, Credentials(), fresh)
    assert str(info.value).startswith(f"oci://{registry.host}/charts/demo: cannot reach registry {registry.host}")
    registry.start()  # same port: recovered
    assert resolve(ref, Credentials(), fresh) == first


def test_plain_http_only_when_asked(registry: servers.Registry, cache: cache_mod.Cache) -> None:
    push(registry, cache, "demo", "1.0.0")
    with pytest.raises(errors.RegistryUnavailableError):
        resolve(ChartRef(kind="oci", url=f"oci://{registry.host}/charts/demo", version="1.0.0"), Credentials(), cache)


@pytest.fixture
def secure_registry(registry_binary: str, tmp_path: Path, pki: servers.Pki):  # type: ignore[no-untyped-def]
    reg = servers.Registry(binary=registry_binary, folder=tmp_path / "secure", username="alice",
                           password="wonderland", tls=pki).start()
    yield reg
    reg.stop()


def test_htpasswd_and_tls(secure_registry: servers.Registry, cache: cache_mod.Cache, pki: servers.Pki) -> None:
    creds = Credentials(username="alice", password="wonderland", ca_pem=pki.ca_pem)
    push(secure_registry, cache, "demo", "1.0.0", creds, plain_http=False)
    got = resolve(ChartRef(kind="oci", url=f"oci://{secure_registry.host}/charts/demo", version="1.0.0"), creds, cache)
    assert got.version == "1.0.0"
    wrong = Credentials(username="alice", password="nope", ca_pem=pki.ca_pem)
    with pytest.raises(errors.AuthError) as info:
        resolve(ChartRef(kind="oci", url=f"oci://{secure_registry.host}/charts/demo", version="^1"), wrong, cache)
    assert str(info.value) == (f"oci://{secure_registry.host}/charts/demo: registry {secure_registry.host} "
                               "refused the request (401: missing or wrong credentials)")


def test_hostile_layer_refused(registry: servers.Registry, cache: cache_mod.Cache, tmp_path: Path) -> None:
    from tests import chartkit
    hostile = chartkit.make_tgz([
        chartkit.tar_entry("demo/Chart.yaml", chartkit.chart_yaml("demo", "1.0.0").encode()),
        chartkit.tar_entry("demo/../../etc/evil", b"x"),  # "/etc/evil" is etc/evil to Helm
    ])
    ref = oci.Reference(registry.host, "charts/demo", "1.0.0")
    with oci.Registry(registry.host, cache=cache, plain_http=True) as client:
        client.push(ref, hostile, {"name": "demo", "version": "1.0.0"}, annotations={})
    fresh = cache_mod.Cache(tmp_path / "fresh")
    with pytest.raises(errors.ArchiveError):
        resolve(ChartRef(kind="oci", url=str(ref), plain_http=True), Credentials(), fresh)
    assert not fresh.has("sha256:" + cache_mod.sha256_hex(hostile))


class TestReferenceHelm:
    def test_helm_push_ours_pull(self, registry: servers.Registry, cache: cache_mod.Cache, helm_binary: str,
                                 tmp_path: Path) -> None:
        tgz = tmp_path / "demo-1.2.3.tgz"
        tgz.write_bytes(chart_tgz("demo", "1.2.3"))
        subprocess.run([helm_binary, "push", str(tgz), f"oci://{registry.host}/charts", "--plain-http"],
                       check=True, capture_output=True, env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
        got = resolve(ChartRef(kind="oci", url=f"oci://{registry.host}/charts/demo", version="~1.2",
                               plain_http=True), Credentials(), cache)
        assert got.data == tgz.read_bytes()

    def test_ours_push_helm_pull(self, registry: servers.Registry, helm_binary: str, tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
        tgz = tmp_path / "demo-0.3.0.tgz"
        tgz.write_bytes(chart_tgz("demo", "0.3.0", description="hello"))
        assert cli_main(["push", str(tgz), f"oci://{registry.host}/charts", "--plain-http",
                         "--cache-dir", str(tmp_path / "c")]) == 0
        out = capsys.readouterr().out.splitlines()
        assert out[0] == f"Pushed: {registry.host}/charts/demo:0.3.0"
        dest = tmp_path / "out"
        dest.mkdir()
        helm_out = subprocess.run([helm_binary, "pull", f"oci://{registry.host}/charts/demo", "--version", "0.3.0",
                                   "--plain-http", "-d", str(dest)], check=True, capture_output=True, text=True,
                                  env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
        assert (dest / "demo-0.3.0.tgz").read_bytes() == tgz.read_bytes()
        (tmp_path / "ours").mkdir()  # helm's pull writes into a folder that exists
        assert cli_main(["pull", f"oci://{registry.host}/charts/demo", "--version", "0.3.0", "--plain-http",
                         "-d", str(tmp_path / "ours"), "--cache-dir", str(tmp_path / "c")]) == 0
        ours = capsys.readouterr().out
        assert ours.splitlines() == (helm_out.stdout + helm_out.stderr).strip().splitlines()
        shown = subprocess.run([helm_binary, "show", "chart", f"oci://{registry.host}/charts/demo",
                                "--version", "0.3.0", "--plain-http"], check=True, capture_output=True, text=True,
                               env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}).stdout
        assert "description: hello" in shown

    def test_htpasswd_tls_helm_login_and_pull(self, secure_registry: servers.Registry, helm_binary: str,
                                              tmp_path: Path, pki: servers.Pki) -> None:
        ca = tmp_path / "ca.pem"
        ca.write_bytes(pki.ca_pem)
        tgz = tmp_path / "demo-1.0.0.tgz"
        tgz.write_bytes(chart_tgz("demo", "1.0.0"))
        assert cli_main(["push", str(tgz), f"oci://{secure_registry.host}/charts", "--username", "alice",
                         "--password", "wonderland", "--ca-file", str(ca), "--cache-dir", str(tmp_path / "c")]) == 0
        env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
        (tmp_path / "out").mkdir()
        subprocess.run([helm_binary, "pull", f"oci://{secure_registry.host}/charts/demo", "--version", "1.0.0",
                        "--username", "alice", "--password", "wonderland", "--ca-file", str(ca),
                        "-d", str(tmp_path / "out")], check=True, capture_output=True, env=env)
        assert (tmp_path / "out" / "demo-1.0.0.tgz").read_bytes() == tgz.read_bytes()
        shown = subprocess.run(
            [helm_binary, "show", "chart", f"oci://{secure_registry.host}/charts/demo", "--version", "1.0.0",
             "--username", "alice", "--password", "wonderland", "--ca-file", str(ca)],
            check=True, capture_output=True, text=True, env=env).stdout
        assert "name: demo" in shown


@pytest.fixture
def token_registry(registry_binary: str, tmp_path: Path, pki: servers.Pki):  # type: ignore[no-untyped-def]
    tokens = servers.TokenServer(pki=pki, username="bob", password="builder").start()
    reg = servers.Registry(binary=registry_binary, folder=tmp_path / "token-reg", token=tokens).start()
    yield reg
    reg.stop()
    tokens.stop()


def test_token_auth_flow(token_registry: servers.Registry, cache: cache_mod.Cache, helm_binary: str,
                         tmp_path: Path) -> None:
    creds = Credentials(username="bob", password="builder")
    push(token_registry, cache, "demo", "1.0.0", creds)
    assert token_registry.token is not None
    scopes = {(s.rsplit(":", 1)[0], frozenset(s.rsplit(":", 1)[1].split(","))) for s in token_registry.token.issued}
    assert ("repository:charts/demo", frozenset({"pull", "push"})) in scopes  # order varies by registry
    got = resolve(ChartRef(kind="oci", url=f"oci://{token_registry.host}/charts/demo", version="^1",
                           plain_http=True), creds, cache_mod.Cache(tmp_path / "fresh"))
    assert got.version == "1.0.0"
    with pytest.raises(errors.AuthError) as info:
        resolve(ChartRef(kind="oci", url=f"oci://{token_registry.host}/charts/demo", version="1.0.0",
                         plain_http=True), Credentials(username="bob", password="bad"), cache_mod.Cache(tmp_path / "f2"))
    assert str(info.value) == (f"https://{token_registry.host}".replace("https", "http") +
                               f": token service {token_registry.token.realm} refused the credentials (401)")
    with pytest.raises(errors.AuthError):
        resolve(ChartRef(kind="oci", url=f"oci://{token_registry.host}/charts/demo", version="1.0.0",
                         plain_http=True), Credentials(), cache_mod.Cache(tmp_path / "f3"))
    # the reference helm runs the same flow against what we pushed
    (tmp_path / "out").mkdir()
    subprocess.run([helm_binary, "pull", f"oci://{token_registry.host}/charts/demo", "--version", "1.0.0",
                    "--plain-http", "--username", "bob", "--password", "builder", "-d", str(tmp_path / "out")],
                   check=True, capture_output=True, env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert (tmp_path / "out" / "demo-1.0.0.tgz").read_bytes() == got.data


def test_build_metadata_versions_use_underscore_tags(registry: servers.Registry, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    tgz = tmp_path / "demo-1.0.0+build.7.tgz"
    tgz.write_bytes(chart_tgz("demo", "1.0.0+build.7"))
    assert cli_main(["push", str(tgz), f"oci://{registry.host}/charts", "--plain-http",
                     "--cache-dir", str(tmp_path / "c")]) == 0
    assert capsys.readouterr().out.splitlines()[0] == f"Pushed: {registry.host}/charts/demo:1.0.0_build.7"
    got = resolve(ChartRef(kind="oci", url=f"oci://{registry.host}/charts/demo", version="1.0.0+build.7",
                           plain_http=True), Credentials(), cache_mod.Cache(tmp_path / "c2"))
    assert got.version == "1.0.0+build.7"
    assert got.source == f"oci://{registry.host}/charts/demo:1.0.0_build.7"
