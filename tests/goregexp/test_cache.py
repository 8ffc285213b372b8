"""Compiled patterns are reused, but a chart compiling many huge ones cannot keep them all alive."""
from __future__ import annotations

from helm_core.golib import goregexp
def test_small_patterns_are_reused():
    assert goregexp.compile("^a+b$") is goregexp.compile("^a+b$")


def test_only_a_few_large_programs_are_kept():
    patterns = [rf"\pL{{{100 + i}}}" for i in range(goregexp.LARGE_CACHE_SIZE + 1)]
    first = goregexp.compile(patterns[0])
    assert first.program_size > goregexp.LARGE_PROGRAM
    assert goregexp.compile(patterns[0]) is first
    for pattern in patterns[1:]:
        goregexp.compile(pattern)
    assert goregexp.compile(patterns[0]) is not first  # pushed out by the later ones
    assert goregexp.compile("^a+b$") is goregexp.compile("^a+b$")  # small ones keep their places
