"""Values merging as Helm 3.22 does it: user values, coalescing, globals, import-values, lookups.

The last section renders small fixture charts with the real ``helm template`` and compares
every chart's ``.Values`` (structure and Go types) with ours.
"""
from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from helm_core.golib import goyaml
from helm_core.golib.gotypes import Int64
from helm_core.chart import model, values
from helm_core.errors import ValuesError
from helm_core.support import helmlog


def _chart(name: str, values_yaml: str = "", subs: tuple[model.Chart, ...] = (),
           deps: tuple[model.Dependency, ...] = ()) -> model.Chart:
    chart = model.Chart(
        metadata=model.Metadata(api_version="v2", name=name, version="0.1.0", dependencies=list(deps)),
        values=goyaml.load_values(values_yaml, context="cannot load values.yaml"),
    )
    for sub in subs:
        chart.add_dependency(sub)
    return chart


def _y(text: str) -> dict[str, Any]:
    return goyaml.load_values(text, context="test")


# -- merge_user_values --------------------------------------------------------------------
def test_merge_user_values_later_file_wins_and_maps_merge() -> None:
    first = _y("a: {x: 1, w: 2}\nl: [1, 2]\nkeep: k")
    second = _y("a: {w: 3, z: null}\nl: [9]")
    merged = values.merge_user_values([first, second])
    assert merged == {"a": {"x": 1.0, "w": 3.0, "z": None}, "l": [9.0], "keep": "k"}


def test_merge_user_values_applies_flags_in_helms_order() -> None:
    merged = values.merge_user_values(
        [_y("a: file\nb: file\nc: file\nd: file\ne: file\nf: file")],
        set_json=['a={"j":1}', "b=1"],
        set=["b=2,c=3"],
        set_string=["c=3,d=4"],
        set_file=["d=path"],
        set_literal=["e=x,y"],
        file_reader=lambda path: f"content of {path}",
    )
    assert merged == {"a": {"j": 1.0}, "b": 2, "c": "3", "d": "content of path", "e": "x,y", "f": "file"}


def test_merge_user_values_does_not_change_the_given_files() -> None:
    given = _y("a: {b: 1}")
    before = copy.deepcopy(given)
    values.merge_user_values([given], set=["a.c=2"])
    assert given == before


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"set": ["a"]}, 'failed parsing --set data: key "a" has no value'),
        ({"set_string": ["a.b"]}, 'failed parsing --set-string data: key "b" has no value'),
        ({"set_literal": ["a"]}, 'failed parsing --set-literal data: key "a" has no value'),
        ({"set_json": ["a=[1,2"]}, "failed parsing --set-json data a=[1,2"),
        ({"set": ["x=1", "x.y=2"]},
         "failed parsing --set data: unable to parse key: interface conversion: "
         "interface {} is int64, not map[string]interface {}"),
    ],
    ids=["set", "set-string", "set-literal", "set-json-names-the-flag-value", "later-flag-conflicts"],
)
def test_merge_user_values_errors_read_as_the_cli_prints_them(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValuesError) as caught:
        values.merge_user_values([], **kwargs)
    assert str(caught.value) == message


def test_merge_user_values_default_file_reader_reads_text_and_words_errors_like_go(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("hello\n")
    merged = values.merge_user_values([], set_file=[f"a={tmp_path / 'f.txt'}"])
    assert merged == {"a": "hello\n"}
    missing = tmp_path / "nope"
    with pytest.raises(ValuesError) as caught:
        values.merge_user_values([], set_file=[f"a={missing}"])
    assert str(caught.value) == f"failed parsing --set-file data: open {missing}: no such file or directory"
    with pytest.raises(ValuesError) as caught:
        values.merge_user_values([], set_file=[f"a={tmp_path}"])
    assert str(caught.value) == f"failed parsing --set-file data: read {tmp_path}: is a directory"


def test_set_file_of_an_endless_device_stops_at_the_limit() -> None:
    # Helm's os.ReadFile of /dev/zero grows until the machine runs out of memory.
    with pytest.raises(ValuesError) as caught:
        values.read_user_file("/dev/zero", limit=1024)
    assert str(caught.value) == "read /dev/zero: more than 1024 bytes (a device or a stream without end?)"


def test_set_file_reads_a_fifo_as_helm_does(tmp_path: Path) -> None:
    import os
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text("from a pipe"))
    writer.start()
    merged = values.merge_user_values([], set_file=[f"a={fifo}"])
    writer.join()
    assert merged == {"a": "from a pipe"}


def test_merge_user_values_set_into_file_scalar_fails_like_helm() -> None:
    with pytest.raises(ValuesError) as caught:
        values.merge_user_values([_y("a: 1")], set=["a.b=2"])
    assert str(caught.value) == (
        "failed parsing --set data: unable to parse key: interface conversion: "
        "interface {} is float64, not map[string]interface {}"
    )


# -- coalesce_values: one chart -----------------------------------------------------------
COALESCE_CASES = [
    ("user-wins-maps-merge", "a: {x: 1, w: 2}\nb: 1", {"a": {"w": 3}}, {"a": {"x": 1.0, "w": 3}, "b": 1.0}),
    ("null-deletes-top-level-default", "a: 1\nb: 2", {"a": None}, {"b": 2.0}),
    ("null-deletes-nested-default", "a: {x: 1, w: {z: 2}}", {"a": {"w": None}}, {"a": {"x": 1.0}}),
    ("null-deletes-deep-default", "a: {b: {c: {d: 1, e: 2}}}", {"a": {"b": {"c": {"d": None}}}},
     {"a": {"b": {"c": {"e": 2.0}}}}),
    ("null-without-default-stays", "a: {x: 1}", {"n": None, "a": {"m": None}},
     {"n": None, "a": {"x": 1.0, "m": None}}),
    ("null-deletes-whole-map-default", "a: {x: 1}", {"a": None}, {}),
    ("chart-null-default-stays", "a: null\nb: {c: null}", {}, {"a": None, "b": {"c": None}}),
    ("lists-replace-not-merge", "l: [1, 2, 3]\nm: {l: [a]}", {"l": [9], "m": {"l": []}}, {"l": [9], "m": {"l": []}}),
    ("scalar-over-scalar", "a: 1", {"a": "x"}, {"a": "x"}),
    ("int-from-set-kept-int", "a: 1.5", {"a": 2}, {"a": 2}),
    ("empty-chart-values", "", {"a": {"b": 1}}, {"a": {"b": 1}}),
    ("user-empty-map-gets-defaults", "a: {x: 1}", {"a": {}}, {"a": {"x": 1.0}}),
]


@pytest.mark.parametrize("chart_yaml,user,expected", [c[1:] for c in COALESCE_CASES],
                         ids=[c[0] for c in COALESCE_CASES])
def test_coalesce_values_puts_chart_defaults_under_user_values(
    chart_yaml: str, user: dict[str, Any], expected: dict[str, Any]
) -> None:
    result = values.coalesce_values(_chart("c", chart_yaml), user)
    assert result == expected
    assert [type(v) for v in _leaves(result)] == [type(v) for v in _leaves(expected)]


CONFLICT_CASES = [
    ("scalar-over-map-default", "a: {x: 1}", {"a": 5}, {"a": 5},
     []),
    ("map-over-scalar-default", "a: 1", {"a": {"x": 1}}, {"a": {"x": 1}},
     ["coalesce.go:237: warning: skipped value for c.a: Not a table."]),
    ("nested-scalar-over-map", "a: {b: {x: 1}}", {"a": {"b": "s"}}, {"a": {"b": "s"}},
     ["coalesce.go:316: warning: cannot overwrite table with non table for c.a.b (map[x:1])"]),
    ("nested-map-over-scalar", "a: {b: 1.5}", {"a": {"b": {"y": 2}}}, {"a": {"b": {"y": 2}}},
     ["coalesce.go:319: warning: destination for c.a.b is a table. Ignoring non-table value (1.5)"]),
    ("nested-map-over-null-default", "a: {b: null}", {"a": {"b": {"y": 2}}}, {"a": {"b": {"y": 2}}}, []),
    ("map-over-null-default", "a: null", {"a": {"y": 2}}, {"a": {"y": 2}}, []),
]


@pytest.mark.parametrize("chart_yaml,user,expected,warnings", [c[1:] for c in CONFLICT_CASES],
                         ids=[c[0] for c in CONFLICT_CASES])
def test_coalesce_values_type_conflicts_keep_user_value_and_warn(
    chart_yaml: str, user: dict[str, Any], expected: dict[str, Any], warnings: list[str]
) -> None:
    with helmlog.recording() as seen:
        assert values.coalesce_values(_chart("c", chart_yaml), user) == expected
    assert seen == warnings


def test_coalesce_values_never_changes_chart_or_user_values() -> None:
    sub = _chart("s", "x: {w: 1}\nglobal: {g: {deep: {s: 1}}}")
    parent = _chart("p", "a: {b: 1}\ns: {x: {z: 2}}\nglobal: {g: {deep: {p: 1}}}", (sub,))
    user = {"a": {"b": None, "c": 3}, "s": {"x": None}, "global": {"g": {"u": 1}}}
    snapshot = (copy.deepcopy(parent.values), copy.deepcopy(sub.values), copy.deepcopy(user))
    first = values.coalesce_values(parent, user)
    first["a"]["new"] = 1
    second = values.coalesce_values(parent, user)
    assert (parent.values, sub.values, user) == snapshot
    assert "new" not in second["a"]


# -- coalesce_values: subcharts and globals -----------------------------------------------
def test_subchart_values_are_scoped_under_its_name_and_parent_wins() -> None:
    sub = _chart("s", "own: 1\nm: {a: 0, b: 0}")
    parent = _chart("p", "top: 1\ns: {m: {a: 1}}", (sub,))
    result = values.coalesce_values(parent, {"s": {"m": {"b": 2}}})
    assert result == {"top": 1.0, "s": {"own": 1.0, "m": {"a": 1.0, "b": 2}, "global": {}}}


def test_globals_flow_down_parent_wins_and_never_up() -> None:
    sub = _chart("s", "global: {g1: sub, g2: sub, m: {x: 0, w: 2}}")
    parent = _chart("p", "global: {g1: parent, m: {x: 1}}", (sub,))
    result = values.coalesce_values(parent, {"global": {"u": True}})
    assert result["global"] == {"g1": "parent", "m": {"x": 1.0}, "u": True}
    assert result["s"]["global"] == {"g1": "parent", "g2": "sub", "m": {"x": 1.0, "w": 2.0}, "u": True}


def test_global_maps_two_levels_deep_are_shared_with_the_parent_as_in_helm() -> None:
    sub = _chart("s", "global: {gm: {deep: {z: 2}, sib: 3}}")
    parent = _chart("p", "global: {gm: {deep: {x: 1}}}", (sub,))
    result = values.coalesce_values(parent, {})
    assert result["global"] == {"gm": {"deep": {"x": 1.0, "z": 2.0}}}
    assert result["s"]["global"] == {"gm": {"deep": {"x": 1.0, "z": 2.0}, "sib": 3.0}}


def test_globals_reach_grandchildren() -> None:
    leaf = _chart("leaf", "global: {l: 1}")
    mid = _chart("mid", "global: {m: 1}", (leaf,))
    root = _chart("root", "global: {r: 1}", (mid,))
    result = values.coalesce_values(root, {"global": {"u": 1}})
    assert result["mid"]["leaf"]["global"] == {"r": 1.0, "u": 1, "m": 1.0, "l": 1.0}
    assert result["global"] == {"r": 1.0, "u": 1}


def test_aliased_subchart_copies_get_their_own_sections() -> None:
    first = _chart("one", "name: default")
    second = _chart("two", "name: default")
    parent = _chart("p", "two: {name: from-parent}", (first, second))
    result = values.coalesce_values(parent, {"one": {"name": "from-user"}})
    assert result["one"]["name"] == "from-user"
    assert result["two"]["name"] == "from-parent"


def test_user_null_for_subchart_drops_parent_overrides_only() -> None:
    sub = _chart("s", "own: 1")
    parent = _chart("p", "s: {fromparent: 1}", (sub,))
    assert values.coalesce_values(parent, {"s": None}) == {"s": {"own": 1.0, "global": {}}}


@pytest.mark.parametrize(
    "user,message",
    [({"s": "foo"}, "type mismatch on s: %!t(string=foo)"),
     ({"s": Int64(3)}, "type mismatch on s: %!t(int64=3)"),
     ({"s": [1.5]}, "type mismatch on s: [%!t(float64=1.5)]")],
    ids=["string", "int", "list"],
)
def test_non_map_value_for_a_subchart_is_an_error(user: dict[str, Any], message: str) -> None:
    parent = _chart("p", "", (_chart("s", "own: 1"),))
    with pytest.raises(ValuesError) as caught:
        values.coalesce_values(parent, user)
    assert str(caught.value) == message


def test_non_map_global_is_skipped_with_a_warning() -> None:
    parent = _chart("p", "", (_chart("s", "global: {a: 1}"),))
    with helmlog.recording() as seen:
        result = values.coalesce_values(parent, {"global": 3})
    assert result == {"global": 3, "s": {"global": {"a": 1.0}}}
    assert seen == ["coalesce.go:145: warning: skipping globals because source global is not a table."]


# -- merge_values / coalesce_tables -------------------------------------------------------
def test_merge_values_keeps_nulls_that_coalesce_deletes() -> None:
    chart = _chart("c", "a: 1\nb: {c: 1}")
    assert values.merge_values(chart, {"a": None, "b": {"c": None}}) == {"a": None, "b": {"c": None}}
    assert values.coalesce_values(chart, {"a": None, "b": {"c": None}}) == {"b": {}}


def test_coalesce_tables_dst_wins_and_null_deletes() -> None:
    dst = {"a": None, "b": {"c": 1}, "n": None}
    src = {"a": 1, "b": {"c": 2, "d": 3}, "e": 4}
    assert values.coalesce_tables(dst, src) == {"b": {"c": 1, "d": 3}, "e": 4, "n": None}
    assert values.merge_tables(dst, src) == {"a": None, "b": {"c": 1, "d": 3}, "e": 4, "n": None}
    assert dst == {"a": None, "b": {"c": 1}, "n": None}
    assert src == {"a": 1, "b": {"c": 2, "d": 3}, "e": 4}


# -- import-values --------------------------------------------------------------------------
def _imports(*entries: Any) -> list[model.ImportValue]:
    out = []
    for entry in entries:
        if isinstance(entry, str):
            out.append(model.ImportValue(child=f"exports.{entry}", parent=".", raw=entry))
        else:
            out.append(model.ImportValue(child=entry["child"], parent=entry["parent"], raw=entry))
    return out


def test_import_values_exports_form_merges_child_exports_into_parent_root() -> None:
    sub = _chart("s", "exports: {data: {myint: 99, shared: child}}")
    dep = model.Dependency(name="s", import_values=_imports("data"))
    parent = _chart("p", "shared: parent", (sub,), (dep,))
    result = values.import_values(parent)
    assert result["myint"] == 99.0
    assert result["shared"] == "parent"
    assert result["s"] == {"exports": {"data": {"myint": 99.0, "shared": "child"}}, "global": {}}


def test_import_values_child_parent_form_places_child_table_at_parent_path() -> None:
    sub = _chart("s", "cfg: {a: 1, b: {c: 2}}")
    dep = model.Dependency(name="s", import_values=_imports({"child": "cfg", "parent": "x.w"}))
    parent = _chart("p", "x: {w: {a: 0}}", (sub,), (dep,))
    result = values.import_values(parent)
    assert result["x"] == {"w": {"a": 0.0, "b": {"c": 2.0}}}


def test_import_values_earlier_import_wins_over_later() -> None:
    sub = _chart("s", "exports: {one: {k: first}, two: {k: second, other: 1}}")
    dep = model.Dependency(name="s", import_values=_imports("one", "two"))
    result = values.import_values(_chart("p", "", (sub,), (dep,)))
    assert (result["k"], result["other"]) == ("first", 1.0)


def test_import_values_uses_alias_and_warns_on_missing_tables() -> None:
    sub = _chart("db", "exports: {data: {a: 1}}\nscalar: 1")
    dep = model.Dependency(name="db", alias="db", import_values=_imports(
        "nothere", {"child": "scalar", "parent": "p"}, "data"))
    with helmlog.recording() as seen:
        result = values.import_values(_chart("p", "", (sub,), (dep,)))
    assert result["a"] == 1.0 and "p" not in result
    assert seen == [
        'dependencies.go:287: Warning: ImportValues missing table: "nothere" is not a table',
        'dependencies.go:270: Warning: ImportValues missing table from chart db: "scalar" is not a table',
    ]


def test_import_values_keeps_nulls_and_a_chart_without_dependencies_as_is() -> None:
    lone = _chart("lone", "a: null\nb: 1")
    assert values.import_values(lone) == {"a": None, "b": 1.0}
    sub = _chart("s", "x: null")
    dep = model.Dependency(name="s")
    assert values.import_values(_chart("p", "a: null", (sub,), (dep,))) == {
        "a": None, "s": {"x": None, "global": {}}}


def test_import_values_accepts_replacement_own_values() -> None:
    sub = _chart("s", "exports: {data: {a: 1, b: 1}}")
    dep = model.Dependency(name="s", import_values=_imports("data"))
    parent = _chart("p", "b: chart", (sub,), (dep,))
    result = values.import_values(parent, {"b": "given"})
    assert (result["a"], result["b"]) == (1.0, "given")


def test_apply_import_values_works_bottom_up_on_a_new_tree() -> None:
    leaf = _chart("leaf", "exports: {l: {fromleaf: 1}}")
    mid = _chart("mid", "exports: {m: {frommid: 1}}", (leaf,),
                 (model.Dependency(name="leaf", import_values=_imports({"child": "exports.l", "parent": "exports.m"})),))
    root = _chart("root", "", (mid,), (model.Dependency(name="mid", import_values=_imports("m")),))
    before = (copy.deepcopy(root.values), copy.deepcopy(mid.values), copy.deepcopy(leaf.values))
    new = values.apply_import_values(root)
    assert new.values["frommid"] == 1.0 and new.values["fromleaf"] == 1.0
    assert new.dependencies[0].parent is new
    assert (root.values, mid.values, leaf.values) == before
    assert root.dependencies[0] is mid


# -- lookups --------------------------------------------------------------------------------
PATH_CASES = [
    ("top-level", {"a": True}, "a", True),
    ("nested", {"a": {"b": {"c": False}}}, "a.b.c", False),
    ("null-value", {"a": {"b": None}}, "a.b", None),
    ("list-value", {"a": [1]}, "a", [1]),
]


@pytest.mark.parametrize("data,path,expected", [c[1:] for c in PATH_CASES], ids=[c[0] for c in PATH_CASES])
def test_path_get_returns_non_map_values(data: dict[str, Any], path: str, expected: Any) -> None:
    assert values.path_get(data, path) == expected


@pytest.mark.parametrize(
    "data,path,message",
    [({"a": 1}, "b", '"b" is not a value'),
     ({"a": {"b": 1}}, "a", '"a" is not a value'),
     ({"a": 1}, "a.b.c", '"c" is not a value'),
     ({"a": {}}, "a.b", '"b" is not a value'),
     ({"a": 1}, "", "YAML path cannot be empty")],
    ids=["missing", "is-a-map", "parent-not-a-map", "missing-in-table", "empty-path"],
)
def test_path_get_raises_helms_errors(data: dict[str, Any], path: str, message: str) -> None:
    with pytest.raises(ValuesError) as caught:
        values.path_get(data, path)
    assert str(caught.value) == message


def test_table_get_returns_a_copy_and_names_the_missing_part() -> None:
    data = {"tags": {"x": True}, "a": {"b": 1}}
    found = values.table_get(data, "tags")
    found["y"] = False
    assert data["tags"] == {"x": True}
    with pytest.raises(ValuesError) as caught:
        values.table_get(data, "a.b.c")
    assert str(caught.value) == '"b" is not a table'


# -- conformance with the real helm binary ------------------------------------------------
HELM_FALLBACK = Path("/root/.cache/hc-bootstrap/bin/helm")

WALK_TPL = """{{- define "walk" -}}
{{- $p := .p -}}{{- $v := .v -}}
{{- if kindIs "map" $v -}}{{- range $k, $x := $v }}{{ include "walk" (dict "p" (printf "%s.%s" $p $k) "v" $x) }}{{ end -}}
{{- else if kindIs "slice" $v -}}{{- range $i, $x := $v }}{{ include "walk" (dict "p" (printf "%s[%d]" $p $i) "v" $x) }}{{ end -}}
{{- else -}}{{ $p }}\t{{ printf "%T" $v }}
{{ end -}}
{{- end -}}
"""

OUT_TPL = """apiVersion: v1
kind: ConfigMap
metadata:
  name: values-{{ .Chart.Name }}
data:
  where: {{ .Template.Name | quote }}
  values: {{ toJson .Values | quote }}
  types: {{ include "walk" (dict "p" "" "v" .Values) | quote }}
"""


def _helm() -> str:
    for candidate in (os.environ.get("HELM_BIN"), shutil.which("helm"), str(HELM_FALLBACK)):
        if candidate and Path(candidate).is_file():
            return candidate
    pytest.skip("helm binary not found (set HELM_BIN or put helm on PATH): conformance not checked")


def _write(root: Path, spec: dict[str, Any]) -> None:
    meta: dict[str, Any] = {"apiVersion": "v2", "name": spec["name"], "version": "0.1.0"}
    if spec.get("deps"):
        meta["dependencies"] = [{"version": "0.1.0", **d} for d in spec["deps"]]
    root.mkdir(parents=True)
    (root / "Chart.yaml").write_text(yaml.safe_dump(meta))
    (root / "values.yaml").write_text(spec.get("values", ""))
    (root / "templates").mkdir()
    (root / "templates" / "_walk.tpl").write_text(WALK_TPL)
    (root / "templates" / "out.yaml").write_text(OUT_TPL)
    for sub in spec.get("charts", []):
        _write(root / "charts" / sub["name"], sub)


def _model(spec: dict[str, Any], name: str | None = None) -> model.Chart:
    """The processed chart tree Helm renders: aliased copies carry the alias as their name."""
    by_name = {sub["name"]: sub for sub in spec.get("charts", [])}
    subs, deps = [], []
    declared = {d["name"] for d in spec.get("deps", [])}
    for sub in spec.get("charts", []):
        if sub["name"] not in declared:
            subs.append(_model(sub))
    for dep in spec.get("deps", []):
        effective = dep.get("alias") or dep["name"]
        subs.append(_model(by_name[dep["name"]], effective))
        deps.append(model.Dependency(name=effective, alias=dep.get("alias", ""),
                                     import_values=_imports(*dep.get("import-values", []))))
    return _chart(name or spec["name"], spec.get("values", ""), tuple(subs), tuple(deps))


def _types(value: Any, path: str = "") -> list[str]:
    if isinstance(value, dict):
        return [line for key in sorted(value) for line in _types(value[key], f"{path}.{key}")]
    if isinstance(value, list):
        return [line for i, item in enumerate(value) for line in _types(item, f"{path}[{i}]")]
    go = {bool: "bool", int: "int64", Int64: "int64", float: "float64", str: "string",
          type(None): "<nil>"}[type(value)]
    return [f"{path}\t{go}"]


def _ours(spec: dict[str, Any], files: list[str], flags: dict[str, list[str]],
          file_reader: Any) -> tuple[dict[str, Any], list[str]]:
    user = values.merge_user_values([_y(f) for f in files], file_reader=file_reader, **flags)
    with helmlog.recording() as seen:
        chart = values.apply_import_values(_model(spec))
        final = values.coalesce_values(chart, user)
    rendered: dict[str, Any] = {}

    def collect(c: model.Chart, vals: dict[str, Any]) -> None:
        rendered[c.chart_path()] = vals
        for sub in c.dependencies:
            collect(sub, vals[sub.name])

    collect(chart, final)
    return rendered, seen


def _theirs(tmp_path: Path, spec: dict[str, Any], files: list[str],
            flags: dict[str, list[str]]) -> tuple[dict[str, tuple[Any, list[str]]], list[str]]:
    _write(tmp_path / "chart", spec)
    args = [_helm(), "template", "rel", str(tmp_path / "chart")]
    for i, text in enumerate(files):
        path = tmp_path / f"user{i}.yaml"
        path.write_text(text)
        args += ["-f", str(path)]
    for flag, entries in flags.items():
        for entry in entries:
            args += ["--" + flag.replace("_", "-"), entry]
    proc = subprocess.run(args, capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = {}
    for doc in yaml.safe_load_all(proc.stdout):
        if doc:
            out[doc["data"]["where"].removesuffix("/templates/out.yaml")] = (
                json.loads(doc["data"]["values"]), doc["data"]["types"].splitlines())
    warnings = sorted({line for line in proc.stderr.splitlines() if ".go:" in line})
    return out, warnings


HELM_CASES = [
    ("nulls-lists-conflicts-and-set-typing", {
        "name": "c",
        "values": "keep: 1\ngone: x\nnested: {a: 1, b: {c: 2}, l: [1, 2], m: {x: 1}}\n"
                  "deep: {a: {b: {c: 1, d: 2}}}\ntyped: {f: 1.5, s: str}\n",
    }, ["nested: {l: [3]}\nextra: null\n"],
        {"set": ["gone=null,nested.b=null,nested.a.x=1,deep.a.b.c=null,typed.f=7,zero=0,z=007"],
         "set_string": ["typed.s=12"], "set_json": ['nested.m="str"', "j=[1,2.5]"]}),
    ("subchart-scoping-and-globals", {
        "name": "p",
        "values": "global: {g1: parent, gm: {deep: {x: 1}}}\ns: {fromparent: 1, sm: {q: 1}}\n",
        "deps": [{"name": "s"}],
        "charts": [{"name": "s", "values": "own: 1\nsm: {q: 0, r: 0}\n"
                                           "global: {g1: sub, g2: sub, gm: {deep: {z: 2}, sib: 3}}\n"}],
    }, [], {"set": ["s.sm.r=5,global.u=true,s.global.g1=user,s.global.only=user"]}),
    ("aliases-and-grandchildren", {
        "name": "p",
        "values": "first: {name: parent-first}\n",
        "deps": [{"name": "s", "alias": "first"}, {"name": "s", "alias": "second"}],
        "charts": [{"name": "s", "values": "name: default\nglobal: {fromsub: 1}\n",
                    "deps": [{"name": "leaf"}],
                    "charts": [{"name": "leaf", "values": "l: 1\nglobal: {fromleaf: 1}\n"}]}],
    }, [], {"set": ["second.name=user,second.leaf.l=2,global.top=1"]}),
    ("import-values-both-forms", {
        "name": "p",
        "values": "shared: parent\nx: {w: {a: 0}}\nnul: {k: 1}\n",
        "deps": [{"name": "s", "import-values": ["data", "other", {"child": "cfg", "parent": "x.w"},
                                                {"child": "missing", "parent": "m"}]}],
        "charts": [{"name": "s", "values": "exports: {data: {myint: 99, shared: child, nested: {a: 1}},"
                                           " other: {nested: {b: 2}, myint: 1}}\n"
                                           "cfg: {a: 1, b: {c: 2}, nil: null}\n"}],
    }, [], {"set": ["nul.k=null"]}),
    ("files-set-file-literal-and-subchart-null", {
        "name": "p",
        "values": "s: {fromparent: 1}\nlst: [a, b]\n",
        "deps": [{"name": "s"}],
        "charts": [{"name": "s", "values": "own: 1\n"}],
    }, ["a: {b: 1, c: 2}\nlst: [x]\n", "a: {c: null, d: 4}\ns: null\n"],
        {"set": ["lst[2]=z,a.e[1].f=1,a.b=null"], "set_file": ["content={f1,f1}"],
         "set_literal": ["lit=a,b=c"]}),
]


@pytest.mark.conformance
@pytest.mark.parametrize("spec,files,flags", [c[1:] for c in HELM_CASES], ids=[c[0] for c in HELM_CASES])
def test_values_match_helm_template(tmp_path: Path, spec: dict[str, Any], files: list[str],
                                    flags: dict[str, list[str]]) -> None:
    (tmp_path / "f1").write_text("file content\n")
    theirs, their_warnings = _theirs(tmp_path, spec, files, flags)
    ours, our_warnings = _ours(spec, files, flags, lambda path: (tmp_path / path).read_text())
    assert sorted(ours) == sorted(theirs)
    for name, vals in ours.items():
        assert (json.loads(json.dumps(vals)), _types(vals)) == theirs[name], name
    assert sorted(set(our_warnings)) == their_warnings



@pytest.mark.conformance
@pytest.mark.parametrize("spec,files,flags", [c[1:] for c in HELM_CASES], ids=[c[0] for c in HELM_CASES])
def test_loader_and_prepare_give_helms_values(tmp_path: Path, spec: dict[str, Any], files: list[str],
                                              flags: dict[str, list[str]]) -> None:
    """The same fixtures through the loader and dependency processing (aliases, imports)."""
    from helm_core.chart import loader, prepare

    (tmp_path / "f1").write_text("file content\n")
    theirs, _ = _theirs(tmp_path, spec, files, flags)
    user = values.merge_user_values([_y(f) for f in files],
                                    file_reader=lambda path: (tmp_path / path).read_text(), **flags)
    prepared = prepare.prepare_chart(loader.load(tmp_path / "chart"), user, validate_schema=False)
    assert (json.loads(json.dumps(prepared.values)), _types(prepared.values)) == theirs[spec["name"]]


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for key in sorted(value) for leaf in _leaves(value[key])]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


# -- real charts from ../shared/charts, through the loader and dependency processing -------
#: Deeper than any template of the shared charts, so Helm renders the probe first, before
#: templates that change .Values (sprig ``merge``/``set``) have run.
PROBE_DIR = "templates/zz/probe/first/before/every/other"
SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "charts"
REAL_CHARTS = sorted(p.name for p in SHARED.iterdir() if (p / "Chart.yaml").is_file()) if SHARED.is_dir() else []
REAL_SETS = {"prometheus": ["alertmanager.enabled=false,server.name=srv,global.x=1"]}


@pytest.mark.conformance
@pytest.mark.parametrize("name", REAL_CHARTS or ["<none>"])
def test_real_chart_values_match_helm_template(tmp_path: Path, name: str) -> None:
    if not REAL_CHARTS:
        pytest.skip(f"{SHARED} is absent: real-chart values not checked")
    from helm_core.chart import loader, prepare

    helm = _helm()
    root = tmp_path / name
    shutil.copytree(SHARED / name, root)
    (root / PROBE_DIR).mkdir(parents=True)
    (root / "templates" / "_zz_probe_walk.tpl").write_text(WALK_TPL.replace('"walk"', '"zzprobewalk"'))
    (root / PROBE_DIR / "probe.yaml").write_text(OUT_TPL.replace('"walk"', '"zzprobewalk"'))
    sets = REAL_SETS.get(name, ["global.x=1"])
    args = [helm, "template", "rel", str(root), "--show-only", f"{PROBE_DIR}/probe.yaml"]
    for entry in sets:
        args += ["--set", entry]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    doc = yaml.safe_load(proc.stdout)
    theirs = (json.loads(doc["data"]["values"]), doc["data"]["types"].splitlines())

    user = values.merge_user_values([], set=sets)
    prepared = prepare.prepare_chart(loader.load(root), user, validate_schema=False)
    assert (json.loads(json.dumps(prepared.values)), _types(prepared.values)) == theirs
