"""One interval of N requests of one repository: each with its own ``spec.chart.repository``
(every request revalidates index.yaml) versus all naming one HelmRepository (one fetch, then
every request resolves in the cached index). Prints index fetches and seconds for each.

    python bench/repositories.py [N]        # default N=1000; index ~10 MB as bench/sources.py
"""
from __future__ import annotations

import importlib.util
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "operator")]

from helm_operator import repositories, settings

from helm_core.sources import ChartRef, Credentials, resolve
from helm_core.sources import cache as cache_mod
from tests.sources import servers


def _generate_index(root: Path) -> int:
    spec = importlib.util.spec_from_file_location("bench_sources", ROOT / "bench" / "sources.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return int(module.generate_index(root))


def index_fetches(server: servers.RepoServer) -> int:
    return sum(1 for _, path, _ in server.requests if path.endswith("/index.yaml"))


def main(n: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        root = base / "repo"
        root.mkdir()
        size = _generate_index(root)
        server = servers.RepoServer(root=root).start()
        try:
            print(f"index.yaml {size / 1e6:.1f} MB, {n} requests of chart demo ^1.2, one interval each")
            cache = cache_mod.Cache(base / "inline")
            resolve(ChartRef(kind="repo", url=server.url, name="demo", version="^1.2"), Credentials(), cache)
            before, start = index_fetches(server), time.perf_counter()
            for _ in range(n):
                resolve(ChartRef(kind="repo", url=server.url, name="demo", version="^1.2"), Credentials(), cache)
            print(f"spec.chart.repository (warm cache): {index_fetches(server) - before} index fetches, "
                  f"{time.perf_counter() - start:.2f} s")

            cache = cache_mod.Cache(base / "shared")
            store = repositories.Store()
            body = {"metadata": {"name": "charts", "namespace": "team", "generation": 1},
                    "spec": {"url": server.url}}
            before, start = index_fetches(server), time.perf_counter()
            repositories.fetch(body, store=store, cache=cache, security=settings.SecuritySettings(),
                               client_for=lambda *_: None)  # type: ignore[arg-type,return-value]
            fetched = time.perf_counter() - start
            for _ in range(n):
                ref, creds = repositories.chart_ref({"name": "charts", "chart": "demo", "version": "^1.2"},
                                                    namespace="team", store=store, cross_namespace=True)
                resolve(ref, creds, cache)
            print(f"spec.chart.repositoryRef (HelmRepository, cold cache): {index_fetches(server) - before} "
                  f"index fetch, {time.perf_counter() - start:.2f} s (fetch and parse {fetched:.2f} s)")
        finally:
            server.stop()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
