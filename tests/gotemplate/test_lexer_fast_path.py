"""The lexer's fast path gives exactly the exact state machine's items, and so the same trees.

``lex(fast=False)`` runs the original per-character state machine alone. Every template
of the charts in ../shared/charts (when present), the Go corpus and the lexer and parser
cases, and thousands of generated inputs, well formed or not, must lex to identical items
(kinds, values, positions, lines, errors) and parse to identical trees or identical errors
either way. The same inputs check the compact stream the parser reads first (no spaces,
field chains whole): the exact items less spaces and with adjacent fields joined, and the
same trees or errors as the parser gives from every item (``parser.COMPACT_ITEMS`` off).
"""
from __future__ import annotations

import random
from typing import Any

import pytest

from helm_core.chart import loader, model
from helm_core.engine.files import bytes_to_text
from helm_core.gotemplate import lexer, nodes, parser
from tests.chartkit import SHARED_CHARTS, shared_chart_names

LEX_OPTIONS = [{}, {"break_ok": False, "continue_ok": False}, {"emit_comments": True}]
KNOWN = frozenset({"include", "quote", "default", "printf", "toYaml", "nindent", "and", "or", "not",
                   "eq", "len", "index", "list", "dict", "tpl", "upper", "trunc", "print"})


def assert_same_items(text: str) -> None:
    for opts in LEX_OPTIONS:
        fast = lexer.lex(text, fast=True, **opts)
        exact = lexer.lex(text, fast=False, **opts)
        assert fast == exact, f"{opts} {text!r}"
        # Equal values are not enough: the items must be Items (the parser prints them).
        assert all(type(item) is lexer.Item for item in fast)
        compact = lexer.lex_raw(text, compact=True, **opts)
        assert lexer.compacted(compact) == lexer.compacted(list(map(tuple, exact))), f"{opts} {text!r}"


def shape(obj: Any) -> Any:
    """A parse tree as plain data: every slot of every node, the tree by name."""
    if isinstance(obj, nodes.Node):
        slots = [s for cls in type(obj).__mro__ for s in getattr(cls, "__slots__", ())]
        fields = tuple((s, shape(getattr(obj, s))) for s in slots if s != "tr")
        return (type(obj).__name__, obj.tr.name, fields)
    if isinstance(obj, list):
        return [shape(x) for x in obj]
    if isinstance(obj, float):
        return repr(obj)  # nan != nan
    return obj


def parse_outcome(name: str, text: str, known: frozenset[str]) -> Any:
    try:
        trees = parser.parse(name, text, known.__contains__)
    except parser.ParseError as exc:
        return ("error", str(exc), exc.reason, exc.template_name, exc.pos)
    return {k: (t.name, t.parse_name, shape(t.root)) for k, t in trees.items()}


def assert_same_as_without(module: Any, switch: str, name: str, text: str, known: frozenset[str],
                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The parse (trees or error) is the same with ``module.switch`` (a fast path) off."""
    with monkeypatch.context() as m:
        m.setattr(module, switch, False)
        general = parse_outcome(name, text, known)
    fast = parse_outcome(name, text, known)
    assert fast == general, f"{name}: {text!r}"


def assert_same_parse(name: str, text: str, known: frozenset[str],
                      monkeypatch: pytest.MonkeyPatch) -> None:
    assert_same_as_without(lexer, "FAST_PATH", name, text, known, monkeypatch)
    assert_same_as_without(parser, "COMPACT_ITEMS", name, text, known, monkeypatch)


# -- the shared charts --------------------------------------------------------------------

def _chart_templates(chart_name: str) -> list[tuple[str, str]]:
    chart = loader.load(SHARED_CHARTS / chart_name)
    return [(name, bytes_to_text(f.data)) for name, f in model.all_template_files(chart)]


@pytest.mark.parametrize("chart_name", shared_chart_names() or ["<none>"])
def test_shared_chart_templates_lex_and_parse_the_same(chart_name: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    if chart_name == "<none>":
        pytest.skip(f"{SHARED_CHARTS} not present: fast path compared on generated inputs only")
    templates = _chart_templates(chart_name)
    assert templates, f"{chart_name} has no templates"
    from helm_core.engine import helm_funcs
    from helm_core.gotemplate.funcs import builtins, sprig
    known = (frozenset(builtins.BUILTINS) | frozenset(helm_funcs.helm_func_map(sprig.SPRIG_FUNCS))
             | {"include", "tpl", "required", "fail", "lookup"})
    exact_actions = []
    original = lexer._Lexer.lex_inside_action
    monkeypatch.setattr(lexer._Lexer, "lex_inside_action",
                        lambda self: exact_actions.append(1) or original(self))
    for _, text in templates:
        lexer.lex(text, fast=True)
    actions = sum(text.count("{{") for _, text in templates)
    # Real charts are what the fast path is for: nearly all their actions must take it.
    assert len(exact_actions) <= actions // 20, f"{len(exact_actions)} of {actions} lexed exactly"
    monkeypatch.undo()
    rng = random.Random(chart_name)
    for name, text in templates:
        assert_same_items(text)
        assert_same_parse(name, text, known, monkeypatch)
        # Cut templates end anywhere: inside actions, strings, comments, delimiters.
        for _ in range(3):
            cut = rng.randrange(len(text) + 1)
            for piece in (text[:cut], text[cut:]):
                fast, exact = lexer.lex(piece, fast=True), lexer.lex(piece, fast=False)
                assert fast == exact, f"{name} cut at {cut}"


def test_fast_path_is_taken_on_real_shaped_templates(monkeypatch: pytest.MonkeyPatch) -> None:
    """Guard against a fast path that silently never runs (the comparisons would still pass)."""
    calls = []
    original = lexer._Lexer.lex_inside_action
    monkeypatch.setattr(lexer._Lexer, "lex_inside_action",
                        lambda self: calls.append(1) or original(self))
    text = ('{{- define "x" -}}\nname: {{ include "a" . | quote }}\n'
            '{{- if .Values.b }}{{ $v := (index .c 0).d }}{{ end }}')
    lexer.lex(text, fast=True)
    assert calls == []  # no action needed the exact states
    lexer.lex(text, fast=False)
    assert len(calls) == 5  # one per action


# -- generated inputs -------------------------------------------------------------------------

FRAGMENTS = [
    "{{", "}}", "{{- ", " -}}", "{{-", "-}}", "{{-\n", "\n-}}", "{{/*", "*/}}", "/*", "*/",
    "{{/* c */}}", "{{- /* c */ -}}",
    # From here on: what may stand inside an action.
    " ", "  ", "\t", "\n", "\r\n", "\r", ".", ".Values", ".a.b", "._x", ".9", "$", "$x", "$1",
    "$x.y",
    "x", "if", "else", "end", "range", "break", "continue", "with", "define", "template", "block",
    "nil", "true", "false", "include", "quote", "(", ")", "|", ",", ":=", "=", ":",
    "\"", "\"a\"", "\"a\\\"b\"", "\"\\n\"", "\"\\q\"", "\"a\nb\"", "`", "`raw\nx`", "``",
    "'", "'a'", "'\\''", "'ab'", "0", "1", "42", "1.5", ".5", "1e3", "1E+3", "0x1F", "0X1p-2",
    "0o7", "0b1", "1_000", "-1", "+2", "1+2i", "3i", "08", "0x", "1a",
    "é", "ü", "日本", "x\u00e9", "\u00a0", "\u3000", "\x00", "\x7f", "\u2028", "\udcff",
    "!", "#", "%", "}", "{", "-", "+", "*", "/", "\\", ";", "[", "]", "text: ", "a-b", "{{{", "}}}",
    "- ", " -",
]


INSIDE = FRAGMENTS.index(" ")


def _random_template(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return "".join(rng.choice(FRAGMENTS) for _ in range(rng.randint(1, 30)))
    # Mostly well-formed actions with random insides: these reach deep into the fast path.
    parts = []
    for _ in range(rng.randint(1, 6)):
        parts.append(rng.choice(["", "a", " b\n", "x: y\n  ", "\n\n", "{ }"]))
        parts.append(rng.choice(["{{", "{{- ", "{{-\t"]))
        parts.extend(rng.choice(FRAGMENTS[INSIDE:]) for _ in range(rng.randint(0, 8)))
        parts.append(rng.choice(["}}", " -}}", "\n-}}", "  -}}", "}"]))
    return "".join(parts)


def test_generated_inputs_lex_and_parse_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(20261123)
    for i in range(4000):
        text = _random_template(rng)
        assert_same_items(text)
        known = KNOWN | {"break"} if i % 7 == 0 else KNOWN  # "break" a function: not a keyword
        assert_same_parse(f"gen{i}", text, known, monkeypatch)


@pytest.mark.parametrize("text", [
    "{{ .a  -}}", "{{ .a \n-}}\n x", "{{ .a -}}}", "{{ .a-}}", "{{ (.a }}", "{{ .a) }}",
    "{{ ((.a)) }}", "{{ .a }}{{/* c */}}{{ .b }}", "{{ .a }}{{- /* c */ -}}{{ .b }}",
    "{{ .a }}{{/*c */}}", "{{ .a }}x{{", "{{ .a }}x{", "{{ .a }}{{{ .b }}",
    "{{ `a\nb` }}\n{{ .c }}",
    "{{ \"a\\\"}}\" }}", "{{ 'x' }}", "{{ '}}' }}", "{{ $ }}", "{{ $x := 1 }}", "{{ .a.b.c }}",
    "{{ . }}", "{{ .}}", "{{.}}", "{{ 1 }}", "{{ 1}}", "{{ 1. }}", "{{ nil }}", "{{ x\u00e9 }}",
    "{{ .\u00e9 }}", "{{ 1\u0663 }}", "{{", "{{ .a", "{{ .a }", "}}", "{{- }}", "{{-}}", "{{ -}}",
    "{{- -}}", "  {{- .a -}}  \n  {{- .b -}}  ",
    # Stops at unknown tokens (then the run bounds the scan), comments, "/*" in text and strings.
    "{{ .a }} {{ 1.5 }} {{ .b }}\n{{ -1 }}{{/* c */}}{{ .c }} /* x */ {{ .d \"/*\" }}{{- /* e */}}x",
    # The compact stream: operands told apart by the gaps the left-out spaces leave.
    "{{ .a .b }}", "{{ .a.b .c.d }}", "{{ $x := 1 }}{{ $x.a .b }}{{ $x.a.b }}", "{{ (.a).b.c .d }}",
    "{{ .a\"x\" }}", "{{ .a.b\"x\" }}", "{{ .a.b(.c) }}", "{{ .a.b|quote }}", "{{ .a.b\n\t.c }}",
    "{{ if .a.b .c }}x{{ end }}", "{{ with .a.b }}{{ .c.d }}{{ else }}y{{ end }}", "{{ .a.b.c.d.e }}",
    "{{ index .a.b 0 }}", "{{ 1 .a.b }}", "{{ .a.b 1 }}", "{{ nil.a }}", "{{ \"s\".a.b }}", "{{ ..a }}",
    # ... whose tokens take the spaces after them (newlines counted, the space of a "-}}" left).
    "{{ if  .a\n\n }}x{{ end\n}}\n{{ .b }}", "{{ ( .a ) }}", "{{ .a |  quote\t}}", "{{ $x  :=\n1 }}{{ $x }}",
    "{{ `a\nb`  \n .c }}\n{{ .d }}", "{{ .a  -}}\n x", "{{ .a\n -}} x", "{{ else  }}", "{{ \"x\"\r\n}}",
    # A name, field, variable or dot before a lone "}" (the fast loop stops there).
    "{{ .a}x }}", "{{ .a.b} }}{{ .c }}", "{{ x}.b }}", "{{ $x}}} {{ .d }}", "{{ .}{ }}", "{{ .a}\n}}",
    "{{ true}}}", "{{ .a }}{{ .b}-}}",
])
def test_edge_cases_lex_and_parse_the_same(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert_same_items(text)
    assert_same_parse("edge", text, KNOWN, monkeypatch)


# -- the existing corpora -----------------------------------------------------------------------

def _corpus_inputs() -> list[str]:
    from tests.gotemplate import test_go_corpus, test_lexer, test_parser
    corpus = test_go_corpus.CORPUS
    return ([case[0] for case in corpus["parse"]] + [case[0] for case in corpus["exec"]]
            + [case[1] for case in test_lexer.LEX_CASES]
            + [case[1] for case in test_parser.PARSE_CASES])


def test_go_corpus_lexer_and_parser_cases_lex_and_parse_the_same(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Go's own answers are checked elsewhere (fast path on); here: the exact path agrees too."""
    from tests.gotemplate import test_go_corpus
    inputs = _corpus_inputs()
    assert len(inputs) > 800
    for i, text in enumerate(inputs):
        assert_same_items(text)
        assert_same_parse(f"corpus{i}", text, test_go_corpus.PARSE_FUNCS, monkeypatch)
