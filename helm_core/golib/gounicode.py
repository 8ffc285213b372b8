r"""Go's ideas of a space character (``unicode.IsSpace``, regexp's ``\s``) and ``strings.TrimSpace``.

Python's ``str.isspace`` and ``str.strip`` also take U+001C..U+001F (the ASCII separators),
which Go keeps: a text that helm trims differently renders differently.
"""
from __future__ import annotations

#: Go regexp's (RE2's) ``\s``: ASCII only, and no vertical tab.
RE2_SPACE = "\t\n\f\r "
#: Latin-1 code points that Go's ``unicode.IsSpace`` accepts.
LATIN1_SPACES = frozenset("\t\n\v\f\r \x85\xa0")


def is_space(ch: str) -> bool:
    """``unicode.IsSpace``: the Latin-1 spaces above, and the White_Space property beyond
    (where Python's ``isspace`` agrees)."""
    if ord(ch) < 0x100:
        return ch in LATIN1_SPACES
    return ch.isspace()


def trim_space(s: str) -> str:
    """``strings.TrimSpace``: ``s`` without Go's space characters at either end."""
    start, end = 0, len(s)
    while start < end and is_space(s[start]):
        start += 1
    while end > start and is_space(s[end - 1]):
        end -= 1
    return s[start:end]
