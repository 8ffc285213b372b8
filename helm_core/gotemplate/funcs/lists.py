"""List functions: ``list``/``tuple``, ``first``, ``rest``, ``last``, ``initial``,
``append``/``push``, ``prepend``, ``concat``, ``reverse``, ``uniq``, ``without``,
``has``, ``compact``, ``slice``, ``chunk``, ``sortAlpha`` and their ``must*`` forms.

Why: Sprig works on any Go slice through reflection and always returns a new
``[]interface{}``; inputs are never modified. A non-slice argument is an error
(``Cannot find first on type int``): a plain error for ``must*``, a recovered
panic with the same text otherwise; nil is Go's nil-pointer panic. Equality is
``reflect.DeepEqual`` (1 and 1.0 differ).
"""
from __future__ import annotations

from helm_core.golib.gotypes import FuncError, signature
from helm_core.gotemplate import budget
from helm_core.gotemplate.funcs import conversion, defaults, gohelpers, reflection

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

NIL_PANIC = "runtime error: invalid memory address or nil pointer dereference"


def _items(v: Any, what: str) -> list[Any]:
    """The elements of a slice argument, or Go's error for anything else."""
    if v is None:
        raise FuncError(NIL_PANIC)
    if not gohelpers.is_slice(v):
        raise FuncError(what.format(kind=gohelpers.kind_of(v)))
    return gohelpers.slice_items(v)


@signature("interface {}", variadic=True)
def list_(*values: Any) -> list[Any]:
    """``list``/``tuple``: the arguments as a list."""
    return list(values)


@signature("interface {}", "interface {}")
def push(lst: Any, v: Any) -> list[Any]:
    """``append``/``push``/``mustAppend``/``mustPush``: a new list with ``v`` at the end."""
    return _items(lst, "Cannot push on type {kind}") + [v]


@signature("interface {}", "interface {}")
def prepend(lst: Any, v: Any) -> list[Any]:
    """``prepend``: a new list with ``v`` first."""
    return [v] + _items(lst, "Cannot prepend on type {kind}")


@signature("int", "interface {}")
def chunk(size: int, lst: Any) -> list[list[Any]]:
    """``chunk``: lists of ``size`` elements (the last may be shorter); size <= 0 panics."""
    items = _items(lst, "Cannot chunk type {kind}")
    if size <= 0:
        raise FuncError("runtime error: makeslice: len out of range")
    return [items[i:i + size] for i in range(0, len(items), size)]


@signature("interface {}")
def last(lst: Any) -> Any:
    """``last``: nil for an empty list."""
    items = _items(lst, "Cannot find last on type {kind}")
    return items[-1] if items else None


@signature("interface {}")
def first(lst: Any) -> Any:
    """``first``: nil for an empty list."""
    items = _items(lst, "Cannot find first on type {kind}")
    return items[0] if items else None


@signature("interface {}")
def rest(lst: Any) -> list[Any]:
    """``rest``: all but the first."""
    return _items(lst, "Cannot find rest on type {kind}")[1:]


@signature("interface {}")
def initial(lst: Any) -> list[Any]:
    """``initial``: all but the last."""
    return _items(lst, "Cannot find initial on type {kind}")[:-1]


@signature("interface {}")
def sort_alpha(lst: Any) -> list[str]:
    """``sortAlpha``: ``toStrings`` sorted bytewise; a non-list gives ``[strval]``."""
    if gohelpers.is_slice(lst):
        return sorted(conversion.strslice(lst), key=gohelpers.to_bytes)
    return [gohelpers.strval(lst)]


@signature("interface {}")
def reverse(lst: Any) -> list[Any]:
    """``reverse``."""
    return _items(lst, "Cannot find reverse on type {kind}")[::-1]


@signature("interface {}")
def compact(lst: Any) -> list[Any]:
    """``compact``: drop empty elements (Sprig's emptiness rule)."""
    return [x for x in _items(lst, "Cannot compact on type {kind}") if not defaults.is_empty(x)]


def _in_list(haystack: list[Any], needle: Any) -> bool:
    return any(reflection.go_deep_equal(needle, h) for h in haystack)


#: Values DeepEqual compares by type and value alone: ``uniq`` keeps them in a set.
_PLAIN = frozenset({str, int, float, bool})


@signature("interface {}")
def uniq(lst: Any) -> list[Any]:
    """``uniq``: first occurrences, by DeepEqual.

    Sprig compares each item with every one kept (quadratic: ``uniq (until 20000)`` takes
    helm 9 s); strings and numbers are looked up in a set instead, and the scan of the other
    items (maps, lists) ticks the render budget, so its deadline can stop it."""
    out: list[Any] = []
    seen: set[tuple[type, Any]] = set()
    others: list[Any] = []
    tick = budget.current().tick
    for x in _items(lst, "Cannot find uniq on type {kind}"):
        cls = x.__class__
        if cls in _PLAIN and x == x:  # NaN is not DeepEqual to itself
            if (cls, x) not in seen:
                seen.add((cls, x))
                out.append(x)
        else:
            tick()
            if not _in_list(others, x):
                others.append(x)
                out.append(x)
    return out


@signature("interface {}", "interface {}", variadic=True)
def without(lst: Any, *omit: Any) -> list[Any]:
    """``without``: drop every element DeepEqual to one of ``omit``."""
    return [x for x in _items(lst, "Cannot find without on type {kind}") if not _in_list(list(omit), x)]


@signature("interface {}", "interface {}")
def has(needle: Any, haystack: Any) -> bool:
    """``has NEEDLE LIST``: false for a nil list."""
    if haystack is None:
        return False
    return _in_list(_items(haystack, "Cannot find has on type {kind}"), needle)


@signature("interface {}", "interface {}", variadic=True)
def slice_(lst: Any, *indices: Any) -> Any:
    """``slice LIST [START [END]]``: nil for an empty list; bad bounds panic as reflect does."""
    items = _items(lst, "list should be type of slice or array but {kind}")
    if not items:
        return None
    start = conversion.cast_int64(indices[0]) if indices else 0
    end = conversion.cast_int64(indices[1]) if len(indices) >= 2 else len(items)
    if not 0 <= start <= end <= len(items):
        raise FuncError("reflect.Value.Slice: slice index out of bounds")
    if isinstance(lst, bytes):
        return lst[start:end]
    return items[start:end]


@signature("interface {}", variadic=True)
def concat(*lists: Any) -> list[Any]:
    """``concat``: all elements of all lists; a non-list panics."""
    out: list[Any] = []
    for lst in lists:
        out.extend(_items(lst, "Cannot concat type {kind} as list"))
    return out


FUNCS = {
    "list": list_,
    "tuple": list_,
    "append": push,
    "push": push,
    "mustAppend": push,
    "mustPush": push,
    "prepend": prepend,
    "mustPrepend": prepend,
    "first": first,
    "mustFirst": first,
    "rest": rest,
    "mustRest": rest,
    "last": last,
    "mustLast": last,
    "initial": initial,
    "mustInitial": initial,
    "reverse": reverse,
    "mustReverse": reverse,
    "uniq": uniq,
    "mustUniq": uniq,
    "without": without,
    "mustWithout": without,
    "has": has,
    "mustHas": has,
    "slice": slice_,
    "mustSlice": slice_,
    "concat": concat,
    "chunk": chunk,
    "mustChunk": chunk,
    "sortAlpha": sort_alpha,
    "compact": compact,
    "mustCompact": compact,
}
