"""List functions: new lists every time, DeepEqual comparisons, Go's errors for non-lists."""
from __future__ import annotations

import pytest

from helm_core.gotemplate.funcs import lists, reflection
from helm_core.gotemplate.funcs.sprig import SPRIG_FUNCS
from helm_core.golib.gotypes import FuncError, Int64

CASES = [
    ("list", lists.list_, (1, None, "a"), [1, None, "a"]),
    ("first", lists.first, ([1, 2],), 1),
    ("first_empty_is_nil", lists.first, ([],), None),
    ("last", lists.last, ([1, 2],), 2),
    ("rest", lists.rest, ([1, 2, 3],), [2, 3]),
    ("rest_empty", lists.rest, ([],), []),
    ("initial", lists.initial, ([1, 2, 3],), [1, 2]),
    ("push", lists.push, ([1], 2), [1, 2]),
    ("push_tuple", lists.push, ((1,), 2), [1, 2]),
    ("prepend", lists.prepend, ([1], 0), [0, 1]),
    ("concat", lists.concat, ([1], [], [2, 3]), [1, 2, 3]),
    ("concat_none", lists.concat, (), []),
    ("reverse", lists.reverse, ([1, 2, 3],), [3, 2, 1]),
    ("uniq_int_vs_float", lists.uniq, ([1, 1, "a", "a", 1.0, True],), [1, "a", 1.0, True]),
    # int and int64 are two types; false is not 0.
    ("uniq_nil_int64", lists.uniq, ([None, None, Int64(1), 1, Int64(1), False, 0, "1"],),
     [None, Int64(1), 1, False, 0, "1"]),
    ("uniq_nested", lists.uniq, ([[1], [1], {"a": 1}, {"a": 1}],), [[1], {"a": 1}]),
    ("without", lists.without, ([1, 2, 3, 2], 2, 3), [1]),
    ("without_type_strict", lists.without, ([1, 1.0], 1.0), [1]),
    ("has", lists.has, (1.0, [1, 1.0]), True),
    ("has_missing", lists.has, ("x", [1]), False),
    ("has_nil_haystack", lists.has, (1, None), False),
    ("compact", lists.compact, ([0, "", 1, None, "a", [], False, {}],), [1, "a"]),
    ("slice_from", lists.slice_, ([1, 2, 3], 1), [2, 3]),
    ("slice_range", lists.slice_, ([1, 2, 3], "0", 2.7), [1, 2]),
    ("slice_empty_is_nil", lists.slice_, ([], 1), None),
    ("chunk", lists.chunk, (2, [1, 2, 3]), [[1, 2], [3]]),
    ("chunk_exact", lists.chunk, (2, [1, 2]), [[1, 2]]),
    ("chunk_empty", lists.chunk, (2, []), []),
    ("sortAlpha_bytewise", lists.sort_alpha, (["b", "a", 3, "B", None],), ["3", "B", "a", "b"]),
    ("sortAlpha_scalar", lists.sort_alpha, ("x",), ["x"]),
    ("sortAlpha_nil", lists.sort_alpha, (None,), ["<nil>"]),
]


@pytest.mark.parametrize(("fn", "args", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_list_function_output(fn, args, expected) -> None:
    assert reflection.go_deep_equal(fn(*args), expected)


def test_list_functions_never_modify_their_input() -> None:
    original = [3, 1, 2]
    for fn, args in [(lists.push, (original, 9)), (lists.prepend, (original, 9)), (lists.reverse, (original,)),
                     (lists.rest, (original,)), (lists.without, (original, 1)), (lists.slice_, (original, 1))]:
        fn(*args)
    assert original == [3, 1, 2]


ERRORS = [
    ("first_int", "first", (1,), "Cannot find first on type int"),
    ("mustFirst_int", "mustFirst", (1,), "Cannot find first on type int"),
    ("first_nil", "first", (None,), "runtime error: invalid memory address or nil pointer dereference"),
    ("last_map", "last", ({},), "Cannot find last on type map"),
    ("rest_string", "rest", ("ab",), "Cannot find rest on type string"),
    ("initial_float", "initial", (1.5,), "Cannot find initial on type float64"),
    ("push_string", "push", ("a", 1), "Cannot push on type string"),
    ("mustAppend_bool", "mustAppend", (True, 1), "Cannot push on type bool"),
    ("prepend_int", "prepend", (1, 1), "Cannot prepend on type int"),
    ("reverse_string", "reverse", ("",), "Cannot find reverse on type string"),
    ("uniq_map", "uniq", ({},), "Cannot find uniq on type map"),
    ("without_int", "without", (1, 1), "Cannot find without on type int"),
    ("has_string", "has", (1, "abc"), "Cannot find has on type string"),
    ("compact_int", "mustCompact", (1,), "Cannot compact on type int"),
    ("chunk_int", "chunk", (1, 1), "Cannot chunk type int"),
    ("chunk_zero", "chunk", (0, [1]), "runtime error: makeslice: len out of range"),
    ("slice_string", "slice", ("abc",), "list should be type of slice or array but string"),
    ("slice_bounds", "slice", ([1, 2, 3], 2, 1), "reflect.Value.Slice: slice index out of bounds"),
    ("slice_past_end", "mustSlice", ([1, 2, 3], 1, 5), "reflect.Value.Slice: slice index out of bounds"),
    ("concat_int", "concat", ([1], 1), "Cannot concat type int as list"),
]


@pytest.mark.parametrize(("name", "args", "message"), [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_list_errors_name_the_go_kind(name: str, args, message: str) -> None:
    with pytest.raises(FuncError) as err:
        SPRIG_FUNCS[name](*args)
    assert str(err.value) == message


def test_uniq_keeps_every_nan_as_go() -> None:
    # NaN is not DeepEqual to itself, even the same one.
    nan = float("nan")
    out = lists.uniq([nan, nan, 1.0, 1.0])
    assert len(out) == 3 and out[0] is nan and out[1] is nan and out[2] == 1.0
