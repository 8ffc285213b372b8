"""Firing lifecycle events over a chart tree: order, scope, what may change."""
from __future__ import annotations

import pytest

from helm_core import errors, lua
from helm_core.lua import eventspec
from tests.lua import luakit

TRACE = "_.values.trace = (_.values.trace or '') .. '{tag};'"


def _obj(source: str, name: str, kind: str = "ConfigMap") -> lua.RenderedObject:
    return lua.RenderedObject(source, {"apiVersion": "v1", "kind": kind, "metadata": {"name": name}})


def test_handlers_run_in_weight_order_then_registration_order():
    src = "\n".join([
        luakit.handler("pre-render", TRACE.format(tag="w1"), 1),
        luakit.handler("pre-render", TRACE.format(tag="w0.5a"), 0.5),
        luakit.handler("pre-render", TRACE.format(tag="w0"), 0),
        luakit.handler("pre-render", TRACE.format(tag="w0.5b"), 0.5),
        'events.on("pre-render", function(_) ' + TRACE.format(tag="default") + " end)",
    ])
    c = luakit.chart("top", lua_files={"chart": src})
    with luakit.load(c) as scripts:
        ctx = scripts.fire("pre-render", luakit.context(c))
    assert ctx.values["trace"] == "w0;w0.5a;w0.5b;default;w1;"


def test_subcharts_run_first_depth_first_and_top_chart_last():
    def tagged(name, subs=()):
        body = "_.values.seen = true\nprint('" + name + "')"
        return luakit.chart(name, lua_files={"chart": luakit.handler("pre-render", body)}, subcharts=subs)

    top = tagged("top", [tagged("a", [tagged("a1"), tagged("a2")]), tagged("b")])
    log: list[str] = []
    with luakit.load(top, log=log) as scripts:
        ctx = scripts.fire("pre-render", luakit.context(top))
    assert log == ["top/charts/a/charts/a1: a1", "top/charts/a/charts/a2: a2", "top/charts/a: a",
                   "top/charts/b: b", "top: top"]
    assert ctx.values == {"seen": True, "a": {"seen": True, "a1": {"seen": True}, "a2": {"seen": True}},
                          "b": {"seen": True}}


def test_subchart_sees_its_scoped_values_and_changes_flow_into_parent_tree():
    sub = luakit.chart("sub", lua_files={"chart": luakit.handler("pre-render", (
        "_.values.replicas = _.values.replicas + 1\n"
        "_.values.fromGlobal = _.values.global.env"))})
    top = luakit.chart("top", lua_files={"chart": luakit.handler("pre-render", (
        "_.values.subReplicas = _.values.sub.replicas"))}, subcharts=[sub])
    values = {"global": {"env": "prod"}, "sub": {"replicas": 2.0, "global": {"env": "prod"}}}
    with luakit.load(top) as scripts:
        ctx = scripts.fire("pre-render", luakit.context(top, values))
    assert ctx.values == {"global": {"env": "prod"},
                          "sub": {"replicas": 3.0, "global": {"env": "prod"}, "fromGlobal": "prod"},
                          "subReplicas": 3.0}
    assert values == {"global": {"env": "prod"}, "sub": {"replicas": 2.0, "global": {"env": "prod"}}}


def test_pre_render_may_change_templates_and_choose_an_engine():
    src = luakit.handler("pre-render", (
        "_.templates[1].data = _.templates[1].data .. '# added\\n'\n"
        "table.insert(_.templates, {name = 'templates/extra.j2', data = 'x: {{ 1 }}', engine = 'jinja2'})"))
    c = luakit.chart("top", lua_files={"chart": src}, templates={"templates/a.yaml": b"a: 1\n"})
    with luakit.load(c) as scripts:
        ctx = scripts.fire("pre-render", luakit.context(c))
    assert ctx.templates == {"top": (lua.TemplateSource("templates/a.yaml", b"a: 1\n# added\n"),
                                     lua.TemplateSource("templates/extra.j2", b"x: {{ 1 }}", "jinja2"))}


def test_post_render_adds_changes_and_removes_objects():
    src = luakit.handler("post-render", (
        "local keep = array()\n"
        "for i, o in ipairs(_.objects) do\n"
        "  if o.metadata.name ~= 'drop' then\n"
        "    o.metadata.labels = {source = _.source(o)}\n"
        "    keep[#keep + 1] = o\n"
        "  end\n"
        "end\n"
        "keep[#keep + 1] = {apiVersion = 'v1', kind = 'Secret', metadata = {name = 'added'}}\n"
        "_.objects = keep"))
    c = luakit.chart("top", lua_files={"chart": src})
    objs = [_obj("top/templates/a.yaml", "keep"), _obj("top/templates/b.yaml", "drop")]
    with luakit.load(c) as scripts:
        ctx = scripts.fire("post-render", luakit.context(c, objects=objs))
    assert ctx.objects == (
        lua.RenderedObject("top/templates/a.yaml", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
            "name": "keep", "labels": {"source": "top/templates/a.yaml"}}}),
        lua.RenderedObject("top/ext/lua/chart.lua", {"apiVersion": "v1", "kind": "Secret",
                                                     "metadata": {"name": "added"}}),
    )


def test_subchart_post_render_sees_only_its_objects_and_keeps_their_place():
    sub = luakit.chart("sub", lua_files={"chart": luakit.handler("post-render", (
        "for i, o in ipairs(_.objects) do o.metadata.name = 'sub-' .. o.metadata.name end"))})
    top = luakit.chart("top", subcharts=[sub])
    objs = [_obj("top/templates/a.yaml", "a"), _obj("top/charts/sub/templates/b.yaml", "b"),
            _obj("top/templates/c.yaml", "c")]
    with luakit.load(top) as scripts:
        ctx = scripts.fire("post-render", luakit.context(top, objects=objs))
    assert [o.object["metadata"]["name"] for o in ctx.objects] == ["a", "sub-b", "c"]


def test_values_are_read_only_after_render():
    c = luakit.chart("top", lua_files={"chart": luakit.handler("post-render", "_.values.x = 1")})
    with luakit.load(c) as scripts, pytest.raises(errors.LuaError) as info:
        scripts.fire("post-render", luakit.context(c, {"a": 1}))
    assert str(info.value) == 'chart "top": ext/lua/chart.lua:2: _.values.x is read-only'
    assert (info.value.chart, info.value.file, info.value.line) == ("top", "ext/lua/chart.lua", 2)


def test_objects_are_read_only_after_install():
    c = luakit.chart("top", lua_files={"chart": luakit.handler("post-install", "_.objects[1].kind = 'X'")})
    with luakit.load(c) as scripts, pytest.raises(errors.LuaError) as info:
        scripts.fire("post-install", luakit.context(c, objects=[_obj("top/templates/a.yaml", "a")]))
    assert str(info.value) == 'chart "top": ext/lua/chart.lua:2: _.objects[1].kind is read-only'


@pytest.mark.parametrize("part", ["chart", "release", "capabilities", "files", "dependencies"])
def test_fixed_parts_are_read_only_tables_with_field_reads(part):
    body = f"local n = 0\nfor k in pairs(_.{part}) do n = n + 1 end\nassert(n > 0)\n_.{part}.x = 1"
    c = luakit.chart("top", lua_files={"chart": luakit.handler("pre-render", body)},
                     files={"files/a.txt": b"hello"},
                     dependencies=[lua_dep()])
    with luakit.load(c) as scripts, pytest.raises(errors.LuaError) as info:
        scripts.fire("pre-render", luakit.context(c))
    assert str(info.value) == f'chart "top": ext/lua/chart.lua:5: _.{part}.x is read-only'


def lua_dep():
    from helm_core.chart import model
    return model.Dependency(name="db", version="1.0.0", repository="https://example.com/charts")


def test_context_fields_read_as_plain_values():
    body = (
        "_.values.info = {\n"
        "  chart = _.chart.name .. '@' .. _.chart.version .. ' app ' .. _.chart.appVersion,\n"
        "  release = _.release.name .. ' in ' .. _.release.namespace,\n"
        "  kube = _.capabilities.kubeVersion.version,\n"
        "  file = _.files[1].name .. '=' .. _.files[1].data,\n"
        "  dep = _.dependencies[1].name .. ' ' .. _.dependencies[1].repository,\n"
        "  nfiles = #_.files,\n"
        "}")
    c = luakit.chart("top", lua_files={"chart": luakit.handler("pre-render", body)},
                     files={"files/a.txt": b"hello"}, dependencies=[lua_dep()])
    with luakit.load(c) as scripts:
        ctx = scripts.fire("pre-render", luakit.context(c))
    assert ctx.values["info"] == {"chart": "top@1.2.3 app 4.5", "release": "rel in ns", "kube": "v1.37.0",
                                  "file": "files/a.txt=hello", "dep": "db https://example.com/charts",
                                  "nfiles": 1}


@pytest.mark.parametrize("event", sorted(eventspec.EVENTS), ids=sorted(eventspec.EVENTS))
def test_each_event_runs_its_handlers_with_its_mutable_parts(event):
    spec = eventspec.EVENTS[event]
    body = (f"print(#_.objects, _.release.name)" if "templates" not in spec.mutable
            else f"print(#_.templates, _.release.name)")
    if "values" in spec.mutable:
        body += "\n_.values.touched = '" + event + "'"
    if "objects" in spec.mutable:
        body += "\n_.objects[1].metadata.name = 'touched'"
    c = luakit.chart("top", lua_files={"chart": luakit.handler(event, body)}, templates={"templates/a.yaml": b""})
    log: list[str] = []
    ctx0 = luakit.context(c, {"a": 1}, [_obj("top/templates/a.yaml", "a")])
    with luakit.load(c, log=log) as scripts:
        ctx = scripts.fire(event, ctx0)
    assert log == ["top: 1\trel"]
    assert ctx.values == ({"a": 1, "touched": event} if "values" in spec.mutable else {"a": 1})
    name = ctx.objects[0].object["metadata"]["name"]
    assert name == ("touched" if "objects" in spec.mutable else "a")


@pytest.mark.parametrize("action", sorted(eventspec.ACTIONS), ids=sorted(eventspec.ACTIONS))
def test_each_action_event_list_fires_in_order(action):
    events = eventspec.ACTIONS[action]
    src = "\n".join(f'events.on("{e}", function(_) print("{e}") end)' for e in events)
    c = luakit.chart("top", lua_files={"chart": src})
    log: list[str] = []
    ctx = luakit.context(c)
    with luakit.load(c, log=log) as scripts:
        for e in events:
            ctx = scripts.fire(e, ctx)
    assert log == [f"top: {e}" for e in events]


def test_unknown_event_name_in_script_is_an_error_at_load():
    c = luakit.chart("top", lua_files={"chart": 'events.on("pre-rendr", function() end)'})
    with pytest.raises(errors.LuaError) as info:
        luakit.load(c)
    assert str(info.value) == "chart \"top\": ext/lua/chart.lua:1: events.on: unknown event 'pre-rendr'"


@pytest.mark.parametrize(("args", "message"), [
    ('"pre-render", 2, function() end', "events.on: weight must be a number from 0 to 1"),
    ('"pre-render", -0.1, function() end', "events.on: weight must be a number from 0 to 1"),
    ('"pre-render", 0.5, "f"', "events.on: handler must be a function"),
], ids=["weight-above-1", "weight-below-0", "handler-not-function"])
def test_bad_registrations_are_errors(args, message):
    c = luakit.chart("top", lua_files={"chart": f"events.on({args})"})
    with pytest.raises(errors.LuaError) as info:
        luakit.load(c)
    assert str(info.value) == f'chart "top": ext/lua/chart.lua:1: {message}'


def test_unknown_event_fired_by_caller_is_a_value_error():
    c = luakit.chart("top", lua_files={"chart": ""})
    with luakit.load(c) as scripts, pytest.raises(ValueError, match="unknown lifecycle event 'render'"):
        scripts.fire("render", luakit.context(c))


def test_chart_without_lua_starts_nothing_and_returns_context_unchanged():
    c = luakit.chart("top", subcharts=[luakit.chart("sub")])
    scripts = lua.load_chart_scripts(c, accepted_permissions=(), session_factory=_no_session)
    ctx = luakit.context(c, {"a": 1})
    assert scripts.fire("pre-render", ctx) is ctx
    assert scripts.handlers == {}


def _no_session():
    raise AssertionError("a session was started for a chart without Lua")


def test_require_loads_modules_of_the_chart_once():
    c = luakit.chart("top", lua_files={
        "chart": 'local a = require("lib.util")\nlocal b = require("lib.util")\n'
                 'events.on("pre-render", function(_) _.values.same = (a == b); _.values.n = a.n end)',
        "lib/util": "count = (count or 0) + 1\nreturn {n = count}"})
    with luakit.load(c) as scripts:
        ctx = scripts.fire("pre-render", luakit.context(c))
    assert ctx.values == {"same": True, "n": 1}


def test_require_cannot_reach_a_subchart_module():
    sub = luakit.chart("sub", lua_files={"chart": "", "secret": "return 42"})
    top = luakit.chart("top", lua_files={"chart": 'require("secret")'}, subcharts=[sub])
    with pytest.raises(errors.LuaError) as info:
        luakit.load(top)
    assert str(info.value) == "chart \"top\": ext/lua/chart.lua:1: module 'secret' not found in ext/lua/ of chart 'top'"


def test_require_loop_is_an_error():
    c = luakit.chart("top", lua_files={"chart": 'require("a")', "a": 'require("b")', "b": 'require("a")'})
    with pytest.raises(errors.LuaError) as info:
        luakit.load(c)
    assert str(info.value) == "chart \"top\": ext/lua/b.lua:1: module 'a' is required in a loop"


def test_require_count_is_limited():
    from helm_core.support import records
    mods = {f"m{i}": "return 1" for i in range(3)}
    c = luakit.chart("top", lua_files={"chart": 'require("m0") require("m1") require("m2")', **mods})
    with pytest.raises(errors.LuaError) as info:
        luakit.load(c, limits=records.replace(luakit.TEST_LIMITS, max_modules=2))
    assert str(info.value) == 'chart "top": ext/lua/chart.lua:1: too many modules required (limit 2)'


def test_syntax_error_names_file_and_line():
    c = luakit.chart("top", lua_files={"chart": "local x = 1\nlocal = 2"})
    with pytest.raises(errors.LuaError) as info:
        luakit.load(c)
    assert str(info.value) == "chart \"top\": ext/lua/chart.lua:2: <name> expected near '='"
    assert (info.value.file, info.value.line) == ("ext/lua/chart.lua", 2)


def test_print_goes_to_the_log_not_stdout(capsys):
    c = luakit.chart("top", lua_files={"chart": 'print("hello", 1, true, nil, {})'})
    log: list[str] = []
    luakit.load(c, log=log).close()
    assert log == ["top: hello\t1\ttrue\tnil\ttable"]
    assert capsys.readouterr().out == ""


def test_each_chart_has_its_own_runtime():
    sub = luakit.chart("sub", lua_files={"chart": "shared = 'sub'"})
    top = luakit.chart("top", lua_files={"chart": luakit.handler("pre-render", "_.values.shared = tostring(shared)")},
                       subcharts=[sub])
    with luakit.load(top) as scripts:
        ctx = scripts.fire("pre-render", luakit.context(top))
    assert ctx.values["shared"] == "nil"


def test_empty_list_stays_a_list_and_new_empty_table_is_a_map():
    c = luakit.chart("top", lua_files={"chart": luakit.handler("pre-render", (
        "table.remove(_.values.items)\n_.values.fresh = {}\n_.values.marked = array()"))})
    with luakit.load(c) as scripts:
        ctx = scripts.fire("pre-render", luakit.context(c, {"items": ["x"]}))
    assert ctx.values == {"items": [], "fresh": {}, "marked": []}


def test_integers_and_floats_keep_their_go_types():
    c = luakit.chart("top", lua_files={"chart": luakit.handler("pre-render", (
        "_.values.f = _.values.f + 1\n_.values.i = _.values.i + 1\n_.values.new = 3"))})
    with luakit.load(c) as scripts:
        ctx = scripts.fire("pre-render", luakit.context(c, {"f": 1.0, "i": 1}))
    assert ctx.values == {"f": 2.0, "i": 2, "new": 3}
    assert [type(ctx.values[k]) for k in ("f", "i", "new")] == [float, int, int]
