"""The parser's direct path for common actions gives exactly the general grammar's outcome.

``parser.DIRECT_ACTIONS = False`` parses with the general grammar alone. Generated templates
made of the shapes the direct path takes (``{{ end }}``, ``{{ else }}``, field chains alone or
after ``if``/``with``), their near misses and broken forms, and the lexer tests' generated and
corpus inputs, must give identical trees (every node's fields, positions and lines) or
identical errors (text, reason, line) either way.
"""
from __future__ import annotations

import random
from typing import Any

import pytest

from helm_core.gotemplate import parser
from tests.gotemplate.test_lexer_fast_path import (
    KNOWN,
    _corpus_inputs,
    _random_template,
    assert_same_as_without,
    parse_outcome,
)

OPENS = ["{{", "{{- ", "{{-\n", "{{-"]
HEADS = ["", "", "", "if ", "if", "with ", "with\t", "else", "else ", "end", "end ", "range ", "else if ",
         "else with ", "if  ", "template ", "x"]
OPERANDS = ["", ".a", ".Values", ".a.b", ".Values.x.y.z", ".", "$", "$x", "$x.y", "$y", ".a .b", ".a  ",
            "(.a)", "(.a).b", ".a | quote", ".a|quote", "quote .a", "nope .a", "1", '"s"', ".a.b.c.d.e",
            ".a)", ".a,", "\n.a\n", ".a\t", ".a:=", "$x := .a", ".a.", "..a", ".a.1"]
CLOSES = ["}}", "}}", " }}", " -}}", "\n-}}", "-}}", "  -}}", "", "}", " )}}", " }}}"]
TEXTS = ["", "", "t", "\n", "a: b\n  ", " "]


def _action(rng: random.Random) -> str:
    """Any action: the direct path's shapes, their near misses, broken forms."""
    return (rng.choice(OPENS) + rng.choice(["", " ", "  ", "\n"]) + rng.choice(HEADS)
            + rng.choice(OPERANDS) + rng.choice(["", "", " ", "\n"]) + rng.choice(CLOSES))


def _chain(rng: random.Random) -> str:
    return "".join(rng.choice([".a", ".Values", ".b_2", ".x"]) for _ in range(rng.randint(1, 4)))


def _well_formed(rng: random.Random, depth: int = 0) -> str:
    """Text and actions that parse: field chains, if/with blocks with else, nested."""
    def delim(inside: str) -> str:
        return (rng.choice(["{{", "{{- ", "{{-\n"]) + rng.choice(["", " ", "\n"]) + inside
                + rng.choice(["", " ", "\t"]) + rng.choice(["}}", " -}}", "\n-}}"]))

    parts = []
    for _ in range(rng.randint(1, 3)):
        parts.append(rng.choice(TEXTS))
        kind = rng.random()
        if kind < 0.4 or depth > 1:
            parts.append(delim(rng.choice([_chain(rng), _chain(rng), "$x" + _chain(rng), ".", "$x"])))
        else:
            keyword = rng.choice(["if", "with", "if", "range"])
            parts.append(delim(keyword + rng.choice([" ", "  ", "\n"]) + _chain(rng)))
            parts.append(_well_formed(rng, depth + 1))
            if rng.random() < 0.4:
                chained = "" if keyword == "range" else f"else {keyword} {_chain(rng)}"
                parts.append(delim(rng.choice(["else", chained or "else"])))
                parts.append(_well_formed(rng, depth + 1))
            parts.append(delim("end"))
    return "".join(parts)


def _direct_template(rng: random.Random) -> str:
    """Well-formed nestings of the direct path's shapes, half of them broken somewhere."""
    text = "{{ $x := 1 }}" + _well_formed(rng)
    if rng.random() < 0.3:
        text = '{{ define "d" }}' + text + "{{ end }}"
    if rng.random() < 0.5:
        where = rng.randrange(len(text) + 1)
        # (An error item between actions: Go names the line of the last action begun.)
        broken = rng.choice([_action(rng), _action(rng), "", "{{ end }}", "{{ else }}", "{{ if .a }}",
                             "\n{{/* c", "\n{{/* c */ }}"])
        text = text[:where] + broken + text[where + rng.randrange(3):]
    return text


def assert_direct_same(name: str, text: str, known: frozenset[str],
                       monkeypatch: pytest.MonkeyPatch) -> None:
    assert_same_as_without(parser, "DIRECT_ACTIONS", name, text, known, monkeypatch)


def test_generated_direct_shapes_parse_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(20261126)
    outcomes: dict[str, int] = {}
    for i in range(5000):
        text = _direct_template(rng)
        assert_direct_same(f"gen{i}", text, KNOWN, monkeypatch)
        kind = "error" if isinstance(parse_outcome("g", text, KNOWN), tuple) else "tree"
        outcomes[kind] = outcomes.get(kind, 0) + 1
    # Both well-formed and broken templates must be well represented.
    assert min(outcomes.values()) > 1000, outcomes


def test_lexer_generated_and_corpus_inputs_parse_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.gotemplate import test_go_corpus
    rng = random.Random(20261127)
    for i in range(2000):
        assert_direct_same(f"lexgen{i}", _random_template(rng), KNOWN, monkeypatch)
    for i, text in enumerate(_corpus_inputs()):
        assert_direct_same(f"corpus{i}", text, test_go_corpus.PARSE_FUNCS, monkeypatch)


@pytest.mark.parametrize("text", [
    "{{ .a }}", "{{ .a.b.c }}", "{{- .a -}}", "{{ if .a }}x{{ end }}", "{{ if .a.b }}x{{ else }}y{{ end }}",
    "{{ with .a }}{{ . }}{{ else with .b }}z{{ end }}", "{{ if .a }}{{ else if .b }}{{ end }}",
    "{{ end }}", "{{ else }}", "{{ if .a }}", "{{ if .a }}{{ end", "{{ if .a }}\n\n{{ .b", "{{ .a",
    "{{ if .a }}{{/* c", "{{ if .a }}\n{{/* c", "{{ with .a }}\n\n{{/* c */ }}",
    "{{ if\n.a\n}}\n{{ nope }}{{ end }}", "{{ range .a }}{{ end }}",
    '{{ define "x" }}{{ .a }}{{ end }}{{ end }}', "{{ if .a }}{{ else }}{{ else }}{{ end }}",
])
def test_edge_cases_parse_the_same(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert_direct_same("edge", text, KNOWN, monkeypatch)


def test_direct_path_is_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    """Guard against a direct path that silently never runs (the comparisons would still pass)."""
    taken: list[str] = []
    original = parser._Parser.direct_action

    def counting(self: Any, left_delim: Any) -> Any:
        node = original(self, left_delim)
        if node is not None:
            taken.append(type(node).__name__)
        return node

    monkeypatch.setattr(parser._Parser, "direct_action", counting)
    parser.parse("x", "{{ .a.b }}{{ if .c }}{{ with .d }}{{ else }}{{ end }}{{ end }}{{ include .e }}",
                 KNOWN.__contains__)
    assert sorted(taken) == ["ActionNode", "ElseNode", "EndNode", "EndNode", "IfNode", "WithNode"]
