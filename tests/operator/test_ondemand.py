"""Flux's on-demand annotations (``flux reconcile hr [--force|--reset]``): a new requestedAt token
runs the check at once and is recorded; forceAt upgrades though nothing changed; resetAt starts the
failure counts again. The runner runs on the fake cluster seam (e2e: test_operator_flow)."""
from __future__ import annotations

from typing import Any

import kopf
import pytest

from helm_operator import ondemand
from tests.operator.test_runner import World, annotate, conditions, interval_check

REQUESTED, FORCE, RESET = ondemand.REQUESTED_AT, ondemand.FORCE_AT, ondemand.RESET_AT


def body(annotations: dict[str, str], **status: Any) -> dict[str, Any]:
    return {"metadata": {"annotations": annotations}, "status": status}


def test_a_token_is_pending_until_the_status_records_it() -> None:
    assert not ondemand.pending(body({}))
    assert ondemand.pending(body({REQUESTED: "t1"}))
    assert not ondemand.pending(body({REQUESTED: "t1"}, lastHandledReconcileAt="t1"))
    assert ondemand.pending(body({REQUESTED: "t2"}, lastHandledReconcileAt="t1"))


@pytest.mark.parametrize(("annotations", "status", "force", "reset"), [
    ({REQUESTED: "t", FORCE: "t"}, {}, True, False),
    ({REQUESTED: "t", RESET: "t"}, {}, False, True),
    ({REQUESTED: "t", FORCE: "u"}, {}, False, False),   # another token: not asked
    ({FORCE: "t"}, {}, False, False),                   # no reconcile token at all
    ({REQUESTED: "t", FORCE: "t"}, {"lastHandledForceAt": "t"}, False, False),  # done already
])
def test_force_and_reset_need_the_reconcile_token(annotations, status, force, reset) -> None:
    wanted = ondemand.asked(body(annotations, **status))
    assert (wanted.force, wanted.reset) == (force, reset)


def test_handled_records_every_token_and_zeroes_counts_on_reset() -> None:
    b = body({REQUESTED: "t", FORCE: "old", RESET: "t"}, failures=3, installFailures=2)
    out = ondemand.handled(b["status"], b, ondemand.asked(b))
    assert out == {"failures": 0, "installFailures": 0, "lastHandledReconcileAt": "t",
                   "lastHandledForceAt": "old", "lastHandledResetAt": "t"}
    assert b["status"]["failures"] == 3  # its input is left alone


def test_requested_token_is_recorded_and_a_second_check_writes_nothing(tmp_path):
    w = World(tmp_path)
    w.request(values={"n": 1})
    version = w.run()["status"]["version"]
    annotate(w, **{REQUESTED: "2026-11-26T21:00:00Z"})
    obj = interval_check(w)
    assert obj["status"]["lastHandledReconcileAt"] == "2026-11-26T21:00:00Z"
    assert obj["status"]["version"] == version  # nothing changed: no new version
    before = obj["metadata"]["resourceVersion"]
    assert interval_check(w)["metadata"]["resourceVersion"] == before  # handled: idle, no write


def test_requested_token_runs_a_stalled_request_the_interval_leaves_alone(tmp_path):
    w = World(tmp_path)
    w.request(rollbackTo="nope")  # no version to roll back to: Stalled, not retried on the interval
    with pytest.raises(kopf.PermanentError):
        w.run()
    stalled = w.current()
    assert interval_check(w)["metadata"]["resourceVersion"] == stalled["metadata"]["resourceVersion"]
    annotate(w, **{REQUESTED: "t1"})
    with pytest.raises(kopf.PermanentError):
        interval_check(w)  # it ran, and failed again for the same reason
    obj = w.current()
    assert obj["status"]["lastHandledReconcileAt"] == "t1"
    assert obj["status"]["failures"] == 2
    assert conditions(obj)["Stalled"] == ("True", "RollbackInvalid")


def test_force_token_upgrades_once_though_nothing_changed(tmp_path):
    w = World(tmp_path)
    w.request(values={"n": 1})
    first = w.run()["status"]["version"]
    annotate(w, **{REQUESTED: "t1", FORCE: "t1"})
    obj = interval_check(w)
    assert obj["status"]["version"] > first
    assert conditions(obj)["Ready"] == ("True", "UpgradeSucceeded")
    assert (obj["status"]["lastHandledReconcileAt"], obj["status"]["lastHandledForceAt"]) == ("t1", "t1")
    assert interval_check(w)["status"]["version"] == obj["status"]["version"]  # once only
    # a force token that does not match requestedAt is recorded and never fires later
    annotate(w, **{REQUESTED: "t2", FORCE: "t3"})
    assert interval_check(w)["status"]["version"] == obj["status"]["version"]
    annotate(w, **{REQUESTED: "t3"})
    assert interval_check(w)["status"]["version"] == obj["status"]["version"]


def test_reset_token_zeroes_the_failure_counts_and_a_success_does_too(tmp_path):
    w = World(tmp_path)
    w.request(values={"n": "x"})
    for _ in range(2):
        with pytest.raises(kopf.PermanentError):
            w.run()
    assert w.current()["status"]["failures"] == 2
    annotate(w, **{REQUESTED: "t1", RESET: "t1"})
    with pytest.raises(kopf.PermanentError):
        interval_check(w)
    obj = w.current()
    assert (obj["status"]["failures"], obj["status"]["lastHandledResetAt"]) == (1, "t1")  # 0, then this failure
    w.edit(values={"n": 2})
    obj = w.run()
    assert obj["status"]["failures"] == 0
