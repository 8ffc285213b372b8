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


@pytest.mark.parametrize("selector", ["a==(", "app in web", "=web", "app=we b"])
def test_a_selector_that_does_not_parse_names_the_requirement(selector):
    with pytest.raises(ValueError, match="invalid label selector .*cannot parse"):
        labels.validate(selector)
    with pytest.raises(ValueError):
        labels.matches(selector, LABELS)


def test_validate_strips_and_keeps_a_good_selector():
    assert labels.validate("  shard in (a,b) , !canary ") == "shard in (a,b) , !canary"
