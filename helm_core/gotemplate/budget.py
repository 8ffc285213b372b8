"""What one execution may spend: a wall and CPU deadline and a size cap, checked by the runtime.

Charts come from strangers: a ``range`` over ``until 100000000``, a loop of ``genPrivateKey``
or a string doubled by ``printf "%s%s"`` must stop with :class:`RenderLimitExceeded`, not run
for ever or fill memory. The runtime tests :attr:`Budget.expired` on every function call and
calls :meth:`Budget.tick` (which reads the clocks) on every ``{{template}}`` call and ``range``
iteration (normal charts do
not notice: bench/gotemplate_micro.py), checks what a function builds with :meth:`Budget.check_result`, and functions
that size their result from an argument (``repeat``, ``until``...) ask :func:`check_size`
before they build it.

The budget in force is a context variable: the engine sets it around a render
(:func:`active`); with none set every check passes (:data:`UNLIMITED`).
"""
from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Callable, Iterator

from helm_core.support import oneshot
from helm_core.support.limits import RenderLimitExceeded, RenderLimits, describe_bytes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: Bytes a list slot counts for in :meth:`Budget.check_result` (a pointer on 64-bit CPython).
LIST_ITEM_BYTES = 8
#: Ticks between two reads of the CPU clock (slower than the wall clock).
CPU_CHECK_EVERY = 256
#: Ticks between two counts of the output written so far.
OUTPUT_CHECK_EVERY = 64


class Budget:
    """The limits of one render, as absolute deadlines the runtime compares against."""

    __slots__ = ("limits", "deadline", "cpu_deadline", "max_bytes", "max_items", "expired", "_ticks",
                 "_out", "_out_seen", "_out_bytes", "written", "where")

    def __init__(self, limits: RenderLimits, *, wall_start: float | None = None,
                 cpu_start: float | None = None) -> None:
        self.limits = limits
        self.deadline = (time.monotonic() if wall_start is None else wall_start) + limits.timeout_s
        self.cpu_deadline = (time.process_time() if cpu_start is None else cpu_start) + limits.cpu_s
        self.max_bytes = limits.output_bytes
        #: The length past which a string or list may be too large (a fast first test).
        self.max_items = limits.output_bytes // LIST_ITEM_BYTES
        self._ticks = 0
        #: Set when the wall deadline passed (by :meth:`tick`, or the timer :meth:`timed`
        #: starts): function calls test only this flag, cheaper than reading the clock.
        self.expired = False
        # The output list being counted (a template's, or an include's), how far, how much.
        self._out: list[str] | None = None
        self._out_seen = 0
        self._out_bytes = 0
        #: Bytes of output of templates already finished (the engine adds them).
        self.written = 0
        #: What runs now (``chart NAME: template PATH``, set by the engine): the words of a
        #: limit that a watcher outside the render (the CLI's watchdog) reports.
        self.where = ""

    def restart(self) -> None:
        """Count again from now: an ambient budget (the CLI's) applies to each render anew."""
        self.deadline = time.monotonic() + self.limits.timeout_s
        self.cpu_deadline = time.process_time() + self.limits.cpu_s
        self._out, self.written, self.expired, self.where = None, 0, False, ""

    @contextlib.contextmanager
    def timed(self) -> Iterator[None]:
        """While the block runs, a timer sets :attr:`expired` at the wall deadline."""
        if self.deadline == float("inf"):
            yield
            return
        try:
            cancel = oneshot.call_after(self.deadline - time.monotonic(), self._expire)
        except RuntimeError:
            # No room for a thread's stack (a render under a tight memory limit): the clock is
            # still read at every OUTPUT_CHECK_EVERY-th tick, the timer only makes it prompt.
            yield
            return
        try:
            yield
        finally:
            cancel()

    def _expire(self) -> None:
        self.expired = True

    def tick(self, out: list[str] | None = None) -> None:
        """Raise if the deadline passed (now and then read the clocks, count ``out``'s size)."""
        self._ticks += 1
        if self.expired or not self._ticks % OUTPUT_CHECK_EVERY:
            self._check(out)

    def _check(self, out: list[str] | None) -> None:
        if self.expired or time.monotonic() > self.deadline:
            self.expired = True
            raise self.exceeded("timeout_s")
        if not self._ticks % CPU_CHECK_EVERY and time.process_time() > self.cpu_deadline:
            raise self.exceeded("cpu_s")
        if out is not None:
            self._count_output(out)

    def _count_output(self, out: list[str]) -> None:
        if out is not self._out:  # another template's (or include's) output: count it from 0
            self._out, self._out_seen, self._out_bytes = out, 0, 0
        end = len(out)
        self._out_bytes += sum(map(len, out[self._out_seen:end]))
        self._out_seen = end
        if self.written + self._out_bytes > self.max_bytes:
            raise self.exceeded("output_bytes")

    def add_written(self, text: str) -> None:
        """A template finished with ``text``: count it towards the total output."""
        self.written += len(text)
        self._out = None
        if self.written > self.max_bytes:
            raise self.exceeded("output_bytes")

    def check_result(self, value: Any) -> Any:
        """A function's result: a string or list larger than the output limit is refused."""
        cls = value.__class__
        if cls is str and len(value) > self.max_bytes:
            raise self.exceeded("output_bytes", what=f"a string of {len(value)} characters")
        if cls is list and len(value) * LIST_ITEM_BYTES > self.max_bytes:
            raise self.exceeded("output_bytes", what=f"a list of {len(value)} items")
        return value

    def exceeded(self, limit: str, *, what: str = "") -> RenderLimitExceeded:
        return RenderLimitExceeded(describe_limit(self.limits, limit, what), limit=limit)


def describe_limit(limits: RenderLimits, limit: str, what: str = "") -> str:
    """``passed the render timeout of 30s`` / ``... output limit of 64MiB (a list of N items)``."""
    value = getattr(limits, limit)
    text = {
        "timeout_s": f"passed the render timeout of {value:g}s",
        "cpu_s": f"passed the render CPU time limit of {value:g}s",
        "memory_bytes": f"passed the render memory limit of {describe_bytes(value)}",
        "output_bytes": f"passed the render output limit of {describe_bytes(value)}",
    }[limit]
    return f"{text} ({what})" if what else text


#: The budget used when none is set: nothing is ever exceeded.
UNLIMITED = Budget(RenderLimits(timeout_s=float("inf"), cpu_s=float("inf"), output_bytes=1 << 62))

_CURRENT: contextvars.ContextVar[Budget] = contextvars.ContextVar("helm_core_render_budget", default=UNLIMITED)


#: The budget of the render running in this thread (:data:`UNLIMITED` outside one): the
#: context variable's own getter, no Python frame (every template execution asks).
current: Callable[[], Budget] = _CURRENT.get


def working_on(where: str) -> None:
    """Note what runs now (``chart NAME: template PATH``) in the budget in force, for the
    watchers outside the render; nothing is noted in :data:`UNLIMITED` (shared by threads)."""
    budget = _CURRENT.get()
    if budget is not UNLIMITED:
        budget.where = where


@contextlib.contextmanager
def active(budget: Budget) -> Iterator[Budget]:
    """Make ``budget`` the one checked while the block runs (by renders in this thread and
    in the threads :mod:`~helm_core.support.deepstack` starts from it)."""
    token = _CURRENT.set(budget)
    try:
        yield budget
    finally:
        _CURRENT.reset(token)


def check_text(value: Any, *, what: str) -> None:
    """Refuse, before writing it, a map or list whose text passes the output limit.

    A value may hold one map or list many times: ``$d = dict "a" $d "b" $d`` forty times over
    is a few objects in memory and 2^40 leaves written out (``toJson``, ``toYaml``, printing,
    ``deepCopy``), which no check between function calls can stop. Its text is measured here
    with each map or list walked once (a lower bound: a key and a scalar count their characters,
    at least one each), so the walk costs what the value holds, not what it prints to."""
    if not isinstance(value, (dict, list, tuple)):
        return
    budget = _CURRENT.get()
    size = _text_size(value, {}, budget.max_bytes)
    if size > budget.max_bytes:
        raise budget.exceeded("output_bytes", what=f"the {what} of a value of more than {size} characters")


def _text_size(value: Any, sizes: dict[int, int], cap: int) -> int:
    """At least how many characters ``value`` prints to, past ``cap`` once known to pass it.
    ``sizes`` holds the maps and lists measured (0 while one is measured: a map inside itself
    is the serializers' to refuse)."""
    if isinstance(value, str):
        return len(value) or 1
    if not isinstance(value, (dict, list, tuple)):
        return 1
    known = sizes.get(id(value))
    if known is not None:
        return known
    sizes[id(value)] = 0
    total = 2
    if isinstance(value, dict):
        for key, item in value.items():
            total += len(str(key)) + 1 + _text_size(item, sizes, cap)
            if total > cap:
                break
    else:
        for item in value:
            total += 1 + _text_size(item, sizes, cap)
            if total > cap:
                break
    sizes[id(value)] = total
    return total


def check_size(items: int, item_bytes: int = 1, *, what: str | Callable[[], str]) -> None:
    """Refuse, before building it, a result of ``items`` x ``item_bytes`` over the output limit.

    ``what`` names the result; a function giving the name is called only when it is refused
    (functions that every chart calls, such as ``nindent``, need not format it every time)."""
    budget = _CURRENT.get()
    if items * item_bytes > budget.max_bytes:
        raise budget.exceeded("output_bytes", what=what if isinstance(what, str) else what())
