"""Liveness and readiness, served over HTTP with the metrics on one small server thread.

Rules:
- ``/healthz`` is 200 while the operator's event loop has beaten within
  ``HEARTBEAT_STALE_S`` (a stuck loop gets the pod restarted), 503 otherwise;
- ``/readyz`` is 200 once the operator has started (logged in, handlers registered), 503 before;
  a replica standing by for the leader Lease is ready but idle ("ok (standby)"): it is
  healthy and can take over, and a rollout must not wait for it to lead;
- ``/metrics`` is the Prometheus exposition (also on the metrics port when that differs).
"""
from __future__ import annotations

import http.server
import threading
import time
from collections.abc import Callable

#: The event loop beats every ``HEARTBEAT_S``; older than ``HEARTBEAT_STALE_S`` means stuck.
HEARTBEAT_S = 5.0
HEARTBEAT_STALE_S = 60.0


class Health:
    """Shared state of the probes (thread-safe: plain attribute writes)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._beat = clock()
        self.ready = False
        self.standby = False

    def beat(self) -> None:
        self._beat = self._clock()

    @property
    def alive(self) -> bool:
        return self._clock() - self._beat <= HEARTBEAT_STALE_S


def serve(port: int, *, health: Health, metrics: Callable[[], bytes],
          host: str = "0.0.0.0") -> http.server.ThreadingHTTPServer:
    """Start the probe/metrics server on a daemon thread; ``port`` 0 picks a free port
    (see ``server.server_address``)."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            if self.path == "/healthz":
                ok = health.alive
                self._send(200 if ok else 503, b"ok\n" if ok else b"event loop stuck\n")
            elif self.path == "/readyz":
                ok = health.ready
                body = b"ok (standby)\n" if health.standby else b"ok\n"
                self._send(200 if ok else 503, body if ok else b"starting\n")
            elif self.path == "/metrics":
                self._send(200, metrics(), "text/plain; version=0.0.4; charset=utf-8")
            else:
                self._send(404, b"not found\n")

        def _send(self, code: int, body: bytes, content_type: str = "text/plain") -> None:
            self.send_response(code)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            return None

    server = http.server.ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name=f"probes-{port}", daemon=True).start()
    return server
