"""One chart's sandboxed Lua runtime (lupa, Lua 5.4).

Why this shape: security is the point. The runtime is created with
``register_eval=False``, ``register_builtins=False``, ``encoding=None`` (Python strings
are never turned into Lua strings implicitly) and an attribute filter that denies every
attribute. The trusted prelude (:mod:`helm_core.lua.prelude`) then scrubs the global
state and builds the whitelisted environment chart code runs in. Data crosses only
through :mod:`helm_core.lua.convert` (copies, limits). The only Python callable inside
is the HTTP client of a chart granted ``network``, held as an upvalue.

Limits: ``max_memory`` via lupa; instructions and CPU via the prelude's count hook. A C
function stuck in a pathological pattern is *not* stopped here: run runtimes in the
worker process (:mod:`helm_core.lua.worker`), whose wall-clock limit kills it.
"""
from __future__ import annotations

from collections.abc import Mapping, Set
from typing import Any

from lupa import lua54

from helm_core import errors
from helm_core.lua import convert, eventspec, libs, network, prelude
from helm_core.lua import limits as limits_mod
from helm_core.lua.layout import LUA_DIR, MAIN_SCRIPT, module_name

MAIN_MODULE = "chart"
#: How the prelude serializes each mutable part back (``value``: any data).
READ_MODES = {"templates": b"list", "objects": b"objects"}


def _deny_attributes(obj: object, name: object, is_setting: bool) -> object:
    raise AttributeError("access to Python attributes is denied")


class ChartRuntime:
    """The Lua runtime of one chart: loads ``ext/lua/chart.lua`` and runs its handlers.

    ``static`` holds the chart's read-only context parts built once: ``chart``,
    ``dependencies`` and ``files`` (see :func:`helm_core.lua.context.static_parts`).
    ``sources`` maps file names under ``ext/lua/`` to their text; ``files`` maps every
    chart file to its bytes (for the ``io`` permission)."""

    def __init__(self, *, chart: str, sources: Mapping[str, bytes], files: Mapping[str, bytes],
                 static: Mapping[str, Any], permissions: frozenset[str],
                 limits: limits_mod.LuaLimits) -> None:
        self.chart = chart
        self.limits = limits
        total = sum(len(s) for s in sources.values())
        if total > limits.max_source_bytes:
            raise errors.LuaError(
                f"ext/lua/ sources are {total} bytes, more than the limit of {limits.max_source_bytes}",
                chart=chart, file=LUA_DIR)
        modules = {module_name(p): src for p, src in sources.items() if module_name(p)}
        if MAIN_MODULE not in modules:
            raise errors.LuaError("ext/lua/chart.lua is missing", chart=chart, file=MAIN_SCRIPT)
        self._rt = lua54.LuaRuntime(
            register_eval=False, register_builtins=False, encoding=None,
            unpack_returned_tuples=True, attribute_filter=_deny_attributes,
            max_memory=limits.max_memory)
        api = self._rt.execute(prelude.PRELUDE, prelude.HOOK_STEP, self._rt.execute(libs.LIBS))
        self._api = api
        setup = self._data({
            "events": list(eventspec.EVENTS),
            "modules": {k: v for k, v in modules.items() if k != MAIN_MODULE},
            "files": dict(files),
            "permissions": {p: True for p in permissions},
            "static": dict(static),
        })
        api.set_known_events(setup[b"events"])
        fetch = network.make_fetch(timeout=limits.network_timeout_seconds,
                                   max_bytes=limits.network_max_bytes) if "network" in permissions else None
        self._env = api.new_env(chart.encode(), setup[b"modules"], setup[b"files"], setup[b"permissions"],
                                fetch, limits.max_modules, limits.max_log_bytes)
        static_tables = setup[b"static"]
        self._static = {k: api.readonly(static_tables[k.encode()], f"_.{k}".encode()) for k in static}
        self._main_source = modules[MAIN_MODULE]
        self.log: list[str] = []

    # -- running -----------------------------------------------------------------
    def _call(self, fn: Any, *args: Any) -> tuple[Any, ...]:
        """Run a prelude function under the limits; raise LuaError on failure."""
        lim = self.limits
        try:
            result = self._api.run(lim.max_instructions, lim.cpu_seconds, fn, *args)
        except lua54.LuaMemoryError:
            self._collect_log()
            raise self._error(f"memory limit of {lim.max_memory} bytes exceeded", *self._last_position()) from None
        except lua54.LuaError as exc:  # an error outside the xpcall: a bug or memory
            self._collect_log()
            raise self._error(f"lua failed: {_plain(exc)}", "", 0) from None
        self._collect_log()
        if not isinstance(result, tuple):
            result = (result,)
        if result[0] is True:
            values: tuple[Any, ...] = result[1:]
            return values
        err = result[1]
        is_table = lua54.lua_type(err) == "table"
        raw_msg = err[b"msg"] if is_table else None
        msg = raw_msg.decode("utf-8", "replace") if isinstance(raw_msg, bytes) else "error"
        raw_file = err[b"file"] if is_table else None
        file = raw_file.decode("utf-8", "replace") if isinstance(raw_file, bytes) else ""
        line = err[b"line"] if is_table else 0
        line = line if isinstance(line, int) else 0
        exceeded = self._api.exceeded()
        if exceeded == b"instructions":
            msg = f"instruction limit of {lim.max_instructions} exceeded"
        elif exceeded == b"time":
            msg = f"CPU time limit of {lim.cpu_seconds}s exceeded"
        elif msg == "not enough memory":
            msg = f"memory limit of {lim.max_memory} bytes exceeded"
            if not file:
                file, line = self._last_position()
        raise self._error(msg, file, int(line or 0))

    def _last_position(self) -> tuple[str, int]:
        """Where chart code last was, sampled by the count hook ("" if never)."""
        try:
            res = self._api.last_position()
        except lua54.LuaError:
            return "", 0
        file, line = res if isinstance(res, tuple) else (res, 0)
        return (file.decode("utf-8", "replace"), int(line)) if isinstance(file, bytes) else ("", 0)

    def _error(self, msg: str, file: str, line: int) -> errors.LuaError:
        where = f"{file}:{line}: " if file and line else (f"{file}: " if file else "")
        return errors.LuaError(f'chart "{self.chart}": {where}{msg}', chart=self.chart, file=file, line=line)

    def _collect_log(self) -> None:
        try:
            lines = self._api.take_log()
        except lua54.LuaError:
            return
        for _, line in sorted(lines.items()):
            self.log.append(line.decode("utf-8", "replace"))

    def take_log(self) -> list[str]:
        """``print`` output since the last call, oldest first."""
        out, self.log = self.log, []
        return out

    # -- API -----------------------------------------------------------------------
    def load(self) -> dict[str, int]:
        """Compile and run ``ext/lua/chart.lua`` (text only); returns handler counts by event."""
        fn, err = self._compile(self._main_source, MAIN_SCRIPT)
        if fn is None:
            raise self._syntax_error(err)
        self._call(self._api.load_main, fn)
        counts = self._api.handler_counts()
        return {k.decode(): int(v) for k, v in counts.items()}

    def _compile(self, src: bytes, name: str) -> tuple[Any, Any]:
        try:
            res = self._api.compile(src, name.encode(), self._env)
        except lua54.LuaError as exc:
            raise self._error(f"cannot compile: {_plain(exc)}", name, 0) from None
        return (res[0], res[1] if len(res) > 1 else None) if isinstance(res, tuple) else (res, None)

    def _syntax_error(self, err: Any) -> errors.LuaError:
        text = err.decode("utf-8", "replace") if isinstance(err, bytes) else "syntax error"
        file, line, msg = _split_position(text)
        return self._error(msg, file, line)

    def fire(self, event: str, parts: Mapping[str, Any]) -> dict[str, Any]:
        """Run this chart's handlers of ``event`` with the per-event context ``parts``
        (``release``, ``capabilities``, ``values``, ``templates``, ``objects``).

        Returns the mutable parts as changed by the handlers (fresh Python data);
        ``objects`` come back as ``{"source": ..., "object": ...}`` entries, where a new
        object has source ``None``."""
        spec = eventspec.EVENTS[event]
        api = self._api
        data = self._data(parts)
        box = self._rt.table()
        for k, v in self._static.items():
            box[k.encode()] = v
        for key in parts:
            value = data[key.encode()]
            box[key.encode()] = value if key in spec.mutable else api.readonly(value, f"_.{key}".encode())
        box[b"source"] = api.source_fn()
        mutable = self._rt.table_from({k.encode(): True for k in spec.mutable})
        ctx = api.context(box, mutable, event.encode())
        self._call(api.fire, event.encode(), ctx)
        return self._read_back(box, spec.mutable & set(parts), event)

    def _data(self, parts: Mapping[str, Any]) -> Any:
        """Python data -> a fresh Lua table (see :mod:`helm_core.lua.convert`)."""
        try:
            src = convert.lua_source(parts, self.limits)
            return self._api.data(src)
        except convert.ConversionError as exc:
            raise self._error(f"cannot pass context to Lua: {exc}", "", 0) from None
        except lua54.LuaMemoryError:
            raise self._error(f"memory limit of {self.limits.max_memory} bytes exceeded", "", 0) from None

    def _read_back(self, box: Any, keys: Set[str], event: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        lim = self.limits
        for key in sorted(keys):
            path = f"_.{key}"
            mode = READ_MODES.get(key, b"value")
            try:
                result = self._api.to_json(box[key.encode()], mode, lim.max_depth, lim.max_items, lim.max_bytes)
            except lua54.LuaMemoryError:
                raise self._error(f"memory limit of {lim.max_memory} bytes exceeded", "", 0) from None
            try:
                data = convert.from_lua(result, path)
                if key == "templates":
                    data = _templates(data, path)
                elif key == "objects":
                    for i, entry in enumerate(data, 1):
                        if not isinstance(entry["object"], dict):
                            raise convert.ConversionError("an object must be a table with string keys", f"{path}[{i}]")
                elif not isinstance(data, dict):
                    raise convert.ConversionError("must be a table with string keys", path)
            except convert.ConversionError as exc:
                raise self._error(f"bad data returned by {event} handlers: {exc}", "", 0) from None
            out[key] = data
        return out

    def memory_used(self) -> int:
        return int(self._rt.get_memory_used())


def _templates(data: list[Any], path: str) -> list[dict[str, Any]]:
    out = []
    for i, entry in enumerate(data, 1):
        p = f"{path}[{i}]"
        if not isinstance(entry, dict) or set(entry) - {"name", "data", "engine"}:
            raise convert.ConversionError("a template has only name, data and engine", p)
        for field in ("name", "data", "engine"):
            if not isinstance(entry.get(field, ""), str):
                raise convert.ConversionError("expected a string", f"{p}.{field}")
        if "name" not in entry or "data" not in entry:
            raise convert.ConversionError("a template needs a name and data", p)
        out.append({"name": entry["name"], "data": entry["data"].encode("utf-8"), "engine": entry.get("engine", "")})
    return out


def _plain(exc: BaseException) -> str:
    text = exc.args[0] if exc.args else ""
    if isinstance(text, bytes):
        return text.decode("utf-8", "replace")
    return str(text)


def _split_position(text: str) -> tuple[str, int, str]:
    """``ext/lua/x.lua:3: msg`` -> (``ext/lua/x.lua``, 3, ``msg``)."""
    head, sep, rest = text.partition(": ")
    file, colon, line = head.rpartition(":")
    if sep and colon and line.isdigit() and file.startswith(LUA_DIR):
        return file, int(line), rest
    return "", 0, text
