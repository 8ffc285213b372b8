"""Random strings: ``randAlphaNum``, ``randAlpha``, ``randNumeric``, ``randAscii``.

Why: charts make passwords with these. Sprig uses goutils' crypto-random
generators: letters A-Z a-z, digits 0-9, printable ASCII 32..126; a negative
count yields "" (the error is dropped).
"""
from __future__ import annotations

import os

from helm_core.golib.gotypes import signature
from helm_core.gotemplate import budget

ALPHA = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
NUMERIC = "0123456789"
ALPHANUMERIC = NUMERIC + ALPHA
ASCII_PRINTABLE = "".join(chr(c) for c in range(32, 127))


def below(n: int) -> int:
    """A uniform integer in ``[0, n)`` (``n`` > 0) from the operating system's generator, as
    random.SystemRandom draws it: the fewest bits that hold ``n - 1``, drawn again while too
    large. Not through ``random``, whose import is start-up time (bench/deferred.py), nor
    ``secrets``, which loads hmac and OpenSSL too."""
    bits = (n - 1).bit_length() or 1
    size = (bits + 7) // 8
    while True:
        drawn = int.from_bytes(os.urandom(size), "big") >> (size * 8 - bits)
        if drawn < n:
            return drawn


def shuffled(items: list[str]) -> list[str]:
    """``items`` in a uniformly random order (Fisher-Yates, as random.shuffle), in place.
    Half a million a second: the render budget is ticked as it goes, so ``shuffle`` of a
    string near the output limit stops at the render's deadline."""
    tick = budget.current().tick
    for i in range(len(items) - 1, 0, -1):
        j = below(i + 1)
        items[i], items[j] = items[j], items[i]
        if not i & 0x3FF:
            tick()
    return items


def _random(count: int, alphabet: str) -> str:
    """``count`` characters drawn uniformly from ``alphabet`` (ASCII, at most 256 of them).

    Random bytes are drawn in bulk and mapped by ``bytes.translate``, those past the largest
    multiple of the alphabet's size dropped (no modulo bias): a character per ``os.urandom``
    call took 2 s per million characters, so one ``randAlpha`` of 60 million (under the
    output limit) ran for minutes inside one call, out of the runtime's checks' reach."""
    if count <= 0:
        return ""
    budget.check_size(count, what=f"a random string of {count} characters")
    size = len(alphabet)
    kept = 256 - 256 % size
    table = bytes(ord(alphabet[b % size]) for b in range(kept)) + bytes(256 - kept)
    dropped = bytes(range(kept, 256))
    chunks: list[bytes] = []
    missing = count
    while missing:
        # Enough bytes on average for what is missing, plus a little.
        chunk = os.urandom(missing * 256 // kept + 64).translate(table, dropped)[:missing]
        chunks.append(chunk)
        missing -= len(chunk)
    return b"".join(chunks).decode("ascii")


@signature("int")
def rand_alpha_num(count: int) -> str:
    """``randAlphaNum``."""
    return _random(count, ALPHANUMERIC)


@signature("int")
def rand_alpha(count: int) -> str:
    """``randAlpha``."""
    return _random(count, ALPHA)


@signature("int")
def rand_numeric(count: int) -> str:
    """``randNumeric``."""
    return _random(count, NUMERIC)


@signature("int")
def rand_ascii(count: int) -> str:
    """``randAscii``."""
    return _random(count, ASCII_PRINTABLE)


FUNCS = {
    "randAlphaNum": rand_alpha_num,
    "randAlpha": rand_alpha,
    "randNumeric": rand_numeric,
    "randAscii": rand_ascii,
}
