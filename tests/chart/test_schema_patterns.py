"""Values-schema patterns are Go regexps, as in Helm's validator (santhosh-tekuri/jsonschema with
Go's regexp): Go's syntax, a search (not anchored), linear time. Both checkers are covered: the
compiled closures (a pass) and jsonschema (a violation is worded by it)."""
from __future__ import annotations

from typing import Any

import pytest

from helm_core.chart import model, schema
from helm_core.errors import SchemaError

EVIL = "a" * 41 + "b"


def _validate(chart_schema: dict[str, Any], values: dict[str, Any]) -> None:
    chart = model.Chart(metadata=model.Metadata(api_version="v2", name="app", version="1.0.0"),
                        schema=chart_schema, schema_file="values.schema.json")
    schema.validate(chart, values)


def _violations(chart_schema: dict[str, Any], values: dict[str, Any]) -> list[str]:
    with pytest.raises(SchemaError) as err:
        _validate(chart_schema, values)
    return err.value.violations


def test_go_syntax_dash_after_class():
    host = {"type": "object", "properties": {"host": {"type": "string", "pattern": r"^[\w-\.]+$"}}}
    _validate(host, {"host": "my-app.example"})
    assert _violations(host, {"host": "a b"}) == [r"- at '/host': 'a b' does not match pattern '^[\\w-\\.]+$'"]


def test_pattern_is_a_search_not_a_full_match():
    _validate({"properties": {"x": {"pattern": "b"}}}, {"x": "abc"})


@pytest.mark.timeout(60)  # exponential in a backtracking engine
def test_catastrophic_pattern_completes():
    evil = {"properties": {"name": {"type": "string", "pattern": "^(a+)+$"}}}
    _validate(evil, {"name": "a" * 41})
    assert _violations(evil, {"name": EVIL}) == [f"- at '/name': '{EVIL}' does not match pattern '^(a+)+$'"]


@pytest.mark.timeout(60)
def test_catastrophic_pattern_properties_complete():
    evil = {"type": "object", "patternProperties": {"^(a|aa)*c$": {"type": "integer"}}, "additionalProperties": False}
    _validate(evil, {"aaac": 1})
    assert _violations(evil, {EVIL: 1}) == [
        f"- at '': additional properties '{EVIL}' not allowed"]
    assert _violations(evil, {"aac": "x"}) == ["- at '/aac': got string, want integer"]


def test_pattern_properties_joined_with_flags_mid_pattern():
    # jsonschema joins the patterns with "|" for additionalProperties: "(?i)a|b" is Go syntax.
    sch = {"type": "object", "patternProperties": {"^b$": {}, "(?i)^a$": {}}, "additionalProperties": False}
    _validate(sch, {"A": 1, "b": 2})
    assert _violations(sch, {"c": 1}) == ["- at '': additional properties 'c' not allowed"]


@pytest.mark.parametrize("pattern", ["(?=a)", r"(?<=a)b", r"\Z", r"a{1001}"])
def test_patterns_go_refuses_make_the_schema_invalid(pattern: str):
    # Python's re accepts all four; Go's regexp.Compile (Helm's validator) refuses them, and helm
    # says so in Go's words.
    with pytest.raises(SchemaError, match=r"- at '/properties/x/pattern': '.*' is not valid regex: error parsing regexp: "):
        _validate({"properties": {"x": {"pattern": pattern}}}, {"x": "a"})


def test_patterns_only_go_accepts_are_valid():
    _validate({"properties": {"x": {"pattern": r"\pN+\p{Greek}"}}}, {"x": "1α"})


def test_a_pattern_no_metaschema_checks_is_an_invalid_schema_not_a_traceback():
    draft4 = {"$schema": "http://json-schema.org/draft-04/schema#", "patternProperties": {"(": {"type": "integer"}}}
    with pytest.raises(SchemaError) as err:
        _validate(draft4, {"x(": "a"})
    assert str(err.value) == ("values don't meet the specifications of the schema(s) in the following chart(s):\n"
                              "app:\napp/values.schema.json: invalid schema: error parsing regexp: missing closing ): `(`")
