"""Digests for cache keys (the disk memo and in-process caches): BLAKE2b with 32-byte digests.

Taken from CPython's own ``_blake2`` module when there is one: importing ``hashlib`` loads
OpenSSL first, a visible part of a short CLI run (bench/deferred.py), and BLAKE2b reads large
texts faster than SHA-256. Only for keys this package reads back itself; digests that others
read (chart digests, Sprig's ``sha256sum``) stay ``hashlib``'s.
"""
from __future__ import annotations

import importlib

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hashlib import blake2b

#: The BLAKE2b constructor, found on first use.
_FACTORY: list[type[blake2b]] = []


def hasher(data: bytes = b"") -> blake2b:
    """A fresh hasher (32-byte digest), fed ``data``."""
    if not _FACTORY:
        try:
            _FACTORY.append(importlib.import_module("_blake2").blake2b)
        except ImportError:  # an interpreter without CPython's module
            import hashlib

            _FACTORY.append(hashlib.blake2b)
    return _FACTORY[0](data, digest_size=32)


def hexdigest(data: bytes) -> str:
    """The hex digest of ``data``."""
    return hasher(data).hexdigest()
