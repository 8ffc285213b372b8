"""Values a render gets never alias the chart's defaults, the user's values or another render's.

Templates change ``.Values`` in place (Sprig's ``set``, ``unset``, ``mergeOverwrite``), into the
top chart's values, a subchart's section, a subchart's own defaults and ``global``. A chart loaded
once is prepared and rendered twice, and one prepared chart is rendered twice (as the memo and
the render worker keep them): every render prints the same, and the loaded chart, the user's
values and the prepared values are as they were.
"""
from __future__ import annotations

import copy

import pytest

from helm_core.chart import loader, model, prepare
from helm_core.engine import render
from tests.chartkit import chart_yaml, write_chart

DEPENDS = "dependencies:\n- name: sub\n  version: 0.1.0\n"
IMPORTS = DEPENDS + "  import-values:\n  - child: own\n    parent: imported\n"

#: Each template prints what it found, then changes it: a render that sees a change made by
#: an earlier render (or made to the defaults) prints something else.
PARENT_TEMPLATE = """\
parent: {{ .Values.x | toJson }} {{ .Values.sub | toJson }} {{ .Values.global | toJson }}
{{- " " }}{{ .Values.imported | toJson }} {{ .Values.list | toJson }}
{{- $_ := set .Values.x.tab "added" "p" }}
{{- $_ := unset .Values.x.tab "drop" }}
{{- $_ := set .Values.x.u "added" "p" }}
{{- $_ := mergeOverwrite .Values.x (dict "z" 9 "m" (dict "k" "v")) }}
{{- $_ := set .Values.sub.s "added" "p" }}
{{- $_ := set .Values.sub.own "added" "p" }}
{{- $_ := set .Values.global.g "added" "p" }}
{{- $_ := set (index .Values.list 0) "added" "p" }}
{{- if .Values.imported }}{{ $_ := set .Values.imported "added" "p" }}{{ end }}
"""
SUB_TEMPLATE = """\
sub: {{ .Values | toJson }}
{{- $_ := set .Values.own "added" "s" }}
{{- $_ := unset .Values.own "o" }}
{{- $_ := set .Values.s "added" "s" }}
{{- $_ := set .Values.s2 "added" "s" }}
{{- $_ := set .Values.global.g "added" "s" }}
{{- $_ := merge .Values.deep.a (dict "b" (dict "new" 1)) }}
{{- $_ := set .Values.deep.a.b "added" "s" }}
"""


def _files(dependencies: str) -> dict[str, str]:
    return {
        "Chart.yaml": chart_yaml("parent") + dependencies,
        "values.yaml": ("x:\n  tab: {keep: 1, drop: 2}\n  u: {num: 1}\n  z: 1\n  w: 5\n"
                        "sub:\n  s: {a: 1}\n  s2: {a: 1}\nglobal:\n  g: {num: 1}\nlist: [{a: 1}]\n"),
        "templates/a.yaml": PARENT_TEMPLATE,
        "charts/sub/Chart.yaml": chart_yaml("sub"),
        "charts/sub/values.yaml": "own: {o: 1}\ns: {b: 2}\ns2: {b: 2}\ndeep: {a: {b: {c: 1}}}\nglobal: {g: {sub: 1}}\n",
        "charts/sub/templates/b.yaml": SUB_TEMPLATE,
    }


def _user_values() -> dict:
    # x.u comes from the user (a map the render changes); x.tab from the defaults under a user
    # map (coalesced table by table); x.w is deleted by the user's null; sub.s2 is the parent's
    # default, which the subchart's defaults are then merged into.
    return {"x": {"u": {"from": "user"}, "z": 2, "w": None}, "sub": {"s": {"c": 3}},
            "global": {"g": {"user": 1}}}


def _defaults(chart: model.Chart) -> list:
    """Every chart's values in the tree, deep-copied (what the loaded chart must keep)."""
    return [copy.deepcopy(chart.values), *(_defaults(sub) for sub in chart.dependencies)]


@pytest.mark.parametrize("dependencies", [DEPENDS, IMPORTS], ids=["depends", "import-values"])
def test_renders_change_only_their_own_values(tmp_path, dependencies):
    chart = loader.load(write_chart(tmp_path / "parent", _files(dependencies)))
    defaults = _defaults(chart)
    user = _user_values()

    outputs = []
    kept = []
    for _ in range(2):  # the same loaded chart, prepared twice
        prepared = prepare.prepare_chart(chart, user)
        values_before = copy.deepcopy(prepared.values)
        prepared_defaults = _defaults(prepared.chart)
        for _ in range(2):  # the same prepared chart, rendered twice
            outputs.append(render.render(prepared.chart, prepared.values))
            assert prepared.values == values_before
            assert _defaults(prepared.chart) == prepared_defaults
        kept.append(prepared)
        assert _defaults(chart) == defaults
        assert user == _user_values()

    assert all(out == outputs[0] for out in outputs[1:])
    first = outputs[0]
    # What the first render's templates saw: the values as prepared (the subchart renders first).
    assert first["parent/charts/sub/templates/b.yaml"].startswith(
        'sub: {"deep":{"a":{"b":{"c":1}}},"global":{"g":{"num":1,"sub":1,"user":1}},'
        '"own":{"o":1},"s":{"a":1,"b":2,"c":3},"s2":{"a":1,"b":2}}\n')
    assert first["parent/templates/a.yaml"].startswith(
        'parent: {"tab":{"drop":2,"keep":1},"u":{"from":"user","num":1},"z":2}')
    # Two prepared charts kept side by side: one's render never reaches the other's values.
    assert kept[0].values == kept[1].values
    assert kept[0].values is not kept[1].values


def _touch(value: object) -> None:
    """Change every map and list in ``value`` in place."""
    if isinstance(value, dict):
        for item in list(value.values()):
            _touch(item)
        value["touched"] = True
    elif isinstance(value, list):
        for item in value:
            _touch(item)
        value.append("touched")


@pytest.mark.parametrize("dependencies", [DEPENDS, IMPORTS], ids=["depends", "import-values"])
def test_prepared_values_are_the_callers_own(tmp_path, dependencies):
    """A caller may change the values prepare gave it (a library user, a Lua handler's merge):
    no map or list of them is the chart's or the user's."""
    chart = loader.load(write_chart(tmp_path / "parent", _files(dependencies)))
    defaults = _defaults(chart)
    user = _user_values()
    first = prepare.prepare_chart(chart, user)
    expected = copy.deepcopy(first.values)
    _touch(first.values)
    assert _defaults(chart) == defaults
    assert user == _user_values()
    again = prepare.prepare_chart(chart, user)
    assert again.values == expected
    assert _defaults(again.chart) == _defaults(first.chart)
