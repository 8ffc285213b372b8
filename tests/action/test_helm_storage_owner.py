"""Under helm's storage the release has no owner object (``storage/helmsecrets.py``): every
action and its hooks work on a cluster that does not serve helm-core's ``Release`` (a Helm
user's cluster, helm's behaviour), and no object carries an owner reference to a ``Release``,
even where the controller's claim made one. Against the real API server and stock helm:
e2e/test_release_cli_helm_storage_no_crd.py."""
from __future__ import annotations

from pathlib import Path

import pytest

from helm_core.action import config, install, rollback, uninstall, upgrade
from helm_core.action import test as test_action
from helm_core.errors import StorageError
from helm_core.kube import client as kclient
from helm_core.kube import fake
from helm_core.storage import helmsecrets, secrets, select
from tests.action.conftest import configmap, make_chart
from tests.action.test_hooks import _job

NS = "apps"
JOBS = kclient.ApiResource("batch/v1", "Job", "jobs", True)
EVENTS = ("pre-install", "post-install", "pre-upgrade", "post-upgrade", "pre-rollback", "post-rollback",
          "pre-delete", "post-delete", "test")


def _references(cluster: fake.FakeCluster) -> list[str]:
    """Objects with an owner reference to a ``Release``."""
    return [f"{ref.kind}/{ref.name}" for ref, obj in cluster.objects.items()
            if any(o.get("kind") == secrets.RELEASE_KIND for o in obj["metadata"].get("ownerReferences") or ())]


def _jobs(cluster: fake.FakeCluster) -> set[str]:
    return {ref.name for ref in cluster.objects if ref.kind == "Job"}


@pytest.mark.parametrize("crd", ["absent", "claimed"])
def test_no_object_refers_to_a_release(tmp_path: Path, crd: str) -> None:
    served = tuple(r for r in fake.FAKE_RESOURCES if crd != "absent" or r.kind != secrets.RELEASE_KIND)
    cluster = fake.FakeCluster((*served, JOBS))
    client = cluster.client()
    driver = helmsecrets.HelmSecretsDriver(client)
    if crd == "claimed":  # the controller claims the release on its Release object first
        assert driver.claim(NS, "web", annotation="example.com/owner", claimant="apps/web", new=True) == ""
    cfg = config.Configuration(client=client, driver=driver)
    hooks = {f"{event}.yaml": _job(event, event, policy="hook-failed") for event in EVENTS}
    chart = make_chart(tmp_path, {"a.yaml": configmap("a"), **hooks})
    first = install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace=NS))
    upgrade.run(cfg, chart, {"greeting": "hi"}, upgrade.UpgradeOptions(name="web", namespace=NS))
    rollback.run(cfg, "web", NS, first.version)
    assert len(test_action.run(cfg, "web", NS)) == 1
    assert _references(cluster) == []
    assert _jobs(cluster) == set(EVENTS) - {"pre-delete", "post-delete"}
    uninstall.run(cfg, "web", NS, uninstall.UninstallOptions())
    assert driver.history(NS, "web") == []
    assert _references(cluster) == [] and _jobs(cluster) == set(EVENTS)


def test_a_release_helm_made_is_tested_and_uninstalled_with_our_storage_without_the_crd(tmp_path: Path) -> None:
    """helm-core's own storage reading a release stock helm made, on a cluster without the
    Release CRD: there is no Release to own anything, so test and uninstall act as helm's."""
    cluster = fake.FakeCluster((*(r for r in fake.FAKE_RESOURCES if r.kind != secrets.RELEASE_KIND), JOBS))
    client = cluster.client()
    hooks = {f"{event}.yaml": _job(event, event, policy="hook-failed") for event in ("test", "pre-delete")}
    chart = make_chart(tmp_path, {"a.yaml": configmap("a"), **hooks})
    helms = config.Configuration(client=client, driver=helmsecrets.HelmSecretsDriver(client))
    install.run(helms, chart, {}, install.InstallOptions(name="web", namespace=NS))  # as stock helm would
    ours = config.Configuration(client=client, driver=select.open_driver(client))
    assert len(test_action.run(ours, "web", NS)) == 1
    uninstall.run(ours, "web", NS, uninstall.UninstallOptions())
    assert _jobs(cluster) == {"test", "pre-delete"} and _references(cluster) == []
    assert helms.driver.history(NS, "web") == []


@pytest.mark.parametrize("storage", select.STORAGES)
def test_a_claim_without_the_crd_names_what_is_missing(storage: str) -> None:
    """The controller's claim is kept on the Release: without its CRD (and the right to create
    it) the error says which CRD to apply, under either storage."""
    client = fake.FakeCluster(tuple(r for r in fake.FAKE_RESOURCES if r.kind != secrets.RELEASE_KIND)).client()
    driver = select.open_driver(client, storage=storage)
    assert driver.claimant(NS, "web", annotation="example.com/owner") is None
    for new in (True, False):
        with pytest.raises(StorageError) as caught:
            driver.claim(NS, "web", annotation="example.com/owner", claimant="apps/web", new=new)
        assert str(caught.value).startswith(secrets.CRD_MISSING + " (installing it failed: ")
