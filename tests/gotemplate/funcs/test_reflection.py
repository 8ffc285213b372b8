"""typeOf/kindOf names and DeepEqual over the value model."""
from __future__ import annotations

import datetime

import pytest

from helm_core.gotemplate.funcs import crypto, reflection as rf, semver
from helm_core.golib.gotypes import Duration, Int64

VALUES = [
    ("nil", None, "<nil>", "invalid"),
    ("bool", True, "bool", "bool"),
    ("int", 1, "int", "int"),
    ("int64", Int64(1), "int64", "int64"),
    ("float", 1.5, "float64", "float64"),
    ("string", "s", "string", "string"),
    ("bytes", b"x", "[]uint8", "slice"),
    ("list", [1], "[]interface {}", "slice"),
    ("map", {}, "map[string]interface {}", "map"),
    ("time", datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc), "time.Time", "struct"),
    ("duration", Duration(1), "time.Duration", "int64"),
    ("semver", semver.semver("1.0.0"), "*semver.Version", "ptr"),
    ("certificate", crypto.Certificate("c", "k"), "sprig.certificate", "struct"),
]


@pytest.mark.parametrize(("value", "type_name", "kind"), [c[1:] for c in VALUES], ids=[c[0] for c in VALUES])
def test_type_and_kind_names(value, type_name: str, kind: str) -> None:
    assert (rf.type_of(value), rf.kind_of(value)) == (type_name, kind)
    assert rf.type_is(type_name, value) and rf.kind_is(kind, value)


def test_type_is_like_accepts_pointer() -> None:
    v = semver.semver("1.0.0")
    assert rf.type_is_like("semver.Version", v) and not rf.type_is("semver.Version", v)


DEEP = [
    ("int_float_differ", 1, 1.0, False),
    ("int_int64_differ", 1, Int64(1), False),
    ("bool_int_differ", True, 1, False),
    ("nil_nil", None, None, True),
    ("nil_empty_list", None, [], False),
    ("nested_equal", {"a": [1, {"b": "c"}]}, {"a": [1, {"b": "c"}]}, True),
    ("nested_type_differs", {"a": [1]}, {"a": [1.0]}, False),
    ("map_keys_differ", {"a": 1}, {"b": 1}, False),
    ("semver_equal", semver.semver("1.0.0"), semver.semver("1.0.0"), True),
]


@pytest.mark.parametrize(("a", "b", "expected"), [c[1:] for c in DEEP], ids=[c[0] for c in DEEP])
def test_deep_equal_is_type_strict(a, b, expected: bool) -> None:
    assert rf.deep_equal(a, b) is expected
