"""Parser: Go's grammar and parse errors; expected reprints and messages come from Go's text/template/parse."""
from __future__ import annotations

import itertools

import pytest

from helm_core.gotemplate import literals, nodes, parser
from helm_core.gotemplate.lexer import ItemType

FUNCS = frozenset(
    {"upper", "include", "and", "or", "not", "len", "index", "slice", "print", "printf", "println",
     "html", "js", "urlquery", "call", "eq", "ne", "lt", "le", "gt", "ge"}
)


def _reprint(text: str) -> str:
    """The file template's reprint, then the defines a/b/c (the table's format)."""
    trees = parser.parse("x", text, FUNCS.__contains__)
    out = str(trees["x"].root)
    if len(trees) > 1:
        for name in "abc":
            if name in trees:
                out += f" ||{name}:{trees[name].root}"
    return out


# (name, input, ok, reprint or exact error message)
PARSE_CASES = [
    ('empty', '', True, ''),
    ('text', 'some text', True, 'some text'),
    ('comment_dropped', '{{/* comment */}}', True, ''),
    ('dot', '{{.}}', True, '{{.}}'),
    ('trim_markers', '{{- .x -}}  a  {{- .y}}', True, '{{.x}}a{{.y}}'),
    ('trim_around_comment', 'a {{- /* c */ -}}  b', True, 'ab'),
    ('field_chain', '{{.X.Y.Z}}', True, '{{.X.Y.Z}}'),
    ('declare_and_use', '{{$x := 3}}{{$x}}', True, '{{$x := 3}}{{$x}}'),
    ('assign', '{{$x := 3}}{{$x = 4}}{{$x.a.b}}', True, '{{$x := 3}}{{$x = 4}}{{$x.a.b}}'),
    ('undefined_variable', '{{$x}}', False, 'template: x:1: undefined variable "$x"'),
    ('range_two_vars', '{{range $i, $v := .}}{{$i}}{{$v}}{{end}}', True, '{{range $i, $v := .}}{{$i}}{{$v}}{{end}}'),
    ('range_three_vars', '{{range $i, $v, $w := .}}{{end}}', False, 'template: x:1: too many declarations in range'),
    ('range_else', '{{range .}}a{{else}}b{{end}}', True, '{{range .}}a{{else}}b{{end}}'),
    ('break_continue', '{{range .}}{{break}}{{continue}}{{end}}', True, '{{range .}}{{break}}{{continue}}{{end}}'),
    ('break_outside_range', '{{break}}', False, 'template: x:1: {{break}} outside {{range}}'),
    ('continue_outside_range', '{{if .}}{{continue}}{{end}}', False, 'template: x:1: {{continue}} outside {{range}}'),
    ('else_if', '{{if .}}a{{else if .b}}b{{else}}c{{end}}', True, '{{if .}}a{{else}}{{if .b}}b{{else}}c{{end}}{{end}}'),
    ('else_with', '{{with .}}a{{else with .b}}b{{end}}', True, '{{with .}}a{{else}}{{with .b}}b{{end}}{{end}}'),
    ('two_elses', '{{if .}}a{{else}}b{{else}}c{{end}}', False, 'template: x:1: expected end; found {{else}}'),
    ('define_and_template', '{{define "a"}}A{{end}}{{template "a" .}}{{template "b"}}', True, '{{template "a" .}}{{template "b"}} ||a:A'),
    ('block', '{{block "b" .}}B{{end}}', True, '{{template "b" .}} ||b:B'),
    ('multiple_definition', '{{define "a"}}A{{end}}{{define "a"}}B{{end}}', False, 'template: x:1: template: multiple definition of template "a"'),
    ('empty_redefinition_ok', '{{define "a"}}A{{end}}{{define "a"}} {{end}}', True, ' ||a:A'),
    ('paren_chain', '{{(index .a 0).b}}', True, '{{(index .a 0).b}}'),
    ('paren_field_chain', '{{(.x).y.z}}', True, '{{(.x).y.z}}'),
    ('numbers', "{{print 1 2 3.5 0x1F 0o17 0b101 1_000 1e3 'a' '\\n' -2 +3 1i 1+2i}}", True, "{{print 1 2 3.5 0x1F 0o17 0b101 1_000 1e3 'a' '\\n' -2 +3 1i 1+2i}}"),
    ('strings', '{{print "a\\tb" `raw`}}', True, '{{print "a\\tb" `raw`}}'),
    ('nil_action', '{{nil}}', True, '{{nil}}'),
    ('field_of_literal', '{{true.x}}', False, 'template: x:1: unexpected . after term "true"'),
    ('pipeline', '{{.x | printf "%d" | upper}}', True, '{{.x | printf "%d" | upper}}'),
    ('non_executable_stage', '{{.x | 3}}', False, 'template: x:1: non executable command in pipeline stage 2'),
    ('unknown_function', '{{foo}}', False, 'template: x:1: function "foo" not defined'),
    ('unclosed_action_brace', '{{.x}', False, "template: x:1: bad character U+007D '}'"),
    ('unclosed_action', '{{.x', False, 'template: x:1: unclosed action'),
    ('unclosed_paren', '{{(.x}}', False, 'template: x:1: unclosed left paren'),
    ('unexpected_right_paren', '{{.x)}}', False, 'template: x:1: unexpected right paren'),
    ('unterminated_string', '{{"abc}}', False, 'template: x:1: unterminated quoted string'),
    ('bad_char_constant', "{{'ab'}}", False, "template: x:1: malformed character constant: 'ab'"),
    ('bad_octal', '{{08}}', False, 'template: x:1: integer overflow: "08"'),
    ('integer_overflow_is_float', '{{99999999999999999999}}', False, 'template: x:1: integer overflow: "99999999999999999999"'),
    ('stray_end', '{{end}}', False, 'template: x:1: unexpected {{end}}'),
    ('stray_else', '{{else}}', False, 'template: x:1: unexpected {{else}}'),
    ('unclosed_if', '{{if .}}', False, 'template: x:1: unexpected EOF'),
    ('if_without_pipeline', '{{if}}{{end}}', False, 'template: x:1: missing value for if'),
    ('range_variable_scope', '{{range $x := .}}{{$x}}{{end}}{{$x}}', False, 'template: x:1: undefined variable "$x"'),
    ('with_sees_outer_var', '{{ $x := 1 }}{{ with $y := 2 }}{{ $x }}{{ $y }}{{ end }}', True, '{{$x := 1}}{{with $y := 2}}{{$x}}{{$y}}{{end}}'),
    ('define_has_own_scope', '{{define "a" }}{{ $x }}{{end}}', False, 'template: x:1: undefined variable "$x"'),
    ('template_name_must_be_string', '{{template .x}}', False, 'template: x:1: unexpected ".x" in template clause'),
    ('paren_arg', '{{printf "%d" ( 1 )}}', True, '{{printf "%d" (1)}}'),
    ('bad_character', '{{#}}', False, 'template: x:1: unexpected "#" in command'),
    ('trailing_dot', '{{.x.}}', False, 'template: x:1: unexpected <.> in operand'),
    ('dollar', '{{$.x}}{{$}}', True, '{{$.x}}{{$}}'),
    ('string_escapes', '{{print "\\x41\\u00e9\\101"}}', True, '{{print "\\x41\\u00e9\\101"}}'),
    ('bad_escape', '{{"\\q"}}', False, 'template: x:1: invalid syntax'),
    ('unclosed_comment', '{{/* unclosed', False, 'template: x:1: unclosed comment'),
    ('comment_not_closing_action', '{{/* x */ }}', False, 'template: x:1: comment ends before closing delimiter'),
    ('unclosed_action_multiline', 'a\n{{ .x\nb }}', False, 'template: x:3: function "b" not defined'),
    ('range_bad_decl', '{{range $i, 3}}{{end}}', False, 'template: x:1: range can only initialize variables'),
    ('with_two_decls', '{{with $x := 3}}{{$x}}{{end}}{{with $x, $y := 3}}{{end}}', False, 'template: x:1: too many declarations in with'),
    ('field_as_stage', '{{ .a | .b }}', True, '{{.a | .b}}'),
    ('trim_number', '{{- 3 -}}', True, '{{3}}'),
    ('negative_number_no_trim', '{{-3}}', True, '{{-3}}'),
    ('field_with_args', '{{.a.b 1 2}}', True, '{{.a.b 1 2}}'),
    ('empty_parens', '{{ ( ) }}', False, 'template: x:1: missing value for parenthesized pipeline'),
    ('missing_declared_value', '{{ $x := }}', False, 'template: x:1: missing value for command'),
    ('bad_exponent', '{{ 1.5e }}', False, 'template: x:1: illegal number syntax: "1.5e"'),
    ('hex_float', '{{ 0x1.8p1 }}', True, '{{0x1.8p1}}'),
    ('declare_without_space', '{{ .x:=3 }}', False, 'template: x:1: unexpected ":=" in operand'),
    ('non_ascii_identifier', '{{ é }}', False, 'template: x:1: function "é" not defined'),
    ('error_line_number', 'line1\nline2 {{ if . }}\n  {{ foo }}\n{{ end }}', False, 'template: x:3: function "foo" not defined'),
    ('float_overflow', '{{ 1e999 }}', False, 'template: x:1: illegal number syntax: "1e999"'),
    ('hex_float_overflow', '{{ 0x1p9999 }}', False, 'template: x:1: illegal number syntax: "0x1p9999"'),
    ('float_underflow_is_zero', '{{ 1e-999 }}', True, '{{1e-999}}'),
    ('decimal_float_underscores', '{{ 1_000.5 }}', True, '{{1_000.5}}'),
    ('hex_prefix_underscore', '{{ 0x_1F }}', True, '{{0x_1F}}'),
    ('double_underscore', '{{ 1__0 }}', False, 'template: x:1: illegal number syntax: "1__0"'),
    ('complex_needs_digits', '{{ --21i }}', False, 'template: x:1: strconv.ParseFloat: parsing "-": invalid syntax'),
    ('octal_with_underscore', '{{ 0_17 }}', True, '{{0_17}}'),
]


@pytest.mark.parametrize(("text", "ok", "result"), [c[1:] for c in PARSE_CASES], ids=[c[0] for c in PARSE_CASES])
def test_parse_reprints_or_fails_like_go(text: str, ok: bool, result: str) -> None:
    if ok:
        assert _reprint(text) == result
    else:
        with pytest.raises(parser.ParseError) as info:
            _reprint(text)
        assert str(info.value) == result


def test_parse_error_carries_template_name_and_line() -> None:
    with pytest.raises(parser.ParseError) as info:
        parser.parse("chart/templates/a.yaml", "a\n\n{{ nope }}", FUNCS.__contains__)
    assert info.value.template_name == "chart/templates/a.yaml"
    assert info.value.pos is not None and info.value.pos.line == 3
    assert str(info.value) == 'template: chart/templates/a.yaml:3: function "nope" not defined'


def test_define_trees_know_the_file_they_came_from() -> None:
    trees = parser.parse("f.yaml", 'x{{define "a"}}\n{{.y}}{{end}}', FUNCS.__contains__)
    assert sorted(trees) == ["a", "f.yaml"]
    assert trees["a"].parse_name == "f.yaml"
    action = trees["a"].root.nodes[1]
    assert isinstance(action, nodes.ActionNode)
    assert trees["a"].location(action.pipe.cmds[0].args[0].pos) == "f.yaml:2:2"


def test_break_is_an_identifier_when_a_function_has_that_name() -> None:
    trees = parser.parse("x", "{{break}}", (FUNCS | {"break"}).__contains__)
    assert str(trees["x"].root) == "{{break}}"
    assert isinstance(trees["x"].root.nodes[0], nodes.ActionNode)


@pytest.mark.parametrize(
    ("text", "kind", "fields"),
    [
        ("{{1}}", "int", (True, True, True, 1)),
        ("{{1.5}}", "float", (False, False, True, 1.5)),
        ("{{1e3}}", "float-int", (True, True, True, 1000)),
        ("{{-1}}", "negative", (True, False, True, -1)),
        ("{{0x10}}", "hex", (True, True, True, 16)),
        ("{{'a'}}", "char", (True, True, True, 97)),
    ],
    ids=["int", "float", "float_integral", "negative", "hex", "char"],
)
def test_number_nodes_record_which_go_types_hold_them(text: str, kind: str, fields: tuple[object, ...]) -> None:
    trees = parser.parse("x", text, FUNCS.__contains__)
    action = trees["x"].root.nodes[0]
    assert isinstance(action, nodes.ActionNode)
    num = action.pipe.cmds[0].args[0]
    assert isinstance(num, nodes.NumberNode)
    is_int, is_uint, is_float, value = fields
    assert (num.is_int, num.is_uint, num.is_float) == (is_int, is_uint, is_float)
    assert (num.int64 if is_int else num.float64) == value


@pytest.mark.parametrize("text", ["0", "7", "10", "8080", "999999999999999999", "9223372036854775807",
                                  "9223372036854775808", "18446744073709551615", "18446744073709551616",
                                  "010", "00", "0x1f", "1_000", "\u0663", "1e3", "1.5"])
def test_plain_decimals_read_as_the_general_rules_read_them(text: str) -> None:
    # new_number's shortcut for plain decimals gives what Go's rules (_decide) give.
    def fields(num: nodes.NumberNode) -> tuple[object, ...]:
        return (num.is_int, num.is_uint, num.is_float, num.is_complex, num.int64, num.uint64, num.float64)

    try:
        general = fields(literals._decide(nodes.NumberNode(None, 0, text), text, ItemType.NUMBER))
    except ValueError as exc:
        with pytest.raises(ValueError, match=str(exc)):
            literals.new_number(None, 0, text, ItemType.NUMBER)
        return
    assert fields(literals.new_number(None, 0, text, ItemType.NUMBER)) == general


def _shape(trees: dict[str, nodes.Tree]) -> dict[str, object]:
    return {key: (t.name, t.parse_name, t.text, type(t.root).__name__, t.root.pos if t.root else None,
                  [(type(x).__name__, x.pos, str(x), x.tr is t) for x in (t.root.nodes if t.root else [])],
                  nodes.dump_tree(t))
            for key, t in trees.items()}


def test_a_text_without_actions_makes_the_trees_the_parser_makes() -> None:
    """nodes.text_trees answers for texts with no ``{{`` (tpl of plain values) without the parser."""
    texts = ["".join(t) for n in range(6) for t in itertools.product("{} a\n-/*\u00e9", repeat=n)]
    texts += ["}}{x}", "/* {{", "{ {", "\ud800", "x" * 5000]
    checked = 0
    for text in texts:
        if "{{" in text:
            continue
        checked += 1
        assert _shape(nodes.text_trees("t.yaml", text)) == _shape(parser.parse("t.yaml", text, lambda _: True)), text
    assert checked > 50000
