"""Environment and TemplateSet: Go's template-family rules and the API the Helm render layer uses."""
from __future__ import annotations

from typing import Any

import pytest

from helm_core.gotemplate import Environment, ExecError, ParseError, current_set, environment
from helm_core.golib.gotypes import signature


def test_parse_adds_file_and_its_defines() -> None:
    tset = Environment().new_set()
    tset.parse("a.yaml", 'x{{ define "inner" }}I{{ end }}')
    assert tset.names() == ["a.yaml", "inner"]
    assert tset.has("inner") and not tset.has("nope")
    assert tset.execute("a.yaml", None) == "x"
    assert tset.execute("inner", None) == "I"


def test_later_parse_of_a_define_replaces_the_earlier_one() -> None:
    tset = Environment().new_set()
    tset.parse("a.yaml", '{{ define "d" }}first{{ end }}')
    tset.parse("b.yaml", '{{ define "d" }}second{{ end }}{{ template "d" }}')
    assert tset.execute("b.yaml", None) == "second"


def test_empty_redefinition_does_not_replace() -> None:
    tset = Environment().new_set()
    tset.parse("a.yaml", '{{ define "d" }}kept{{ end }}')
    tset.parse("b.yaml", '{{ define "d" }}  {{/* nothing */}}\n{{ end }}')
    assert tset.execute("d", None) == "kept"


# Go's TestEmptyTemplate (multi_test.go): each text parsed in turn as template ``in`` of one
# root; the template the last Parse returned is executed with dot = ``in``.
@pytest.mark.parametrize(
    ("texts", "name", "expected"),
    [
        (["x", "y"], "", "y"),
        ([""], "once", ""),
        (["", ""], "twice", ""),
        (["{{.}}", "{{.}}"], "twice", "twice"),
        (["{{/* a comment */}}", "{{/* a comment */}}"], "comment", ""),
        (["{{.}}", ""], "twice", ""),
    ],
)
def test_executing_what_parse_returned_runs_its_own_body(texts: list[str], name: str, expected: str) -> None:
    tset = Environment().new_set("root")
    for text in texts:
        body = tset.parse(name, text)
    assert tset.execute(name, name, body=body) == expected


def test_empty_body_runs_itself_while_the_set_keeps_the_earlier_one() -> None:
    tset = Environment().new_set()
    tset.parse("t", "kept")
    body = tset.parse("t", "  {{/* c */}} ")
    assert tset.execute("t", None, body=body) == "   "
    assert tset.execute("t", None) == "kept"


def test_two_definitions_in_one_text_fail() -> None:
    tset = Environment().new_set()
    with pytest.raises(ParseError) as info:
        tset.parse("a.yaml", '{{ define "d" }}1{{ end }}{{ define "d" }}2{{ end }}')
    assert str(info.value) == 'template: a.yaml:1: template: multiple definition of template "d"'


def test_execute_unknown_template_names_the_set() -> None:
    tset = Environment().new_set("gotpl")
    with pytest.raises(ExecError) as info:
        tset.execute("nope", None)
    assert str(info.value) == 'template: no template "nope" associated with template "gotpl"'


def test_clone_is_independent_of_the_original() -> None:
    tset = Environment().new_set()
    tset.parse("a", '{{ define "d" }}orig{{ end }}')
    copy = tset.clone()
    copy.parse("tpl", '{{ define "d" }}changed{{ end }}{{ template "d" }}')
    assert copy.execute("tpl", None) == "changed"
    assert tset.execute("d", None) == "orig"
    assert not tset.has("tpl")


def test_clone_shares_compiled_trees() -> None:
    tset = Environment().new_set()
    tset.parse("a", "{{ .x }}")
    assert tset.clone().tree("a") is tset.tree("a")


def test_same_text_is_parsed_once_per_environment() -> None:
    env = Environment()
    one, two = env.new_set(), env.new_set()
    one.parse("a", "{{ .x }}")
    two.parse("a", "{{ .x }}")
    assert one.tree("a") is two.tree("a")


def test_set_functions_are_visible_only_in_that_set() -> None:
    env = Environment()
    tset = env.new_set()
    tset.add_funcs({"hello": signature()(lambda: "hi")})
    tset.parse("a", "{{ hello }}")
    assert tset.execute("a", None) == "hi"
    with pytest.raises(ParseError) as info:
        env.new_set().parse("a", "{{ hello }}")
    assert str(info.value) == 'template: a:1: function "hello" not defined'


def test_functions_can_reenter_the_executing_set() -> None:
    """Helm's include: a function executing another template of the running set."""

    @signature("string", "interface {}")
    def include(name: str, data: Any) -> str:
        tset = current_set()
        assert tset is not None
        return tset.execute(name, data)

    tset = Environment({"include": include}).new_set()
    tset.add_funcs({"upper": signature("string")(lambda s: s.upper())})
    tset.parse("a.yaml", '{{ define "lbl" }}app: {{ .name }}{{ end }}[{{ include "lbl" . | upper }}]')
    assert tset.execute("a.yaml", {"name": "x"}) == "[APP: X]"
    assert current_set() is None


def test_error_inside_reentered_template_is_wrapped_like_go() -> None:
    @signature("string", "interface {}")
    def include(name: str, data: Any) -> str:
        return current_set().execute(name, data)  # type: ignore[union-attr]

    tset = Environment({"include": include}).new_set()
    tset.parse("a.yaml", '{{ define "bad" }}{{ .x.y }}{{ end }}{{ include "bad" . }}')
    with pytest.raises(ExecError) as info:
        tset.execute("a.yaml", {"x": 1.0})
    assert str(info.value) == (
        'template: a.yaml:1:40: executing "a.yaml" at <include "bad" .>: error calling include: '
        'template: a.yaml:1:23: executing "bad" at <.x.y>: can\'t evaluate field y in type interface {}'
    )


def test_missingkey_error_option() -> None:
    tset = Environment(missingkey="error").new_set()
    tset.parse("a", "{{ .nope }}")
    with pytest.raises(ExecError) as info:
        tset.execute("a", {})
    assert str(info.value) == 'template: a:1:3: executing "a" at <.nope>: map has no entry for key "nope"'


def test_unknown_missingkey_mode_is_refused() -> None:
    with pytest.raises(ValueError):
        Environment(missingkey="strict")  # type: ignore[arg-type]


def test_recursion_past_python_limit_is_an_error_not_a_crash() -> None:
    # In a thread of its own (as the engine renders) with a small stack and limit: Go's
    # maxExecDepth is not reached, and the error does not pretend it was.
    import sys
    import threading

    tset = Environment().new_set()
    tset.parse("a", '{{ define "r" }}{{ template "r" . }}{{ end }}{{ template "r" . }}')
    caught: list[BaseException] = []
    saved = sys.getrecursionlimit()

    def run() -> None:
        sys.setrecursionlimit(environment.RECURSION_LIMIT)
        try:
            tset.execute("a", None)
        except ExecError as exc:
            caught.append(exc)

    previous = threading.stack_size(64 * 1024 * 1024)
    try:
        worker = threading.Thread(target=run)
        worker.start()
        worker.join()
    finally:
        threading.stack_size(previous)
        sys.setrecursionlimit(saved)
    assert [str(e) for e in caught] == [
        f"template: a: templates nested too deep (past Python's recursion limit of {environment.RECURSION_LIMIT})"]


def test_set_can_override_missingkey_and_clones_keep_it() -> None:
    env = Environment()
    strict = env.new_set(missingkey="error")
    strict.parse("a", "{{ .nope }}")
    with pytest.raises(ExecError):
        strict.clone().execute("a", {})
    lenient = env.new_set()
    lenient.parse("a", "{{ .nope }}")
    assert lenient.execute("a", {}) == "<no value>"
