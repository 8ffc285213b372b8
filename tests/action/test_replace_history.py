"""What install --replace, upgrade --install, upgrade and uninstall --keep-history leave in a
release's history, as helm 3.22's actions leave it (e2e/test_release_cli_helm_history.py runs
the same against stock helm), and the controller's install-again rule over such a history."""
from __future__ import annotations

from pathlib import Path

import pytest

from helm_core.action import config, install, rollback, uninstall, upgrade
from helm_core.errors import HelmError, UndoneError
from helm_core.kube import client as kclient
from helm_core.kube import fake
from helm_core.storage import release as rel
from helm_core.storage import secrets
from tests.action.conftest import configmap, make_chart

NS = "apps"
S = rel.Status
#: A ConfigMap that says which ``.Release.Revision`` the templates saw; when ``.Values.fail`` is
#: set, a pre-install and pre-upgrade hook Job that has failed (the fake cluster keeps its status).
REVISION = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: seen\n"
            "data:\n  revision: \"{{ .Release.Revision }}\"\n")
FAILING = ("{{- if .Values.fail }}\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: check\n"
           "  annotations:\n    helm.sh/hook: pre-install,pre-upgrade\n"
           "status:\n  conditions:\n  - type: Failed\n    status: \"True\"\n    reason: BackoffLimitExceeded\n"
           "{{- end }}\n")


@pytest.fixture
def cfg() -> config.Configuration:
    """The fake cluster serving Jobs, behind the real Secrets driver."""
    client = fake.FakeCluster(fake.FAKE_RESOURCES + (kclient.ApiResource("batch/v1", "Job", "jobs", True),)).client()
    return config.Configuration(client=client, driver=secrets.SecretsDriver(client))


def _states(cfg: config.Configuration) -> list[tuple[S, str]]:
    return [(v.status, v.description) for v in cfg.driver.history(NS, "web")]


def _seen(cfg: config.Configuration) -> str:
    return cfg.client.get(kclient.ObjectRef("v1", "ConfigMap", "seen", NS))["data"]["revision"]


def _install(cfg: config.Configuration, tmp_path: Path, **options: object) -> rel.ReleaseVersion:
    chart = make_chart(tmp_path / "chart", {"a.yaml": configmap("a"), "seen.yaml": REVISION})
    return install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace=NS, **options))  # type: ignore[arg-type]


def test_install_replace_supersedes_the_uninstalled_version_and_renders_revision_1(
        cfg: config.Configuration, tmp_path: Path) -> None:
    _install(cfg, tmp_path)
    uninstall.run(cfg, "web", NS, uninstall.UninstallOptions(keep_history=True))
    done = _install(cfg, tmp_path, replace=True)
    assert _states(cfg) == [(S.SUPERSEDED, "superseded by new release"), (S.DEPLOYED, "Install complete")]
    # helm's number for the new version follows the history; its templates saw 1, as helm's install
    assert done.revision == 2 and _seen(cfg) == "1"
    assert upgrade.plan(cfg.driver.history(NS, "web")) == "upgrade"


def test_a_rollback_to_the_replaced_version_keeps_the_newest_first_deployed(cfg: config.Configuration,
                                                                           tmp_path: Path) -> None:
    """helm's rollback takes its first-deployed time from the newest version, not the target:
    an install over an uninstalled release started it again."""
    first = _install(cfg, tmp_path)
    uninstall.run(cfg, "web", NS, uninstall.UninstallOptions(keep_history=True))
    again = _install(cfg, tmp_path, replace=True)
    assert again.first_deployed != first.first_deployed
    rolled = rollback.run(cfg, "web", NS, first.version)
    assert (rolled.first_deployed, rolled.description) == (again.first_deployed, f"Rollback to {first.version}")
    assert [s for s, _ in _states(cfg)] == [S.SUPERSEDED, S.SUPERSEDED, S.DEPLOYED]


def test_upgrade_install_of_an_uninstalled_release_supersedes_it(cfg: config.Configuration,
                                                                   tmp_path: Path) -> None:
    chart = make_chart(tmp_path / "chart", {"a.yaml": configmap("a")})
    options = upgrade.UpgradeOptions(name="web", namespace=NS, install=True)
    upgrade.upgrade_or_install(cfg, chart, {}, options)
    uninstall.run(cfg, "web", NS, uninstall.UninstallOptions(keep_history=True))
    action, _ = upgrade.upgrade_or_install(cfg, chart, {}, options)
    assert action == "install"
    assert _states(cfg) == [(S.SUPERSEDED, "superseded by new release"), (S.DEPLOYED, "Install complete")]


def test_a_release_installed_again_and_failed_is_installed_again_by_the_controllers_rule(
        cfg: config.Configuration, tmp_path: Path) -> None:
    """The version an install replaced was uninstalled: it counts as such, so a release whose
    every other version failed (none ever deployed) is installed again (Flux's rule), and the
    failed one is left failed, as helm's --replace leaves it."""
    chart = make_chart(tmp_path / "chart", {"a.yaml": configmap("a"), "hook.yaml": FAILING})
    options = upgrade.UpgradeOptions(name="web", namespace=NS, install=True, reinstall_failed=True)
    with pytest.raises(HelmError):
        upgrade.upgrade_or_install(cfg, chart, {"fail": True}, options)
    uninstall.run(cfg, "web", NS, uninstall.UninstallOptions(keep_history=True))
    with pytest.raises(HelmError):
        upgrade.upgrade_or_install(cfg, chart, {"fail": True}, options)
    assert [s for s, _ in _states(cfg)] == [S.SUPERSEDED, S.FAILED]
    assert upgrade.plan(cfg.driver.history(NS, "web"), reinstall_failed=True) == "install"
    assert upgrade.plan(cfg.driver.history(NS, "web")) == "upgrade"  # helm's own rule
    action, _ = upgrade.upgrade_or_install(cfg, chart, {"fail": False}, options)
    assert action == "install"
    assert [s for s, _ in _states(cfg)] == [S.SUPERSEDED, S.FAILED, S.DEPLOYED]


@pytest.mark.parametrize(("status", "description", "uninstalled"), [
    (S.UNINSTALLED, "Uninstallation complete", True),
    (S.SUPERSEDED, "superseded by new release", True),
    (S.SUPERSEDED, "Upgrade complete", False),
    (S.FAILED, "superseded by new release", False),
])
def test_uninstalled_tells_a_version_an_install_replaced(status: S, description: str, uninstalled: bool) -> None:
    version = rel.ReleaseVersion(name="web", namespace=NS, version=rel.new_version(), status=status,
                                 chart_name="demo", chart_version="0.1.0", description=description)
    assert rel.uninstalled(version) is uninstalled


def test_an_upgrade_supersedes_the_failed_version_it_upgraded(cfg: config.Configuration, tmp_path: Path) -> None:
    """helm's upgrade over a release that never deployed marks its failed version superseded
    (its description kept); over one that did, the failed version stays failed."""
    chart = make_chart(tmp_path / "chart", {"a.yaml": configmap("a"), "hook.yaml": FAILING})
    with pytest.raises(HelmError):
        install.run(cfg, chart, {"fail": True}, install.InstallOptions(name="web", namespace=NS))
    upgrade.run(cfg, chart, {"fail": False}, upgrade.UpgradeOptions(name="web", namespace=NS))
    with pytest.raises(HelmError):
        upgrade.run(cfg, chart, {"fail": True}, upgrade.UpgradeOptions(name="web", namespace=NS))
    upgrade.run(cfg, chart, {"fail": False}, upgrade.UpgradeOptions(name="web", namespace=NS))
    states = _states(cfg)
    assert [s for s, _ in states] == [S.SUPERSEDED, S.SUPERSEDED, S.FAILED, S.DEPLOYED]
    assert states[0][1].startswith('Release "web" failed: failed pre-install: ')


def test_uninstall_keep_history_supersedes_an_older_deployed_version(cfg: config.Configuration,
                                                                     tmp_path: Path) -> None:
    chart = make_chart(tmp_path / "chart", {"a.yaml": configmap("a"), "hook.yaml": FAILING})
    install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace=NS))
    with pytest.raises(HelmError):
        upgrade.run(cfg, chart, {"fail": True}, upgrade.UpgradeOptions(name="web", namespace=NS))
    uninstall.run(cfg, "web", NS, uninstall.UninstallOptions(keep_history=True))
    assert _states(cfg) == [(S.SUPERSEDED, "Install complete"), (S.UNINSTALLED, "Uninstallation complete")]


def test_an_atomic_upgrade_rolls_back_to_helms_last_successful_release(cfg: config.Configuration,
                                                                       tmp_path: Path) -> None:
    """helm's --atomic target is the newest superseded or deployed version: none when the
    release never deployed (nothing rolled back, helm's words), else that one, also when an
    install replaced it (not the failed version the upgrade started from)."""
    chart = make_chart(tmp_path / "chart", {"a.yaml": configmap("a"), "hook.yaml": FAILING})
    atomic = upgrade.UpgradeOptions(name="web", namespace=NS, atomic=True)
    with pytest.raises(HelmError):
        install.run(cfg, chart, {"fail": True}, install.InstallOptions(name="web", namespace=NS))
    with pytest.raises(HelmError) as caught:
        upgrade.run(cfg, chart, {"fail": True}, atomic)
    assert str(caught.value).startswith("unable to find a previously successful release when attempting to "
                                        "rollback. original upgrade error: pre-upgrade hooks failed: ")
    assert caught.value.failed_action == "upgrade"
    assert caught.value.failed_version == str(cfg.driver.history(NS, "web")[-1].version)
    assert [s for s, _ in _states(cfg)] == [S.FAILED, S.FAILED]

    uninstall.run(cfg, "web", NS, uninstall.UninstallOptions(keep_history=True))
    with pytest.raises(HelmError):
        install.run(cfg, chart, {"fail": True}, install.InstallOptions(name="web", namespace=NS, replace=True))
    replaced = cfg.driver.history(NS, "web")[-2]
    with pytest.raises(UndoneError):
        upgrade.run(cfg, chart, {"fail": True}, atomic)
    assert _states(cfg)[-1] == (S.DEPLOYED, f"Rollback to {replaced.version}")
