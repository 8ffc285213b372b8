"""YAML read and written the way Helm does it (``sigs.k8s.io/yaml`` on top of yaml.v2).

Reading (:func:`load`, Helm's values files and ``fromYaml``): yaml.v2 decodes with its
YAML 1.1 rules, the result is converted to JSON and decoded into ``interface{}``. So:

* every number is a ``float`` (Go float64), whatever its YAML spelling;
* ``y``/``n``/``yes``/``no``/``on``/``off`` (yaml.v2's spellings) are booleans;
* timestamps stay strings (yaml.v2 keeps them as strings when decoding to ``interface{}``);
* ``1e3`` is a number (yaml.v2's float pattern needs no dot), ``0x1F``, ``0o17``, ``017``,
  ``0b101`` are integers (``strconv.ParseInt`` base 0); ``1e400`` overflows and stays a string;
* mapping keys become strings: ints in decimal, floats with float32 precision
  (``1.2345679e+08``), booleans ``true``/``false``; a null key is an error;
* merge keys ``<<`` set their keys in place (an earlier explicit key is overwritten, a
  later one wins; in a list of maps the first map wins);
* only the first document of a stream counts (``yaml.Unmarshal``).

Writing (:func:`dump`, Helm's ``toYaml``) is ``json.Marshal`` then yaml.v2 ``Marshal``:
see :mod:`helm_core.golib.goyaml_write`.
"""
from __future__ import annotations

import functools
import hashlib
import math
import pickle
import re
from pathlib import Path
from typing import Any

from helm_core.errors import ValuesError
from helm_core.golib import gojson
from helm_core.gotemplate import gostrconv
from helm_core.support import memo

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

#: First characters yaml.v2's resolveTable knows; anything else is a string at once.
_HINTS = frozenset("yYnNtTfFoO~.+-0123456789") | {""}
_YAML_STYLE_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_DOT_FLOAT = re.compile(r"^\.[0-9](_?[0-9])*([eE][-+]?[0-9](_?[0-9])*)?$")
_GO_INT_DIGITS = {
    "0x": (16, re.compile(r"^[0-9a-fA-F]+$")),
    "0o": (8, re.compile(r"^[0-7]+$")),
    "0b": (2, re.compile(r"^[01]+$")),
}
_DECIMAL = re.compile(r"^[0-9]+$")
_OCTAL = re.compile(r"^[0-7]+$")
_TS_DATE = re.compile(r"^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})$")
_TS_ZONED = re.compile(
    r"^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})[Tt]([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})"
    r"([.,][0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$"
)
_TS_SPACED = re.compile(
    r"^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2}) ([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})([.,][0-9]+)?$"
)
_DAYS_IN_MONTH = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


_UINT64_DIGITS = len(str(UINT64_MAX))


def _parse_unsigned(digits: str) -> int | None:
    """``strconv.ParseUint(s, 0, 64)`` magnitude without sign (None when invalid)."""
    prefix = digits[:2].lower()
    if prefix in _GO_INT_DIGITS:
        base, pattern = _GO_INT_DIGITS[prefix]
        rest = digits[2:]
        return int(rest, base) if pattern.match(rest) else None
    if len(digits) > 1 and digits[0] == "0":
        return int(digits[1:], 8) if _OCTAL.match(digits[1:]) else None
    if not _DECIMAL.match(digits):
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
    for pattern in (_TS_ZONED, _TS_SPACED, _TS_DATE):
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
        if pattern is not _TS_DATE:
            if int(m.group(4)) > 23 or int(m.group(5)) > 59 or int(m.group(6)) > 59:
                return False
        return True
    return False


def resolve(text: str) -> tuple[str, Any]:
    """yaml.v2's ``resolve("", s)``: the tag and value an untagged plain scalar gets.

    Timestamps resolve to :data:`TAG_TIMESTAMP` with the text as value.
    """
    hint = text[:1]
    if hint not in _HINTS:
        return TAG_STR, text
    if text in _RESOLVE_MAP:
        return _RESOLVE_MAP[text]
    if hint == ".":
        if _DOT_FLOAT.match(text):
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
        if _YAML_STYLE_FLOAT.match(plain):
            value = float(plain)
            if not math.isinf(value):
                return TAG_FLOAT, value
        if plain.startswith("-0b") and re.match(r"^[01]+$", plain[3:]):
            return TAG_INT, -int(plain[3:], 2)
    return TAG_STR, text


def resolve_plain(text: str) -> Any:
    """What yaml.v2 makes of an untagged plain scalar decoded into ``interface{}``."""
    return resolve(text)[1]


def decode(data: bytes | str) -> Any:
    """``sigs.k8s.io/yaml.Unmarshal`` into ``interface{}`` of the first document.

    Raises :class:`ValueError` with Go's message (``error converting YAML to JSON: ...``).
    Goes through the active disk memo, if any.
    """
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    disk = memo.active()
    if disk is None:
        return _decode(text)
    key = hashlib.sha256(f"{code_digest()}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()
    return disk.pickled(DECODE_MEMO, key, lambda: _decode(text))


def _decode(text: str) -> Any:
    from helm_core.golib import goyaml_read
    return goyaml_read.decode(text)


def decode_all(data: bytes | str) -> list[Any]:
    """Every document of a stream, each decoded as :func:`decode` does (for multi-doc tools)."""
    from helm_core.golib import goyaml_read
    return goyaml_read.decode_all(data)


#: Decoded documents in the disk memo. Even a small manifest reads back faster (~55 µs) than
#: it decodes (~160 µs for 240 characters), and a run that finds them all never imports PyYAML.
DECODE_MEMO = "goyaml-decode"


@functools.cache
def code_digest() -> str:
    """Our YAML code (this module, reader, writer, Go's JSON and number formatting) and PyYAML's."""
    here = Path(__file__).parent
    return memo.code_digest(__file__, here / "goyaml_read.py", here / "goyaml_write.py",
                            gojson.__file__, gostrconv.__file__) + pyyaml_digest()


@functools.cache
def pyyaml_digest() -> str:
    """PyYAML's version and whether its libyaml binding is there, found without importing it
    (part of the memo key of whatever PyYAML parses or writes)."""
    folder = memo.package_folder("yaml")
    if folder is None:  # pragma: no cover - PyYAML is a dependency
        return "no-pyyaml"
    return memo.code_digest(folder / "__init__.py") + str(sorted(p.name for p in folder.glob("_yaml.*")))


def load(data: bytes | str, *, source: str = "<input>") -> Any:
    """Decode the first YAML document of ``data`` with Helm's typing.

    Raises :class:`ValueError` naming ``source`` and Go's message on bad input.
    """
    try:
        return decode(data)
    except ValueError as exc:
        raise ValueError(f"{source}: {exc}") from None


def load_values(data: bytes | str, *, context: str) -> dict[str, Any]:
    """Values from a YAML file, as Helm unmarshals it into a map (empty or null → {}).

    Raises :class:`ValuesError` ``"<context>: <Go's message>"``; ``context`` is Helm's wrapping
    (``cannot load values.yaml``, ``failed to parse <file>``).
    """
    try:
        loaded = decode(data)
    except ValueError as exc:
        raise ValuesError(f"{context}: {exc}") from None
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise ValuesError(f"{context}: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal "
                          f"{gojson.json_kind(loaded)} into Go value of type map[string]interface {{}}")
    return loaded


def dump(value: Any) -> str:
    """``sigs.k8s.io/yaml.Marshal``: the YAML text Helm's ``toYaml`` starts from.

    Ends with a newline as Marshal's does (``toYaml`` trims it); raises
    :class:`helm_core.golib.gojson.JSONError` when JSON cannot represent the value.
    See :mod:`helm_core.golib.goyaml_write` for the rules. With a disk memo active, the text of a
    value met before is read back instead of emitted (and PyYAML is not imported for it).
    """
    plain = json_step(value)
    disk = memo.active()
    if disk is None:
        return _emit(plain)
    key = hashlib.sha256(code_digest().encode() + pickle.dumps(plain, protocol=pickle.HIGHEST_PROTOCOL))
    return disk.pickled(DUMP_MEMO, key.hexdigest(), lambda: _emit(plain))


#: Texts of ``toYaml`` in the disk memo, keyed by the value after its JSON step.
DUMP_MEMO = "goyaml-dump"


def _emit(plain: Any) -> str:
    from helm_core.golib import goyaml_write
    return goyaml_write.emit(plain)


#: Lone surrogates: bytes of invalid UTF-8 carried through (surrogateescape).
SURROGATE = re.compile("[\ud800-\udfff]")


def json_step(value: Any, depth: int = 0) -> Any:
    """What yaml.v2 decodes from ``json.Marshal(value)``: integral float64 below 1e21 that
    fits int64/uint64 is an int again, []byte is base64 text, structs are their JSON form."""
    if depth > MAX_DEPTH:
        raise gojson.JSONError("json: exceeded max depth")
    if isinstance(value, str):
        if SURROGATE.search(value):  # invalid UTF-8 bytes: json.Marshal writes U+FFFD for each
            value = SURROGATE.sub("\ufffd", value)
        return _reread_json_string(value) if "\x85" in value else value
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise gojson.JSONError(f"json: unsupported value: {gojson.format_float(value)}")
        if value.is_integer() and abs(value) < gojson.JSON_FLOAT_EXP_HIGH:
            as_int = int(gojson.format_float(value, "f"))  # JSON's shortest digits, zero-padded
            if INT64_MIN <= as_int <= UINT64_MAX:
                return as_int
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            key = SURROGATE.sub("\ufffd", str(key))
            if "\x85" in key:  # a multi-line flow key: yaml.v2 rejects the JSON it got
                raise gojson.JSONError("yaml: line 1: did not find expected ',' or '}'")
            out[key] = json_step(item, depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        return [json_step(v, depth + 1) for v in value]
    if isinstance(value, (bytes, bytearray)):
        return gojson.loads(gojson.dumps(bytes(value)))
    converted = gojson.to_go_json(value)
    if converted is value:
        return gojson.loads(gojson.dumps(value))  # raises Go's error for unsupported types
    return json_step(converted, depth + 1)


def _reread_json_string(value: str) -> str:
    """Go's JSON leaves NEL (U+0085) raw; yaml.v2 then reads it as a line break inside a
    double-quoted scalar and folds it (to a space, with surrounding spaces trimmed)."""
    return str(decode(gojson.quote_string(value)))


def dump_pretty(value: Any) -> str:
    """Helm's ``toYamlPretty`` text (yaml.v3 Encoder, indent 2), ending with a newline."""
    from helm_core.golib import goyaml_write
    return goyaml_write.dump_pretty(value)
