"""Digests: ``sha1sum``, ``sha256sum``, ``sha512sum`` (hex) and ``adler32sum`` (decimal).

Why a module of their own: most charts' checksum annotations call ``sha256sum``, and a render
imports a Sprig module at its first call (see ``sprig``); the key and certificate functions of
:mod:`helm_core.gotemplate.funcs.crypto` are three times the code.
"""
from __future__ import annotations

from helm_core.golib.gotypes import signature
from helm_core.gotemplate.funcs import gohelpers
from helm_core.support import hashes


@signature("string")
def sha1sum(s: str) -> str:
    """``sha1sum``: hex digest."""
    return hashes.hexdigest("sha1", gohelpers.to_bytes(s))


@signature("string")
def sha256sum(s: str) -> str:
    """``sha256sum``."""
    return hashes.hexdigest("sha256", gohelpers.to_bytes(s))


@signature("string")
def sha512sum(s: str) -> str:
    """``sha512sum``."""
    return hashes.hexdigest("sha512", gohelpers.to_bytes(s))


@signature("string")
def adler32sum(s: str) -> str:
    """``adler32sum``: decimal checksum."""
    import zlib

    return str(zlib.adler32(gohelpers.to_bytes(s)))


FUNCS = {"sha1sum": sha1sum, "sha256sum": sha256sum, "sha512sum": sha512sum, "adler32sum": adler32sum}
