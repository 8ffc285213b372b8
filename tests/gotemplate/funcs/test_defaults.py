"""Sprig's emptiness rule and the functions built on it."""
from __future__ import annotations

import datetime

import pytest

from helm_core.gotemplate.funcs import defaults as df, semver
from helm_core.golib.gotypes import Duration, FuncError

EMPTY = [
    ("nil", None, True),
    ("false", False, True),
    ("true", True, False),
    ("zero_int", 0, True),
    ("zero_float", 0.0, True),
    ("negative", -1, False),
    ("empty_string", "", True),
    ("space", " ", False),
    ("empty_list", [], True),
    ("list_of_nil", [None], False),
    ("empty_map", {}, True),
    ("empty_bytes", b"", True),
    ("zero_duration", Duration(0), True),
    ("time", datetime.datetime(1, 1, 1, tzinfo=datetime.timezone.utc), False),
    ("struct_pointer", semver.semver("1.0.0"), False),
]


@pytest.mark.parametrize(("value", "expected"), [c[1:] for c in EMPTY], ids=[c[0] for c in EMPTY])
def test_empty_rule(value, expected) -> None:
    assert df.empty(value) is expected


def test_default_uses_default_for_missing_or_empty() -> None:
    assert [df.default("d"), df.default("d", None), df.default("d", 0.0), df.default("d", "x")] == ["d", "d", "d", "x"]


def test_coalesce_all_any() -> None:
    assert df.coalesce(None, "", 0, "x", "y") == "x"
    assert df.coalesce(None, []) is None
    assert (df.all_(), df.all_(1, ""), df.any_(), df.any_(0, [1])) == (True, False, False, True)


def test_ternary_picks_by_condition() -> None:
    assert (df.ternary("a", "b", True), df.ternary("a", "b", False)) == ("a", "b")


def test_deep_copy_copies_nested_containers_without_touching_input() -> None:
    original = {"a": [1, {"b": 2}]}
    copied = df.deep_copy(original)
    copied["a"][1]["b"] = 3
    assert original == {"a": [1, {"b": 2}]} and copied == {"a": [1, {"b": 3}]}


@pytest.mark.parametrize("fn", [df.deep_copy, df.must_deep_copy], ids=["deepCopy", "mustDeepCopy"])
def test_deep_copy_of_nil_is_reflect_panic(fn) -> None:
    with pytest.raises(FuncError) as err:
        fn(None)
    assert str(err.value) == "reflect: call of reflect.Value.Type on zero Value"
