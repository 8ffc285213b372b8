"""The lifecycle events chart Lua may answer, and which context parts each may change.

Rules (docs/lua.md, "Events and order" and "The context"): ``values`` and ``templates`` are
mutable before rendering (``chart-loaded``, ``pre-render``); ``objects`` after rendering and
before they are used (``post-render`` and the ``pre-*`` events of the action,
``post-template``). Events after the cluster was changed see everything read-only: changing
it there would have no effect, so it is an error rather than a silent no-op.

``ACTIONS`` lists, per action, the optional events in the order the action emits them
(core steps such as render and install have one internal implementation each and are
not listed).
"""
from __future__ import annotations

from collections.abc import Mapping

from helm_core.support.records import record


@record(frozen=True)
class EventSpec:
    """One event: ``mutable`` names the context parts handlers may change."""

    name: str
    mutable: frozenset[str] = frozenset()


_BEFORE_RENDER = frozenset({"values", "templates"})
_AFTER_RENDER = frozenset({"objects"})

EVENTS: Mapping[str, EventSpec] = {
    spec.name: spec
    for spec in (
        EventSpec("chart-loaded", _BEFORE_RENDER),
        EventSpec("pre-render", _BEFORE_RENDER),
        EventSpec("post-render", _AFTER_RENDER),
        EventSpec("post-template", _AFTER_RENDER),
        EventSpec("pre-lint", _AFTER_RENDER),
        EventSpec("pre-install", _AFTER_RENDER),
        EventSpec("post-install"),
        EventSpec("pre-upgrade", _AFTER_RENDER),
        EventSpec("post-upgrade"),
        EventSpec("pre-rollback", _AFTER_RENDER),
        EventSpec("post-rollback"),
        EventSpec("pre-delete"),
        EventSpec("post-delete"),
        EventSpec("pre-test", _AFTER_RENDER),
        EventSpec("post-test"),
        EventSpec("failed-test"),
        EventSpec("wait"),
        EventSpec("ready"),
    )
}

#: Optional events per action, in emission order; ``wait``/``ready`` only with --wait.
ACTIONS: Mapping[str, tuple[str, ...]] = {
    "template": ("chart-loaded", "pre-render", "post-render", "post-template"),
    "lint": ("chart-loaded", "pre-render", "post-render", "pre-lint"),
    "install": ("chart-loaded", "pre-render", "post-render", "pre-install", "post-install",
                "wait", "ready"),
    "upgrade": ("chart-loaded", "pre-render", "post-render", "pre-upgrade", "post-upgrade",
                "wait", "ready"),
    # These three work from a stored version and its kept Lua (helm_core.action.version_events):
    # no chart is loaded or rendered.
    "rollback": ("pre-rollback", "post-rollback", "wait", "ready"),
    "uninstall": ("pre-delete", "post-delete"),
    "test": ("pre-test", "post-test", "failed-test"),
}
