"""The example chart through loader → values → pre-render → render → post-render."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from helm_core import lua

from helm_core.engine import manifests

from helm_core.support import records
from helm_core.chart import loader, model, prepare
from helm_core.engine import capabilities as caps_mod, render as render_mod

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "charts" / "lua-postrender"


def _render(chart: model.Chart, ctx: lua.EventContext) -> tuple[lua.RenderedObject, ...]:
    """Render with the context's values and templates, as the template action does."""
    templated = _with_templates(chart, ctx.templates)
    files = render_mod.render(templated, dict(ctx.values), options=render_mod.RenderOptions(
        release=caps_mod.ReleaseInfo(name=ctx.release.name, namespace=ctx.release.namespace),
        capabilities=caps_mod.make_capabilities(kube_version=caps_mod.DEFAULT_KUBE_VERSION)))
    docs = manifests.parse_documents(files)
    return tuple(lua.RenderedObject(d.source, yaml.safe_load(d.content)) for d in docs)


def _with_templates(chart: model.Chart, templates) -> model.Chart:
    copy = records.replace(chart, templates=[model.File(t.name, t.data) for t in templates[chart.chart_path()]],
                               dependencies=[])
    for sub in chart.dependencies:
        copy.add_dependency(_with_templates(sub, templates))
    return copy


@pytest.fixture()
def prepared():
    chart = loader.load(str(EXAMPLE))
    return prepare.prepare_chart(chart, {"replicaCount": 0})


@pytest.mark.parametrize("session_factory", [lua.InProcessSession, lua.WorkerSession], ids=["in-process", "worker"])
def test_example_chart_post_render_changes_the_rendered_objects(prepared, session_factory):
    log: list[str] = []
    with lua.load_chart_scripts(prepared.chart, accepted_permissions=(), log=log.append,
                                session_factory=session_factory) as scripts:
        ctx = lua.new_context(prepared.chart, release=lua.ReleaseInfo("demo"), values=prepared.values)
        ctx = scripts.fire("chart-loaded", ctx)
        ctx = scripts.fire("pre-render", ctx)
        assert ctx.values["replicaCount"] == 1  # raised from 0 by pre-render
        ctx = records.replace(ctx, values={**ctx.values, "replicaCount": 3.0})
        ctx = records.replace(ctx, objects=_render(prepared.chart, ctx))
        assert [o.object["kind"] for o in ctx.objects] == ["ConfigMap", "Deployment", "Service"]
        ctx = scripts.fire("post-render", ctx)
        ctx = scripts.fire("post-template", ctx)
    kinds = [(o.source, o.object["kind"], o.object["metadata"]["name"]) for o in ctx.objects]
    assert kinds == [
        ("lua-postrender/templates/deployment.yaml", "Deployment", "demo-web"),
        ("lua-postrender/templates/service.yaml", "Service", "demo-web"),
        ("lua-postrender/ext/lua/chart.lua", "PodDisruptionBudget", "demo-web"),
    ]
    for o in ctx.objects:
        assert o.object["metadata"]["labels"]["team"] == "platform"
    assert ctx.objects[0].object["spec"]["replicas"] == 3
    assert ctx.objects[2].object["spec"] == {"minAvailable": 1, "selector": {"matchLabels": {"app": "demo-web"}}}
    assert log == ["lua-postrender: dropping ConfigMap/demo-debug (debug is off)"]


def test_values_changed_in_pre_render_reach_the_rendered_output(prepared):
    with lua.load_chart_scripts(prepared.chart, accepted_permissions=(),
                                session_factory=lua.InProcessSession) as scripts:
        ctx = lua.new_context(prepared.chart, release=lua.ReleaseInfo("demo"), values=prepared.values)
        ctx = scripts.fire("pre-render", ctx)
        objects = _render(prepared.chart, ctx)
    deployment = next(o.object for o in objects if o.object["kind"] == "Deployment")
    assert deployment["spec"]["replicas"] == 1


def test_aliased_subchart_sees_and_changes_the_values_under_its_alias():
    from helm_core.chart import model as m
    from tests.lua import luakit

    sub = luakit.chart("sub", lua_files={"chart": luakit.handler("pre-render", "_.values.port = _.values.port + 1")},
                       files={"values.yaml": b""})
    sub.values = {"port": 80.0}
    top = luakit.chart("top", dependencies=[m.Dependency(name="sub", version="1.2.3", alias="db")], subcharts=[sub])
    prepared = prepare.prepare_chart(top, {"db": {"port": 5432}})
    assert [c.chart_path() for c in prepared.chart.dependencies] == ["top/charts/db"]
    with lua.load_chart_scripts(prepared.chart, accepted_permissions=(),
                                session_factory=lua.InProcessSession) as scripts:
        ctx = lua.new_context(prepared.chart, release=lua.ReleaseInfo("r"), values=prepared.values)
        ctx = scripts.fire("pre-render", ctx)
    assert ctx.values["db"]["port"] == 5433
