"""Trees compiled to Python code (``gotemplate/codegen.py``) give Go's outputs and errors, as
the closures they replace do: every execution case of ``test_exec`` and of the Go corpus runs
again from generated code, with branches inline (every body read) and with the bodies that did
not run left to the compiler's lazy branches."""
from __future__ import annotations

from typing import Any

import pytest

from helm_core.chart import loader, prepare
from helm_core.engine import render
from helm_core.gotemplate import Environment, ExecError, ParseError, codegen, compiler
from helm_core.support import deepstack
from tests.gotemplate import test_exec, test_go_corpus

CASES = [(c[1], c[2], c[3], c[4]) for c in test_exec.EXEC_CASES] + [
    ([text], test_go_corpus.EXEC_DATA, mk, ("error", want[4:]) if want.startswith("ERR ") else ("ok", want))
    for text, mk, want in test_go_corpus.CORPUS["exec"]
]


def _outcome(run: Any) -> tuple[str, str]:
    try:
        return "ok", deepstack.run(run)
    except (ExecError, ParseError) as e:
        return "error", str(e)


def _generated_run(templates: list[str], data: dict[str, Any], missingkey: str, *, all_inline: bool) -> Any:
    """The case's execution from generated code: run once with closures (what ran is then
    generated), or with every body read first (all inline)."""
    tset = Environment(test_exec.FUNCS, missingkey=missingkey).new_set()
    for i, text in enumerate(templates):
        tset.parse(f"t{i}", text)
    data = {**data, "O": test_exec.Obj()}
    if all_inline:
        for name in tset.names():
            str(tset.tree(name).root)  # reads (enters) every body
            tset.lookup_compiled(name)
    else:
        _outcome(lambda: tset.execute("t0", data))
    tset.generate_code()
    tree = tset.tree("t0")
    assert tree.generated and tree.compiled.__code__.co_filename == "<template t0>"
    return lambda: tset.execute("t0", data)


@pytest.mark.parametrize("all_inline", [False, True], ids=["after-a-run", "all-inline"])
def test_generated_code_gives_gos_outputs_and_errors(all_inline: bool) -> None:
    mismatches = []
    for templates, data, missingkey, expected in CASES:
        try:
            run = _generated_run(templates, data, missingkey, all_inline=all_inline)
        except ParseError as e:
            got = ("error", str(e))
        else:
            got = _outcome(run)
        if got != tuple(expected):
            mismatches.append((templates, expected, got))
    assert mismatches == [], f"{len(mismatches)} of {len(CASES)} differ; first: {mismatches[:3]}"
