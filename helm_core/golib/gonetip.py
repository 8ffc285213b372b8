"""Go's ``net/netip.ParseAddr``: whether a text is an IP address, with Go's error texts.

Go strings are bytes: a Python string stands for one with invalid UTF-8 kept as surrogate
escapes (as elsewhere in golib); the parse walks the bytes and its errors quote the parts Go
quotes (``ParseAddr("1.2.3"): IPv4 address too short``).
"""
from __future__ import annotations

from helm_core.golib import gostrconv


class AddrError(ValueError):
    """``netip.parseAddrError``: its text is Go's ``Error()``."""


class Addr:
    """What a parse found: the address family and the zone (IPv6 only, "" when none)."""

    __slots__ = ("is4", "zone")

    def __init__(self, is4: bool, zone: str) -> None:
        self.is4 = is4
        self.zone = zone


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def _error(given: bytes, message: str, at: bytes = b"") -> AddrError:
    text = f"ParseAddr({gostrconv.quote(_text(given))}): {message}"
    if at:
        text += f" (at {gostrconv.quote(_text(at))})"
    return AddrError(text)


def parse_addr(text: str) -> Addr:
    """``netip.ParseAddr(text)``; raises :class:`AddrError` with Go's message."""
    raw = text.encode("utf-8", "surrogateescape")
    for byte in raw:
        if byte == 0x2E:  # '.'
            _ipv4_fields(raw, 0, len(raw))
            return Addr(True, "")
        if byte == 0x3A:  # ':'
            return _ipv6(raw)
        if byte == 0x25:  # '%'
            raise _error(raw, "missing IPv6 address")
    raise _error(raw, "unable to parse IP")


def _ipv4_fields(given: bytes, start: int, end: int) -> None:
    part = given[start:end]
    value = position = digits = 0
    for i, byte in enumerate(part):
        if 0x30 <= byte <= 0x39:
            if digits == 1 and value == 0:
                raise _error(given, "IPv4 field has octet with leading zero")
            value = value * 10 + byte - 0x30
            digits += 1
            if value > 255:
                raise _error(given, "IPv4 field has value >255")
        elif byte == 0x2E:
            if i == 0 or i == len(part) - 1 or part[i - 1] == 0x2E:
                raise _error(given, "IPv4 field must have at least one digit", part[i:])
            if position == 3:
                raise _error(given, "IPv4 address too long")
            position += 1
            value = digits = 0
        else:
            raise _error(given, "unexpected character", part[i:])
    if position < 3:
        raise _error(given, "IPv4 address too short")


_HEX = {c: int(chr(c), 16) for c in b"0123456789abcdefABCDEF"}


def _ipv6(given: bytes) -> Addr:
    rest = given
    zone = b""
    percent = rest.find(b"%")
    if percent != -1:
        rest, zone = rest[:percent], rest[percent + 1:]
        if not zone:
            raise _error(given, "zone must be a non-empty string")
    ellipsis = -1
    if rest[:2] == b"::":
        ellipsis = 0
        rest = rest[2:]
        if not rest:
            return Addr(False, _text(zone))
    filled = 0
    while filled < 16:
        off = 0
        acc = 0
        while off < len(rest):
            digit = _HEX.get(rest[off])
            if digit is None:
                break
            acc = (acc << 4) + digit
            if off > 3:
                raise _error(given, "each group must have 4 or less digits", rest)
            if acc > 0xFFFF:
                raise _error(given, "IPv6 field has value >=2^16", rest)
            off += 1
        if off == 0:
            raise _error(given, "each colon-separated field must have at least one digit", rest)
        if off < len(rest) and rest[off] == 0x2E:  # a trailing IPv4 address
            if ellipsis < 0 and filled != 12:
                raise _error(given, "embedded IPv4 address must replace the final 2 fields of the address", rest)
            if filled + 4 > 16:
                raise _error(given, "too many hex fields to fit an embedded IPv4 at the end of the address", rest)
            end = len(given) - (len(zone) + 1 if zone else 0)
            _ipv4_fields(given, end - len(rest), end)
            rest = b""
            filled += 4
            break
        filled += 2
        rest = rest[off:]
        if not rest:
            break
        if rest[0] != 0x3A:
            raise _error(given, "unexpected character, want colon", rest)
        if len(rest) == 1:
            raise _error(given, "colon must be followed by more characters", rest)
        rest = rest[1:]
        if rest[0] == 0x3A:
            if ellipsis >= 0:
                raise _error(given, "multiple :: in address", rest)
            ellipsis = filled
            rest = rest[1:]
            if not rest:
                break
    if rest:
        raise _error(given, "trailing garbage after address", rest)
    if filled < 16:
        if ellipsis < 0:
            raise _error(given, "address string too short")
    elif ellipsis >= 0:
        raise _error(given, "the :: must expand to at least one field of zeros")
    return Addr(False, _text(zone))
