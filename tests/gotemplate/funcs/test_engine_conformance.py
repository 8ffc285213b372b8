"""Sprig functions run through our template engine give Helm's output and Helm's errors.

This checks what unit tests cannot: the Go signatures declared on every function
(argument conversion and Go's argument errors) and results printed by the engine.
"""
from __future__ import annotations

import pytest

from helm_core.gotemplate import Environment
from helm_core.gotemplate.funcs.sprig import SPRIG_FUNCS
from tests.gotemplate.funcs import helm_oracle, test_helm_conformance

pytestmark = pytest.mark.conformance

TEMPLATE = "sprigcheck/templates/cm.yaml"
#: Our side of test_helm_conformance.VALUES (YAML numbers are float64).
DATA = {"Values": {"f": 1.5, "s": "str", "l": [1.0, "a"], "m": {"a": 1.0, "b": {"c": "d"}}}}


def _render(text: str) -> str:
    tset = Environment(SPRIG_FUNCS).new_set()
    tset.parse(TEMPLATE, text)
    return tset.execute(TEMPLATE, DATA)


def test_engine_renders_every_case_like_helm() -> None:
    cases = test_helm_conformance.CASES
    rendered = helm_oracle.render_many([c[1] for c in cases], test_helm_conformance.VALUES)
    mismatches = []
    for (case_id, expr, _), helm_text in zip(cases, rendered):
        ours = _render("{{ (" + expr + ") | toString }}")
        if ours != helm_text:
            mismatches.append(f"{case_id}: {expr}\n  helm: {helm_text!r}\n  ours: {ours!r}")
    assert not mismatches, "\n".join(mismatches)


ERRORS = [
    "first .Values.nope", "mustFirst 1", "div 1 0", 'substr 5 6 "abc"', 'repeat -1 "a"',
    'dig "a" "b" "def" (dict "a" "x")', 'mustRegexMatch "a(" "x"', 'regexFind "a(" "x"',
    'semverCompare "!!" "1.0.0"', 'semver "x"', 'mustToDate "2006" "x"', 'mustDateModify "bad" now',
    'mustFromJson "{x"', "randInt 2 2", "chunk 0 (list 1)", "slice (list 1 2 3) 2 1", 'urlParse ":x"',
    "deepCopy .Values.nope", "divf 1 0", 'genSelfSignedCert "x" (list 1) nil 1', 'buildCustomCert "x" "y"',
    'decryptAES "pw" "YWJj"', 'trunc 2.5 "abc"', "upper 1", "add1", 'set .Values.nope "a" 1', 'ternary 1 2 "x"',
    'toRawJson (list (float64 "nan"))', "merge (dict) 1", 'urlJoin (dict "host" 1)', "typeIs 1 2",
    'round 1.5 "x"', "seq 1.5", "date 1 2", 'dateModify "1h" 1', 'unixEpoch "x"',
    '(semver "1.0.0").LessThan "x"', 'pluck "a" (dict) 1', 'get (list) "a"', "concat (list) 1",
    'mustToPrettyJson (list (float64 "inf"))', 'genSignedCert "x" nil nil 1 "ca"',
    'genSignedCert "x" nil nil 1 (dict)', 'trunc (add 1 2) "abcdef"', 'nindent (int64 2) "x"',
    'urlParse "http://a:b:c/"', 'urlParse "http://[::1"', 'urlParse "http://a b/"', 'urlParse "http://h%41/"',
    'urlParse "http://[1.2.3.4]/"', 'urlParse "http://u%zz@h/"',
]


@pytest.mark.parametrize("expr", ERRORS)
def test_engine_errors_read_like_helm(expr: str) -> None:
    helm_error = helm_oracle.render_error(expr).removeprefix("Error: ").split("\n", 1)[0]
    with pytest.raises(Exception) as err:
        _render("x: {{ " + expr + " }}\n")
    assert str(err.value) == helm_error
