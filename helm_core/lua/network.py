"""The HTTP GET client behind the ``network`` permission.

It is handed to the Lua prelude as an upvalue of ``network.get`` and is the only Python
callable a chart runtime holds. Rules: it takes and returns only bytes and ints (lupa
passes those by value), never raises (an error is returned as a message string in place
of the status), speaks only ``http``/``https``, does not follow redirects, and reads at
most ``max_bytes`` of body.
"""
from __future__ import annotations

import http.client
import ssl
import urllib.parse
from collections.abc import Callable

#: Header lines a script may send at most, and their total size.
MAX_REQUEST_HEADERS = 50
MAX_HEADER_BYTES = 16 * 1024

Fetch = Callable[[bytes, bytes], tuple[int | bytes, bytes, bytes]]


def make_fetch(*, timeout: float, max_bytes: int) -> Fetch:
    """A ``fetch(url, header_lines)`` returning ``(status, body, header_lines)`` or
    ``(message, b"", b"")`` on failure."""

    def fetch(url: bytes, header_lines: bytes) -> tuple[int | bytes, bytes, bytes]:
        try:
            return _get(url, header_lines, timeout=timeout, max_bytes=max_bytes)
        except Exception as exc:  # noqa: BLE001 - every failure becomes a Lua error message
            return (f"{type(exc).__name__}: {exc}".encode("utf-8", "replace"), b"", b"")

    return fetch


def _get(url_b: bytes, header_lines: bytes, *, timeout: float, max_bytes: int) -> tuple[int | bytes, bytes, bytes]:
    if not isinstance(url_b, bytes) or not isinstance(header_lines, bytes):
        return (b"bad arguments", b"", b"")
    url = url_b.decode("utf-8")
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return (f"only http:// and https:// URLs are allowed, got {url!r}".encode(), b"", b"")
    if len(header_lines) > MAX_HEADER_BYTES:
        return (b"request headers too large", b"", b"")
    headers: dict[str, str] = {}
    lines = [ln for ln in header_lines.decode("utf-8").split("\n") if ln]
    if len(lines) > MAX_REQUEST_HEADERS:
        return (b"too many request headers", b"", b"")
    for line in lines:
        name, _, value = line.partition(": ")
        if not name or "\r" in line or ":" in name:
            return (f"bad header {name!r}".encode(), b"", b"")
        headers[name] = value
    conn: http.client.HTTPConnection
    if parts.scheme == "https":
        conn = http.client.HTTPSConnection(parts.hostname, parts.port, timeout=timeout,
                                           context=ssl.create_default_context())
    else:
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        path = parts.path or "/"
        if parts.query:
            path += "?" + parts.query
        conn.request("GET", path, headers=headers)
        resp = conn.getresponse()
        body = resp.read(max_bytes + 1)
        if len(body) > max_bytes:
            return (f"response body larger than {max_bytes} bytes".encode(), b"", b"")
        hdrs = "\n".join(f"{k}: {v}" for k, v in resp.getheaders())
        return (resp.status, body, hdrs.encode("utf-8", "replace"))
    finally:
        conn.close()
