"""Chart Lua: lifecycle-event handlers in ``ext/lua/``, run in a sandbox (DESIGN.md §4).

Public API (import the modules, e.g. ``from helm_core import lua``):

- :func:`load_chart_scripts` → :class:`ChartScripts` (``fire(event, ctx)``, ``close()``)
- :class:`EventContext`, :class:`ReleaseInfo`, :class:`CapabilitiesInfo`,
  :class:`TemplateSource`, :class:`RenderedObject`, :func:`new_context`
- :class:`LuaLimits`; :class:`WorkerPool`, :class:`InProcessSession`
- permissions: :data:`ALL_PERMISSIONS`, :func:`requested_permissions`, :func:`describe`
- :data:`EVENTS`, :data:`ACTIONS`: the events and, per action, their order
"""
from helm_core.lua.context import (
    CapabilitiesInfo,
    EventContext,
    ReleaseInfo,
    RenderedObject,
    TemplateSource,
    new_context,
)
from helm_core.lua.eventspec import ACTIONS, EVENTS
from helm_core.lua.events import ChartScripts, load_chart_scripts
from helm_core.lua.limits import LuaLimits
from helm_core.lua.permissions import ALL_PERMISSIONS, describe, requested_permissions
from helm_core.lua.worker import InProcessSession, WorkerPool, WorkerSession

__all__ = [
    "ACTIONS", "ALL_PERMISSIONS", "CapabilitiesInfo", "ChartScripts", "EVENTS", "EventContext",
    "InProcessSession", "LuaLimits", "ReleaseInfo", "RenderedObject", "TemplateSource",
    "WorkerPool", "WorkerSession", "describe", "load_chart_scripts", "new_context",
    "requested_permissions",
]
