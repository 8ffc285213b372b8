"""Dict functions; set/unset/merge mutate their first argument as Go maps do."""
from __future__ import annotations

import pytest

from helm_core.gotemplate.funcs import dicts
from helm_core.golib.gotypes import FuncError


def test_dict_builds_string_keys_and_pads_odd_arguments() -> None:
    assert dicts.dict_("a", 1, 2, "x", None, 3, "z") == {"a": 1, "2": "x", "<nil>": 3, "z": ""}


def test_get_returns_empty_string_when_missing() -> None:
    assert (dicts.get({"a": None}, "a"), dicts.get({}, "a")) == (None, "")


def test_set_and_unset_mutate_and_return_the_same_dict() -> None:
    d = {"a": 1}
    assert dicts.set_(d, "b", 2) is d and d == {"a": 1, "b": 2}
    assert dicts.unset(d, "a") is d and d == {"b": 2}
    assert dicts.unset(d, "missing") == {"b": 2}


def test_has_key_pluck_pick_omit() -> None:
    d = {"a": 1, "b": None}
    assert dicts.has_key(d, "b") and not dicts.has_key(d, "c")
    assert dicts.pluck("a", {"a": 1}, {"b": 2}, {"a": 3}) == [1, 3]
    assert dicts.pick(d, "a", "zz") == {"a": 1}
    assert dicts.omit(d, "a") == {"b": None}
    assert d == {"a": 1, "b": None}


def test_keys_and_values_cover_every_entry() -> None:
    assert dicts.keys({"b": 1, "a": 2}, {"c": 3}) == ["a", "b", "c"]
    assert dicts.values({"b": 1, "a": 2}) == [2, 1]
    assert (dicts.keys(), dicts.values({})) == ([], [])


def test_dig_walks_nested_maps() -> None:
    d = {"a": {"b": {"c": 1}}}
    assert dicts.dig("a", "b", "c", "def", d) == 1
    assert dicts.dig("a", "x", "c", "def", d) == "def"


DIG_ERRORS = [
    ("too_few", ("a", {}), "dig needs at least three arguments"),
    ("not_a_map_step", ("a", "b", "d", {"a": "x"}), "interface conversion: interface {} is string, not map[string]interface {}"),
    ("float_step", ("a", "b", "d", {"a": 1.0}), "interface conversion: interface {} is float64, not map[string]interface {}"),
    ("nil_step", ("a", "b", "d", {"a": None}), "interface conversion: interface {} is nil, not map[string]interface {}"),
    ("int_key", (1, "d", {}), "interface conversion: interface {} is int, not string"),
    ("last_not_map", ("a", "d", 1), "interface conversion: interface {} is int, not map[string]interface {}"),
]


@pytest.mark.parametrize(("args", "message"), [c[1:] for c in DIG_ERRORS], ids=[c[0] for c in DIG_ERRORS])
def test_dig_errors_are_go_conversion_panics(args, message: str) -> None:
    with pytest.raises(FuncError) as err:
        dicts.dig(*args)
    assert str(err.value) == message


MERGE = [
    ("dst_wins", dicts.merge, {"a": 1}, {"a": 2, "b": 3}, {"a": 1, "b": 3}),
    ("empty_dst_values_filled", dicts.merge, {"a": "", "b": 0, "c": False, "d": None, "e": []},
     {"a": "A", "b": 2, "c": True, "d": "D", "e": [9]}, {"a": "A", "b": 2, "c": True, "d": "D", "e": [9]}),
    ("nested_merge", dicts.merge, {"n": {"x": 1}}, {"n": {"x": 2, "y": 3}}, {"n": {"x": 1, "y": 3}}),
    ("list_not_replacing_string", dicts.merge, {"x": "s"}, {"x": [1]}, {"x": "s"}),
    ("map_not_replacing_string", dicts.merge, {"x": "s"}, {"x": {"a": 1}}, {"x": "s"}),
    ("nil_source_ignored", dicts.merge, {"a": 1}, {"a": None, "b": None}, {"a": 1}),
    ("overwrite_wins", dicts.merge_overwrite, {"a": 1, "n": {"x": 1, "y": 2}}, {"a": "", "n": {"x": None}},
     {"a": "", "n": {"x": None, "y": 2}}),
    ("overwrite_type_change", dicts.merge_overwrite, {"x": "s"}, {"x": {"a": 1}}, {"x": {"a": 1}}),
    ("overwrite_list", dicts.merge_overwrite, {"x": [1, 2]}, {"x": [3]}, {"x": [3]}),
]


@pytest.mark.parametrize(("fn", "dst", "src", "expected"), [c[1:] for c in MERGE], ids=[c[0] for c in MERGE])
def test_merge_follows_mergo_and_mutates_destination(fn, dst, src, expected) -> None:
    result = fn(dst, src)
    assert result is dst and result == expected


def test_merge_applies_sources_in_order() -> None:
    assert dicts.merge({}, {"a": 1}, {"a": 2, "b": 2}) == {"a": 1, "b": 2}
    assert dicts.merge_overwrite({}, {"a": 1}, {"a": 2}) == {"a": 2}


def test_set_on_nil_map_is_go_panic() -> None:
    with pytest.raises(FuncError) as err:
        dicts.set_(None, "a", 1)
    assert str(err.value) == "assignment to entry in nil map"
