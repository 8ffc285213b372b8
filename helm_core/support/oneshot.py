"""One call due later, on a daemon thread of its own that the caller does not wait for.

For a short process's deadlines (the CLI's watchdog, a render budget's wall deadline): each is
one call that rarely happens. ``threading.Timer.start()`` waits until its new thread has run
(``Thread.start`` waits for it to signal that it started): on a busy machine that wait is the
scheduler's latency, up to milliseconds for each of a CLI render's two timers
(``bench/startup.py`` prints the time of a start). Here the thread is started with
``_thread.start_new_thread`` and waits on a lock with a timeout; cancelling releases the lock.

A long-running process with many operations uses :mod:`helm_core.support.timers` (one thread
for all of them) instead.
"""
from __future__ import annotations

import _thread

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


def call_after(delay_s: float, fn: Callable[[], object]) -> Callable[[], None]:
    """Call ``fn`` once on a daemon thread ``delay_s`` seconds from now, unless the function
    returned is called first (cancelling again, or after ``fn`` ran, does nothing). Raises
    ``RuntimeError`` when no thread can be started (no room for its stack)."""
    pending = _thread.allocate_lock()
    pending.acquire()

    def wait() -> None:
        if not pending.acquire(timeout=min(max(delay_s, 0.0), _thread.TIMEOUT_MAX)):
            fn()

    _thread.start_new_thread(wait, ())

    def cancel() -> None:
        if pending.locked():
            try:
                pending.release()
            except RuntimeError:  # released by a cancel in another thread meanwhile
                pass

    return cancel
