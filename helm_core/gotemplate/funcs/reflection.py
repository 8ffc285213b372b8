"""Reflection: ``typeOf``, ``typeIs``, ``typeIsLike``, ``kindOf``, ``kindIs``, ``deepEqual``.

Why: charts branch on value types (``kindIs "map" .x``). Type names are Go's
``%T`` of the value model (``float64``, ``[]interface {}``, ``map[string]interface {}``);
kinds are ``reflect.Kind`` names (``invalid`` for nil). ``deepEqual`` is
``reflect.DeepEqual``: types must match, so 1 and 1.0 differ.
"""
from __future__ import annotations

import datetime

from helm_core.golib.gotypes import CYCLE_CHECK_DEPTH, Duration, GoObject, go_type_name, signature
from helm_core.gotemplate.funcs import gohelpers

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def go_deep_equal(a: Any, b: Any, depth: int = 0, visited: set[tuple[int, int]] | None = None) -> bool:
    """``reflect.DeepEqual`` over the value model.

    As Go, a map or list is equal to itself, and a pair of them met again while being compared
    (values set inside themselves) counts as equal; pairs are noted past CYCLE_CHECK_DEPTH."""
    if a.__class__ is str:  # the common case (``has``, ``uniq`` over names): both strings, equal
        return isinstance(b, str) and a == b
    if a is None or b is None:
        return a is None and b is None
    if go_type_name(a) != go_type_name(b):
        return False
    if isinstance(a, (list, tuple, dict)):
        if a is b:
            return True
        if depth >= CYCLE_CHECK_DEPTH:
            visited = set() if visited is None else visited
            if (id(a), id(b)) in visited:
                return True
            visited.add((id(a), id(b)))
        if isinstance(a, dict):
            return a.keys() == b.keys() and all(go_deep_equal(a[k], b[k], depth + 1, visited) for k in a)
        return len(a) == len(b) and all(go_deep_equal(x, y, depth + 1, visited) for x, y in zip(a, b, strict=True))
    if isinstance(a, float):
        return bool(a == b)
    if isinstance(a, datetime.datetime):
        return bool(a == b and a.utcoffset() == b.utcoffset() and a.tzinfo == b.tzinfo)
    if isinstance(a, (GoObject, Duration)):
        return bool(a == b)
    return bool(a == b)


@signature("interface {}")
def type_of(v: Any) -> str:
    """``typeOf``: ``fmt.Sprintf("%T", v)``."""
    return go_type_name(v)


@signature("string", "interface {}")
def type_is(target: str, v: Any) -> bool:
    """``typeIs``."""
    return target == go_type_name(v)


@signature("string", "interface {}")
def type_is_like(target: str, v: Any) -> bool:
    """``typeIsLike``: the type or a pointer to it."""
    t = go_type_name(v)
    return target == t or "*" + target == t


@signature("interface {}")
def kind_of(v: Any) -> str:
    """``kindOf``."""
    return gohelpers.kind_of(v)


@signature("string", "interface {}")
def kind_is(target: str, v: Any) -> bool:
    """``kindIs``."""
    return target == gohelpers.kind_of(v)


@signature("interface {}", "interface {}")
def deep_equal(a: Any, b: Any) -> bool:
    """``deepEqual``."""
    return go_deep_equal(a, b)


FUNCS = {
    "typeOf": type_of,
    "typeIs": type_is,
    "typeIsLike": type_is_like,
    "kindOf": kind_of,
    "kindIs": kind_is,
    "deepEqual": deep_equal,
}
