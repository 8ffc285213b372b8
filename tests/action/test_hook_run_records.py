"""Every action stores a hook as ``Running`` when it starts, as helm's ``execHook`` records the
release before it creates the hook (fake cluster, both storages): what a ``status`` made while
the hook runs reads, and what it costs (one Secret write per hook, no Release status write).
Against the real API server and stock helm: e2e/test_release_cli_hook_runs.py."""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from helm_core.action import config, install, rollback, uninstall, upgrade
from helm_core.kube import client as kclient
from helm_core.kube import fake
from helm_core.storage import helmsecrets, secrets
from tests.action.conftest import configmap, make_chart
from tests.action.test_hooks import _job

NS = "apps"
JOBS = kclient.ApiResource("batch/v1", "Job", "jobs", True)


class Watching(fake.FakeClient):
    """Reads the release's newest stored version (through a driver of its own, as another
    process's ``status`` would) each time a hook Job is created, and counts the writes."""

    def __init__(self, cluster: fake.FakeCluster, storage: str) -> None:
        super().__init__(cluster)
        reader = cluster.client()
        self.reader = secrets.SecretsDriver(reader) if storage == "ours" else helmsecrets.HelmSecretsDriver(reader)
        self.seen: list[tuple[str, str, dict[str, str]]] = []
        self.newest: list[Any] = []  # the version read at each hook's creation
        self.secret_writes = self.secret_reads = self.status_writes = 0

    def apply(self, obj: Mapping[str, Any], **kwargs: Any) -> dict[str, Any]:
        if obj.get("kind") == "Job":
            newest = self.reader.history(NS, "web")[-1]
            self.newest.append(newest)
            self.seen.append((obj["metadata"]["name"], newest.status.value,
                              {run.name: run.phase.value for run in newest.hook_runs}))
        if kwargs.get("subresource") == "status":
            self.status_writes += 1
        return super().apply(obj, **kwargs)

    def get(self, ref: kclient.ObjectRef) -> dict[str, Any]:
        self.secret_reads += ref.kind == "Secret"
        return super().get(ref)

    def replace(self, obj: Mapping[str, Any], **kwargs: Any) -> dict[str, Any]:
        if obj.get("kind") == "Secret":
            self.secret_writes += 1
        return super().replace(obj, **kwargs)


def _configuration(storage: str) -> tuple[config.Configuration, Watching]:
    client = Watching(fake.FakeCluster(fake.FAKE_RESOURCES + (JOBS,)), storage)
    driver = secrets.SecretsDriver(client) if storage == "ours" else helmsecrets.HelmSecretsDriver(client)
    return config.Configuration(client=client, driver=driver), client


HOOKS = {"i1.yaml": _job("setup", "pre-install"), "i2.yaml": _job("seed", "pre-install", weight=1),
         "i3.yaml": _job("check", "post-install"), "u.yaml": _job("migrate", "pre-upgrade,post-upgrade"),
         "r.yaml": _job("restore", "pre-rollback"), "d.yaml": _job("goodbye", "pre-delete,post-delete")}


@pytest.mark.parametrize("storage", ["ours", "helm"])
def test_each_hook_is_stored_running_as_it_starts_with_the_ends_of_those_before_it(
        tmp_path: Path, storage: str) -> None:
    cfg, watching = _configuration(storage)
    chart = make_chart(tmp_path, {"a.yaml": configmap("a"), **HOOKS})
    installed = install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace=NS))
    upgrade.run(cfg, chart, {}, upgrade.UpgradeOptions(name="web", namespace=NS))
    rollback.run(cfg, "web", NS, installed.version)
    uninstall.run(cfg, "web", NS, uninstall.UninstallOptions(keep_history=True))
    done = {"setup": "Succeeded", "seed": "Succeeded", "check": "Succeeded"}
    assert watching.seen == [
        # the pending version holds the hook's start before the hook exists
        ("setup", "pending-install", {"setup": "Running"}),
        ("seed", "pending-install", {"setup": "Succeeded", "seed": "Running"}),
        ("check", "pending-install", {"setup": "Succeeded", "seed": "Succeeded", "check": "Running"}),
        # a new version: the hooks it runs (a hook of two events is one run, the last)
        ("migrate", "pending-upgrade", {"migrate": "Running"}),
        ("migrate", "pending-upgrade", {"migrate": "Running"}),
        # a rollback copies the target's hooks with their runs
        ("restore", "pending-rollback", {**done, "restore": "Running"}),
        # an uninstall records its hooks in the version it uninstalls
        ("goodbye", "uninstalling", {**done, "restore": "Succeeded", "goodbye": "Running"}),
        ("goodbye", "uninstalling", {**done, "restore": "Succeeded", "goodbye": "Running"}),
    ]
    uninstalled = cfg.driver.history(NS, "web")[-1]
    assert {run.name: run.phase.value for run in uninstalled.hook_runs} == {
        **done, "restore": "Succeeded", "goodbye": "Succeeded"}
    # helm's uninstalling release carries its deletion time from the start, and keeps it
    assert uninstalled.deleted is not None
    assert [v.deleted for v in watching.newest[-2:]] == [uninstalled.deleted] * 2


@pytest.mark.parametrize("storage", ["ours", "helm"])
def test_a_hook_costs_one_secret_write_and_a_chart_without_hooks_none(tmp_path: Path, storage: str) -> None:
    counts = []
    for templates in ({}, {"i1.yaml": _job("setup", "pre-install"), "i2.yaml": _job("check", "post-install")}):
        cfg, watching = _configuration(storage)
        chart = make_chart(tmp_path / str(len(counts)), {"a.yaml": configmap("a"), **templates})
        install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace=NS))
        counts.append((watching.secret_writes, watching.secret_reads, watching.status_writes))
    (plain_secrets, plain_reads, plain_statuses), (hooked_secrets, hooked_reads, hooked_statuses) = counts
    assert hooked_secrets == plain_secrets + 2
    assert hooked_reads == plain_reads  # each write over the resourceVersion of the one before
    assert hooked_statuses == plain_statuses  # the Release status holds no hook runs


def test_a_failed_record_of_a_hooks_start_is_logged_and_the_hook_runs(tmp_path: Path) -> None:
    """helm's ``recordRelease`` only logs a failed write."""
    lines: list[str] = []
    client = fake.FakeCluster(fake.FAKE_RESOURCES + (JOBS,)).client()

    class Refusing(secrets.SecretsDriver):
        def update(self, version: Any) -> None:
            if version.status.pending:
                raise secrets.missing_version(version.namespace, version.name, version.version)
            super().update(version)

    cfg = config.Configuration(client=client, driver=Refusing(client), log=lines.append)
    chart = make_chart(tmp_path, {"a.yaml": configmap("a"), "i.yaml": _job("setup", "pre-install")})
    done = install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace=NS))
    assert [run.phase.value for run in done.hook_runs] == ["Succeeded"]
    assert [line for line in lines if line.startswith("warning")] == [
        f'warning: Failed to update release web: release "web" has no version {done.version} in namespace "apps"']
