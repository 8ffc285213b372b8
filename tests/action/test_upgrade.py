"""upgrade on the fake cluster: new versions, pruning, values modes, --install."""
from __future__ import annotations

from pathlib import Path

import pytest

from helm_core.action import config, install, rollback, upgrade
from helm_core.errors import ConflictError, ReleaseNotFoundError
from helm_core.kube import client as kclient
from helm_core.storage import release as rel
from helm_core.support.records import replace
from tests.action.conftest import configmap, make_chart

NS = "apps"


def _names(cfg: config.Configuration) -> list[str]:
    return sorted(o["metadata"]["name"] for o in cfg.client.list("v1", "ConfigMap", namespace=NS))


def test_upgrade_records_a_newer_version_supersedes_and_deletes_dropped_objects(
        cfg: config.Configuration, tmp_path: Path) -> None:
    chart = make_chart(tmp_path, {"a.yaml": configmap("a"), "b.yaml": configmap("b", condition=".Values.b")},
                       values="greeting: hello\nb: true\n")
    first = install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace=NS))
    assert _names(cfg) == ["a", "b"]
    second = upgrade.run(cfg, chart, {"b": False}, upgrade.UpgradeOptions(name="web", namespace=NS))
    assert second.version > first.version
    assert (second.status, second.description) == (rel.Status.DEPLOYED, "Upgrade complete")
    assert second.first_deployed == first.first_deployed
    assert _names(cfg) == ["a"]
    assert [v.status for v in cfg.driver.history(NS, "web")] == [rel.Status.SUPERSEDED,
                                                                 rel.Status.DEPLOYED]


def test_upgrade_refuses_an_object_owned_elsewhere_before_storing_a_version(
        cfg: config.Configuration, tmp_path: Path) -> None:
    chart = make_chart(tmp_path, {"a.yaml": configmap("a"), "b.yaml": configmap("b", condition=".Values.b")},
                       values="greeting: hello\nb: false\n")
    first = install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace=NS))
    cfg.client.apply({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b", "namespace": NS}})
    with pytest.raises(ConflictError, match='^Unable to continue with update: ConfigMap "b" in namespace '):
        upgrade.run(cfg, chart, {"b": True}, upgrade.UpgradeOptions(name="web", namespace=NS))
    # as helm's upgrade: nothing stored, the release as it was
    assert [(v.version, v.status) for v in cfg.driver.history(NS, "web")] == [(first.version, rel.Status.DEPLOYED)]
    taken = upgrade.run(cfg, chart, {"b": True}, upgrade.UpgradeOptions(name="web", namespace=NS,
                                                                        take_ownership=True))
    assert taken.status is rel.Status.DEPLOYED and _names(cfg) == ["a", "b"]

def test_upgrade_of_a_missing_release_fails_unless_install(cfg: config.Configuration,
                                                           tmp_path: Path) -> None:
    chart = make_chart(tmp_path, {"a.yaml": configmap("a")})
    with pytest.raises(ReleaseNotFoundError, match='^"web" has no deployed releases$'):
        upgrade.run(cfg, chart, {}, upgrade.UpgradeOptions(name="web", namespace=NS))
    done = upgrade.run(cfg, chart, {}, upgrade.UpgradeOptions(name="web", namespace=NS, install=True))
    assert (done.status, done.description) == (rel.Status.DEPLOYED, "Install complete")


OLD = {"a": 1, "nested": {"x": 1, "y": 2}}


@pytest.mark.parametrize(("flags", "given", "expected"), [
    ({}, {}, OLD),
    ({}, {"b": 2}, {"b": 2}),
    ({"reset_values": True}, {}, {}),
    ({"reuse_values": True}, {"nested": {"y": 3}}, {"a": 1, "nested": {"x": 1, "y": 3}}),
    ({"reset_then_reuse_values": True}, {"b": 2}, {"a": 1, "b": 2, "nested": {"x": 1, "y": 2}}),
    ({"reuse_values": True}, {"a": None, "nested": {"x": None}}, {"nested": {"y": 2}}),
], ids=["default-reuses-when-none-given", "default-takes-given", "reset", "reuse-merges",
        "reset-then-reuse-merges", "reuse-null-drops-the-old-key"])
def test_effective_values_follow_helms_flags(flags: dict, given: dict, expected: dict) -> None:
    current = rel.ReleaseVersion(name="web", namespace=NS, version=rel.new_version(),
                                 status=rel.Status.DEPLOYED, chart_name="demo",
                                 chart_version="0.1.0", user_values=OLD)
    options = upgrade.UpgradeOptions(name="web", **flags)
    assert upgrade.effective_values(current, given, options) == expected
    assert current.user_values == {"a": 1, "nested": {"x": 1, "y": 2}}


def test_reuse_values_renders_over_the_current_versions_values_not_the_new_charts_defaults(
        cfg: config.Configuration, tmp_path: Path) -> None:
    """helm's ``--reuse-values``: the new chart's defaults are the current version's computed
    values, so a default the new chart adds is not there (``--reset-then-reuse-values`` has it)."""
    shown = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shown\ndata:\n"
             "  greeting: {{ .Values.greeting | quote }}\n  added: {{ .Values.added | default \"absent\" | quote }}\n")
    one = make_chart(tmp_path / "one", {"cm.yaml": shown}, values="greeting: hello\n")
    two = make_chart(tmp_path / "two", {"cm.yaml": shown}, values="greeting: hi\nadded: new\n")
    install.run(cfg, one, {}, install.InstallOptions(name="web", namespace=NS))
    ref = kclient.ObjectRef("v1", "ConfigMap", "shown", NS)
    for flags, expected in [({"reuse_values": True}, {"greeting": "hello", "added": "absent"}),
                            ({"reset_then_reuse_values": True}, {"greeting": "hi", "added": "new"})]:
        upgrade.run(cfg, two, {}, upgrade.UpgradeOptions(name="web", namespace=NS, **flags))
        assert cfg.client.get(ref)["data"] == expected, flags


def test_upgrade_dry_run_changes_nothing(cfg: config.Configuration, tmp_path: Path) -> None:
    chart = make_chart(tmp_path, {"a.yaml": configmap("a")})
    install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace=NS))
    dry = upgrade.run(cfg, chart, {"greeting": "new"},
                      upgrade.UpgradeOptions(name="web", namespace=NS, dry_run=True))
    assert (dry.status, dry.description) == (rel.Status.PENDING_UPGRADE, "Dry run complete")
    assert len(cfg.driver.history(NS, "web")) == 1
    live = cfg.client.get(kclient.ObjectRef("v1", "ConfigMap", "a", NS))
    assert live["data"] == {"greeting": "hello"}


def test_upgrade_prunes_history_beyond_max_history(cfg: config.Configuration, tmp_path: Path) -> None:
    chart = make_chart(tmp_path, {"a.yaml": configmap("a")})
    install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace=NS))
    for word in ("two", "three", "four"):
        upgrade.run(cfg, chart, {"greeting": word},
                    upgrade.UpgradeOptions(name="web", namespace=NS, max_history=2))
    kept = cfg.driver.history(NS, "web")
    assert [(v.status, v.user_values) for v in kept] == [
        (rel.Status.SUPERSEDED, {"greeting": "three"}), (rel.Status.DEPLOYED, {"greeting": "four"})]


def test_release_revision_keeps_counting_past_pruned_versions(cfg: config.Configuration, tmp_path: Path) -> None:
    """As helm's revisions do: a chart naming a Job after ``.Release.Revision`` gets a new name at
    every upgrade (before, a pruned history of 2 rendered revision 3 again and again)."""
    job = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: migrate-{{ .Release.Revision }}\n"
    chart = make_chart(tmp_path, {"job.yaml": job})
    install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace=NS))
    for n in range(4):
        upgrade.run(cfg, chart, {"n": n}, upgrade.UpgradeOptions(name="web", namespace=NS, max_history=2))
    kept = cfg.driver.history(NS, "web")
    assert [v.revision for v in kept] == [4, 5]
    assert _names(cfg) == ["migrate-5"]
    rolled = rollback.run(cfg, "web", NS, kept[0].version, rollback.RollbackOptions())
    assert rolled.revision == 6 and "migrate-4" in rolled.manifest  # the manifest it restored


def _version(status: rel.Status) -> rel.ReleaseVersion:
    return rel.ReleaseVersion(name="web", namespace=NS, version=rel.new_version(), status=status,
                              chart_name="demo", chart_version="0.1.0")


S = rel.Status


@pytest.mark.parametrize(("statuses", "reinstall_failed", "expected"), [
    ((), False, "install"),
    ((S.DEPLOYED,), False, "upgrade"),
    ((S.SUPERSEDED, S.UNINSTALLED), False, "install"),  # Helm: the newest is uninstalled
    ((S.FAILED,), False, "upgrade"),                      # Helm upgrades a failed release
    ((S.FAILED,), True, "install"),                       # a failed first install, again
    ((S.UNINSTALLED, S.FAILED), True, "install"),
    ((S.SUPERSEDED, S.FAILED), True, "upgrade"),          # it deployed once: upgrade
])
def test_plan_is_helms_upgrade_install_rule(statuses, reinstall_failed, expected) -> None:
    history = [_version(s) for s in statuses]
    assert upgrade.plan(history, reinstall_failed=reinstall_failed) == expected


def test_upgrade_or_install_says_what_ran_and_takes_the_installs_own_options(
        cfg: config.Configuration, tmp_path: Path) -> None:
    chart = make_chart(tmp_path, {"a.yaml": configmap("a")})
    options = upgrade.UpgradeOptions(name="web", namespace=NS, install=True, description="up")
    action, done = upgrade.upgrade_or_install(cfg, chart, {}, options,
                                              install.InstallOptions(name="ignored", description="in"))
    assert (action, done.name, done.namespace, done.description) == ("install", "web", NS, "in")
    action, done = upgrade.upgrade_or_install(cfg, chart, {}, options)
    assert (action, done.description) == ("upgrade", "up")


def test_an_install_over_failed_versions_replaces_them_and_prunes_history(
        cfg: config.Configuration, tmp_path: Path) -> None:
    good = make_chart(tmp_path, {"a.yaml": configmap("a")})
    for _ in range(3):  # three failed installs (as a failed apply or wait leaves them)
        cfg.driver.create(_version(S.FAILED))
    options = upgrade.UpgradeOptions(name="web", namespace=NS, install=True, reinstall_failed=True,
                                     max_history=2)
    action, done = upgrade.upgrade_or_install(cfg, good, {}, options)
    assert action == "install"
    assert [v.status for v in cfg.driver.history(NS, "web")] == [S.FAILED, S.DEPLOYED]
    assert cfg.driver.history(NS, "web")[-1].version == done.version


def test_upgrade_or_install_decides_under_the_lock(cfg: config.Configuration, tmp_path: Path) -> None:
    """The caller's history only names the operation the lock announces: a release installed
    since the caller read it (empty) is upgraded, not installed over."""
    chart = make_chart(tmp_path, {"a.yaml": configmap("a")})
    options = upgrade.UpgradeOptions(name="web", namespace=NS, install=True)
    read_before = cfg.driver.history(NS, "web")
    assert read_before == []
    upgrade.upgrade_or_install(cfg, chart, {}, options)  # someone else installs meanwhile
    action, done = upgrade.upgrade_or_install(cfg, chart, {}, options, history=read_before)
    assert action == "upgrade"
    assert [v.status for v in cfg.driver.history(NS, "web")] == [S.SUPERSEDED, S.DEPLOYED]


def test_an_upgrade_reads_the_history_once(cluster, tmp_path: Path) -> None:
    """Under the lock, what is stored is what the lock's read found and what the upgrade wrote:
    superseding and pruning need no read of their own."""
    from helm_core.storage import secrets

    class Lists:
        def __init__(self) -> None:
            self.client, self.count = cluster.client(), 0

        def __getattr__(self, name: str) -> object:
            return getattr(self.client, name)

        def list(self, *args: object, **kwargs: object) -> list[dict]:
            self.count += 1
            return self.client.list(*args, **kwargs)

    api = Lists()
    cfg = config.Configuration(client=api, driver=secrets.SecretsDriver(api))
    chart = make_chart(tmp_path, {"a.yaml": configmap("a")})
    options = upgrade.UpgradeOptions(name="web", namespace=NS, install=True, max_history=3)
    for _ in range(3):
        upgrade.upgrade_or_install(cfg, chart, {}, options)
    api.count = 0
    action, done = upgrade.upgrade_or_install(cfg, chart, {}, options)
    assert action == "upgrade"
    assert api.count == 2  # the lock's read, and the one pruning the oldest version makes
    assert [v.status for v in cfg.driver.history(NS, "web")] == [S.SUPERSEDED, S.SUPERSEDED, S.DEPLOYED]
    assert cfg.driver.history(NS, "web")[-1].version == done.version
    api.count = 0
    upgrade.upgrade_or_install(cfg, chart, {}, replace(options, max_history=0))  # nothing pruned
    assert api.count == 1
