"""One render worker process, seen from the parent: start, ask, enforce the clock, kill.

Framing: an 8-byte big-endian length, then the body. The parent sends pickles (the worker
trusts its parent: charts and options are model objects); the worker answers in JSON only,
so a worker a chart managed to subvert can send data, never code. While it works on a
request the worker may ask the parent something (``{"op": "lookup", ...}``): the parent
answers with ``{"op": "reply", ...}`` and goes on waiting for the final answer.

The worker starts with ``python -I`` and an empty environment: it inherits no credentials.
"""
from __future__ import annotations

import json
import os
import select
import signal
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from helm_core.support import pickling

HEADER = struct.Struct(">Q")
#: Seconds a new worker may take to import the engine and say it is ready.
STARTUP_TIMEOUT_S = 60.0
_BOOT = ("import sys, importlib; sys.path.insert(0, sys.argv[1]); "
         "importlib.import_module(sys.argv[2]).main()")
#: The module whose ``main()`` a render worker runs.
RENDER_WORKER = "helm_core.isolation.serve"


class WorkerDied(Exception):
    """The worker ended before answering: ``signal`` (e.g. SIGSEGV, SIGXCPU) or exit code."""

    def __init__(self, how: str, *, signum: int = 0) -> None:
        super().__init__(how)
        self.how = how
        self.signum = signum


class WorkerTimedOut(Exception):
    """The deadline passed before the answer came; the worker has been killed."""


class ReplyTooLarge(Exception):
    """The worker announced a reply over the allowed size (``size``); it has been killed."""

    def __init__(self, size: int) -> None:
        super().__init__(f"{size} bytes")
        self.size = size


class WorkerProcess:
    """A started worker running ``module``'s ``main()``. Not thread-safe: one caller at a time
    (the pools see to it). ``json_requests``: requests go as JSON too (the Lua worker, whose
    requests carry only data); ``quiet``: the worker's stderr is dropped."""

    def __init__(self, module: str = RENDER_WORKER, *, json_requests: bool = False,
                 quiet: bool = False) -> None:
        root = str(Path(__file__).resolve().parents[2])
        self._json_requests = json_requests
        self._proc = subprocess.Popen(
            [sys.executable, "-I", "-c", _BOOT, root, module],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL if quiet else None, env={}, start_new_session=True)
        self.pid = self._proc.pid
        self.ready = False
        self._ended = False
        self.recent: list[str] = []
        """Affinity keys of the charts this worker rendered last (its caches are warm)."""

    # -- asking --------------------------------------------------------------------------

    def wait_ready(self, timeout_s: float = STARTUP_TIMEOUT_S) -> None:
        """Block until the worker said it is ready (it imports and warms up first)."""
        if not self.ready:
            self._read(time.monotonic() + timeout_s, max_size=1 << 20)
            self.ready = True

    def request(self, message: Mapping[str, Any], *, deadline: float, max_reply: int,
                on_call: Callable[[dict[str, Any]], Any] | None = None) -> dict[str, Any]:
        """Send ``message``; answer the worker's calls with ``on_call`` until the final
        reply, which is returned. Raises WorkerDied, WorkerTimedOut or ReplyTooLarge (the
        worker is then dead)."""
        self.wait_ready()
        self._send(message)
        while True:
            reply = self._read(deadline, max_size=max_reply)
            if reply.get("op") != "call" or on_call is None:
                return reply
            try:
                answer = {"op": "reply", "ok": True, "value": on_call(reply)}
            except Exception as exc:  # noqa: BLE001 - the worker re-raises it where it asked
                answer = {"op": "reply", "ok": False, "type": type(exc).__name__, "message": str(exc)}
            self._send(answer)

    def _send(self, message: Mapping[str, Any]) -> None:
        data = (json.dumps(message, separators=(",", ":")).encode("utf-8") if self._json_requests
                else pickling.dumps(dict(message), protocol=pickling.HIGHEST_PROTOCOL))
        assert self._proc.stdin is not None
        try:
            self._proc.stdin.write(HEADER.pack(len(data)) + data)
            self._proc.stdin.flush()
        except OSError:
            raise self._died() from None

    def _read(self, deadline: float, *, max_size: int) -> dict[str, Any]:
        (size,) = HEADER.unpack(self._read_exact(HEADER.size, deadline))
        if size > max_size:
            self.close()
            raise ReplyTooLarge(size)
        body = self._read_exact(size, deadline)
        try:
            reply = json.loads(body)
        except ValueError:
            reply = None
        if not isinstance(reply, dict):
            self.close()
            raise WorkerDied("sent a malformed reply")
        return reply

    def _read_exact(self, n: int, deadline: float) -> bytes:
        assert self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        chunks: list[bytes] = []
        got = 0
        while got < n:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                self.close()
                raise WorkerTimedOut()
            chunk = os.read(fd, min(n - got, 1 << 20))
            if not chunk:
                raise self._died()
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)

    def _died(self) -> WorkerDied:
        self._ended = True
        try:
            code = self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.close()
            code = self._proc.returncode
        self._close_pipes()
        if code is not None and code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return WorkerDied(f"killed by {name}", signum=-code)
        return WorkerDied(f"exited with code {code}")

    # -- ending --------------------------------------------------------------------------

    def wait(self, timeout: float) -> int:
        """The exit status once the process has ended (negative: the signal that ended it)."""
        return self._proc.wait(timeout=timeout)

    @property
    def alive(self) -> bool:
        return not self._ended and self._proc.poll() is None

    def kill(self) -> None:
        """SIGKILL now; the exit is reaped in the background (a render never waits on it).
        Safe from any thread: a caller reading from the worker sees it die."""
        self._ended = True
        if self._proc.poll() is None:
            try:
                self._proc.kill()
            except OSError:
                pass
            threading.Thread(target=self._proc.wait, name=f"reap-render-worker-{self.pid}",
                             daemon=True).start()

    def close(self) -> None:
        """Kill and close the pipes: for the thread that owns the worker."""
        self.kill()
        self._close_pipes()

    def _close_pipes(self) -> None:
        for pipe in (self._proc.stdin, self._proc.stdout):
            if pipe is not None:
                try:
                    pipe.close()
                except OSError:
                    pass


class Channel:
    """The worker's side of the pipes: requests in (pickles, or JSON with ``json_requests``),
    replies out (JSON), and calls to the parent in the middle of a request."""

    def __init__(self, *, json_requests: bool = False) -> None:
        self._json_requests = json_requests
        self.out = os.dup(1)
        os.dup2(2, 1)  # stray prints can no longer corrupt the protocol
        self.inp = sys.stdin.buffer

    def send(self, obj: Mapping[str, Any]) -> None:
        data = json.dumps(obj, separators=(",", ":")).encode("utf-8")
        view = memoryview(HEADER.pack(len(data)) + data)
        while view:
            view = view[os.write(self.out, view):]

    def receive(self) -> dict[str, Any] | None:
        head = self.inp.read(HEADER.size)
        if len(head) < HEADER.size:
            return None
        (size,) = HEADER.unpack(head)
        body = self.inp.read(size)
        message: dict[str, Any] = json.loads(body) if self._json_requests else pickling.loads(body)
        return message

    def call(self, op: str, *args: Any) -> dict[str, Any]:
        """Ask the parent (e.g. a ``lookup`` against the cluster) and wait for its answer:
        ``{"ok": True, "value": ...}`` or ``{"ok": False, "type": ..., "message": ...}``."""
        self.send({"op": "call", "call": op, "args": list(args)})
        answer = self.receive()
        if answer is None:
            raise SystemExit(0)  # the parent is gone
        return answer


#: Linux prctl option: the signal to receive when the parent dies.
_PR_SET_PDEATHSIG = 1
#: A worker's ``/proc/self/oom_score_adj`` (the highest; raising it needs no privilege). A render
#: worker's ``RLIMIT_AS`` allows ``--render-memory`` per render, and the workers share a
#: container's memory limit with the controller: when the container runs out, the kernel kills
#: a worker, which its parent reports and replaces, not the controller.
OOM_SCORE_ADJ = 1000


def worker_backstops() -> None:
    """What every worker process sets first: die with the parent, never write a core file, and
    be the first process the kernel's OOM killer takes (``OOM_SCORE_ADJ``)."""
    import resource

    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    try:
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    except (ValueError, OSError):
        pass
    try:
        with open("/proc/self/oom_score_adj", "w") as adj:
            adj.write(str(OOM_SCORE_ADJ))
    except OSError:  # not Linux, or no /proc: the worker's own limits alone bound it
        pass
