""".helmignore patterns: Go's filepath.Match, answer for answer (table printed by Go 1.26), and
in bounded time for patterns that make a backtracking regex engine hang."""
from __future__ import annotations

import pytest

from helm_core.chart import ignore

LONG = "a" * 3000

#: (pattern, name, Go's match, Go's error)
GO_ANSWERS = [
    ("*a[^x]*b", "aaa/b", False, ""),  # Go's * commits to the first place; a regex would say True
    ("*a[^x]*b", "aaab", True, ""),
    ("a[/]b", "a/b", True, ""),
    ("a[^x]b", "a/b", True, ""),
    ("a?b", "a/b", False, ""),
    ("*.yaml", "x.yaml", True, ""),
    ("*.yaml", "d/x.yaml", False, ""),
    ("d/*", "d/x", True, ""),
    ("d/*", "d/x/y", False, ""),
    ("*", "", True, ""),
    ("[a-c]*", "b1", True, ""),
    ("[^a-c]*", "b1", False, ""),
    ("\\*", "*", True, ""),
    ("\\*", "x", False, ""),
    ("[\\]]", "]", True, ""),
    ("[]a]", "a", False, "syntax error in pattern"),
    ("a[", "b", False, "syntax error in pattern"),
    ("x*[", "y", False, ""),
    ("[", "abc", False, "syntax error in pattern"),
    ("a\\", "a", False, "syntax error in pattern"),
    ("[a-", "a", False, "syntax error in pattern"),
    ("[-a]", "a", False, "syntax error in pattern"),
    ("[a-]", "a", False, "syntax error in pattern"),
    ("é?", "éé", True, ""),
    ("?", "é", True, ""),
    ("[é-ê]", "ê", True, ""),
    ("*a*a*a*a*a*a*a*a*a*a*b", LONG, False, ""),
    ("*a*a*a*a*a*a*a*a*a*a*", LONG, True, ""),
    ("**", "a/b", False, ""),
    ("a*b*c", "axbyc", True, ""),
    ("a*b*c", "axbyd", False, ""),
    ("*/*", "a/b", True, ""),
    (".?*", ".git", True, ""),
    (".?*", ".", False, ""),
]


def _go_match(pattern: str, name: str) -> tuple[bool, str]:
    try:
        return ignore.go_match(pattern, name), ""
    except ignore.PatternError as e:
        return False, str(e)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("pattern, name, matched, error", GO_ANSWERS, ids=[f"{p}|{n[:10]}" for p, n, _, _ in GO_ANSWERS])
def test_filepath_match_as_go(pattern: str, name: str, matched: bool, error: str):
    assert _go_match(pattern, name) == (matched, error)


@pytest.mark.timeout(60)  # "[^/]*a" x 10 then "b" is O(n^10) for a backtracking regex engine
def test_catastrophic_helmignore_rule_completes():
    rules = ignore.Rules.parse("*a*a*a*a*a*a*a*a*a*a*b\n")
    assert not rules.ignored(f"templates/{LONG}.yaml", is_dir=False)
    assert rules.ignored(f"templates/{LONG}b", is_dir=False)


def test_star_then_literal_answers_as_the_general_matcher():
    """``*.swp``-like patterns take a shortcut; it answers as Go's algorithm does."""
    import itertools
    names = ["".join(p) for n in range(5) for p in itertools.product("a./~", repeat=n)]
    tails = ["", "a", ".a", "a/", "/a", "~", "a.a", "./"]
    for tail, name in itertools.product(tails, names):
        expected = ignore._match(("*" + tail).encode(), name.encode())
        assert ignore.go_match("*" + tail, name) == expected, (tail, name)
