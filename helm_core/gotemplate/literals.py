"""Literal constants of the template language, as Go's parser reads them.

``unquote`` is ``strconv.Unquote`` for "..." and `...`; :func:`new_number` is Go's
``newNumber``: it records which Go types (int64, uint64, float64, complex128) can hold
a numeric constant exactly, which later decides how the constant is passed to a function.
"""
from __future__ import annotations

import re
from typing import Optional

from helm_core.gotemplate import gofmt
from helm_core.gotemplate import nodes as n
from helm_core.gotemplate.lexer import ItemType

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


def _parse_int(text: str) -> Optional[int]:
    """``strconv.ParseInt(text, 0, 64)`` without the range check; None if not an integer."""
    body = text.lstrip("+-")
    if text[:1] in "+-" and len(text) - len(body) > 1:
        return None
    sign = -1 if text.startswith("-") else 1
    if len(body) > 1 and body[0] == "0" and body[1] not in "xXoObB":
        body = "0o" + body[1:]
    if "_" in body and not (len(body) > 1 and body[0] == "0"):
        # Go allows '_' only with a base prefix (base 0); decimal 1_000 is fine too.
        pass
    try:
        value = int(body, 0)
    except ValueError:
        return None
    return sign * value


def _parse_float(text: str) -> Optional[float]:
    body = text.lstrip("+-")
    neg = text.startswith("-")
    try:
        if body[:2] in ("0x", "0X"):
            if "p" not in body.lower():
                return None
            value = float.fromhex(body.replace("_", ""))
        else:
            if "_" in body:
                return None
            value = float(body)
    except ValueError:
        return None
    return -value if neg else value


def new_number(tr: n.Tree, pos: int, text: str, typ: ItemType) -> n.NumberNode:
    """Go's ``newNumber``: decide which of int, uint, float, complex hold the constant."""
    num = n.NumberNode(tr, pos, text)
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
        m = re.fullmatch(r"([+-]?[0-9.eE_]+)([+-][0-9.eE_]+)i", text)
        if not m:
            raise ValueError(f"illegal number syntax: {gofmt.quote(text)}")
        num.complex128 = complex(float(m.group(1)), float(m.group(2)))
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
