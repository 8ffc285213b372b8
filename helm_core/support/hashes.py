"""Hash constructors taken from CPython's own hash modules, ``hashlib`` only when there are none.

Importing ``hashlib`` loads OpenSSL (``_hashlib``): ~5 ms of a short CLI run, paid by most
charts' first render because their checksum annotations call Sprig's ``sha256sum``
(bench/deferred.py). CPython builds SHA-1, SHA-2 and BLAKE2 into small modules of its own
(``_sha1``, ``_sha256``/``_sha512`` up to 3.11, ``_sha2`` from 3.12, ``_blake2``) that compute
the same digests; another interpreter falls back to ``hashlib``.
"""
from __future__ import annotations

import functools

from helm_core.support import lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from hashlib import _Hash

#: Algorithm -> CPython's modules that define a constructor of that name, newest layout first.
_BUILTIN_MODULES = {
    "sha1": ("_sha1",),
    "sha256": ("_sha2", "_sha256"),
    "sha512": ("_sha2", "_sha512"),
    "blake2b": ("_blake2",),
}


@functools.cache
def constructor(algorithm: str) -> Callable[..., _Hash]:
    """The constructor of ``algorithm`` (a key of ``_BUILTIN_MODULES``), found on first use."""
    for module_name in _BUILTIN_MODULES[algorithm]:
        try:
            found: Callable[..., _Hash] = getattr(lazy.import_module(module_name), algorithm)
        except (ImportError, AttributeError):
            continue
        return found
    import hashlib

    fallback: Callable[..., _Hash] = getattr(hashlib, algorithm)
    return fallback


def hexdigest(algorithm: str, data: bytes) -> str:
    """The hex digest of ``data`` under ``algorithm``."""
    return constructor(algorithm)(data).hexdigest()
