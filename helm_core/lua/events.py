"""Chart Lua answering lifecycle events: load the scripts of a chart tree, fire events.

Usage by an action::

    with lua.load_chart_scripts(chart, accepted_permissions=accepted, log=log) as scripts:
        ctx = context.new_context(chart, release=rel, values=vals)
        ctx = scripts.fire("chart-loaded", ctx)
        ctx = scripts.fire("pre-render", ctx)
        ... render ctx.templates with ctx.values, parse into ctx.objects ...
        ctx = scripts.fire("post-render", ctx)

Rules: permissions of every chart are checked before any Lua runs (refusal lists what
was asked and what accepted). Each chart with ``ext/lua/chart.lua`` gets its own
runtime. ``fire`` runs handlers chart by chart, subcharts first (depth first, the top
chart last), each chart's handlers in weight order (0 first, 1 last, equal weights in
registration order), each seeing its own scope (:mod:`helm_core.lua.context`); the
next chart sees the previous one's changes. Any Lua error stops the operation with a
LuaError naming chart, file and line. ``print`` lines go to ``log`` prefixed with the
chart path. A chart tree without Lua never starts a worker.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from types import TracebackType
from typing import TYPE_CHECKING, Any

from helm_core import errors
from helm_core.chart import model
from helm_core.lua import context, eventspec, layout, permissions
from helm_core.lua import limits as limits_mod
from helm_core.support import records

if TYPE_CHECKING:
    from helm_core.lua import worker

# The worker module (subprocess, select...) is imported only once a chart has Lua to run.

Log = Callable[[str], None]
SessionFactory = Callable[[], "worker.Session"]

MAIN_SCRIPT = layout.MAIN_SCRIPT


def has_lua(chart: model.Chart) -> bool:
    return any(f.name == MAIN_SCRIPT for f in chart.files)


class ChartScripts:
    """The loaded Lua of a chart tree for one operation; close it (or use ``with``)."""

    def __init__(self, charts: list[model.Chart], session: worker.Session | None,
                 limits: limits_mod.LuaLimits, log: Log) -> None:
        self._charts = charts
        self._session = session
        self._limits = limits
        self._log = log
        self._handlers: dict[str, dict[str, int]] = {}

    @property
    def handlers(self) -> dict[str, dict[str, int]]:
        """Handler counts by chart path and event, as registered at load."""
        return {k: dict(v) for k, v in self._handlers.items()}

    def _request(self, chart: model.Chart, request: dict[str, Any]) -> dict[str, Any]:
        if self._session is None:
            raise errors.LuaError(f'chart "{chart.chart_path()}": its Lua runtime was closed '
                                  "(after a timeout or close())", chart=chart.chart_path())
        try:
            reply = self._session.call(request, timeout=self._limits.timeout_seconds)
        except errors.LuaError as exc:
            self.close()
            raise errors.LuaError(f'chart "{chart.chart_path()}": {exc}', chart=chart.chart_path()) from None
        for line in reply.get("log") or []:
            self._log(f"{chart.chart_path()}: {line}")
        if not reply.get("ok"):
            err = reply.get("error") or {}
            raise errors.LuaError(str(err.get("message", "Lua failed")), chart=chart.chart_path(),
                                  file=str(err.get("file", "")), line=int(err.get("line", 0) or 0))
        return reply

    def _load(self) -> None:
        from helm_core.lua import worker

        for chart in self._charts:
            sources = {f.name: f.data for f in chart.files if layout.module_name(f.name)}
            reply = self._request(chart, {
                "op": "load", "key": chart.chart_path(), "chart": chart.chart_path(),
                "sources": {k: worker.b64(v) for k, v in sources.items()},
                "files": {k: worker.b64(v) for k, v in context.all_files(chart).items()},
                "static": _jsonable(context.static_parts(chart)),
                "permissions": sorted(permissions.chart_permissions(chart)),
                "limits": records.asdict(self._limits),
            })
            self._handlers[chart.chart_path()] = {str(k): int(v) for k, v in reply["handlers"].items()}

    def fire(self, event: str, ctx: context.EventContext) -> context.EventContext:
        """Run every chart's handlers of ``event``; returns the changed context."""
        spec = eventspec.EVENTS.get(event)
        if spec is None:
            raise ValueError(f"unknown lifecycle event {event!r}")
        before = "templates" in spec.mutable
        for chart in self._charts:
            if not self._handlers.get(chart.chart_path(), {}).get(event):
                continue
            from helm_core.lua import worker

            parts = context.chart_parts(ctx, chart, before_render=before)
            reply = self._request(chart, {"op": "fire", "key": chart.chart_path(), "event": event,
                                          "parts": worker.encode_parts(parts)})
            returned = worker.decode_parts(reply.get("parts") or {})
            ctx = context.merge_parts(ctx, chart, returned)
        return ctx

    def close(self) -> None:
        if self._session is not None:
            self._session.close()
            self._session = None

    def __enter__(self) -> ChartScripts:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def load_chart_scripts(chart: model.Chart, *, accepted_permissions: Iterable[str],
                       limits: limits_mod.LuaLimits | None = None, log: Log | None = None,
                       session_factory: SessionFactory | None = None) -> ChartScripts:
    """Check permissions, then load ``ext/lua/chart.lua`` of the chart and its subcharts.

    ``session_factory`` decides where runtimes live: by default a fresh worker process
    (pass ``pool.session`` of a :class:`~helm_core.lua.worker.WorkerPool` to reuse a
    warm one; ``worker.InProcessSession`` for trusted charts and tests)."""
    permissions.check_accepted(chart, accepted_permissions)
    lim = limits or limits_mod.LuaLimits()
    charts = [c for c in permissions.walk(chart) if has_lua(c)]
    if not charts:
        return ChartScripts([], None, lim, log or (lambda _line: None))
    from helm_core.lua import worker

    session = (session_factory or worker.WorkerSession)()
    scripts = ChartScripts(charts, session, lim, log or (lambda _line: None))
    try:
        scripts._load()
    except BaseException:
        scripts.close()
        raise
    return scripts


def _jsonable(data: Any) -> Any:
    """Static parts with file bytes as text (files are data, decoded lossless)."""
    if isinstance(data, bytes):
        return data.decode("utf-8", "surrogateescape")
    if isinstance(data, dict):
        return {k: _jsonable(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_jsonable(v) for v in data]
    return data
