"""Regular expressions: ``regexMatch``, ``regexFind``, ``regexFindAll``, ``regexReplaceAll``,
``regexReplaceAllLiteral``, ``regexSplit``, ``regexQuoteMeta`` and the ``must*`` forms.

Why: patterns come from charts, so they run on :mod:`helm_core.golib.goregexp` (RE2: linear time,
Go's syntax and iteration rules). Sprig's own choices are kept: ``regexMatch`` answers false
for a pattern that does not compile (``match, _ := regexp.MatchString``), the other non-``must``
forms panic with ``regexp.MustCompile``'s text, the ``must`` forms return Go's parse error.
The results of the forms charts call on every render (``regexMatch``, ``regexFind``,
``regexReplaceAll``, ``regexReplaceAllLiteral``) are remembered: :mod:`.regex_results`.
"""
from __future__ import annotations

from helm_core.golib.gotypes import FuncError, signature
from helm_core.gotemplate import budget, gofmt
from helm_core.gotemplate.funcs import regex_results

# goregexp (and RE2 behind it) is imported by the first function that compiles a pattern: most
# templates call none (start-up time, bench/deferred.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from helm_core.golib.goregexp import Regexp


def _go_regexp_quote(s: str) -> str:
    """``regexp.quote``: backquoted when ``strconv.CanBackquote``, else ``strconv.Quote``."""
    if "`" not in s and all(ch == "\t" or ch >= " " and ch != "\x7f" and ch != "\ufeff" for ch in s):
        return "`" + s + "`"
    return gofmt.quote(s)


def _ticking() -> None:
    """Make goregexp's long searches tick the render budget in force."""
    from helm_core.golib import goregexp

    goregexp.progress = _tick


def _tick() -> None:
    budget.current().tick()


def compile_go(expr: str) -> Regexp:
    """``regexp.Compile``: FuncError with Go's parse error text."""
    from helm_core.golib import goregexp

    _ticking()
    try:
        return goregexp.compile(expr)
    except goregexp.GoSyntaxError as e:
        raise FuncError(str(e)) from None


def must_compile(expr: str) -> Regexp:
    """``regexp.MustCompile``: the recovered panic text wraps the error."""
    from helm_core.golib import goregexp

    _ticking()
    try:
        return goregexp.compile(expr)
    except goregexp.GoSyntaxError as e:
        raise FuncError(f"regexp: Compile({_go_regexp_quote(expr)}): {e}") from None


@signature("string", "string")
def must_regex_match(regex: str, s: str) -> bool:
    """``mustRegexMatch``."""
    return compile_go(regex).match_string(s)


@signature("string", "string")
def regex_match(regex: str, s: str) -> bool:
    """``regexMatch``: false for a pattern that does not compile, as Sprig discards the error."""
    call = ("regexMatch", regex, s)
    found = regex_results.recall(call)
    if found is regex_results.MISSING:
        try:
            found = compile_go(regex).match_string(s)
        except FuncError:
            found = False
        regex_results.remember(call, found)
    matched: bool = found
    return matched


@signature("string", "string", "int")
def regex_find_all(regex: str, s: str, n: int) -> list[str]:
    """``regexFindAll``."""
    return must_compile(regex).find_all_string(s, n)


@signature("string", "string", "int")
def must_regex_find_all(regex: str, s: str, n: int) -> list[str]:
    """``mustRegexFindAll``."""
    return compile_go(regex).find_all_string(s, n)


@signature("string", "string")
def regex_find(regex: str, s: str) -> str:
    """``regexFind`` (Bitnami's ``common`` checks every image tag with it)."""
    call = ("regexFind", regex, s)
    found = regex_results.recall(call)
    if found is regex_results.MISSING:
        found = must_compile(regex).find_string(s)
        regex_results.remember(call, found)
    text: str = found
    return text


@signature("string", "string")
def must_regex_find(regex: str, s: str) -> str:
    """``mustRegexFind``."""
    return compile_go(regex).find_string(s)


@signature("string", "string", "string")
def regex_replace_all(regex: str, s: str, repl: str) -> str:
    """``regexReplaceAll``: ``$1``/``${name}`` expanded."""
    return _remembered(regex, s, repl, literal=False)


@signature("string", "string", "string")
def must_regex_replace_all(regex: str, s: str, repl: str) -> str:
    """``mustRegexReplaceAll``."""
    return compile_go(regex).replace_all_string(s, repl)


@signature("string", "string", "string")
def regex_replace_all_literal(regex: str, s: str, repl: str) -> str:
    """``regexReplaceAllLiteral``."""
    return _remembered(regex, s, repl, literal=True)


def _remembered(regex: str, s: str, repl: str, *, literal: bool) -> str:
    """A replacement as remembered (charts make the same ones every render: Bitnami cleans each
    name with regexReplaceAll), else made now and remembered."""
    call = ("regexReplaceAllLiteral" if literal else "regexReplaceAll", regex, s, repl)
    found = regex_results.recall(call)
    if found is regex_results.MISSING:
        rx = must_compile(regex)
        found = rx.replace_all_literal_string(s, repl) if literal else rx.replace_all_string(s, repl)
        regex_results.remember(call, found)
    text: str = found
    return text


@signature("string", "string", "string")
def must_regex_replace_all_literal(regex: str, s: str, repl: str) -> str:
    """``mustRegexReplaceAllLiteral``."""
    return compile_go(regex).replace_all_literal_string(s, repl)


@signature("string", "string", "int")
def regex_split(regex: str, s: str, n: int) -> list[str]:
    """``regexSplit``."""
    return must_compile(regex).split(s, n)


@signature("string", "string", "int")
def must_regex_split(regex: str, s: str, n: int) -> list[str]:
    """``mustRegexSplit``."""
    return compile_go(regex).split(s, n)


@signature("string")
def regex_quote_meta(s: str) -> str:
    """``regexQuoteMeta``."""
    from helm_core.golib import goregexp

    return goregexp.quote_meta(s)


FUNCS: dict[str, Any] = {
    "regexMatch": regex_match,
    "mustRegexMatch": must_regex_match,
    "regexFindAll": regex_find_all,
    "mustRegexFindAll": must_regex_find_all,
    "regexFind": regex_find,
    "mustRegexFind": must_regex_find,
    "regexReplaceAll": regex_replace_all,
    "mustRegexReplaceAll": must_regex_replace_all,
    "regexReplaceAllLiteral": regex_replace_all_literal,
    "mustRegexReplaceAllLiteral": must_regex_replace_all_literal,
    "regexSplit": regex_split,
    "mustRegexSplit": must_regex_split,
    "regexQuoteMeta": regex_quote_meta,
}
