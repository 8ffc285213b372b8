"""Lexer: Go's item stream (kinds, values, positions, lines) and lexical errors."""
from __future__ import annotations

import pytest

from helm_core.gotemplate import lexer
from helm_core.gotemplate.lexer import ItemType as T


def kinds(text: str, **opts: bool) -> list[tuple[str, str]]:
    return [(i.typ.name, i.val) for i in lexer.lex(text, **opts)]


LEX_CASES = [
    ("text_only", "abc", [("TEXT", "abc"), ("EOF", "")]),
    ("empty_action", "{{}}", [("LEFT_DELIM", "{{"), ("RIGHT_DELIM", "}}"), ("EOF", "")]),
    (
        "trim_markers_eat_space",
        "a  {{- .x -}}\n b",
        [("TEXT", "a"), ("LEFT_DELIM", "{{"), ("FIELD", ".x"), ("RIGHT_DELIM", "}}"), ("TEXT", "b"), ("EOF", "")],
    ),
    (
        "minus_without_space_is_a_number",
        "{{-3}}",
        [("LEFT_DELIM", "{{"), ("NUMBER", "-3"), ("RIGHT_DELIM", "}}"), ("EOF", "")],
    ),
    ("comment_is_dropped", "a{{/* x */}}b", [("TEXT", "a"), ("TEXT", "b"), ("EOF", "")]),
    (
        "declare_assign_pipe",
        "{{$x := 1 | $y = 2}}",
        [
            ("LEFT_DELIM", "{{"), ("VARIABLE", "$x"), ("SPACE", " "), ("DECLARE", ":="), ("SPACE", " "),
            ("NUMBER", "1"), ("SPACE", " "), ("PIPE", "|"), ("SPACE", " "), ("VARIABLE", "$y"), ("SPACE", " "),
            ("ASSIGN", "="), ("SPACE", " "), ("NUMBER", "2"), ("RIGHT_DELIM", "}}"), ("EOF", ""),
        ],
    ),
    (
        "keywords_and_literals",
        "{{if true}}{{else}}{{end}}{{nil}}",
        [
            ("LEFT_DELIM", "{{"), ("IF", "if"), ("SPACE", " "), ("BOOL", "true"), ("RIGHT_DELIM", "}}"),
            ("LEFT_DELIM", "{{"), ("ELSE", "else"), ("RIGHT_DELIM", "}}"),
            ("LEFT_DELIM", "{{"), ("END", "end"), ("RIGHT_DELIM", "}}"),
            ("LEFT_DELIM", "{{"), ("NIL", "nil"), ("RIGHT_DELIM", "}}"), ("EOF", ""),
        ],
    ),
    (
        "strings_chars_numbers",
        "{{\"a\\\"b\" `r` 'c' 0x1F 1e3 1+2i}}",
        [
            ("LEFT_DELIM", "{{"), ("STRING", '"a\\"b"'), ("SPACE", " "), ("RAW_STRING", "`r`"), ("SPACE", " "),
            ("CHAR_CONSTANT", "'c'"), ("SPACE", " "), ("NUMBER", "0x1F"), ("SPACE", " "), ("NUMBER", "1e3"),
            ("SPACE", " "), ("COMPLEX", "1+2i"), ("RIGHT_DELIM", "}}"), ("EOF", ""),
        ],
    ),
    (
        "parens_dot_chain",
        "{{(.).a}}",
        [
            ("LEFT_DELIM", "{{"), ("LEFT_PAREN", "("), ("DOT", "."), ("RIGHT_PAREN", ")"), ("FIELD", ".a"),
            ("RIGHT_DELIM", "}}"), ("EOF", ""),
        ],
    ),
    ("unclosed_action", "{{ .x", [("LEFT_DELIM", "{{"), ("SPACE", " "), ("FIELD", ".x"), ("ERROR", "unclosed action")]),
    ("unterminated_string", '{{"a}}', [("LEFT_DELIM", "{{"), ("ERROR", "unterminated quoted string")]),
    ("unclosed_comment", "{{/* x", [("ERROR", "unclosed comment")]),
    ("bad_number", "{{3k}}", [("LEFT_DELIM", "{{"), ("ERROR", 'bad number syntax: "3k"')]),
    ("bad_character", "{{#}}", [("LEFT_DELIM", "{{"), ("CHAR", "#"), ("RIGHT_DELIM", "}}"), ("EOF", "")]),
    ("unrecognized_character", "{{\u00a0}}", [("LEFT_DELIM", "{{"), ("ERROR", "unrecognized character in action: U+00A0")]),
    ("unexpected_right_paren", "{{)}}", [("LEFT_DELIM", "{{"), ("ERROR", "unexpected right paren")]),
]


@pytest.mark.parametrize(("text", "items"), [c[1:] for c in LEX_CASES], ids=[c[0] for c in LEX_CASES])
def test_lex_items_match_go(text: str, items: list[tuple[str, str]]) -> None:
    assert kinds(text) == items


def test_items_carry_position_and_line() -> None:
    items = lexer.lex("a\n{{ .x\n .y }}")
    fields = [(i.val, i.pos, i.line) for i in items if i.typ is T.FIELD]
    assert fields == [(".x", 5, 2), (".y", 9, 3)]


def test_break_is_identifier_when_disabled() -> None:
    assert kinds("{{break}}", break_ok=False)[1] == ("IDENTIFIER", "break")
    assert kinds("{{break}}")[1] == ("BREAK", "break")


def test_item_str_is_gos_form() -> None:
    assert str(lexer.Item(T.STRING, 0, '"a very long string"', 1)) == '"\\"a very lo"...'
    assert str(lexer.Item(T.END, 0, "end", 1)) == "<end>"
    assert str(lexer.Item(T.EOF, 0, "", 1)) == "EOF"
