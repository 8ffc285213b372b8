"""The stop sequence: waits told to stop, workers killed, Kopf's flag raised, and an exit as
soon as no reconcile runs, or at the deadline."""
from __future__ import annotations

import signal
import threading

from helm_operator import shutdown


def test_stop_kills_workers_raises_the_flag_and_exits_when_idle() -> None:
    calls: list[str] = []
    busy = [True]
    exited = threading.Event()
    stop = shutdown.Shutdown(on_stop=lambda: calls.append("workers killed"), busy=lambda: busy[0],
                             grace_s=30, exit=lambda code: (calls.append(f"exit {code}"), exited.set()))
    waits = stop.superseded(lambda meta: "superseded by generation 3" if meta.get("new") else "")
    assert not stop.stopping() and waits({}) == "" and waits({"new": 1}) == "superseded by generation 3"
    stop.begin(signal.SIGTERM)
    assert stop.stopping() and stop.flag.is_set()
    assert waits({}) == shutdown.STOPPING
    assert calls == ["workers killed"]
    assert not exited.wait(0.5)  # a reconcile is still running
    busy[0] = False
    assert exited.wait(5)
    assert calls == ["workers killed", "exit 0"]
    stop.begin(signal.SIGTERM)  # a second signal changes nothing
    assert calls == ["workers killed", "exit 0"]


def test_exit_at_the_deadline_when_still_busy() -> None:
    exited = threading.Event()
    stop = shutdown.Shutdown(on_stop=lambda: None, busy=lambda: True, grace_s=0.3,
                             exit=lambda code: exited.set())
    stop.begin(signal.SIGINT)
    assert exited.wait(5)


def test_steps_run_in_order_and_a_step_added_after_the_signal_runs_at_once() -> None:
    calls: list[str] = []
    exited = threading.Event()
    stop = shutdown.Shutdown(exit=lambda code: exited.set())
    stop.on_stop(lambda: calls.append("lease released"))
    stop.on_stop(lambda: calls.append("workers killed"))
    stop.begin(signal.SIGTERM)
    assert calls == ["lease released", "workers killed"] and stop.flag.is_set()
    stop.on_stop(lambda: calls.append("late workers killed"))  # started while the signal came
    assert calls == ["lease released", "workers killed", "late workers killed"]
    assert exited.wait(5)


def test_a_failing_step_does_not_stop_the_others() -> None:
    calls: list[str] = []
    stop = shutdown.Shutdown(exit=lambda code: None)

    def broken() -> None:
        raise RuntimeError("API server gone")

    stop.on_stop(broken)
    stop.on_stop(lambda: calls.append("workers killed"))
    stop.begin(signal.SIGTERM)
    assert calls == ["workers killed"] and stop.flag.is_set()
