"""Data crossing the Python/Lua boundary: copies, Go types, limits, no code."""
from __future__ import annotations

import math

import pytest

from helm_core import errors

from helm_core.support import records
from helm_core.lua import convert, limits as limits_mod
from tests.lua import luakit


def _roundtrip(values, body="", limits=luakit.TEST_LIMITS):
    rt = luakit.runtime(luakit.handler("pre-render", body or "local x = 1"), limits=limits)
    return luakit.pre_render(rt, values)["values"]


@pytest.mark.parametrize("values", [
    {"s": "héllo \"quoted\" \\ back\nslash \x00 nul \x7f del ]] [[ ]=] \u2603 \U0001f600"},
    {"code": '"]=os.exit(),x=["', "k\"]=1,[\"evil": "v"},
    {"i": 1, "f": 1.0, "neg": -3, "big": 2**63 - 1, "small": -(2**63), "e": 1e300, "tiny": 5e-324},
    {"b": True, "n": False, "list": [1, "a", [], {}, [[2]]], "empty": {}},
    {"nested": {"a": {"b": {"c": ["d"]}}}},
], ids=["escapes", "injection-attempt", "numbers", "mixed", "nested"])
def test_values_round_trip_unchanged(values):
    assert _roundtrip(values) == values


def test_lua_string_literal_is_plain_ascii():
    lit = convert.lua_string("é\"\\\n]]".encode())
    assert lit == b'"\\195\\169\\034\\092\\010]]"'
    assert lit.isascii()


def test_integers_beyond_int64_become_floats():
    assert _roundtrip({"huge": 2**70}) == {"huge": float(2**70)}


def test_null_in_a_list_keeps_its_place():
    assert _roundtrip({"l": [1, None, 3]}) == {"l": [1, None, 3]}


@pytest.mark.parametrize(("values", "message"), [
    ({"d": {1: "x"}}, "_.values.d: map key 1 is not a string"),
    ({"o": object()}, "_.values.o: cannot pass a Python object to Lua"),
    ({"a": {"b": "x" * 2_000_000}}, "_.values.a.b: more than 1000000 bytes"),
    ({"l": list(range(20_000))}, "_.values.l[9994]: more than 10000 items"),
], ids=["non-string-key", "python-object", "too-many-bytes", "too-many-items"])
def test_data_that_cannot_be_passed_is_refused(values, message):
    rt = luakit.runtime(luakit.handler("pre-render", "local x = 1"))
    with pytest.raises(errors.LuaError) as info:
        luakit.pre_render(rt, values)
    assert str(info.value) == f'chart "c": cannot pass context to Lua: {message}'


def test_too_deep_data_is_refused_on_the_way_in():
    deep: dict = {}
    cur = deep
    for _ in range(60):
        cur["x"] = {}
        cur = cur["x"]
    rt = luakit.runtime(luakit.handler("pre-render", "local x = 1"))
    with pytest.raises(errors.LuaError, match=r"cannot pass context to Lua: _\.values\.x\.x.*: data nested deeper than 50 levels"):
        luakit.pre_render(rt, deep)


def test_nan_cannot_come_back_from_lua():
    rt = luakit.runtime(luakit.handler("pre-render", "_.values.n = 0/0"))
    with pytest.raises(errors.LuaError) as info:
        luakit.pre_render(rt)
    assert str(info.value) == 'chart "c": bad data returned by pre-render handlers: _.values.n: NaN and infinite numbers cannot be values'


def test_nan_from_python_reaches_lua_as_nan():
    assert _roundtrip({"n": math.nan}, body="_.values.isnan = _.values.n ~= _.values.n\n_.values.n = nil") == {
        "isnan": True}


def test_values_must_stay_a_map():
    rt = luakit.runtime(luakit.handler("pre-render", "_.values = array()"))
    with pytest.raises(errors.LuaError) as info:
        luakit.pre_render(rt)
    assert str(info.value) == 'chart "c": bad data returned by pre-render handlers: _.values: must be a table with string keys'


def test_python_inputs_are_not_mutated():
    values = {"a": {"b": [1, 2]}}
    _roundtrip(values, body="_.values.a.b[1] = 99\n_.values.a.c = true")
    assert values == {"a": {"b": [1, 2]}}


def test_max_depth_is_capped():
    with pytest.raises(ValueError, match="LuaLimits.max_depth must be from 1 to 100, got 101"):
        records.replace(limits_mod.LuaLimits(), max_depth=101)


@pytest.mark.parametrize(("event", "body", "message"), [
    ("pre-render", "_.templates = {a = 1}", "_.templates: must be a list (keys 1..n)"),
    ("pre-render", "_.templates[1] = 'x'", "_.templates[1]: must be a table"),
    ("pre-render", "_.templates[1] = {name = 'a', data = 'b', mode = 'x'}",
     "_.templates[1]: a template has only name, data and engine"),
    ("pre-render", "_.templates[1] = {name = 'a', data = 1}", "_.templates[1].data: expected a string"),
    ("pre-render", "_.templates[1] = {name = 'a'}", "_.templates[1]: a template needs a name and data"),
    ("post-render", "_.objects = 'none'", "_.objects: must be a list of tables"),
    ("post-render", "_.objects[1] = array({1, 2})", "_.objects[1]: an object must be a table with string keys"),
], ids=["templates-map", "template-not-table", "template-extra-field", "template-data-number",
        "template-no-data", "objects-string", "object-list"])
def test_mutable_parts_must_keep_their_shape(event, body, message):
    rt = luakit.runtime(luakit.handler(event, body))
    parts = {"values": {}, "templates": [{"name": "templates/a.yaml", "data": b"x", "engine": ""}]} \
        if event == "pre-render" else {"values": {}, "objects": [{"source": "c/templates/a.yaml", "object": {"kind": "A"}}]}
    with pytest.raises(errors.LuaError) as info:
        rt.fire(event, parts)
    assert str(info.value) == f'chart "c": bad data returned by {event} handlers: {message}'
