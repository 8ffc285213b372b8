"""String functions: trimming, case, slicing, quoting, joining and splitting.

Why: most chart templates are string plumbing, and Go strings are bytes, so
``trunc``, ``substr``, ``abbrev``, ``wrap``, ``initials`` and ``nospace`` count
and cut UTF-8 bytes exactly as Go does (byte-wise helpers from goutils even
re-read non-ASCII bytes as Latin-1 runes, which is reproduced). Out-of-range
slicing is Go's recovered panic text.
"""
from __future__ import annotations

from helm_core.golib import gounicode
from helm_core.golib.gotypes import FuncError, signature
from helm_core.gotemplate import budget, gofmt
from helm_core.gotemplate.funcs import casing, conversion, gohelpers
from helm_core.gotemplate.funcs import random as rand

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_b = gohelpers.to_bytes
_s = gohelpers.from_bytes


def _map_runes(s: str, fn: Any) -> str:
    return "".join(fn(ch) for ch in s)


@signature("string")
def upper(s: str) -> str:
    """``upper``: ``strings.ToUpper`` (rune by rune, no expansion like ß -> SS)."""
    return s.upper() if s.isascii() else _map_runes(s, gohelpers.go_to_upper)


@signature("string")
def lower(s: str) -> str:
    """``lower``: ``strings.ToLower``."""
    return s.lower() if s.isascii() else _map_runes(s, gohelpers.go_to_lower)


def _title_separator(ch: str) -> bool:
    """``strings.Title``'s isSeparator."""
    if ch.isascii():
        return not (ch.isalnum() or ch == "_")
    if gohelpers.go_is_letter(ch) or gohelpers.go_is_digit(ch):
        return False
    return gounicode.is_space(ch)


@signature("string")
def title(s: str) -> str:
    """``title``: ``strings.Title``: upper-case the first letter of every word."""
    out = []
    prev = " "
    for ch in s:
        out.append(gohelpers.go_to_title(ch) if _title_separator(prev) else ch)
        prev = ch
    return "".join(out)


@signature("string")
def untitle(s: str) -> str:
    """``untitle``: goutils Uncapitalize: lower the first rune after whitespace."""
    out = []
    nxt = True
    for ch in s:
        if gounicode.is_space(ch):
            nxt = True
            out.append(ch)
        elif nxt:
            out.append(gohelpers.go_to_lower(ch))
            nxt = False
        else:
            out.append(ch)
    return "".join(out)


@signature("string")
def swapcase(s: str) -> str:
    """``swapcase``: goutils SwapCase (a lower rune after whitespace becomes title case)."""
    out = []
    whitespace = True
    for ch in s:
        if gohelpers.go_is_upper(ch) or gohelpers.go_is_title(ch):
            out.append(gohelpers.go_to_lower(ch))
            whitespace = False
        elif gohelpers.go_is_lower(ch):
            out.append(gohelpers.go_to_title(ch) if whitespace else gohelpers.go_to_upper(ch))
            whitespace = False
        else:
            whitespace = gounicode.is_space(ch)
            out.append(ch)
    return "".join(out)


@signature("string")
def trim(s: str) -> str:
    """``trim``: ``strings.TrimSpace``."""
    return gounicode.trim_space(s)


@signature("string", "string")
def trim_all(cutset: str, s: str) -> str:
    """``trimAll``/``trimall``: ``strings.Trim(s, cutset)``."""
    return s.strip(cutset) if cutset else s


@signature("string", "string")
def trim_suffix(suffix: str, s: str) -> str:
    """``trimSuffix``."""
    return s.removesuffix(suffix)


@signature("string", "string")
def trim_prefix(prefix: str, s: str) -> str:
    """``trimPrefix``."""
    return s.removeprefix(prefix)


@signature("string")
def nospace(s: str) -> str:
    """``nospace``: goutils DeleteWhiteSpace (byte-wise; unchanged when nothing removed)."""
    raw = _b(s)
    kept = [b for b in raw if not gounicode.is_space(chr(b))]
    if len(kept) == len(raw):
        return s
    return "".join(chr(b) for b in kept)


@signature("string")
def initials(s: str) -> str:
    """``initials``: the first byte of every whitespace-separated word."""
    out = []
    gap = True
    for b in _b(s):
        ch = chr(b)
        if gounicode.is_space(ch):
            gap = True
        elif gap:
            out.append(ch)
            gap = False
    return "".join(out)


@signature("int", "string")
def trunc(c: int, s: str) -> str:
    """``trunc N``: the first N bytes, or the last -N bytes when negative."""
    b = _b(s)
    if c < 0 and len(b) + c > 0:
        return _s(b[len(b) + c:])
    if c >= 0 and len(b) > c:
        return _s(b[:c])
    return s


@signature("int", "int", "string")
def substr(start: int, end: int, s: str) -> str:
    """``substr START END``: byte slice; negative start means 0, bad end means to the end."""
    if start < 0:
        return gohelpers.go_byte_slice(s, None, end)
    if end < 0 or end > len(_b(s)):
        return gohelpers.go_byte_slice(s, start, None)
    return gohelpers.go_byte_slice(s, start, end)


def _abbreviate_full(b: bytes, offset: int, width: int) -> bytes:
    """goutils AbbreviateFull on bytes (errors already excluded by the callers' guards)."""
    if not b:
        return b
    if width < 4:
        return b""
    if len(b) <= width:
        return b
    offset = min(offset, len(b))
    if len(b) - offset < width - 3:
        offset = len(b) - (width - 3)
    if offset <= 4:
        return b[: width - 3] + b"..."
    if width < 7:
        return b""
    if offset + width - 3 < len(b):
        return b"..." + _abbreviate_full(b[offset:], 0, width - 3)
    return b"..." + b[len(b) - (width - 3):]


@signature("int", "string")
def abbrev(width: int, s: str) -> str:
    """``abbrev``: shorten to ``width`` bytes with a trailing "..." (width < 4: unchanged)."""
    if width < 4:
        return s
    return _s(_abbreviate_full(_b(s), 0, width))


@signature("int", "int", "string")
def abbrevboth(left: int, right: int, s: str) -> str:
    """``abbrevboth``: "..." on both sides (goutils AbbreviateFull)."""
    if right < 4 or left > 0 and right < 7:
        return s
    return _s(_abbreviate_full(_b(s), left, right))


def wrap_custom(s: str, length: int, newline: str, wrap_long: bool) -> str:
    """goutils WrapCustom on bytes: break at the last space within ``length`` columns."""
    b = _b(s)
    if not b:
        return ""
    nl = _b(newline or "\n")
    length = max(length, 1)
    offset = 0
    out = bytearray()
    n = len(b)
    # A long separator put after every short word multiplies the text: held to the output limit.
    cap = budget.current().max_bytes
    while n - offset > length:
        if len(out) > cap:
            budget.check_size(len(out), what=f"a wrapped string of more than {len(out)} bytes")
        if b[offset] == 0x20:
            offset += 1
            continue
        end = length + offset + 1
        space = b[offset:end].rfind(b" ") + offset
        if space >= offset:
            out += b[offset:space] + nl
            offset = space + 1
        elif wrap_long:
            out += b[offset:length + offset] + nl
            offset += length
        else:
            idx = b.find(b" ", length + offset)
            if idx == -1:
                out += b[offset:]
                offset = n
            else:
                out += b[offset:idx] + nl
                offset = idx + 1
    out += b[offset:]
    return _s(bytes(out))


@signature("int", "string")
def wrap(length: int, s: str) -> str:
    """``wrap``."""
    return wrap_custom(s, length, "", False)


@signature("int", "string", "string")
def wrap_with(length: int, sep: str, s: str) -> str:
    """``wrapWith``: wrap with a custom separator, long words broken too."""
    return wrap_custom(s, length, sep, True)


@signature("int", "string")
def repeat(count: int, s: str) -> str:
    """``repeat``; a negative count is Go's panic. Sprig's ``strings.Repeat`` builds any length
    that fits in memory; the render output limit refuses it first, naming the string's length
    as every limit on a string does."""
    if count < 0:
        raise FuncError("strings: negative Repeat count")
    budget.check_size(count * len(s), what=lambda: f"a string of {count * len(s)} characters")
    return s * count


@signature("string", "string")
def contains(sub: str, s: str) -> bool:
    """``contains SUB S``."""
    return sub in s


@signature("string", "string")
def has_prefix(prefix: str, s: str) -> bool:
    """``hasPrefix``."""
    return s.startswith(prefix)


@signature("string", "string")
def has_suffix(suffix: str, s: str) -> bool:
    """``hasSuffix``."""
    return s.endswith(suffix)


@signature("interface {}", variadic=True)
def quote(*values: Any) -> str:
    """``quote``: each non-nil argument as a Go ``%q`` string, space separated."""
    return " ".join(gofmt.quote(gohelpers.strval(v)) for v in values if v is not None)


@signature("interface {}", variadic=True)
def squote(*values: Any) -> str:
    """``squote``: each non-nil argument as ``'%v'``."""
    return " ".join("'" + gofmt.format_value(v) + "'" for v in values if v is not None)


@signature("interface {}", variadic=True)
def cat(*values: Any) -> str:
    """``cat``: non-nil arguments in ``%v``, space separated."""
    return " ".join(gofmt.format_value(v) for v in values if v is not None)


@signature("int", "string")
def indent(spaces: int, s: str) -> str:
    """``indent``: pad every line (``strings.Repeat`` panics for a negative count)."""
    pad = repeat(spaces, " ")
    lines = s.count("\n") + 1
    budget.check_size(len(s) + lines * spaces, what=lambda: f"{lines} lines indented by {spaces}")
    return pad + s.replace("\n", "\n" + pad)


@signature("int", "string")
def nindent(spaces: int, s: str) -> str:
    """``nindent``: a newline, then ``indent``."""
    return "\n" + indent(spaces, s)


@signature("string", "string", "string")
def replace(old: str, new: str, src: str) -> str:
    """``replace OLD NEW SRC`` (all occurrences)."""
    return src.replace(old, new)


@signature("string", "string", "int")
def plural(one: str, many: str, count: int) -> str:
    """``plural``: ``one`` when count is 1."""
    return one if count == 1 else many


def go_split(s: str, sep: str, n: int = -1) -> list[str]:
    """``strings.SplitN``: n == 0 gives nil, n < 0 all parts; "" splits into runes."""
    if n == 0:
        return []
    if sep == "":
        runes = list(s)
        if n < 0 or n >= len(runes):
            return runes
        return runes[: n - 1] + ["".join(runes[n - 1:])]
    return s.split(sep, n - 1 if n > 0 else -1)


@signature("string", "string")
def split(sep: str, s: str) -> dict[str, str]:
    """``split``: a dict ``{_0: ..., _1: ...}``."""
    return {f"_{i}": part for i, part in enumerate(go_split(s, sep))}


@signature("string", "int", "string")
def splitn(sep: str, n: int, s: str) -> dict[str, str]:
    """``splitn``: at most n parts, as a dict."""
    return {f"_{i}": part for i, part in enumerate(go_split(s, sep, n))}


@signature("string", "string")
def split_list(sep: str, s: str) -> list[str]:
    """``splitList``."""
    return go_split(s, sep)


@signature("string", "interface {}")
def join(sep: str, v: Any) -> str:
    """``join``: ``toStrings`` then ``strings.Join``."""
    return sep.join(conversion.strslice(v))


@signature("string")
def shuffle(s: str) -> str:
    """``shuffle``: the runes in random order."""
    return "".join(rand.shuffled(list(s)))


@signature()
def hello() -> str:
    """``hello``."""
    return "Hello!"


@signature("string")
def snakecase(s: str) -> str:
    """``snakecase``: xstrings ToSnakeCase."""
    return casing.to_lower_words(s, "_")


@signature("string")
def kebabcase(s: str) -> str:
    """``kebabcase``: xstrings ToKebabCase."""
    return casing.to_lower_words(s, "-")


@signature("string")
def camelcase(s: str) -> str:
    """``camelcase``: xstrings ToPascalCase."""
    return casing.to_pascal(s)


FUNCS = {
    "hello": hello,
    "abbrev": abbrev,
    "abbrevboth": abbrevboth,
    "trunc": trunc,
    "trim": trim,
    "upper": upper,
    "lower": lower,
    "title": title,
    "untitle": untitle,
    "substr": substr,
    "repeat": repeat,
    "trimall": trim_all,
    "trimAll": trim_all,
    "trimSuffix": trim_suffix,
    "trimPrefix": trim_prefix,
    "nospace": nospace,
    "initials": initials,
    "swapcase": swapcase,
    "shuffle": shuffle,
    "snakecase": snakecase,
    "camelcase": camelcase,
    "kebabcase": kebabcase,
    "wrap": wrap,
    "wrapWith": wrap_with,
    "contains": contains,
    "hasPrefix": has_prefix,
    "hasSuffix": has_suffix,
    "quote": quote,
    "squote": squote,
    "cat": cat,
    "indent": indent,
    "nindent": nindent,
    "replace": replace,
    "plural": plural,
    "split": split,
    "splitList": split_list,
    "splitn": splitn,
    "join": join,
}
