"""A chart's Lua kept with a release version (``helm_core.lua.kept``) comes back as the chart
tree its events saw: paths, scopes, ``_.chart``, ``_.dependencies`` and ``_.files``."""
from __future__ import annotations

import pytest

from helm_core.chart import model, prepare
from helm_core.lua import context, kept, layout, permissions
from tests.lua import luakit


def _tree() -> model.Chart:
    leaf = luakit.chart("leaf", lua_files={"chart": luakit.handler("pre-delete", "print('leaf')")},
                        files={"files/conf.txt": b"\x00binary\xff"},
                        permissions="lua: [os]\n")
    plain = luakit.chart("plain", files={"files/big.txt": b"not kept"})
    top = luakit.chart("top", lua_files={"chart": luakit.handler("pre-delete", "print('top')"),
                                         "lib/util": "return {}"},
                       templates={"templates/a.yaml": b"kind: ConfigMap"},
                       dependencies=[model.Dependency(name="leaf", version="1.2.3", alias="db"),
                                     model.Dependency(name="plain", version="1.2.3", condition="plain.on")],
                       subcharts=[leaf, plain])
    return prepare.prepare_chart(top, {"plain": {"on": True}}).chart


def test_the_kept_tree_shows_what_the_rendered_one_showed() -> None:
    chart = _tree()
    back = kept.unpack(kept.pack(chart), source="web version 1")
    assert back is not None
    before, after = permissions.walk(chart), permissions.walk(back)
    assert [c.chart_path() for c in after] == [c.chart_path() for c in before] == [
        "top/charts/db", "top/charts/plain", "top"]
    for was, now in zip(before, after, strict=True):
        shown, kept_parts = context.static_parts(was), context.static_parts(now)
        if not any(f.name.startswith(layout.EXT_DIR) for f in was.files):  # shown to no Lua: not kept
            shown["files"] = []
        assert kept_parts == shown
        assert context.scope_path(now) == context.scope_path(was)
    assert permissions.requested_permissions(back) == {"top/charts/db": frozenset({"os"})}
    assert back.templates == [] and after[0].values == {}  # values come from the version


def test_a_tree_without_extensions_keeps_nothing_and_bad_text_is_named() -> None:
    assert kept.pack(luakit.chart("plain", files={"files/x": b"x"})) == ""
    assert kept.unpack("", source="v") is None
    with pytest.raises(ValueError, match="^web version 7: the chart's kept Lua is not readable"):
        kept.unpack('{"Chart.yaml": "not base64!"}', source="web version 7")
