"""Literal constants of the template language, as Go's parser reads them.

``unquote`` is ``strconv.Unquote`` for "..." and `...`; :func:`new_number` is Go's
``newNumber``: it records which Go types (int64, uint64, float64, complex128) can hold
a numeric constant exactly, which later decides how the constant is passed to a function.
"""
from __future__ import annotations

import math
import re

from helm_core.golib import gostrconv
from helm_core.gotemplate import gofmt
from helm_core.gotemplate import nodes as n
from helm_core.gotemplate.lexer import ItemType
from helm_core.support import patterns

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Optional

_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
_UINT64_MAX = (1 << 64) - 1

_SIMPLE_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\"}


def unquote_char(s: str, i: int, quote: str) -> tuple[str, int]:
    """One possibly escaped character of a quoted literal at ``s[i]``; ValueError if invalid."""
    ch = s[i]
    if ch == quote and quote in "'\"":
        raise ValueError("invalid syntax")
    if ch != "\\":
        return ch, i + 1
    if i + 1 >= len(s):
        raise ValueError("invalid syntax")
    c = s[i + 1]
    if c in _SIMPLE_ESCAPES:
        return _SIMPLE_ESCAPES[c], i + 2
    if c == quote and quote in "'\"":
        return c, i + 2
    if c in "xuU":
        size = {"x": 2, "u": 4, "U": 8}[c]
        digits = s[i + 2 : i + 2 + size]
        if len(digits) != size or not re.fullmatch(r"[0-9a-fA-F]+", digits):
            raise ValueError("invalid syntax")
        code = int(digits, 16)
        if c != "x" and (code > 0x10FFFF or 0xD800 <= code <= 0xDFFF):
            raise ValueError("invalid syntax")
        return chr(code), i + 2 + size
    if "0" <= c <= "7":
        digits = s[i + 1 : i + 4]
        if len(digits) != 3 or not re.fullmatch(r"[0-7]{3}", digits) or int(digits, 8) > 255:
            raise ValueError("invalid syntax")
        return chr(int(digits, 8)), i + 4
    raise ValueError("invalid syntax")


def unquote(s: str) -> str:
    """Go's ``strconv.Unquote`` for "..." and `...` literals."""
    if len(s) < 2 or s[0] != s[-1]:
        raise ValueError("invalid syntax")
    q = s[0]
    body = s[1:-1]
    if q == "`":
        if "`" in body:
            raise ValueError("invalid syntax")
        return body.replace("\r", "")
    if q != '"':
        raise ValueError("invalid syntax")
    if "\\" not in body and '"' not in body and "\n" not in body:
        return body
    out = []
    i = 0
    while i < len(body):
        if body[i] == "\n":
            raise ValueError("invalid syntax")
        ch, i = unquote_char(body, i, q)
        out.append(ch)
    return "".join(out)


_BASES = {"x": 16, "o": 8, "b": 2}
_DIGITS = {16: "0123456789abcdefABCDEF", 10: "0123456789", 8: "01234567", 2: "01"}
_DECIMAL_FLOAT = patterns.on_first_use(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _parse_int(text: str) -> Optional[int]:
    """``strconv.ParseInt(text, 0, 64)`` without the range check; None if not an integer."""
    s = text
    neg = False
    if s[:1] in ("+", "-") and s:
        neg, s = s[0] == "-", s[1:]
    if not s or not gostrconv.underscore_ok(s):
        return None
    digits = s.replace("_", "")
    base = 10
    if len(digits) >= 2 and digits[0] == "0" and digits[1].lower() in _BASES:
        base, digits = _BASES[digits[1].lower()], digits[2:]
    elif len(digits) >= 2 and digits[0] == "0":
        base, digits = 8, digits[1:]
    if not digits or any(c not in _DIGITS[base] for c in digits):
        return None
    value = int(digits, base)
    return -value if neg else value


def _parse_float(text: str) -> Optional[float]:
    """``strconv.ParseFloat(text, 64)`` for the literals the lexer produces; None if invalid."""
    if not text or not gostrconv.underscore_ok(text):
        return None
    t = text.replace("_", "")
    body = t[1:] if t[:1] in ("+", "-") else t
    try:
        if body[:2] in ("0x", "0X"):
            if "p" not in body.lower():
                return None
            value = float.fromhex(t)
            return None if math.isinf(value) else value
        if not _DECIMAL_FLOAT().fullmatch(body):
            return None
        value = float(t)
    except (ValueError, OverflowError):
        return None
    return None if math.isinf(value) else value  # Go: out of range is an error


def new_number(tr: n.Tree, pos: int, text: str, typ: ItemType) -> n.NumberNode:
    """Go's ``newNumber``: decide which of int, uint, float, complex hold the constant."""
    num = n.NumberNode(tr, pos, text)
    if len(text) < 19 and text.isascii() and text.isdigit() and (text[0] != "0" or len(text) == 1):
        # Plain decimal (most numbers in charts): an int, uint and float alike, as below.
        num.int64 = num.uint64 = int(text)
        num.float64 = float(num.int64)
        num.is_int = num.is_uint = num.is_float = True
        return num
    return _decide(num, text, typ)


def _decide(num: n.NumberNode, text: str, typ: ItemType) -> n.NumberNode:
    """Go's ``newNumber`` rules, for every kind of constant."""
    if typ is ItemType.CHAR_CONSTANT:
        ch, end = unquote_char(text, 1, "'")
        if text[end:] != "'":
            raise ValueError(f"malformed character constant: {text}")
        code = ord(ch)
        num.int64 = num.uint64 = code
        num.float64 = float(code)
        num.is_int = num.is_uint = num.is_float = True
        return num
    if typ is ItemType.COMPLEX:
        num.complex128 = _scan_complex(text)
        num.is_complex = True
        _simplify_complex(num)
        return num
    if text.endswith("i"):
        f = _parse_float(text[:-1])
        if f is not None:
            num.is_complex = True
            num.complex128 = complex(0, f)
            _simplify_complex(num)
            return num
    iv = _parse_int(text)
    if iv is not None and not text.startswith(("+", "-")) and 0 <= iv <= _UINT64_MAX:
        num.is_uint, num.uint64 = True, iv
    if iv is not None and _INT64_MIN <= iv <= _INT64_MAX:
        num.is_int, num.int64 = True, iv
        if iv == 0:
            num.is_uint, num.uint64 = True, 0
    if num.is_int:
        num.is_float, num.float64 = True, float(num.int64)
    elif num.is_uint:
        num.is_float, num.float64 = True, float(num.uint64)
    else:
        f = _parse_float(text)
        if f is not None:
            if not any(c in text for c in ".eEpP"):
                raise ValueError(f"integer overflow: {gofmt.quote(text)}")
            num.is_float, num.float64 = True, f
            if f == int(f) and _INT64_MIN <= int(f) <= _INT64_MAX:
                num.is_int, num.int64 = True, int(f)
            if f == int(f) and 0 <= int(f) <= _UINT64_MAX:
                num.is_uint, num.uint64 = True, int(f)
    if not (num.is_int or num.is_uint or num.is_float):
        raise ValueError(f"illegal number syntax: {gofmt.quote(text)}")
    return num


_FLOAT_TOKEN = patterns.on_first_use(
    r"[nN][aA][nN]|[+-]?(?:[iI][nN][fF]|0[xX][0-9a-fA-F_]*(?:\.[0-9a-fA-F_]*)?(?:[pP][+-]?[0-9_]*)?"
    r"|[0-9_]*(?:\.[0-9_]*)?(?:[eEpP][+-]?[0-9_]*)?)"
)


def _scan_complex(text: str) -> complex:
    """Go's ``fmt.Sscan`` into a complex128 (how the parser reads ``1+2i``), with its errors."""
    m = _FLOAT_TOKEN().match(text)
    real = m.group(0) if m else ""
    rest = text[len(real):]
    if not rest or rest[0] not in "+-":
        raise ValueError("syntax error scanning complex number")
    m = _FLOAT_TOKEN().match(rest, 1)
    imag = rest[0] + (m.group(0) if m else "")
    if not rest[len(imag):].startswith("i"):
        raise ValueError("syntax error scanning complex number")
    return complex(_go_parse_float(real), _go_parse_float(imag))


def _go_parse_float(token: str) -> float:
    value = _parse_float(token)
    if value is None:
        raise ValueError(f"strconv.ParseFloat: parsing {gofmt.quote(token)}: invalid syntax")
    return value


def _simplify_complex(num: n.NumberNode) -> None:
    c = num.complex128
    num.is_float = c.imag == 0
    if num.is_float:
        num.float64 = c.real
        num.is_int = num.float64 == int(num.float64)
        if num.is_int:
            num.int64 = int(num.float64)
        num.is_uint = num.is_int and num.float64 >= 0
        if num.is_uint:
            num.uint64 = int(num.float64)
