"""gojson: encoding/json's exact bytes and strconv's float formatting."""
from __future__ import annotations

import datetime
import math

import pytest

from helm_core import gojson


@pytest.mark.parametrize(
    ("value", "fmt", "expected"),
    [
        (1.0, "g", "1"), (1e6, "g", "1e+06"), (123456.0, "g", "123456"), (1e-5, "g", "1e-05"),
        (0.0001, "g", "0.0001"), (1.5, "e", "1.5e+00"), (1e21, "f", "1000000000000000000000"),
        (-0.0, "g", "-0"), (math.inf, "g", "+Inf"), (math.nan, "g", "NaN"), (0.1 + 0.2, "g", "0.30000000000000004"),
    ],
    ids=lambda v: repr(v),
)
def test_format_float_is_strconv_shortest(value, fmt, expected):
    assert gojson.format_float(value, fmt) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"b": 1, "a": [True, None, 1.5]}, '{"a":[true,null,1.5],"b":1}'),
        ("<a&b>", '"\\u003ca\\u0026b\\u003e"'),
        ("\u2028\u2029", '"\\u2028\\u2029"'),
        ("\x00\x08\x0c\n\r\t\x1f\x7f", '"\\u0000\\b\\f\\n\\r\\t\\u001f\x7f"'),
        (1e21, "1e+21"), (1e-7, "1e-7"), (1e20, "100000000000000000000"), (0.000001, "0.000001"),
        (1000000.0, "1000000"), (12, "12"), (b"hi", '"aGk="'), ({}, "{}"), ([], "[]"),
        (datetime.datetime(2024, 1, 2, 3, 4, 5, 120000, tzinfo=datetime.timezone.utc), '"2024-01-02T03:04:05.12Z"'),
    ],
    ids=lambda v: repr(v)[:30],
)
def test_dumps_is_json_marshal(value, expected):
    assert gojson.dumps(value) == expected


def test_dumps_pretty_is_marshal_indent():
    assert gojson.dumps_pretty({"a": [1, {}], "b": "<"}) == '{\n  "a": [\n    1,\n    {}\n  ],\n  "b": "\\u003c"\n}'


def test_dumps_raw_keeps_html_characters():
    assert gojson.dumps_raw({"a": "<&>"}) == '{"a":"<&>"}'


def test_dumps_nan_is_go_error():
    with pytest.raises(gojson.JSONError, match="^json: unsupported value: NaN$"):
        gojson.dumps(math.nan)


@pytest.mark.parametrize(
    ("text", "expected"),
    [('{"a": 1, "a": 2}', {"a": 2.0}), ("[1, 2.5, -0]", [1.0, 2.5, -0.0]), ('"x"', "x"), ("null", None)],
    ids=["dup-last-wins", "numbers-float", "string", "null"],
)
def test_loads_decodes_into_interface(text, expected):
    assert gojson.loads(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "unexpected end of JSON input"),
        ('{"a": 1', "unexpected end of JSON input"),
        ("x", "invalid character 'x' looking for beginning of value"),
        ("NaN", "invalid character 'N' looking for beginning of value"),
        ('{"a" 1}', "invalid character '1' after object key"),
        ('{"a": 1 "b"}', "invalid character '\"' after object key:value pair"),
        ("[1 2]", "invalid character '2' after array element"),
        ("{} x", "invalid character 'x' after top-level value"),
        ("1e400", "json: cannot unmarshal number 1e400 into Go value of type float64"),
        ("tru", "invalid character ' ' in literal true (expecting 'e')"),
        ("[1.", "invalid character ' ' after decimal point in numeric literal"),
        ("1e+", "invalid character ' ' in exponent of numeric literal"),
        ('"a\\', "invalid character ' ' in string escape code"),
        ('"\\u12', "invalid character ' ' in \\u hexadecimal character escape"),
        ('"a\x01"', "invalid character '\\x01' in string literal"),
        ("[é]", "invalid character '\u00c3' looking for beginning of value"),
        ("{,}", "invalid character ',' looking for beginning of object key string"),
    ],
    ids=["empty", "eof", "bad-start", "nan", "no-colon", "no-comma-obj", "no-comma-arr", "trailing", "range",
         "eof-in-literal", "eof-after-dot", "eof-in-exponent", "eof-in-escape", "eof-in-hex", "control-char",
         "non-ascii-byte", "bad-key"],
)
def test_loads_errors_are_go_messages(text, message):
    with pytest.raises(gojson.JSONError) as info:
        gojson.loads(text)
    assert str(info.value) == message
