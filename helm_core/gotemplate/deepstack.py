"""Running template code in a thread whose stack is really there for deep recursion.

Templates recurse (``{{template}}`` to Go's depth 100000, include, tpl, deep data in toYaml or
deepCopy). Python frames live on the heap and need only a high recursion limit; what uses the
C stack is a call through C (measured on CPython 3.11: ~370 bytes per include level, ~4.2 KiB
per tpl level, and the engine bounds their nesting to 10000). A recursion limit with no stack
behind it ends in SIGSEGV; this thread's stack is far larger than what the limit can reach
through those calls, so a too-deep recursion is a RecursionError, never a crash.
"""
from __future__ import annotations

import contextvars
import sys
import threading
from typing import Any, Callable, TypeVar

#: Stack of the thread (virtual: only the pages touched are ever backed by memory).
STACK_BYTES = 512 * 1024 * 1024
#: Python frames allowed while such threads run: Go stops ``{{template}}`` recursion at depth
#: 100000 (maxExecDepth) and a level can take a few frames (a range in a with in an if...).
RECURSION_LIMIT = 2_000_000

T = TypeVar("T")


class _Active:
    """Counts threads in flight; the raised recursion limit is restored when none is left."""

    lock = threading.Lock()
    count = 0
    saved_limit = 0


def run(fn: Callable[[], T], *, name: str = "helm-render") -> T:
    """``fn()`` in a thread with :data:`STACK_BYTES` of stack, in a copy of the caller's context
    (the render budget in force stays in force); its exception is re-raised here."""
    result: list[Any] = []
    context = contextvars.copy_context()

    def target() -> None:
        try:
            result.append(("ok", context.run(fn)))
        except BaseException as exc:  # re-raised in the caller's thread
            result.append(("err", exc))

    with _Active.lock:
        if _Active.count == 0:
            _Active.saved_limit = sys.getrecursionlimit()
            sys.setrecursionlimit(max(_Active.saved_limit, RECURSION_LIMIT))
        _Active.count += 1
        previous = threading.stack_size(STACK_BYTES)
        try:
            worker = threading.Thread(target=target, name=name, daemon=True)
            worker.start()
        finally:
            threading.stack_size(previous)
    try:
        worker.join()
    finally:
        with _Active.lock:
            _Active.count -= 1
            if _Active.count == 0:
                sys.setrecursionlimit(_Active.saved_limit)
    kind, value = result[0]
    if kind == "err":
        raise value
    out: T = value
    return out
