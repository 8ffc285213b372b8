"""goyaml_convert's shortcuts against its general path.

The converter builds numbers as sigs.k8s.io/yaml's JSON step leaves them while it builds the
value (one walk), and takes a plain key that resolves to itself as its own text: each is held
here to the general path it stands in for, values and errors, over the real chart texts,
corners and generated documents, with the nodes of both readers.
"""
from __future__ import annotations

import random

import pytest

from helm_core.golib import goyaml_block, goyaml_convert, goyaml_read
from tests import goyaml_corpus


def _block_root(text: str):
    try:
        reader = goyaml_block._Reader(text)
        return reader.document(), reader.aliased
    except goyaml_block._NotMine:
        return None


def _pyyaml_root(text: str):
    try:
        return next(goyaml_read._documents(text), None), goyaml_read._may_have_anchors(text)
    except Exception:  # noqa: BLE001 - libyaml refuses it: nothing to convert
        return None


def _outcome(build):
    try:
        with goyaml_convert.go_errors():
            return "value", build()
    except ValueError as exc:
        return "error", str(exc)


def _two_walks(root, anchors: bool):
    """The general path: the value as yaml.v2 types it, then the JSON step over all of it."""
    return goyaml_convert._json_types(goyaml_convert.convert(root, json_step=False, anchors=anchors))


def _check(text: str) -> int:
    """Compare the one-walk JSON step with the two walks for both readers' nodes of ``text``;
    the number of readers that took it."""
    taken = 0
    for composed in (_block_root(text), _pyyaml_root(text)):
        if composed is None:
            continue
        taken += 1
        root, anchors = composed
        one = _outcome(lambda: goyaml_convert.convert(root, json_step=True, anchors=anchors))
        two = _outcome(lambda: _two_walks(root, anchors))
        assert one[0] == two[0], (text, one, two)
        if one[0] == "value":
            assert goyaml_corpus.same(one[1], two[1]), (text, one, two)
        else:
            assert one[1] == two[1], (text, one, two)
    return taken


CORNERS = [
    "a: .nan", "a: [1, .inf]", "a: .nan\na: 1", "a: 1\na: -.inf", "- !!float 1\n- !!int 2\n- !!float .nan",
    "a: &x .nan\nb: 1", "a: &x {b: .nan}\nc:\n  <<: *x\n  b: 2", "a: &x\n  b: .inf\nc:\n  <<: *x",
    "a: 0x1F\nb: 1e3\nc: 18446744073709551615\nd: -9223372036854775808\ne: true\nf: ~",
    "1: a\n1.5: b\ntrue: c\n.inf: d\n0x10: e", "? .nan\n: x", "a: !!binary aGk=", "a: 2001-12-14",
    "[" * 10000 + "]" * 10000, "[" * 10001 + "]" * 10001, "a:\n" + "".join(f"{' ' * i}- \n" for i in range(3)),
]


@pytest.mark.parametrize("text", CORNERS, ids=lambda v: repr(v)[:40])
def test_the_json_step_on_the_way_is_the_json_step_after(text):
    assert _check(text)


def _nested(depth: int, *, block: bool, leaf: str) -> str:
    if block:
        return "".join(f"{' ' * i}- " + ("\n" if i < depth - 1 else f"{leaf}\n") for i in range(depth))
    return "[" * depth + leaf + "]" * depth


@pytest.mark.parametrize("leaf", ["1", ".nan"])
def test_json_nesting_bound_and_refusals_come_in_the_general_paths_order(leaf):
    """Past Go's JSON depth with a NaN inside: the same first refusal."""
    depth = 10001
    text = "a: " + _nested(depth, block=False, leaf=leaf) + "\nb: .inf"
    assert _check(text)


def test_every_real_document_converts_as_the_general_path_converts_it():
    texts = goyaml_corpus.real_texts()
    assert sum(_check(text) for _, text in texts) >= len(texts)


#: Pieces of generated documents: keys of every first character resolve looks at, numbers,
#: non-finite floats, merges, anchors and aliases, duplicate keys.
KEYS = ["a", "b", "1", "-1", "0x1F", "1.5", ".5", "y", "n", "on", "No", "~", "null", "true", "<<", "+1", "_x",
        "Yes", "o", "t", "f", "T", ".", "-", "0", "2001-12-14", "1e3", "1_000", "'q'", '"1"']
VALUES = ["1", "-2", "1.5", ".nan", ".inf", "-.Inf", "x", "~", "yes", "0o17", "0b101", "1e400", "[1, .nan]",
          "{}", "[]", "'.nan'", "!!float 1", "!!int 3", "2001-12-14", "9223372036854775808"]


def _generated_document(rng: random.Random) -> str:
    lines = []
    anchored = []
    for _ in range(rng.randint(1, 8)):
        key = rng.choice(KEYS)
        r = rng.random()
        if r < 0.15 and anchored:
            lines.append(f"{key}: *{rng.choice(anchored)}")
        elif r < 0.3:
            name = f"a{len(anchored)}"
            anchored.append(name)
            inner = "\n".join(f"  {rng.choice(KEYS)}: {rng.choice(VALUES)}" for _ in range(rng.randint(1, 3)))
            lines.append(f"{key}: &{name}\n{inner}")
        elif r < 0.4:
            lines.append(f"{key}:\n" + "\n".join(f"  - {rng.choice(VALUES)}" for _ in range(rng.randint(1, 3))))
        else:
            lines.append(f"{key}: {rng.choice(VALUES)}")
    return "\n".join(lines) + "\n"


def test_generated_documents_convert_as_the_general_path_converts_them():
    rng = random.Random(20)
    texts = [_generated_document(rng) for _ in range(3000)]
    assert sum(_check(text) for text in texts) >= len(texts)


def test_generated_keys_read_by_the_block_reader_as_by_the_pyyaml_path():
    """The plain-key shortcut (the block reader's keys only) against PyYAML's nodes, which never
    take it."""
    rng = random.Random(7)
    outcomes = {goyaml_corpus.compare(_generated_document(rng)) for _ in range(3000)}
    assert None not in outcomes and "same" in outcomes
