"""Chart Lua: lifecycle-event handlers in ``ext/lua/``, run in a sandbox (docs/lua.md).

Public API (import the modules, e.g. ``from helm_core import lua``):

- :func:`load_chart_scripts` → :class:`ChartScripts` (``fire(event, ctx)``, ``close()``)
- :class:`EventContext`, :class:`ReleaseInfo`, :class:`CapabilitiesInfo`,
  :class:`TemplateSource`, :class:`RenderedObject`, :func:`new_context`
- :class:`LuaLimits`; :class:`WorkerPool`, :class:`InProcessSession`
- permissions: :data:`ALL_PERMISSIONS`, :func:`requested_permissions`, :func:`describe`
- :data:`EVENTS`, :data:`ACTIONS`: the events and, per action, their order
"""
from __future__ import annotations

from helm_core.support import lazy

# Names resolve on first use (PEP 562): a chart without Lua never imports the sandbox, lupa
# or the worker machinery, which keeps `helm-core template` start-up short.
_HOMES = {
    "CapabilitiesInfo": "context", "EventContext": "context", "ReleaseInfo": "context",
    "RenderedObject": "context", "TemplateSource": "context", "new_context": "context",
    "ACTIONS": "eventspec", "EVENTS": "eventspec",
    "ChartScripts": "events", "load_chart_scripts": "events",
    "LuaLimits": "limits",
    "ALL_PERMISSIONS": "permissions", "describe": "permissions", "requested_permissions": "permissions",
    "InProcessSession": "worker", "WorkerPool": "worker", "WorkerSession": "worker",
}

TYPE_CHECKING = False
if TYPE_CHECKING:
    from helm_core.lua.context import (
        CapabilitiesInfo,
        EventContext,
        ReleaseInfo,
        RenderedObject,
        TemplateSource,
        new_context,
    )
    from helm_core.lua.events import ChartScripts, load_chart_scripts
    from helm_core.lua.eventspec import ACTIONS, EVENTS
    from helm_core.lua.limits import LuaLimits
    from helm_core.lua.permissions import ALL_PERMISSIONS, describe, requested_permissions
    from helm_core.lua.worker import InProcessSession, WorkerPool, WorkerSession


__getattr__ = lazy.exports(__name__, _HOMES, globals())


__all__ = [
    "ACTIONS", "ALL_PERMISSIONS", "CapabilitiesInfo", "ChartScripts", "EVENTS", "EventContext",
    "InProcessSession", "LuaLimits", "ReleaseInfo", "RenderedObject", "TemplateSource",
    "WorkerPool", "WorkerSession", "describe", "load_chart_scripts", "new_context",
    "requested_permissions",
]
