"""Running work on a thread whose stack really holds the recursion our inputs allow.

Helm (Go, with stacks that grow to 1 GB) accepts values and YAML nested 10000 levels deep,
``--set`` lists deeper still, and ``{{template}}`` recursion to Go's depth 100000; our
readers, mergers, writers and template runtime recurse once or a few times per level.
Python frames live on the heap and need only a high recursion limit; what uses the C stack
is a call through C (measured on CPython 3.11: ~370 bytes per include level, ~4.2 KiB per
tpl level). A recursion limit with no stack behind it ends in SIGSEGV, so :func:`run`
raises the limit only while threads created with a stack sized for it run, and restores it
when none is left. Past the raised limit a ``RecursionError`` is an ordinary exception for
the caller to word. Where no such thread can be had (a tight address-space limit), the work
runs on the caller's thread and its own limit.

Used by the CLI (every command) and by the template engine (every render).
"""
from __future__ import annotations

import contextvars
import sys
import threading
from collections.abc import Callable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T")

#: Stack of each thread: virtual, only the pages touched are ever backed by memory.
STACK_BYTES = 512 * 1024 * 1024
#: Python frames allowed while such threads run: Go stops ``{{template}}`` recursion at depth
#: 100000 (maxExecDepth) and a level can take a few frames (a range in a with in an if...).
RECURSION_LIMIT = 2_000_000


class _Raised:
    """Threads in flight; the recursion limit is restored when the last one ends."""

    lock = threading.Lock()
    active = 0
    saved_limit = 0


def run(work: Callable[[], T], *, name: str = "helm-deep-stack") -> T:
    """``work()`` on a deep-stack thread, in a copy of the caller's context (a render budget
    in force stays in force); its result returned, its exception raised here."""
    outcome: list[tuple[bool, Any]] = []
    context = contextvars.copy_context()

    def body() -> None:
        try:
            outcome.append((True, context.run(work)))
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            outcome.append((False, exc))

    with _Raised.lock:
        if _Raised.active == 0:
            _Raised.saved_limit = sys.getrecursionlimit()
            sys.setrecursionlimit(max(_Raised.saved_limit, RECURSION_LIMIT))
        _Raised.active += 1
        previous = threading.stack_size(STACK_BYTES)
        try:
            thread = threading.Thread(target=body, name=name, daemon=True)
            thread.start()
            worker: threading.Thread | None = thread
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
    result: T = value
    return result


def _release() -> None:
    _Raised.active -= 1
    if _Raised.active == 0:
        sys.setrecursionlimit(_Raised.saved_limit)
