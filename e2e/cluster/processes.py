"""Child processes that never outlive their owner.

Rules:
- Every component runs in its own process group (new session), so stopping it stops anything it
  spawned, and a Ctrl-C in the terminal reaches only the owner, which then stops them in order.
- Every child asks the kernel for SIGKILL when its parent dies (``PR_SET_PDEATHSIG``): even a
  ``kill -9`` of the owner leaves nothing behind.
- ``stop`` sends SIGTERM to the group, waits ``STOP_GRACE_S``, then SIGKILLs the group.
- ``install_signal_handlers`` turns SIGTERM/SIGINT/SIGHUP into ``SystemExit`` so ``finally``
  blocks and ``atexit`` hooks run their clean-up.
"""
from __future__ import annotations

import ctypes
import os
import signal
import socket
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

STOP_GRACE_S = 10.0
"""Seconds a component gets to exit after SIGTERM before its group is killed."""
LOG_TAIL_BYTES = 6000
"""How much of a component's log an error shows."""
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:  # pragma: no cover - runs in the forked child
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


@dataclass
class Component:
    """A running control-plane process, its log file and how it was started."""

    name: str
    process: subprocess.Popen[bytes]
    log_path: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def log_tail(self) -> str:
        return tail(self.log_path)


def spawn(name: str, argv: Sequence[str], *, log_path: Path, cwd: Path | None = None,
          env: dict[str, str] | None = None, die_with_parent: bool = True) -> Component:
    """Start ``argv`` in a new process group with its output appended to ``log_path``."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "ab") as log:
        process = subprocess.Popen(
            list(argv), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            cwd=cwd, env=env, start_new_session=True,
            preexec_fn=_die_with_parent if die_with_parent else None,
        )
    return Component(name=name, process=process, log_path=log_path)


def stop(component: Component, grace_s: float = STOP_GRACE_S) -> None:
    """Terminate the component's whole process group, killing it after ``grace_s``."""
    signal_group(component.pid, signal.SIGTERM)
    try:
        component.process.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        pass
    signal_group(component.pid, signal.SIGKILL)
    component.process.wait()


def signal_group(pgid: int, signum: int) -> None:
    """Send ``signum`` to a process group; a group that is already gone is fine."""
    try:
        os.killpg(pgid, signum)
    except (ProcessLookupError, PermissionError):
        pass


def pid_alive(pid: int) -> bool:
    """Whether ``pid`` exists and is not a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_gone(pid: int, timeout_s: float) -> bool:
    """Poll until ``pid`` has exited; True when it did within ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not pid_alive(pid):
            return True
        time.sleep(0.1)
    return not pid_alive(pid)


def free_ports(count: int) -> list[int]:
    """``count`` distinct loopback ports that were free a moment ago (held open together)."""
    sockets = []
    try:
        for _ in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind(("127.0.0.1", 0))
            sockets.append(sock)
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def tail(path: Path, limit: int = LOG_TAIL_BYTES) -> str:
    """The last ``limit`` bytes of a log file as text (empty when it does not exist)."""
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - limit))
            return handle.read().decode(errors="replace")
    except OSError:
        return ""


def install_signal_handlers() -> None:
    """Make SIGTERM, SIGINT and SIGHUP raise ``SystemExit`` so clean-up code runs."""
    def handler(signum: int, _frame: FrameType | None) -> None:
        raise SystemExit(128 + signum)

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, handler)
