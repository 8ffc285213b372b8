"""engine.helm_funcs: Helm's encoders with their error folding, checked against helm's output."""
from __future__ import annotations

import math

import pytest

from helm_core.engine import helm_funcs as hf


def test_to_yaml_trims_newline_and_swallows_errors():
    assert hf.to_yaml({"a": [1, 2]}) == "a:\n- 1\n- 2"
    assert hf.to_yaml(math.nan) == ""


def test_to_yaml_pretty_is_yaml_v3_style():
    value = {"a": [1, 2, {"b": [3]}], "d": 1000000.0, "n": None, "l": "x " * 60}
    assert hf.to_yaml_pretty(value) == (
        "a:\n  - 1\n  - 2\n  - b:\n      - 3\nd: 1e+06\nl: '" + "x " * 60 + "'\n\"n\": null"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a: [1, 2\nb: 3\n", {"Error": "error converting YAML to JSON: yaml: line 1: did not find expected ',' or ']'"}),
        ("- a", {"Error": "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}"}),
        ("", {}),
        ("a: 1\n---\nb: 2", {"a": 1.0}),
    ],
    ids=["syntax", "not-a-map", "empty", "first-document"],
)
def test_from_yaml(text, expected):
    assert hf.from_yaml(text) == expected


def test_from_yaml_array_error_is_one_element_list():
    assert hf.from_yaml_array("a: 1") == [
        "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal object into Go value of type []interface {}"
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", {"Error": "unexpected end of JSON input"}),
        ("1e400", {"Error": "json: cannot unmarshal number into Go value of type map[string]interface {}"}),
        ('{"a" 1}', {"Error": "invalid character '1' after object key"}),
        ('{"a": 1}', {"a": 1.0}),
    ],
    ids=["empty", "number", "syntax", "ok"],
)
def test_from_json(text, expected):
    assert hf.from_json(text) == expected


def test_from_json_array_error_is_one_element_list():
    assert hf.from_json_array("{}") == ["json: cannot unmarshal object into Go value of type []interface {}"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"a": 1, "b": {"c": "x"}, "d": [1, 2], "e": 1.5}, 'a = 1\nd = [1, 2]\ne = 1.5\n\n[b]\n  c = "x"\n'),
        ({"a": {"b": {"c": 1.0}, "x y": [{"q": 1}, {"q": 2}]}, "z": [{"k": {"j": 1}}], "n": None},
         '[a]\n  [a.b]\n    c = 1.0\n\n  [[a."x y"]]\n    q = 1\n\n  [[a."x y"]]\n    q = 2\n\n[[z]]\n  [z.k]\n    j = 1\n'),
        ({"m": [{"a": 1, "b": {"c": 2}}, 3]}, "m = [{a = 1, b = {c = 2}}, 3]\n"),
        ([1, 2], "[1, 2]"),
        (1, "1"),
        ([{"a": 1}], "toml: top-level values must be Go maps or structs"),
        ({"a": [1, None]}, "toml: cannot encode array with nil element"),
    ],
    ids=["tables", "nested-and-arrays-of-tables", "inline", "top-array", "top-scalar", "top-table-array", "nil-element"],
)
def test_to_toml_matches_burntsushi(value, expected):
    assert hf.to_toml(value) == expected


def test_from_toml_keeps_ints():
    assert hf.from_toml('a = 1\nb = 1.5\n[c]\nd = "x"\n') == {"a": 1, "b": 1.5, "c": {"d": "x"}}
    assert "Error" in hf.from_toml("a = ")


def test_helm_func_map_removes_env_and_adds_helm_functions():
    funcs = hf.helm_func_map({"env": object, "expandenv": object, "upper": str.upper, "toJson": None})
    assert "env" not in funcs and "expandenv" not in funcs
    assert funcs["upper"] is str.upper and funcs["toJson"] is hf.to_json
    assert funcs["getHostByName"]("localhost") == ""


def test_required_fails_on_nil_and_empty_string_only():
    funcs = hf.bound_funcs(hf.RenderState(tset=None))
    with pytest.raises(hf.FuncError, match="^HELM_ERR_STARTneed xHELM_ERR_END$"):
        funcs["required"]("need x", None)
    with pytest.raises(hf.FuncError):
        funcs["required"]("need x", "")
    assert funcs["required"]("need x", 0) == 0
    assert funcs["required"]("need x", False) is False


def test_required_and_fail_pass_in_lint_mode():
    funcs = hf.bound_funcs(hf.RenderState(tset=None, lint_mode=True))
    assert funcs["required"]("need x", None) == ""
    assert funcs["fail"]("boom") == ""


def test_lookup_uses_the_provider():
    seen = []
    state = hf.RenderState(tset=None, lookup=lambda *args: seen.append(args) or {"kind": "Secret"})
    assert hf.bound_funcs(state)["lookup"]("v1", "Secret", "ns", "n") == {"kind": "Secret"}
    assert seen == [("v1", "Secret", "ns", "n")]
