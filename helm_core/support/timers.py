"""Work due later, for the whole process: one timer thread, and worker threads that are reused.

Why: a controller runs many operations at once, and each wants something done later (renew its
release lock, announce it is still running). A thread started per operation cost a controller
more than the operation's own requests (profiled for the lock renewals); one timer thread and a
few reused workers cost nothing while nothing is due.

Rules:
- ``TIMERS.call_later(delay_s, fn)`` runs ``fn`` once after ``delay_s`` unless the returned
  :class:`Timer` is cancelled first.
- Due work runs on worker threads, never on the timer thread, and a worker is started whenever
  every existing one is busy, so a slow call delays no other; a worker idle for ``idle_s`` ends.
  Threads are daemons: due work never keeps the process alive.
- An exception raised by ``fn`` ends that call only (work that cares catches its own errors).
- :class:`Deferred` is the "announce it if it is still running" pattern: a write made only when
  the work outlasts a grace, and never after the work's final write.
"""
from __future__ import annotations

import collections
import heapq
import itertools
import threading
import time
from collections.abc import Callable

IDLE_S = 30.0
"""A worker with nothing to do for this long ends (the next due call starts one again)."""


class Timer:
    """One call due at ``when`` (``time.monotonic()``)."""

    __slots__ = ("_fn", "_owner", "cancelled", "when")

    def __init__(self, owner: Timers, when: float, fn: Callable[[], object]) -> None:
        self._owner = owner
        self._fn = fn
        self.when = when
        self.cancelled = False

    def cancel(self) -> None:
        """It will not start (a call already started runs to its end)."""
        self._owner._cancel(self)

    def _run(self) -> None:
        try:
            self._fn()
        except Exception:  # noqa: BLE001, S110 - documented: work that cares catches its own
            pass


class Timers:
    """The scheduler: a heap of due times watched by one thread started on first use."""

    def __init__(self, idle_s: float = IDLE_S) -> None:
        self._idle_s = idle_s
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)  # the timer thread: something new is due
        self._ready = threading.Condition(self._lock)  # the workers: work is queued
        self._heap: list[tuple[float, int, Timer]] = []
        self._order = itertools.count()
        self._queue: collections.deque[Timer] = collections.deque()
        self._idle = 0
        self._thread: threading.Thread | None = None

    def call_later(self, delay_s: float, fn: Callable[[], object]) -> Timer:
        """Run ``fn`` once, ``delay_s`` seconds from now, on a worker thread."""
        timer = Timer(self, time.monotonic() + delay_s, fn)
        with self._lock:
            heapq.heappush(self._heap, (timer.when, next(self._order), timer))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="timers", daemon=True)
                self._thread.start()
            self._wake.notify()
        return timer

    def _cancel(self, timer: Timer) -> None:
        with self._lock:
            timer.cancelled = True  # left in the heap until due: dropped then, unrun

    def _run(self) -> None:
        with self._lock:
            while True:
                now = time.monotonic()
                while self._heap and self._heap[0][0] <= now:
                    timer = heapq.heappop(self._heap)[2]
                    if not timer.cancelled:
                        self._queue.append(timer)
                for _ in range(len(self._queue) - self._idle):
                    threading.Thread(target=self._work, name="timers-worker", daemon=True).start()
                    self._idle += 1  # counted idle at once: the next pass must not start it twice
                self._ready.notify(len(self._queue))
                self._wake.wait(self._heap[0][0] - now if self._heap else None)

    def _work(self) -> None:
        while True:
            with self._lock:
                if not self._ready.wait_for(lambda: bool(self._queue), timeout=self._idle_s):
                    self._idle -= 1
                    return
                timer = self._queue.popleft()
                self._idle -= 1
            if not timer.cancelled:
                timer._run()
            with self._lock:
                self._idle += 1


TIMERS = Timers()
"""The process's one scheduler."""


class Deferred:
    """A write announcing work in progress, made only if the work is still running after
    ``delay_s`` (at once when ``delay_s`` is 0, raising what ``write`` raises; a later write's
    errors go to ``on_error``).

    The work calls :meth:`settle` before its own final write: the announcement is then either
    stopped before it started or waited for to its end (both under one lock), so it can never
    land after the final write."""

    def __init__(self, write: Callable[[], None], delay_s: float, *,
                 on_error: Callable[[Exception], None] | None = None,
                 timers: Timers = TIMERS) -> None:
        self._write = write
        self._on_error = on_error
        self._lock = threading.Lock()
        self._settled = False
        self._written = False
        self._timer: Timer | None = None
        if delay_s > 0:
            self._timer = timers.call_later(delay_s, self._announce)
        else:  # at once, in the caller's thread: its errors are the caller's
            write()
            self._written = True

    def _announce(self) -> None:
        with self._lock:
            if self._settled:
                return
            try:
                self._write()
            except Exception as exc:  # noqa: BLE001 - an announcement that failed is not written
                if self._on_error is not None:
                    self._on_error(exc)
                return
            self._written = True

    def settle(self) -> bool:
        """Stop the announcement, or wait for it to end; True when it was written."""
        if self._timer is not None:
            self._timer.cancel()
        with self._lock:
            self._settled = True
            return self._written
