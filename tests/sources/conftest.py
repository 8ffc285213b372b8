"""Fixtures: chart archives, a cache, real HTTP repositories and the distribution registry."""
from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from helm_core.sources import cache as cache_mod, index as index_mod, package as package_mod
from tests import chartkit
from tests.sources import servers


def chart_tgz(name: str = "demo", version: str = "0.1.0", **extra: str) -> bytes:
    """A valid packaged chart, made by our deterministic packager."""
    files = [("Chart.yaml", chartkit.chart_yaml(name, version, **extra).encode()),
             ("templates/cm.yaml", f"# {name} {version}\n".encode()),
             ("values.yaml", b"a: 1\n")]
    return package_mod.archive_bytes(name, files)


@pytest.fixture
def cache(tmp_path: Path) -> cache_mod.Cache:
    return cache_mod.Cache(tmp_path / "cache")


@pytest.fixture
def pki() -> servers.Pki:
    return servers.make_pki()


@pytest.fixture
def make_repo(tmp_path: Path) -> Iterator[Callable[..., servers.RepoServer]]:
    """Start a repository serving the given charts (``{(name, version): bytes}``) with an index."""
    started: list[servers.RepoServer] = []

    def make(charts: dict[tuple[str, str], bytes], *, url: str = "", **options: object) -> servers.RepoServer:
        root = tmp_path / f"repo{len(started)}"
        root.mkdir()
        for (name, version), data in charts.items():
            (root / f"{name}-{version}.tgz").write_bytes(data)
        server = servers.RepoServer(root=root, **options)  # type: ignore[arg-type]
        server.start()
        index_mod.write_index(root, url=url)
        started.append(server)
        return server

    yield make
    for server in started:
        server.stop()


@pytest.fixture(scope="session")
def registry_binary() -> str:
    binary = servers.find_registry_binary()
    if binary is None:
        pytest.skip("SKIPPED: no distribution `registry` binary (run `python -m e2e.cluster build` "
                    "or set $REGISTRY_BIN)")
    return binary


@pytest.fixture(scope="session")
def helm_binary() -> str:
    helm = servers.find_helm()
    if helm is None:
        pytest.skip("SKIPPED: reference helm binary not found ($HELM_BIN, PATH, /root/.cache/hc-bootstrap/bin/helm)")
    return helm


@pytest.fixture
def registry(registry_binary: str, tmp_path: Path) -> Iterator[servers.Registry]:
    reg = servers.Registry(binary=registry_binary, folder=tmp_path / "registry").start()
    yield reg
    reg.stop()
