"""Word-case conversions of huandu/xstrings v1.5.0 (``snakecase``, ``kebabcase``, ``camelcase``).

Why: resource names are built with these, so word splitting must match
xstrings exactly: runs of capitals stay one word (``HTTPServer`` ->
``http_server``), digits attach by xstrings' rules, connectors are ``-``, ``_``
and whitespace, and CJK ideographs are not "alphabet" letters.
"""
from __future__ import annotations

from helm_core.golib import gounicode
from helm_core.gotemplate.funcs import gohelpers

INVALID, NUMBER, UPPER, ALPHABET, CONNECTOR, PUNCT, OTHER = range(7)
_CJK_RANGES = ((0x4E00, 0x9FCC), (0x3400, 0x4D85), (0x20000, 0x2B81D))


def is_connector(ch: str) -> bool:
    """xstrings isConnector."""
    return ch in "-_" or gounicode.is_space(ch)


def is_alphabet(ch: str) -> bool:
    """xstrings isAlphabet: a letter that is not a CJK ideograph."""
    if not gohelpers.go_is_letter(ch):
        return False
    o = ord(ch)
    if o < 0x3400:
        return True
    return not any(lo <= o <= hi for lo, hi in _CJK_RANGES)


def next_word(s: str) -> tuple[int, str, str]:
    """xstrings nextWord: (word type, word, remaining)."""
    if not s:
        return INVALID, "", ""
    r = s[0]
    n = len(s)
    off = 1
    if is_connector(r):
        wt = CONNECTOR
        while off < n and is_connector(s[off]):
            off += 1
    elif gohelpers.go_is_punct(r):
        wt = PUNCT
        while off < n and gohelpers.go_is_punct(s[off]):
            off += 1
    elif gohelpers.go_is_upper(r):
        wt = UPPER
        if off < n:
            r2 = s[off]
            if gohelpers.go_is_upper(r2):
                off += 1
                while off < n and gohelpers.go_is_upper(s[off]):
                    off += 1
                if off < n and is_alphabet(s[off]):
                    off -= 1
            elif is_alphabet(r2):
                off += 1
                while off < n and is_alphabet(s[off]) and not gohelpers.go_is_upper(s[off]):
                    off += 1
    elif is_alphabet(r):
        wt = ALPHABET
        while off < n and is_alphabet(s[off]) and not gohelpers.go_is_upper(s[off]):
            off += 1
    elif gohelpers.go_is_number(r):
        wt = NUMBER
        while off < n and gohelpers.go_is_number(s[off]):
            off += 1
    else:
        wt = OTHER
        while off < n:
            c = s[off]
            if is_connector(c) or is_alphabet(c) or gohelpers.go_is_number(c) or gohelpers.go_is_punct(c):
                break
            off += 1
    return wt, s[:off], s[off:]


def _lower(out: list[str], wt: int, word: str, connector: str) -> None:
    if wt not in (UPPER, CONNECTOR):
        out.append(word)
        return
    for ch in word:
        if is_connector(ch):
            out.append(connector)
        elif gohelpers.go_is_upper(ch):
            out.append(gohelpers.go_to_lower(ch))
        else:
            out.append(ch)


def to_lower_words(s: str, connector: str) -> str:
    """xstrings camelCaseToLowerCase (ToSnakeCase with "_", ToKebabCase with "-")."""
    if not s:
        return ""
    out: list[str] = []
    wt, word, rem = next_word(s)
    while rem:
        if wt != CONNECTOR:
            _lower(out, wt, word, connector)
        prev, last = wt, word
        wt, word, rem = next_word(rem)
        if prev == NUMBER:
            while wt in (ALPHABET, NUMBER):
                _lower(out, wt, word, connector)
                wt, word, rem = next_word(rem)
            if wt not in (INVALID, PUNCT, CONNECTOR):
                out.append(connector)
        elif prev == CONNECTOR:
            _lower(out, prev, last, connector)
        elif prev == PUNCT:
            pass
        else:
            if wt != NUMBER:
                if wt not in (CONNECTOR, PUNCT):
                    out.append(connector)
                continue
            if not rem:
                continue
            last = word
            wt, word, rem = next_word(rem)
            if wt != ALPHABET:
                _lower(out, NUMBER, last, connector)
                if wt not in (CONNECTOR, PUNCT):
                    out.append(connector)
                continue
            out.append(connector)
            _lower(out, NUMBER, last, connector)
            while wt in (ALPHABET, NUMBER):
                _lower(out, wt, word, connector)
                wt, word, rem = next_word(rem)
            if wt not in (INVALID, CONNECTOR, PUNCT):
                out.append(connector)
    _lower(out, wt, word, connector)
    return "".join(out)


def to_pascal(s: str) -> str:
    """xstrings ToPascalCase (toCamelCase with isBig)."""
    if not s:
        return ""
    out: list[str] = []
    i = 0
    n = len(s)
    first_upper = False
    r0 = ""
    while i < n:
        r0 = s[i]
        i += 1
        if not is_connector(r0):
            first_upper = gohelpers.go_is_upper(r0)
            r0 = gohelpers.go_to_upper(r0)
            break
        out.append(r0)
    if i >= n:
        if r0:
            out.append(r0)
        return "".join(out)
    while i < n:
        r1 = r0
        r0 = s[i]
        i += 1
        if is_connector(r0) and is_connector(r1):
            out.append(r1)
            continue
        if is_connector(r1):
            first_upper = gohelpers.go_is_upper(r0)
            r0 = gohelpers.go_to_upper(r0)
        else:
            if first_upper:
                if gohelpers.go_is_upper(r0):
                    r0 = gohelpers.go_to_lower(r0)
                else:
                    first_upper = False
            out.append(r1)
    out.append(r0)
    return "".join(out)
