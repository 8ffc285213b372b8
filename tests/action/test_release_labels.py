"""Custom release labels (helm's ``install/upgrade --labels``, ``list --selector``) through the
actions, on the fake cluster behind the real Secrets driver. Storage layout:
tests/storage/test_labels.py; against the real API server and stock helm:
e2e/test_release_cli_helm_habits.py."""
from __future__ import annotations

from pathlib import Path

import pytest

from helm_core.action import config, install, rollback, upgrade
from helm_core.action import list as list_action
from helm_core.errors import HelmError
from helm_core.storage import secrets
from tests.action.conftest import configmap, make_chart

NS = "apps"
RESERVED_MESSAGE = ("user supplied labels contains system reserved label name. System labels: "
                    "[name owner status version createdAt modifiedAt release helm-core.io/adopted]")


def _secret_labels(cfg: config.Configuration, name: str) -> list[dict[str, str]]:
    found = cfg.client.list("v1", "Secret", namespace=NS, label_selector=secrets.selector(name))
    return [s["metadata"]["labels"] for s in sorted(found, key=lambda s: s["metadata"]["labels"]["version"])]


def test_install_keeps_labels_on_the_version_secret(cfg: config.Configuration, tmp_path: Path) -> None:
    chart = make_chart(tmp_path, {"a.yaml": configmap("a")})
    done = install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace=NS,
                                                              labels={"team": "a", "tier": "web"}))
    assert done.labels == {"team": "a", "tier": "web"}
    [labels] = _secret_labels(cfg, "web")
    assert labels == {"team": "a", "tier": "web", "release": "web", "version": str(done.version),
                      "status": "deployed", "owner": "helm-core"}
    assert cfg.driver.history(NS, "web")[0].labels == {"team": "a", "tier": "web"}


@pytest.mark.parametrize("key", ["name", "owner", "status", "version", "createdAt", "modifiedAt", "release",
                                 "helm-core.io/adopted"])
def test_reserved_labels_are_refused_in_helms_words_before_anything_is_done(
        cfg: config.Configuration, tmp_path: Path, key: str) -> None:
    chart = make_chart(tmp_path, {"a.yaml": configmap("a")})
    for run in (lambda: install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace=NS,
                                                                           labels={key: "x"})),
                lambda: upgrade.run(cfg, chart, {}, upgrade.UpgradeOptions(name="web", namespace=NS, install=True,
                                                                           labels={key: "x"}))):
        with pytest.raises(HelmError) as refused:
            run()
        assert str(refused.value) == RESERVED_MESSAGE
    assert cfg.client.list("v1", "ConfigMap", namespace=NS) == []
    assert cfg.driver.history(NS, "web") == []


def test_upgrade_merges_labels_over_the_newest_and_null_removes(cfg: config.Configuration, tmp_path: Path) -> None:
    chart = make_chart(tmp_path, {"a.yaml": configmap("a")})
    first = install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace=NS,
                                                               labels={"team": "a", "tier": "web"}))
    second = upgrade.run(cfg, chart, {}, upgrade.UpgradeOptions(name="web", namespace=NS,
                                                                labels={"tier": "null", "env": "prod"}))
    assert second.labels == {"team": "a", "env": "prod"}
    third = upgrade.run(cfg, chart, {}, upgrade.UpgradeOptions(name="web", namespace=NS))
    assert third.labels == {"team": "a", "env": "prod"}  # no --labels: the newest version's kept
    dry = upgrade.run(cfg, chart, {}, upgrade.UpgradeOptions(name="web", namespace=NS, dry_run=True,
                                                             labels={"team": "b"}))
    assert dry.labels == {"team": "b", "env": "prod"}
    assert [v.labels for v in cfg.driver.history(NS, "web")] == [
        first.labels, second.labels, third.labels]
    # a rollback copies the labels of the version it returns to (helm's previousRelease.Labels)
    back = rollback.run(cfg, "web", NS, first.version)
    assert back.labels == {"team": "a", "tier": "web"}
    assert _secret_labels(cfg, "web")[-1]["tier"] == "web"


def test_upgrade_install_installs_with_the_labels_as_given(cfg: config.Configuration, tmp_path: Path) -> None:
    chart = make_chart(tmp_path, {"a.yaml": configmap("a")})
    done = upgrade.run(cfg, chart, {}, upgrade.UpgradeOptions(name="web", namespace=NS, install=True,
                                                              labels={"team": "a", "gone": "null"}))
    assert done.labels == {"team": "a", "gone": "null"}  # helm's install keeps "null" as a value


def _install(cfg: config.Configuration, chart_dir: Path, name: str, **labels: str) -> None:
    chart = make_chart(chart_dir / name, {"a.yaml": configmap(f"{name}-a")})
    install.run(cfg, chart, {}, install.InstallOptions(name=name, namespace=NS, labels=labels))


@pytest.mark.parametrize(("selector", "expected"), [
    ("", ["api", "db", "web"]),
    ("team=a", ["api", "web"]),
    ("team==a,tier!=web", ["api"]),
    ("team!=a", ["db"]),
    ("tier", ["web"]),
    ("!tier", ["api", "db"]),
    ("team in (b,c)", ["db"]),
    ("team notin (a)", ["db"]),
])
def test_list_selector_filters_on_custom_labels(cfg: config.Configuration, tmp_path: Path, selector: str,
                                                 expected: list[str]) -> None:
    _install(cfg, tmp_path, "web", team="a", tier="web")
    _install(cfg, tmp_path, "api", team="a")
    _install(cfg, tmp_path, "db", team="b")
    found = list_action.run(cfg, list_action.ListOptions(namespace=NS, selector=selector))
    assert [v.name for v in found] == expected


def test_list_selector_is_checked_only_when_a_release_is_listed(cfg: config.Configuration, tmp_path: Path) -> None:
    assert list_action.run(cfg, list_action.ListOptions(namespace=NS, selector="a b")) == []
    _install(cfg, tmp_path, "web", team="a")
    assert list_action.run(cfg, list_action.ListOptions(namespace=NS, filter="^nothing", selector="a b")) == []
    with pytest.raises(HelmError) as refused:
        list_action.run(cfg, list_action.ListOptions(namespace=NS, selector="a b"))
    assert str(refused.value) == "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"


def test_a_version_secret_labelled_by_hand_is_selected(cfg: config.Configuration, tmp_path: Path) -> None:
    """Custom labels are the version Secret's own: labels set there later count, as in helm."""
    _install(cfg, tmp_path, "web")
    [secret] = cfg.client.list("v1", "Secret", namespace=NS, label_selector=secrets.selector("web"))
    cfg.client.apply({"apiVersion": "v1", "kind": "Secret", "metadata": {
        "name": secret["metadata"]["name"], "namespace": NS, "labels": {"team": "a"}}}, force=True)
    found = list_action.run(cfg, list_action.ListOptions(namespace=NS, selector="team=a"))
    assert [v.name for v in found] == ["web"]
