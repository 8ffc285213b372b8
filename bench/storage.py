"""Cost of release storage and locking on a real API server (what each action will pay).

Usage: ``python bench/storage.py [--kubeconfig PATH] [--versions N] [--manifest-kib K]``.
Without ``--kubeconfig`` a local cluster is started (``python -m e2e.cluster build`` first).
Prints the median wall time of: discovery, lock acquire+release, version create (Secret +
Release status), update, get, history of N versions, and the stored size of one version. Goal:
lock + create + update (what one install adds to rendering and applying) under 100 ms.
"""
from __future__ import annotations

import argparse
import base64
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import yaml  # noqa: E402

from helm_core.kube import client as kclient  # noqa: E402
from helm_core.kube import live  # noqa: E402
from helm_core.kube import wait as kwait  # noqa: E402
from helm_core.storage import lock as slock  # noqa: E402
from helm_core.storage import release as rel  # noqa: E402
from helm_core.storage import secrets  # noqa: E402

GOAL_MS = 100.0
CRD = Path(__file__).resolve().parents[1] / "manifests" / "crds" / "release.yaml"


def timed(label: str, runs: int, action: Callable[[int], object]) -> float:
    times = []
    for i in range(runs):
        started = time.perf_counter()
        action(i)
        times.append((time.perf_counter() - started) * 1000)
    median = statistics.median(times)
    print(f"{label:<34} median {median:8.1f} ms   min {min(times):8.1f} ms   ({runs} runs)")
    return median


def run(client: live.LiveClient, versions: int, manifest_kib: int) -> None:
    crd = yaml.safe_load(CRD.read_text())
    client.apply(crd)
    kwait.wait_ready(client, [kclient.ObjectRef.of(crd)], options=kwait.WaitOptions(timeout_s=30))
    namespace = f"bench-storage-{random.randrange(16**6):06x}"
    client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
    manifest = "\n".join(f"# line {i}: " + base64.b64encode(random.randbytes(48)).decode()
                         for i in range(manifest_kib * 1024 // 80))
    driver = secrets.SecretsDriver(client)
    made: list[rel.ReleaseVersion] = []
    try:
        timed("discovery (refresh)", 5, lambda _: client.discover(refresh=True))

        def lock_cycle(i: int) -> None:
            slock.ReleaseLock(client, namespace=namespace, release="web", operation="upgrade").acquire().release()

        lock_ms = timed("lock acquire + release", 10, lock_cycle)

        def create(i: int) -> None:
            version = rel.ReleaseVersion(
                name="web", namespace=namespace, version=rel.new_version(),
                status=rel.Status.PENDING_UPGRADE, chart_name="bench", chart_version="1.0.0",
                user_values={"replicas": i}, chart_values={"replicas": i}, manifest=manifest)
            driver.create(version)
            made.append(version)

        create_ms = timed("version create", versions, create)
        update_ms = timed("version update (status)", versions,
                          lambda i: driver.update(made[i].with_status(rel.Status.SUPERSEDED)))
        timed("version get", versions, lambda i: driver.get(namespace, "web", made[i].version))
        timed(f"history of {versions} versions", 5, lambda _: driver.history(namespace, "web"))
        stored = client.get(kclient.ObjectRef("v1", "Secret", secrets.secret_name("web", made[0].version),
                                              namespace))
        size = sum(len(base64.b64decode(v)) for v in stored["data"].values())
        print(f"one version: manifest {len(manifest) / 1024:.0f} KiB raw -> {size / 1024:.1f} KiB stored")
        total = lock_ms + create_ms + update_ms
        print(f"lock + create + update: {total:.1f} ms (goal < {GOAL_MS:.0f} ms)")
    finally:
        client.delete(kclient.ObjectRef("v1", "Namespace", namespace))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--kubeconfig")
    parser.add_argument("--versions", type=int, default=20)
    parser.add_argument("--manifest-kib", type=int, default=64)
    args = parser.parse_args()
    if args.kubeconfig:
        run(live.connect(live.LiveOptions(kubeconfig=args.kubeconfig)), args.versions, args.manifest_kib)
        return 0
    from e2e.cluster import harness

    cluster = harness.LocalCluster.start()
    try:
        run(live.connect(live.LiveOptions(kubeconfig=str(cluster.kubeconfig))), args.versions,
            args.manifest_kib)
    finally:
        cluster.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
