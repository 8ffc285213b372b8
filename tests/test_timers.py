"""The process's scheduler (helm_core.support.timers): due calls, cancellation, no call waits for
a slow one, threads reused; Deferred announcements never land after the final write."""
from __future__ import annotations

import threading
import time

import pytest

from helm_core.support import timers


def test_a_call_runs_once_when_due_and_a_cancelled_one_never():
    scheduler = timers.Timers()
    ran: list[str] = []
    done = threading.Event()
    # the cancelled call is due first (once the other ran, its time had come), and half a
    # second away: its cancel, the next statement, comes before it even after a pause
    scheduler.call_later(0.6, lambda: (ran.append("due"), done.set()))
    scheduler.call_later(0.5, lambda: ran.append("cancelled")).cancel()
    assert done.wait(5)
    time.sleep(0.05)
    assert ran == ["due"]


def test_a_slow_call_delays_no_other_and_idle_workers_are_reused():
    scheduler = timers.Timers()
    release, fast = threading.Event(), threading.Event()
    scheduler.call_later(0, lambda: release.wait(5))
    scheduler.call_later(0.01, fast.set)
    assert fast.wait(2)  # ran while the slow one still blocks its worker
    release.set()
    time.sleep(0.05)
    before = threading.active_count()
    finished = [threading.Event() for _ in range(20)]
    for event in finished:  # one after the other: the idle worker takes each
        scheduler.call_later(0, event.set)
        assert event.wait(2)
        time.sleep(0.005)
    assert threading.active_count() <= before


def test_idle_workers_end():
    scheduler = timers.Timers(idle_s=0.05)
    done = threading.Event()
    scheduler.call_later(0, done.set)
    assert done.wait(2)
    deadline = time.monotonic() + 2
    while scheduler._idle and time.monotonic() < deadline:
        time.sleep(0.01)
    assert scheduler._idle == 0  # its one worker ended after idle_s


def test_a_deferred_write_settled_in_time_is_never_made():
    writes: list[str] = []
    deferred = timers.Deferred(lambda: writes.append("announce"), 1.0)  # room for a pause before settle
    assert deferred.settle() is False
    time.sleep(1.1)
    assert writes == []


def test_a_deferred_write_outlasted_is_made_and_settle_says_so():
    made = threading.Event()
    deferred = timers.Deferred(made.set, 0.01)
    assert made.wait(2)
    assert deferred.settle() is True


def test_settle_waits_for_an_announcement_in_flight():
    """The race: the announcement started just before the work ended; the final write must
    come after it, never before (else the stale announcement would be the last word)."""
    log: list[str] = []
    started, finish = threading.Event(), threading.Event()

    def announce() -> None:
        started.set()
        finish.wait(5)
        log.append("announce")

    deferred = timers.Deferred(announce, 0.01)
    assert started.wait(2)
    threading.Timer(0.1, finish.set).start()
    assert deferred.settle() is True
    log.append("final")
    assert log == ["announce", "final"]


def test_a_failed_announcement_is_reported_and_not_counted_as_written():
    errors: list[Exception] = []
    done = threading.Event()

    def fail() -> None:
        raise RuntimeError("API server down")

    deferred = timers.Deferred(fail, 0.01, on_error=lambda exc: (errors.append(exc), done.set()))
    assert done.wait(2)
    assert deferred.settle() is False
    assert [str(e) for e in errors] == ["API server down"]


def test_no_grace_writes_at_once_and_raises_in_the_callers_thread():
    writes: list[str] = []
    assert timers.Deferred(lambda: writes.append("now"), 0).settle() is True
    assert writes == ["now"]
    with pytest.raises(RuntimeError):
        timers.Deferred(lambda: (_ for _ in ()).throw(RuntimeError("boom")), 0)
