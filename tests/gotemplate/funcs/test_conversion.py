"""Conversions follow spf13/cast v1.7.0 and Go strconv (expected values from Go)."""
from __future__ import annotations

import math

import pytest

from helm_core.gotemplate.funcs import conversion as cv
from helm_core.golib.gotypes import Int64

CASES = [
    ("int_nil", cv.to_int, None, 0),
    ("int_true", cv.to_int, True, 1),
    ("int_float_truncates", cv.to_int, -2.9, -2),
    ("int_float_out_of_range", cv.to_int, 1e20, -(1 << 63)),
    ("int_nan", cv.to_int, math.nan, -(1 << 63)),
    ("int_string_decimal", cv.to_int, "42", 42),
    ("int_string_zero_decimals", cv.to_int64, "12.000", Int64(12)),
    ("int_string_fraction_fails", cv.to_int64, "12.5", Int64(0)),
    ("int_hex", cv.to_int, "0x1F", 31),
    ("int_leading_zero_octal", cv.to_int, "0755", 493),
    ("int_binary", cv.to_int, "-0b101", -5),
    ("int_underscores", cv.to_int, "1_000", 1000),
    ("int_bad_underscore", cv.to_int, "1__0", 0),
    ("int_exponent_fails", cv.to_int, "1e3", 0),
    ("int_overflow_is_error", cv.to_int64, "9223372036854775808", Int64(0)),
    ("int_bytes_unsupported", cv.to_int, b"1", 0),
    ("int_list_unsupported", cv.to_int, [1], 0),
    ("float_nil", cv.to_float64, None, 0.0),
    ("float_int", cv.to_float64, 3, 3.0),
    ("float_exponent", cv.to_float64, "1e3", 1000.0),
    ("float_hex", cv.to_float64, "0x1p-2", 0.25),
    ("float_inf_word", cv.to_float64, "-Inf", -math.inf),
    ("float_range_error_is_zero", cv.to_float64, "1e400", 0.0),
    ("float_space_rejected", cv.to_float64, " 1", 0.0),
    ("float_bool", cv.to_float64, True, 1.0),
    ("toDecimal_octal", cv.to_decimal, "0777", Int64(511)),
    ("toDecimal_int", cv.to_decimal, 777, Int64(511)),
    ("toDecimal_not_octal", cv.to_decimal, "8", Int64(0)),
    ("toString_nil", cv.to_string, None, "<nil>"),
    ("toString_float", cv.to_string, 1e6, "1e+06"),
    ("toString_bytes", cv.to_string, b"hi", "hi"),
    ("toString_map", cv.to_string, {"b": 1, "a": 2}, "map[a:2 b:1]"),
    ("toStrings_drops_nil", cv.to_strings, [1, None, "a", 2.5], ["1", "a", "2.5"]),
    ("toStrings_nil", cv.to_strings, None, []),
    ("toStrings_scalar", cv.to_strings, "abc", ["abc"]),
    ("toStrings_bytes_are_numbers", cv.to_strings, b"hi", ["104", "105"]),
]


@pytest.mark.parametrize(("fn", "arg", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_conversion_follows_cast_rules(fn, arg, expected) -> None:
    result = fn(arg)
    assert result == expected and type(result) is type(expected)


ATOI = [
    ("plain", "42", 42),
    ("signed", "-7", -7),
    ("space_is_syntax_error", " 1", 0),
    ("hex_not_allowed", "0x10", 0),
    ("overflow_clamps", "99999999999999999999", (1 << 63) - 1),
    ("underflow_clamps", "-99999999999999999999", -(1 << 63)),
    ("empty", "", 0),
]


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in ATOI], ids=[c[0] for c in ATOI])
def test_atoi_drops_errors_like_strconv(text: str, expected: int) -> None:
    assert cv.atoi(text) == expected


def test_parse_int_reports_syntax_and_range() -> None:
    with pytest.raises(cv.ParseError) as syntax:
        cv.parse_int("12a")
    with pytest.raises(cv.ParseError) as rng:
        cv.parse_int("9223372036854775808")
    assert (syntax.value.kind, rng.value.kind, rng.value.clamped) == ("syntax", "range", (1 << 63) - 1)
