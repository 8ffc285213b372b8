"""Go's predefined functions called directly (texts from Go's funcs.go), and registration checks."""
from __future__ import annotations

from typing import Any, Callable

import pytest

from helm_core.gotemplate import Environment
from helm_core.gotemplate.funcs import builtins
from helm_core.golib.gotypes import FuncError

B = builtins.BUILTINS


def test_builtins_are_gos_nineteen() -> None:
    assert sorted(B) == sorted(
        ["and", "call", "html", "index", "slice", "js", "len", "not", "or", "print", "printf", "println",
         "urlquery", "eq", "ge", "gt", "le", "lt", "ne"]
    )


def test_every_builtin_declares_a_go_signature() -> None:
    assert all(hasattr(fn, "__go_params__") for fn in B.values())


OK_CASES: list[tuple[str, str, tuple[Any, ...], Any]] = [
    ("len_counts_utf8_bytes", "len", ("héllo",), 6),
    ("len_list", "len", ([1, 2],), 2),
    ("index_nested", "index", ({"a": [1, {"b": "x"}]}, "a", 1, "b"), "x"),
    ("index_missing_key_is_nil", "index", ({"a": 1}, "z"), None),
    ("index_string_gives_byte", "index", ("abc", 1), 98),
    ("index_no_indexes", "index", ([1],), [1]),
    ("slice_string_bytes", "slice", ("abcdef", 1, 3), "bc"),
    ("slice_list_copy", "slice", ([1, 2, 3], 1), [2, 3]),
    ("eq_any_of", "eq", (2, 1, 2), True),
    ("eq_nil_nil", "eq", (None, None), True),
    ("eq_nil_string", "eq", (None, ""), False),
    ("ne_strings", "ne", ("a", "b"), True),
    ("lt_strings_bytewise", "lt", ("Z", "a"), True),
    ("le_equal_floats", "le", (1.5, 1.5), True),
    ("gt_ints", "gt", (3, 2), True),
    ("ge_ints", "ge", (2, 3), False),
    ("not_empty_list", "not", ([],), True),
    ("print_spacing", "print", (1, 2, "a", 3), "1 2a3"),
    ("printf_verb_applies_to_elements", "printf", ("%03d|%s", 7, [1, "a"]), "007|[%!s(int=1) a]"),
    ("println", "println", ("a", 1), "a 1\n"),
    ("html", "html", ("<a b='c'>&\"\0",), "&lt;a b=&#39;c&#39;&gt;&amp;&#34;\ufffd"),
    ("html_non_string_args", "html", (1, None), "1&lt;no value&gt;"),
    ("js", "js", ("a'b\"c\\<>&=\x01\u2028é",), "a\\'b\\\"c\\\\\\u003C\\u003E\\u0026\\u003D\\u0001\\u2028é"),
    ("urlquery", "urlquery", ("a b/c?d=é~",), "a+b%2Fc%3Fd%3D%C3%A9~"),
]


@pytest.mark.parametrize(("name", "args", "result"), [c[1:] for c in OK_CASES], ids=[c[0] for c in OK_CASES])
def test_builtin_results(name: str, args: tuple[Any, ...], result: Any) -> None:
    assert B[name](*args) == result


ERROR_CASES: list[tuple[str, str, tuple[Any, ...], str]] = [
    ("len_nil", "len", (None,), "len of nil pointer"),
    ("len_int", "len", (3,), "len of type int"),
    ("index_nil", "index", (None, 1), "index of untyped nil"),
    ("index_through_nil", "index", ({"a": None}, "a", "b"), "index of nil pointer"),
    ("index_out_of_range", "index", ([1], 5), "index out of range: 5"),
    ("index_at_len_panics_like_reflect", "index", ([1], 1), "reflect: slice index out of range"),
    ("index_negative", "index", ([1], -1), "index out of range: -1"),
    ("index_list_by_string", "index", ([1], "a"), "cannot index slice/array with type string"),
    ("index_list_by_nil", "index", ([1], None), "cannot index slice/array with nil"),
    ("index_map_by_int", "index", ({}, 1), "value has type int; should be string"),
    ("index_map_by_nil", "index", ({}, None), "value is nil; should be of type string"),
    ("index_float", "index", (1.5, 0), "can't index item of type float64"),
    ("slice_nil", "slice", (None,), "slice of untyped nil"),
    ("slice_too_many", "slice", ([1], 0, 0, 0, 0), "too many slice indexes: 4"),
    ("slice_string_three", "slice", ("abc", 0, 1, 2), "cannot 3-index slice a string"),
    ("slice_inverted", "slice", ("abc", 2, 1), "invalid slice index: 2 > 1"),
    ("slice_int", "slice", (3,), "can't slice item of type int"),
    ("eq_no_operand", "eq", (1,), "missing argument for comparison"),
    ("eq_int_float", "eq", (1, 1.0), "incompatible types for comparison: int and float64"),
    ("eq_lists", "eq", ([1], [1]), "non-comparable type [%!s(int=1)]: []interface {}"),
    ("eq_list_map", "eq", ([1], {}), "non-comparable types [%!s(int=1)]: []interface {}, map[string]interface {}: map[]"),
    ("lt_bool", "lt", (True, False), "invalid type for comparison"),
    ("lt_nil", "lt", (None, 1), "invalid type for comparison"),
    ("lt_int_string", "lt", (1, "a"), "incompatible types for comparison: int and string"),
    ("call_nil", "call", ("f", None), "call of nil"),
    ("call_non_function", "call", (".x", 3), "non-function .x of type int"),
]


@pytest.mark.parametrize(("name", "args", "message"), [c[1:] for c in ERROR_CASES], ids=[c[0] for c in ERROR_CASES])
def test_builtin_errors(name: str, args: tuple[Any, ...], message: str) -> None:
    with pytest.raises(FuncError) as info:
        B[name](*args)
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("funcs", "message"),
    [
        ({"1bad": lambda: 1}, 'function name "1bad" is not a valid identifier'),
        ({"a-b": lambda: 1}, 'function name "a-b" is not a valid identifier'),
        ({"ok": 3}, "value for ok not a function"),
    ],
    ids=["leading_digit", "dash", "not_callable"],
)
def test_registration_refuses_what_go_refuses(funcs: dict[str, Callable[..., Any]], message: str) -> None:
    with pytest.raises(ValueError) as info:
        Environment(funcs)
    assert str(info.value) == message
    with pytest.raises(ValueError):
        Environment().new_set().add_funcs(funcs)
