"""Limits of chart Lua, as one frozen settings object with sane defaults."""
from __future__ import annotations

from helm_core.support.records import record

MIB = 1024 * 1024
#: Deepest nesting data may have: Lua's parser needs registers per level of the table
#: constructors data crosses in (helm_core.lua.convert), and ~120 levels is its limit.
MAX_DEPTH_CAP = 100


@record(frozen=True)
class LuaLimits:
    """What one chart's Lua may use. Each call into a chart's runtime (loading
    ``chart.lua``, or one event's handlers of that chart) gets the instruction and CPU
    budgets afresh; memory is per chart runtime for its whole life."""

    max_memory: int = 64 * MIB
    """Bytes a chart runtime may allocate (lupa ``max_memory``); 64 MiB fits large values."""

    max_instructions: int = 100_000_000
    """Lua VM instructions per call, counted by a hook; about 2 s of pure Lua."""

    cpu_seconds: float = 5.0
    """Process CPU time per call, checked by the same hook (Lua code only)."""

    timeout_seconds: float = 30.0
    """Wall clock per request to the worker process (a load or one event over all
    charts); the worker is killed when it passes, which also stops a C function stuck
    in a pathological pattern. Network calls count against it."""

    max_depth: int = MAX_DEPTH_CAP
    """Nesting depth of data crossing between Python and Lua (at most ``MAX_DEPTH_CAP``)."""

    max_items: int = 1_000_000
    """Scalars plus tables in one crossing (stops shared-subtable bombs)."""

    max_bytes: int = 64 * MIB
    """String bytes (plus a small per-node overhead) in one crossing."""

    max_modules: int = 100
    """Modules one chart may ``require``."""

    max_source_bytes: int = 4 * MIB
    """Total size of a chart's ``ext/lua/`` sources."""

    max_log_bytes: int = 1 * MIB
    """Bytes of ``print`` output kept per chart; the rest is dropped with a note."""

    network_timeout_seconds: float = 10.0
    """Socket timeout of one ``network.get`` (permission ``network``)."""

    network_max_bytes: int = 4 * MIB
    """Largest response body ``network.get`` accepts."""

    def __post_init__(self) -> None:
        if not 1 <= self.max_depth <= MAX_DEPTH_CAP:
            raise ValueError(f"LuaLimits.max_depth must be from 1 to {MAX_DEPTH_CAP}, got {self.max_depth}")
