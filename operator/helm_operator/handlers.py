"""Kopf handlers of HelmRequest: decorators only, each delegating to :mod:`runner`.

create, update (spec changes only), resume (operator start) -> runner.apply; a timer at
``TIMER_TICK_S`` -> runner.apply as an interval check when the request's ``spec.interval``
has passed (valuesFrom and chart changes, release gone); delete -> runner.delete (finalizer).
The runtime (clients, cache, settings) and metrics come through Kopf's ``memo``.
"""
from __future__ import annotations

import time
from typing import Any

import kopf

from helm_operator import reconcile, runner

GROUP, VERSION, PLURAL = "helm.sh", "v1alpha1", "helmrequests"
#: How often each request's timer wakes to see whether its interval has passed (seconds).
TIMER_TICK_S = 10.0


def register(registry: kopf.OperatorRegistry) -> None:
    """Register the handlers in ``registry`` (one per operator run, no import-time globals)."""

    @kopf.on.create(GROUP, VERSION, PLURAL, registry=registry, id="apply")
    @kopf.on.update(GROUP, VERSION, PLURAL, registry=registry, id="apply", field="spec")
    @kopf.on.resume(GROUP, VERSION, PLURAL, registry=registry, id="apply")
    def on_change(body: kopf.Body, retry: int, memo: kopf.Memo, **_: Any) -> None:
        runner.apply(memo.runtime, body, retry=retry, metrics=memo.metrics)
        memo.last_check[body["metadata"]["uid"]] = time.monotonic()

    @kopf.timer(GROUP, VERSION, PLURAL, registry=registry, id="interval", interval=TIMER_TICK_S,
                initial_delay=TIMER_TICK_S, idle=TIMER_TICK_S)
    def on_interval(body: kopf.Body, memo: kopf.Memo, **_: Any) -> None:
        uid = body["metadata"]["uid"]
        every = reconcile.parse_duration((body.get("spec") or {}).get("interval"),
                                         reconcile.DEFAULT_INTERVAL_S)
        if time.monotonic() - memo.last_check.get(uid, 0.0) < every:
            return
        memo.last_check[uid] = time.monotonic()
        try:
            runner.apply(memo.runtime, body, retry=0, metrics=memo.metrics, interval_check=True)
        except (kopf.TemporaryError, kopf.PermanentError):
            pass  # already in status and Events; the next interval tries again

    @kopf.on.delete(GROUP, VERSION, PLURAL, registry=registry, id="uninstall")
    def on_delete(body: kopf.Body, retry: int, memo: kopf.Memo, **_: Any) -> None:
        runner.delete(memo.runtime, body, retry=retry, metrics=memo.metrics)
        memo.last_check.pop(body["metadata"]["uid"], None)
