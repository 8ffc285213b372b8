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
