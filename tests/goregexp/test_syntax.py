"""Where Go's regexp and RE2 C++ differ, helm_core.golib.goregexp answers as Go 1.26 does.
Expected values were printed by Go 1.26's regexp on the same input."""
from __future__ import annotations

import pytest

from helm_core.golib import goregexp
from tests.goregexp import go_cases


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def _text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def _error(expr: str) -> str:
    with pytest.raises(goregexp.GoSyntaxError) as caught:
        goregexp.compile(expr)
    return str(caught.value)


def test_dash_after_a_class_is_literal():
    # Python's re refuses [\w-\.]; Go reads the - as a literal (a public chart relies on it).
    assert goregexp.compile(r"^[\w-\.]+$").match_string("my-app.example_1")
    assert goregexp.compile(r"[\w-\.]+").find_all_string("a-b.c d!e", -1) == ["a-b.c", "d", "e"]


def test_any_byte_escape_is_refused_as_go_does():
    assert _error(r"\C") == "error parsing regexp: invalid escape sequence: `\\C`"
    assert _error(r"a(\C") == "error parsing regexp: invalid escape sequence: `\\C`"
    assert goregexp.compile(r"\Q\C\E").match_string("\\C")  # quoted: a literal, in both


def test_quoted_text_and_named_groups():
    assert goregexp.compile(r"\Q.*\E+").find_string("x.*.**") == ".*"
    rx = goregexp.compile(r"(?<user>\w+)@(?P<host>\w+)")
    assert rx.names == ["", "user", "host"]
    assert rx.replace_all_string("me@here", "${host}:$user") == "here:me"


def test_lookbehind_is_an_invalid_named_capture_in_go():
    assert _error("(?<=a)b") == "error parsing regexp: invalid named capture: `(?<=a)b`"
    assert _error("(?<!a)>b") == "error parsing regexp: invalid named capture: `(?<!a)>`"
    assert _error("(?=a)") == "error parsing regexp: invalid or unsupported Perl syntax: `(?=`"


@pytest.mark.parametrize("expr, subject, found", [
    (r"\pN+", "x٣4y", "٣4"),
    (r"\p{greek}+", "aβγ", "βγ"),           # Go 1.25+: names ignore case, "_", "-", " "
    (r"\p{Uppercase_Letter}+", "aBC", "BC"),  # and category aliases
    (r"\p{ASCII}+", "éab", "ab"),
    (r"\p{Assigned}+", "\u0378ab", "ab"),
    (r"\pC", "a\u0378", "\u0378"),            # Go's C includes Cn (unassigned); RE2's does not
    (r"[^\P{Cn}]", "a\u0378", "\u0378"),
    (r"\p{LC}+", "1aB", "aB"),
    (r"[[:alpha:]]+", "1ab2", "ab"),
    (r"[[:^digit:]]+", "12ab", "ab"),
])
def test_unicode_and_posix_classes(expr: str, subject: str, found: str):
    assert goregexp.compile(expr).find_string(subject) == found


def test_multi_word_scripts_are_unknown_to_go():
    assert _error(r"\p{Old_Italic}") == "error parsing regexp: invalid character class range: `\\p{Old_Italic}`"


def test_flags():
    assert goregexp.compile("(?i)k").find_all_string("kK\u212a", -1) == ["k", "K", "\u212a"]
    assert goregexp.compile("(?U)a+").find_string("aaa") == "a"
    assert goregexp.compile("(?U)a+?").find_string("aaa") == "aaa"
    assert goregexp.compile("(?m)^b$").match_string("a\nb\nc")
    assert not goregexp.compile("^b$").match_string("a\nb\nc")
    assert goregexp.compile("(?s).+").find_string("a\nb") == "a\nb"
    assert goregexp.compile("(?i:a)A").find_string("aAAA") == "aA"


def test_repetition_limit_is_1000():
    assert goregexp.compile("a{1000}").match_string("a" * 1000)
    assert _error("a{1001}") == "error parsing regexp: invalid repeat count: `{1001}`"
    assert _error("(a{100}){100}") == "error parsing regexp: invalid repeat count: `{100}`"
    assert goregexp.compile(r"\pL{1000}").match_string("é" * 1000)  # large for RE2's default budget


def test_nesting_limit():
    assert goregexp.compile("(" * 999 + ")" * 999).match_string("")
    assert _error("(" * 1000 + ")" * 1000).startswith("error parsing regexp: expression nests too deeply: `((((")


def test_invalid_utf8_subject_bytes_match_as_u_fffd():
    subject = _text(b"a\xffb\xc3")
    assert [_bytes(m) for m in goregexp.compile(".").find_all_string(subject, -1)] == [b"a", b"\xff", b"b", b"\xc3"]
    assert _bytes(goregexp.compile(r"\x{FFFD}").replace_all_string(subject, "<$0>")) == b"a<\xff>b<\xc3>"
    assert _bytes(goregexp.compile("[^a]+").find_string(subject)) == b"\xffb\xc3"
    assert [_bytes(p) for p in goregexp.compile("b").split(subject, -1)] == [b"a\xff", b"\xc3"]
    assert _bytes(goregexp.compile("").replace_all_string(_text(b"\xff\xc3\xa9"), "-")) == b"-\xff-\xc3\xa9-"


def test_invalid_utf8_pattern():
    assert _bytes(_error(_text(b"a\xffb"))) == b"error parsing regexp: invalid UTF-8: `\xffb`"
    assert _bytes(_error(_text(b"[\xff]"))) == b"error parsing regexp: invalid UTF-8: `\xff]`"


def test_not_word_boundary_is_never_inside_a_character():
    assert goregexp.compile(r"\B").find_all_string_index("K\u212ak", -1) == []
    assert goregexp.compile(r"\B").replace_all_string("ab\u212acd", "-") == "a-b\u212ac-d"


def test_expand_follows_go():
    rx = goregexp.compile("(a)(b)?")
    # $01 is the name "01" (no leading zeros), $1x the name "1x": both unknown, both "".
    assert rx.replace_all_string("a", "[$1|$2|$01|$3|${1}x|$1x|$$|$]") == "[a||||ax||$|$]"
    assert rx.replace_all_string("ab", "$1$2") == "ab"
    assert rx.replace_all_string("a", "<$2>") == "<>"
    assert goregexp.compile("(?P<n>x)|(?P<n>y)").replace_all_string("y", "[$n]") == "[y]"  # first name that matched
    assert goregexp.compile("(?P<ä1>x)").replace_all_string("x", "[$ä1]") == "[x]"  # Unicode letters in names


_LONG = "a" * 5000 + "!"
_SHORT = "a" * 41 + "b"
#: Go's answers: (MatchString of _LONG, FindAllString of _SHORT).
CATASTROPHIC_ANSWERS = {
    r"^(a+)+$": (False, []),
    r"(a|aa)*c": (False, []),
    r"(x+x+)+y": (False, []),
    r"^(\w+\s?)*$": (False, [_SHORT]),
    r"(a*)*b": (False, [_SHORT]),
    r"((a+)*)+$": (True, [""]),
}


@pytest.mark.timeout(60)  # exponential in a backtracking engine: a hang fails here
@pytest.mark.parametrize("expr", go_cases.CATASTROPHIC)
def test_catastrophic_patterns_complete_with_gos_answer(expr: str):
    rx = goregexp.compile(expr)
    assert (rx.match_string(_LONG), rx.find_all_string(_SHORT, -1)) == CATASTROPHIC_ANSWERS[expr]
