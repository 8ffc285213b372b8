"""Release records: ULID versions, history order, pruning, names."""
from __future__ import annotations

import datetime as dt

import ulid
import pytest

from helm_core.storage import release as rel
from tests.storage.conftest import make_version


def test_new_version_is_monotonic_within_a_process():
    versions = [rel.new_version() for _ in range(2000)]
    assert versions == sorted(versions)
    assert len(set(versions)) == len(versions)


def test_new_version_is_after_a_newer_stored_version():
    future = ulid.ULID.from_datetime(dt.datetime(2100, 1, 1, tzinfo=dt.timezone.utc))  # clock ahead
    assert int(rel.new_version(after=future)) == int(future) + 1
    past = ulid.ULID.from_datetime(dt.datetime(2001, 1, 1, tzinfo=dt.timezone.utc))
    assert rel.new_version(after=past) > past


@pytest.mark.parametrize("text", ["01JD2Q7ZK4V4W6X8Y9Z0A1B2C3", "01jd2q7zk4v4w6x8y9z0a1b2c3"],
                         ids=["upper", "lower"])
def test_parse_version_accepts_either_case(text):
    assert str(rel.parse_version(text)) == "01JD2Q7ZK4V4W6X8Y9Z0A1B2C3"


@pytest.mark.parametrize("text", ["x3", "0", "01JD2Q7ZK4V4W6X8Y9Z0A1B2C"])
def test_parse_version_names_bad_text(text):
    with pytest.raises(ValueError) as caught:
        rel.parse_version(text)
    assert str(caught.value) == f'"{text}" is not a release version (a ULID or a revision number)'


def test_helm_revisions_are_zero_time_versions_older_than_any_ulid():
    three = rel.parse_version("3")
    assert three == rel.revision_version(3) and rel.revision_of(three) == 3
    assert rel.version_text(three) == "3"
    assert rel.parse_version(str(three)) == three  # the 26-character form reads back
    made = rel.new_version()
    assert rel.revision_of(made) is None and rel.version_text(made) == str(made)
    assert three < made and rel.sort_history([make_version(version=made),
                                              make_version(version=three)])[0].version == three


def test_history_is_ulid_order_and_latest_ignores_status():
    a, b, c = (make_version(version=rel.new_version()) for _ in range(3))
    c = c.with_status(rel.Status.FAILED, "Upgrade failed: boom")
    b = b.with_status(rel.Status.SUPERSEDED)
    assert rel.sort_history([c, a, b]) == [a, b, c]
    assert rel.latest([b, c, a]) == c
    assert rel.last_deployed([b, c, a]) == a
    assert rel.latest([]) is None
    assert c.description == "Upgrade failed: boom"
    assert c.chart == "nginx-1.2.3"


def test_to_prune_drops_oldest_but_keeps_last_deployed():
    versions = [make_version(status=rel.Status.SUPERSEDED) for _ in range(5)]
    versions[1] = versions[1].with_status(rel.Status.DEPLOYED)
    for v in versions[2:]:
        assert v.status is rel.Status.SUPERSEDED
    pruned = rel.to_prune(versions, max_history=3)
    assert pruned == [versions[0], versions[2]]
    assert rel.to_prune(versions, max_history=0) == []
    assert rel.to_prune(versions, max_history=5) == []


@pytest.mark.parametrize("name", ["web", "my-app.v2", "a" * 53], ids=["simple", "dotted", "max-length"])
def test_check_name_accepts_helm_names(name):
    rel.check_name(name)


@pytest.mark.parametrize("name", ["", "Web", "-web", "web_1", "a" * 54],
                         ids=["empty", "upper", "leading-dash", "underscore", "too-long"])
def test_check_name_refuses_other_names(name):
    with pytest.raises(ValueError) as caught:
        rel.check_name(name)
    if name:  # helm's lines
        assert str(caught.value) == (
            f'release name "{name}": invalid release name, must match regex '
            r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$ and the length must not be longer than 53")
    else:
        assert str(caught.value) == 'release name "": no name provided'


def test_check_name_refuses_a_name_ending_in_a_newline_as_helm_does():
    """Python's ``$`` matches before a final newline, Go's only at the end of the text."""
    with pytest.raises(ValueError, match=r'^release name "web\\n": invalid release name'):
        rel.check_name("web\n")


def test_pending_statuses():
    assert {s for s in rel.Status if s.pending} == {
        rel.Status.PENDING_INSTALL, rel.Status.PENDING_UPGRADE, rel.Status.PENDING_ROLLBACK,
        rel.Status.UNINSTALLING}
