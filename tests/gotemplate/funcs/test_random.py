"""Random strings and UUIDs: alphabets, lengths and formats (values are random)."""
from __future__ import annotations

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
