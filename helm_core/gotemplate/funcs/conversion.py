"""Type conversions: ``int``, ``int64``, ``float64``, ``atoi``, ``toDecimal``, ``toString``, ``toStrings``.

Why: charts feed these functions values of every type (float64 from YAML,
int64 from ``--set``, strings), and Sprig delegates to spf13/cast v1.7.0 whose
rules are kept here exactly: nil and unparsable input give 0, bools give 1/0,
floats truncate toward zero, strings are parsed with Go's ``strconv`` syntax
(``ParseInt(s, 0, 0)`` after dropping a ``.000`` tail; ``ParseFloat`` for floats).
"""
from __future__ import annotations

import math

from helm_core.golib import gostrconv
from helm_core.golib.gotypes import Int64, signature
from helm_core.gotemplate import gofmt
from helm_core.gotemplate.funcs import gohelpers
from helm_core.support import patterns

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
#: Go float literal syntax accepted by strconv.ParseFloat (decimal and hex forms).
_DEC_FLOAT = patterns.on_first_use(
    r"[+-]?(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?")
_HEX_FLOAT = patterns.on_first_use(
    r"[+-]?0[xX](?:_?[0-9a-fA-F])*(?:\.(?:[0-9a-fA-F](?:_?[0-9a-fA-F])*)?)?(?:[pP][+-]?\d(?:_?\d)*)?"
)
_SPECIAL_FLOATS = {"inf": math.inf, "+inf": math.inf, "-inf": -math.inf, "infinity": math.inf,
                   "+infinity": math.inf, "-infinity": -math.inf, "nan": math.nan}


class ParseError(ValueError):
    """A ``strconv`` syntax or range error; ``clamped`` is Go's returned value on range errors."""

    def __init__(self, kind: str, clamped: int = 0) -> None:
        super().__init__(kind)
        self.kind = kind
        self.clamped = clamped


def parse_int(s: str, base: int = 0, *, bits: int = 64) -> int:
    """Go's ``strconv.ParseInt(s, base, bits)``; raises :class:`ParseError` like Go's errors."""
    if not s:
        raise ParseError("syntax")
    neg = s[0] == "-"
    body = s[1:] if s[0] in "+-" else s
    base0 = base == 0
    if base == 0:
        base = 10
        if body[:1] == "0":
            if len(body) >= 3 and body[1].lower() == "b":
                base, body = 2, body[2:]
            elif len(body) >= 3 and body[1].lower() == "o":
                base, body = 8, body[2:]
            elif len(body) >= 3 and body[1].lower() == "x":
                base, body = 16, body[2:]
            else:
                base, body = 8, body[1:]
                if not body:
                    return 0
    if not body:
        raise ParseError("syntax")
    value = 0
    underscores = False
    for c in body:
        if c == "_" and base0:
            underscores = True
            continue
        d = _DIGITS.find(c.lower()) if c.isascii() else -1
        if d < 0 or d >= base:
            raise ParseError("syntax")
        value = value * base + d
    if underscores and not gostrconv.underscore_ok(s):
        raise ParseError("syntax")
    limit = 1 << (bits - 1)
    if not neg and value >= limit:
        raise ParseError("range", limit - 1)
    if neg and value > limit:
        raise ParseError("range", -limit)
    return -value if neg else value


def parse_float(s: str) -> float:
    """Go's ``strconv.ParseFloat(s, 64)``: Go literal syntax, inf/nan words, range errors."""
    special = _SPECIAL_FLOATS.get(s.lower())
    if special is not None:
        return special
    if _HEX_FLOAT().fullmatch(s):
        if "_" in s and not gostrconv.underscore_ok(s):
            raise ParseError("syntax")
        text = s.replace("_", "")
        if "p" not in text.lower():
            raise ParseError("syntax")
        try:
            value = float.fromhex(text)
        except (ValueError, OverflowError):
            raise ParseError("range") from None
    elif _DEC_FLOAT().fullmatch(s):
        if "_" in s and not gostrconv.underscore_ok(s):
            raise ParseError("syntax")
        value = float(s.replace("_", ""))
    else:
        raise ParseError("syntax")
    if math.isinf(value):
        raise ParseError("range")
    return value


def _trim_zero_decimal(s: str) -> str:
    """cast's ``trimZeroDecimal``: ``"12.000"`` -> ``"12"``; anything else unchanged."""
    found_zero = False
    for i in range(len(s), 0, -1):
        c = s[i - 1]
        if c == ".":
            if found_zero:
                return s[: i - 1]
        elif c == "0":
            found_zero = True
        else:
            return s
    return s


def cast_int64(v: Any) -> int:
    """spf13/cast ``ToInt64``: the value Sprig's integer math works on (errors give 0)."""
    if v is None or v is False:
        return 0
    if v is True:
        return 1
    if isinstance(v, int):
        return gohelpers.wrap_int64(v)
    if isinstance(v, float):
        return gohelpers.float_to_int64(v)
    if isinstance(v, str):
        try:
            return parse_int(_trim_zero_decimal(v), 0)
        except ParseError:
            return 0
    return 0


def cast_float64(v: Any) -> float:
    """spf13/cast ``ToFloat64``: nil/bool/int/float/string to float64; errors give 0."""
    if v is None or v is False:
        return 0.0
    if v is True:
        return 1.0
    if isinstance(v, int):
        return float(gohelpers.wrap_int64(v))
    if isinstance(v, float):
        return v
    if isinstance(v, str):
        try:
            return parse_float(v)
        except ParseError:
            return 0.0
    return 0.0


@signature("interface {}")
def to_int(v: Any) -> int:
    """``int``: cast.ToInt (Go int is 64-bit here)."""
    return int(cast_int64(v))


@signature("interface {}")
def to_int64(v: Any) -> int:
    """``int64``: cast.ToInt64."""
    return Int64(cast_int64(v))


@signature("interface {}")
def to_float64(v: Any) -> float:
    """``float64``: cast.ToFloat64."""
    return cast_float64(v)


@signature("string")
def atoi(s: str) -> int:
    """``atoi``: ``strconv.Atoi`` with the error dropped (syntax -> 0, range -> clamped)."""
    try:
        return parse_int(s, 10)
    except ParseError as e:
        return e.clamped


@signature("interface {}")
def to_decimal(v: Any) -> int:
    """``toDecimal``: the octal digits of ``fmt.Sprint(v)`` as a number; 0 when not octal."""
    try:
        return Int64(parse_int(gofmt.sprint(v), 8))
    except ParseError:
        return Int64(0)


@signature("interface {}")
def to_string(v: Any) -> str:
    """``toString``: Sprig's ``strval``."""
    return gohelpers.strval(v)


def strslice(v: Any) -> list[str]:
    """Sprig's ``strslice``: elements of a slice as strings, nil elements dropped.

    Rules: nil -> ``[]``; a non-slice value -> ``[strval(v)]``; ``[]byte`` gives
    the byte values as decimal strings (each element is a ``uint8``).
    """
    if v is None:
        return []
    if isinstance(v, bytes):
        return [str(b) for b in v]
    if isinstance(v, (list, tuple)):
        return [gohelpers.strval(x) for x in v if x is not None]
    return [gohelpers.strval(v)]


@signature("interface {}")
def to_strings(v: Any) -> list[str]:
    """``toStrings``."""
    return strslice(v)


FUNCS = {
    "toString": to_string,
    "toStrings": to_strings,
    "atoi": atoi,
    "int": to_int,
    "int64": to_int64,
    "float64": to_float64,
    "toDecimal": to_decimal,
}
