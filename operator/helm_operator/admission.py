"""The requester stamp as a mutating admission webhook the controller serves, for API servers
without MutatingAdmissionPolicy (docs/requester.md). Same rule as
deploy/requester/policy.yaml, so either one may be installed:

- CREATE of a HelmRequest, and UPDATE changing ``spec`` or ``requester``: answer with a
  JSONPatch ``add /requester`` holding the authenticated ``userInfo`` (username, and uid,
  groups, extra when present), replacing whatever the client wrote there;
- anything else (an update of metadata only, a subresource, DELETE): allowed unchanged.

The server speaks HTTPS only (the API server calls webhooks over TLS), with the certificate and
key of a ``kubernetes.io/tls`` Secret mounted as files (``tls.crt``, ``tls.key``), read again
when they change so a rotated certificate needs no restart.
"""
from __future__ import annotations

import base64
import http.server
import json
import os
import ssl
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from helm_operator import requester

#: URL path of the webhook (``MutatingWebhookConfiguration`` ``clientConfig.service.path``).
PATH = "/stamp-requester"
#: Largest AdmissionReview accepted (the API server's own request limit is 3 MiB).
MAX_BODY_BYTES = 3 * 1024 * 1024


def stamp(user_info: Mapping[str, Any]) -> dict[str, Any]:
    """The ``requester`` field for a ``userInfo`` (empty parts left out, as the policy does)."""
    out: dict[str, Any] = {"username": str(user_info.get("username") or "")}
    for key in ("uid", "groups", "extra"):
        if user_info.get(key):
            out[key] = user_info[key]
    return out


def needs_stamp(request: Mapping[str, Any]) -> bool:
    """True when the write must be (re-)stamped: see the module docstring."""
    if request.get("subResource"):
        return False
    operation = request.get("operation")
    if operation == "CREATE":
        return True
    if operation != "UPDATE":
        return False
    new, old = request.get("object") or {}, request.get("oldObject") or {}
    return bool(new.get("spec") != old.get("spec")
                or new.get(requester.STAMP_FIELD) != old.get(requester.STAMP_FIELD))


def review(body: Mapping[str, Any]) -> dict[str, Any]:
    """The ``AdmissionReview`` answering ``body`` (always allowed; patched when stamped)."""
    request = body.get("request") or {}
    response: dict[str, Any] = {"uid": request.get("uid", ""), "allowed": True}
    if needs_stamp(request):
        patch = [{"op": "add", "path": f"/{requester.STAMP_FIELD}",
                  "value": stamp(request.get("userInfo") or {})}]
        response.update(patchType="JSONPatch",
                        patch=base64.b64encode(json.dumps(patch).encode()).decode())
    return {"apiVersion": body.get("apiVersion", "admission.k8s.io/v1"), "kind": "AdmissionReview",
            "response": response}


class _Context:
    """A TLS context that reloads the certificate when its files change (rotation)."""

    def __init__(self, cert_file: Path, key_file: Path) -> None:
        self.cert_file, self.key_file = cert_file, key_file
        self._stamp: tuple[float, float] = (-1.0, -1.0)
        self._context: ssl.SSLContext | None = None
        self._lock = threading.Lock()

    def current(self) -> ssl.SSLContext:
        stamp_ = (os.stat(self.cert_file).st_mtime, os.stat(self.key_file).st_mtime)
        with self._lock:
            if self._context is None or stamp_ != self._stamp:
                context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
                context.minimum_version = ssl.TLSVersion.TLSv1_2
                context.load_cert_chain(self.cert_file, self.key_file)
                self._context, self._stamp = context, stamp_
            return self._context


def serve(port: int, *, cert_dir: Path, host: str = "0.0.0.0",
          log: Callable[[str], None] = lambda _line: None) -> http.server.ThreadingHTTPServer:
    """Serve the webhook on ``port`` over TLS (``cert_dir``/tls.crt and tls.key) from a daemon
    thread; returns the server (``shutdown()`` stops it). Fails at once on unreadable files."""
    context = _Context(cert_dir / "tls.crt", cert_dir / "tls.key")
    context.current()  # a missing or bad certificate stops the controller at start, loudly

    class Handler(http.server.BaseHTTPRequestHandler):
        timeout = 10  # seconds a connection may stay silent (the API server waits 10 s)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if self.path.split("?")[0] != PATH:
                self._send(404, {"error": f"no webhook at {self.path}"})
                return
            if not 0 < length <= MAX_BODY_BYTES:
                self._send(413, {"error": f"AdmissionReview of {length} bytes"})
                return
            try:
                body = json.loads(self.rfile.read(length))
                if not isinstance(body, dict):
                    raise ValueError("not a JSON object")
            except ValueError as exc:
                self._send(400, {"error": f"not an AdmissionReview: {exc}"})
                return
            self._send(200, review(body))

        def _send(self, code: int, payload: Mapping[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # one line per write of every HelmRequest would drown the log

    class Server(http.server.ThreadingHTTPServer):
        daemon_threads = True

        def get_request(self) -> tuple[Any, Any]:
            sock, address = super().get_request()
            # the handshake runs in the request's thread: a slow client cannot stall accept()
            return context.current().wrap_socket(sock, server_side=True,
                                                  do_handshake_on_connect=False), address

        def handle_error(self, request: Any, client_address: Any) -> None:
            log(f"admission webhook: request from {client_address[0]} failed")

    server = Server((host, port), Handler)
    threading.Thread(target=server.serve_forever, name=f"admission-{port}", daemon=True).start()
    return server
