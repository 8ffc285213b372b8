"""The daemon's wake-up plumbing (handlers.wake/sleep_or_wake/_busy) without Kopf running."""
from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace

from helm_operator import handlers


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
