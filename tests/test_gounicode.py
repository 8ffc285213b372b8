"""Go's unicode.IsSpace and strings.TrimSpace, against Go's White_Space table."""
from helm_core.golib import gounicode

#: Go's ``unicode.White_Space`` ranges (what ``unicode.IsSpace`` accepts).
GO_WHITE_SPACE = [(0x09, 0x0D), (0x20, 0x20), (0x85, 0x85), (0xA0, 0xA0), (0x1680, 0x1680),
                  (0x2000, 0x200A), (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000)]


def test_is_space_is_gos_white_space_over_every_code_point():
    expected = {c for lo, hi in GO_WHITE_SPACE for c in range(lo, hi + 1)}
    got = {c for c in range(0x110000) if gounicode.is_space(chr(c))}
    assert got == expected  # Python's isspace would add U+001C..U+001F


def test_trim_space_keeps_what_go_keeps():
    assert gounicode.trim_space("\u3000\t a b \x85\n") == "a b"
    assert gounicode.trim_space("\x1c a \x1f") == "\x1c a \x1f"
    assert gounicode.trim_space(" \u200b ") == "\u200b"
    assert gounicode.trim_space("  ") == ""
