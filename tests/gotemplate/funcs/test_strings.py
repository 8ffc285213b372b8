"""String functions: Go's byte semantics, goutils and xstrings rules (expected values from Go)."""
from __future__ import annotations

import pytest

from helm_core.gotemplate.funcs import strings as st
from helm_core.golib.gotypes import FuncError

CASES = [
    ("upper_no_expansion", st.upper, ("straße ǆ",), "STRAßE Ǆ"),
    ("lower", st.lower, ("ÀB",), "àb"),
    ("title_separators", st.title, ("hello wOrld-foo_bar x.y",), "Hello WOrld-Foo_bar X.Y"),
    ("title_titlecase_rune", st.title, ("ǆa",), "ǅa"),
    ("title_latin1", st.title, ("ÿes",), "Ÿes"),
    ("untitle", st.untitle, ("Hello World",), "hello world"),
    ("swapcase", st.swapcase, ("Hello wORLD",), "hELLO World"),
    ("swapcase_title_after_space", st.swapcase, ("ǆ ß",), "ǅ ß"),
    ("trim_go_spaces", st.trim, ("\x85 a \u3000",), "a"),
    ("trim_keeps_file_separator", st.trim, ("\x1ca",), "\x1ca"),
    ("trimAll_cutset", st.trim_all, ("$-", "$-a-$"), "a"),
    ("trimAll_empty_cutset", st.trim_all, ("", " a "), " a "),
    ("trimSuffix", st.trim_suffix, ("-x", "a-x-x"), "a-x"),
    ("nospace", st.nospace, (" a b\tc ",), "abc"),
    ("nospace_rereads_bytes", st.nospace, ("é b",), "Ã©b"),
    ("nospace_unchanged_when_no_space", st.nospace, ("é",), "é"),
    ("initials", st.initials, ("foo  bar baz",), "fbb"),
    ("initials_bytewise", st.initials, ("é b",), "Ãb"),
    ("trunc_head", st.trunc, (3, "abcdef"), "abc"),
    ("trunc_tail", st.trunc, (-2, "abcdef"), "ef"),
    ("trunc_too_long", st.trunc, (-10, "ab"), "ab"),
    ("substr", st.substr, (1, 3, "abcdef"), "bc"),
    ("substr_negative_start", st.substr, (-1, 2, "abc"), "ab"),
    ("substr_end_past_length", st.substr, (1, 99, "abc"), "bc"),
    ("substr_negative_end", st.substr, (1, -1, "abc"), "bc"),
    ("abbrev", st.abbrev, (5, "hello world"), "he..."),
    ("abbrev_short_width", st.abbrev, (3, "abcdef"), "abcdef"),
    ("abbrev_empty", st.abbrev, (4, ""), ""),
    ("abbrevboth", st.abbrevboth, (5, 10, "1234 5678 9123"), "...5678..."),
    ("abbrevboth_offset_near_end", st.abbrevboth, (10, 7, "abcdefghijklmno"), "...k..."),
    ("abbrevboth_too_narrow", st.abbrevboth, (3, 4, "abcdefgh"), "abcdefgh"),
    ("wrap", st.wrap, (5, "hello world foo"), "hello\nworld\nfoo"),
    ("wrap_zero_width", st.wrap, (0, "a b"), "a\nb"),
    ("wrap_long_word_kept", st.wrap, (3, "abcdefg hi"), "abcdefg\nhi"),
    ("wrapWith_breaks_words", st.wrap_with, (3, "|", "abcdefg"), "abc|def|g"),
    ("repeat", st.repeat, (3, "ab"), "ababab"),
    ("contains", st.contains, ("b", "abc"), True),
    ("hasPrefix", st.has_prefix, ("ab", "abc"), True),
    ("hasSuffix", st.has_suffix, ("x", "abc"), False),
    ("quote", st.quote, (1, None, 'a"b', "é\n"), '"1" "a\\"b" "é\\n"'),
    ("quote_nothing", st.quote, (None,), ""),
    ("squote", st.squote, (1.5, None, "x", [1]), "'1.5' 'x' '[1]'"),
    ("cat", st.cat, (1, None, "a", [1, 2], {"k": None}), "1 a [1 2] map[k:<nil>]"),
    ("indent", st.indent, (2, "a\nb"), "  a\n  b"),
    ("indent_empty", st.indent, (2, ""), "  "),
    ("nindent", st.nindent, (1, "a"), "\n a"),
    ("replace", st.replace, ("a", "b", "banana"), "bbnbnb"),
    ("replace_empty_old", st.replace, ("", "-", "abc"), "-a-b-c-"),
    ("plural_one", st.plural, ("one", "many", 1), "one"),
    ("plural_zero", st.plural, ("one", "many", 0), "many"),
    ("split", st.split, (",", "a,b"), {"_0": "a", "_1": "b"}),
    ("split_empty_sep", st.split, ("", "ab"), {"_0": "a", "_1": "b"}),
    ("split_empty_both", st.split, ("", ""), {}),
    ("splitn", st.splitn, (",", 2, "a,b,c"), {"_0": "a", "_1": "b,c"}),
    ("splitn_zero", st.splitn, (",", 0, "a,b"), {}),
    ("splitn_runes", st.splitn, ("", 2, "abc"), {"_0": "a", "_1": "bc"}),
    ("splitList", st.split_list, (",", "a,,b"), ["a", "", "b"]),
    ("join", st.join, ("-", [1, None, "a", 2.5]), "1-a-2.5"),
    ("join_scalar", st.join, ("-", "abc"), "abc"),
    ("join_nil", st.join, ("-", None), ""),
    ("hello", st.hello, (), "Hello!"),
]


@pytest.mark.parametrize(("fn", "args", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_string_function_output(fn, args, expected) -> None:
    assert fn(*args) == expected


CASING = [
    ("snake_acronym", st.snakecase, "HTTPServerID2x", "http_server_id_2x"),
    ("snake_connectors", st.snakecase, "a-b_c d", "a_b_c_d"),
    ("snake_upper_run", st.snakecase, "fooBAR", "foo_bar"),
    ("snake_digit_inside", st.snakecase, "foo1bar", "foo_1bar"),
    ("snake_leading_digit", st.snakecase, "1Foo", "1_foo"),
    ("snake_punct", st.snakecase, "foo.bar", "foo.bar"),
    ("snake_only_connectors", st.snakecase, "__", "__"),
    ("snake_empty", st.snakecase, "", ""),
    ("snake_id", st.snakecase, "ID", "id"),
    ("snake_digits_case", st.snakecase, "simple_test9Case", "simple_test9_case"),
    ("kebab", st.kebabcase, "FooBar Baz", "foo-bar-baz"),
    ("kebab_digits", st.kebabcase, "A1B2c3", "a1-b-2c3"),
    ("kebab_titlecase_rune", st.kebabcase, "Ǆemal", "ǆemal"),
    ("camel", st.camelcase, "foo_bar-baz qux", "FooBarBazQux"),
    ("camel_upper_word", st.camelcase, "HTTP_server", "HttpServer"),
    ("camel_keeps_inner_case", st.camelcase, "hello_World", "HelloWorld"),
    ("camel_leading_connectors", st.camelcase, "__a", "__A"),
    ("camel_only_connectors", st.camelcase, "__", "___"),
    ("camel_empty", st.camelcase, "", ""),
]


@pytest.mark.parametrize(("fn", "text", "expected"), [c[1:] for c in CASING], ids=[c[0] for c in CASING])
def test_casing_matches_xstrings(fn, text: str, expected: str) -> None:
    assert fn(text) == expected


ERRORS = [
    ("substr_start_past_end", st.substr, (5, 6, "abc"), "runtime error: slice bounds out of range [5:3]"),
    ("substr_start_after_end", st.substr, (2, 1, "abc"), "runtime error: slice bounds out of range [2:1]"),
    ("substr_negative_both", st.substr, (-1, -2, "abc"), "runtime error: slice bounds out of range [:-2]"),
    ("substr_negative_start_long_end", st.substr, (-1, 5, "abc"),
     "runtime error: slice bounds out of range [:5] with length 3"),
    ("repeat_negative", st.repeat, (-1, "a"), "strings: negative Repeat count"),
    ("indent_negative", st.indent, (-1, "a"), "strings: negative Repeat count"),
]


@pytest.mark.parametrize(("fn", "args", "message"), [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_string_errors_are_go_panics(fn, args, message: str) -> None:
    with pytest.raises(FuncError) as err:
        fn(*args)
    assert str(err.value) == message


def test_trunc_counts_bytes_not_runes() -> None:
    assert len(st.trunc(1, "é").encode("utf-8", "surrogateescape")) == 1


def test_shuffle_permutes_runes() -> None:
    text = "abcdefghijé"
    assert sorted(st.shuffle(text)) == sorted(text)


def test_dotted_capital_i_lowers_to_plain_i_like_go() -> None:
    assert (st.lower("İstanbul"), st.snakecase("İstanbul"), st.swapcase("İx")) == ("istanbul", "istanbul", "iX")
