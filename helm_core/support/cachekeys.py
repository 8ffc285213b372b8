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
