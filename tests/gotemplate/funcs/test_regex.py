"""Go RE2 patterns on Python's re: Go's iteration, expansion and error texts."""
from __future__ import annotations

import pytest

from helm_core.gotemplate.funcs import regex as rx
from helm_core.golib.gotypes import FuncError

CASES = [
    ("match_search_anywhere", rx.regex_match, ("b", "abc"), True),
    ("match_invalid_is_false", rx.regex_match, ("a(", "x"), False),
    ("dollar_is_end_of_text", rx.regex_match, ("^a$", "a\n"), False),
    ("multiline_dollar", rx.regex_match, ("(?m)^a$", "a\nb"), True),
    ("backslash_z", rx.regex_find, (r"a\z", "ba"), "a"),
    ("digit_is_ascii", rx.regex_match, (r"\d", "\u0663"), False),
    ("posix_class", rx.regex_find_all, ("[[:alpha:]]+", "ab1cd", -1), ["ab", "cd"]),
    ("named_group_go_syntax", rx.regex_replace_all, ("(?<x>a)", "ba", "[${x}]"), "b[a]"),
    ("find", rx.regex_find, ("[0-9]+", "ab12c"), "12"),
    ("find_none", rx.regex_find, ("z", "abc"), ""),
    ("findall_limit", rx.regex_find_all, ("a", "aaaa", 2), ["a", "a"]),
    ("findall_zero", rx.regex_find_all, ("x", "banana", 0), []),
    ("findall_skips_empty_after_match", rx.regex_find_all, ("a*", "baaab", -1), ["", "aaa", ""]),
    ("replace_braced_group", rx.regex_replace_all, ("a(x*)b", "-ab-axxb-", "${1}W"), "-W-xxW-"),
    ("replace_unbraced_name_is_1W", rx.regex_replace_all, ("a(x*)b", "-ab-axxb-", "$1W"), "---"),
    ("replace_dollar_dollar", rx.regex_replace_all, ("a", "aaa", "$$"), "$$$"),
    ("replace_unmatched_group_empty", rx.regex_replace_all, ("(a)(b)?", "ab a", "<$2>"), "<b> <>"),
    ("replace_empty_matches", rx.regex_replace_all, ("a*", "baaac", "-"), "-b-c-"),
    ("replace_literal", rx.regex_replace_all_literal, ("a", "aa", "${1}"), "${1}${1}"),
    ("split", rx.regex_split, ("a", "banana", -1), ["b", "n", "n", ""]),
    ("split_star", rx.regex_split, ("a*", "banana", -1), ["b", "n", "n", ""]),
    ("split_limit", rx.regex_split, ("", "abc", 2), ["a", "bc"]),
    ("split_empty_input", rx.regex_split, ("x", "", -1), [""]),
    ("split_zero", rx.regex_split, ("x", "axb", 0), []),
    ("quoted_literal", rx.regex_find_all, (r"\Qa.b\E", "a.b axb", -1), ["a.b"]),
    ("hex_code_point", rx.regex_find_all, (r"[\x{61}-\x{63}]+", "abcd", -1), ["abc"]),
    ("unicode_letters", rx.regex_find_all, (r"\pL+", "é1ab", -1), ["é", "ab"]),
    ("unicode_upper_class", rx.regex_find_all, (r"[\p{Lu}\d]+", "aÉ1b", -1), ["É1"]),
    ("unicode_not_letter", rx.regex_find_all, (r"\PL+", "é1-b", -1), ["1-"]),
    ("case_insensitive_non_ascii", rx.regex_find, ("(?i)é+", "xÉé"), "Éé"),
    ("word_boundary_ascii", rx.regex_find_all, (r"\b\w+\b", "éa b_1", -1), ["a", "b_1"]),
    ("not_boundary_on_empty", rx.regex_replace_all, (r"\B", "", "-"), "-"),
    ("space_class_excludes_vtab", rx.regex_match, (r"\s", "\v"), False),
    ("ungreedy_flag_swaps", rx.regex_find_all, ("(?U)a+?", "a aaa", -1), ["a", "aaa"]),
    ("ungreedy_flag", rx.regex_find, ("(?U)a+", "aaa"), "a"),
    ("mid_group_flag_covers_later_alternatives", rx.regex_find_all, ("ab(?i)c|d", "abc D d", -1), ["abc", "D", "d"]),
    ("flag_turned_off", rx.regex_find_all, ("(?i)a|b(?-i)c|d", "A bC bc D", -1), ["A", "bc"]),
    ("brace_without_count_is_literal", rx.regex_find, ("a{,3}", "a{,3}"), "a{,3}"),
    ("duplicate_names_leftmost", rx.regex_replace_all, ("(?P<n>a)(?P<n>b)", "ab", "${n}"), "a"),
    ("quote_meta", rx.regex_quote_meta, ("a.b*c{1}",), "a\\.b\\*c\\{1\\}"),
]


@pytest.mark.parametrize(("fn", "args", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_regex_results_follow_go(fn, args, expected) -> None:
    assert fn(*args) == expected


PARSE_ERRORS = [
    ("missing_paren", "a(", "missing closing ): `a(`"),
    ("unexpected_paren", "a)", "unexpected ): `a)`"),
    ("missing_bracket", "[a", "missing closing ]: `[a`"),
    ("nothing_to_repeat", "*a", "missing argument to repetition operator: `*`"),
    ("nested_repeat", "a**", "invalid nested repetition operator: `**`"),
    ("bad_range", "[z-a]", "invalid character class range: `z-a`"),
    ("bad_escape", "a\\q", "invalid escape sequence: `\\q`"),
    ("bad_repeat_count", "x{2,1}", "invalid repeat count: `{2,1}`"),
    ("repeat_count_over_1000", "a{1001}", "invalid repeat count: `{1001}`"),
    ("possessive_is_nested_repeat", "a++", "invalid nested repetition operator: `++`"),
    ("lazy_then_repeat", "a*?+", "invalid nested repetition operator: `*?+`"),
    ("backreference", "(a)\\1", "invalid escape sequence: `\\1`"),
    ("lookahead", "a(?=b)", "invalid or unsupported Perl syntax: `(?=`"),
    ("lookbehind", "a(?<=b)", "invalid named capture: `(?<=b)`"),
]


@pytest.mark.parametrize(("pattern", "message"), [c[1:] for c in PARSE_ERRORS], ids=[c[0] for c in PARSE_ERRORS])
def test_must_forms_return_go_parse_errors(pattern: str, message: str) -> None:
    with pytest.raises(FuncError) as err:
        rx.must_regex_match(pattern, "x")
    assert str(err.value) == "error parsing regexp: " + message


@pytest.mark.parametrize("fn", [rx.regex_find, rx.regex_find_all, rx.regex_replace_all, rx.regex_split],
                         ids=["regexFind", "regexFindAll", "regexReplaceAll", "regexSplit"])
def test_plain_forms_fail_with_must_compile_panic(fn) -> None:
    args = {rx.regex_find: ("a(", "x"), rx.regex_find_all: ("a(", "x", -1),
            rx.regex_replace_all: ("a(", "x", "y"), rx.regex_split: ("a(", "x", -1)}[fn]
    with pytest.raises(FuncError) as err:
        fn(*args)
    assert str(err.value) == "regexp: Compile(`a(`): error parsing regexp: missing closing ): `a(`"


def test_results_are_remembered_by_function_and_arguments_errors_never(monkeypatch: pytest.MonkeyPatch) -> None:
    from helm_core.golib import goregexp
    from helm_core.gotemplate.funcs import regex_results

    monkeypatch.setattr(regex_results, "_RESULTS", regex_results._Results())
    compiled: list[str] = []
    real = goregexp.compile
    monkeypatch.setattr(goregexp, "compile", lambda expr: compiled.append(expr) or real(expr))
    for _ in range(2):
        assert rx.regex_replace_all("a(x)", "-ax-", "$1$1") == "-xx-"
        assert rx.regex_replace_all_literal("a(x)", "-ax-", "$1$1") == "-$1$1-"
        assert rx.regex_find("a(x)", "-ax-") == "ax"
        assert rx.regex_match("^-a", "-ax-") is True and rx.regex_match("(", "-ax-") is False
    assert compiled == ["a(x)", "a(x)", "a(x)", "^-a", "("]  # once per function and arguments
    for _ in range(2):
        with pytest.raises(FuncError, match="missing closing"):
            rx.regex_find("(", "x")
    assert compiled[5:] == ["(", "("]
    # Long texts are computed every time.
    long = "a" * regex_results.MAX_CHARS
    assert rx.regex_find("a+", long) == long and rx.regex_find("a+", long) == long
    assert compiled[7:] == ["a+", "a+"]


def test_the_remembered_results_are_keyed_by_the_code_that_computes_them(monkeypatch: pytest.MonkeyPatch) -> None:
    from helm_core.gotemplate.funcs import regex_results
    from helm_core.support import memo

    digested: list[str] = []
    monkeypatch.setattr(memo, "code_digest", lambda *paths: digested.extend(map(str, paths)) or "d")
    regex_results._entry_key.__wrapped__()
    names = {"/".join(path.split("/")[-2:]) for path in digested}
    assert {"funcs/regex.py", "funcs/regex_results.py", "golib/goutf8.py", "goregexp/__init__.py",
            "goregexp/syntax.py", "re2/__init__.py"} <= names
    assert any(name.startswith("re2/_re2") for name in names)
