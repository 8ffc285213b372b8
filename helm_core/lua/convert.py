"""Copy plain data between Python and a chart's Lua runtime, never sharing objects.

Rules (why: no Python object may ever reach chart code, and nothing chart code returns
may be trusted):

- Python → Lua accepts ``None``, ``bool``, ``int``, ``float``, ``str`` (sent as UTF-8
  bytes), ``bytes``, mappings with ``str`` keys and lists/tuples; lists become Lua
  tables marked as arrays so an emptied list stays a list. Anything else is refused.
  Integers outside int64 become floats (Go reads such numbers as float64 too).
- Lua → Python builds fresh ``dict``/``list``/scalars with raw iteration only (no
  metamethod of chart code runs on the trusted side). Strings must be UTF-8. A table
  with keys exactly ``1..n`` (or an empty table marked with ``array()``) is a list; any
  other table needs string keys. Functions, userdata and coroutines are refused.
- Both directions enforce :class:`~helm_core.lua.limits.LuaLimits` depth, item and byte
  limits, so cycles and shared-subtable bombs fail instead of exploding.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from lupa import lua54

from helm_core.lua import limits as limits_mod

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
#: Bytes counted per table/list node on top of string lengths, for the size limit.
NODE_OVERHEAD = 16
#: Longest data path quoted whole in an error message; longer ones are shortened.
MAX_PATH_SHOWN = 120


class ConversionError(Exception):
    """Data could not cross the boundary; ``path`` says where (``values.a[2]``)."""

    def __init__(self, message: str, path: str) -> None:
        shown = path if len(path) <= MAX_PATH_SHOWN else f"{path[:40]}...{path[-60:]}"
        super().__init__(f"{shown}: {message}" if path else message)
        self.path = path


def _key_path(path: str, key: object) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


class _Budget:
    """Counts items and bytes of one conversion against the limits."""

    def __init__(self, lim: limits_mod.LuaLimits) -> None:
        self.limits = lim
        self.items = 0
        self.bytes = 0

    def take(self, path: str, depth: int, nbytes: int = NODE_OVERHEAD) -> None:
        lim = self.limits
        self.items += 1
        self.bytes += nbytes
        if depth > lim.max_depth:
            raise ConversionError(f"data nested deeper than {lim.max_depth} levels", path)
        if self.items > lim.max_items:
            raise ConversionError(f"more than {lim.max_items} items", path)
        if self.bytes > lim.max_bytes:
            raise ConversionError(f"more than {lim.max_bytes} bytes", path)


class ToLua:
    """Builds Lua tables from Python data in one runtime (see module rules)."""

    def __init__(self, runtime: lua54.LuaRuntime, mark_array: Any, lim: limits_mod.LuaLimits) -> None:
        self._rt = runtime
        self._mark = mark_array
        self._limits = lim

    def convert(self, value: Any, path: str = "") -> Any:
        """Return a Lua value (or Python scalar lupa passes by value) for ``value``."""
        return self._conv(value, path, 0, _Budget(self._limits))

    def _conv(self, value: Any, path: str, depth: int, budget: _Budget) -> Any:
        if value is None or isinstance(value, bool):
            budget.take(path, depth)
            return value
        if isinstance(value, int):
            budget.take(path, depth)
            return value if INT64_MIN <= value <= INT64_MAX else float(value)
        if isinstance(value, float):
            budget.take(path, depth)
            return value
        if isinstance(value, str):
            data = value.encode("utf-8", "surrogateescape")
            budget.take(path, depth, len(data))
            return data
        if isinstance(value, (bytes, bytearray)):
            budget.take(path, depth, len(value))
            return bytes(value)
        if isinstance(value, Mapping):
            budget.take(path, depth)
            items = {}
            for k, v in value.items():
                if not isinstance(k, str):
                    raise ConversionError(f"map key {k!r} is not a string", path)
                items[k.encode("utf-8", "surrogateescape")] = self._conv(v, _key_path(path, k), depth + 1, budget)
            return self._rt.table_from(items)
        if isinstance(value, (list, tuple)):
            budget.take(path, depth)
            conv = [self._conv(v, _key_path(path, i + 1), depth + 1, budget) for i, v in enumerate(value)]
            return self._mark(self._rt.table_from(conv))
        raise ConversionError(f"cannot pass a Python {type(value).__name__} to Lua", path)


def from_lua(value: Any, lim: limits_mod.LuaLimits, *, arrays: Any, path: str = "") -> Any:
    """Copy a Lua value into fresh Python data; ``arrays`` is the runtime's weak set of
    tables marked as lists. Raises :class:`ConversionError` naming the path."""
    return _from(value, path, 0, _Budget(lim), arrays)


def lua_string(value: Any, path: str) -> str:
    """A Lua string as ``str``; refuses other types and invalid UTF-8."""
    if not isinstance(value, bytes):
        raise ConversionError(f"expected a string, got {_lua_type_name(value)}", path)
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        raise ConversionError("string is not valid UTF-8", path) from None


def lua_bytes(value: Any, path: str) -> bytes:
    """A Lua string as ``bytes``; refuses other types."""
    if not isinstance(value, bytes):
        raise ConversionError(f"expected a string, got {_lua_type_name(value)}", path)
    return value


def is_table(value: Any) -> bool:
    return lua54.lua_type(value) == "table"


def raw_items(table: Any) -> list[tuple[Any, Any]]:
    """A table's pairs by raw ``next`` (lupa iterates with lua_next; no ``__pairs``)."""
    return list(table.items())


def _lua_type_name(value: Any) -> str:
    kind = lua54.lua_type(value)
    if kind is not None:
        return "a " + kind
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, bytes):
        return "a string"
    return "an unknown value"


def _from(value: Any, path: str, depth: int, budget: _Budget, arrays: Any) -> Any:
    if value is None or isinstance(value, bool) or isinstance(value, int):
        budget.take(path, depth)
        return value
    if isinstance(value, float):
        budget.take(path, depth)
        if math.isnan(value) or math.isinf(value):
            raise ConversionError("NaN and infinite numbers cannot be values", path)
        return value
    if isinstance(value, bytes):
        budget.take(path, depth, len(value))
        return lua_string(value, path)
    kind = lua54.lua_type(value)
    if kind != "table":
        raise ConversionError(
            "cannot return a function, coroutine or userdata from Lua "
            "(only strings, numbers, booleans and tables)", path)
    budget.take(path, depth)
    items = raw_items(value)
    if not items:
        return [] if arrays[value] else {}
    if all(isinstance(k, int) and not isinstance(k, bool) for k, _ in items):
        keys = sorted(k for k, _ in items)
        if keys[0] == 1 and keys[-1] == len(keys):
            by_key = dict(items)
            return [_from(by_key[i], _key_path(path, i), depth + 1, budget, arrays) for i in keys]
    out: dict[str, Any] = {}
    for k, v in items:
        if not isinstance(k, bytes):
            raise ConversionError(
                f"table has {_lua_type_name(k).split(' ', 1)[1]} key; maps need string keys "
                "and lists keys 1..n", path)
        key = lua_string(k, path)
        out[key] = _from(v, _key_path(path, key), depth + 1, budget, arrays)
    return out
