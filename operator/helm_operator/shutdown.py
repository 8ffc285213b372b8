"""SIGTERM and SIGINT: the controller stops within a few seconds, whatever is running.

Kopf stops its watches on a signal, but waits for handlers still running in its threads, and
a thread cannot be interrupted. So Kopf runs in a thread of its own, the main thread takes the
signals, and on one the controller:

1. marks itself stopping: waits in progress end at their next poll (``superseded`` answers
   "the controller is stopping"), and failures are no longer written to status (the next
   start resumes every request, as after a crash);
2. kills the render workers, so no render holds a handler;
3. raises Kopf's stop flag;
4. exits as soon as no reconcile runs, and after ``grace_s`` even if one still does (Kubernetes
   would SIGKILL after its own grace period anyway; releases are safe: a lock left behind
   expires, a version left pending is marked failed by the next operation).

The signals are taken from the start of the process (before leader election), and what the
sequence must undo is added as it comes into being (:meth:`Shutdown.on_stop`: the Lease once
won, the render workers once started). A step added after a signal runs at once: a SIGTERM
arriving while the Lease is being won, or while the workers start, still hands the Lease over
(no window where the default handler would kill the process with the Lease held).
"""
from __future__ import annotations

import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

#: Seconds from the signal to the exit at the latest (Kubernetes' default grace is 30 s; the
#: promise to admins is 5 s).
GRACE_S = 4.0
STOPPING = "the controller is stopping"
#: Seconds between looks at whether operations are still running.
POLL_S = 0.1

log = logging.getLogger("helm_operator")


class Shutdown:
    """The stop sequence; ``flag`` is what ``kopf.run(stop_flag=...)`` watches."""

    def __init__(self, *, on_stop: Callable[[], None] | None = None,
                 busy: Callable[[], bool] = lambda: False,
                 grace_s: float = GRACE_S, exit: Callable[[int], None] = os._exit) -> None:
        self.flag = threading.Event()
        self._stopping = threading.Event()
        self._began = threading.Event()
        self._steps: list[Callable[[], None]] = [on_stop] if on_stop is not None else []
        self._busy = busy
        self._grace_s = grace_s
        self._exit = exit
        self._installed = False

    def on_stop(self, step: Callable[[], None]) -> None:
        """Run ``step`` when stopping (steps run in the order added); at once when the stop
        sequence already began."""
        self._steps.append(step)
        if self._began.is_set():
            self._run_steps()

    def _run_steps(self) -> None:
        # pop one by one: a signal landing in the middle (same thread) runs each step once
        while True:
            try:
                step = self._steps.pop(0)
            except IndexError:
                return
            try:
                step()
            except Exception:  # the next steps and the exit must still happen
                log.exception("stop step failed")

    def stopping(self) -> bool:
        return self._stopping.is_set()

    def superseded(self, inner: Callable[[Mapping[str, Any]], str]) -> Callable[[Mapping[str, Any]], str]:
        """``inner`` (why a wait of this request should stop), and "stopping" once stopping."""

        def reason(meta: Mapping[str, Any]) -> str:
            return STOPPING if self._stopping.is_set() else inner(meta)

        return reason

    def install(self) -> None:
        """Handle SIGTERM and SIGINT (from the main thread; Kopf then runs in another thread,
        where it leaves signals alone). Installing twice changes nothing."""
        if self._installed:
            return
        self._installed = True
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda received, _frame: self.begin(received))

    def run(self, operator: Callable[[], object]) -> None:
        """Run ``operator`` (Kopf, watching :attr:`flag`) in a thread until it returns, while
        this (main) thread takes the signals."""
        self.install()
        thread = threading.Thread(target=operator, name="kopf")
        thread.start()
        while thread.is_alive():
            thread.join(0.5)

    def begin(self, signum: int = signal.SIGTERM) -> None:
        if self._stopping.is_set():
            return
        log.info("%s received: stopping (at most %gs)", signal.Signals(signum).name, self._grace_s)
        self._stopping.set()
        try:
            self._began.set()
            self._run_steps()
        finally:
            self.flag.set()
            threading.Thread(target=self._exit_when_idle, name="shutdown", daemon=True).start()

    def _exit_when_idle(self) -> None:
        """Exit once no reconcile runs (Kopf's own graceful stop of its watches and daemons
        takes longer and holds nothing of ours), or at the deadline."""
        deadline = time.monotonic() + self._grace_s
        while time.monotonic() < deadline:
            if not self._busy():
                log.info("stopped: no operation in progress")
                break
            time.sleep(POLL_S)
        else:
            log.warning("still busy %gs after the stop signal: exiting now", self._grace_s)
        logging.shutdown()
        self._exit(0)
