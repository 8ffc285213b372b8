"""The ``toYaml`` writer's rules that need no PyYAML, and a fast emitter for common values.

yaml.v2's key order (:func:`sorted_keys`), its choice of quoting a string that would read back as
another type (:func:`string_style`) and the text of a number, boolean or null (:func:`scalar_text`)
are shared with :mod:`helm_core.golib.goyaml_write`, which drives libyaml's emitter.

:func:`emit` writes, without importing PyYAML, the values whose libyaml text is easy to know
(tests/test_goyaml_emit.py compares it byte for byte with the libyaml path): block maps and
lists of them (empty ones as ``{}`` / ``[]``), numbers, booleans, null, strings of printable
ASCII on lines too short to be folded (plain, single-quoted where libyaml's analysis forbids
plain, double-quoted without escapes when they would read back as another type) and multi-line
ASCII text as a literal block (``|`` or ``|-``) when libyaml needs no indentation hint, no keep
chomping and no quotes. Anything else returns None (the libyaml path).
"""
from __future__ import annotations

import functools

from helm_core.golib import gojson
from helm_core.golib import goyaml_rules as rules
from helm_core.support import patterns

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: yaml.v2 quotes what YAML 1.1 reads as a base-60 float (``1:20``); compiled on first use, and
#: only for text with a colon.
_BASE60_FLOAT = patterns.on_first_use(r"^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$")


def _wrap64(n: int) -> int:
    """Go int64 arithmetic wraps around."""
    return (n + 2**63) % 2**64 - 2**63


def _key_less(a: str, b: str, v3: bool = False) -> bool:
    """yaml.v2's (or yaml.v3's) ``keyList.Less`` for two string keys: letters after other
    characters, digit runs compared as numbers. yaml.v3 puts a letter first when the
    characters before were digits."""
    ar, br = a, b
    digits = False
    for i in range(min(len(ar), len(br))):
        if ar[i] == br[i]:
            digits = ar[i].isdecimal()
            continue
        al, bl = ar[i].isalpha(), br[i].isalpha()
        if al and bl:
            return ar[i] < br[i]
        if al or bl:
            return al if (v3 and digits) else bl
        an = bn = 0
        if ar[i] == "0" or br[i] == "0":
            j = i - 1
            while j >= 0 and ar[j].isdecimal():
                if ar[j] != "0":
                    an = bn = 1
                    break
                j -= 1
        ai = i
        while ai < len(ar) and ar[ai].isdecimal():
            an = _wrap64(an * 10 + ord(ar[ai]) - 48)
            ai += 1
        bi = i
        while bi < len(br) and br[bi].isdecimal():
            bn = _wrap64(bn * 10 + ord(br[bi]) - 48)
            bi += 1
        if an != bn:
            return an < bn
        if ai != bi:
            return ai < bi
        return ar[i] < br[i]
    return len(ar) < len(br)


class _LetterLastTable(dict):  # type: ignore[type-arg]
    """``str.translate`` table: every character becomes a marker (non-letters first) and itself."""

    def __missing__(self, code: int) -> str:
        ch = chr(code)
        self[code] = value = ("\x01" if ch.isalpha() else "\x00") + ch
        return value


_LETTER_LAST = _LetterLastTable()
_DIGIT = patterns.compiled(r"\d")


def sorted_keys(keys: list[str], v3: bool = False) -> list[str]:
    """Keys in yaml.v2's (yaml.v3's) order. Without digits the order is a plain key (letters
    after other characters, else code point); digit runs need the full comparison."""
    if not any(_DIGIT.search(k) for k in keys):
        return sorted(keys, key=lambda k: k.translate(_LETTER_LAST))
    def compare(a: str, b: str) -> int:
        return -1 if _key_less(a, b, v3) else (1 if _key_less(b, a, v3) else 0)

    return sorted(keys, key=functools.cmp_to_key(compare))


def string_style(s: str) -> str | None:
    """yaml.v2's ``stringv``: quote what would read back as another type; literal for
    multi-line text; else plain (the emitter may still fall back to quotes)."""
    if "\n" in s:
        return "|"
    if rules.resolve(s)[0] != rules.TAG_STR or (":" in s and _BASE60_FLOAT().match(s)):
        return '"'
    return None


def scalar_text(value: None | bool | int | float) -> str:
    """yaml.v2's text of null, a boolean or a number (floats as strconv's ``%g``)."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    text = gojson.format_float(value, "g")
    return {"+Inf": ".inf", "-Inf": "-.inf", "NaN": ".nan"}.get(text, text)


#: yaml.v2's emitter settings: 2-space indent, lines folded past 80 columns.
EMIT_INDENT = 2
EMIT_WIDTH = 80
#: libyaml writes a longer (or multi-line) mapping key as a complex "? " key.
SIMPLE_KEY_MAX = 128

def _safe(s: str) -> bool:
    """Whether ``s`` is printable ASCII (``[ -~]*``), with nothing libyaml escapes or must look at
    twice (no tab, no break). String methods, as :func:`_plain_start`: patterns are compiled
    again by every process, and these checks are cheap."""
    return s.isascii() and s.isprintable()


_INDICATORS = frozenset("#,[]{}&*!|>'\"%@`")


def _plain_start(s: str) -> bool:
    """Whether ``s`` opens as libyaml never writes plain in a block: an indicator, ``-``, ``?`` or
    ``:`` followed by a space or the end (or a final line break), documents' ``---`` and ``...``."""
    first = s[:1]
    if first in _INDICATORS:
        return True
    if first and first in "-?:" and (s[1:2] == " " or s[1:] in ("", "\n")):
        return True
    return s.startswith(("---", "..."))


class _Declined(Exception):
    """The value is outside what :func:`emit` proves it writes as libyaml does."""


def _literal(s: str, indent: int) -> str:
    """yaml.v2's literal block for multi-line text, its lines at ``indent``: ``|`` when it ends
    with one line break, ``|-`` without one."""
    # libyaml writes double quotes for a space before a break or at the end; an indentation
    # hint ("|2") for a leading space or break; "|+" (keep) for several final breaks.
    if (s[0] in " \n" or s[-1] == " " or s.endswith("\n\n") or " \n" in s
            or not _safe(s.replace("\n", ""))):
        raise _Declined
    clip = s[-1] == "\n"
    pad = " " * indent
    lines = (s[:-1] if clip else s).split("\n")
    return ("|\n" if clip else "|-\n") + "\n".join(pad + line if line else "" for line in lines)


def _string(s: str, column: int, key: bool) -> str:
    """The text of string ``s`` starting at ``column``: double-quoted when it would read back as
    another type, else plain, or single-quoted where libyaml's analysis forbids plain in a block."""
    if not _safe(s) or (key and len(s) > SIMPLE_KEY_MAX - 2):
        raise _Declined
    # libyaml folds plain and quoted scalars at a space past column 80 (keys are never folded)
    if not key and " " in s and column + len(s) + 2 > EMIT_WIDTH:
        raise _Declined
    style = string_style(s)
    if style == '"':
        if '"' in s or "\\" in s:  # escaped by libyaml (no text read as another type has them today)
            raise _Declined
        return f'"{s}"'
    if s[0] == " " or s[-1] in " :" or _plain_start(s) or ": " in s or " #" in s:
        return "'" + s.replace("'", "''") + "'"
    return s


def _scalar(value: Any, column: int, indent: int) -> str | None:
    """The text of a scalar or an empty collection starting at ``column`` (a literal block's
    lines at ``indent``), or None for a block collection."""
    if isinstance(value, str):
        return _literal(value, indent) if "\n" in value else _string(value, column, False)
    if value is None or isinstance(value, (bool, int, float)):
        return scalar_text(value)
    if isinstance(value, dict):
        return None if value else "{}"
    if isinstance(value, list):
        return None if value else "[]"
    raise _Declined


def _block(value: Any, indent: int, out: list[str], inline: bool) -> None:
    """A non-empty map or list at ``indent``; ``inline``: its first line continues the current
    one (after a sequence's "- ")."""
    pad = " " * indent
    if isinstance(value, dict):
        for key in sorted_keys(list(value)):
            key_text = _string(key, indent, True)
            head = f"{'' if inline else pad}{key_text}:"
            inline = False
            item = value[key]
            text = _scalar(item, indent + len(key_text) + 2, indent + EMIT_INDENT)
            if text is not None:
                out.append(f"{head} {text}\n")
            elif isinstance(item, dict):
                out.append(head + "\n")
                _block(item, indent + EMIT_INDENT, out, False)
            else:  # yaml.v2 does not indent a sequence under its key
                out.append(head + "\n")
                _block(item, indent, out, False)
        return
    for item in value:
        head = "-" if inline else pad + "-"
        inline = False
        text = _scalar(item, indent + 2, indent + EMIT_INDENT)
        if text is not None:
            out.append(f"{head} {text}\n")
        else:
            out.append(head + " ")
            _block(item, indent + EMIT_INDENT, out, True)


def emit(plain: Any) -> str | None:
    """``sigs.k8s.io/yaml.Marshal`` text of a value after its JSON step, as
    :func:`helm_core.golib.goyaml_write.emit_libyaml` writes it, or None when outside this writer's subset."""
    try:
        text = _scalar(plain, 0, EMIT_INDENT)
        if text is not None:
            return text + "\n"
        out: list[str] = []
        _block(plain, 0, out, False)
    except (_Declined, RecursionError):  # too deep here: the libyaml path gives its own answer
        return None
    return "".join(out)
