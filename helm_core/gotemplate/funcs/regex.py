"""Regular expressions: ``regexMatch``, ``regexFind``, ``regexFindAll``, ``regexReplaceAll``,
``regexReplaceAllLiteral``, ``regexSplit``, ``regexQuoteMeta`` and the ``must*`` forms.

Why: patterns are Go RE2 syntax (translated by :mod:`regex_syntax`) and
results must follow Go's ``regexp`` iteration rules (an empty match right after
a match is skipped; ``$1W`` names group "1W"). Non-``must`` forms fail with
Go's ``regexp: Compile(`x`): ...`` panic text.
"""
from __future__ import annotations

import functools
import re
from typing import Any, Callable

from helm_core.gotemplate import gofmt
from helm_core.gotemplate.funcs import regex_syntax
from helm_core.gotemplate.gotypes import FuncError, signature

#: Compiled patterns kept per process (templates reuse a handful of patterns).
PATTERN_CACHE_SIZE = 256


def _go_regexp_quote(s: str) -> str:
    if "`" not in s and all(ch == "\t" or ch >= " " and ch != "\x7f" for ch in s):
        return "`" + s + "`"
    return gofmt.quote(s)


def _go_message(expr: str, err: re.error) -> str:
    msg = err.msg
    if "missing ), unterminated subpattern" in msg:
        return f"missing closing ): `{expr}`"
    if "unbalanced parenthesis" in msg:
        return f"unexpected ): `{expr}`"
    if "unterminated character set" in msg:
        pos = err.pos or 0
        return f"missing closing ]: `{expr[pos:]}`"
    if "nothing to repeat" in msg:
        pos = err.pos or 0
        return f"missing argument to repetition operator: `{expr[pos:pos + 1]}`"
    if "multiple repeat" in msg:
        pos = err.pos or 0
        return f"invalid nested repetition operator: `{expr[max(pos - 1, 0):pos + 1]}`"
    if "bad character range" in msg:
        rng = msg.rsplit(" ", 1)[-1]
        return f"invalid character class range: `{rng}`"
    if "min repeat greater than max repeat" in msg:
        pos = err.pos or 0
        end = expr.find("}", pos)
        start = expr.rfind("{", 0, pos + 1)
        return f"invalid repeat count: `{expr[start:end + 1]}`"
    if "bad escape" in msg:
        pos = err.pos or 0
        return f"invalid escape sequence: `{expr[pos:pos + 2]}`"
    if "redefinition of group name" in msg:
        name = re.search(r"'([^']*)'", msg)
        return f"duplicate capture group name: `{name.group(1) if name else ''}`"
    return f"{msg}: `{expr}`"


@functools.lru_cache(maxsize=PATTERN_CACHE_SIZE)
def _compile(expr: str) -> re.Pattern[str]:
    try:
        return re.compile(regex_syntax.translate(expr))
    except regex_syntax.GoSyntaxError as e:
        raise FuncError(f"error parsing regexp: {e}") from None
    except re.error as e:
        raise FuncError("error parsing regexp: " + _go_message(expr, e)) from None


def compile_go(expr: str) -> re.Pattern[str]:
    """``regexp.Compile``: raises FuncError with Go's parse error text."""
    return _compile(expr)


def must_compile(expr: str) -> re.Pattern[str]:
    """``regexp.MustCompile``: the recovered panic text wraps the error."""
    try:
        return _compile(expr)
    except FuncError as e:
        raise FuncError(f"regexp: Compile({_go_regexp_quote(expr)}): {e}") from None


def find_all(rx: re.Pattern[str], s: str, n: int) -> list[re.Match[str]]:
    """Go's ``allMatches``: no empty match right after the previous match; at most n (n < 0: all)."""
    out: list[re.Match[str]] = []
    pos, prev_end = 0, -1
    while (n < 0 or len(out) < n) and pos <= len(s):
        m = rx.search(s, pos)
        if m is None:
            break
        accept = True
        if m.end() == pos:
            if m.start() == prev_end:
                accept = False
            pos += 1
        else:
            pos = m.end()
        prev_end = m.end()
        if accept:
            out.append(m)
    return out


def _expand(template: str, m: re.Match[str]) -> str:
    """Go's ``Regexp.Expand``: ``$n``, ``${n}``, ``$name``, ``${name}``, ``$$``."""
    out: list[str] = []
    i = 0
    while i < len(template):
        j = template.find("$", i)
        if j < 0:
            out.append(template[i:])
            break
        out.append(template[i:j])
        rest = template[j + 1:]
        if rest.startswith("$"):
            out.append("$")
            i = j + 2
            continue
        mm = re.match(r"\{([A-Za-z0-9_]+)\}", rest) or re.match(r"([A-Za-z0-9_]+)", rest)
        if not mm:
            out.append("$")
            i = j + 1
            continue
        name = mm.group(1)
        i = j + 1 + mm.end()
        if name.isdigit():
            idx = int(name)
            if idx <= (m.re.groups or 0):
                out.append(m.group(idx) or "")
        elif name in m.re.groupindex:
            out.append(m.group(name) or "")
    return "".join(out)


def replace_all(rx: re.Pattern[str], src: str, repl: Callable[[re.Match[str]], str]) -> str:
    """Go's ``replaceAll`` loop."""
    out: list[str] = []
    last_end = 0
    pos = 0
    while pos <= len(src):
        m = rx.search(src, pos)
        if m is None:
            break
        out.append(src[last_end:m.start()])
        if m.end() > last_end or m.start() == 0:
            out.append(repl(m))
        last_end = m.end()
        pos = pos + 1 if pos + 1 > m.end() else m.end()
    out.append(src[last_end:])
    return "".join(out)


def go_split(rx: re.Pattern[str], pattern: str, s: str, n: int) -> list[str]:
    """Go's ``Regexp.Split``."""
    if n == 0:
        return []
    if pattern and not s:
        return [""]
    parts: list[str] = []
    beg = end = 0
    for m in find_all(rx, s, n):
        if n > 0 and len(parts) == n - 1:
            break
        end = m.start()
        if m.end() != 0:
            parts.append(s[beg:end])
        beg = m.end()
    if end != len(s):
        parts.append(s[beg:])
    return parts


@signature("string", "string")
def must_regex_match(regex: str, s: str) -> bool:
    """``mustRegexMatch``."""
    return compile_go(regex).search(s) is not None


@signature("string", "string")
def regex_match(regex: str, s: str) -> bool:
    """``regexMatch``: false for an invalid pattern."""
    try:
        return must_regex_match(regex, s)
    except FuncError:
        return False


def _find_all(rx: re.Pattern[str], s: str, n: int) -> list[str]:
    return [m.group(0) for m in find_all(rx, s, n)]


@signature("string", "string", "int")
def regex_find_all(regex: str, s: str, n: int) -> list[str]:
    """``regexFindAll``."""
    return _find_all(must_compile(regex), s, n)


@signature("string", "string", "int")
def must_regex_find_all(regex: str, s: str, n: int) -> list[str]:
    """``mustRegexFindAll``."""
    return _find_all(compile_go(regex), s, n)


def _find(rx: re.Pattern[str], s: str) -> str:
    m = rx.search(s)
    return m.group(0) if m else ""


@signature("string", "string")
def regex_find(regex: str, s: str) -> str:
    """``regexFind``."""
    return _find(must_compile(regex), s)


@signature("string", "string")
def must_regex_find(regex: str, s: str) -> str:
    """``mustRegexFind``."""
    return _find(compile_go(regex), s)


@signature("string", "string", "string")
def regex_replace_all(regex: str, s: str, repl: str) -> str:
    """``regexReplaceAll``: ``$1``/``${name}`` expanded."""
    return replace_all(must_compile(regex), s, lambda m: _expand(repl, m))


@signature("string", "string", "string")
def must_regex_replace_all(regex: str, s: str, repl: str) -> str:
    """``mustRegexReplaceAll``."""
    return replace_all(compile_go(regex), s, lambda m: _expand(repl, m))


@signature("string", "string", "string")
def regex_replace_all_literal(regex: str, s: str, repl: str) -> str:
    """``regexReplaceAllLiteral``."""
    return replace_all(must_compile(regex), s, lambda m: repl)


@signature("string", "string", "string")
def must_regex_replace_all_literal(regex: str, s: str, repl: str) -> str:
    """``mustRegexReplaceAllLiteral``."""
    return replace_all(compile_go(regex), s, lambda m: repl)


@signature("string", "string", "int")
def regex_split(regex: str, s: str, n: int) -> list[str]:
    """``regexSplit``."""
    return go_split(must_compile(regex), regex, s, n)


@signature("string", "string", "int")
def must_regex_split(regex: str, s: str, n: int) -> list[str]:
    """``mustRegexSplit``."""
    return go_split(compile_go(regex), regex, s, n)


_META = set("\\.+*?()|[]{}^$")


@signature("string")
def regex_quote_meta(s: str) -> str:
    """``regexQuoteMeta``: backslash before each of ``\\.+*?()|[]{}^$``."""
    return "".join("\\" + ch if ch in _META else ch for ch in s)


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
