"""The render limits of ``helm-core template``/``lint``/``install``/``upgrade``, enforced in-process.

``--render-timeout 30s --render-cpu 20s --render-memory 1Gi --render-output 64Mi``
(defaults: :data:`helm_core.support.limits.DEFAULT_LIMITS`). Three guards, from cheapest to last resort:

- the template runtime checks the deadlines and sizes as it goes (a render budget made
  active for the command, :mod:`helm_core.gotemplate.budget`);
- memory: the address space may grow by ``--render-memory`` (plus the render thread's stack)
  above what the process holds when the command starts (``RLIMIT_AS``); passing it is a
  ``MemoryError``, reported as one ``Error:`` line;
- time: for the local commands (template, lint) a watchdog thread prints one ``Error:`` line
  and exits 1 when the command outlives ``--render-timeout`` by :data:`WATCHDOG_GRACE_S`
  (a function stuck in C code never reaches a runtime check). install and upgrade wait for
  the cluster for as long as ``--timeout`` says, so there only the render itself is timed.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import resource
from collections.abc import Iterator

from helm_core.gotemplate import budget
from helm_core.support import limits as limits_mod
from helm_core.support import oneshot
from helm_core.support.limits import DEFAULT_LIMITS, RenderLimitExceeded, RenderLimits, describe_bytes, parse_bytes

#: Seconds the watchdog gives the runtime checks to stop a render cleanly.
WATCHDOG_GRACE_S = 2.0
def parse_duration(text: str) -> float:
    """A Go duration flag (``30s``, ``1m30s``, ``500ms``), positive."""
    try:
        seconds = limits_mod.parse_duration(text.strip())
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if not seconds > 0:
        raise argparse.ArgumentTypeError(f"invalid duration {text!r}: must be positive")
    return seconds


def _size(text: str) -> int:
    try:
        return parse_bytes(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_flags(p: argparse.ArgumentParser) -> None:
    """The four limit flags of a command that renders."""
    d = DEFAULT_LIMITS
    p.add_argument("--render-timeout", type=parse_duration, default=d.timeout_s, metavar="DURATION",
                   help=f"wall time a render may take (default {d.timeout_s:g}s)")
    p.add_argument("--render-cpu", type=parse_duration, default=d.cpu_s, metavar="DURATION",
                   help=f"CPU time a render may take (default {d.cpu_s:g}s)")
    p.add_argument("--render-memory", type=_size, default=d.memory_bytes, metavar="SIZE",
                   help=f"memory a render may add to the process (default {describe_bytes(d.memory_bytes)})")
    p.add_argument("--render-output", type=_size, default=d.output_bytes, metavar="SIZE",
                   help=f"size of the rendered text (default {describe_bytes(d.output_bytes)})")


def from_args(args: argparse.Namespace) -> RenderLimits:
    return RenderLimits(timeout_s=args.render_timeout, cpu_s=args.render_cpu,
                        memory_bytes=args.render_memory, output_bytes=args.render_output)


@contextlib.contextmanager
def enforced(limits: RenderLimits, *, watchdog: bool) -> Iterator[None]:
    """Apply ``limits`` to this process while the block runs (see the module's text)."""
    active = budget.Budget(limits)
    cancel = oneshot.call_after(limits.timeout_s + WATCHDOG_GRACE_S, lambda: _give_up(active)) if watchdog else None
    try:
        with _address_space_limited(limits.memory_bytes), budget.active(active):
            try:
                yield
            except MemoryError:
                # The render's frames are gone by now: their memory is free for the message.
                raise RenderLimitExceeded(memory_error_message(limits, active.where), limit="memory_bytes") from None
    finally:
        if cancel is not None:
            cancel()


def memory_error_message(limits: RenderLimits, where: str = "") -> str:
    """``passed the render memory limit of 1GiB (out of memory)``, after ``where`` (the chart
    and template that ran, when a render ran)."""
    return _located(where, budget.describe_limit(limits, "memory_bytes", "out of memory"))


def _located(where: str, message: str) -> str:
    return f"{where}: {message}" if where else message


@contextlib.contextmanager
def _address_space_limited(memory_bytes: int) -> Iterator[None]:
    """Let the address space grow by ``memory_bytes`` from here (plus the render stack) while the
    block runs; the previous limit comes back after it (``main()`` may run inside a longer-lived
    process, whose later threads and children must not inherit the command's limit)."""
    before = resource.getrlimit(resource.RLIMIT_AS)
    soft, hard = before
    ceiling = limits_mod.address_space_ceiling(memory_bytes)
    if ceiling is not None and hard != resource.RLIM_INFINITY:
        ceiling = min(ceiling, hard)
    lowered = ceiling is not None and (soft == resource.RLIM_INFINITY or ceiling < soft)
    if lowered and ceiling is not None:
        resource.setrlimit(resource.RLIMIT_AS, (ceiling, hard))
    try:
        yield
    finally:
        if lowered:
            resource.setrlimit(resource.RLIMIT_AS, before)


def _give_up(active: budget.Budget) -> None:
    """The render did not stop at its deadline: say so (naming the chart and template that
    ran, as the runtime's checks do) and end the process."""
    message = _located(active.where, budget.describe_limit(active.limits, "timeout_s", "the render did not stop"))
    os.write(2, f"Error: {message}\n".encode())
    os._exit(1)
