"""Cancelled waits (``Configuration.cancelled``): handled as failed waits by the actions."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from helm_core.support import records
from helm_core.action import config, install, upgrade
from helm_core.errors import HelmError, WaitCancelled
from helm_core.kube import client as kclient
from helm_core.storage import release as rel
from tests.action.conftest import configmap, make_chart

NS = "apps"
#: A Deployment the fake cluster never makes ready (nothing writes its status).
DEPLOYMENT = ("{{- if .Values.deploy }}\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n"
              "  name: web\nspec:\n  replicas: 1\n{{- end }}\n")
SUPERSEDED = "superseded by generation 2"


def _chart(tmp_path: Path):
    return make_chart(tmp_path, {"a.yaml": configmap("a"), "d.yaml": DEPLOYMENT},
                      values="greeting: hello\ndeploy: true\n")


def _cancelling(cfg: config.Configuration) -> config.Configuration:
    return records.replace(cfg, cancelled=lambda: SUPERSEDED)


def _exists(cfg: config.Configuration, kind: str, name: str) -> bool:
    api = "apps/v1" if kind == "Deployment" else "v1"
    return any(o["metadata"]["name"] == name for o in cfg.client.list(api, kind, namespace=NS))


def test_a_cancelled_install_wait_fails_the_version_and_releases_the_lock(
        cfg: config.Configuration, tmp_path: Path) -> None:
    chart = _chart(tmp_path)
    started = time.monotonic()
    with pytest.raises(WaitCancelled) as caught:
        install.run(_cancelling(cfg), chart, {}, install.InstallOptions(
            name="web", namespace=NS, wait=True, timeout_s=300))
    assert time.monotonic() - started < 5  # not the 300 s timeout
    assert caught.value.reason == SUPERSEDED
    [failed] = cfg.driver.history(NS, "web")
    assert failed.status is rel.Status.FAILED
    assert failed.description.startswith(f'Release "web" failed: wait cancelled ({SUPERSEDED})')
    # the lock is free: the next desired state installs over the failed version at once
    done = install.run(cfg, chart, {"deploy": False}, install.InstallOptions(
        name="web", namespace=NS, wait=True, replace=True))
    assert done.status is rel.Status.DEPLOYED


def test_a_cancelled_atomic_install_is_undone_without_waiting(
        cfg: config.Configuration, tmp_path: Path) -> None:
    with pytest.raises(HelmError, match="has been uninstalled due to atomic being set: wait "
                                        "cancelled") as caught:
        install.run(_cancelling(cfg), _chart(tmp_path), {}, install.InstallOptions(
            name="web", namespace=NS, atomic=True, timeout_s=300))
    assert isinstance(caught.value.__cause__, WaitCancelled)
    assert cfg.driver.history(NS, "web") == []
    assert not _exists(cfg, "ConfigMap", "a") and not _exists(cfg, "Deployment", "web")


def test_a_cancelled_atomic_upgrade_rolls_back_without_waiting_for_the_old_version(
        cfg: config.Configuration, tmp_path: Path) -> None:
    chart = _chart(tmp_path)
    first = install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace=NS))
    started = time.monotonic()
    with pytest.raises(HelmError, match="has been rolled back due to atomic being set: wait "
                                        "cancelled") as caught:
        # the first version's Deployment never gets ready either: a rollback that waited
        # would take the whole timeout
        upgrade.run(_cancelling(cfg), chart, {"greeting": "new"}, upgrade.UpgradeOptions(
            name="web", namespace=NS, atomic=True, timeout_s=30))
    assert time.monotonic() - started < 5
    assert isinstance(caught.value.__cause__, WaitCancelled)
    history = cfg.driver.history(NS, "web")
    assert [v.status for v in history] == [rel.Status.SUPERSEDED, rel.Status.FAILED,
                                           rel.Status.DEPLOYED]
    assert history[-1].description == f"Rollback to {first.version}"
    assert cfg.client.get(kclient.ObjectRef("v1", "ConfigMap", "a", NS))["data"] == {
        "greeting": "hello"}


def test_a_rollback_whose_wait_fails_is_failed_as_helms(cfg: config.Configuration, tmp_path: Path) -> None:
    """helm's rollback words a failed wait ``Release "NAME" failed: ...`` and leaves the newest
    version before as it was (``Rollback ... failed`` and superseded are for objects refused)."""
    from helm_core.action import rollback

    chart = _chart(tmp_path)
    first = install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace=NS))
    upgrade.run(cfg, chart, {"greeting": "new"}, upgrade.UpgradeOptions(name="web", namespace=NS))
    with pytest.raises(WaitCancelled):
        rollback.run(_cancelling(cfg), "web", NS, first.version, rollback.RollbackOptions(wait=True))
    *_, upgraded, rolled = cfg.driver.history(NS, "web")
    assert (upgraded.status, rolled.status) == (rel.Status.DEPLOYED, rel.Status.FAILED)
    assert rolled.description.startswith(f'Release "web" failed: wait cancelled ({SUPERSEDED})')
