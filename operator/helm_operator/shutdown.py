"""SIGTERM and SIGINT: the controller stops within a few seconds, whatever is running.

Kopf stops its watches on a signal, but waits for handlers still running in its threads, and
a thread cannot be interrupted. So on a signal the controller:

1. marks itself stopping: waits in progress end at their next poll (``superseded`` answers
   "the controller is stopping"), and failures are no longer written to status (the next
   start resumes every request, as after a crash);
2. kills the render workers, so no render holds a handler;
3. raises Kopf's stop flag;
4. exits after ``grace_s`` even if something still runs (Kubernetes would SIGKILL after its
   own grace period anyway; releases are safe: a lock left behind expires, a version left
   pending is marked failed by the next operation).
"""
from __future__ import annotations

import asyncio
import logging
import os
import signal
import threading
from collections.abc import Callable, Mapping
from typing import Any

#: Seconds from the signal to the exit at the latest (Kubernetes' default grace is 30 s; the
#: promise to admins is 5 s).
GRACE_S = 4.0
STOPPING = "the controller is stopping"

log = logging.getLogger("helm_operator")


class Shutdown:
    """The stop sequence; ``flag`` is what ``kopf.run(stop_flag=...)`` watches."""

    def __init__(self, *, on_stop: Callable[[], None], grace_s: float = GRACE_S,
                 exit: Callable[[int], None] = os._exit) -> None:
        self.flag = threading.Event()
        self._stopping = threading.Event()
        self._on_stop = on_stop
        self._grace_s = grace_s
        self._exit = exit

    def stopping(self) -> bool:
        return self._stopping.is_set()

    def superseded(self, inner: Callable[[Mapping[str, Any]], str]) -> Callable[[Mapping[str, Any]], str]:
        """``inner`` (why a wait of this request should stop), and "stopping" once stopping."""

        def reason(meta: Mapping[str, Any]) -> str:
            return STOPPING if self._stopping.is_set() else inner(meta)

        return reason

    def install(self, loop: asyncio.AbstractEventLoop) -> None:
        """Take SIGTERM and SIGINT over from Kopf (call from a startup handler)."""
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, self.begin, signum)

    def begin(self, signum: int = signal.SIGTERM) -> None:
        if self._stopping.is_set():
            return
        log.info("%s received: stopping (at most %gs)", signal.Signals(signum).name, self._grace_s)
        self._stopping.set()
        timer = threading.Timer(self._grace_s, self._deadline)
        timer.daemon = True
        timer.start()
        try:
            self._on_stop()
        finally:
            self.flag.set()

    def _deadline(self) -> None:
        log.warning("still busy %gs after the stop signal: exiting now", self._grace_s)
        logging.shutdown()
        self._exit(0)
