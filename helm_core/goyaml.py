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
see :mod:`helm_core.goyaml_write`.
"""
from __future__ import annotations

import base64
import binascii
import contextlib
import functools
import hashlib
import math
import re
import struct
from collections.abc import Iterator
from typing import Any

import yaml

from helm_core import gojson, memo
from helm_core.errors import ValuesError
from helm_core.gotemplate import gostrconv

#: libyaml's parser when present: the C code yaml.v2 was ported from, and faster.
_BaseLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

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
#: Limit on nested collections while converting (yaml.v2 has none; this keeps Python's stack safe).
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


def _parse_unsigned(digits: str) -> int | None:
    """``strconv.ParseUint(s, 0, 64)`` magnitude without sign (None when invalid)."""
    prefix = digits[:2].lower()
    if prefix in _GO_INT_DIGITS:
        base, pattern = _GO_INT_DIGITS[prefix]
        rest = digits[2:]
        return int(rest, base) if pattern.match(rest) else None
    if len(digits) > 1 and digits[0] == "0":
        return int(digits[1:], 8) if _OCTAL.match(digits[1:]) else None
    return int(digits) if _DECIMAL.match(digits) else None


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


class _GoLoader(_BaseLoader):  # type: ignore[misc]
    """Composes nodes only; every untagged plain scalar gets :data:`TAG_PLAIN`."""


_GoLoader.yaml_implicit_resolvers = {}
_GoLoader.add_implicit_resolver(TAG_PLAIN, re.compile(r"(?s).*"), [None, ""])


def _float32_key(value: float) -> str:
    """``strconv.FormatFloat(f, 'g', -1, 32)`` as sigs.k8s.io/yaml names float keys."""
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    f32 = struct.unpack("f", struct.pack("f", value))[0]
    for precision in range(1, 10):
        text = f"{f32:.{precision}e}"
        if struct.unpack("f", struct.pack("f", float(text)))[0] == f32:
            return gojson.format_float(float(text), "g")
    return gojson.format_float(f32, "g")  # pragma: no cover - 9 digits always round-trip


def _allowed_alias_ratio(decode_count: int) -> float:
    """yaml.v2's ``allowedAliasRatio``: how much of a document may come from alias expansion."""
    if decode_count <= ALIAS_RATIO_LOW:
        return 0.99
    if decode_count >= ALIAS_RATIO_HIGH:
        return 0.10
    return 0.99 - 0.89 * (decode_count - ALIAS_RATIO_LOW) / (ALIAS_RATIO_HIGH - ALIAS_RATIO_LOW)


class _SelfReference(Exception):
    """An anchored node reached again while it is being built (yaml.v2's "contains itself")."""


class _Builder:
    """Turns composed nodes into Go-typed values, with yaml.v2's merge, key and alias rules.

    An anchored node met again is an alias: it is expanded afresh (Go values are copies);
    expansion is bounded as yaml.v2 bounds it ("document contains excessive aliasing").
    """

    def __init__(self) -> None:
        self.depth = 0
        self.seen: set[int] = set()
        self.building: set[int] = set()
        self.alias_depth = 0
        self.decode_count = 0
        self.alias_count = 0

    def value(self, node: yaml.Node) -> Any:
        key = id(node)
        alias = key in self.seen
        self.seen.add(key)
        self.decode_count += 1
        if self.alias_depth or alias:
            self.alias_count += 1
            if (self.alias_count > MIN_ALIASES_CHECKED and self.decode_count > MIN_DECODES_CHECKED
                    and self.alias_count / self.decode_count > _allowed_alias_ratio(self.decode_count)):
                raise ValueError("yaml: document contains excessive aliasing")
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node)
        if key in self.building:
            raise _SelfReference()
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ValueError("yaml: exceeded max depth")
        self.building.add(key)
        self.alias_depth += alias
        try:
            if isinstance(node, yaml.SequenceNode):
                return [self.value(child) for child in node.value]
            out: dict[str, Any] = {}
            self.mapping(node, out)
            return out
        finally:
            self.depth -= 1
            self.alias_depth -= alias
            self.building.discard(key)

    def scalar(self, node: yaml.ScalarNode) -> Any:
        tag = node.tag
        if tag == TAG_BINARY:
            try:
                return base64.b64decode(node.value.encode("ascii", "replace"), validate=False).decode(
                    "utf-8", "surrogateescape")
            except (ValueError, binascii.Error):
                raise ValueError(f"yaml: !!binary value contains invalid base64 data") from None
        if tag == TAG_PLAIN:
            rtag, value = resolve(node.value)
            return node.value if rtag in (TAG_TIMESTAMP, TAG_MERGE) else value
        if tag in (TAG_INT, TAG_FLOAT, TAG_BOOL, TAG_NULL):
            rtag, value = resolve(node.value)
            if rtag == TAG_INT and tag == TAG_FLOAT:
                return float(value)
            if rtag != tag:
                raise ValueError(
                    f"yaml: cannot decode {_short(rtag)} `{node.value}` as a {_short(tag)}"
                )
            return value
        return node.value

    def mapping(self, node: yaml.Node, out: dict[str, Any]) -> None:
        for key_node, value_node in node.value:
            if _is_merge(key_node):
                self.merge(value_node, out)
                continue
            key = self.value(key_node)
            if isinstance(key, (list, dict)):
                raise ValueError(f"yaml: invalid map key: {_go_sharp_v(key)}")
            value = self.value(value_node)
            out[_key_string(key, value)] = value

    def merge(self, node: yaml.Node, out: dict[str, Any]) -> None:
        if isinstance(node, yaml.MappingNode):
            self.mapping(node, out)
            return
        if isinstance(node, yaml.SequenceNode):
            for child in reversed(node.value):
                if not isinstance(child, yaml.MappingNode):
                    raise ValueError("yaml: map merge requires map or sequence of maps as the value")
                self.mapping(child, out)
            return
        raise ValueError("yaml: map merge requires map or sequence of maps as the value")


def _is_merge(node: yaml.Node) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.value == "<<" and node.tag in (TAG_PLAIN, TAG_MERGE)


def _short(tag: str) -> str:
    return "!!" + tag.rsplit(":", 1)[1] if tag.startswith("tag:yaml.org,2002:") else tag


def _key_string(key: Any, value: Any = None) -> str:
    """sigs.k8s.io/yaml's key conversion; other key types (null, uint64) are its error."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int) and INT64_MIN <= key <= INT64_MAX:
        return str(key)
    if isinstance(key, float):
        return _float32_key(key)
    go_type = "%!s(<nil>)" if key is None else "uint64"
    raise ValueError(f"unsupported map key of type: {go_type}, key: {_go_sharp_v(key, top=True)}, "
                     f"value: {_go_sharp_v(value, top=True)}")


_GO_SHORT_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t",
                     "\v": "\\v", '"': '\\"', "\\": "\\\\"}


def _go_quote(s: str) -> str:
    """``strconv.Quote`` for the texts yaml errors show."""
    out = []
    for ch in s:
        if ch in _GO_SHORT_ESCAPES:
            out.append(_GO_SHORT_ESCAPES[ch])
        elif ch.isprintable() or ch == " ":
            out.append(ch)
        elif ord(ch) < 0x80:
            out.append(f"\\x{ord(ch):02x}")
        elif ord(ch) <= 0xFFFF:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    return '"' + "".join(out) + '"'


def _go_sharp_v(value: Any, *, top: bool = False) -> str:
    """Go's ``%#v`` of a yaml.v2-decoded value (as its error messages print keys and values)."""
    if value is None:
        return "<nil>" if top else "interface {}(nil)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return gojson.format_float(value, "g")
    if isinstance(value, str):
        return _go_quote(value)
    if isinstance(value, list):
        return "[]interface {}{" + ", ".join(_go_sharp_v(v) for v in value) + "}"
    items = ", ".join(f"{_go_sharp_v(k)}:{_go_sharp_v(v)}" for k, v in sorted(value.items()))
    return "map[interface {}]interface {}{" + items + "}"


def _json_types(value: Any) -> Any:
    """The JSON step: ints become float64; NaN/Inf cannot be marshalled."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise ValueError(f"json: unsupported value: {gojson.format_float(value)}")
        return value
    if isinstance(value, dict):
        return {k: _json_types(v) for k, v in value.items()}
    return [_json_types(v) for v in value]


def _describe_yaml_error(exc: yaml.YAMLError) -> str:
    """yaml.v2's ``yaml: line N: problem`` text for a libyaml scanner or parser error."""
    problem = getattr(exc, "problem", None) or str(exc)
    problem_mark = getattr(exc, "problem_mark", None)
    context_mark = getattr(exc, "context_mark", None)
    line = 0
    if problem_mark is not None and problem_mark.line != 0:
        line = problem_mark.line
        if isinstance(exc, yaml.scanner.ScannerError):
            line += 1
    elif context_mark is not None and context_mark.line != 0:
        line = context_mark.line
    return f"yaml: line {line}: {problem}" if line else f"yaml: {problem}"


def _self_referencing_anchor(text: str) -> str:
    """The anchor whose value contains an alias to itself (found again from parse events)."""
    open_anchors: list[str | None] = []
    for event in yaml.parse(text, Loader=_GoLoader):
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            open_anchors.append(event.anchor)
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            open_anchors.pop()
        elif isinstance(event, yaml.AliasEvent) and event.anchor in open_anchors:
            return str(event.anchor)
    return ""  # pragma: no cover - only called after a self reference was built


def _undefined_alias(exc: yaml.YAMLError, text: str) -> str | None:
    """yaml.v2's text for an alias to an unknown anchor (the name is read at the error mark)."""
    if not (getattr(exc, "problem", "") or "").startswith("found undefined alias"):
        return None
    mark = getattr(exc, "problem_mark", None)
    start = mark.index + 1 if mark is not None else 0
    name = re.match(r"[^\s,\[\]{}]*", text[start:])
    return f"yaml: unknown anchor '{name.group(0) if name else ''}' referenced"


@contextlib.contextmanager
def _go_errors(text: str) -> Iterator[None]:
    """Turn parser failures into Go's ``error converting YAML to JSON: ...`` texts."""
    try:
        yield
    except yaml.YAMLError as exc:
        message = _undefined_alias(exc, text) or _describe_yaml_error(exc)
        raise ValueError(f"error converting YAML to JSON: {message}") from None
    except _SelfReference:
        name = _self_referencing_anchor(text)
        raise ValueError(f"error converting YAML to JSON: yaml: anchor '{name}' value contains itself") from None
    except ValueError as exc:
        raise ValueError(f"error converting YAML to JSON: {exc}") from None


def decode(data: bytes | str) -> Any:
    """``sigs.k8s.io/yaml.Unmarshal`` into ``interface{}`` of the first document.

    Raises :class:`ValueError` with Go's message (``error converting YAML to JSON: ...``).
    Large texts (values files, rendered manifests) go through the active disk memo, if any.
    """
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    disk = memo.active()
    if disk is None or len(text) < MEMO_MIN_CHARS:
        return _decode(text)
    key = hashlib.sha256(f"{_code_digest()}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()
    return disk.pickled(DECODE_MEMO, key, lambda: _decode(text))


#: Decoded documents in the disk memo. A 240-character manifest decodes in ~160 µs and reads
#: back from the memo in ~55 µs; below MEMO_MIN_CHARS decoding is the cheaper.
DECODE_MEMO = "goyaml-decode"
MEMO_MIN_CHARS = 128


@functools.cache
def _code_digest() -> str:
    """The decoding code (this module, Go's number formatting) and the YAML parser's version."""
    return memo.code_digest(__file__, gojson.__file__, gostrconv.__file__) + yaml.__version__ + str(_BaseLoader)


def _decode(text: str) -> Any:
    loader = _GoLoader(text)
    try:
        with _go_errors(text):
            node = _first_node(loader)
            decoded = _Builder().value(node) if node is not None else None
            return _json_types(decoded)
    finally:
        loader.dispose()


def decode_all(data: bytes | str) -> list[Any]:
    """Every document of a stream, each decoded as :func:`decode` does (for multi-doc tools)."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    loader = _GoLoader(text)
    docs: list[Any] = []
    try:
        with _go_errors(text):
            while loader.check_node():
                node = loader.get_node()
                docs.append(_json_types(_Builder().value(node)) if node is not None else None)
    finally:
        loader.dispose()
    return docs


def _first_node(loader: Any) -> Any:
    if loader.check_node():
        return loader.get_node()
    return None


def load(data: bytes | str, *, source: str = "<input>") -> Any:
    """Decode the first YAML document of ``data`` with Helm's typing.

    Raises :class:`ValueError` naming ``source`` and Go's message on bad input.
    """
    try:
        return decode(data)
    except ValueError as exc:
        raise ValueError(f"{source}: {exc}") from None


def load_values(data: bytes | str, *, source: str) -> dict[str, Any]:
    """Values from a YAML file: the first document, which must be a map (empty → {})."""
    try:
        loaded = load(data, source=source)
    except ValueError as exc:
        raise ValuesError(f"cannot parse {exc}") from None
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise ValuesError(
            f"{source}: values must be a YAML map, not {type(loaded).__name__}"
        )
    return loaded


def dump(value: Any) -> str:
    """``sigs.k8s.io/yaml.Marshal``: the YAML text Helm's ``toYaml`` starts from.

    Ends with a newline as Marshal's does (``toYaml`` trims it); raises
    :class:`helm_core.gojson.JSONError` when JSON cannot represent the value.
    See :mod:`helm_core.goyaml_write` for the rules.
    """
    from helm_core import goyaml_write

    return goyaml_write.dump(value)


def dump_pretty(value: Any) -> str:
    """Helm's ``toYamlPretty`` text (yaml.v3 Encoder, indent 2), ending with a newline."""
    from helm_core import goyaml_write

    return goyaml_write.dump_pretty(value)
