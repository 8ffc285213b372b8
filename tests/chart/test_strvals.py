"""The --set family parser against Helm 3.22's pkg/strvals behaviour (texts checked with helm)."""
from __future__ import annotations

import copy
from typing import Any

import pytest

from helm_core.chart import strvals
from helm_core.golib.gotypes import Int64
from helm_core.errors import ValuesError

SET_CASES = [
    ("scalar", "name1=value1", {"name1": "value1"}),
    ("two-keys-trailing-comma", "a=1,b=2,", {"a": 1, "b": 2}),
    ("empty-value", "name1=,name2=value2", {"name1": "", "name2": "value2"}),
    ("empty-value-at-end", "a=", {"a": ""}),
    ("spaces-kept", "a=one two", {"a": "one two"}),
    ("bools-any-case", "t=true,f=FALSE,u=True", {"t": True, "f": False, "u": True}),
    ("null-any-case", "a=null,b=NULL", {"a": None, "b": None}),
    ("zero-int", "a=0", {"a": 0}),
    ("int", "a=1234567890", {"a": 1234567890}),
    ("negative-int", "a=-42", {"a": -42}),
    ("plus-sign-int", "a=+5", {"a": 5}),
    ("minus-zero", "a=-0", {"a": 0}),
    ("leading-zeros-stay-string", "a=00009", {"a": "00009"}),
    ("int64-overflow-stays-string", "a=9223372036854775808", {"a": "9223372036854775808"}),
    ("int64-max", "a=9223372036854775807", {"a": 9223372036854775807}),
    ("underscores-stay-string", "a=1_000", {"a": "1_000"}),
    ("float-stays-string", "a=1.5", {"a": "1.5"}),
    ("hex-stays-string", "a=0x1F", {"a": "0x1F"}),
    ("long-s-folds-to-false", "a=falſe", {"a": False}),
    ("escaped-comma", "a=one\\,two,b=x", {"a": "one,two", "b": "x"}),
    ("escaped-equals", "a=one\\=two", {"a": "one=two"}),
    ("escaped-dot-in-key", "a\\.b=c", {"a.b": "c"}),
    ("trailing-backslash-dropped", "a=b\\", {"a": "b"}),
    ("nested", "outer.middle.inner=v", {"outer": {"middle": {"inner": "v"}}}),
    ("nested-siblings", "o.a=1,o.b.c=2", {"o": {"a": 1, "b": {"c": 2}}}),
    ("nested-empty-value", "a.b=", {"a": {"b": ""}}),
    ("nested-empty-key-at-end", "a.=", {}),
    ("empty-leading-key-part-dropped", ".b=1", {}),
    ("list", "a={x,y}", {"a": ["x", "y"]}),
    ("list-typed", "a={1021,true,null}", {"a": [1021, True, None]}),
    ("empty-braces-one-empty-string", "a={}", {"a": [""]}),
    ("list-then-key", "a={x},b=1", {"a": ["x"], "b": 1}),
    ("nested-list", "a.b={x,y}", {"a": {"b": ["x", "y"]}}),
    ("index", "list[0]=foo", {"list": ["foo"]}),
    ("index-gap-filled-with-none", "l[0]=foo,l[3]=bar", {"l": ["foo", None, None, "bar"]}),
    ("index-map", "l[0].foo=bar,l[0].hello=world", {"l": [{"foo": "bar", "hello": "world"}]}),
    ("index-out-of-order", "n.l[1].f=b,n.l[0].f=a", {"n": {"l": [{"f": "a"}, {"f": "b"}]}}),
    ("index-only-no-value", "noval[0]", {"noval": []}),
    ("index-empty-value", "noval[0]=", {"noval": [""]}),
    ("index-map-empty-value-dropped", "a[0].b=", {"a": []}),
    ("index-scalar-then-map-in-place", "a[0]=1,a[0].b=", {"a": [{"b": ""}]}),
    ("index-scalar-replaced-by-map", "a[0]=1,a[0].b=2", {"a": [{"b": 2}]}),
    ("nested-index", "nested[0][0]=1", {"nested": [[1]]}),
    ("nested-index-gaps", "nested[1][1]=1", {"nested": [None, [None, 1]]}),
    ("index-list-value", "a[0]={x,y}", {"a": [["x", "y"]]}),
    ("max-index", "a[2]=x", {"a": [None, None, "x"]}),
    ("index-with-plus", "a[+1]=x", {"a": [None, "x"]}),
]


@pytest.mark.parametrize("text,expected", [c[1:] for c in SET_CASES], ids=[c[0] for c in SET_CASES])
def test_parse_set_types_and_nests_values(text: str, expected: dict[str, Any]) -> None:
    assert strvals.parse_set(text) == expected


def test_parse_set_int_is_go_int64_not_float_or_bool() -> None:
    parsed = strvals.parse_set("a=1,b=true")
    assert type(parsed["a"]) is Int64  # typeOf says int64, as in Helm
    assert type(parsed["b"]) is bool


ERROR_CASES = [
    ("key-without-value", "name1", 'key "name1" has no value'),
    ("nested-key-without-value", "a.b", 'key "b" has no value'),
    ("key-then-comma", "name1,name2=x", 'key "name1" has no value (cannot end with ,)'),
    ("double-comma", "a=1,,b=2", 'key "" has no value (cannot end with ,)'),
    ("empty-nested-key", "a.=b", 'key map "a" has no value'),
    ("empty-middle-key-part", "a..b=1", 'key map "a" has no value'),
    ("escaped-backslash-at-end-of-key", "a\\", 'key "a" has no value'),
    ("quote-in-key", 'a"b', 'key "a\\"b" has no value'),
    ("tab-in-key", "a\tb", 'key "a\\tb" has no value'),
    ("data-after-index", "illegal[0]name.foo=bar",
     "unexpected data at end of array index: ['n' 'a' 'm' 'e']"),
    ("comma-after-index", "a[0],b=1", "unexpected data at end of array index: [',' 'b']"),
    ("index-not-a-number", "a[x]=1", 'error parsing index: strconv.Atoi: parsing "x": invalid syntax'),
    ("index-empty", "a[]=1", 'error parsing index: strconv.Atoi: parsing "": invalid syntax'),
    ("index-out-of-range", "a[99999999999999999999]=1",
     'error parsing index: strconv.Atoi: parsing "99999999999999999999": value out of range'),
    ("index-unterminated", "a[1", "error parsing index: EOF"),
    ("index-negative", "list[0].foo=bar,list[-30].hello=world", "negative -30 index not allowed"),
    ("nested-index-negative", "a[0][-1]=x", "negative -1 index not allowed"),
    ("index-too-large", "a[65537]=1", "index of 65537 is greater than maximum supported index of 65536"),
    ("list-unterminated", "name1={1021,902", "list must terminate with '}'"),
    ("scalar-then-map", "a=1,a.b=2",
     "unable to parse key: interface conversion: interface {} is int64, not map[string]interface {}"),
    ("scalar-then-list", "a=x,a[0]=2",
     "unable to parse key: interface conversion: interface {} is string, not []interface {}"),
    ("null-then-map", "a=null,a.b=1",
     "unable to parse key: interface conversion: interface {} is nil, not map[string]interface {}"),
    ("item-then-nested-list", "a[0]=1,a[0][0]=2",
     "unable to parse key: interface conversion: interface {} is int64, not []interface {}"),
    ("list-then-map", "]={}].",
     "unable to parse key: interface conversion: interface {} is []interface {}, not map[string]interface {}"),
]


@pytest.mark.parametrize("text,message", [c[1:] for c in ERROR_CASES], ids=[c[0] for c in ERROR_CASES])
def test_parse_set_rejects_bad_input_with_helms_message(text: str, message: str) -> None:
    with pytest.raises(ValuesError) as caught:
        strvals.parse_set(text)
    assert str(caught.value) == message


def test_max_index_is_accepted_and_one_more_is_not() -> None:
    parsed = strvals.parse_set(f"a[{strvals.MAX_INDEX}]=x")
    assert len(parsed["a"]) == strvals.MAX_INDEX + 1
    assert parsed["a"][-1] == "x"
    with pytest.raises(ValuesError):
        strvals.parse_set(f"a[{strvals.MAX_INDEX + 1}]=x")


def test_nested_name_levels_are_limited() -> None:
    deepest = ".".join(f"n{i}" for i in range(strvals.MAX_NESTED_NAME_LEVEL + 1))
    parsed = strvals.parse_set(deepest + "=v")
    for i in range(strvals.MAX_NESTED_NAME_LEVEL):
        parsed = parsed[f"n{i}"]
    assert parsed == {f"n{strvals.MAX_NESTED_NAME_LEVEL}": "v"}
    with pytest.raises(ValuesError) as caught:
        strvals.parse_set("x." + deepest + "=v")
    assert str(caught.value) == (
        "value name nested level is greater than maximum supported nested level of 30"
    )


def test_integers_of_thousands_of_digits_stay_text_as_in_helm() -> None:
    digits = "7" * 5000
    assert strvals.parse_set(f"a={digits},b=-{digits},c=9223372036854775807,d=-9223372036854775808") == {
        "a": digits, "b": "-" + digits, "c": Int64(2**63 - 1), "d": Int64(-(2**63))}
    with pytest.raises(ValuesError) as caught:
        strvals.parse_set(f"a[{digits}]=1")
    assert str(caught.value) == f'error parsing index: strconv.Atoi: parsing "{digits}": value out of range'


def test_index_one_past_max_is_helms_error() -> None:
    with pytest.raises(ValuesError) as caught:
        strvals.parse_set("a[65537]=1")
    assert str(caught.value) == "index of 65537 is greater than maximum supported index of 65536"


def test_list_nested_as_deep_as_a_command_line_allows_is_parsed() -> None:
    # Helm recurses once per [i] and has no limit; a 128 KiB argument holds 40000 of them.
    depth = 40_000
    parsed = strvals.parse_set("a" + "[0]" * depth + "=1,b[1][0].c=x")
    node = parsed["a"]
    for _ in range(depth - 1):
        assert len(node) == 1
        node = node[0]
    assert node == [Int64(1)]
    assert parsed["b"] == [None, [{"c": "x"}]]


def test_nested_list_ending_early_keeps_what_was_set() -> None:
    assert strvals.parse_set("a[0]=1,a[1][0][2]") == {"a": [Int64(1)]}


INTO_CASES = [
    ("overrides-and-keeps",
     {"outer": {"inner1": "overwrite", "inner2": "value2"}},
     "outer.inner1=value1,outer.inner3=value3,outer.inner4=4",
     {"outer": {"inner1": "value1", "inner2": "value2", "inner3": "value3", "inner4": 4}}),
    ("list-item-into-existing-list",
     {"l": [[[{"exited": "old"}]]]},
     "l[0][1][0].type=listValue,l[0][0][1].status=alive",
     {"l": [[[{"exited": "old"}, {"status": "alive"}], [{"type": "listValue"}]]]}),
    ("map-into-float-from-yaml-fails-later", {"keep": 1.0}, "keep2=2", {"keep": 1.0, "keep2": 2}),
    ("list-replaced-whole", {"a": ["x", "y", "z"]}, "a={q}", {"a": ["q"]}),
]


@pytest.mark.parametrize("into,text,expected", [c[1:] for c in INTO_CASES], ids=[c[0] for c in INTO_CASES])
def test_parse_set_merges_into_a_copy_of_existing_values(
    into: dict[str, Any], text: str, expected: dict[str, Any]
) -> None:
    before = copy.deepcopy(into)
    assert strvals.parse_set(text, into) == expected
    assert into == before


def test_parse_set_into_yaml_float_names_go_float64_in_error() -> None:
    with pytest.raises(ValuesError) as caught:
        strvals.parse_set("a.b=1", {"a": 1.0})
    assert str(caught.value) == (
        "unable to parse key: interface conversion: interface {} is float64, not map[string]interface {}"
    )


STRING_CASES = [
    ("int-stays-string", "a=1234567890", {"a": "1234567890"}),
    ("bool-stays-string", "a=true", {"a": "true"}),
    ("null-stays-string", "a=null", {"a": "null"}),
    ("list-items-strings", "a={1,null}", {"a": ["1", "null"]}),
    ("escapes-still-apply", "a\\.b=x\\,y", {"a.b": "x,y"}),
]


@pytest.mark.parametrize("text,expected", [c[1:] for c in STRING_CASES], ids=[c[0] for c in STRING_CASES])
def test_parse_set_string_keeps_every_value_a_string(text: str, expected: dict[str, Any]) -> None:
    assert strvals.parse_set_string(text) == expected


JSON_CASES = [
    ("scalars", 'o.a="1",o.b=3,o.c=true,o.d="true"', {"o": {"a": "1", "b": 3.0, "c": True, "d": "true"}}),
    ("object-and-array", 'a={"x":[1,2],"y":{"z":null}},b=["p","q"]',
     {"a": {"x": [1.0, 2.0], "y": {"z": None}}, "b": ["p", "q"]}),
    ("empty-is-null", "a=,b=1", {"a": None, "b": 1.0}),
    ("blanks-around-value", "a= [1,2] ,b=2", {"a": [1.0, 2.0], "b": 2.0}),
    ("index-json", "a[1]={\"k\":1}", {"a": [None, {"k": 1.0}]}),
    ("index-empty-is-null", "a[0]=", {"a": [None]}),
    ("big-int-becomes-float", "a=12345678901234567890", {"a": 12345678901234567890.0}),
    ("value-ends-without-comma", "a=1b=2", {"a": 1.0, "b": 2.0}),
    ("replace-map-then-index", 'o.a={"cc":[1,2,3]},o.a.cc[1]=null', {"o": {"a": {"cc": [1.0, None, 3.0]}}}),
]


@pytest.mark.parametrize("text,expected", [c[1:] for c in JSON_CASES], ids=[c[0] for c in JSON_CASES])
def test_parse_set_json_reads_json_values_with_go_float_numbers(text: str, expected: dict[str, Any]) -> None:
    parsed = strvals.parse_set_json(text)
    assert parsed == expected
    assert all(type(v) is not int for v in _leaves(parsed))


@pytest.mark.parametrize(
    "text,message",
    [
        ("a=NaN", "invalid JSON value: invalid character 'N' looking for beginning of value"),
        ("a=1e400", "invalid JSON value: number 1e400 out of range of float64"),
        ("a=[1,2", "invalid JSON value: Expecting ',' delimiter: line 1 column 7 (char 6)"),
        ("a=1" + "0" * 400, "invalid JSON value: number 1" + "0" * 400 + " out of range of float64"),
    ],
    ids=["nan", "float-overflow", "unterminated-array", "integer-overflow"],
)
def test_parse_set_json_rejects_what_go_json_rejects(text: str, message: str) -> None:
    with pytest.raises(ValuesError) as caught:
        strvals.parse_set_json(text)
    assert str(caught.value) == message


def test_parse_set_json_keeps_negative_zero_like_go() -> None:
    assert str(strvals.parse_set_json("a=-0")["a"]) == "-0.0"


def test_parse_set_file_passes_each_value_to_the_reader() -> None:
    seen: list[str] = []

    def reader(path: str) -> str:
        seen.append(path)
        return f"<{path}>\n"

    parsed = strvals.parse_set_file("a=p1,b={p2,p3},c[1]=p4,e=", reader)
    assert parsed == {"a": "<p1>\n", "b": ["<p2>\n", "<p3>\n"], "c": [None, "<p4>\n"], "e": ""}
    assert seen == ["p1", "p2", "p3", "p4"]


def test_parse_set_file_reports_reader_errors_as_is() -> None:
    def reader(path: str) -> str:
        raise ValuesError(f"open {path}: no such file or directory")

    with pytest.raises(ValuesError) as caught:
        strvals.parse_set_file("a=/nope", reader)
    assert str(caught.value) == "open /nope: no such file or directory"


LITERAL_CASES = [
    ("rest-of-line-is-value", "a=b,c=d", {"a": "b,c=d"}),
    ("no-escapes", "a=x\\,y\\n", {"a": "x\\,y\\n"}),
    ("comma-in-key", "a,b=c", {"a,b": "c"}),
    ("nested-and-index", "a.b[1]=x,y=z", {"a": {"b": [None, "x,y=z"]}}),
    ("no-typing", "a=1", {"a": "1"}),
    ("no-list-syntax", "a={x,y}", {"a": "{x,y}"}),
    ("empty", "a=", {"a": ""}),
]


@pytest.mark.parametrize("text,expected", [c[1:] for c in LITERAL_CASES], ids=[c[0] for c in LITERAL_CASES])
def test_parse_set_literal_takes_the_value_verbatim(text: str, expected: dict[str, Any]) -> None:
    assert strvals.parse_set_literal(text) == expected


def test_parse_set_literal_key_without_value_fails() -> None:
    with pytest.raises(ValuesError) as caught:
        strvals.parse_set_literal("a.b")
    assert str(caught.value) == 'key "b" has no value'


@pytest.mark.parametrize(
    "text,expected",
    [("true", True), ("tRuE", True), ("Null", None), ("0", Int64(0)), ("007", "007"), ("-7", Int64(-7)),
     ("", ""), ("1e3", "1e3"), ("١٢", "١٢")],
    ids=["true", "mixed-case", "null", "zero", "octal-like", "negative", "empty", "exponent",
         "non-ascii-digits"],
)
def test_typed_value_follows_helms_typedval(text: str, expected: Any) -> None:
    value = strvals.typed_value(text)
    assert value == expected and type(value) is type(expected)


def test_go_quote_escapes_like_strconv_quote() -> None:
    assert strvals.go_quote('a"b\\c\n\x01\u00a0é') == '"a\\"b\\\\c\\n\\x01\\u00a0é"'


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]
