"""Go text/template's 19 predefined functions (Go's ``funcs.go``), over the value model.

``and``/``or`` short-circuit and return the deciding operand, and ``call`` needs the
callee's name: the runtime does these three itself (``__go_special__``); the functions
here only carry their signatures. Comparisons follow Go 1.18+: ``eq`` takes several
operands and compares anything with nil; numbers of different kinds are
``incompatible types for comparison``; ``lt`` and friends accept only basic kinds.
Error texts are Go's, raised as :class:`~helm_core.golib.gotypes.FuncError`.
"""
from __future__ import annotations

from collections.abc import Callable

from helm_core.golib import gotypes
from helm_core.golib.gotypes import FuncError, signature
from helm_core.gotemplate import gofmt, runtime

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_V = "reflect.Value"


def _special(kind: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def mark(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn.__go_special__ = kind  # type: ignore[attr-defined]
        return fn

    return mark


@_special("and")
@signature(_V, _V, variadic=True)
def and_(arg0: Any, *args: Any) -> Any:
    """``and x y...``: the first false operand, else the last (evaluated lazily by the runtime)."""
    for v in (arg0, *args):
        if not truth(v):
            return v
    return args[-1] if args else arg0


@_special("or")
@signature(_V, _V, variadic=True)
def or_(arg0: Any, *args: Any) -> Any:
    """``or x y...``: the first true operand, else the last (evaluated lazily by the runtime)."""
    for v in (arg0, *args):
        if truth(v):
            return v
    return args[-1] if args else arg0


def truth(value: Any) -> bool:
    """Go's ``isTrue`` ignoring the ok flag (``not``, ``and``, ``or``, ``if``)."""
    return runtime.is_true(value)


@signature(_V)
def not_(arg: Any) -> bool:
    return not truth(arg)


def _struct_name(value: Any) -> str:
    name = gotypes.go_type_name(value)
    return name[1:] if isinstance(value, gotypes.GoObject) and name.startswith("*") else name


@_special("len")
@signature(_V)
def len_(item: Any) -> int:
    """Length of a string (in bytes, as Go), list, map or []byte."""
    if item is None:
        raise FuncError("len of nil pointer")
    if isinstance(item, str):
        return len(item.encode("utf-8", "surrogateescape"))
    if isinstance(item, (list, tuple, dict, bytes)):
        return len(item)
    raise FuncError(f"len of type {_struct_name(item)}")


def _index_arg(index: Any, cap: int) -> int:
    if isinstance(index, runtime.BoxedIndex):
        raise FuncError("cannot index slice/array with type interface {}")
    if index is None:
        raise FuncError("cannot index slice/array with nil")
    if not isinstance(index, int) or isinstance(index, bool):
        raise FuncError(f"cannot index slice/array with type {gotypes.go_type_name(index)}")
    if index < 0 or index > cap:
        raise FuncError(f"index out of range: {index}")
    return index


@signature(_V, _V, variadic=True)
def index(item: Any, *indexes: Any) -> Any:
    """``index x 1 "k"``: nested index into lists, strings (a byte) and maps (nil when absent)."""
    if item is None:
        raise FuncError("index of untyped nil")
    for idx in indexes:
        if item is None:
            raise FuncError("index of nil pointer")
        if isinstance(item, (list, tuple, str, bytes)):
            seq = item.encode("utf-8", "surrogateescape") if isinstance(item, str) else item
            x = _index_arg(idx, len(seq))
            if x == len(seq):
                kind = "string" if isinstance(item, str) else "slice"
                raise FuncError(f"reflect: {kind} index out of range")
            item = seq[x]
        elif isinstance(item, dict):
            if idx is None:
                raise FuncError("value is nil; should be of type string")
            if not isinstance(idx, str):
                raise FuncError(f"value has type {gotypes.go_type_name(idx)}; should be string")
            item = item.get(idx)
        else:
            raise FuncError(f"can't index item of type {_struct_name(item)}")
    return item


@_special("slice")
@signature(_V, _V, variadic=True)
def slice_(item: Any, *indexes: Any) -> Any:
    """``slice x 1 2``: Go's ``x[1:2]`` for strings (bytes) and lists; three indexes for lists."""
    if item is None:
        raise FuncError("slice of untyped nil")
    if len(indexes) > 3:
        raise FuncError(f"too many slice indexes: {len(indexes)}")
    if isinstance(item, str):
        if len(indexes) == 3:
            raise FuncError("cannot 3-index slice a string")
        seq: Any = item.encode("utf-8", "surrogateescape")
    elif isinstance(item, (list, tuple, bytes)):
        seq = item
    else:
        raise FuncError(f"can't slice item of type {_struct_name(item)}")
    idx = [0, len(seq), 0]
    for i, x in enumerate(indexes):
        idx[i] = _index_arg(x, len(seq))
    if idx[0] > idx[1]:
        raise FuncError(f"invalid slice index: {idx[0]} > {idx[1]}")
    if len(indexes) == 3 and idx[1] > idx[2]:
        raise FuncError(f"invalid slice index: {idx[1]} > {idx[2]}")
    part = seq[idx[0] : idx[1]]
    if isinstance(item, str):
        return part.decode("utf-8", "replace")
    return list(part) if isinstance(item, (list, tuple)) else part


@signature("interface {}", variadic=True)
def print_(*args: Any) -> str:
    return gofmt.sprint(*args)


@signature("string", "interface {}", variadic=True)
def printf(fmt: str, *args: Any) -> str:
    return gofmt.sprintf(fmt, *args)


@signature("interface {}", variadic=True)
def println(*args: Any) -> str:
    return gofmt.sprintln(*args)


def _eval_args(args: tuple[Any, ...]) -> str:
    """Go's ``evalArgs``: one string as is, else Sprint with nil shown as ``<no value>``."""
    if len(args) == 1 and isinstance(args[0], str):
        return args[0]
    return gofmt.sprint(*("<no value>" if a is None else a for a in args))


_HTML = {"\0": "\ufffd", '"': "&#34;", "'": "&#39;", "&": "&amp;", "<": "&lt;", ">": "&gt;"}


@signature("interface {}", variadic=True)
def html(*args: Any) -> str:
    """HTML-escape the text of the arguments (``&#34;`` for quotes, as Go)."""
    s = _eval_args(args)
    return "".join(_HTML.get(c, c) for c in s)


_JS = {"\\": "\\\\", "'": "\\'", '"': '\\"', "<": "\\u003C", ">": "\\u003E", "&": "\\u0026", "=": "\\u003D"}


@signature("interface {}", variadic=True)
def js(*args: Any) -> str:
    """JavaScript-escape the text of the arguments (Go's ``JSEscapeString``)."""
    out = []
    for c in _eval_args(args):
        if c in _JS:
            out.append(_JS[c])
        elif c < " ":
            out.append(f"\\u00{ord(c):02X}")
        elif ord(c) < 0x80 or c.isprintable():
            out.append(c)
        else:
            out.append(f"\\u{ord(c):04X}")
    return "".join(out)


@signature("interface {}", variadic=True)
def urlquery(*args: Any) -> str:
    """Go's ``url.QueryEscape`` of the text of the arguments (space becomes ``+``)."""
    import urllib.parse  # here: with ipaddress behind it, start-up time few templates need

    return urllib.parse.quote_plus(_eval_args(args), safe="")


@_special("call")
@signature(_V, _V, variadic=True)
def call(name: str, fn: Any, *args: Any) -> Any:
    """``call .F a b``: call a function value; the runtime passes the callee's name first."""
    if fn is None:
        raise FuncError("call of nil")
    if not callable(fn) or isinstance(fn, gotypes.GoObject):
        raise FuncError(f"non-function {name} of type {gotypes.go_type_name(fn)}")
    params = getattr(fn, "__go_params__", None)
    if params is not None:
        variadic = getattr(fn, "__go_variadic__", False)
        num_in = len(params)
        if variadic:
            if len(args) < num_in - 1:
                raise FuncError(f"wrong number of args for {name}: got {len(args)} want at least {num_in - 1}")
        elif len(args) != num_in:
            raise FuncError(f"wrong number of args for {name}: got {len(args)} want {num_in}")
        for i, arg in enumerate(args):
            typ = params[-1] if variadic and i >= num_in - 1 else params[i]
            if arg is None:
                if not runtime.nillable(typ):
                    raise FuncError(f"arg {i}: value is nil; should be of type {typ}")
            elif not runtime.assignable(arg, typ):
                raise FuncError(f"arg {i}: value has type {gotypes.go_type_name(arg)}; should be {typ}")
    return fn(*args)


# -- comparisons ---------------------------------------------------------------

_BOOL, _COMPLEX, _INT, _FLOAT, _STRING = "bool", "complex", "int", "float", "string"


def _basic_kind(v: Any) -> str:
    if isinstance(v, bool):
        return _BOOL
    if isinstance(v, int):
        return _INT
    if isinstance(v, float):
        return _FLOAT
    if isinstance(v, complex):
        return _COMPLEX
    if isinstance(v, str):
        return _STRING
    return ""




def _go_kind(v: Any) -> str:
    if v is None:
        return "invalid"
    if isinstance(v, (list, tuple, bytes)):
        return "slice"
    if isinstance(v, dict):
        return "map"
    if callable(v) and not isinstance(v, gotypes.GoObject):
        return "func"
    return "ptr" if isinstance(v, gotypes.GoObject) else "struct"


@signature(_V, _V, variadic=True)
def eq(arg1: Any, *args: Any) -> bool:
    """``eq a b c...``: a equals any of b, c...; nil equals only nil."""
    if not args:
        raise FuncError("missing argument for comparison")
    k1 = _basic_kind(arg1)
    for arg in args:
        k2 = _basic_kind(arg)
        if k1 != k2:
            if arg1 is not None and arg is not None:
                raise FuncError("incompatible types for comparison: "
                                f"{gotypes.go_type_name(arg1)} and {gotypes.go_type_name(arg)}")
            continue
        if k1:
            if arg1 == arg:
                return True
            continue
        g1, g2 = _go_kind(arg1), _go_kind(arg)
        if g1 != g2 and "invalid" not in (g1, g2):
            raise FuncError(
                f"non-comparable types {gofmt.sprintf('%s', arg1)}: {gotypes.go_type_name(arg1)}, "
                f"{gotypes.go_type_name(arg)}: {gofmt.format_value(arg)}"
            )
        if arg1 is None or arg is None:
            if arg1 is None and arg is None:
                return True
            continue
        if g2 in ("slice", "map", "func"):
            raise FuncError(f"non-comparable type {gofmt.sprintf('%s', arg)}: {gotypes.go_type_name(arg)}")
        if arg1 is arg or arg1 == arg:
            return True
    return False


@signature(_V, _V)
def ne(arg1: Any, arg2: Any) -> bool:
    return not eq(arg1, arg2)


@signature(_V, _V)
def lt(arg1: Any, arg2: Any) -> bool:
    """``lt a b``: only for basic kinds of the same kind (bool and complex are refused)."""
    k1, k2 = _basic_kind(arg1), _basic_kind(arg2)
    if not k1 or not k2:
        raise FuncError("invalid type for comparison")
    if k1 != k2:
        raise FuncError("incompatible types for comparison: "
                        f"{gotypes.go_type_name(arg1)} and {gotypes.go_type_name(arg2)}")
    if k1 in (_BOOL, _COMPLEX):
        raise FuncError("invalid type for comparison")
    if k1 == _STRING:
        return bool(arg1.encode("utf-8", "surrogateescape") < arg2.encode("utf-8", "surrogateescape"))
    return bool(arg1 < arg2)


@signature(_V, _V)
def le(arg1: Any, arg2: Any) -> bool:
    return lt(arg1, arg2) or eq(arg1, arg2)


@signature(_V, _V)
def gt(arg1: Any, arg2: Any) -> bool:
    return not le(arg1, arg2)


@signature(_V, _V)
def ge(arg1: Any, arg2: Any) -> bool:
    return not lt(arg1, arg2)


#: Go's ``builtins()`` function map.
BUILTINS: dict[str, Callable[..., Any]] = {
    "and": and_,
    "call": call,
    "html": html,
    "index": index,
    "slice": slice_,
    "js": js,
    "len": len_,
    "not": not_,
    "or": or_,
    "print": print_,
    "printf": printf,
    "println": println,
    "urlquery": urlquery,
    "eq": eq,
    "ge": ge,
    "gt": gt,
    "le": le,
    "lt": lt,
    "ne": ne,
}
