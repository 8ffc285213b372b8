"""rollback and uninstall on the fake cluster."""
from __future__ import annotations

from pathlib import Path

import pytest

from helm_core.action import config, history, install, rollback, uninstall, upgrade
from helm_core.errors import ReleaseNotFoundError, StorageError
from helm_core.kube import client as kclient
from helm_core.storage import release as rel
from tests.action.conftest import configmap, make_chart

NS = "apps"


def _greeting(cfg: config.Configuration) -> str:
    return cfg.client.get(kclient.ObjectRef("v1", "ConfigMap", "a", NS))["data"]["greeting"]


def _three_versions(cfg: config.Configuration, tmp_path: Path) -> list[rel.ReleaseVersion]:
    chart = make_chart(tmp_path, {"a.yaml": configmap("a")})
    install.run(cfg, chart, {"greeting": "one"}, install.InstallOptions(name="web", namespace=NS))
    for word in ("two", "three"):
        upgrade.run(cfg, chart, {"greeting": word}, upgrade.UpgradeOptions(name="web", namespace=NS))
    return cfg.driver.history(NS, "web")


def test_rollback_without_version_goes_to_the_previous_one_as_a_new_version(
        cfg: config.Configuration, tmp_path: Path) -> None:
    versions = _three_versions(cfg, tmp_path)
    back = rollback.run(cfg, "web", NS)
    assert back.version > versions[-1].version
    assert (back.status, back.description) == (rel.Status.DEPLOYED,
                                               f"Rollback to {versions[1].version}")
    assert back.user_values == {"greeting": "two"}
    assert _greeting(cfg) == "two"
    assert [v.status for v in history.run(cfg, "web", NS)] == [rel.Status.SUPERSEDED] * 3 + [
        rel.Status.DEPLOYED]


def test_rollback_to_an_older_ulid(cfg: config.Configuration, tmp_path: Path) -> None:
    versions = _three_versions(cfg, tmp_path)
    rollback.run(cfg, "web", NS, versions[0].version)
    assert _greeting(cfg) == "one"


def test_rollback_to_an_unknown_version_names_it(cfg: config.Configuration, tmp_path: Path) -> None:
    _three_versions(cfg, tmp_path)
    unknown = rel.new_version()
    with pytest.raises(ReleaseNotFoundError, match=f'^release "web" has no version {unknown}$'):
        rollback.run(cfg, "web", NS, unknown)


def test_uninstall_deletes_objects_and_history(cfg: config.Configuration, tmp_path: Path) -> None:
    _three_versions(cfg, tmp_path)
    result = uninstall.run(cfg, "web", NS)
    assert result.info == 'release "web" uninstalled'
    assert cfg.client.list("v1", "ConfigMap", namespace=NS) == []
    assert cfg.driver.history(NS, "web") == []
    with pytest.raises(ReleaseNotFoundError,
                       match="^uninstall: Release not loaded: web: release: not found$"):
        uninstall.run(cfg, "web", NS)
    assert uninstall.run(cfg, "web", NS, uninstall.UninstallOptions(ignore_not_found=True)).release is None


def test_uninstall_keep_history_marks_uninstalled_once(cfg: config.Configuration,
                                                       tmp_path: Path) -> None:
    _three_versions(cfg, tmp_path)
    options = uninstall.UninstallOptions(keep_history=True)
    done = uninstall.run(cfg, "web", NS, options)
    assert (done.release.status, done.release.description) == (rel.Status.UNINSTALLED,
                                                                "Uninstallation complete")
    assert len(cfg.driver.history(NS, "web")) == 3
    with pytest.raises(StorageError, match='^"web" is already deleted$'):
        uninstall.run(cfg, "web", NS, options)
    with pytest.raises(ReleaseNotFoundError, match='^"web" has no deployed releases$'):
        upgrade.run(cfg, make_chart(tmp_path / "x", {"a.yaml": configmap("a")}), {},
                    upgrade.UpgradeOptions(name="web", namespace=NS))
