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
from tests.chartkit import SHARED_CHARTS, shared_chart_names
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


def _closures_only(templates: list[str], data: dict[str, Any]) -> tuple[str, str]:
    return _outcome(lambda: test_exec.run(templates, data, "zero"))


def test_nesting_past_pythons_limits_calls_closures_for_the_deepest() -> None:
    # 60 nested ifs and 10 nested ranges: CPython allows 20 nested blocks and 100 indents.
    text = "{{ if .t }}" * 60 + "{{ range $.l }}" * 10 + "x" + "{{ end }}" * 70
    data = {"t": True, "l": [1, 2]}
    run = _generated_run([text], data, "zero", all_inline=False)
    assert _outcome(run) == _closures_only([text], data) == ("ok", "x" * 2 ** 10)


def test_bodies_that_did_not_run_are_not_read() -> None:
    # The memo stores only the bodies that ran (nodes.BranchNode): generating must not read others.
    tset = Environment(test_exec.FUNCS, missingkey="zero").new_set()
    tset.parse("t0", "{{ if .t }}a{{ else }}b{{ end }}{{ range .l }}c{{ else }}d{{ end }}")
    assert tset.execute("t0", {"t": True, "l": []}) == "ad"
    tset.generate_code()
    if_node, range_node = tset.tree("t0").root.nodes
    assert (if_node.entered, range_node.entered) == (1, 2)
    assert tset.execute("t0", {"t": False, "l": [1]}) == "bc"  # now the lazy branches run
    assert tset.tree("t0").compiled.__code__.co_filename == "<template t0>"


def test_source_reads_map_keys_inline_and_calls_closures_for_the_rest() -> None:
    tset = Environment(test_exec.FUNCS, missingkey="zero").new_set()
    tset.parse("t0", "{{ .a.b }}{{ upper .a.b }}")
    source, consts = codegen.function_source(tset.tree("t0"))
    assert "if r.__class__ is dict and 'a' in r:" in source
    assert sum(isinstance(c, type(compiler.compile_tree)) for c in consts) == 2  # .a.b's and upper's closures


def _chart(root: Any, templates: dict[str, str]) -> Any:
    root.joinpath("templates").mkdir(parents=True)
    root.joinpath("Chart.yaml").write_text("apiVersion: v2\nname: cg\nversion: 0.1.0\n")
    root.joinpath("values.yaml").write_text("a:\n  b: [1, 2]\n")
    for name, text in templates.items():
        root.joinpath("templates", name).write_text(text)
    return root


def test_a_chart_rendered_again_runs_generated_code(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _chart(tmp_path / "cg", {
        "_helpers.tpl": '{{ define "cg.name" }}{{ .Chart.Name }}-{{ .Values.a.b | len }}{{ end }}',
        "cm.yaml": '{{ range $i, $x := .Values.a.b }}{{ $i }}={{ include "cg.name" $ }};{{ end }}',
    })
    generated: list[str] = []
    generate = codegen.generate

    def spy(tree: Any, funcs: Any) -> Any:
        generated.append(tree.name)
        return generate(tree, funcs)

    monkeypatch.setattr(codegen, "generate", spy)
    outputs, generated_before = [], []
    for _ in range(render.GENERATE_CODE_AT + 1):
        generated_before.append(len(generated))
        prepared = prepare.prepare_chart(loader.load(str(root)), {})
        outputs.append(render.render(prepared.chart, prepared.values))
    assert all(output == {"cg/templates/cm.yaml": "0=cg-2;1=cg-2;"} for output in outputs)
    assert generated_before == [0] * render.GENERATE_CODE_AT + [2]  # at the GENERATE_CODE_AT-th render
    assert sorted(generated) == ["cg.name", "cg/templates/cm.yaml"]  # once


@pytest.mark.parametrize("chart_name", shared_chart_names() or ["<none>"])
def test_shared_charts_render_the_same_from_generated_code(chart_name: str,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Every template of the real charts whose output does not change from render to render
    (no random values) prints the same from generated code as from the closures."""
    if chart_name == "<none>":
        pytest.skip(f"{SHARED_CHARTS} not present: generated code checked on the Go corpus only")
    chart_dir = str(SHARED_CHARTS / chart_name)

    def once() -> dict[str, str]:
        prepared = prepare.prepare_chart(loader.load(chart_dir), {})
        return render.render(prepared.chart, prepared.values)

    generated: list[str] = []
    generate = codegen.generate
    monkeypatch.setattr(codegen, "generate", lambda tree, funcs: generated.append(tree.name) or generate(tree, funcs))
    monkeypatch.setattr(render, "GENERATE_CODE_AT", 10 ** 9)
    first, second = once(), once()
    steady = {name for name in first if first[name] == second.get(name)}
    assert not generated
    monkeypatch.setattr(render, "GENERATE_CODE_AT", 1)
    third = once()
    assert generated, "no tree was compiled to code"
    assert {name: third[name] for name in steady} == {name: first[name] for name in steady}
    assert set(third) == set(first)


def test_code_is_generated_again_only_for_templates_that_ran_since(monkeypatch: pytest.MonkeyPatch) -> None:
    """A set that renders again calls ``generate_code`` every render: it looks at no tree when
    no template was compiled since it last did, and generates a template that ran first since."""
    tset = Environment(test_exec.FUNCS).new_set()
    tset.parse("t0", '{{ if .late }}{{ template "late" . }}{{ end }}ok')
    tset.parse("late", "L")
    assert tset.execute("t0", {"late": False}) == "ok"
    tset.generate_code()
    assert tset.tree("t0").generated and not tset.tree("late").generated

    looked: list[str] = []
    tree = type(tset).tree
    monkeypatch.setattr(type(tset), "tree", lambda self, name: looked.append(name) or tree(self, name))
    tset.generate_code()
    assert looked == []  # nothing ran for the first time since
    assert tset.execute("t0", {"late": True}) == "Lok"
    looked.clear()
    tset.generate_code()
    assert "late" in looked and "t0" not in looked
    assert tset.tree("late").generated
    assert tset.execute("t0", {"late": True}) == "Lok"
