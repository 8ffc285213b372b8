"""Where chart Lua lives in a chart: ``ext/lua/`` and the module names of its files.

Kept apart from :mod:`sandbox` so that finding out whether a chart has Lua at all costs no
import of the Lua runtime (most charts have none).
"""
from __future__ import annotations

LUA_DIR = "ext/lua/"
MAIN_SCRIPT = LUA_DIR + "chart.lua"


def module_name(path: str) -> str | None:
    """``ext/lua/lib/util.lua`` -> ``lib.util``; None for files that are not modules."""
    if not path.startswith(LUA_DIR) or not path.endswith(".lua"):
        return None
    return path[len(LUA_DIR):-4].replace("/", ".")
