"""Parsed indexes are kept in memory by URL and digest: many resolutions in one index (a
shared HelmRepository's requests) load it once, and a cached index is read without the server."""
from __future__ import annotations

from pathlib import Path

from helm_core import sources
from helm_core.sources import cache as cache_mod
from helm_core.sources import index as index_mod
from helm_core.sources import package, repo
from tests.sources import servers


def test_resolving_in_a_cached_index_asks_the_server_for_charts_only(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "web-1.0.0.tgz").write_bytes(package.archive_bytes(
        "web", [("Chart.yaml", b"apiVersion: v2\nname: web\nversion: 1.0.0\n")]))
    index_mod.write_index(root)
    server = servers.RepoServer(root=root).start()
    try:
        cache = cache_mod.Cache(tmp_path / "cache")
        with repo.Repository(server.url, cache=cache) as repository:
            digest = repository.index().digest
        # the file and the parse record leave the disk cache: memory still answers
        cache.blob_path(digest).unlink()
        for record in (tmp_path / "cache" / "refs").iterdir():
            record.unlink()
        served = len(server.requests)
        ref = sources.ChartRef(kind="repo", url=server.url, name="web", version="^1", index_digest=digest)
        for _ in range(3):
            assert sources.resolve(ref, sources.Credentials(), cache).version == "1.0.0"
        assert [path for _, path, _ in server.requests[served:]] == ["/web-1.0.0.tgz"]
    finally:
        server.stop()


def test_the_memory_is_bounded_least_recently_used_first() -> None:
    recent = repo._Recent(2)
    a, b, c = (repo.Index(url=u, entries={}, digest="d") for u in "abc")
    recent.put(("a", "d"), a)
    recent.put(("b", "d"), b)
    assert recent.get(("a", "d")) is a  # a is now the most recent
    recent.put(("c", "d"), c)
    assert recent.get(("b", "d")) is None
    assert recent.get(("a", "d")) is a and recent.get(("c", "d")) is c
