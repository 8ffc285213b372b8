"""Defaults and flow helpers: ``default``, ``empty``, ``coalesce``, ``all``, ``any``,
``ternary``, ``deepCopy``/``mustDeepCopy``.

Why: charts use these to fill gaps in values, and Sprig's emptiness rule (one
place, :func:`is_empty`) decides: nil, false, 0, 0.0, "" and empty
lists/maps/bytes are empty; structs, times and pointers never are.
"""
from __future__ import annotations

import datetime

from helm_core.golib.gotypes import CYCLE_CHECK_DEPTH, Duration, FuncError, GoObject, enter_once, signature
from helm_core.gotemplate import budget

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def is_empty(v: Any) -> bool:
    """Sprig's ``empty`` rule on a model value."""
    if v is None:
        return True
    if isinstance(v, bool):
        return not v
    if isinstance(v, (int, float)):
        return v == 0
    if isinstance(v, (str, bytes, list, tuple, dict)):
        return len(v) == 0
    if isinstance(v, Duration):
        return v.nanoseconds == 0
    if isinstance(v, (datetime.datetime, GoObject)):
        return False
    return False


@signature("interface {}", "interface {}", variadic=True)
def default(d: Any, *given: Any) -> Any:
    """``default DEFAULT VALUE``: VALUE unless it is empty (or missing)."""
    if not given or is_empty(given[0]):
        return d
    return given[0]


@signature("interface {}")
def empty(v: Any) -> bool:
    """``empty``."""
    return is_empty(v)


@signature("interface {}", variadic=True)
def coalesce(*values: Any) -> Any:
    """``coalesce``: the first non-empty argument, else nil."""
    for v in values:
        if not is_empty(v):
            return v
    return None


@signature("interface {}", variadic=True)
def all_(*values: Any) -> bool:
    """``all``: true when no argument is empty (true for none)."""
    return not any(is_empty(v) for v in values)


@signature("interface {}", variadic=True)
def any_(*values: Any) -> bool:
    """``any``: true when some argument is non-empty."""
    return any(not is_empty(v) for v in values)


@signature("interface {}", "interface {}", "bool")
def ternary(vt: Any, vf: Any, cond: bool) -> Any:
    """``ternary TRUE FALSE COND``."""
    return vt if cond else vf


def deep_copy_value(v: Any, depth: int = 0, path: set[int] | None = None) -> Any:
    """copystructure's copy: maps and slices are copied deeply, scalars and structs shared.

    Past CYCLE_CHECK_DEPTH levels ``path`` holds the maps and lists being copied: one inside
    itself is refused (copystructure, hence helm, copies it for ever)."""
    if isinstance(v, (dict, list, tuple)) and depth >= CYCLE_CHECK_DEPTH:
        path = set() if path is None else path
        enter_once(v, path, "copy")
        copied = deep_copy_value(v, -1, path)  # (-1: this level is checked)
        path.discard(id(v))
        return copied
    deeper = depth + 1 if depth >= 0 else CYCLE_CHECK_DEPTH
    if isinstance(v, dict):
        return {k: deep_copy_value(x, deeper, path) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [deep_copy_value(x, deeper, path) for x in v]
    if isinstance(v, GoObject):
        import copy  # only here: copy (with weakref) is start-up time of every render otherwise

        return copy.copy(v)
    return v


@signature("interface {}")
def must_deep_copy(v: Any) -> Any:
    """``mustDeepCopy``: nil is copystructure's reflect panic."""
    if v is None:
        raise FuncError("reflect: call of reflect.Value.Type on zero Value")
    budget.check_text(v, what="copy")
    return deep_copy_value(v)


@signature("interface {}")
def deep_copy(v: Any) -> Any:
    """``deepCopy``: as ``mustDeepCopy`` (its errors are panics, recovered the same way)."""
    return must_deep_copy(v)


FUNCS = {
    "default": default,
    "empty": empty,
    "coalesce": coalesce,
    "all": all_,
    "any": any_,
    "ternary": ternary,
    "deepCopy": deep_copy,
    "mustDeepCopy": must_deep_copy,
}
