"""Label selectors (helm_core.golib.labels): one grammar for --selector and post-renderer targets."""
import pytest

from helm_core.golib import labels

LABELS = {"app": "web", "tier": "front", "shard": "3"}


@pytest.mark.parametrize("selector, expected", [
    ("", True), ("app", True), ("!app", False), ("!missing", True),
    ("app=web", True), ("app==web", True), ("app!=web", False), ("missing!=x", True),
    ("app in (web, api)", True), ("app notin (web)", False), ("missing notin (a)", True),
    ("shard>2", True), ("shard<3", False), ("tier>1", False),
    ("app=web,tier=front", True), ("app=web,tier=back", False),
    ("example.com/owner", False),
])
def test_matches(selector, expected):
    assert labels.matches(selector, LABELS) is expected


@pytest.mark.parametrize(("selector", "message"), [
    ("a==(", "unable to parse requirement: found '(', expected: identifier"),
    ("app in web", "unable to parse requirement: found 'web' expected: '('"),
    ("=web", "found '=', expected: !, identifier, or 'end of string'"),
    ("app=we b", "found 'b', expected: ',' or 'end of string'"),
])
def test_a_selector_that_does_not_parse_is_named_with_apimachinerys_words(selector, message):
    with pytest.raises(labels.SelectorError) as refused:
        labels.parse(selector)
    assert str(refused.value) == message
    for check in (lambda: labels.validate(selector), lambda: labels.matches(selector, LABELS)):
        with pytest.raises(ValueError) as refused:
            check()
        assert str(refused.value) == f"invalid label selector {selector!r}: {message}"


def test_parsing_and_matching_are_apimachinerys():
    """Every selector of tests/labels_go_cases.py as k8s.io/apimachinery's labels.Parse and
    Matches answered it (its error text to the byte)."""
    import json

    from tests import labels_go_cases

    answers = json.loads(labels_go_cases.ANSWERS.read_text())["answers"]
    asked = labels_go_cases.selectors()
    assert len(answers) == len(asked)
    for selector, answer in zip(asked, answers, strict=True):
        try:
            got = {"matches": all(r.matches(labels_go_cases.LABELS) for r in labels.parse(selector))}
        except labels.SelectorError as exc:
            got = {"err": str(exc)}
        assert got == answer, selector


def test_validate_strips_and_keeps_a_good_selector():
    assert labels.validate("  shard in (a,b) , !canary ") == "shard in (a,b) , !canary"
