"""Where chart runtimes live: a killable worker process (default) or this process.

Why a process: the instruction hook cannot interrupt a C function (a pathological
``string.find`` pattern can run for hours), and a sandbox escape should land in a
throw-away process holding no credentials. The parent enforces the wall-clock limit by
killing the worker.

Protocol: frames of an 8-byte big-endian length and a JSON object, requests from the
parent, one reply each. JSON (not pickle) so a compromised worker can only send data.
Bytes travel as base64 at the fixed places the :class:`Dispatcher` documents.

The worker starts with ``python -I`` (no environment variables, no user site, no cwd on
the path) and an empty environment, so nothing of the parent's secrets is inherited
except what is in memory of a fresh interpreter: nothing.
"""
from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from helm_core import errors
from helm_core.isolation import process
from helm_core.lua import limits as limits_mod

#: Seconds a new worker may take to import lupa and report ready.
STARTUP_TIMEOUT = 30.0
#: Bytes of protocol overhead allowed on top of ``LuaLimits.max_bytes`` per reply.
REPLY_SLACK = 1024 * 1024
#: CPU seconds a worker may use in its life: a backstop should its parent die while
#: the worker is stuck (the parent's kill is the real limit).
WORKER_CPU_SECONDS = 600



def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def unb64(text: str) -> bytes:
    return base64.b64decode(text.encode("ascii"), validate=True)


class Session(Protocol):
    """A place chart runtimes live for one operation."""

    def call(self, request: Mapping[str, Any], *, timeout: float) -> dict[str, Any]:
        """Send one request, return its reply; raise LuaError on timeout or crash."""

    def close(self) -> None:
        """Drop every runtime (and the process, if any)."""


class Dispatcher:
    """Executes requests against :class:`~helm_core.lua.sandbox.ChartRuntime` objects.

    Requests (JSON-compatible dicts):

    - ``{"op": "load", "key", "chart", "sources": {path: b64}, "files": {path: b64},
      "static": {...}, "permissions": [...], "limits": {...}}`` →
      ``{"ok": true, "handlers": {event: count}, "log": [...]}``
    - ``{"op": "fire", "key", "event", "parts": {...}}`` with ``parts.templates[].data``
      in base64 → ``{"ok": true, "parts": {...}, "log": [...]}`` (same encoding)
    - failures → ``{"ok": false, "error": {"message", "chart", "file", "line"}, "log"}``
    """

    def __init__(self) -> None:
        self._runtimes: dict[str, Any] = {}

    def handle(self, request: Mapping[str, Any]) -> dict[str, Any]:
        from helm_core.lua import sandbox  # deferred: keeps the parent free of lupa until used

        op = request.get("op")
        runtime = None
        try:
            if op == "load":
                lim = limits_mod.LuaLimits(**request["limits"])
                runtime = sandbox.ChartRuntime(
                    chart=request["chart"],
                    sources={k: unb64(v) for k, v in request["sources"].items()},
                    files={k: unb64(v) for k, v in request["files"].items()},
                    static=request["static"], permissions=frozenset(request["permissions"]),
                    limits=lim)
                self._runtimes[request["key"]] = runtime
                handlers = runtime.load()
                return {"ok": True, "handlers": handlers, "log": runtime.take_log()}
            if op == "fire":
                runtime = self._runtimes[request["key"]]
                parts = _decode_parts(request["parts"])
                out = runtime.fire(request["event"], parts)
                return {"ok": True, "parts": _encode_parts(out), "log": runtime.take_log()}
            return _failure(errors.LuaError(f"unknown worker request {op!r}"), [])
        except errors.LuaError as exc:
            return _failure(exc, runtime.take_log() if runtime is not None else [])

    def close(self) -> None:
        self._runtimes.clear()


def _failure(exc: errors.LuaError, log: list[str]) -> dict[str, Any]:
    return {"ok": False, "log": log,
            "error": {"message": str(exc), "chart": exc.chart, "file": exc.file, "line": exc.line}}


def _encode_parts(parts: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(parts)
    if "templates" in out:
        out["templates"] = [dict(t, data=b64(t["data"])) for t in out["templates"]]
    return out


def _decode_parts(parts: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(parts)
    if "templates" in out:
        out["templates"] = [dict(t, data=unb64(t["data"])) for t in out["templates"]]
    return out


def encode_parts(parts: Mapping[str, Any]) -> dict[str, Any]:
    """Parts with template bytes as base64, as :class:`Dispatcher` takes them."""
    return _encode_parts(parts)


def decode_parts(parts: Mapping[str, Any]) -> dict[str, Any]:
    """The inverse of :func:`encode_parts`."""
    return _decode_parts(parts)


class InProcessSession:
    """Runtimes in this process: fast, used by tests and as the benchmark baseline.

    It cannot stop a C function stuck in a pathological pattern (``timeout`` is not
    enforced here); use :class:`WorkerSession` for untrusted charts."""

    def __init__(self) -> None:
        self._dispatcher = Dispatcher()

    def call(self, request: Mapping[str, Any], *, timeout: float) -> dict[str, Any]:
        return self._dispatcher.handle(json.loads(json.dumps(request)))

    def close(self) -> None:
        self._dispatcher.close()


class WorkerSession:
    """One worker process; requests are answered in order, each within ``timeout``."""

    def __init__(self, *, max_reply_bytes: int = limits_mod.LuaLimits().max_bytes) -> None:
        self._worker = process.WorkerProcess("helm_core.lua.worker", json_requests=True, quiet=True)
        self._max_reply = max_reply_bytes + REPLY_SLACK
        self.pid = self._worker.pid
        #: Called once after :meth:`close` (the pool uses it to start the next spare).
        self.on_close: Callable[[], None] | None = None

    @property
    def alive(self) -> bool:
        return self._worker.alive

    def call(self, request: Mapping[str, Any], *, timeout: float) -> dict[str, Any]:
        if not self._worker.alive:
            raise errors.LuaError("the Lua worker process is gone")
        self.wait_ready()
        what = f"{request.get('op')} {request.get('event', '')}".strip()
        try:
            return self._worker.request(request, deadline=time.monotonic() + timeout,
                                        max_reply=self._max_reply)
        except process.WorkerTimedOut:
            raise errors.LuaError(f"Lua timed out after {timeout:g}s ({what}); the worker was killed") from None
        except process.ReplyTooLarge as exc:
            raise errors.LuaError(f"Lua worker reply of {exc.size} bytes is over the limit") from None
        except process.WorkerDied as exc:
            raise errors.LuaError(f"the Lua worker process died ({what}: {exc.how})") from None

    def wait_ready(self) -> None:
        """Block until the worker has imported lupa and reported ready."""
        try:
            self._worker.wait_ready(STARTUP_TIMEOUT)
        except process.WorkerTimedOut:
            raise errors.LuaError(f"Lua timed out after {STARTUP_TIMEOUT:g}s (starting the Lua worker); "
                                  "the worker was killed") from None
        except process.WorkerDied as exc:
            raise errors.LuaError(f"the Lua worker process died (starting the Lua worker: {exc.how})") from None

    def wait(self, timeout: float) -> int:
        """The worker's exit status once it has ended."""
        return self._worker.wait(timeout)

    def kill(self) -> None:
        self._worker.close()

    def close(self) -> None:
        """End the worker at once: its state is disposable, and waiting for a Python
        interpreter to tear down costs time nobody needs. The exit is reaped in the background."""
        self._worker.close()
        callback, self.on_close = self.on_close, None
        if callback is not None:
            callback()


class WorkerPool:
    """Keeps one started worker ready so an operation does not pay interpreter startup.

    Each :meth:`session` hands out a fresh process (one per operation: charts of two
    operations never share a process); the next spare starts when that session closes,
    so its interpreter startup does not compete with the operation for CPU."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._spare: WorkerSession | None = None
        self._closed = False

    def warm(self, *, wait: bool = False) -> None:
        """Start the spare worker now (e.g. when the program starts); ``wait`` blocks
        until it is ready."""
        with self._lock:
            if self._spare is None:
                self._spare = WorkerSession()
            if wait:
                self._spare.wait_ready()

    def session(self) -> WorkerSession:
        with self._lock:
            spare, self._spare = self._spare, None
            if spare is None or not spare.alive:
                spare = WorkerSession()
            spare.on_close = self._refill
            return spare

    def _refill(self) -> None:
        with self._lock:
            if self._spare is None and not self._closed:
                self._spare = WorkerSession()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._spare is not None:
                self._spare.close()
                self._spare = None


def _backstops() -> None:
    """A worker's backstops (:func:`process.worker_backstops`), and death after
    ``WORKER_CPU_SECONDS`` of CPU (best effort)."""
    import resource

    process.worker_backstops()
    try:
        resource.setrlimit(resource.RLIMIT_CPU, (WORKER_CPU_SECONDS, WORKER_CPU_SECONDS + 5))
    except (ValueError, OSError):
        pass


_WARM_UP_CHART = b'events.on("pre-render", function(_) _.values.n = #_.templates end)'


def _warm_up() -> None:
    """Run one tiny chart through every code path before reporting ready, so the first
    real operation does not pay for cold caches (a few ms)."""
    dispatcher = Dispatcher()
    dispatcher.handle({"op": "load", "key": "w", "chart": "warm-up",
                       "sources": {"ext/lua/chart.lua": b64(_WARM_UP_CHART)}, "files": {},
                       "static": {"chart": {"name": "warm-up"}}, "permissions": [],
                       "limits": {}})
    dispatcher.handle({"op": "fire", "key": "w", "event": "pre-render",
                       "parts": {"values": {"a": [1.5, "x", True]}, "templates": []}})
    dispatcher.close()


def main() -> None:
    """Worker entry point: serve requests from stdin until it closes."""
    _backstops()
    channel = process.Channel(json_requests=True)
    dispatcher = Dispatcher()
    from helm_core.lua import sandbox  # noqa: F401 - import lupa before reporting ready

    _warm_up()
    channel.send({"ok": True, "ready": True})
    while True:
        try:
            request = channel.receive()
        except ValueError:
            request = {"op": "malformed"}
        if request is None:
            return
        try:
            reply = dispatcher.handle(request)
        except Exception as exc:  # noqa: BLE001 - report, never crash silently
            reply = {"ok": False, "log": [], "error": {"message": f"Lua worker error: {type(exc).__name__}: {exc}",
                                                       "chart": "", "file": "", "line": 0}}
        channel.send(reply)
