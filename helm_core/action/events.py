"""The lifecycle event emitter actions are written on (docs/architecture.md,
"Lifecycle events"; docs/lua.md).

An action reads as its event list: ``ctx = emitter.emit("pre-render", ctx)``,
``ctx = emitter.emit("render", ctx)``, ... Rules:

- core events (``CORE_EVENTS``: render, validate, install, upgrade, rollback, delete,
  list, read-chart, write-chart) have exactly one implementation, set once with
  :meth:`Emitter.set_core`; emitting one without it is an error;
- every other event is optional: zero or more handlers (internal Python ones, and a
  chart's Lua through :func:`attach_chart_scripts`) run in weight order (0 first, 1
  last; equal weights in registration order);
- a handler takes the context and returns the next one (contexts are never mutated),
  so the result of one handler is what the next sees.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

from helm_core.support.records import record

C = TypeVar("C")
Handler = Callable[[C], C]

CORE_EVENTS = frozenset({
    "render", "validate", "install", "upgrade", "rollback", "delete", "list",
    "read-chart", "write-chart",
})
#: Weight of a handler registered without one, and of a chart's Lua.
DEFAULT_WEIGHT = 0.5


@record(frozen=True)
class _Registered(Generic[C]):
    weight: float
    seq: int
    handler: Handler[C]


class Emitter(Generic[C]):
    """Core implementations and optional handlers of one action run."""

    def __init__(self) -> None:
        self._core: dict[str, Handler[C]] = {}
        self._optional: dict[str, list[_Registered[C]]] = {}
        self._seq = 0

    def set_core(self, name: str, implementation: Handler[C]) -> None:
        """Give a core event its one implementation."""
        if name not in CORE_EVENTS:
            raise ValueError(f"{name!r} is not a core event (core: {', '.join(sorted(CORE_EVENTS))})")
        if name in self._core:
            raise ValueError(f"core event {name!r} already has an implementation")
        self._core[name] = implementation

    def on(self, name: str, handler: Handler[C], *, weight: float = DEFAULT_WEIGHT) -> None:
        """Add an optional handler; ``weight`` from 0 (first) to 1 (last)."""
        if name in CORE_EVENTS:
            raise ValueError(f"core event {name!r} takes one implementation (set_core), not handlers")
        if not 0 <= weight <= 1:
            raise ValueError(f"handler weight must be from 0 to 1, got {weight}")
        self._seq += 1
        self._optional.setdefault(name, []).append(_Registered(weight, self._seq, handler))

    def emit(self, name: str, ctx: C) -> C:
        """Run the event: its core implementation, or its optional handlers in order."""
        if name in CORE_EVENTS:
            impl = self._core.get(name)
            if impl is None:
                raise LookupError(f"core event {name!r} has no implementation")
            return impl(ctx)
        for reg in sorted(self._optional.get(name, ()), key=lambda r: (r.weight, r.seq)):
            ctx = reg.handler(ctx)
        return ctx


class ChartScriptsLike(Protocol[C]):
    """What :func:`attach_chart_scripts` needs: ``fire(event, ctx) -> ctx``."""

    def fire(self, event: str, ctx: C, /) -> C: ...


def attach_chart_scripts(emitter: Emitter[C], scripts: ChartScriptsLike[C], events: tuple[str, ...],
                         *, weight: float = DEFAULT_WEIGHT) -> None:
    """Register a chart's Lua (``helm_core.lua.ChartScripts``) for ``events``, e.g.
    ``lua.ACTIONS["template"]``; its handlers keep their own order inside."""
    for name in events:
        emitter.on(name, _bind(scripts, name), weight=weight)


def _bind(scripts: ChartScriptsLike[C], name: str) -> Handler[C]:
    return lambda ctx: scripts.fire(name, ctx)
