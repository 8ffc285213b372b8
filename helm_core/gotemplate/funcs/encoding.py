"""Encodings: ``b64enc``/``b64dec``, ``b32enc``/``b32dec`` and the Sprig JSON functions
Helm keeps (``toPrettyJson``, ``toRawJson``, ``mustToJson``, ``mustToPrettyJson``,
``mustToRawJson``, ``mustFromJson``; Helm replaces ``toJson`` and ``fromJson``).

Why: secrets are built with these, so the bytes must match Go: decoders port
Go's error offsets (``illegal base64 data at input byte N``, returned as the
result text by Sprig). JSON is :mod:`helm_core.golib.gojson`, the encoding/json that
Helm's ``toJson``/``fromJson`` use too; here only Sprig's error handling is added.
"""
from __future__ import annotations

from collections.abc import Callable

from helm_core.golib import gojson
from helm_core.golib.gotypes import FuncError, signature
from helm_core.gotemplate import budget
from helm_core.gotemplate.funcs import gohelpers

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
_B64_MAP = {ord(c): i for i, c in enumerate(_B64)}
_B32_MAP = {ord(c): i for i, c in enumerate(_B32)}
_PAD = ord("=")
_NL = (ord("\n"), ord("\r"))


class _Corrupt(Exception):
    def __init__(self, offset: int) -> None:
        super().__init__(offset)
        self.offset = offset


def _b64_quantum(src: bytes, si: int, out: bytearray) -> int:
    """One step of Go's ``decodeQuantum``; returns the next index, raises at a bad byte."""
    dbuf = [0, 0, 0, 0]
    dlen = 4
    j = 0
    trailing_error: int | None = None
    while j < 4:
        if len(src) == si:
            if j == 0:
                return si
            raise _Corrupt(si - j)
        c = src[si]
        si += 1
        if c in _B64_MAP:
            dbuf[j] = _B64_MAP[c]
            j += 1
            continue
        if c in _NL:
            continue
        if c != _PAD or j < 2:
            raise _Corrupt(si - 1)
        if j == 2:
            while si < len(src) and src[si] in _NL:
                si += 1
            if si == len(src):
                raise _Corrupt(len(src))
            if src[si] != _PAD:
                raise _Corrupt(si - 1)
            si += 1
        while si < len(src) and src[si] in _NL:
            si += 1
        if si < len(src):
            trailing_error = si
        dlen = j
        break
    val = dbuf[0] << 18 | dbuf[1] << 12 | dbuf[2] << 6 | dbuf[3]
    out.extend(val.to_bytes(3, "big")[: dlen - 1])
    if trailing_error is not None:
        raise _Corrupt(trailing_error)
    return si


def go_b64decode(s: str) -> bytes:
    """``base64.StdEncoding.DecodeString``; raises ``FuncError`` with Go's message."""
    src = gohelpers.to_bytes(s)
    out = bytearray()
    si = 0
    try:
        while si < len(src):
            si = _b64_quantum(src, si, out)
    except _Corrupt as e:
        raise FuncError(f"illegal base64 data at input byte {e.offset}") from None
    return bytes(out)


def go_b32decode(s: str) -> bytes:
    """``base32.StdEncoding.DecodeString`` (newlines stripped first, as Go)."""
    src = bytes(b for b in gohelpers.to_bytes(s) if b not in _NL)
    olen = len(src)
    out = bytearray()
    pos = 0
    end = False
    while pos < olen and not end:
        dbuf = [0] * 8
        dlen = 8
        j = 0
        while j < 8:
            if pos == olen:
                raise FuncError(f"illegal base32 data at input byte {olen - (olen - pos) - j}")
            c = src[pos]
            pos += 1
            remaining = olen - pos
            if c == _PAD and j >= 2 and remaining < 8:
                if remaining + j < 7:
                    raise FuncError(f"illegal base32 data at input byte {olen}")
                for k in range(7 - j):
                    if remaining > k and src[pos + k] != _PAD:
                        raise FuncError(f"illegal base32 data at input byte {pos + k - 1}")
                dlen, end = j, True
                if dlen in (1, 3, 6):
                    raise FuncError(f"illegal base32 data at input byte {pos - 1}")
                break
            if c not in _B32_MAP:
                raise FuncError(f"illegal base32 data at input byte {pos - 1}")
            dbuf[j] = _B32_MAP[c]
            j += 1
        val = 0
        for d in dbuf:
            val = val << 5 | d
        nbytes = {8: 5, 7: 4, 5: 3, 4: 2, 2: 1}.get(dlen, 0)
        out.extend(val.to_bytes(5, "big")[:nbytes])
    return bytes(out)


@signature("string")
def b64enc(s: str) -> str:
    """``b64enc``: standard padded base64 of the string's bytes."""
    return gojson.base64_text(gohelpers.to_bytes(s))


@signature("string")
def b64dec(s: str) -> str:
    """``b64dec``: decoded text, or Go's error text as the result."""
    try:
        return gohelpers.from_bytes(go_b64decode(s))
    except FuncError as e:
        return str(e)


@signature("string")
def b32enc(s: str) -> str:
    """``b32enc``."""
    import base64  # by the first call: base64.py (with struct) is start-up time of every render otherwise

    return base64.b32encode(gohelpers.to_bytes(s)).decode("ascii")


@signature("string")
def b32dec(s: str) -> str:
    """``b32dec``: decoded text, or Go's error text as the result."""
    try:
        return gohelpers.from_bytes(go_b32decode(s))
    except FuncError as e:
        return str(e)


def _go_json(fn: Callable[[Any], str], arg: Any) -> str:
    """Sprig returns encoding/json's error: a template function error with Go's text."""
    try:
        return fn(arg)
    except gojson.JSONError as exc:
        raise FuncError(str(exc)) from None


@signature("interface {}")
def must_to_json(v: Any) -> str:
    """``mustToJson``: ``json.Marshal`` (HTML-escaped)."""
    budget.check_text(v, what="JSON")
    return _go_json(gojson.dumps, v)


@signature("interface {}")
def must_to_pretty_json(v: Any) -> str:
    """``mustToPrettyJson``: ``json.MarshalIndent(v, "", "  ")``."""
    budget.check_text(v, what="JSON")
    return _go_json(gojson.dumps_pretty, v)


@signature("interface {}")
def must_to_raw_json(v: Any) -> str:
    """``mustToRawJson``: an Encoder without HTML escaping, trailing newline trimmed."""
    budget.check_text(v, what="JSON")
    return _go_json(gojson.dumps_raw, v)


@signature("interface {}")
def to_pretty_json(v: Any) -> str:
    """``toPrettyJson``: "" when the value cannot be encoded."""
    try:
        return must_to_pretty_json(v)
    except FuncError:
        return ""


@signature("interface {}")
def to_raw_json(v: Any) -> str:
    """``toRawJson``: an encoding error is a panic in Sprig, hence an error here."""
    return must_to_raw_json(v)


@signature("string")
def must_from_json(s: str) -> Any:
    """``mustFromJson``: ``json.Unmarshal`` into ``interface{}`` (numbers float64); Go's error texts."""
    return _go_json(gojson.loads, s)


FUNCS = {
    "b64enc": b64enc,
    "b64dec": b64dec,
    "b32enc": b32enc,
    "b32dec": b32dec,
    "toPrettyJson": to_pretty_json,
    "toRawJson": to_raw_json,
    "mustToJson": must_to_json,
    "mustToPrettyJson": must_to_pretty_json,
    "mustToRawJson": must_to_raw_json,
    "mustFromJson": must_from_json,
}
