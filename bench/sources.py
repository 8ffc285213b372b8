"""Resolving a chart from a generated ~10 MB index.yaml: cold and warm, versus ``helm pull``.

Prints one line per measurement (seconds, median of RUNS). Cold = empty cache (download,
parse, download chart); warm = same cache (304 revalidation, cached parse, cached chart).
The reference helm (``$HELM_BIN``, PATH or /root/.cache/hc-bootstrap/bin/helm) runs
``helm pull --repo URL`` on the same server in the same run; it is skipped when absent.
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from helm_core.sources import ChartRef, Credentials, cache as cache_mod, resolve  # noqa: E402
from tests.sources import servers  # noqa: E402
from tests.sources.conftest import chart_tgz  # noqa: E402

TARGET_INDEX_BYTES = 10 * 1024 * 1024
RUNS = 3


def generate_index(root: Path) -> int:
    """Many charts x versions with realistic metadata; the real chart is ``demo``."""
    lines = ["apiVersion: v1", "entries:"]
    size = 0
    chart = 0
    while size < TARGET_INDEX_BYTES:
        name = f"chart{chart:05d}"
        lines.append(f"  {name}:")
        for minor in range(20):
            entry = [
                f"  - apiVersion: v2", f"    appVersion: {minor}.0.0",
                f"    created: \"2026-01-01T00:00:00Z\"",
                f"    description: A generated chart number {chart} used to make a large index",
                f"    digest: {'%064x' % (chart * 100 + minor)}",
                f"    home: https://example.com/{name}", f"    name: {name}",
                "    keywords: [bench, generated]",
                f"    urls: [https://example.com/charts/{name}-1.{minor}.0.tgz]",
                f"    version: 1.{minor}.0",
            ]
            lines.extend(entry)
            size += sum(len(x) + 1 for x in entry)
        chart += 1
    data = chart_tgz("demo", "1.2.3")
    (root / "demo-1.2.3.tgz").write_bytes(data)
    lines += ["  demo:", "  - apiVersion: v2", "    name: demo", "    version: 1.2.3",
              f"    digest: {cache_mod.sha256_hex(data)}", "    urls: [demo-1.2.3.tgz]",
              "generated: \"2026-01-01T00:00:00Z\""]
    text = "\n".join(lines) + "\n"
    (root / "index.yaml").write_text(text)
    return len(text)


def timed(fn) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        root = base / "repo"
        root.mkdir()
        size = generate_index(root)
        server = servers.RepoServer(root=root).start()
        ref = ChartRef(kind="repo", url=server.url, name="demo", version="^1.2")
        print(f"index.yaml: {size / 1e6:.1f} MB, {RUNS} runs each (median)")
        cold, warm = [], []
        for run in range(RUNS):
            cache = cache_mod.Cache(base / f"cache{run}")
            cold.append(timed(lambda: resolve(ref, Credentials(), cache)))
            warm.append(timed(lambda: resolve(ref, Credentials(), cache)))
        print(f"helm-core resolve cold: {statistics.median(cold):.3f} s")
        print(f"helm-core resolve warm: {statistics.median(warm):.3f} s")
        helm = servers.find_helm()
        if helm is None:
            print("helm pull: skipped (no reference helm)")
        else:
            times = []
            for run in range(RUNS):
                home = base / f"home{run}"
                (home / "out").mkdir(parents=True)
                env = {"HOME": str(home), "PATH": os.environ.get("PATH", "")}
                times.append(timed(lambda: subprocess.run(
                    [helm, "pull", "demo", "--repo", server.url, "--version", "^1.2", "-d", str(home / "out")],
                    check=True, capture_output=True, env=env)))
            print(f"helm pull --repo (no cache, as helm always does): {statistics.median(times):.3f} s")
        server.stop()
        bench_oci(base, helm)


def bench_oci(base: Path, helm: str | None) -> None:
    """Pull by range from the distribution registry: cold, warm (tag list + manifest, cached
    layer) and the reference ``helm pull``; skipped when the registry binary is not built."""
    from helm_core.sources import oci
    binary = servers.find_registry_binary()
    if binary is None:
        print("oci: skipped (no registry binary; python -m e2e.cluster build)")
        return
    registry = servers.Registry(binary=binary, folder=base / "registry").start()
    try:
        with oci.Registry(registry.host, cache=cache_mod.Cache(base / "push"), plain_http=True) as client:
            for minor in range(50):
                version = f"1.{minor}.0"
                client.push(oci.Reference(registry.host, "charts/demo", version), chart_tgz("demo", version),
                            {"name": "demo", "version": version}, annotations={})
        ref = ChartRef(kind="oci", url=f"oci://{registry.host}/charts/demo", version="^1.10", plain_http=True)
        cold, warm = [], []
        for run in range(RUNS):
            cache = cache_mod.Cache(base / f"oci-cache{run}")
            cold.append(timed(lambda: resolve(ref, Credentials(), cache)))
            warm.append(timed(lambda: resolve(ref, Credentials(), cache)))
        print(f"oci (50 tags) helm-core resolve cold: {statistics.median(cold):.3f} s")
        print(f"oci (50 tags) helm-core resolve warm: {statistics.median(warm):.3f} s")
        if helm is not None:
            times = []
            for run in range(RUNS):
                home = base / f"oci-home{run}"
                (home / "out").mkdir(parents=True)
                times.append(timed(lambda: subprocess.run(
                    [helm, "pull", ref.url, "--version", "^1.10", "--plain-http", "-d", str(home / "out")],
                    check=True, capture_output=True, env={"HOME": str(home), "PATH": os.environ.get("PATH", "")})))
            print(f"oci helm pull: {statistics.median(times):.3f} s")
    finally:
        registry.stop()


if __name__ == "__main__":
    main()
