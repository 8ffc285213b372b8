"""Go's ``utf8.DecodeRune`` on bytes: how Go steps through a string that may hold invalid UTF-8."""
from __future__ import annotations

#: ``utf8.RuneError``: what an invalid byte decodes to (one byte wide).
RUNE_ERROR = 0xFFFD


def decode_rune(data: bytes, pos: int = 0) -> tuple[int, int]:
    """(rune, width) at ``pos``: (RUNE_ERROR, 1) for an invalid byte, (RUNE_ERROR, 0) at the end."""
    if pos >= len(data):
        return RUNE_ERROR, 0
    lead = data[pos]
    if lead < 0x80:
        return lead, 1
    size = 2 if lead >> 5 == 6 else 3 if lead >> 4 == 14 else 4 if lead >> 3 == 30 else 0
    if size:
        try:  # Python's strict decoder refuses what Go's does: overlong forms, surrogates, > U+10FFFF
            return ord(data[pos:pos + size].decode("utf-8")), size
        except UnicodeDecodeError:
            pass
    return RUNE_ERROR, 1
