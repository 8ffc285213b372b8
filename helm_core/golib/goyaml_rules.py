"""yaml.v2's scalar rules shared by the YAML reader and writer: tags, limits, ``resolve``.

Apart from :mod:`helm_core.golib.goyaml` (the facade) so the reader (``goyaml_read``) and the
writer (``goyaml_write``) import these rules without importing the facade that loads them
lazily (no import cycle), and without PyYAML.
"""
from __future__ import annotations

import functools
import math
import re

from helm_core.support import patterns

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

TAG_STR = "tag:yaml.org,2002:str"
TAG_INT = "tag:yaml.org,2002:int"
TAG_FLOAT = "tag:yaml.org,2002:float"
TAG_BOOL = "tag:yaml.org,2002:bool"
TAG_NULL = "tag:yaml.org,2002:null"
TAG_TIMESTAMP = "tag:yaml.org,2002:timestamp"
TAG_BINARY = "tag:yaml.org,2002:binary"
TAG_MERGE = "tag:yaml.org,2002:merge"
TAG_SEQ = "tag:yaml.org,2002:seq"
TAG_MAP = "tag:yaml.org,2002:map"
#: Our private tag for untagged plain scalars, resolved by :func:`resolve`.
TAG_PLAIN = "tag:helm-core,plain"

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
UINT64_MAX = 2**64 - 1
#: yaml.v2's max_flow_level and max_indents: nested flow collections, and block indents.
MAX_DEPTH = 10_000
#: yaml.v2's alias expansion bounds (decode.go: alias_ratio_range_low/high and its thresholds).
ALIAS_RATIO_LOW = 400_000
ALIAS_RATIO_HIGH = 4_000_000
MIN_ALIASES_CHECKED = 100
MIN_DECODES_CHECKED = 1000

_RESOLVE_MAP: dict[str, tuple[str, Any]] = {}
for _values, _tag, _value in (
    (("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), TAG_BOOL, True),
    (("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), TAG_BOOL, False),
    (("", "~", "null", "Null", "NULL"), TAG_NULL, None),
    ((".nan", ".NaN", ".NAN"), TAG_FLOAT, math.nan),
    ((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), TAG_FLOAT, math.inf),
    (("-.inf", "-.Inf", "-.INF"), TAG_FLOAT, -math.inf),
    (("<<",), TAG_MERGE, "<<"),
):
    for _text in _values:
        _RESOLVE_MAP[_text] = (_tag, _value)

#: First characters yaml.v2's resolveTable knows; a plain scalar starting otherwise is a string at once.
RESOLVE_HINTS = frozenset("yYnNtTfFoO~.+-0123456789") | {""}
# Compiled on first use (helm_core.support.patterns): a render whose YAML comes from the disk
# memo may resolve no number at all.
_YAML_STYLE_FLOAT = patterns.on_first_use(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
#: Every character _YAML_STYLE_FLOAT can match (``$`` also before a final line break): text with
#: another (``10Gi``, ``1.2.3-rc``) is no float, without compiling the pattern.
_FLOAT_CHARS = frozenset("+-.0123456789eE\n")
_DOT_FLOAT = patterns.on_first_use(r"^\.[0-9](_?[0-9])*([eE][-+]?[0-9](_?[0-9])*)?$")
_OCTAL = patterns.on_first_use(r"^[0-7]+$")
_BINARY = patterns.on_first_use(r"^[01]+$")
_GO_INT_DIGITS = {
    "0x": (16, patterns.on_first_use(r"^[0-9a-fA-F]+$")),
    "0o": (8, _OCTAL),
    "0b": (2, _BINARY),
}
_DECIMAL = patterns.on_first_use(r"^[0-9]+$")


@functools.cache
def _timestamp_layouts() -> tuple[re.Pattern[str], ...]:
    """yaml.v2's timestamp layouts (zoned, spaced, then the date alone: the last has no time),
    compiled on first use: a run whose YAML comes from the disk memo never resolves a scalar."""
    return (re.compile(r"^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})[Tt]([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})"
                       r"([.,][0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$"),
            re.compile(r"^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2}) ([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})([.,][0-9]+)?$"),
            re.compile(r"^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})$"))


_DAYS_IN_MONTH = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


_UINT64_DIGITS = len(str(UINT64_MAX))


def _parse_unsigned(digits: str) -> int | None:
    """``strconv.ParseUint(s, 0, 64)`` magnitude without sign (None when invalid)."""
    prefix = digits[:2].lower()
    if prefix in _GO_INT_DIGITS:
        base, pattern = _GO_INT_DIGITS[prefix]
        rest = digits[2:]
        return int(rest, base) if pattern().match(rest) else None
    if len(digits) > 1 and digits[0] == "0":
        return int(digits[1:], 8) if _OCTAL().match(digits[1:]) else None
    if not _DECIMAL().match(digits):
        return None
    # Past 20 digits it is out of uint64's range: say so without converting thousands of
    # digits (Python refuses decimal conversions past 4300 digits; Go answers "out of range").
    return int(digits) if len(digits) <= _UINT64_DIGITS else UINT64_MAX + 1


def _parse_go_int(plain: str) -> int | None:
    """yaml.v2's integer attempt: ParseInt(s, 0, 64), then ParseUint(s, 0, 64)."""
    sign = 1
    body = plain
    if body[:1] in ("+", "-"):
        sign = -1 if body[0] == "-" else 1
        body = body[1:]
    if not body:
        return None
    magnitude = _parse_unsigned(body)
    if magnitude is None:
        return None
    value = sign * magnitude
    if INT64_MIN <= value <= INT64_MAX:
        return value
    if plain[:1] not in ("+", "-") and value <= UINT64_MAX:
        return value
    return None


def _is_timestamp(text: str) -> bool:
    """yaml.v2's parseTimestamp: the four layouts it tries with Go's ``time.Parse``."""
    if len(text) < 5 or not text[:4].isdigit() or text[4] != "-":
        return False
    layouts = _timestamp_layouts()
    for pattern in layouts:
        m = pattern.match(text)
        if not m:
            continue
        year, month, day = int(m.group(1)), int(m.group(2)), int(m.group(3))
        if not 1 <= month <= 12:
            return False
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        days = 29 if (month == 2 and leap) else _DAYS_IN_MONTH[month - 1]
        if not 1 <= day <= days:
            return False
        if pattern is not layouts[-1]:  # a time of day too
            if int(m.group(4)) > 23 or int(m.group(5)) > 59 or int(m.group(6)) > 59:
                return False
        return True
    return False


def resolve(text: str) -> tuple[str, Any]:
    """yaml.v2's ``resolve("", s)``: the tag and value an untagged plain scalar gets.

    Timestamps resolve to :data:`TAG_TIMESTAMP` with the text as value.
    """
    hint = text[:1]
    if hint not in RESOLVE_HINTS:
        return TAG_STR, text
    if text in _RESOLVE_MAP:
        return _RESOLVE_MAP[text]
    if hint == ".":
        if _DOT_FLOAT().match(text):
            value = float(text.replace("_", ""))
            if not math.isinf(value):
                return TAG_FLOAT, value
        return TAG_STR, text
    if hint not in ("", ".") and hint in "+-0123456789":
        if _is_timestamp(text):
            return TAG_TIMESTAMP, text
        plain = text.replace("_", "")
        intv = _parse_go_int(plain)
        if intv is not None:
            return TAG_INT, intv
        if _FLOAT_CHARS.issuperset(plain) and _YAML_STYLE_FLOAT().match(plain):
            value = float(plain)
            if not math.isinf(value):
                return TAG_FLOAT, value
        if plain.startswith("-0b") and _BINARY().match(plain[3:]):
            return TAG_INT, -int(plain[3:], 2)
    return TAG_STR, text


def resolve_plain(text: str) -> Any:
    """What yaml.v2 makes of an untagged plain scalar decoded into ``interface{}``."""
    return resolve(text)[1]


#: Lone surrogates: bytes of invalid UTF-8 carried through (surrogateescape).
SURROGATE = patterns.on_first_use("[\ud800-\udfff]")


def has_surrogates(text: str) -> bool:
    """Whether ``text`` carries lone surrogates (:data:`SURROGATE`); ASCII text, most of what a
    chart writes, is answered without the pattern, which is then compiled only when needed."""
    return not text.isascii() and SURROGATE().search(text) is not None


def utf8_problem(data: bytes) -> str | None:
    """What yaml.v2's reader says of the first invalid UTF-8 sequence in ``data`` (its decoder,
    not Python's: the words tell a bad leading octet from a bad trailing one, an incomplete
    sequence, an overlong one and a surrogate), or None when ``data`` is UTF-8."""
    pos, end = 0, len(data)
    while pos < end:
        octet = data[pos]
        if octet < 0x80:
            pos += 1
            continue
        width = 2 if octet & 0xE0 == 0xC0 else 3 if octet & 0xF0 == 0xE0 else 4 if octet & 0xF8 == 0xF0 else 0
        if not width:
            return "invalid leading UTF-8 octet"
        if pos + width > end:
            return "incomplete UTF-8 octet sequence"
        value = octet & (0x1F, 0x0F, 0x07)[width - 2]
        for trailing in data[pos + 1:pos + width]:
            if trailing & 0xC0 != 0x80:
                return "invalid trailing UTF-8 octet"
            value = (value << 6) + (trailing & 0x3F)
        if value < (0x80, 0x800, 0x10000)[width - 2]:
            return "invalid length of a UTF-8 sequence"
        if 0xD800 <= value <= 0xDFFF or value > 0x10FFFF:
            return "invalid Unicode character"
        pos += width
    return None
