"""Running work on a thread whose stack really holds the recursion Helm's inputs allow.

Helm (Go, with stacks that grow to 1 GB) accepts values and YAML nested 10000 levels deep
and ``--set`` lists deeper still; our readers, mergers and writers recurse once or a few
times per level. Raising Python's recursion limit alone would let such input overflow the
C stack (SIGSEGV); :func:`run` raises it only on a thread created with a stack sized for it,
and restores it when no such thread is left. Past the raised limit a ``RecursionError``
is an ordinary exception for the caller to word. Where no such thread can be had (a tight
address-space limit), the work runs on the caller's thread and its own limit.
"""
from __future__ import annotations

import sys
import threading
from typing import Any, Callable, TypeVar

#: The thread's stack: a Python frame on the C stack costs well under 1 KiB, so this holds
#: :data:`RECURSION_LIMIT` frames with room to spare. Reserved, not committed, memory.
STACK_BYTES = 256 * 1024 * 1024
#: Python frames allowed while such a thread runs.
RECURSION_LIMIT = 200_000

T = TypeVar("T")


class _Raised:
    """Threads in flight; the recursion limit is restored when the last one ends."""

    lock = threading.Lock()
    active = 0
    saved_limit = 0


def run(work: Callable[[], T]) -> T:
    """``work()`` on a deep-stack thread; its result returned, its exception raised here."""
    outcome: list[tuple[bool, Any]] = []

    def body() -> None:
        try:
            outcome.append((True, work()))
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            outcome.append((False, exc))

    with _Raised.lock:
        if _Raised.active == 0:
            _Raised.saved_limit = sys.getrecursionlimit()
            sys.setrecursionlimit(max(_Raised.saved_limit, RECURSION_LIMIT))
        _Raised.active += 1
        previous = threading.stack_size(STACK_BYTES)
        try:
            worker = threading.Thread(target=body, name="helm-deep-stack")
            worker.start()
        except RuntimeError:  # no room for the stack (a tight address-space limit)
            _release()
            worker = None
        finally:
            threading.stack_size(previous)
    if worker is None:
        return work()  # on this thread's stack: deep input ends in RecursionError, not a crash
    try:
        worker.join()
    finally:
        with _Raised.lock:
            _release()
    ok, value = outcome[0]
    if not ok:
        raise value
    return value


def _release() -> None:
    _Raised.active -= 1
    if _Raised.active == 0:
        sys.setrecursionlimit(_Raised.saved_limit)
