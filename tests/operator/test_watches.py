"""watches: newer generations and valuesFrom objects, from watch events (no cluster needed:
the watch loop runs against a scripted Watcher; e2e/test_operator_watches.py runs it live)."""
from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from helm_core import errors as core_errors
from helm_operator import watches


def _request(uid: str, generation: int, *refs: tuple[str, str], ns: str = "apps") -> dict[str, Any]:
    return {"metadata": {"uid": uid, "generation": generation, "namespace": ns, "name": uid},
            "spec": {"valuesFrom": [{"kind": k, "name": n} for k, n in refs]}}


def _meta(name: str, version: str, ns: str = "apps") -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": ns, "resourceVersion": version}}


def test_a_newer_generation_supersedes_an_older_one_only():
    requests = watches.Requests()
    requests.event("ADDED", _request("u1", 1))
    assert requests.superseded({"uid": "u1", "generation": 1}) == ""
    requests.event("MODIFIED", _request("u1", 3))
    assert requests.superseded({"uid": "u1", "generation": 1}) == "superseded by generation 3"
    assert requests.superseded({"uid": "u1", "generation": 3}) == ""
    requests.event("MODIFIED", _request("u1", 2))  # a late event never lowers what was seen
    assert requests.superseded({"uid": "u1", "generation": 2}) == "superseded by generation 3"
    assert requests.superseded({"uid": "unknown", "generation": 1}) == ""
    requests.event("DELETED", _request("u1", 3))
    assert requests.superseded({"uid": "u1", "generation": 1}) == ""


def test_references_follow_the_spec_and_ignore_bad_entries():
    body = _request("u1", 1, ("ConfigMap", "a"), ("Secret", "b"))
    body["spec"]["valuesFrom"] += [{"kind": "Pod", "name": "x"}, {"kind": "ConfigMap"}, "junk"]
    assert watches.references(body) == {watches.ObjectKey("ConfigMap", "apps", "a"),
                                        watches.ObjectKey("Secret", "apps", "b")}
    requests = watches.Requests()
    requests.event("ADDED", body)
    requests.event("ADDED", _request("u2", 1, ("ConfigMap", "a")))
    assert requests.referencing(watches.ObjectKey("ConfigMap", "apps", "a")) == ["u1", "u2"]
    requests.event("MODIFIED", _request("u1", 2, ("Secret", "b")))
    assert requests.referencing(watches.ObjectKey("ConfigMap", "apps", "a")) == ["u2"]
    assert requests.referencing(watches.ObjectKey("ConfigMap", "other", "a")) == []


def _values() -> tuple[watches.Requests, watches.ValuesObjects, list[list[str]]]:
    requests = watches.Requests()
    changed: list[list[str]] = []
    requests.event("ADDED", _request("u1", 1, ("ConfigMap", "a")))
    return requests, watches.ValuesObjects(requests, changed.append), changed


def test_listed_objects_are_the_known_state_and_changes_are_reported():
    _, values, changed = _values()
    values.event("ConfigMap", "ADDED", _meta("a", "10"), initial=True)
    values.event("ConfigMap", "ADDED", _meta("unrelated", "11"), initial=True)
    values.event("Secret", "MODIFIED", _meta("a", "12"))  # a Secret "a" is not the ConfigMap
    values.event("ConfigMap", "MODIFIED", _meta("unrelated", "13"))
    assert changed == []
    values.event("ConfigMap", "MODIFIED", _meta("a", "14"))
    values.event("ConfigMap", "DELETED", _meta("a", "15"))
    values.event("ConfigMap", "ADDED", _meta("a", "16"))  # created again after the listing
    assert changed == [["u1"], ["u1"], ["u1"]]


def test_a_relisting_after_410_reports_only_what_changed_meanwhile():
    _, values, changed = _values()
    values.event("ConfigMap", "ADDED", _meta("a", "10"), initial=True)
    values.event("ConfigMap", "ADDED", _meta("a", "10"), initial=True)
    assert changed == []


class Scripted:
    """A Watcher replaying listings and watch streams; the last watch stops the loop."""

    def __init__(self, stop: threading.Event, listings: list[dict], streams: list[Any]) -> None:
        self.stop, self.listings, self.streams = stop, listings, streams
        self.watched_from: list[str] = []

    def collection(self, api_version, kind, *, namespace="", label_selector="",
                   metadata_only=False, field_selector=""):
        assert metadata_only
        return self.listings.pop(0)

    def watch(self, api_version, kind, *, namespace="", resource_version="", label_selector="",
              metadata_only=False, timeout_s=0, field_selector=""):
        self.watched_from.append(resource_version)
        stream = self.streams.pop(0)
        if not self.streams:
            self.stop.set()
        if isinstance(stream, Exception):
            raise stream
        yield from stream


def test_follow_lists_then_watches_resumes_and_starts_over_after_gone():
    stop = threading.Event()
    client = Scripted(stop, listings=[
        {"metadata": {"resourceVersion": "5"}, "items": [_meta("a", "4")]},
        {"metadata": {"resourceVersion": "40"}, "items": [_meta("a", "39")]},
    ], streams=[
        [("MODIFIED", _meta("a", "6")), ("BOOKMARK", _meta("", "7"))],  # server ends the watch
        core_errors.ClusterError("connection reset"),
        [("ERROR", {"code": 410})],
        [("MODIFIED", _meta("a", "41"))],
        [],
    ])
    seen: list[tuple[str, str, bool]] = []
    logged: list[str] = []

    def handle(type_, obj, *, initial=False):
        seen.append((type_, obj["metadata"]["resourceVersion"], initial))

    watches.follow(client, "v1", "ConfigMap", namespace="", metadata_only=True, handle=handle,
                   log=logged.append, stop=stop)
    assert client.watched_from == ["5", "7", "7", "40", "41"]
    assert seen == [("ADDED", "4", True), ("MODIFIED", "6", False), ("ADDED", "39", True),
                    ("MODIFIED", "41", False)]
    assert logged == ["watch of ConfigMap failed, retrying in 1s: connection reset"]


class Recording:
    """A Watcher that records what it lists and watches: kind, namespace, selectors."""

    def __init__(self, stop: threading.Event) -> None:
        self.stop, self.calls, self.lock = stop, [], threading.Lock()

    def collection(self, api_version, kind, *, namespace="", label_selector="", metadata_only=False,
                   field_selector=""):
        with self.lock:
            self.calls.append(("list", kind, namespace, label_selector, field_selector))
        return {"metadata": {"resourceVersion": "1"}, "items": []}

    def watch(self, api_version, kind, *, namespace="", resource_version="", label_selector="",
              metadata_only=False, timeout_s=0, field_selector=""):
        with self.lock:
            self.calls.append(("watch", kind, namespace, label_selector, field_selector))
        self.stop.wait(0.2)
        yield from ()

    def seen(self, count: int) -> list[tuple[str, ...]]:
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            with self.lock:
                if len(set(self.calls)) >= count:
                    break
            time.sleep(0.01)
        with self.lock:
            return sorted(set(self.calls))


def test_values_watches_follow_the_shards_requests_only():
    """No request of the shard names a ConfigMap/Secret: nothing but HelmRequests is watched.
    Then only the namespaces its requests name, Secrets without release versions."""
    stop = threading.Event()
    client = Recording(stop)
    requests = watches.Requests()
    values = watches.ValuesObjects(requests, lambda uids: None)
    stop_watches = watches.start(client, namespaces=(), requests=requests, values=values,
                                 log=lambda line: None, selector="sharding.helm.sh/key=shard1")
    try:
        assert client.seen(2) == [
            ("list", "HelmRequest", "", "sharding.helm.sh/key=shard1", ""),
            ("watch", "HelmRequest", "", "sharding.helm.sh/key=shard1", "")]
        time.sleep(0.3)
        assert {c[1] for c in client.calls} == {"HelmRequest"}
        requests.event("ADDED", _request("u1", 1, ("ConfigMap", "a"), ("Secret", "s"), ns="team"))
        assert client.seen(6)[:4] == [
            ("list", "ConfigMap", "team", "", ""),
            ("list", "HelmRequest", "", "sharding.helm.sh/key=shard1", ""),
            ("list", "Secret", "team", "", "type!=helm.sh/release-version"),
            ("watch", "ConfigMap", "team", "", "")]
    finally:
        # Both: with only the client's set, its watches return at once and the threads
        # started here would list and watch in a loop for the rest of the test session.
        stop_watches.set()
        stop.set()


def test_values_watches_start_and_stop_with_the_references():
    stop = threading.Event()
    requests = watches.Requests()
    values = watches.ValuesObjects(requests, lambda uids: None)
    dynamic = watches.ValuesWatches(Recording(stop), values, log=lambda line: None,
                                    cluster_wide=True, stop=stop, max_namespaces=2)
    requests.on_scopes(dynamic.sync)
    try:
        assert dynamic.watched() == frozenset()
        requests.event("ADDED", _request("u1", 1, ("ConfigMap", "a"), ns="one"))
        requests.event("ADDED", _request("u2", 1, ("ConfigMap", "b"), ("Secret", "s"), ns="two"))
        assert dynamic.watched() == {("ConfigMap", "one"), ("ConfigMap", "two"), ("Secret", "two")}
        requests.event("MODIFIED", _request("u2", 2, ("ConfigMap", "b"), ns="two"))
        assert dynamic.watched() == {("ConfigMap", "one"), ("ConfigMap", "two")}
        requests.event("ADDED", _request("u3", 1, ("ConfigMap", "c"), ns="three"))
        assert dynamic.watched() == {("ConfigMap", "")}  # past 2 namespaces: one watch
        requests.event("DELETED", _request("u3", 1, ns="three"))
        requests.event("DELETED", _request("u1", 1, ns="one"))
        assert dynamic.watched() == {("ConfigMap", "two")}
    finally:
        stop.set()
    deadline = time.monotonic() + 5
    while dynamic.watched() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert dynamic.watched() == frozenset()


def test_a_namespaced_controller_never_watches_cluster_wide():
    stop = threading.Event()
    requests = watches.Requests()
    dynamic = watches.ValuesWatches(Recording(stop), watches.ValuesObjects(requests, lambda uids: None),
                                    log=lambda line: None, cluster_wide=False, stop=stop,
                                    max_namespaces=1)
    requests.on_scopes(dynamic.sync)
    try:
        for i, ns in enumerate(("one", "two", "three")):
            requests.event("ADDED", _request(f"u{i}", 1, ("Secret", "s"), ns=ns))
        assert dynamic.watched() == {("Secret", "one"), ("Secret", "two"), ("Secret", "three")}
    finally:
        stop.set()


class _ClosesAtOnce:
    """A server (or proxy) that ends every watch at once with nothing in it."""

    def __init__(self) -> None:
        self.watches = 0

    def collection(self, *args, **kwargs):
        return {"metadata": {"resourceVersion": "3"}, "items": []}

    def watch(self, *args, **kwargs):
        self.watches += 1
        yield from ()


@pytest.mark.parametrize(("short_watch_s", "at_most"), [(watches.SHORT_WATCH_S, 2), (0.0, None)])
def test_a_watch_ended_at_once_is_retried_after_a_backoff(monkeypatch, short_watch_s, at_most):
    """As client-go's reflector: a watch ending within a second with nothing received is a
    failure, retried after the backoff; without that rule the thread would ask in a loop."""
    monkeypatch.setattr(watches, "SHORT_WATCH_S", short_watch_s)
    client, logged, stop = _ClosesAtOnce(), [], threading.Event()
    thread = threading.Thread(target=watches.follow, args=(client, "v1", "ConfigMap"), daemon=True,
                              kwargs={"namespace": "team", "metadata_only": True, "handle": lambda *a, **k: None,
                                      "log": logged.append, "stop": stop})
    thread.start()
    time.sleep(0.5)
    stop.set()
    thread.join(5)
    if at_most is not None:
        assert client.watches <= at_most
        assert logged == ["watch of ConfigMap in namespace team failed, retrying in 1s: "
                          "the server ended the watch at once with nothing received"]
    else:
        assert client.watches > 100 and logged == []
