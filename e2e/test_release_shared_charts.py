"""Every chart in ../shared/charts installs with --wait, upgrades with a changed value and
uninstalls cleanly on the real API server (kwok makes the pods ready).

The charts run side by side, each in its own namespace (``SWEEP_WORKERS`` at a time), so the
sweep costs about as long as its slowest few charts; the wall time is printed.
"""
from __future__ import annotations

import concurrent.futures
import secrets as pysecrets
import time
import traceback

import pytest
from kubernetes import client as k8s

from e2e import release_kit as kit
from e2e.conftest import create_namespace
from helm_core.action import config, install, uninstall, upgrade
from helm_core.chart import loader
from helm_core.errors import NotFoundError
from helm_core.kube import client as kclient
from helm_core.kube import live
from tests import chartkit

pytestmark = pytest.mark.e2e

SWEEP_WORKERS = 4
TIMEOUT_S = 240.0
CHANGED_VALUE = {
    "cert-manager": {"podLabels": {"sweep": "two"}},
    "hello-world": {"replicaCount": 2},
    "kube-state-metrics": {"podLabels": {"sweep": "two"}},
    "prometheus": {"server": {"podLabels": {"sweep": "two"}}},
    "prometheus-node-exporter": {"podLabels": {"sweep": "two"}},
}
"""The value each chart's upgrade changes; charts not listed get ``commonLabels.sweep``."""
INSTALL_VALUES = {
    # node-exporter binds a host port on every node, and so does the one prometheus brings as
    # a subchart: the two DaemonSets, installed side by side, must not ask for the same port.
    "prometheus-node-exporter": {"service": {"port": 9101}},
}
"""Values a chart is installed (and upgraded) with; the others use their defaults."""


def _leftovers(client: kclient.ClusterClient, objects: list[dict]) -> list[str]:
    left = []
    for obj in objects:
        if obj.get("kind") == "CustomResourceDefinition":
            continue
        ref = kclient.ObjectRef.of(obj)
        try:
            live_obj = client.get(ref)
        except NotFoundError:
            continue
        if not (live_obj.get("metadata") or {}).get("deletionTimestamp"):
            left.append(str(ref))
    return left


def _sweep(client: live.LiveClient, api: k8s.ApiClient, chart_name: str) -> tuple[str, float]:
    """Install, upgrade, uninstall one chart; returns ("" or the failure, seconds)."""
    started = time.monotonic()
    namespace = create_namespace(api, f"sweep-{chart_name}")
    name = f"sw-{pysecrets.token_hex(2)}"
    cfg = kit.configuration(client, lock_s=60)
    try:
        chart = loader.load(chartkit.SHARED_CHARTS / chart_name)
        base = INSTALL_VALUES.get(chart_name, {})
        first = install.run(cfg, chart, base, install.InstallOptions(
            name=name, namespace=namespace, wait=True, timeout_s=TIMEOUT_S))
        objects = config.resolve_stored(cfg, config.parse_manifest(first.manifest), namespace)
        assert objects, f"{chart_name} rendered no objects"
        assert not _leftovers(client, []), "sanity"
        missing = [str(kclient.ObjectRef.of(o)) for o in objects
                   if o.get("kind") != "CustomResourceDefinition" and _leftovers(client, [o]) == []]
        assert not missing, f"not created: {missing}"
        changed = {**base, **CHANGED_VALUE.get(chart_name, {"commonLabels": {"sweep": "two"}})}
        second = upgrade.run(cfg, chart, changed, upgrade.UpgradeOptions(
            name=name, namespace=namespace, wait=True, timeout_s=TIMEOUT_S))
        assert second.manifest != first.manifest, "the changed value changed nothing"
        assert "sweep: two" in second.manifest or "replicas: 2" in second.manifest
        final = config.resolve_stored(cfg, config.parse_manifest(second.manifest), namespace)
        uninstall.run(cfg, name, namespace, uninstall.UninstallOptions(wait=True, timeout_s=TIMEOUT_S))
        left = _leftovers(client, objects + final)
        assert not left, f"left behind: {left}"
        assert cfg.driver.history(namespace, name) == []
        return "", time.monotonic() - started
    except Exception:  # noqa: BLE001 - reported per chart below
        return traceback.format_exc(limit=4), time.monotonic() - started
    finally:
        try:
            k8s.CoreV1Api(api).delete_namespace(namespace)
        except k8s.ApiException:
            pass


def test_every_shared_chart_installs_upgrades_and_uninstalls(
        hc: live.LiveClient, api: k8s.ApiClient) -> None:
    names = chartkit.shared_chart_names()
    if not names:
        pytest.skip(f"shared charts are absent ({chartkit.SHARED_CHARTS})")
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=SWEEP_WORKERS) as pool:
        results = dict(zip(names, pool.map(lambda n: _sweep(hc, api, n), names)))
    wall = time.monotonic() - started
    print(f"\nshared-chart sweep: {len(names)} charts in {wall:.1f}s wall "
          f"({SWEEP_WORKERS} at a time)")
    for chart_name, (_, seconds) in sorted(results.items(), key=lambda item: -item[1][1]):
        print(f"  {chart_name:26} {seconds:6.1f}s")
    failures = {n: error for n, (error, _) in results.items() if error}
    assert not failures, "\n\n".join(f"{n}:\n{e}" for n, e in failures.items())
