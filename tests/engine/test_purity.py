"""Every template function is either pure (its answer decided by its arguments) or counted as
impure (helm_core.engine.purity): the CLI keeps only outputs of renders that called no impure one."""
from __future__ import annotations

from helm_core.engine import helm_funcs, purity
from helm_core.gotemplate.funcs import builtins, sprig

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
