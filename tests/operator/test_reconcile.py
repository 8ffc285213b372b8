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
    (status.failed(READY, generation=1, reason="RollbackInvalid", message="m", retrying=False,
                   released=None, now=T), 1, False),
    (status.failed(READY, generation=1, reason="Forbidden", message="m", retrying=False,
                   released=None, now=T), 1, True),
    # the same chart and values fail the same way, but a new chart version or a valuesFrom
    # object may mend them (Flux retries them with backoff)
    (status.failed(READY, generation=1, reason="RenderFailed", message="m", retrying=False,
                   released=None, now=T), 1, True),
    (status.reconciling(READY, generation=1, message="m", now=T), 1, False),
], ids=["ready", "new-generation", "stalled-on-spec", "stalled-fixable", "stalled-on-chart", "in-progress"])
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
        self.discover = self.client.discover  # whether Releases are served: known, no request

    def _recorded(self, verb, call):
        def run(*args, **kwargs):
            self.verbs.append(verb)
            return call(*args, **kwargs)
        return run


def test_the_release_the_claim_read_serves_the_rest_of_the_operation():
    """The claim reads (or creates) the Release; the owner reference and the status writes of the
    same operation reuse it instead of reading it again (API requests per install)."""
    from helm_core.storage import secrets
    from helm_operator import policy

    api = _Recording()
    driver = secrets.SecretsDriver(api)
    assert driver.claim("apps", "web", annotation=policy.OWNER_ANNOTATION, claimant="apps/one") == ""
    assert api.verbs == ["get", "create"]  # nothing stored yet: read, then create with the claim
    api.verbs.clear()
    made = driver.ensure_release("apps", "web")
    reference = driver.owner_reference("apps", "web")
    assert api.verbs == [] and reference["uid"] == made["metadata"]["uid"]
    again = secrets.SecretsDriver(api)  # the next reconcile: one read, the claim holds
    assert again.claim("apps", "web", annotation=policy.OWNER_ANNOTATION, claimant="apps/one") == ""
    assert api.verbs == ["get"]
    assert again.owner_reference("apps", "web")["uid"] == made["metadata"]["uid"] and api.verbs == ["get"]
    other = secrets.SecretsDriver(api)  # a second request for the same release is told who holds it
    assert other.claim("apps", "web", annotation=policy.OWNER_ANNOTATION, claimant="apps/two") == "apps/one"


def test_a_first_install_claims_with_a_create_alone():
    """``new`` (no version in status yet): the Release is created without a read first; a
    Release that exists after all is read then, and the claim is decided as without ``new``."""
    from helm_core.storage import secrets
    from helm_operator import policy

    api = _Recording()
    driver = secrets.SecretsDriver(api)
    assert driver.claim("apps", "web", annotation=policy.OWNER_ANNOTATION, claimant="apps/one", new=True) == ""
    assert api.verbs == ["create"]
    api.verbs.clear()
    other = secrets.SecretsDriver(api)
    assert other.claim("apps", "web", annotation=policy.OWNER_ANNOTATION, claimant="apps/two",
                       new=True) == "apps/one"
    assert api.verbs == ["create", "get"]
