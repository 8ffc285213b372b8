"""Digests for cache keys (the disk memo and in-process caches): BLAKE2b with 32-byte digests.

Taken from CPython's own ``_blake2`` module when there is one (:mod:`helm_core.support.hashes`:
importing ``hashlib`` loads OpenSSL, a visible part of a short CLI run), and BLAKE2b reads large
texts faster than SHA-256. Only for keys this package reads back itself.
"""
from __future__ import annotations

import marshal

from helm_core.support import hashes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hashlib import _Hash
    from typing import Any


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


#: marshal's last format without back-references: its bytes depend on the content only (format
#: 3 marks objects by their reference counts).
_MARSHAL_CONTENT_ONLY = 2


def marshalled(value: Any) -> bytes | None:
    """Bytes that only values of the same content (same types, same key order) give, or None
    for what marshal refuses (a caller's own types, subclasses, nesting past its depth).

    marshal writes exact builtin types only, in C: a values tree several times faster than a
    JSON text or a pickle, for keys of what is computed from the value."""
    try:
        return marshal.dumps(value, _MARSHAL_CONTENT_ONLY)
    except ValueError:
        return None
