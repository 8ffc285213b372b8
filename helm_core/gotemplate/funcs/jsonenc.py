"""Go ``encoding/json`` for template values: :func:`marshal` and :func:`unmarshal`.

Why: Sprig's JSON functions print what Go prints. Rules kept: map keys
sorted (a ``dict`` subclass is a Go struct's JSON object and keeps field
order); floats in Go's shortest form (``1e+21``, ``1e-7``, ``-0``); NaN/Inf are
``json: unsupported value``; ``<``, ``>``, ``&`` escaped unless raw; U+2028/9
always escaped; ``[]byte`` as base64; ``time.Time`` as RFC 3339; structs via
``go_json_value()``. Decoding returns float64 numbers and reports Go's scanner
messages (``invalid character 'x' looking for beginning of value``).
"""
from __future__ import annotations

import base64
import datetime
import decimal
import math
from typing import Any

from helm_core.gotemplate import gofmt
from helm_core.gotemplate.funcs import gotime
from helm_core.gotemplate.gotypes import Duration, FuncError, GoObject

_HEX = "0123456789abcdef"
_WS = " \t\n\r"
_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def format_float(f: float) -> str:
    """Go's JSON float text (``strconv`` 'f' or, outside [1e-6, 1e21), cleaned 'e')."""
    if math.isnan(f) or math.isinf(f):
        raise FuncError(f"json: unsupported value: {'NaN' if math.isnan(f) else ('+Inf' if f > 0 else '-Inf')}")
    d = decimal.Decimal(repr(f)).normalize()
    a = abs(f)
    if a != 0 and (a < 1e-6 or a >= 1e21):
        sign, digits, exp = d.as_tuple()
        assert isinstance(exp, int)
        mant = str(digits[0]) + ("." + "".join(map(str, digits[1:])) if len(digits) > 1 else "")
        e = exp + len(digits) - 1
        etext = f"{'-' if e < 0 else '+'}{abs(e):02d}"
        if e < 0 and abs(e) < 10:
            etext = f"-{abs(e)}"
        return ("-" if sign else "") + mant + "e" + etext
    return format(d, "f")


def quote(s: str, *, escape_html: bool) -> str:
    """A JSON string literal as Go's encoder writes it."""
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[ch])
        elif o < 0x20 or (escape_html and ch in "<>&") or o in (0x2028, 0x2029):
            out.append("\\u" + format(o, "04x"))
        elif 0xD800 <= o <= 0xDFFF:
            out.append("\\ufffd")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _go_time_json(t: datetime.datetime) -> str:
    if not 0 <= t.year <= 9999:
        raise FuncError("json: error calling MarshalJSON for type time.Time: Time.MarshalJSON: year outside of range [0,9999]")
    return '"' + gotime.format_time(t, gotime.RFC3339_NANO) + '"'


def _encode(v: Any, out: list[str], escape_html: bool, indent: str, depth: int) -> None:
    if v is None:
        out.append("null")
    elif isinstance(v, bool):
        out.append("true" if v else "false")
    elif isinstance(v, int):
        out.append(str(v))
    elif isinstance(v, float):
        out.append(format_float(v))
    elif isinstance(v, str):
        out.append(quote(v, escape_html=escape_html))
    elif isinstance(v, bytes):
        out.append('"' + base64.b64encode(v).decode("ascii") + '"')
    elif isinstance(v, Duration):
        out.append(str(v.nanoseconds))
    elif isinstance(v, datetime.datetime):
        out.append(_go_time_json(v))
    elif isinstance(v, (list, tuple)):
        _encode_seq([(None, x) for x in v], "[]", out, escape_html, indent, depth)
    elif isinstance(v, dict):
        keys = list(v) if type(v) is not dict else sorted(v, key=str)
        items = [(str(k), v[k]) for k in keys]
        _encode_seq(items, "{}", out, escape_html, indent, depth)
    elif isinstance(v, GoObject):
        if hasattr(v, "go_json_value"):
            _encode(v.go_json_value(), out, escape_html, indent, depth)
        else:
            out.append("{}")
    else:
        raise FuncError(f"json: unsupported type: {type(v).__name__}")


def _encode_seq(items: list[tuple[str | None, Any]], brackets: str, out: list[str], escape_html: bool,
                indent: str, depth: int) -> None:
    if not items:
        out.append(brackets)
        return
    out.append(brackets[0])
    for i, (key, val) in enumerate(items):
        if i:
            out.append(",")
        if indent:
            out.append("\n" + indent * (depth + 1))
        if key is not None:
            out.append(quote(key, escape_html=escape_html))
            out.append(": " if indent else ":")
        _encode(val, out, escape_html, indent, depth + 1)
    if indent:
        out.append("\n" + indent * depth)
    out.append(brackets[1])


def marshal(v: Any, *, escape_html: bool = True, indent: str = "") -> str:
    """``json.Marshal`` (or ``MarshalIndent`` with ``indent``); raises FuncError like Go."""
    out: list[str] = []
    _encode(v, out, escape_html, indent, 0)
    return "".join(out)


def _quote_char(c: str) -> str:
    if c == "'":
        return "'\\''"
    if c == '"':
        return "'\"'"
    q = gofmt.quote(c)
    return "'" + q[1:-1] + "'"


class _Parser:
    """A JSON parser raising Go scanner messages; range errors are deferred as Go checks syntax first."""

    def __init__(self, text: str) -> None:
        self.s = text
        self.i = 0
        self.range_error: str | None = None

    def fail(self, context: str) -> FuncError:
        if self.i >= len(self.s):
            return FuncError("unexpected end of JSON input")
        return FuncError(f"invalid character {_quote_char(self.s[self.i])} {context}")

    def ws(self) -> None:
        while self.i < len(self.s) and self.s[self.i] in _WS:
            self.i += 1

    def value(self) -> Any:
        self.ws()
        if self.i >= len(self.s):
            raise self.fail("")
        c = self.s[self.i]
        if c == "{":
            return self.obj()
        if c == "[":
            return self.arr()
        if c == '"':
            return self.string()
        if c == "-" or c.isdigit() and c.isascii():
            return self.number()
        for word, val in (("true", True), ("false", False), ("null", None)):
            if c == word[0]:
                self.i += 1
                for expect in word[1:]:
                    if self.i >= len(self.s) or self.s[self.i] != expect:
                        raise self.fail(f"in literal {word} (expecting {_quote_char(expect)})")
                    self.i += 1
                return val
        raise self.fail("looking for beginning of value")

    def obj(self) -> dict[str, Any]:
        self.i += 1
        res: dict[str, Any] = {}
        self.ws()
        if self.i < len(self.s) and self.s[self.i] == "}":
            self.i += 1
            return res
        while True:
            self.ws()
            if self.i >= len(self.s) or self.s[self.i] != '"':
                raise self.fail("looking for beginning of object key string")
            key = self.string()
            self.ws()
            if self.i >= len(self.s) or self.s[self.i] != ":":
                raise self.fail("after object key")
            self.i += 1
            res[key] = self.value()
            self.ws()
            if self.i < len(self.s) and self.s[self.i] == ",":
                self.i += 1
                continue
            if self.i < len(self.s) and self.s[self.i] == "}":
                self.i += 1
                return res
            raise self.fail("after object key:value pair")

    def arr(self) -> list[Any]:
        self.i += 1
        res: list[Any] = []
        self.ws()
        if self.i < len(self.s) and self.s[self.i] == "]":
            self.i += 1
            return res
        while True:
            res.append(self.value())
            self.ws()
            if self.i < len(self.s) and self.s[self.i] == ",":
                self.i += 1
                continue
            if self.i < len(self.s) and self.s[self.i] == "]":
                self.i += 1
                return res
            raise self.fail("after array element")

    def string(self) -> str:
        self.i += 1
        out: list[str] = []
        while True:
            if self.i >= len(self.s):
                raise self.fail("")
            c = self.s[self.i]
            if c == '"':
                self.i += 1
                return "".join(out)
            if ord(c) < 0x20:
                raise self.fail("in string literal")
            if c == "\\":
                self.i += 1
                if self.i >= len(self.s):
                    raise self.fail("")
                e = self.s[self.i]
                simple = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
                if e in simple:
                    out.append(simple[e])
                    self.i += 1
                elif e == "u":
                    self.i += 1
                    out.append(chr(self.hex4()))
                else:
                    raise self.fail("in string escape code")
                continue
            out.append(c)
            self.i += 1

    def hex4(self) -> int:
        code = 0
        for _ in range(4):
            if self.i >= len(self.s):
                raise self.fail("")
            c = self.s[self.i]
            if c.lower() not in _HEX or not c.isascii():
                raise self.fail("in \\u hexadecimal character escape")
            code = code * 16 + int(c, 16)
            self.i += 1
        if 0xD800 <= code < 0xDC00 and self.s[self.i:self.i + 2] == "\\u":
            save = self.i
            self.i += 2
            low = self.hex4()
            if 0xDC00 <= low < 0xE000:
                return 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            self.i = save
        return 0xFFFD if 0xD800 <= code < 0xE000 else code

    def number(self) -> float:
        start = self.i
        s = self.s
        if s[self.i] == "-":
            self.i += 1
            if self.i >= len(s) or not ("0" <= s[self.i] <= "9"):
                raise self.fail("in numeric literal")
        if s[self.i] == "0":
            self.i += 1
        else:
            while self.i < len(s) and "0" <= s[self.i] <= "9":
                self.i += 1
        if self.i < len(s) and s[self.i] == ".":
            self.i += 1
            if self.i >= len(s) or not ("0" <= s[self.i] <= "9"):
                raise self.fail("after decimal point in numeric literal")
            while self.i < len(s) and "0" <= s[self.i] <= "9":
                self.i += 1
        if self.i < len(s) and s[self.i] in "eE":
            self.i += 1
            if self.i < len(s) and s[self.i] in "+-":
                self.i += 1
            if self.i >= len(s) or not ("0" <= s[self.i] <= "9"):
                raise self.fail("in exponent of numeric literal")
            while self.i < len(s) and "0" <= s[self.i] <= "9":
                self.i += 1
        text = s[start:self.i]
        value = float(text)
        if math.isinf(value) and self.range_error is None:
            self.range_error = f"json: cannot unmarshal number {text} into Go value of type float64"
        return value


def unmarshal(text: str) -> Any:
    """``json.Unmarshal`` into ``interface{}``; raises FuncError with Go's message."""
    p = _Parser(text)
    value = p.value()
    p.ws()
    if p.i < len(text):
        raise p.fail("after top-level value")
    if p.range_error:
        raise FuncError(p.range_error)
    return value
