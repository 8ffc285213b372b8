"""list, history and get over stored versions (memory driver)."""
from __future__ import annotations

import datetime as dt
import itertools

import pytest

from helm_core.action import config, get, history
from helm_core.action import list as list_action
from helm_core.errors import HelmError, ReleaseNotFoundError
from helm_core.kube import fake
from helm_core.storage import memory
from helm_core.storage import release as rel


_SECONDS = itertools.count()


def _store(driver: memory.MemoryDriver, name: str, namespace: str, status: rel.Status) -> rel.ReleaseVersion:
    # a second apart, in the order stored: --date sorts by whole seconds, as helm's does
    deployed = dt.datetime(2026, 1, 1, tzinfo=dt.UTC) + dt.timedelta(seconds=next(_SECONDS))
    version = rel.ReleaseVersion(name=name, namespace=namespace, version=rel.new_version(), last_deployed=deployed,
                                 status=status, chart_name="demo", chart_version="1.0.0",
                                 user_values={"u": 1}, chart_values={"u": 1, "d": 2})
    driver.create(version)
    return version


@pytest.fixture
def cfg() -> config.Configuration:
    driver = memory.MemoryDriver()
    _store(driver, "web", "a", rel.Status.SUPERSEDED)
    _store(driver, "web", "a", rel.Status.DEPLOYED)
    _store(driver, "db", "a", rel.Status.FAILED)
    _store(driver, "old", "a", rel.Status.UNINSTALLED)
    _store(driver, "web", "b", rel.Status.DEPLOYED)
    return config.Configuration(client=fake.FakeCluster().client(), driver=driver)


@pytest.mark.parametrize(("options", "expected"), [
    (list_action.ListOptions(namespace="a"), [("db", "a"), ("web", "a")]),
    (list_action.ListOptions(namespace="a", all_statuses=True), [("db", "a"), ("old", "a"), ("web", "a")]),
    (list_action.ListOptions(namespace="a", statuses=frozenset({rel.Status.UNINSTALLED})), [("old", "a")]),
    (list_action.ListOptions(all_namespaces=True, filter="^w"), [("web", "a"), ("web", "b")]),
    (list_action.ListOptions(namespace="a", reverse=True), [("web", "a"), ("db", "a")]),
    (list_action.ListOptions(all_namespaces=True, by_date=True), [("web", "a"), ("db", "a"), ("web", "b")]),
], ids=["default-deployed-and-failed", "all", "by-status", "regex-all-namespaces", "reverse", "by-date"])
def test_list_filters_and_orders(cfg: config.Configuration, options: list_action.ListOptions,
                                 expected: list[tuple[str, str]]) -> None:
    assert [(v.name, v.namespace) for v in list_action.run(cfg, options)] == expected


def test_superseded_alone_lists_every_superseded_version_as_helm(cfg: config.Configuration) -> None:
    """helm's list skips its newest-version filter when only --superseded is asked: the older
    versions are what it can show (an install --replace leaves one behind)."""
    found = list_action.run(cfg, list_action.ListOptions(all_namespaces=True,
                                                         statuses=frozenset({rel.Status.SUPERSEDED})))
    assert [(v.name, v.namespace, v.status) for v in found] == [("web", "a", rel.Status.SUPERSEDED)]
    both = frozenset({rel.Status.SUPERSEDED, rel.Status.UNINSTALLED})  # then newest versions only
    assert [(v.name, v.status) for v in list_action.run(cfg, list_action.ListOptions(namespace="a", statuses=both))
            ] == [("old", rel.Status.UNINSTALLED)]


def test_list_refuses_a_bad_regex_in_gos_words(cfg: config.Configuration) -> None:
    with pytest.raises(HelmError, match=r"^error parsing regexp: missing closing \): `\(`$"):
        list_action.run(cfg, list_action.ListOptions(filter="("))
    with pytest.raises(HelmError, match=r"invalid escape sequence"):  # Go's syntax, not Python's
        list_action.run(cfg, list_action.ListOptions(filter=r"(w)\1"))
    assert [v.name for v in list_action.run(cfg, list_action.ListOptions(namespace="a", filter="e"))] == [
        "web"]  # a search, as Go's MatchString


def test_history_is_ulid_ordered_and_max_keeps_the_newest(cfg: config.Configuration) -> None:
    full = history.run(cfg, "web", "a")
    assert [v.status for v in full] == [rel.Status.SUPERSEDED, rel.Status.DEPLOYED]
    assert history.run(cfg, "web", "a", max_versions=1) == full[1:]
    with pytest.raises(ReleaseNotFoundError, match="^release: not found$"):
        history.run(cfg, "nope", "a")


def test_get_returns_the_newest_or_a_given_version_and_values(cfg: config.Configuration) -> None:
    first, newest = history.run(cfg, "web", "a")
    assert get.run(cfg, "web", "a") == newest
    assert get.run(cfg, "web", "a", first.version) == first
    assert get.values(newest) == {"u": 1}
    assert get.values(newest, all_values=True) == {"u": 1, "d": 2}
    with pytest.raises(ReleaseNotFoundError, match="^release: not found$"):
        get.run(cfg, "nope", "a")
