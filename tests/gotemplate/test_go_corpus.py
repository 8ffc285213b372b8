"""A random corpus with Go's own answers: parse reprints/errors, executions and Sprintf.

``data/go_corpus.json`` (made by ``data/oracle/make_corpus.py`` with the Go program beside it)
holds random inputs built from the language's pieces and the result
Go 1.26's text/template and fmt gave for each (cases where Go's answer depends on a Go-only
panic inside a helper function were left out). Every entry must match exactly.
"""
from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest

from helm_core.gotemplate import ExecError, ParseError, gofmt, parser
from tests.gotemplate import test_exec

CORPUS = json.loads((pathlib.Path(__file__).parent / "data" / "go_corpus.json").read_text())

PARSE_FUNCS = frozenset(
    {"upper", "include", "and", "or", "not", "len", "index", "slice", "print", "printf", "println",
     "html", "js", "urlquery", "call", "eq", "ne", "lt", "le", "gt", "ge"}
)

#: The data every corpus execution ran with (Go got the same, numbers as float64).
EXEC_DATA: dict[str, Any] = {
    "a": "x", "n": 2.0, "f": 1.5, "z": None, "t": True, "e": "", "l": [1.0, "b", None, [2.0]],
    "m": {"k": "v", "n": 3.0, "s": {"q": [1.0]}, "nil": None}, "em": {}, "el": [],
}


def _reprint(text: str) -> str:
    try:
        trees = parser.parse("x", text, PARSE_FUNCS.__contains__)
    except ParseError as e:
        return "ERR " + str(e)
    out = str(trees["x"].root)
    if len(trees) > 1:
        for name in "abc":
            if name in trees:
                out += f" ||{name}:{trees[name].root}"
    return out


def test_parse_corpus_matches_go() -> None:
    mismatches = [(text, want, got) for text, want in CORPUS["parse"] if (got := _reprint(text)) != want]
    assert mismatches == [], f"{len(mismatches)} of {len(CORPUS['parse'])} differ; first: {mismatches[:3]}"


def _execute(text: str, missingkey: str) -> str:
    try:
        return test_exec.run([text], EXEC_DATA, missingkey)
    except (ExecError, ParseError) as e:
        return "ERR " + str(e)


def test_exec_corpus_matches_go() -> None:
    mismatches = [
        (text, want, got) for text, mk, want in CORPUS["exec"] if (got := _execute(text, mk)) != want
    ]
    assert mismatches == [], f"{len(mismatches)} of {len(CORPUS['exec'])} differ; first: {mismatches[:3]}"


def _decode(v: dict[str, Any]) -> Any:
    (kind, x), = v.items()
    if kind == "n":
        return None
    if kind in ("b", "s", "f"):
        return x
    if kind == "i":
        return int(x)
    if kind == "y":
        return x.encode()
    if kind == "l":
        return [_decode(e) for e in x]
    return {k: _decode(e) for k, e in x.items()}


def test_sprintf_corpus_matches_go() -> None:
    mismatches = []
    for fmt, args, want in CORPUS["sprintf"]:
        got = gofmt.sprintf(fmt, *[_decode(a) for a in args])
        if got != want:
            mismatches.append((fmt, args, want, got))
    assert mismatches == [], f"{len(mismatches)} of {len(CORPUS['sprintf'])} differ; first: {mismatches[:3]}"


@pytest.mark.parametrize("section", ["parse", "exec", "sprintf"])
def test_corpus_sections_are_substantial(section: str) -> None:
    assert len(CORPUS[section]) >= 300
