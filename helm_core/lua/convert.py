"""Copy plain data between Python and a chart's Lua runtime, never sharing objects.

Why this shape: no Python object may ever reach chart code, nothing chart code returns
may be trusted, and crossing must be cheap (post-render sees every rendered object).

- Python → Lua: :func:`lua_source` writes the data as a Lua table constructor
  (``{["k"]=A{[1]=1.5}}``); the prelude compiles it in text mode with an environment
  holding only the markers ``A`` (this table is a list, even when empty) and ``S``
  (this object came from that template). Every string is written with ``\\ddd``
  escapes for anything but printable ASCII, so data can never become code. Accepted:
  ``None`` (nil), ``bool``, ``int`` (outside int64 becomes a float, as Go reads such
  numbers), ``float``, ``str`` (UTF-8), ``bytes``, mappings with ``str`` keys,
  lists/tuples.
- Lua → Python: the prelude's ``to_json`` serializes with raw access only (no
  metamethod of chart code runs), refusing functions, userdata, coroutines, non-UTF-8
  strings, NaN/infinity and tables that are neither lists (keys ``1..n``, or marked) nor
  maps with string keys; :func:`from_lua` parses that JSON. A marked list keeps its
  holes as ``None``.
- Both directions enforce the :class:`~helm_core.lua.limits.LuaLimits` depth, item and
  byte limits, so cycles and shared-subtable bombs fail instead of exploding.
"""
from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from helm_core.lua import limits as limits_mod

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
#: Longest data path quoted whole in an error message; longer ones are shortened.
MAX_PATH_SHOWN = 120

_NEEDS_ESCAPE = re.compile(rb'[^\x20-\x7e]|["\\]')
_ESCAPES = [b"\\%03d" % i for i in range(256)]


class ConversionError(Exception):
    """Data could not cross the boundary; ``path`` says where (``_.values.a[2]``)."""

    def __init__(self, message: str, path: str) -> None:
        shown = path if len(path) <= MAX_PATH_SHOWN else f"{path[:40]}...{path[-60:]}"
        super().__init__(f"{shown}: {message}" if path else message)
        self.path = path


def join_path(base: str, keys: list[Any]) -> str:
    """``_.values`` + ``["a", 2]`` -> ``_.values.a[2]``."""
    parts = [base]
    for k in keys:
        parts.append(f"[{k}]" if isinstance(k, int) else f".{k}")
    return "".join(parts)


def _escape(match: re.Match[bytes]) -> bytes:
    return _ESCAPES[match.group()[0]]


def lua_string(data: bytes) -> bytes:
    """A Lua string literal for ``data`` that is always plain ASCII."""
    return b'"' + _NEEDS_ESCAPE.sub(_escape, data) + b'"'


class _Writer:
    """Writes one Lua constructor, counting against the limits."""

    def __init__(self, lim: limits_mod.LuaLimits) -> None:
        self.limits = lim
        self.items = 0
        self.bytes = 0
        self.out: list[bytes] = []
        self.keys: list[Any] = []

    def fail(self, message: str, base: str) -> ConversionError:
        return ConversionError(message, join_path(base, self.keys))

    def value(self, v: Any, depth: int, base: str) -> None:
        self.items += 1
        if self.items > self.limits.max_items:
            raise self.fail(f"more than {self.limits.max_items} items", base)
        out = self.out
        t = type(v)
        if t is str:
            data = v.encode("utf-8", "surrogateescape")
            self._count_bytes(len(data), base)
            out.append(lua_string(data))
        elif t is bool:
            out.append(b"true" if v else b"false")
        elif t is int:
            if INT64_MIN < v <= INT64_MAX:
                out.append(b"%d" % v)
            elif v == INT64_MIN:
                out.append(b"(-9223372036854775807-1)")
            else:
                self._float(float(v))
        elif t is float:
            self._float(v)
        elif v is None:
            out.append(b"nil")
        elif isinstance(v, Mapping):
            self._depth(depth, base)
            out.append(b"{")
            for k, x in v.items():
                if not isinstance(k, str):
                    raise self.fail(f"map key {k!r} is not a string", base)
                kb = k.encode("utf-8", "surrogateescape")
                self._count_bytes(len(kb), base)
                out.append(b"[" + lua_string(kb) + b"]=")
                self.keys.append(k)
                self.value(x, depth + 1, base)
                self.keys.pop()
                out.append(b",")
            out.append(b"}")
        elif isinstance(v, (list, tuple)):
            self._depth(depth, base)
            out.append(b"A{")
            for i, x in enumerate(v, 1):
                out.append(b"[%d]=" % i)
                self.keys.append(i)
                self.value(x, depth + 1, base)
                self.keys.pop()
                out.append(b",")
            out.append(b"}")
        elif isinstance(v, (bytes, bytearray)):
            self._count_bytes(len(v), base)
            out.append(lua_string(bytes(v)))
        else:
            raise self.fail(f"cannot pass a Python {type(v).__name__} to Lua", base)

    def _float(self, v: float) -> None:
        if math.isnan(v):
            self.out.append(b"(0/0)")
        elif math.isinf(v):
            self.out.append(b"(1/0)" if v > 0 else b"(-1/0)")
        else:
            self.out.append(repr(v).encode())

    def _depth(self, depth: int, base: str) -> None:
        if depth >= self.limits.max_depth:
            raise self.fail(f"data nested deeper than {self.limits.max_depth} levels", base)

    def _count_bytes(self, n: int, base: str) -> None:
        self.bytes += n
        if self.bytes > self.limits.max_bytes:
            raise self.fail(f"more than {self.limits.max_bytes} bytes", base)


def lua_source(parts: Mapping[str, Any], lim: limits_mod.LuaLimits, *,
               objects_key: str = "objects") -> bytes:
    """``return {["name"]=<data>, ...}`` for the context parts; the ``objects`` part is
    a list of ``{"source", "object"}`` entries, written as marked objects."""
    w = _Writer(lim)
    w.out.append(b"return {")
    for key, value in parts.items():
        base = f"_.{key}"
        w.out.append(b"[" + lua_string(key.encode()) + b"]=")
        if key == objects_key:
            w.out.append(b"A{")
            for i, entry in enumerate(value, 1):
                w.keys.append(i)
                src = entry.get("source")
                w.out.append(b"[%d]=S(" % i)
                w.value(entry["object"], 1, base)
                w.out.append(b"," + (lua_string(src.encode()) if src else b"nil") + b"),")
                w.keys.pop()
            w.out.append(b"}")
        else:
            w.value(value, 0, base)
        w.out.append(b",")
    w.out.append(b"}")
    return b"".join(w.out)


def from_lua(result: tuple[Any, ...] | Any, base: str) -> Any:
    """Parse what the prelude's ``to_json`` returned, or raise ConversionError."""
    if isinstance(result, tuple) and result and result[0] is False:
        msg = result[1].decode("utf-8", "replace") if isinstance(result[1], bytes) else "bad data"
        keys = [k.decode("utf-8", "replace") if isinstance(k, bytes) else k
                for _, k in sorted(result[2].items())] if len(result) > 2 else []
        raise ConversionError(msg, join_path(base, keys))
    text = result[0] if isinstance(result, tuple) else result
    return json.loads(text)
