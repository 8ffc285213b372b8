"""Base64/32 with Go's error offsets, and the Sprig JSON functions Helm keeps."""
from __future__ import annotations

import datetime

import pytest

from helm_core.golib import gojson
from helm_core.gotemplate.funcs import encoding as enc, semver
from helm_core.golib.gotypes import Duration, FuncError

B64DEC = [
    ("ok_padded", "YWJjZA==", "abcd"),
    ("ok_newlines_ignored", "YWJj\nZA==", "abcd"),
    ("missing_padding", "YWJjZA", "illegal base64 data at input byte 4"),
    ("short_padding", "YWJjZA=", "illegal base64 data at input byte 7"),
    ("three_chars", "abc", "illegal base64 data at input byte 0"),
    ("bad_char", "ab$d", "illegal base64 data at input byte 2"),
    ("pad_in_middle", "YW=jZA==", "illegal base64 data at input byte 2"),
    ("data_after_padding", "YWJjZA==YQ==", "illegal base64 data at input byte 8"),
    ("single_char", "Y", "illegal base64 data at input byte 0"),
]


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in B64DEC], ids=[c[0] for c in B64DEC])
def test_b64dec_returns_text_or_go_error(text: str, expected: str) -> None:
    assert enc.b64dec(text) == expected


B32DEC = [
    ("ok", "MFRGGZA=", "abcd"),
    ("ok_full", "MFRGG===", "abc"),
    ("no_padding", "MFRGG", "illegal base32 data at input byte 0"),
    ("bad_char", "MFRGG!==", "illegal base32 data at input byte 5"),
    ("bad_length", "YWJj", "illegal base32 data at input byte 3"),
]


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in B32DEC], ids=[c[0] for c in B32DEC])
def test_b32dec_returns_text_or_go_error(text: str, expected: str) -> None:
    assert enc.b32dec(text) == expected


def test_encoders_use_utf8_bytes() -> None:
    assert (enc.b64enc("héllo"), enc.b32enc("abcd")) == ("aMOpbGxv", "MFRGGZA=")


JSON = [
    ("sorted_keys", enc.must_to_json, {"b": 1, "a": []}, '{"a":[],"b":1}'),
    ("html_escaped", enc.must_to_json, "<a&b>", '"\\u003ca\\u0026b\\u003e"'),
    ("raw_not_escaped", enc.to_raw_json, "<a&b>", '"<a&b>"'),
    ("line_separator_always_escaped", enc.to_raw_json, "\u2028", '"\\u2028"'),
    ("control_chars", enc.must_to_json, "\b\x01\n", '"\\b\\u0001\\n"'),
    ("floats", enc.must_to_json, [1.0, 1e21, 1e-7, 0.000001, -0.0, 1.5e300],
     "[1,1e+21,1e-7,0.000001,-0,1.5e+300]"),
    ("nil", enc.must_to_json, None, "null"),
    ("bytes_base64", enc.must_to_json, b"hi", '"aGk="'),
    ("duration_ns", enc.must_to_json, Duration(1500), "1500"),
    ("time_rfc3339", enc.must_to_json,
     datetime.datetime(2024, 3, 5, 1, 2, 3, 500000, tzinfo=datetime.timezone(datetime.timedelta(hours=2))),
     '"2024-03-05T01:02:03.5+02:00"'),
    ("semver_string", enc.must_to_json, semver.semver("v1.2"), '"1.2.0"'),
    ("pretty", enc.to_pretty_json, {"a": [1, {}], "b": []}, '{\n  "a": [\n    1,\n    {}\n  ],\n  "b": []\n}'),
    ("pretty_empty", enc.to_pretty_json, {}, "{}"),
    ("pretty_nan_is_empty", enc.to_pretty_json, float("nan"), ""),
]


@pytest.mark.parametrize(("fn", "value", "expected"), [c[1:] for c in JSON], ids=[c[0] for c in JSON])
def test_json_output_matches_go(fn, value, expected: str) -> None:
    assert fn(value) == expected


def test_must_to_json_reports_unsupported_value() -> None:
    with pytest.raises(FuncError) as err:
        enc.must_to_json([float("inf")])
    assert str(err.value) == "json: unsupported value: +Inf"


def test_must_from_json_numbers_are_float64() -> None:
    assert enc.must_from_json('{"a": [1, 2.5, true, null], "b": "\\u00e9"}') == {"a": [1.0, 2.5, True, None], "b": "é"}


FROM_JSON_ERRORS = [
    ("empty", "", "unexpected end of JSON input"),
    ("bad_key", "{x", "invalid character 'x' looking for beginning of object key string"),
    ("trailing_comma", "[1,]", "invalid character ']' looking for beginning of value"),
    ("two_values", "1 2", "invalid character '2' after top-level value"),
    ("missing_colon", '{"a" 1}', "invalid character '1' after object key"),
    # Go's scanner feeds a space at end of input, so a cut token names ' ' (as Helm prints)
    ("bad_literal", "tru", "invalid character ' ' in literal true (expecting 'e')"),
    ("eof_after_dot", "[12.", "invalid character ' ' after decimal point in numeric literal"),
    # the scanner reads bytes: a non-ASCII character is named by its first byte
    ("non_ascii_byte", "é", "invalid character '\u00c3' looking for beginning of value"),
    ("bad_literal_char", "trux", "invalid character 'x' in literal true (expecting 'e')"),
    ("newline_in_string", '"a\nb"', "invalid character '\\n' in string literal"),
    ("leading_zero", "01", "invalid character '1' after top-level value"),
    ("out_of_range", "1e400", "json: cannot unmarshal number 1e400 into Go value of type float64"),
    ("syntax_before_range", "[1e400,]", "invalid character ']' looking for beginning of value"),
]


@pytest.mark.parametrize(("text", "message"), [c[1:] for c in FROM_JSON_ERRORS], ids=[c[0] for c in FROM_JSON_ERRORS])
def test_must_from_json_errors_read_like_go(text: str, message: str) -> None:
    with pytest.raises(FuncError) as err:
        enc.must_from_json(text)
    assert str(err.value) == message


def test_must_from_json_decodes_surrogate_escapes_like_go() -> None:
    assert enc.must_from_json('["\\ud83d\\ude00", "\\ud800x"]') == ["\U0001f600", "\ufffdx"]


def test_struct_objects_keep_field_order_while_maps_sort() -> None:
    assert enc.must_to_json({"z": gojson.Struct(b=1, a=2), "a": 0}) == '{"a":0,"z":{"b":1,"a":2}}'


class _MapType(dict):  # type: ignore[type-arg]
    """A Go map type (like Helm's ``engine.files``): still a map to encoding/json."""


def test_map_types_sort_their_keys() -> None:
    assert enc.must_to_json(_MapType(b=1, a=2)) == '{"a":2,"b":1}'
