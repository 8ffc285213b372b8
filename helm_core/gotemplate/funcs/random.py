"""Random strings: ``randAlphaNum``, ``randAlpha``, ``randNumeric``, ``randAscii``.

Why: charts make passwords with these. Sprig uses goutils' crypto-random
generators: letters A-Z a-z, digits 0-9, printable ASCII 32..126; a negative
count yields "" (the error is dropped).
"""
from __future__ import annotations

from helm_core.golib.gotypes import signature
from helm_core.gotemplate import budget

ALPHA = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
NUMERIC = "0123456789"
ALPHANUMERIC = NUMERIC + ALPHA
ASCII_PRINTABLE = "".join(chr(c) for c in range(32, 127))


def _random(count: int, alphabet: str) -> str:
    if count <= 0:
        return ""
    budget.check_size(count, what=f"a random string of {count} characters")
    # The operating system's generator, as secrets.choice uses it; importing secrets would
    # load hmac and OpenSSL too (bench/deferred.py), and random is only imported here.
    import random

    choose = random.SystemRandom().choice
    return "".join(choose(alphabet) for _ in range(count))


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
