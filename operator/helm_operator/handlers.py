"""Kopf handlers of HelmRequest: decorators only, each delegating to :mod:`runner`.

create, update (spec changes only), resume (operator start) -> runner.apply; a daemon per
request sleeping ``spec.interval`` (an asyncio task: idle requests cost no CPU) ->
runner.apply as an interval check (valuesFrom and chart changes, drift, a stall an admin may
have fixed; dependencies not Ready, every ``--requeue-dependency``: :func:`recheck`), woken
early by :func:`wake` when a valuesFrom object changes, a Flux reconcile token is written
(:mod:`ondemand`) or its repository has a new index; delete ->
runner.delete (finalizer). A new index also runs at once Kopf's retry of a request that failed
for its chart source (:func:`touch_retry`), as Flux reconciles a HelmRelease on its chart
source's new artifact.
The runtime (clients, cache, settings) and metrics come through Kopf's ``memo``.
"""
from __future__ import annotations

import asyncio
import contextvars
import copy
import functools
import time
from typing import Any, cast

import kopf

from helm_core import errors as core_errors
from helm_operator import errors, identity, ondemand, reconcile, runner, status

GROUP, VERSION, PLURAL = identity.GROUP, identity.VERSION, identity.PLURAL
#: Id of the create/update/resume handler; Kopf names its update ``apply/spec`` (a field handler).
#: :mod:`diffbase` reads their progress records by these ids.
APPLY = "apply"
APPLY_IDS = (APPLY, f"{APPLY}/spec")
#: Shortest sleep between interval checks (seconds), whatever spec.interval says.
MIN_INTERVAL_S = 1.0
#: Seconds between looks at a request woken by a valuesFrom change while it was busy.
BUSY_RECHECK_S = 2.0
#: Seconds a stopping daemon (request deleted, operator exiting) gets before it is cancelled.
DAEMON_CANCEL_S = 5.0


def register(registry: kopf.OperatorRegistry) -> None:
    """Register the handlers in ``registry`` (one per operator run, no import-time globals)."""

    @kopf.on.create(GROUP, VERSION, PLURAL, registry=registry, id=APPLY)
    @kopf.on.update(GROUP, VERSION, PLURAL, registry=registry, id=APPLY, field="spec")
    @kopf.on.resume(GROUP, VERSION, PLURAL, registry=registry, id=APPLY)
    def on_change(body: kopf.Body, retry: int, memo: kopf.Memo, **_: Any) -> None:
        uid = body["metadata"]["uid"]
        try:
            runner.apply(memo.runtime, body, retry=retry, metrics=memo.metrics)
        except runner.CheckAgain as waiting:
            # handled: the interval daemon looks again (a dependency wait's fixed requeue, a
            # drift correction's backoff; no Kopf retry whose attempts would count against a
            # later failure's backoff)
            memo.loop.call_soon_threadsafe(recheck, memo, uid, interval_of(body), waiting.seconds)
            return
        memo.last_check[uid] = time.monotonic()

    @kopf.daemon(GROUP, VERSION, PLURAL, registry=registry, id="interval",
                 cancellation_timeout=DAEMON_CANCEL_S)
    async def every_interval(body: kopf.Body, memo: kopf.Memo, stopped: kopf.DaemonStopped,
                             **_: Any) -> None:
        uid = body["metadata"]["uid"]
        loop = asyncio.get_running_loop()
        memo.last_check.setdefault(uid, time.monotonic())  # create/resume handlers check first
        woken = memo.wakeups.setdefault(uid, asyncio.Event())
        while not stopped:
            every = interval_of(body)
            remaining = until_due(memo.last_check.get(uid, CHECK_NOW), every, time.monotonic())
            if remaining > 0:
                await sleep_or_wake(stopped, woken, max(MIN_INTERVAL_S, remaining))
                continue
            memo.last_check[uid] = time.monotonic()
            retrying = uid in memo.retrying  # this daemon's retry: no Kopf retry to wait for
            if uid in memo.woken and uid in memo.index_woken and waits_on_source(body) and not retrying:
                # kept while busy: an operation running when the index came may fail on the old one
                now = kopf.Body(cast(kopf.RawBody, copy.deepcopy(dict(body))))
                touch = functools.partial(touch_retry, memo, now, memo.index_woken.pop(uid))
                if await loop.run_in_executor(None, contextvars.copy_context().run, touch):
                    memo.woken.discard(uid)  # Kopf's retry is the check
                    continue
            if uid in memo.woken and _busy(body) and not retrying:
                # a valuesFrom object changed while an operation runs, which may have read it
                # before the change: look again once the operation is over
                memo.last_check[uid] -= every - BUSY_RECHECK_S
                continue
            memo.woken.discard(uid)
            memo.index_woken.pop(uid, None)
            snapshot = copy.deepcopy(dict(body))
            check = functools.partial(_interval_check, memo, snapshot)
            waiting = await loop.run_in_executor(None, contextvars.copy_context().run, check)
            if waiting is not None:
                due_in(memo, uid, every, waiting)

    # Flux's reconcile.fluxcd.io/requestedAt: a token not handled yet wakes the check now.
    # Filtered in Kopf's handler selection, not in the handler: most events (each status
    # write of every install) then cost no handler run and no "succeeded" log line.
    @kopf.on.event(GROUP, VERSION, PLURAL, registry=registry, id="requested",
                   annotations={ondemand.REQUESTED_AT: kopf.PRESENT}, when=requested)
    async def on_request_annotation(body: kopf.Body, memo: kopf.Memo, **_: Any) -> None:
        wake(memo, [body["metadata"]["uid"]])

    @kopf.on.delete(GROUP, VERSION, PLURAL, registry=registry, id="uninstall")
    def on_delete(body: kopf.Body, retry: int, memo: kopf.Memo, **_: Any) -> None:
        runner.delete(memo.runtime, body, retry=retry, metrics=memo.metrics)
        memo.last_check.pop(body["metadata"]["uid"], None)
        memo.wakeups.pop(body["metadata"]["uid"], None)
        memo.woken.discard(body["metadata"]["uid"])
        memo.index_woken.pop(body["metadata"]["uid"], None)
        memo.retrying.pop(body["metadata"]["uid"], None)


#: A last check longer ago than any interval: what :func:`wake` records. (0.0 is not: monotonic
#: time counts from boot, so on a node up for less than an interval a check "at 0.0" looked
#: recent and a woken daemon went back to sleep.)
CHECK_NOW = float("-inf")


def until_due(last_check: float, every: float, now: float) -> float:
    """Seconds until a request checked at ``last_check`` (monotonic) is due again; <= 0: now."""
    return every - (now - last_check)


def interval_of(body: kopf.Body) -> float:
    """Seconds between the request's interval checks (``spec.interval``)."""
    return reconcile.parse_duration((body.get("spec") or {}).get("interval"), reconcile.DEFAULT_INTERVAL_S)


def due_in(memo: kopf.Memo, uid: str, every: float, seconds: float) -> None:
    """Make the next interval check of ``uid`` (checked each ``every`` seconds) due in ``seconds``."""
    memo.last_check[uid] = time.monotonic() - every + seconds


def recheck(memo: kopf.Memo, uid: str, every: float, seconds: float) -> None:
    """Run the interval check of this request in ``seconds`` (it waits for its dependencies),
    waking its daemon to sleep that long instead. Runs in the event loop."""
    due_in(memo, uid, every, seconds)
    woken = memo.wakeups.get(uid)
    if woken is not None:
        woken.set()


def wake(memo: kopf.Memo, uids: list[str], *, index: str = "") -> None:
    """Run the interval check of these requests now (a ConfigMap/Secret they read values from
    changed). Runs in the event loop (``loop.call_soon_threadsafe`` from a watch thread).
    ``index`` (repository and digest): their repository has that new index, so those waiting
    out a retry of a chart-source failure run it now (:func:`touch_retry`)."""
    for uid in uids:
        memo.last_check[uid] = CHECK_NOW
        memo.woken.add(uid)
        if index:
            memo.index_woken[uid] = index
        woken = memo.wakeups.get(uid)
        if woken is not None:
            woken.set()


def requested(body: kopf.Body, **_: Any) -> bool:
    """A Flux reconcile token not handled yet, on a request not being deleted."""
    return ondemand.pending(body) and not body["metadata"].get("deletionTimestamp")


def _busy(body: kopf.Body) -> bool:
    """An operation of the request runs or is due: Reconciling (but for a retry left to the
    interval check, which is this check), or a generation not handled."""
    st = body.get("status") or {}
    if status.reason_of(status.get_condition(st, status.READY)) == status.DEPENDENCY_NOT_READY:
        return False  # nothing runs: only the check it waits for would read the values
    reconciling = status.get_condition(st, status.RECONCILING)
    return (st.get("observedGeneration") != body["metadata"].get("generation")
            or (reconciling is not None and not status.correcting_drift(st)
                and reconciling.get("reason") != status.RETRYING_ON_INTERVAL))


def waits_on_source(body: kopf.Body) -> bool:
    """The request's last try of this generation failed for its chart source, and Kopf's retry
    waits out its backoff."""
    st = body.get("status") or {}
    reconciling = status.get_condition(st, status.RECONCILING) or {}
    ready = status.get_condition(st, status.READY) or {}
    return (st.get("observedGeneration") == body["metadata"].get("generation")
            and reconciling.get("reason") == status.RETRYING
            and ready.get("reason") in errors.SOURCE_REASONS)


def touch_retry(memo: kopf.Memo, body: kopf.Body, index: str) -> bool:
    """Run Kopf's waiting retry of ``body`` now: write Kopf's touch annotation naming the new
    ``index``; the event wakes Kopf's worker and the progress storage drops the delay
    (:mod:`progress`). One PATCH; the resourceVersion makes it a no-op on a request deleted or
    changed meanwhile (its own event runs Kopf then). False when it was not written."""
    meta = body["metadata"]
    try:
        memo.runtime.admin.apply({
            "apiVersion": identity.API_VERSION, "kind": identity.KIND,
            "metadata": {"name": meta["name"], "namespace": meta["namespace"],
                         "resourceVersion": meta["resourceVersion"],
                         "annotations": memo.progress.index_touch(body, index)}}, force=True)
    except core_errors.HelmError as exc:
        memo.runtime.log(f"{meta['namespace']}/{meta['name']}: new index {index}: the retry "
                         f"waits for its backoff: {exc}")
        return False
    return True


async def sleep_or_wake(stopped: kopf.DaemonStopped, woken: asyncio.Event, seconds: float) -> None:
    """Sleep ``seconds``, less when the daemon is stopped or woken (:func:`wake`)."""
    waits = [asyncio.ensure_future(woken.wait()), asyncio.ensure_future(stopped.wait(seconds))]
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiting in waits:
            waiting.cancel()
    woken.clear()


def _interval_check(memo: kopf.Memo, body: dict[str, Any]) -> float | None:
    """The interval check; seconds until the next when it must look again sooner
    (:class:`runner.CheckAgain`, or a retry). The check that ends a dependency wait makes the
    generation's first try (:func:`runner.ends_a_wait`) as Kopf's handler would, and so do its
    retries: a failure is retried with backoff (Kopf's retry count, ``memo.retrying``: uid →
    generation and retry), not at the next interval."""
    uid, generation = body["metadata"]["uid"], body["metadata"].get("generation")
    owned = memo.retrying.pop(uid, None)
    retry = owned[1] if owned is not None and owned[0] == generation else None
    if retry is None and runner.ends_a_wait(body):
        retry = 0
    try:
        runner.apply(memo.runtime, body, retry=retry or 0, metrics=memo.metrics,
                     interval_check=retry is None)
    except runner.CheckAgain as waiting:
        return waiting.seconds
    except kopf.TemporaryError as failed:
        if retry is not None:
            memo.retrying[uid] = (generation, retry + 1)
            return float(failed.delay or 0.0)
    except kopf.PermanentError:
        pass  # already in status and Events; the next interval tries again
    return None
