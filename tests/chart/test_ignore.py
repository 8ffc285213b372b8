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


def _helm_ignore(rules: list[ignore._Rule], path: str, *, is_dir: bool) -> bool:
    """Helm's ``Rules.Ignore``, rule by rule in order (a pattern that fails to match a name is
    no match), for comparison with the grouped evaluation."""
    if path in ("", ".", "./"):
        return False
    for rule in rules:
        name = path if rule.anchored or rule.whole_path else path.rsplit("/", 1)[-1]
        try:
            matched = ignore.go_match(rule.glob, name)
        except ignore.PatternError:
            matched = False
        if rule.negate:
            if rule.dir_only and not is_dir or not matched:
                return True
        elif not (rule.dir_only and not is_dir) and matched:
            return True
    return False


#: Rule lines of every kind: literal and wildcard base names, suffixes, directories only,
#: anchored and whole-path rules, negations, classes, escapes and one that fails on some names.
RULE_LINES = [".git/", "OWNERS", "*.swp", "*~", "*", "ci/", "/top.txt", "sub/*.txt", "!keep.txt", "!*.yaml",
              "a?c", "[ab]*", "*.t[xm]p", "\\*lit", "build/", "!docs/", "x*[", "templates/.?*", "*.bak/", "/ci/"]
PATHS = ["OWNERS", "a/OWNERS", ".git", "x/.git", "a.swp", "deep/b.swp", "c~", "ci", "ci/x", "top.txt", "s/top.txt",
         "sub/a.txt", "x/sub/a.txt", "keep.txt", "v.yaml", "abc", "a/bc", "ax", "b.tmp", "b.txp", "*lit", "build",
         "docs", "xy", "x[", "templates/.h", "c.bak", "templates/x.yaml", "é", "."]


def test_grouped_rules_answer_as_helm_rule_by_rule():
    import random

    draw = random.Random(20261126)
    for _ in range(400):
        lines = draw.sample(RULE_LINES, draw.randint(0, 6))
        rules = ignore.Rules.parse("\n".join(lines))
        for path in PATHS:
            for is_dir in (False, True):
                expected = _helm_ignore(rules._rules, path, is_dir=is_dir)
                assert rules.ignored(path, is_dir=is_dir) is expected, (lines, path, is_dir)


def test_a_rule_that_fails_on_a_name_does_not_match_it_and_says_so(caplog):
    """Helm checks a rule on "abc" only: "x*[" fails on names starting with x, which Helm logs
    and takes as no match."""
    rules = ignore.Rules.parse("x*[\n*.bak\n")
    assert not rules.ignored("xy.yaml", is_dir=False)
    assert rules.ignored("xy.bak", is_dir=False)
    assert 'Failed to compile "x*[": syntax error in pattern' in caplog.text
    assert ignore.Rules.parse("!x*[\n").ignored("xy", is_dir=False)  # a negation's no match ignores
