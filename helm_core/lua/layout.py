"""Where chart Lua lives in a chart: ``ext/lua/`` and the module names of its files.

Kept apart from :mod:`sandbox` so that finding out whether a chart has Lua at all costs no
import of the Lua runtime (most charts have none).
"""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from helm_core.chart import model

#: A chart's extensions: its Lua (``ext/lua/``) and what that Lua asks for (``ext/permissions.yaml``).
EXT_DIR = "ext/"
LUA_DIR = EXT_DIR + "lua/"
MAIN_SCRIPT = LUA_DIR + "chart.lua"


def has_extensions(chart: model.Chart) -> bool:
    """Whether the chart or any subchart has files under ``ext/`` (without loading any Lua)."""
    return any(f.name.startswith(EXT_DIR) for f in chart.files) or any(
        has_extensions(sub) for sub in chart.dependencies)


def module_name(path: str) -> str | None:
    """``ext/lua/lib/util.lua`` -> ``lib.util``; None for files that are not modules."""
    if not path.startswith(LUA_DIR) or not path.endswith(".lua"):
        return None
    return path[len(LUA_DIR):-4].replace("/", ".")
