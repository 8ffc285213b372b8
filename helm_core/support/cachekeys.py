"""Digests for cache keys (the disk memo and in-process caches): BLAKE2b with 32-byte digests.

Taken from CPython's own ``_blake2`` module when there is one (:mod:`helm_core.support.hashes`:
importing ``hashlib`` loads OpenSSL, a visible part of a short CLI run), and BLAKE2b reads large
texts faster than SHA-256. Only for keys this package reads back itself.
"""
from __future__ import annotations

from helm_core.support import hashes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hashlib import _Hash


def hasher(data: bytes = b"") -> _Hash:
    """A fresh hasher (32-byte digest), fed ``data``."""
    return hashes.constructor("blake2b")(data, digest_size=32)


def hexdigest(data: bytes) -> str:
    """The hex digest of ``data``."""
    return hasher(data).hexdigest()


def content_key(data: bytes) -> str:
    """An in-process key that is ``data`` itself, as text (Latin-1: one character per byte).

    A dict hashes it with the interpreter's string hash and compares it on a hit, exact and
    about four times faster than a digest of a large file (redis's 150 KB schema: ~0.05 ms
    against ~0.19 ms). For caches of this process only, whose keys may be as large as the
    content they stand for; the disk memo keys by :func:`hexdigest`.
    """
    return data.decode("latin-1")
