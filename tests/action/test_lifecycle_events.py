"""install and upgrade fire the chart's Lua lifecycle events in the seeds' order."""
from __future__ import annotations

from pathlib import Path

from helm_core import lua
from helm_core.action import config, install, upgrade
from helm_core.action import template as template_action
from helm_core.kube import client as kclient
from helm_core.storage import secrets
from tests import chartkit
from tests.action.conftest import configmap

NS = "apps"
TRACED = ("chart-loaded", "pre-render", "post-render", "pre-install", "post-install",
          "pre-upgrade", "post-upgrade", "wait", "ready")
LUA_OPTIONS = template_action.LuaOptions(session_factory=lua.InProcessSession)


def _chart(root: Path) -> object:
    script = "\n".join(f'events.on("{e}", function(_) print("{e}") end)' for e in TRACED)
    script += ('\nevents.on("pre-install", function(_)\n'
               '  for _, o in ipairs(_.objects) do o.data.touched = "by-lua" end\nend)\n')
    from helm_core.chart import loader
    return loader.load(chartkit.write_chart(root, {
        "Chart.yaml": chartkit.chart_yaml("demo"), "values.yaml": "greeting: hello\n",
        "templates/a.yaml": configmap("a"), "ext/lua/chart.lua": script}))


def test_install_and_upgrade_fire_their_events_in_order(cfg: config.Configuration,
                                                        tmp_path: Path) -> None:
    lines: list[str] = []
    traced = config.Configuration(client=cfg.client, driver=secrets.SecretsDriver(cfg.client),
                                  log=lines.append)
    chart = _chart(tmp_path)
    install.run(traced, chart, {}, install.InstallOptions(name="web", namespace=NS, wait=True,
                                                          lua=LUA_OPTIONS))
    assert [line.removeprefix("demo: ") for line in lines if line.removeprefix("demo: ") in TRACED] == [
        "chart-loaded", "pre-render", "post-render", "pre-install", "post-install", "wait", "ready"]
    live = cfg.client.get(kclient.ObjectRef("v1", "ConfigMap", "a", NS))
    assert live["data"] == {"greeting": "hello", "touched": "by-lua"}
    lines.clear()
    upgrade.run(traced, chart, {"greeting": "again"},
                upgrade.UpgradeOptions(name="web", namespace=NS, lua=LUA_OPTIONS))
    assert [line.removeprefix("demo: ") for line in lines if line.removeprefix("demo: ") in TRACED] == [
        "chart-loaded", "pre-render", "post-render", "pre-upgrade", "post-upgrade"]


def test_template_without_chart_extensions_renders_as_with_them(tmp_path: Path) -> None:
    """A chart tree with no ext/ files skips the lifecycle machinery; the result is the same,
    and a permissions file alone (no Lua) still has to be accepted."""
    import pytest

    from helm_core.chart import loader
    from helm_core.errors import LuaError

    files = {"Chart.yaml": chartkit.chart_yaml("plain"), "values.yaml": "greeting: hello\n",
             "templates/a.yaml": configmap("a"), "templates/NOTES.txt": "hi {{ .Release.Name }}"}
    plain = template_action.run(loader.load(chartkit.write_chart(tmp_path / "plain", files)), {"x": 1})
    traced = {**files, "ext/lua/chart.lua": 'events.on("post-render", function(_) end)'}
    with_lua = template_action.run(loader.load(chartkit.write_chart(tmp_path / "lua", traced)), {"x": 1},
                                   template_action.TemplateOptions(lua=LUA_OPTIONS))
    assert [(m.source, m.content) for m in plain.manifests] == [(m.source, m.content) for m in with_lua.manifests]
    assert plain.values == with_lua.values and plain.notes == with_lua.notes == "hi release-name"
    asking = {**files, "ext/permissions.yaml": "lua: [network]\n"}
    with pytest.raises(LuaError, match="asks for Lua permissions"):
        template_action.run(loader.load(chartkit.write_chart(tmp_path / "asking", asking)), {})


# -- actions that work from a stored version: its kept Lua answers their events ----------------

STORED_EVENTS = ("pre-rollback", "post-rollback", "pre-delete", "post-delete", "pre-test", "post-test",
                 "failed-test")


def _stored_chart(root: Path, *, greeting: str, asks: str = "") -> object:
    """A chart whose Lua prints each stored-version event with the values and revision it saw,
    and whose pre-rollback handler labels the objects it re-applies."""
    script = "\n".join(f'events.on("{e}", function(_) print("{e} " .. _.values.greeting .. " r" '
                       f'.. _.release.revision .. " " .. #_.objects) end)' for e in STORED_EVENTS)
    script += ('\nevents.on("pre-rollback", function(_)\n'
               '  for _, o in ipairs(_.objects) do o.data.restored = "by-lua" end\nend)\n')
    files = {"Chart.yaml": chartkit.chart_yaml("demo"), "values.yaml": f"greeting: {greeting}\n",
             "templates/a.yaml": configmap("a"), "ext/lua/chart.lua": script,
             "templates/check.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: check\n"
                                     "  annotations:\n    helm.sh/hook: test\n"}
    if asks:
        files["ext/permissions.yaml"] = f"lua: [{asks}]\n"
    from helm_core.chart import loader
    return loader.load(chartkit.write_chart(root, files))


def _said(lines: list[str]) -> list[str]:
    return [line.removeprefix("demo: ") for line in lines if line.removeprefix("demo: ").split(" ")[0]
            in STORED_EVENTS]


def test_rollback_uninstall_and_test_run_the_versions_kept_lua(cfg: config.Configuration, tmp_path: Path) -> None:
    from helm_core.action import rollback, uninstall
    from helm_core.action import test as test_action

    lines: list[str] = []
    traced = config.Configuration(client=cfg.client, driver=secrets.SecretsDriver(cfg.client), log=lines.append)
    install.run(traced, _stored_chart(tmp_path / "v1", greeting="one"), {},
                install.InstallOptions(name="web", namespace=NS, lua=LUA_OPTIONS))
    upgrade.run(traced, _stored_chart(tmp_path / "v2", greeting="two"), {},
                upgrade.UpgradeOptions(name="web", namespace=NS, lua=LUA_OPTIONS))
    assert _said(lines) == []

    test_action.run(traced, "web", NS, lua=LUA_OPTIONS)
    assert _said(lines) == ["pre-test two r2 1", "post-test two r2 1"]  # the objects: the one test
    lines.clear()
    back = rollback.run(traced, "web", NS, None, rollback.RollbackOptions(lua=LUA_OPTIONS))
    # the target's (version one's) Lua and values; the rollback is revision 3
    assert _said(lines) == ["pre-rollback one r3 1", "post-rollback one r3 1"]
    live = cfg.client.get(kclient.ObjectRef("v1", "ConfigMap", "a", NS))
    assert live["data"] == {"greeting": "one", "restored": "by-lua"}
    assert "restored: by-lua" in back.manifest  # what was applied is what the version stores
    lines.clear()
    uninstall.run(traced, "web", NS, uninstall.UninstallOptions(lua=LUA_OPTIONS))
    assert _said(lines) == ["pre-delete one r3 1", "post-delete one r3 1"]
    assert traced.driver.history(NS, "web") == []


def test_uninstall_no_hooks_skips_the_lua_and_permissions_are_checked_first(
        cfg: config.Configuration, tmp_path: Path) -> None:
    import pytest

    from helm_core.action import uninstall
    from helm_core.errors import LuaError
    from helm_core.storage import release as rel

    lines: list[str] = []
    traced = config.Configuration(client=cfg.client, driver=secrets.SecretsDriver(cfg.client), log=lines.append)
    accepting = template_action.LuaOptions(accepted_permissions=frozenset({"os"}),
                                           session_factory=lua.InProcessSession)
    install.run(traced, _stored_chart(tmp_path, greeting="one", asks="os"), {},
                install.InstallOptions(name="web", namespace=NS, lua=accepting))
    with pytest.raises(LuaError, match=r'chart "demo" asks for Lua permissions \[os\] but only \[\] were accepted'):
        uninstall.run(traced, "web", NS, uninstall.UninstallOptions(lua=LUA_OPTIONS))
    [kept] = traced.driver.history(NS, "web")  # refused before anything changed
    assert kept.status is rel.Status.DEPLOYED
    assert cfg.client.get(kclient.ObjectRef("v1", "ConfigMap", "a", NS))["data"]["greeting"] == "one"
    uninstall.run(traced, "web", NS, uninstall.UninstallOptions(no_hooks=True, lua=LUA_OPTIONS))
    assert _said(lines) == [] and traced.driver.history(NS, "web") == []


def test_a_chart_without_extensions_keeps_nothing(cfg: config.Configuration, tmp_path: Path) -> None:
    from tests.action.conftest import make_chart

    done = install.run(cfg, make_chart(tmp_path, {"a.yaml": configmap("a")}), {},
                       install.InstallOptions(name="web", namespace=NS))
    assert done.extensions == ""
    secret = secrets.encode(done)
    assert "extensions" not in secret["data"]
