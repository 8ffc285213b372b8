""".helmignore rules with Go's path.Match and Helm's rule semantics."""
from __future__ import annotations

import pytest

from helm_core.chart import ignore
from helm_core.errors import ChartError


@pytest.mark.parametrize(
    ("pattern", "name", "matches"),
    [
        ("*.txt", "a.txt", True),
        ("*.txt", "dir/a.txt", False),
        ("a?c", "abc", True),
        ("a?c", "a/c", False),
        ("[abc]x", "bx", True),
        ("[^abc]x", "bx", False),
        ("[^abc]x", "dx", True),
        ("[a-c]x", "cx", True),
        ("\\*", "*", True),
        ("\\*", "a", False),
        ("dir/*", "dir/a", True),
        ("dir/*", "dir/a/b", False),
        ("*", "", True),
        ("", "", True),
    ],
)
def test_go_match(pattern, name, matches):
    assert ignore.go_match(pattern, name) is matches


@pytest.mark.parametrize("pattern", ["[", "[a", "a[", "[]", "\\"])
def test_malformed_patterns_raise(pattern):
    with pytest.raises(ignore.PatternError):
        ignore.go_match(pattern, "abc")


@pytest.mark.parametrize(
    ("rules", "path", "is_dir", "ignored"),
    [
        ("*.bak", "a.bak", False, True),
        ("*.bak", "deep/dir/a.bak", False, True),  # no '/' in the rule: matches base names
        ("/top.txt", "top.txt", False, True),
        ("/top.txt", "sub/top.txt", False, False),
        ("sub/*.txt", "sub/a.txt", False, True),
        ("sub/*.txt", "x/sub/a.txt", False, False),
        ("build/", "build", True, True),
        ("build/", "build", False, False),  # trailing '/' matches directories only
        ("# comment\n\n  ", "x", False, False),
        ("", "templates/.hidden", False, True),  # Helm's default rule
        ("", "templates/x.yaml", False, False),
        # Helm's negation: a `!rule` ignores everything it does not match.
        ("!keep.txt", "keep.txt", False, False),
        ("!keep.txt", "other.txt", False, True),
    ],
)
def test_rules(rules, path, is_dir, ignored):
    assert ignore.Rules.parse(rules).ignored(path, is_dir=is_dir) is ignored


def test_root_is_never_ignored():
    assert not ignore.Rules.parse("*").ignored(".", is_dir=True)


def test_bad_rule_names_the_line():
    with pytest.raises(ChartError, match=r"\.helmignore:2: syntax error in pattern '\[x'"):
        ignore.Rules.parse("ok\n[x\n")
