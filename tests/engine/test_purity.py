"""Every template function is either pure (its answer decided by its arguments) or counted as
impure (helm_core.engine.purity): the CLI keeps only outputs of renders that called no impure one."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from helm_core.chart import loader, prepare
from helm_core.engine import helm_funcs, purity, render
from helm_core.gotemplate.funcs import builtins, sprig
from tests.chartkit import chart_yaml, write_chart

#: Functions whose answer depends on their arguments (and the chart) only. A new function goes
#: here or into purity.IMPURE: a wrong "pure" would have the CLI print a stale answer.
PURE = frozenset("""
abbrev abbrevboth add add1 add1f addf adler32sum all any append atoi b32dec b32enc b64dec b64enc base
biggest buildCustomCert camelcase cat ceil chunk clean coalesce compact concat contains decryptAES deepCopy
deepEqual default derivePassword dict dig dir div divf duration empty ext first float64 floor fromJson
fromJsonArray fromToml fromYaml fromYamlArray get has hasKey hasPrefix hasSuffix hello indent initial
initials int int64 isAbs join kebabcase keys kindIs kindOf last list lower max maxf merge mergeOverwrite min
minf mod mul mulf mustAppend mustChunk mustCompact mustDeepCopy mustFirst mustFromJson mustHas mustInitial
mustLast mustMerge mustMergeOverwrite mustPrepend mustPush mustRegexFind mustRegexFindAll mustRegexMatch
mustRegexReplaceAll mustRegexReplaceAllLiteral mustRegexSplit mustRest mustReverse mustSlice mustToJson
mustToPrettyJson mustToRawJson mustUniq mustWithout nindent nospace omit osBase osClean osDir osExt osIsAbs
pick pluck plural prepend push quote regexFind regexFindAll regexMatch regexQuoteMeta regexReplaceAll
regexReplaceAllLiteral regexSplit repeat replace rest reverse round semver semverCompare seq set sha1sum
sha256sum sha512sum slice snakecase sortAlpha split splitList splitn squote sub subf substr swapcase ternary
title toDecimal toJson toPrettyJson toRawJson toString toStrings toToml toYaml toYamlPretty trim trimAll
trimPrefix trimSuffix trimall trunc tuple typeIs typeIsLike typeOf uniq unset until untilStep untitle upper
urlJoin urlParse values without wrap wrapWith
and call eq ge gt html index js le len lt ne not or print printf println urlquery
include tpl required fail
""".split())


def all_functions() -> set[str]:
    funcs = helm_funcs.helm_func_map(sprig.SPRIG_FUNCS)
    funcs.update(helm_funcs.bound_funcs(helm_funcs.RenderState(tset=None, exec_errors=())))
    return set(funcs) | set(builtins.BUILTINS)


def test_every_function_is_pure_or_counted() -> None:
    names = all_functions()
    assert names - PURE - purity.IMPURE == set()
    assert PURE & purity.IMPURE == set()
    assert purity.IMPURE <= names  # no stale name


def test_impure_calls_are_counted_and_signatures_kept() -> None:
    funcs = purity.tracked(helm_funcs.helm_func_map(sprig.SPRIG_FUNCS))
    before = purity.calls()
    funcs["upper"]("a")
    assert purity.calls() == before
    assert len(funcs["randAlphaNum"](5)) == 5
    assert purity.calls() == before + 1
    real = sprig.SPRIG_FUNCS["randAlphaNum"]
    assert getattr(funcs["randAlphaNum"], "__go_params__", None) == getattr(real, "__go_params__", None)


def _render_with(ledger: purity.Ledger, templates: dict[str, str], tmp_path: Path,
                 lookup: Any = None) -> dict[str, str]:
    chart = write_chart(tmp_path / "c", {"Chart.yaml": chart_yaml("c"), "values.yaml": "a:\n  k: 1\nx: ''\n",
                                         **{f"templates/{n}": t for n, t in templates.items()}})
    prepared = prepare.prepare_chart(loader.load(chart), {})
    return render.render(prepared.chart, prepared.values,
                         options=render.RenderOptions(ledger=ledger, lookup=lookup))


#: Helm renders c-config, then b-secret, then a-config (names in reverse order, at one depth).
SECRET_AND_CONFIG = {
    "a-config.yaml": "kind: ConfigMap\ndata:\n  x: {{ .Values.x | quote }}\n",
    "b-secret.yaml": "kind: Secret\ndata:\n  p: {{ randAlphaNum 8 | b64enc }}\n",
    "c-config.yaml": "kind: ConfigMap\ndata:\n  k: {{ .Values.a.k | quote }}\n",
}


def test_a_ledger_keeps_the_templates_that_called_no_impure_function(tmp_path: Path) -> None:
    ledger = purity.Ledger()
    out = _render_with(ledger, SECRET_AND_CONFIG, tmp_path)
    assert ledger.impure == {"c/templates/b-secret.yaml"} and ledger.first_write is None
    assert ledger.reusable() == {"c/templates/a-config.yaml": out["c/templates/a-config.yaml"],
                                 "c/templates/c-config.yaml": out["c/templates/c-config.yaml"]}
    # Given those outputs, a render takes them and renders only the rest.
    again = purity.Ledger({"c/templates/a-config.yaml": "kept a", "c/templates/c-config.yaml": "kept c"})
    out = _render_with(again, SECRET_AND_CONFIG, tmp_path)
    assert out["c/templates/a-config.yaml"] == "kept a" and out["c/templates/c-config.yaml"] == "kept c"
    assert "kind: Secret" in out["c/templates/b-secret.yaml"] and not again.stale


def test_templates_after_a_change_to_shared_values_are_not_kept(tmp_path: Path) -> None:
    # b generates a value and stores it in .Values; a (after it) prints it: a depends on b.
    templates = {**SECRET_AND_CONFIG,
                 "b-secret.yaml": "{{- $_ := set .Values \"x\" (randAlphaNum 8) }}kind: Secret\n"}
    ledger = purity.Ledger()
    _render_with(ledger, templates, tmp_path)
    assert ledger.first_write == "c/templates/b-secret.yaml"
    assert set(ledger.reusable()) == {"c/templates/c-config.yaml"}
    # Kept outputs after a template that now changes shared data: the render is stale.
    stale = purity.Ledger({"c/templates/a-config.yaml": "kept a"})
    _render_with(stale, templates, tmp_path)
    assert stale.stale


@pytest.mark.parametrize("change", [
    '{{- $_ := unset .Values.a "k" }}',
    '{{- $_ := set . "y" 1 }}',  # the top-level data is shared by the chart's templates
    '{{- $d := dict "a" .Values.a }}{{- $_ := merge $d (dict "a" (dict "n" 2)) }}',  # nested map, deep merge
    '{{- $_ := mergeOverwrite .Values.a (dict "k" 2) }}',
    '{{- $_ := set (index .Values "a") "k" 3 }}',
])
def test_every_way_of_changing_shared_data_is_seen(tmp_path: Path, change: str) -> None:
    ledger = purity.Ledger()
    _render_with(ledger, {"a-config.yaml": change + "kind: ConfigMap\n"}, tmp_path)
    assert ledger.first_write == "c/templates/a-config.yaml"


def test_changing_a_map_the_template_made_is_not_a_shared_change(tmp_path: Path) -> None:
    ledger = purity.Ledger()
    _render_with(ledger, {"a-config.yaml": '{{- $d := dict "k" 1 }}{{- $_ := set $d "k" 2 }}'
                                           '{{- $_ := merge $d (deepCopy .Values.a) }}kind: ConfigMap\n'}, tmp_path)
    assert ledger.first_write is None and ledger.impure == set()


def test_lookup_is_impure_only_when_a_cluster_answers(tmp_path: Path) -> None:
    templates = {"a-config.yaml": 'kind: ConfigMap\ndata: {{ lookup "v1" "Secret" "ns" "s" | toJson }}\n'}
    ledger = purity.Ledger()
    _render_with(ledger, templates, tmp_path)  # helm template's lookup: an empty map, always
    assert ledger.impure == set()
    ledger = purity.Ledger()
    _render_with(ledger, templates, tmp_path, lookup=lambda *_: {"kind": "Secret"})
    assert ledger.impure == {"c/templates/a-config.yaml"}
