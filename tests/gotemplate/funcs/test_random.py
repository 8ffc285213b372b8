"""Random strings and UUIDs: alphabets, lengths and formats (values are random)."""
from __future__ import annotations

import os
import re
import string

import pytest

from helm_core.gotemplate.funcs import random as rnd, uuid

ALPHABETS = [
    ("randAlphaNum", rnd.rand_alpha_num, set(string.ascii_letters + string.digits)),
    ("randAlpha", rnd.rand_alpha, set(string.ascii_letters)),
    ("randNumeric", rnd.rand_numeric, set(string.digits)),
    ("randAscii", rnd.rand_ascii, {chr(c) for c in range(32, 127)}),
]


@pytest.mark.parametrize(("fn", "alphabet"), [a[1:] for a in ALPHABETS], ids=[a[0] for a in ALPHABETS])
def test_random_strings_use_sprig_alphabets(fn, alphabet: set[str]) -> None:
    text = "".join(fn(50) for _ in range(20))
    assert len(text) == 1000 and set(text) <= alphabet and len(set(text)) > min(8, len(alphabet) - 1)


@pytest.mark.parametrize("fn", [a[1] for a in ALPHABETS], ids=[a[0] for a in ALPHABETS])
def test_zero_or_negative_count_gives_empty_string(fn) -> None:
    assert (fn(0), fn(-3)) == ("", "")


def test_uuidv4_is_canonical_version_4() -> None:
    value = uuid.uuidv4()
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", value)
    assert value != uuid.uuidv4()


@pytest.mark.parametrize("n", [1, 2, 3, 62, 64, 65, 95])
def test_below_draws_every_value_of_its_range_and_no_other(n: int) -> None:
    """Rejection sampling off by one would never draw ``n - 1`` or would draw ``n``."""
    assert {rnd.below(n) for _ in range(3000)} == set(range(n))


def test_shuffled_keeps_the_items_and_reaches_every_order() -> None:
    orders = {tuple(rnd.shuffled(list("abc"))) for _ in range(600)}
    assert orders == {("a", "b", "c"), ("a", "c", "b"), ("b", "a", "c"), ("b", "c", "a"), ("c", "a", "b"),
                      ("c", "b", "a")}


def test_random_strings_draw_their_bytes_in_bulk(monkeypatch) -> None:
    # One os.urandom call per character made randAlpha 2 s per million characters, and one
    # call of 60 million (within the output limit) ran for minutes out of the budget's reach.
    calls = []
    real = os.urandom

    def urandom(n: int) -> bytes:
        calls.append(n)
        return real(n)

    monkeypatch.setattr(rnd.os, "urandom", urandom)
    text = rnd.rand_alpha_num(100_000)
    assert len(text) == 100_000 and set(text) <= set(string.ascii_letters + string.digits)
    assert len(calls) < 10
