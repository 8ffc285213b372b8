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
import os
import select
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

from helm_core import errors
from helm_core.lua import limits as limits_mod

HEADER = struct.Struct(">Q")
#: Seconds a new worker may take to import lupa and report ready.
STARTUP_TIMEOUT = 30.0
#: Bytes of protocol overhead allowed on top of ``LuaLimits.max_bytes`` per reply.
REPLY_SLACK = 1024 * 1024
#: CPU seconds a worker may use in its life: a backstop should its parent die while
#: the worker is stuck (the parent's kill is the real limit).
WORKER_CPU_SECONDS = 600
#: Linux prctl option: signal to receive when the parent dies.
_PR_SET_PDEATHSIG = 1

_BOOT = "import sys; sys.path.insert(0, sys.argv[1]); from helm_core.lua import worker; worker.main()"


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
        root = str(Path(__file__).resolve().parents[2])
        self._proc = subprocess.Popen(
            [sys.executable, "-I", "-c", _BOOT, root],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env={}, close_fds=True, start_new_session=True)
        self._ready = False
        self._max_reply = max_reply_bytes + REPLY_SLACK
        self.pid = self._proc.pid
        #: Called once after :meth:`close` (the pool uses it to start the next spare).
        self.on_close: Callable[[], None] | None = None

    def call(self, request: Mapping[str, Any], *, timeout: float) -> dict[str, Any]:
        if self._proc.poll() is not None:
            raise errors.LuaError("the Lua worker process is gone")
        self.wait_ready()
        data = json.dumps(request, separators=(",", ":")).encode("utf-8")
        try:
            assert self._proc.stdin is not None
            self._proc.stdin.write(HEADER.pack(len(data)) + data)
            self._proc.stdin.flush()
        except OSError:
            self.kill()
            raise errors.LuaError("the Lua worker process died") from None
        what = f"{request.get('op')} {request.get('event', '')}".strip()
        return self._read(time.monotonic() + timeout, what, timeout=timeout)

    def wait_ready(self) -> None:
        """Block until the worker has imported lupa and reported ready."""
        if not self._ready:
            self._read(time.monotonic() + STARTUP_TIMEOUT, "starting the Lua worker")
            self._ready = True

    def _read(self, deadline: float, what: str, *, timeout: float = STARTUP_TIMEOUT) -> dict[str, Any]:
        head = self._read_exact(HEADER.size, deadline, what, timeout)
        (size,) = HEADER.unpack(head)
        if size > self._max_reply:
            self.kill()
            raise errors.LuaError(f"Lua worker reply of {size} bytes is over the limit")
        body = self._read_exact(size, deadline, what, timeout)
        try:
            reply = json.loads(body.decode("utf-8"))
        except ValueError:
            self.kill()
            raise errors.LuaError("Lua worker sent a malformed reply") from None
        if not isinstance(reply, dict):
            self.kill()
            raise errors.LuaError("Lua worker sent a malformed reply")
        return reply

    def _read_exact(self, n: int, deadline: float, what: str, timeout: float) -> bytes:
        assert self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        chunks: list[bytes] = []
        got = 0
        while got < n:
            left = deadline - time.monotonic()
            ready = select.select([fd], [], [], max(left, 0))[0] if left > 0 else []
            if not ready:
                self.kill()
                raise errors.LuaError(f"Lua timed out after {timeout:g}s ({what}); the worker was killed")
            chunk = os.read(fd, min(n - got, 1 << 20))
            if not chunk:
                self.kill()
                raise errors.LuaError(f"the Lua worker process died ({what})")
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)

    def kill(self) -> None:
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()
        self._close_pipes()

    def _close_pipes(self) -> None:
        for pipe in (self._proc.stdin, self._proc.stdout):
            if pipe is not None:
                try:
                    pipe.close()
                except OSError:
                    pass

    def close(self) -> None:
        """End the worker at once: its state is disposable, and waiting for a Python
        interpreter to tear down costs ~100 ms. The exit is reaped in the background."""
        if self._proc.poll() is None:
            self._proc.kill()
            threading.Thread(target=self._proc.wait, name=f"reap-lua-worker-{self.pid}", daemon=True).start()
        self._close_pipes()
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
            if spare is None or spare._proc.poll() is not None:
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
    """Die with the parent, and after ``WORKER_CPU_SECONDS`` of CPU (best effort)."""
    import resource
    import signal

    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    try:
        resource.setrlimit(resource.RLIMIT_CPU, (WORKER_CPU_SECONDS, WORKER_CPU_SECONDS + 5))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
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
    proto_out = os.dup(1)
    os.dup2(2, 1)  # stray writes to stdout can no longer corrupt the protocol
    inp = sys.stdin.buffer
    dispatcher = Dispatcher()
    from helm_core.lua import sandbox  # noqa: F401 - import lupa before reporting ready

    def send(obj: Mapping[str, Any]) -> None:
        data = json.dumps(obj, separators=(",", ":")).encode("utf-8")
        os.write(proto_out, HEADER.pack(len(data)))
        view = memoryview(data)
        while view:
            n = os.write(proto_out, view)
            view = view[n:]

    _warm_up()
    send({"ok": True, "ready": True})
    while True:
        head = inp.read(HEADER.size)
        if len(head) < HEADER.size:
            return
        (size,) = HEADER.unpack(head)
        body = inp.read(size)
        try:
            request = json.loads(body.decode("utf-8"))
            reply = dispatcher.handle(request)
        except Exception as exc:  # noqa: BLE001 - report, never crash silently
            reply = {"ok": False, "log": [], "error": {"message": f"Lua worker error: {type(exc).__name__}: {exc}",
                                                       "chart": "", "file": "", "line": 0}}
        send(reply)
