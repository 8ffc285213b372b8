"""Callers made per call site (callsite.py) against the general path (runtime.call_function).

Every execution case of test_exec runs again with no site specialised: both paths must give
Go's outputs and messages. A site's caller follows the function the executing set has.
"""
from __future__ import annotations

import random
import types
from pathlib import Path
from typing import Any

import pytest

from helm_core.golib import gostrconv
from helm_core.golib.gotypes import signature
from helm_core.gotemplate import Environment, callsite, callsite_shapes, gofmt, runtime
from helm_core.support import memo
from tests.gotemplate.test_exec import EXEC_CASES, check_case


@pytest.mark.parametrize(
    ("templates", "data", "missingkey", "expected"), [c[1:] for c in EXEC_CASES], ids=[c[0] for c in EXEC_CASES]
)
def test_the_general_path_gives_the_same_results(
    templates: list[str], data: dict[str, Any], missingkey: str, expected: tuple[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(callsite, "site_call", lambda *args: None)
    check_case(templates, data, missingkey, expected)


@signature("string")
def shout(s: str) -> str:
    return s.upper()


@signature("string")
def whisper(s: str) -> str:
    return s.lower()


def test_a_site_calls_the_function_of_the_set_executing_it() -> None:
    loud = Environment().new_set()
    loud.add_funcs({"f": shout})
    loud.parse("t", '{{ f "Ab" }}{{ "Cd" | f }}')
    quiet = loud.clone()  # shares the compiled tree
    quiet.add_funcs({"f": whisper})
    for _ in range(2):
        assert loud.execute("t", {}) == "ABCD"
        assert quiet.execute("t", {}) == "abcd"


@pytest.mark.parametrize("words", [0, 1, 2, 3, callsite.MAX_GENERATED_WORDS, callsite.MAX_GENERATED_WORDS + 1])
@pytest.mark.parametrize("piped", [False, True])
def test_every_word_count_passes_its_words_in_order(words: int, piped: bool) -> None:
    @signature("interface {}", variadic=True)
    def show(*values: Any) -> str:
        return ",".join(gofmt.format_value(v) for v in values)

    kinds = ['"s"', ".", ".a", ".m.k", ".m.n.o.p", "$", "1", "true", "(show 2)"]
    args = " ".join(kinds[i % len(kinds)] for i in range(words))
    text = f'{{{{ "in" | show {args} }}}}' if piped else f"{{{{ show {args} }}}}"
    data = {"a": "A", "m": {"k": "K", "n": {"o": {"p": "P"}}}}
    tset = Environment({"show": show}).new_set()
    tset.parse("t", text)
    values = {'"s"': "s", ".": gofmt.format_value(data), ".a": "A", ".m.k": "K", ".m.n.o.p": "P",
              "$": gofmt.format_value(data), "1": "1", "true": "true", "(show 2)": "2"}
    expected = [values[kinds[i % len(kinds)]] for i in range(words)] + (["in"] if piped else [])
    assert tset.execute("t", data) == ",".join(expected)


def test_plain_printf_formats_print_as_the_printer_does() -> None:
    rng = random.Random(20)
    formats = ["%s", "%v", "%d", "%q", "a%sb%dc", "%%s%s", "%s%%", "100%", "%", "%s-%v-%q", "x%d%d", "%5s",
               "%-s", "%x", "%[1]s", "", "%t", "%v%v"]
    values: list[Any] = ["", "a", 'q"uote', "é\n", 0, -5, 12345678901234567890, True, None, 1.5, [1], {"a": 1}]
    for fmt in formats:
        for _ in range(100):
            args = [rng.choice(values) for _ in range(rng.randint(0, 3))]
            printer = gofmt._Printer()
            printer.do_printf(fmt, args)
            assert gofmt.sprintf(fmt, *args) == "".join(printer.buf), (fmt, args)


def test_quoting_ascii_escapes_each_character_as_strconv_does() -> None:
    text = "".join(chr(c) for c in range(128)) * 2
    expected = '"' + "".join(gostrconv._quote_rune(ch, '"', False) for ch in text) + '"'
    assert gostrconv.quote(text) == expected
    assert gostrconv.quote(text, ascii_only=True) == expected
    assert gostrconv.quote('a"b\\c\n\x7f') == '"a\\"b\\\\c\\n\\x7f"'


def _counting(monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], list[str]]:
    """(the shapes compiled, the sites called through the general path), from now on."""
    compiled: list[str] = []
    general: list[str] = []
    call_function = runtime.call_function

    def counting_compile(source: str, filename: str, mode: str) -> Any:
        compiled.append(filename)
        return compile(source, filename, mode)

    def counting_call_function(*args: Any) -> Any:
        general.append(args[4])
        return call_function(*args)

    monkeypatch.setattr(runtime, "call_function", counting_call_function)
    monkeypatch.setattr(callsite, "compile", counting_compile, raising=False)
    return compiled, general


def _new_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing compiled in this process: the library is read from the memo again."""
    monkeypatch.setattr(callsite, "_MAKERS", {})
    monkeypatch.setattr(callsite, "_LIBRARY", callsite._Library())


def test_with_a_memo_a_site_compiles_its_shape_only_once_it_is_called_often(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    compiled, general = _counting(monkeypatch)

    memo.use(memo.DiskMemo(tmp_path / "memo"))
    try:
        _new_process(monkeypatch)
        # shapes of more words than premade ones (those are bound at once, see the next test)
        text = '{{ range . }}{{ printf "%s%s%s" . . . }}{{ "b" | printf "%s%s%s" . "c" }},{{ end }}'
        tset = Environment({"shout": shout}).new_set()
        tset.parse("t", text)
        few = ["x"] * (callsite.WARM_UP_CALLS - 1)
        assert tset.execute("t", few) == "xxxxcb," * len(few)
        assert compiled == [] and len(general) == 2 * len(few)
        many = ["y"] * (callsite.WARM_UP_CALLS + 3)
        general.clear()
        assert tset.clone().execute("t", many) == "yyyycb," * len(many)
        assert len(compiled) == 2 and len(general) == 2
        callsite.save_compiled()
        _new_process(monkeypatch)  # the shapes the memo keeps are bound at once
        general.clear()
        fresh = Environment({"shout": shout}).new_set()
        fresh.parse("t", text)
        assert fresh.execute("t", few) == "xxxxcb," * len(few)
        assert len(compiled) == 2 and general == []
    finally:
        memo.use(None)



def test_where_the_memo_defers_writes_shapes_compile_after_the_render_unless_they_pay_now(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    compiled, general = _counting(monkeypatch)
    disk = memo.DiskMemo(tmp_path / "memo", defer_writes=True)
    memo.use(disk)
    try:
        _new_process(monkeypatch)
        text = '{{ range . }}{{ printf "%s%s%s" . . . }}{{ "b" | printf "%s%s%s" . "c" }},{{ end }}'
        tset = Environment({"shout": shout}).new_set()
        tset.parse("t", text)
        many = ["y"] * (callsite.WARM_UP_CALLS + 3)
        assert tset.execute("t", many) == "yyyycb," * len(many)
        assert compiled == [] and len(general) == 2 * len(many)  # compiled by the deferred job
        disk.write_pending()
        assert len(compiled) == 2
        _new_process(monkeypatch)  # the shapes the memo keeps are bound at once
        general.clear()
        fresh = Environment({"shout": shout}).new_set()
        fresh.parse("t", text)
        assert fresh.execute("t", many) == "yyyycb," * len(many)
        assert len(compiled) == 2 and general == []
        _new_process(monkeypatch)  # a site called often enough compiles its shape now
        compiled.clear()
        (tmp_path / "memo").rename(tmp_path / "gone")
        tset = Environment({"shout": shout}).new_set()
        tset.parse("t", '{{ range . }}{{ printf "%s%s%s" . . . }}{{ end }}')
        assert tset.execute("t", ["z"] * callsite.PAYING_CALLS) == "zzz" * callsite.PAYING_CALLS
        assert len(compiled) == 1
    finally:
        memo.use(None)

def test_the_premade_shapes_module_is_what_callsite_generates_now() -> None:
    """callsite_shapes.py is regenerated by scripts/gen_callsite_shapes.py when callers change."""
    written = Path(callsite_shapes.__file__).read_text()
    assert written == callsite.premade_module_source(), "run scripts/gen_callsite_shapes.py"
    shapes = callsite.premade_shapes()
    assert len(shapes) == len(set(shapes)) == len(callsite_shapes.MAKERS)
    kinds = len(callsite.WORD_KINDS)
    assert len(shapes) == 2 * sum(kinds**words for words in range(callsite.PREMADE_MAX_WORDS + 1))
    for shape in shapes:  # each maker is the one compiled from the generated source
        namespace: dict[str, Any] = {}
        exec(compile(callsite._maker_source(shape, "make"), "", "exec"), namespace)
        assert _instructions(callsite_shapes.MAKERS[shape].__code__) == _instructions(namespace["make"].__code__)


def _instructions(code: types.CodeType) -> tuple[Any, ...]:
    """What a code object does, without where it was written (file, line, name)."""
    consts = tuple(_instructions(c) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    return code.co_code, code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars, consts


def test_premade_shapes_are_bound_at_once_and_join_the_library(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    compiled, general = _counting(monkeypatch)
    imported: list[str] = []
    premade = callsite._premade

    def counting_premade(shape: Any) -> Any:
        imported.append(shape)
        return premade(shape)

    monkeypatch.setattr(callsite, "_premade", counting_premade)
    text = '{{ range . }}{{ shout . }}{{ "b" | printf "%s%s" . }},{{ end }}'
    for disk in (memo.DiskMemo(tmp_path / "memo"), None):
        memo.use(disk)
        try:
            _new_process(monkeypatch)
            tset = Environment({"shout": shout}).new_set()
            tset.parse("t", text)
            assert tset.execute("t", ["x"]) == "Xxb,"
            assert compiled == [] and general == [] and len(imported) == 2
            callsite.save_compiled()
            _new_process(monkeypatch)  # from the library now, without asking for the premade module
            imported.clear()
            fresh = Environment({"shout": shout}).new_set()
            fresh.parse("t", text)
            assert fresh.execute("t", ["x", "y"]) == "Xxb,Yyb,"
            assert compiled == [] and general == [] and len(imported) == (0 if disk else 2)
            imported.clear()
        finally:
            memo.use(None)
