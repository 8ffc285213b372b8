"""Pure parts of reconcile and runner: durations, interval policy, metric states."""
from __future__ import annotations

import pytest

from helm_core import errors as core
from helm_operator import reconcile, runner, status

T = "2026-01-01T00:00:00Z"


@pytest.mark.parametrize(("text", "seconds"), [
    ("5m", 300.0), ("90s", 90.0), ("1h30m", 5400.0), ("500ms", 0.5), ("1.5s", 1.5), ("", 7.0), (None, 7.0),
], ids=["minutes", "seconds", "compound", "millis", "fraction", "empty", "none"])
def test_parse_duration(text, seconds):
    assert reconcile.parse_duration(text, 7.0) == seconds


@pytest.mark.parametrize("text", ["5", "m5", "5 m", "5d"], ids=["no-unit", "unit-first", "space", "days"])
def test_parse_duration_refuses(text):
    with pytest.raises(core.ValuesError) as info:
        reconcile.parse_duration(text, 1.0)
    assert str(info.value) == f"invalid duration {text!r} (want e.g. 5m, 90s, 1h30m)"


READY = status.succeeded(None, generation=1, reason="InstallSucceeded", message="ok", release={}, now=T)


@pytest.mark.parametrize(("st", "generation", "due"), [
    (READY, 1, True),
    (READY, 2, False),
    (status.failed(READY, generation=1, reason="ValuesInvalid", message="m", retrying=False,
                   released=None, now=T), 1, False),
    (status.failed(READY, generation=1, reason="Forbidden", message="m", retrying=False,
                   released=None, now=T), 1, True),
    (status.reconciling(READY, generation=1, message="m", now=T), 1, False),
], ids=["ready", "new-generation", "stalled-on-spec", "stalled-fixable", "in-progress"])
def test_interval_checks_only_settled_or_fixable_requests(st, generation, due):
    assert runner._due_on_interval(st, generation) is due


@pytest.mark.parametrize(("st", "state"), [
    (READY, "ready"),
    (status.reconciling(READY, generation=2, message="m", now=T), "reconciling"),
    (status.failed(READY, generation=2, reason="X", message="m", retrying=False, released=None, now=T), "stalled"),
    (status.suspended(READY, generation=2, now=T), "suspended"),
], ids=["ready", "reconciling", "stalled", "suspended"])
def test_state_of(st, state):
    assert runner.state_of(st) == state


class _Recording:
    """A fake client recording the verbs of its Release requests."""

    def __init__(self):
        from helm_core.kube import fake

        self.client = fake.FakeCluster().client()
        self.verbs: list[str] = []
        for verb in ("get", "create", "apply"):
            setattr(self, verb, self._recorded(verb, getattr(self.client, verb)))

    def _recorded(self, verb, call):
        def run(*args, **kwargs):
            self.verbs.append(verb)
            return call(*args, **kwargs)
        return run


def test_a_first_install_claims_its_release_with_one_request():
    from helm_core.kube import client as kclient
    from helm_operator import policy

    key = policy.ReleaseKey("apps", "web")
    api = _Recording()
    made = reconcile.claim(api, key, "apps/one", new=True)
    assert api.verbs == ["create"]
    assert made["metadata"]["annotations"] == {policy.OWNER_ANNOTATION: "apps/one"}
    api.verbs.clear()
    assert reconcile.claim(api, key, "apps/one")["metadata"]["uid"] == made["metadata"]["uid"]
    assert api.verbs == ["get"]  # installed before: read, it exists
    api.verbs.clear()
    with pytest.raises(Exception) as refused:  # a second request for the same release
        reconcile.claim(api, key, "apps/two", new=True)
    assert getattr(refused.value, "reason", "") == "ReleaseClaimed" and api.verbs == ["create", "get"]
    api.client.delete(kclient.ObjectRef("helm.sh/v1alpha1", "Release", "web", "apps"))
    api.client.create({"apiVersion": "helm.sh/v1alpha1", "kind": "Release",
                       "metadata": {"name": "web", "namespace": "apps"}, "spec": {}})  # by the CLI
    adopted = reconcile.claim(api, key, "apps/two", new=True)
    assert adopted["metadata"]["annotations"] == {policy.OWNER_ANNOTATION: "apps/two"}
