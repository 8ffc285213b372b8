"""The daemon's wake-up plumbing (handlers.wake/sleep_or_wake/_busy) without Kopf running."""
from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace

import kopf

from helm_core import errors as core_errors
from helm_operator import handlers, progress, status


class Stopped:
    """Stands in for kopf.DaemonStopped: ``wait(seconds)`` sleeps unless ``stop()`` was called."""

    def __init__(self) -> None:
        self.event = asyncio.Event()

    async def wait(self, timeout: float) -> None:
        try:
            await asyncio.wait_for(self.event.wait(), timeout)
        except asyncio.TimeoutError:
            pass


def test_wake_makes_a_sleeping_daemon_check_now():
    async def scenario() -> tuple[float, dict, set, bool]:
        woken = asyncio.Event()
        memo = SimpleNamespace(last_check={"u1": 123.0}, wakeups={"u1": woken}, woken=set())
        started = time.monotonic()
        asyncio.get_running_loop().call_later(0.1, handlers.wake, memo, ["u1", "unknown"])
        await handlers.sleep_or_wake(Stopped(), woken, 30.0)
        return time.monotonic() - started, memo.last_check, memo.woken, woken.is_set()

    took, last_check, woken_uids, still_set = asyncio.run(scenario())
    assert took < 5.0  # not the 30 s
    assert last_check == {"u1": handlers.CHECK_NOW, "unknown": handlers.CHECK_NOW}
    assert woken_uids == {"u1", "unknown"}
    assert not still_set  # cleared for the next sleep


def test_a_woken_request_is_due_at_once_whatever_the_uptime():
    # monotonic time counts from boot: on a node up 100 s, a request with an hour's interval
    # that was woken must be due now (a wake recorded as "checked at 0.0" waited 58 minutes)
    hour, uptime = 3600.0, 100.0
    assert handlers.until_due(handlers.CHECK_NOW, hour, uptime) <= 0
    assert handlers.until_due(uptime - 10, hour, uptime) == hour - 10


def test_sleep_ends_when_the_daemon_stops_or_the_time_is_up():
    async def scenario() -> tuple[float, float]:
        stopped = Stopped()
        asyncio.get_running_loop().call_later(0.1, stopped.event.set)
        started = time.monotonic()
        await handlers.sleep_or_wake(stopped, asyncio.Event(), 30.0)
        first = time.monotonic() - started
        started = time.monotonic()
        await handlers.sleep_or_wake(Stopped(), asyncio.Event(), 0.2)
        return first, time.monotonic() - started

    on_stop, on_time = asyncio.run(scenario())
    assert on_stop < 5.0 and 0.15 < on_time < 5.0


def test_busy_while_reconciling_or_a_generation_is_not_handled():
    def body(generation, observed, *types):
        return {"metadata": {"generation": generation},
                "status": {"observedGeneration": observed,
                           "conditions": [{"type": t, "status": "True"} for t in types]}}

    assert not handlers._busy(body(2, 2, "Ready"))
    assert handlers._busy(body(2, 2, "Ready", "Reconciling"))
    assert handlers._busy(body(3, 2, "Ready"))
    assert not handlers._busy(body(2, 2, "Stalled"))


def test_a_retry_left_to_the_interval_check_is_not_busy():
    # the woken check is that retry: were it busy, a woken request would wait for itself
    st = {"observedGeneration": 2, "conditions": [
        {"type": "Ready", "status": "False", "reason": "ChartVersionNotFound"},
        {"type": "Reconciling", "status": "True", "reason": "RetryingOnInterval"}]}
    assert not handlers._busy({"metadata": {"generation": 2}, "status": st})
    assert handlers._busy({"metadata": {"generation": 3}, "status": st})


def test_a_drift_correction_to_try_again_is_not_busy():
    # Flux retries a failed correction; here the interval check does (status.drift_uncorrected)
    st = status.drift_uncorrected({"conditions": []}, generation=2, drift=["x"], tries=1, now="t")
    assert not handlers._busy({"metadata": {"generation": 2}, "status": st})
    assert handlers._busy({"metadata": {"generation": 3}, "status": st})


def _waiting(reason: str, retrying: str = "ProgressingWithRetry", generation: int = 2) -> dict:
    return {"metadata": {"name": "app", "namespace": "ns", "uid": "u1", "resourceVersion": "7",
                         "generation": generation, "annotations": {}},
            "status": {"observedGeneration": 2, "conditions": [
                {"type": "Ready", "status": "False", "reason": reason},
                {"type": "Reconciling", "status": "True", "reason": retrying}]}}


def test_waits_on_source_only_for_a_chart_source_failure_waiting_for_kopf_s_retry():
    for reason in ("ChartNotFound", "ChartVersionNotFound", "ChartSourceUnavailable", "ChartSourceAuth"):
        assert handlers.waits_on_source(_waiting(reason))
    assert not handlers.waits_on_source(_waiting("WaitFailed"))
    assert not handlers.waits_on_source(_waiting("ValuesError"))
    assert not handlers.waits_on_source(_waiting("ChartNotFound", retrying="RetryingOnInterval"))
    assert not handlers.waits_on_source(_waiting("ChartNotFound", generation=3))  # a new spec runs anyway


def test_a_wake_for_a_new_index_records_it_per_request():
    memo = SimpleNamespace(last_check={}, wakeups={}, woken=set(), index_woken={})
    handlers.wake(memo, ["u1"])
    assert memo.index_woken == {}
    handlers.wake(memo, ["u1", "u2"], index="HelmRepository ns/charts sha256:ab")
    assert memo.index_woken == {"u1": "HelmRepository ns/charts sha256:ab",
                                "u2": "HelmRepository ns/charts sha256:ab"}


class _Admin:
    def __init__(self, fail: Exception | None = None) -> None:
        self.applied: list[tuple[dict, bool]] = []
        self.fail = fail

    def apply(self, obj: dict, *, force: bool = False) -> dict:
        if self.fail is not None:
            raise self.fail
        self.applied.append((obj, force))
        return obj


def test_touch_retry_writes_kopf_s_touch_with_the_resource_version():
    logged: list[str] = []
    admin = _Admin()
    memo = SimpleNamespace(runtime=SimpleNamespace(admin=admin, log=logged.append),
                           progress=progress.GenerationAwareProgressStorage(prefix="p.example"))
    assert handlers.touch_retry(memo, kopf.Body(_waiting("ChartNotFound")),
                                "HelmRepository ns/charts sha256:ab")
    assert admin.applied == [({"apiVersion": "helm.sh/v1alpha1", "kind": "HelmRequest", "metadata": {
        "name": "app", "namespace": "ns", "resourceVersion": "7",
        "annotations": {"p.example/touch-dummy": "new index HelmRepository ns/charts sha256:ab"}}},
        True)]
    # changed or deleted meanwhile: not written, said, and the daemon waits as before
    memo.runtime.admin = _Admin(fail=core_errors.ConflictError("the object has been modified"))
    assert not handlers.touch_retry(memo, kopf.Body(_waiting("ChartNotFound")), "X")
    assert logged and "the retry waits for its backoff" in logged[0]


def _event_handlers(annotations: dict[str, str], status: dict[str, str] | None = None,
                    deleting: bool = False) -> list[str]:
    """Ids of the event handlers Kopf's selection picks for a MODIFIED event of this request
    (its reactor's processing.process_watching_cause), with the controller's real registry."""
    import logging

    import kopf
    from kopf._cogs.structs import references
    from kopf._core.intents import causes

    meta: dict[str, object] = {"name": "app", "namespace": "ns", "uid": "u1", "annotations": annotations}
    if deleting:
        meta["deletionTimestamp"] = "2026-11-27T00:00:00Z"
    raw = {"apiVersion": "helm.sh/v1alpha1", "kind": "HelmRequest", "metadata": meta,
           "spec": {}, "status": status or {}}
    registry = kopf.OperatorRegistry()
    handlers.register(registry)
    body = kopf.Body(raw)
    cause = causes.detect_watching_cause(
        raw_event={"type": "MODIFIED", "object": raw}, body=body,
        resource=references.Resource(group="helm.sh", version="v1alpha1", plural="helmrequests",
                                     kind="HelmRequest", namespaced=True),
        indices={}, logger=logging.getLogger("test"), patch=kopf.Patch(), memo=kopf.Memo())
    return [str(h.id) for h in registry._watching.get_handlers(cause=cause)]


def test_only_an_unhandled_reconcile_token_runs_the_event_handler():
    """Every event of a request went through the ``requested`` handler (a Kopf handler run and
    a log line each: 4 per install); the token is now checked in Kopf's selection."""
    token = "reconcile.fluxcd.io/requestedAt"
    assert _event_handlers({}) == []
    assert _event_handlers({"other": "x"}) == []
    assert _event_handlers({token: "1"}, {"lastHandledReconcileAt": "1"}) == []
    assert _event_handlers({token: "2"}, {"lastHandledReconcileAt": "1"}) == ["requested"]
    assert _event_handlers({token: "2"}) == ["requested"]
    assert _event_handlers({token: "2"}, deleting=True) == []
