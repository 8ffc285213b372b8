"""Small Go-runtime behaviours that several Sprig families share.

Why: Sprig leans on Go's byte-oriented strings, ``unicode`` predicates,
``strconv`` parsing, int64 wrap-around and panics that ``text/template``
recovers into errors. Each helper states the Go rule it reproduces.
"""
from __future__ import annotations

import math

from helm_core.golib.gotypes import Duration, FuncError, GoObject, Int64
from helm_core.gotemplate import gofmt

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: Go's int64 bounds: results of Sprig's int64 arithmetic wrap inside them.
INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1
UINT64_MAX = (1 << 64) - 1

def wrap_int64(n: int) -> int:
    """Two's complement wrap of ``n`` into int64, as Go arithmetic overflows."""
    n &= (1 << 64) - 1
    return n - (1 << 64) if n > INT64_MAX else n


def float_to_int64(f: float) -> int:
    """Go's ``int64(f)`` on amd64: truncate; NaN, Inf and out-of-range give MinInt64."""
    if math.isnan(f) or math.isinf(f) or not (-9.223372036854775808e18 <= f < 9.223372036854775808e18):
        return INT64_MIN
    return int(f)


def _category(ch: str) -> str:
    """``unicodedata.category``. The module is imported by the first call: only Sprig's casing
    functions and a few string ones ask, and its import is ~0.3 ms of every render otherwise
    (bench/deferred.py)."""
    import unicodedata

    return unicodedata.category(ch)


def go_is_upper(ch: str) -> bool:
    """``unicode.IsUpper`` (category Lu)."""
    return _category(ch) == "Lu"


def go_is_lower(ch: str) -> bool:
    """``unicode.IsLower`` (category Ll)."""
    return _category(ch) == "Ll"


def go_is_title(ch: str) -> bool:
    """``unicode.IsTitle`` (category Lt)."""
    return _category(ch) == "Lt"


def go_is_letter(ch: str) -> bool:
    """``unicode.IsLetter`` (categories L*)."""
    return _category(ch).startswith("L")


def go_is_number(ch: str) -> bool:
    """``unicode.IsNumber`` (categories N*)."""
    return _category(ch).startswith("N")


def go_is_digit(ch: str) -> bool:
    """``unicode.IsDigit`` (category Nd)."""
    return _category(ch) == "Nd"


def go_is_punct(ch: str) -> bool:
    """``unicode.IsPunct`` (categories P*)."""
    return _category(ch).startswith("P")


def go_to_title(ch: str) -> str:
    """``unicode.ToTitle`` of one rune (single-rune result, as Go)."""
    t = ch.title() if len(ch.title()) == 1 else ch.upper()
    return t if len(t) == 1 else ch


def go_to_upper(ch: str) -> str:
    """``unicode.ToUpper`` of one rune: Go never expands a rune into several."""
    u = ch.upper()
    return u if len(u) == 1 else ch


def go_to_lower(ch: str) -> str:
    """``unicode.ToLower`` of one rune (simple mapping: U+0130 İ becomes plain i)."""
    lo = ch.lower()
    if len(lo) == 1:
        return lo
    return "i" if ch == "\u0130" else ch


def to_bytes(s: str) -> bytes:
    """The bytes of a Go string (UTF-8; lone surrogates from invalid input kept)."""
    return s.encode("utf-8", "surrogateescape")


def from_bytes(b: bytes) -> str:
    """A Go string from bytes; invalid UTF-8 is kept through surrogate escapes."""
    return b.decode("utf-8", "surrogateescape")


def go_byte_slice(s: str, lo: int | None, hi: int | None) -> str:
    """Go's ``s[lo:hi]`` on the bytes of ``s``; bad bounds raise Go's panic text."""
    b = to_bytes(s)
    n = len(b)
    start = 0 if lo is None else lo
    end = n if hi is None else hi
    if hi is not None and end < 0:
        raise FuncError(f"runtime error: slice bounds out of range [:{end}]")
    if hi is not None and end > n:
        raise FuncError(f"runtime error: slice bounds out of range [:{end}] with length {n}")
    if start < 0:
        raise FuncError(f"runtime error: slice bounds out of range [{start}:]")
    if start > end:
        raise FuncError(f"runtime error: slice bounds out of range [{start}:{end}]")
    return from_bytes(b[start:end])


def strval(v: Any) -> str:
    """Sprig's ``strval``: strings as-is, bytes as text, Stringers via String(), else ``%v``."""
    if isinstance(v, str):
        return v
    if isinstance(v, (bytes, bytearray)):
        return from_bytes(bytes(v))
    if isinstance(v, GoObject) and "String" in v.go_members:
        return str(v.go_field("String")())
    return gofmt.format_value(v)


def kind_of(v: Any) -> str:
    """Go's ``reflect.Kind`` name of a model value (``invalid`` for nil)."""
    if v is None:
        return "invalid"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, Int64):
        return "int64"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "float64"
    if isinstance(v, str):
        return "string"
    if isinstance(v, (bytes, list, tuple)):
        return "slice"
    if isinstance(v, dict):
        return "map"
    if isinstance(v, Duration):
        return "int64"
    if isinstance(v, GoObject):
        return "ptr" if v.go_type.startswith("*") else "struct"
    return "struct"


def is_slice(v: Any) -> bool:
    """Whether ``reflect`` would see a slice or array."""
    return isinstance(v, (list, tuple, bytes))


def slice_items(v: Any) -> list[Any]:
    """The elements of a slice value as Go's ``Index(i).Interface()`` gives them (bytes as ints)."""
    return list(v)
