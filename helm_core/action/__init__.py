"""Release actions, one module per action (Helm's ``pkg/action``): ``helm_core.actions`` in the
public API. Modules load on first use (``helm_core.actions.install``), so importing this package
costs nothing."""
from __future__ import annotations

from helm_core.support import lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

ACTIONS = ("claim", "config", "crds", "drift", "events", "get", "history", "hooks", "install", "list", "rollback",
           "status", "template", "test", "uninstall", "upgrade", "values_options", "version_events")


def __getattr__(name: str) -> Any:
    if name not in ACTIONS:
        raise AttributeError(f"module 'helm_core.action' has no attribute {name!r}")
    return lazy.import_module(f"helm_core.action.{name}")
