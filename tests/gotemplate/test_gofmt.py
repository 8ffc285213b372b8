"""Go fmt printing of template values; expected texts come from Go 1.24+ fmt."""
from __future__ import annotations

import datetime

import pytest

from helm_core.gotemplate import gofmt

from helm_core.golib import gotypes

FORMAT_VALUE_CASES = [
    ("nil", None, "<nil>"),
    ("true", True, "true"),
    ("int", -42, "-42"),
    ("float_integral", 1.0, "1"),
    ("float_half", 1.5, "1.5"),
    ("float_1e5", 100000.0, "100000"),
    ("float_1e6", 1000000.0, "1e+06"),
    ("float_1e21", 1e21, "1e+21"),
    ("float_large_digits", 123456789.0, "1.23456789e+08"),
    ("float_small", 0.0001, "0.0001"),
    ("float_smaller", 0.00001, "1e-05"),
    ("float_neg_zero", -0.0, "-0"),
    ("float_nan", float("nan"), "NaN"),
    ("float_inf", float("inf"), "+Inf"),
    ("float_neg_inf", float("-inf"), "-Inf"),
    ("float_pi", 3.141592653589793, "3.141592653589793"),
    ("string", "a b", "a b"),
    ("bytes", b"hi", "[104 105]"),
    ("list", [1, "a", None, 2.5], "[1 a <nil> 2.5]"),
    ("empty_list", [], "[]"),
    ("map_sorted", {"b": 1, "a": [1, 2]}, "map[a:[1 2] b:1]"),
    ("nested_map", {"x": {"y": None}}, "map[x:map[y:<nil>]]"),
    ("duration", gotypes.Duration(3723_500_000_000), "1h2m3.5s"),
    ("duration_ms", gotypes.Duration(1_500_000), "1.5ms"),
    ("duration_zero", gotypes.Duration(0), "0s"),
    ("time_utc", datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc), "2024-01-02 03:04:05 +0000 UTC"),
]


@pytest.mark.parametrize(("value", "text"), [c[1:] for c in FORMAT_VALUE_CASES], ids=[c[0] for c in FORMAT_VALUE_CASES])
def test_format_value_prints_like_go_percent_v(value: object, text: str) -> None:
    assert gofmt.format_value(value) == text


SPRINT_CASES = [
    ("numbers_spaced", (1, 2), "1 2"),
    ("strings_not_spaced", ("a", "b"), "ab"),
    ("string_then_number", ("a", 1, 2, "b"), "a1 2b"),
    ("nil_is_not_a_string", (None, None, "x"), "<nil> <nil>x"),
    ("empty", (), ""),
]


@pytest.mark.parametrize(("args", "text"), [c[1:] for c in SPRINT_CASES], ids=[c[0] for c in SPRINT_CASES])
def test_sprint_spaces_only_between_non_strings(args: tuple[object, ...], text: str) -> None:
    assert gofmt.sprint(*args) == text


def test_sprintln_always_spaces_and_ends_with_newline() -> None:
    assert gofmt.sprintln("a", "b", 1) == "a b 1\n"


SPRINTF_CASES = [
    ("d", "%d", (42,), "42"),
    ("width", "%5d|%-5d|", (42, 42), "   42|42   |"),
    ("zero_pad_negative", "%05d", (-42,), "-0042"),
    ("plus", "%+d", (3,), "+3"),
    ("precision_int", "%.3d", (7,), "007"),
    ("hex", "%x %X %#x", (255, 255, 255), "ff FF 0xff"),
    ("octal_binary", "%o %O %b %#b", (8, 8, 5, 5), "10 0o10 101 0b101"),
    ("char_quote_unicode", "%c %q %U", (0x263A, 65, 65), "☺ 'A' U+0041"),
    ("float_f", "%f %.2f %8.3f|", (1.5, 2.675, 3.14159), "1.500000 2.67    3.142|"),
    ("float_e_g", "%e %g %.3g %G", (123456.789, 1e6, 3.14159, 1e-7), "1.234568e+05 1e+06 3.14 1E-07"),
    ("float_sharp_g", "%#g", (1.0,), "1.00000"),
    ("float_zero_pad_sign", "%+08.2f", (-2.5,), "-0002.50"),
    ("float_hex", "%x", (1.5,), "0x1.8p+00"),
    ("nan_not_zero_padded", "%05v|%+f", (float("nan"), float("nan")), "  NaN|+NaN"),
    ("string_verbs", "%s|%10s|%-4s|%.2s", ("abc", "abc", "ab", "abc"), "abc|       abc|ab  |ab"),
    ("string_zero_padded", "%05s", ("ab",), "000ab"),
    ("quote", "%q", ('a\n"b',), '"a\\n\\"b"'),
    ("quote_ascii", "%+q", ("héllo",), '"h\\u00e9llo"'),
    ("quote_backquote", "%#q", ("abc",), "`abc`"),
    ("string_hex", "%x % X", ("hi", "hi"), "6869 68 69"),
    ("bool", "%t %v", (True, False), "true false"),
    ("type", "%T %T %T %T %T", (1, 1.5, "s", [1], {"a": 1}), "int float64 string []interface {} map[string]interface {}"),
    ("type_nil", "%T", (None,), "<nil>"),
    ("go_syntax", "%#v", ({"a": [1, "x", None]},), 'map[string]interface {}{"a":[]interface {}{1, "x", interface {}(nil)}}'),
    ("percent", "100%%", (), "100%"),
    ("bad_verb_string", "%d", ("x",), "%!d(string=x)"),
    ("bad_verb_float", "%d", (1.5,), "%!d(float64=1.5)"),
    ("bad_verb_int", "%s", (5,), "%!s(int=5)"),
    ("bad_verb_nil", "%d", (None,), "%!d(<nil>)"),
    ("verb_elementwise_list", "%d", ([1, "a", None],), "[1 %!d(string=a) <nil>]"),
    ("verb_elementwise_map", "%s", ({"b": 2, "a": "x"},), "map[a:x b:%!s(int=2)]"),
    ("missing", "%d %d", (1,), "1 %!d(MISSING)"),
    ("extra", "%d", (1, 2, "x", None), "1%!(EXTRA int=2, string=x, <nil>)"),
    ("noverb", "%", (), "%!(NOVERB)"),
    ("star_width", "%*d|%-*d|", (4, 7, 3, 1), "   7|1  |"),
    ("bad_width", "%*d", ("x", 3), "%!(BADWIDTH)3"),
    ("star_prec", "%.*f", (2, 3.14159), "3.14"),
    ("arg_index", "%[2]d %[1]d", (1, 2), "2 1"),
    ("bad_index", "%[3]d", (1, 2), "%!d(BADINDEX)"),
    ("bytes_as_string", "%s %x %v", (b"hi", b"hi", b"hi"), "hi 6869 [104 105]"),
    ("bytes_bad_verb", "%t", (b"h",), "[%!t(uint8=104)]"),
    ("go_syntax_int_precision", "%#.4v|%0#9.0v", (65, 255), "0065|      255"),
    ("go_syntax_string_precision", "%#.3v", ("héllo",), '"hél"'),
    ("go_syntax_bytes_width", "%#6v", (b"ab",), "[]byte{  0x61,   0x62}"),
    ("unicode_precision", "%.7U", (65,), "U+0000041"),
    ("sharp_upper_hex_float", "%#X", (2.5,), "0X1.4P+01"),
    ("sharp_binary_float", "%#b", (-2.5,), "-5629499534213120p-51"),
    ("sharp_hex_float", "%#x", (1.5,), "0x1.8000p+00"),
]


@pytest.mark.parametrize(("fmt", "args", "text"), [c[1:] for c in SPRINTF_CASES], ids=[c[0] for c in SPRINTF_CASES])
def test_sprintf_matches_go(fmt: str, args: tuple[object, ...], text: str) -> None:
    assert gofmt.sprintf(fmt, *args) == text


class _Version(gotypes.GoObject):
    go_type = "*semver.Version"

    def String(self) -> str:  # noqa: N802 - Go method name
        return "1.2.3"


def test_stringer_objects_print_their_string_method() -> None:
    assert gofmt.format_value(_Version()) == "1.2.3"
    assert gofmt.sprintf("%s|%q", _Version(), _Version()) == '1.2.3|"1.2.3"'


class _Point(gotypes.GoObject):
    """A Go ``*main.Point`` without a String method, listing its struct fields."""

    go_type = "*main.Point"
    go_fields = ("X", "Label")

    def __init__(self) -> None:
        self.X = 1
        self.Label = "a"


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        ("%v", "&{1 a}"),
        ("%+v", "&{X:1 Label:a}"),
        ("%#v", 'main.Point{X:1, Label:"a"}'.join(["&", ""])),
        ("%d", "&{1 %!d(string=a)}"),
    ],
    ids=["v", "plus_v", "sharp_v", "d"],
)
def test_struct_objects_print_their_go_fields(fmt: str, text: str) -> None:
    assert gofmt.sprintf(fmt, _Point()) == text


def test_pointee_of_struct_prints_without_ampersand() -> None:
    assert gofmt.format_pointee(_Point()) == "{1 a}"
