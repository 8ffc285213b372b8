"""HTTP(S) chart repositories against a real HTTP server on loopback."""
from __future__ import annotations

from pathlib import Path

import pytest

from helm_core import errors
from helm_core.sources import ChartRef, Credentials, cache as cache_mod, repo, resolve
from tests import chartkit
from tests.sources import servers
from tests.sources.conftest import chart_tgz

VERSIONS = ["1.0.0", "1.2.0", "1.2.5", "1.10.0", "2.0.0", "2.1.0-rc.1", "0.9.0"]


@pytest.fixture
def many(make_repo):  # type: ignore[no-untyped-def]
    return make_repo({("demo", v): chart_tgz("demo", v) for v in VERSIONS})


@pytest.mark.parametrize("asked, expected", [
    ("", "2.0.0"),
    ("1.2.0", "1.2.0"),
    ("^1.2", "1.10.0"),
    ("~1.2.0", "1.2.5"),
    (">=1.0 <2.0", "1.10.0"),
    ("1.x", "1.10.0"),
    ("<1.0.0", "0.9.0"),
    (">=2.1.0-0", "2.1.0-rc.1"),
    ("2.1.0-rc.1", "2.1.0-rc.1"),
], ids=["latest-stable", "exact", "caret", "tilde", "range", "x-range", "below", "prerelease-asked", "exact-prerelease"])
def test_resolve_picks_newest_match(many, cache, asked: str, expected: str) -> None:  # type: ignore[no-untyped-def]
    got = resolve(ChartRef(kind="repo", url=many.url, name="demo", version=asked), Credentials(), cache)
    assert got.version == expected
    assert got.name == "demo"
    assert got.data == chart_tgz("demo", expected)
    assert got.digest == "sha256:" + cache_mod.sha256_hex(got.data)


def test_devel_admits_prereleases_for_latest(many, cache) -> None:  # type: ignore[no-untyped-def]
    got = resolve(ChartRef(kind="repo", url=many.url, name="demo", devel=True), Credentials(), cache)
    assert got.version == "2.1.0-rc.1"


def test_unknown_chart_names_repository(many, cache) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(errors.ChartNotFoundError) as info:
        resolve(ChartRef(kind="repo", url=many.url, name="nope"), Credentials(), cache)
    assert str(info.value) == f'chart "nope" not found in {many.url} repository'


def test_no_matching_version_names_range(many, cache) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(errors.NoMatchingVersionError) as info:
        resolve(ChartRef(kind="repo", url=many.url, name="demo", version="^3.0"), Credentials(), cache)
    assert str(info.value) == f'chart "demo" version "^3.0" not found in {many.url} repository'


def test_invalid_version_constraint_is_a_plain_source_error(many, cache) -> None:  # type: ignore[no-untyped-def]
    # a typo in the spec is not "no version yet": it must not be retried as if a push could fix it
    with pytest.raises(errors.SourceError) as info:
        resolve(ChartRef(kind="repo", url=many.url, name="demo", version=">=1.0 <<2"), Credentials(), cache)
    assert not isinstance(info.value, errors.NoMatchingVersionError)
    assert str(info.value).startswith(f'chart "demo" in {many.url}: invalid version \'>=1.0 <<2\'')


def test_not_a_repository(tmp_path: Path, cache) -> None:  # type: ignore[no-untyped-def]
    server = servers.RepoServer(root=tmp_path).start()
    try:
        with pytest.raises(errors.SourceError) as info:
            resolve(ChartRef(kind="repo", url=server.url, name="demo"), Credentials(), cache)
        assert str(info.value) == (f"{server.url}: not a valid chart repository "
                                   f"(no {server.url}/index.yaml: 404 Not Found)")
    finally:
        server.stop()


def test_absolute_chart_urls_in_index(make_repo, cache) -> None:  # type: ignore[no-untyped-def]
    server = make_repo({("demo", "1.0.0"): chart_tgz("demo", "1.0.0")})
    # rewrite the index with absolute URLs pointing at the same server
    from helm_core.sources import index as index_mod
    index_mod.write_index(server.root, url=server.url + "/")
    got = resolve(ChartRef(kind="repo", url=server.url, name="demo"), Credentials(), cache)
    assert got.source == f"{server.url}/demo-1.0.0.tgz"


def test_unchanged_index_is_revalidated_and_chart_not_downloaded_twice(many, cache) -> None:  # type: ignore[no-untyped-def]
    ref = ChartRef(kind="repo", url=many.url, name="demo", version="1.2.0")
    first = resolve(ref, Credentials(), cache)
    second = resolve(ref, Credentials(), cache)
    assert first == second
    paths = [path for _, path, _ in many.requests]
    assert paths == ["/index.yaml", "/demo-1.2.0.tgz", "/index.yaml"]
    assert many.statuses == [200, 200, 304]


def test_changed_index_is_downloaded_again(many, cache) -> None:  # type: ignore[no-untyped-def]
    ref = ChartRef(kind="repo", url=many.url, name="demo")
    assert resolve(ref, Credentials(), cache).version == "2.0.0"
    (many.root / "demo-2.2.0.tgz").write_bytes(chart_tgz("demo", "2.2.0"))
    from helm_core.sources import index as index_mod
    index_mod.write_index(many.root)
    assert resolve(ref, Credentials(), cache).version == "2.2.0"


def test_digest_mismatch_is_refused_and_not_cached(many, cache) -> None:  # type: ignore[no-untyped-def]
    resolve(ChartRef(kind="repo", url=many.url, name="demo", version="1.0.0"), Credentials(), cache)  # warm index
    (many.root / "demo-1.0.0.tgz").write_bytes(chart_tgz("demo", "1.0.0", description="tampered"))
    ref = ChartRef(kind="repo", url=many.url, name="demo", version="1.0.0")
    fresh = cache_mod.Cache(cache.root.parent / "other-cache")
    with pytest.raises(errors.DigestMismatchError) as info:
        resolve(ref, Credentials(), fresh)
    tampered = cache_mod.sha256_hex(chart_tgz("demo", "1.0.0", description="tampered"))
    original = cache_mod.sha256_hex(chart_tgz("demo", "1.0.0"))
    assert str(info.value) == (f'chart "demo" version "1.0.0" from {many.url}/demo-1.0.0.tgz: digest '
                               f"mismatch: got sha256:{tampered}, the index says sha256:{original}")
    assert not fresh.has(tampered)


def test_hostile_archive_refused_nothing_written_outside_cache(make_repo, tmp_path: Path) -> None:
    hostile = chartkit.make_tgz([
        chartkit.tar_entry("demo/Chart.yaml", chartkit.chart_yaml("demo", "1.0.0").encode()),
        chartkit.tar_entry("demo/../../escape.txt", b"owned"),
    ])
    server = make_repo({("demo", "1.0.0"): chart_tgz("demo", "1.0.0")})
    (server.root / "demo-1.0.0.tgz").write_bytes(hostile)
    from helm_core.sources import index as index_mod
    doc = index_mod.index_directory(server.root)
    assert doc["entries"] == {}  # our indexer skips it; serve a hand-written index instead
    (server.root / "index.yaml").write_text(
        "apiVersion: v1\nentries:\n  demo:\n  - name: demo\n    version: 1.0.0\n    urls: [demo-1.0.0.tgz]\n")
    cache_root = tmp_path / "isolated" / "cache"
    before = sorted(p for p in tmp_path.rglob("*") if "isolated" not in p.parts)
    with pytest.raises(errors.ArchiveError) as info:
        resolve(ChartRef(kind="repo", url=server.url, name="demo"), Credentials(), cache_mod.Cache(cache_root))
    assert "escape.txt" in str(info.value)
    after = sorted(p for p in tmp_path.rglob("*") if "isolated" not in p.parts)
    assert before == after
    assert not list((cache_root / "blobs" / "sha256").iterdir()) or all(
        cache_mod.sha256_hex(p.read_bytes()) != cache_mod.sha256_hex(hostile)
        for p in (cache_root / "blobs" / "sha256").iterdir())


def test_repository_down_then_recovered(tmp_path: Path, cache) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "repo"
    root.mkdir()
    (root / "demo-1.0.0.tgz").write_bytes(chart_tgz("demo", "1.0.0"))
    from helm_core.sources import index as index_mod
    index_mod.write_index(root)
    port = servers.free_port()
    ref = ChartRef(kind="repo", url=f"http://127.0.0.1:{port}", name="demo")
    with pytest.raises(errors.RegistryUnavailableError) as info:
        resolve(ref, Credentials(), cache)
    assert str(info.value).startswith(f"http://127.0.0.1:{port}: cannot reach the repository "
                                      f"(http://127.0.0.1:{port}/index.yaml)")
    server = servers.RepoServer(root=root).start(port)
    try:
        assert resolve(ref, Credentials(), cache).version == "1.0.0"
    finally:
        server.stop()


class TestAuth:
    def test_basic_auth(self, make_repo, cache) -> None:  # type: ignore[no-untyped-def]
        server = make_repo({("demo", "1.0.0"): chart_tgz("demo", "1.0.0")}, username="u", password="p")
        got = resolve(ChartRef(kind="repo", url=server.url, name="demo"), Credentials(username="u", password="p"), cache)
        assert got.version == "1.0.0"

    @pytest.mark.parametrize("creds", [Credentials(), Credentials(username="u", password="wrong")],
                             ids=["none", "wrong"])
    def test_wrong_credentials_are_auth_errors(self, make_repo, cache, creds: Credentials) -> None:  # type: ignore[no-untyped-def]
        server = make_repo({("demo", "1.0.0"): chart_tgz("demo", "1.0.0")}, username="u", password="p")
        with pytest.raises(errors.AuthError) as info:
            resolve(ChartRef(kind="repo", url=server.url, name="demo"), creds, cache)
        assert str(info.value) == (f"{server.url}: 401 Unauthorized for {server.url}/index.yaml "
                                   "(missing or wrong credentials)")

    def test_bearer_token(self, make_repo, cache) -> None:  # type: ignore[no-untyped-def]
        server = make_repo({("demo", "1.0.0"): chart_tgz("demo", "1.0.0")}, token="s3cret")
        got = resolve(ChartRef(kind="repo", url=server.url, name="demo"), Credentials(token="s3cret"), cache)
        assert got.version == "1.0.0"
        assert {h for _, _, h in server.requests} == {"Bearer s3cret"}

    @pytest.mark.parametrize("pass_credentials, expected_header", [(False, ""), (True, "Basic dTpw")],
                             ids=["other-host-gets-nothing", "pass-credentials"])
    def test_credentials_stay_on_repository_host(self, make_repo, cache, pass_credentials: bool,
                                                 expected_header: str) -> None:  # type: ignore[no-untyped-def]
        charts = make_repo({("demo", "1.0.0"): chart_tgz("demo", "1.0.0")})
        index_host = make_repo({}, username="", password="")
        (index_host.root / "index.yaml").write_text(
            f"apiVersion: v1\nentries:\n  demo:\n  - name: demo\n    version: 1.0.0\n"
            f"    urls: [{charts.url}/demo-1.0.0.tgz]\n")
        creds = Credentials(username="u", password="p", pass_credentials=pass_credentials)
        resolve(ChartRef(kind="repo", url=index_host.url, name="demo"), creds, cache)
        assert index_host.requests[0][2] == "Basic dTpw"
        assert charts.requests == [("GET", "/demo-1.0.0.tgz", expected_header)]

    def test_tls_with_custom_ca(self, make_repo, cache, pki: servers.Pki) -> None:  # type: ignore[no-untyped-def]
        server = make_repo({("demo", "1.0.0"): chart_tgz("demo", "1.0.0")}, tls=pki, username="u", password="p")
        got = resolve(ChartRef(kind="repo", url=server.url, name="demo"),
                      Credentials(username="u", password="p", ca_pem=pki.ca_pem), cache)
        assert got.version == "1.0.0"

    def test_tls_unknown_ca_is_unavailable(self, make_repo, cache, pki: servers.Pki) -> None:  # type: ignore[no-untyped-def]
        server = make_repo({("demo", "1.0.0"): chart_tgz("demo", "1.0.0")}, tls=pki)
        with pytest.raises(errors.RegistryUnavailableError) as info:
            resolve(ChartRef(kind="repo", url=server.url, name="demo"), Credentials(), cache)
        assert "CERTIFICATE_VERIFY_FAILED" in str(info.value)

    def test_insecure_skip_verify(self, make_repo, cache, pki: servers.Pki) -> None:  # type: ignore[no-untyped-def]
        server = make_repo({("demo", "1.0.0"): chart_tgz("demo", "1.0.0")}, tls=pki)
        got = resolve(ChartRef(kind="repo", url=server.url, name="demo"), Credentials(insecure_skip_verify=True), cache)
        assert got.version == "1.0.0"

    def test_client_certificate(self, make_repo, cache, pki: servers.Pki) -> None:  # type: ignore[no-untyped-def]
        server = make_repo({("demo", "1.0.0"): chart_tgz("demo", "1.0.0")}, tls=pki, require_client_cert=True)
        with pytest.raises(errors.RegistryUnavailableError):
            resolve(ChartRef(kind="repo", url=server.url, name="demo"), Credentials(ca_pem=pki.ca_pem), cache)
        got = resolve(ChartRef(kind="repo", url=server.url, name="demo"),
                      Credentials(ca_pem=pki.ca_pem, cert_pem=pki.client_cert, key_pem=pki.client_key), cache)
        assert got.version == "1.0.0"


@pytest.mark.parametrize("chart_url, expected", [
    ("demo-1.0.0.tgz", "https://h.example/charts/demo-1.0.0.tgz"),
    ("sub/demo-1.0.0.tgz", "https://h.example/charts/sub/demo-1.0.0.tgz"),
    ("/abs/demo-1.0.0.tgz", "https://h.example/abs/demo-1.0.0.tgz"),
    ("https://cdn.example/demo-1.0.0.tgz", "https://cdn.example/demo-1.0.0.tgz"),
], ids=["relative", "relative-subdir", "root-relative", "absolute"])
def test_resolve_url(chart_url: str, expected: str) -> None:
    assert repo.resolve_url("https://h.example/charts/", chart_url) == expected


def test_parse_index_sorts_newest_first_unparsable_last() -> None:
    data = (b"apiVersion: v1\nentries:\n  a:\n  - {name: a, version: 1.0.0, urls: [x]}\n"
            b"  - {name: a, version: bogus, urls: [y]}\n  - {name: a, version: 1.10.0, urls: [z]}\n")
    index = repo.parse_index(data, url="u")
    assert [e.version for e in index.entries["a"]] == ["1.10.0", "1.0.0", "bogus"]


def test_parse_index_json() -> None:
    data = b'{"apiVersion": "v1", "entries": {"a": [{"name": "a", "version": "1.0.0", "urls": ["x"]}]}}'
    assert repo.parse_index(data, url="u").entries["a"][0].urls == ("x",)


def test_parse_index_without_api_version_is_refused() -> None:
    with pytest.raises(errors.SourceError) as info:
        repo.parse_index(b"entries: {}\n", url="https://r")
    assert str(info.value) == "https://r: index.yaml has no apiVersion (not a chart repository index)"


@pytest.mark.parametrize("text, expected", [
    ("a: 1\nb: [x, 'y', \"z\"]\n", {"a": "1", "b": ["x", "y", "z"]}),
    ("a: ~\nb: null\nc:\nd: 'null'\n", {"a": None, "b": None, "c": None, "d": "null"}),
    ("version: 1.10\nn: {k: v}\n", {"version": "1.10", "n": {"k": "v"}}),
    ("base: &b {x: 1}\nuse: *b\n", {"base": {"x": "1"}, "use": {"x": "1"}}),
    ("- a\n- [b, {c: d}]\n", ["a", ["b", {"c": "d"}]]),
    ("just text\n", "just text"),
], ids=["scalars-as-strings", "nulls", "version-stays-text", "anchors", "nested-seq", "scalar-doc"])
def test_load_yaml_strings(text: str, expected: object) -> None:
    assert repo.load_yaml_strings(text.encode()) == expected


def test_load_yaml_strings_undefined_alias_is_an_index_error() -> None:
    with pytest.raises(errors.SourceError) as info:
        repo.parse_index(b"apiVersion: v1\nentries: *nope\n", url="https://r")
    assert str(info.value).startswith("https://r: index.yaml is not valid YAML or JSON: found undefined alias")


def _resolve_in_child(url: str, root: str) -> None:
    got = resolve(ChartRef(kind="repo", url=url, name="demo", version="1.2.0"), Credentials(), cache_mod.Cache(root))
    assert got.version == "1.2.0"


def test_concurrent_processes_download_a_chart_once(many, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import multiprocessing
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_resolve_in_child, args=(many.url, str(tmp_path / "shared"))) for _ in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0, 0, 0]
    chart_gets = [path for _, path, _ in many.requests if path.endswith(".tgz")]
    assert chart_gets == ["/demo-1.2.0.tgz"]
    assert sorted(many.statuses) == [200, 200, 304, 304, 304]  # index once, chart once, three revalidations


def test_index_parse_records_stay_one_per_repository(many, cache) -> None:  # type: ignore[no-untyped-def]
    ref = ChartRef(kind="repo", url=many.url, name="demo")
    from helm_core.sources import index as index_mod
    for extra in ("3.0.0", "3.1.0", "3.2.0"):
        (many.root / f"demo-{extra}.tgz").write_bytes(chart_tgz("demo", extra))
        index_mod.write_index(many.root)
        assert resolve(ref, Credentials(), cache).version == extra
    records = list((cache.root / "refs").iterdir())
    assert len(records) == 2  # the index's ETag record and its parse


def test_index_without_digests_still_downloads_a_chart_once(make_repo, cache) -> None:  # type: ignore[no-untyped-def]
    server = make_repo({("demo", "1.0.0"): chart_tgz("demo", "1.0.0")})
    (server.root / "index.yaml").write_text(
        "apiVersion: v1\nentries:\n  demo:\n  - name: demo\n    version: 1.0.0\n    urls: [demo-1.0.0.tgz]\n")
    ref = ChartRef(kind="repo", url=server.url, name="demo")
    assert resolve(ref, Credentials(), cache) == resolve(ref, Credentials(), cache)
    assert [p for _, p, _ in server.requests] == ["/index.yaml", "/demo-1.0.0.tgz", "/index.yaml"]


def test_silent_repository_times_out_as_unavailable(cache) -> None:  # type: ignore[no-untyped-def]
    import socket
    with socket.socket() as listener:  # accepts connections, never answers
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        url = f"http://127.0.0.1:{listener.getsockname()[1]}"
        with pytest.raises(errors.RegistryUnavailableError) as info:
            resolve(ChartRef(kind="repo", url=url, name="demo"), Credentials(), cache, timeout=0.3)
    assert str(info.value).startswith(f"{url}: cannot reach the repository ({url}/index.yaml)")
