"""helm_core.golib.goregexp against Go's own regexp: every answer in go_answers.json (Go 1.26, the Go
Helm 3.22 is built with), for a table of methods x patterns x subjects, and Go's parse errors."""
from __future__ import annotations

import json
from typing import Any

import pytest

from helm_core.golib import goregexp
from tests.goregexp import go_cases

_DATA = json.loads(go_cases.ANSWERS.read_text(encoding="utf-8"))
CASES = list(zip(go_cases.queries(), _DATA["answers"], strict=True))


def _ours(query: dict[str, Any]) -> dict[str, Any]:
    op, s, n, repl = query["Op"], query.get("S", ""), query.get("N", 0), query.get("Repl", "")
    if op == "quote":
        return {"ok": goregexp.quote_meta(s)}
    try:
        rx = goregexp.compile(query["Re"])
    except goregexp.GoSyntaxError as e:
        return {"err": str(e)}
    result: Any = {
        "compile": lambda: "ok",
        "match": lambda: rx.match_string(s),
        "find": lambda: rx.find_string(s),
        "findall": lambda: rx.find_all_string(s, n) or None,  # Go's nil slice is JSON null
        "replace": lambda: rx.replace_all_string(s, repl),
        "literal": lambda: rx.replace_all_literal_string(s, repl),
        "split": lambda: rx.split(s, n) if n else None,
    }[op]()
    return {"ok": result}


OPS = sorted({query["Op"] for query, _ in CASES})


def test_the_answers_are_go_126s():
    assert _DATA["go"].startswith("go1.26")


@pytest.mark.timeout(120)  # a backtracking engine would hang on go_cases.CATASTROPHIC
@pytest.mark.parametrize("op", OPS)
def test_same_answers_as_go(op: str):
    differ = [(query, go, ours) for query, go in CASES if query["Op"] == op and (ours := _ours(query)) != go]
    assert not differ, f"{len(differ)} differ, first: {differ[:3]}"
