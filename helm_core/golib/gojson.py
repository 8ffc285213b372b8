"""JSON exactly as Go's ``encoding/json`` writes and reads it: the one encoder and decoder.

Templates see JSON through Helm's ``toJson``/``fromJson`` and Sprig's ``toPrettyJson``/
``toRawJson``/``mustToJson``/``mustFromJson``...; all of them call encoding/json, so the bytes
and error texts must match Go's. Rules of ``json.Marshal`` kept here:

* map keys sorted by byte order (Python's code point order is the same order); a
  :class:`Struct` (a Go struct, from ``go_json_value()``) keeps its field order;
* ``<``, ``>``, ``&`` escaped as ``\\u003c \\u003e \\u0026`` unless HTML escaping is off;
  U+2028/U+2029 always escaped; control characters as ``\\b \\f \\n \\r \\t`` or ``\\u00XX``;
  invalid UTF-8 (lone surrogates) as ``\\ufffd``;
* float64 in ``%f`` form for 1e-6 <= |f| < 1e21, else ``%e`` with ``e-07`` cleaned to ``e-7``
  (digits from :func:`helm_core.golib.gostrconv.format_float`);
  NaN and infinities are errors (``json: unsupported value: NaN``);
* ``[]byte`` as base64, ``time.Time`` as RFC 3339 with nanoseconds, ``time.Duration`` as its
  nanoseconds, nil as ``null``.

Reading (:func:`loads`) decodes into ``interface{}``: every number becomes a float64, and
errors carry the Go scanner's messages (``invalid character 'x' looking for beginning of value``).
"""
from __future__ import annotations

import datetime
import functools
import math
import re

from helm_core.errors import ValuesError
from helm_core.golib import gotypes
from helm_core.golib.gostrconv import format_float as format_float  # re-exported: part of this module's API

TYPE_CHECKING = False
if TYPE_CHECKING:
    import json
    from typing import Any

#: encoding/json switches to exponent form outside [1e-6, 1e21).
JSON_FLOAT_EXP_LOW = 1e-6
JSON_FLOAT_EXP_HIGH = 1e21


class Struct(dict):  # type: ignore[type-arg]
    """A Go struct's JSON object: fields keep declaration order instead of being sorted."""


class JSONError(ValueError):
    """A value Go's encoding/json cannot marshal, or text it cannot unmarshal; message is Go's."""


def base64_text(data: bytes) -> str:
    """Go's ``base64.StdEncoding`` text of ``data`` (padded), as encoding/json writes ``[]byte``
    and Sprig's ``b64enc`` writes a string's bytes. From binascii, which is what base64's
    ``b64encode`` calls: base64.py (with struct) is start-up time of every run otherwise."""
    import binascii  # by the first call: most renders encode no bytes

    return binascii.b2a_base64(data, newline=False).decode("ascii")


# ---------------------------------------------------------------------------
# Floats: strconv.FormatFloat lives in gostrconv (re-exported here), JSON's choice of form here


def json_float(f: float) -> str:
    """A float64 as encoding/json writes it (raises :class:`JSONError` for NaN/Inf)."""
    if math.isnan(f) or math.isinf(f):
        raise JSONError(f"json: unsupported value: {format_float(f)}")
    a = abs(f)
    if a != 0 and (a < JSON_FLOAT_EXP_LOW or a >= JSON_FLOAT_EXP_HIGH):
        text = format_float(f, "e")
        if len(text) >= 4 and text[-4] == "e" and text[-3] == "-" and text[-2] == "0":
            text = text[:-2] + text[-1]
        return text
    return format_float(f, "f")


# ---------------------------------------------------------------------------
# Marshal

@functools.cache
def _escapes(escape_html: bool) -> dict[int, str]:
    """The escapes of Go's encoder with or without HTML escaping, for ``str.translate``. Built on
    first use: most runs never marshal a string that needs one, and the table of surrogates is
    start-up time (bench/deferred.py)."""
    escapes = {i: f"\\u{i:04x}" for i in range(0x20)}
    escapes.update({0x08: "\\b", 0x0C: "\\f", 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t"})
    escapes.update({ord('"'): '\\"', ord("\\"): "\\\\", 0x2028: "\\u2028", 0x2029: "\\u2029"})
    # a lone surrogate is a byte of invalid UTF-8 (surrogateescape): Go writes the escape \ufffd for it
    escapes.update({c: "\\ufffd" for c in range(0xD800, 0xE000)})
    if escape_html:
        escapes.update({ord("<"): "\\u003c", ord(">"): "\\u003e", ord("&"): "\\u0026"})
    return escapes


@functools.cache
def _needs_escape(escape_html: bool, ascii_text: bool) -> re.Pattern[str]:
    """A character :func:`_escapes` rewrites, in ASCII text or in any text. Compiled on first use,
    and for ASCII text (nearly all) without U+2028, U+2029 and the surrogates: a class holding
    those takes ~0.5 ms to compile, the ASCII one a tenth of that."""
    html = "<>&" if escape_html else ""
    wide = "" if ascii_text else r"\u2028\u2029\ud800-\udfff"
    return re.compile(rf'[\x00-\x1f"\\{html}{wide}]')


@functools.cache
def _surrogate_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(text whose decoding may hold surrogates: raw ones, or escapes Python leaves lone;
    a surrogate), compiled on first use (start-up time, bench/deferred.py), and only for text
    that is not ASCII or holds a ``\\u`` escape (:func:`_decoded`)."""
    return re.compile(r"[\ud800-\udfff]|\\u[dD][89abAB]"), re.compile(r"[\ud800-\udfff]")


def json_kind(value: Any) -> str:
    """The JSON kind encoding/json names in "cannot unmarshal <kind> into ..." errors."""
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    return "string"


def quote_string(s: str, *, escape_html: bool = True) -> str:
    """A JSON string literal as Go writes it (lone surrogates, Go's invalid UTF-8, become ``\\ufffd``)."""
    if not _needs_escape(escape_html, s.isascii()).search(s):
        return '"' + s + '"'
    return '"' + s.translate(_escapes(escape_html)) + '"'


def to_go_json(value: Any) -> Any:
    """What a Go value marshals as, in plain JSON types (GoObjects via ``go_json()``)."""
    go_json = getattr(value, "go_json_value", None)
    if callable(go_json):
        return go_json()
    if isinstance(value, gotypes.Duration):
        return value.nanoseconds
    return value


#: encoding/json looks for cycles (a map or slice inside itself) only past this many levels.
CYCLE_CHECK_DEPTH = gotypes.CYCLE_CHECK_DEPTH


def _encode(value: Any, out: list[str], escape_html: bool, indent: str | None, level: int,
            path: set[int]) -> None:
    """Append ``value``'s JSON to ``out``; ``path`` holds the ids of the maps and lists being
    written past :data:`CYCLE_CHECK_DEPTH` levels, where a value set inside itself is refused."""
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, str):
        out.append(quote_string(value, escape_html=escape_html))
    elif isinstance(value, int):
        out.append(str(value))
    elif isinstance(value, float):
        out.append(json_float(value))
    elif isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        if level >= CYCLE_CHECK_DEPTH:
            _enter_deep(value, path)
        out.append("{")
        keys = list(value) if isinstance(value, Struct) else sorted(value, key=str)
        for i, key in enumerate(keys):
            if i:
                out.append(",")
            if indent is not None:
                out.append("\n" + indent * (level + 1))
            out.append(quote_string(str(key), escape_html=escape_html))
            out.append(": " if indent is not None else ":")
            _encode(value[key], out, escape_html, indent, level + 1, path)
        if indent is not None:
            out.append("\n" + indent * level)
        out.append("}")
        path.discard(id(value))
    elif isinstance(value, (list, tuple)):
        if not value:
            out.append("[]")
            return
        if level >= CYCLE_CHECK_DEPTH:
            _enter_deep(value, path)
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            if indent is not None:
                out.append("\n" + indent * (level + 1))
            _encode(item, out, escape_html, indent, level + 1, path)
        if indent is not None:
            out.append("\n" + indent * level)
        out.append("]")
        path.discard(id(value))
    elif isinstance(value, (bytes, bytearray)):
        out.append('"' + base64_text(bytes(value)) + '"')
    elif isinstance(value, datetime.datetime):  # time.Time.MarshalJSON
        from helm_core.golib import gotime  # (Go's time formatting, for values that hold a time)

        out.append('"' + gotime.format_time(value, gotime.RFC3339_NANO) + '"')
    else:
        converted = to_go_json(value)
        if converted is not value:
            _encode(converted, out, escape_html, indent, level, path)
        elif isinstance(value, gotypes.GoObject):
            out.append("{}")  # a Go struct without JSON fields: encoding/json never refuses a struct
        else:
            raise JSONError(f"json: unsupported type: {gotypes.go_type_name(value)}")


def _enter_deep(value: dict[Any, Any] | list[Any] | tuple[Any, ...], path: set[int]) -> None:
    """A map or list met deep in the value: refused if it is being written already (a cycle,
    which ``set`` or ``append`` can make), as encoding/json refuses it, instead of recursing."""
    if id(value) in path:
        raise JSONError(f"json: unsupported value: encountered a cycle via {gotypes.go_type_name(value)}")
    path.add(id(value))


def dumps(value: Any) -> str:
    """``json.Marshal``: compact, HTML-escaped. Raises :class:`JSONError` like Go's error."""
    out: list[str] = []
    _encode(value, out, True, None, 0, set())
    return "".join(out)


def dumps_pretty(value: Any) -> str:
    """``json.MarshalIndent(v, "", "  ")`` (Sprig's ``toPrettyJson``)."""
    out: list[str] = []
    _encode(value, out, True, "  ", 0, set())
    return "".join(out)


def dumps_raw(value: Any) -> str:
    """An Encoder with ``SetEscapeHTML(false)``, trailing newline trimmed (``toRawJson``)."""
    out: list[str] = []
    # Sprig encodes a pointer to the value: one level more towards encoding/json's cycle check.
    _encode(value, out, False, None, 1, set())
    return "".join(out)


# ---------------------------------------------------------------------------
# Unmarshal into interface{}


def _reject_constant(name: str) -> Any:
    """Python reads NaN and Infinity, Go does not: rejected, then :func:`syntax_error` says why."""
    raise JSONError(f"invalid character {_quote_byte(ord(name[0]))} looking for beginning of value")


def _float_or_range_error(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise JSONError(f"json: cannot unmarshal number {text} into Go value of type float64")
    return value


_SHORT_QUOTES = {0x07: "\\a", 0x08: "\\b", 0x0C: "\\f", 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t", 0x0B: "\\v",
                 0x5C: "\\\\"}
#: encoding/json's nesting limit.
MAX_JSON_DEPTH = 10000


def _quote_byte(c: int) -> str:
    """encoding/json's ``quoteChar``: a byte shown as Go's ``strconv.Quote`` of ``string(rune(c))``."""
    if c == 0x27:
        return "'\\''"
    if c == 0x22:
        return "'\"'"
    if c in _SHORT_QUOTES:
        body = _SHORT_QUOTES[c]
    elif c < 0x20 or c == 0x7F:
        body = f"\\x{c:02x}"
    elif 0x80 <= c <= 0xA0 or c == 0xAD:
        body = f"\\u{c:04x}"
    else:
        body = chr(c)
    return "'" + body + "'"


_HEX = frozenset(b"0123456789abcdefABCDEF")
#: What Go's scanner sees at end of input (``eof`` steps with a space).
_EOF_BYTE = ord(" ")
_LITERALS = {ord("t"): b"true", ord("f"): b"false", ord("n"): b"null"}


def _refuse_constant(name: str) -> Any:
    raise ValueError(name)


def _valid_by_c_decoder(data: bytes) -> bool:
    if data.count(b"[") + data.count(b"{") >= MAX_JSON_DEPTH:
        return False  # could nest past Go's depth limit: the port decides
    import json
    try:
        json.loads(data.decode("utf-8"), parse_constant=_refuse_constant)
    except (ValueError, RecursionError):  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        return False
    return True


def syntax_error(data: bytes) -> str | None:
    """encoding/json's ``checkValid``: Go's message for the first syntax error, or None.

    A port of the scanner's state machine over bytes (structure only; values are not built).
    Valid documents (nearly all) are first proven valid by Python's C decoder, which accepts no
    more than Go does once NaN/Infinity are refused, the bytes are UTF-8 and the nesting cannot
    reach Go's limit; only the rest pay for the port, to get Go's message.
    """
    if _valid_by_c_decoder(data):
        return None
    stack: list[str] = []  # "k" object key expected/after, "v" object value, "a" array value
    i, n = 0, len(data)

    def err(c: int, context: str) -> str:
        return f"invalid character {_quote_byte(c)} {context}"

    def at(j: int) -> int:
        # Go's scanner feeds a space at end of input: mid-token errors name ' '
        return data[j] if j < n else _EOF_BYTE

    def skip_space(j: int) -> int:
        while j < n and data[j] in b" \t\r\n":
            j += 1
        return j

    def value(j: int) -> tuple[int, str | None]:
        """Scan one value starting at j (spaces skipped); returns (end, error)."""
        j = skip_space(j)
        if j >= n:
            return j, "unexpected end of JSON input"
        c = data[j]
        if c == ord("{") or c == ord("["):
            if len(stack) >= MAX_JSON_DEPTH:
                return j, err(c, "exceeded max depth")
            return j + 1, None
        if c == ord('"'):
            return string(j + 1)
        if c == ord("-") or ord("0") <= c <= ord("9"):
            return number(j)
        if c in _LITERALS:
            word = _LITERALS[c]
            for k in range(1, len(word)):
                got = data[j + k] if j + k < n else _EOF_BYTE
                if got != word[k]:
                    return j + k, err(got, f"in literal {word.decode()} (expecting {_quote_byte(word[k])})")
            return j + len(word), None
        return j, err(c, "looking for beginning of value")

    def string(j: int) -> tuple[int, str | None]:
        while j < n:
            c = data[j]
            if c == ord('"'):
                return j + 1, None
            if c == ord("\\"):
                j += 1
                e = data[j] if j < n else _EOF_BYTE
                if e == ord("u"):
                    for k in range(1, 5):
                        h = data[j + k] if j + k < n else _EOF_BYTE
                        if h not in _HEX:
                            return j + k, err(h, "in \\u hexadecimal character escape")
                    j += 5
                    continue
                if e not in b'bfnrt\\/"':
                    return j, err(e, "in string escape code")
            elif c < 0x20:
                return j, err(c, "in string literal")
            j += 1
        return n, "unexpected end of JSON input"

    def number(j: int) -> tuple[int, str | None]:
        if data[j] == ord("-"):
            j += 1
            if not ord("0") <= at(j) <= ord("9"):
                return j, err(at(j), "in numeric literal")
        if data[j] == ord("0"):
            j += 1
        else:
            while j < n and ord("0") <= data[j] <= ord("9"):
                j += 1
        if j < n and data[j] == ord("."):
            j += 1
            if not ord("0") <= at(j) <= ord("9"):
                return j, err(at(j), "after decimal point in numeric literal")
            while j < n and ord("0") <= data[j] <= ord("9"):
                j += 1
        if j < n and data[j] in b"eE":
            j += 1
            if j < n and data[j] in b"+-":
                j += 1
            if not ord("0") <= at(j) <= ord("9"):
                return j, err(at(j), "in exponent of numeric literal")
            while j < n and ord("0") <= data[j] <= ord("9"):
                j += 1
        return j, None

    def opened(end: int) -> bool:
        # a scanned value ends in "{" or "[" only when it opened a container
        return data[end - 1] in b"{["

    i, problem = value(0)
    if problem:
        return problem
    if opened(i):
        stack.append("{" if data[i - 1] == ord("{") else "[")
    while stack:
        i = skip_space(i)
        if i >= n:
            return "unexpected end of JSON input"
        c = data[i]
        top = stack[-1]
        if top in ("{", "key"):  # a key is expected ("}" allowed only right after "{")
            if c == ord("}") and top == "{":
                stack.pop()
                i += 1
                continue
            if c != ord('"'):
                return err(c, "looking for beginning of object key string")
            i, problem = string(i + 1)
            if problem:
                return problem
            i = skip_space(i)
            if i >= n:
                return "unexpected end of JSON input"
            if data[i] != ord(":"):
                return err(data[i], "after object key")
            stack[-1] = "value"
        elif top == "value":  # after a key:value pair
            if c == ord(","):
                stack[-1] = "key"
                i += 1
                continue
            if c == ord("}"):
                stack.pop()
                i += 1
                continue
            return err(c, "after object key:value pair")
        elif top == "[":  # first element or "]"
            if c == ord("]"):
                stack.pop()
                i += 1
                continue
            stack[-1] = "elem"
            i -= 1
        else:  # after an array element
            if c == ord("]"):
                stack.pop()
                i += 1
                continue
            if c != ord(","):
                return err(c, "after array element")
        i, problem = value(i + 1)
        if problem:
            return problem
        if opened(i):
            stack.append("{" if data[i - 1] == ord("{") else "[")
    i = skip_space(i)
    if i < n:
        return err(data[i], "after top-level value")
    return None


@functools.cache
def _decoder() -> json.JSONDecoder:
    """Python's C decoder set up as Go decodes into ``interface{}`` (json is imported here, on
    first use: start-up time most renders never need, bench/deferred.py)."""
    import json

    return json.JSONDecoder(parse_float=_float_or_range_error, parse_int=_float_or_range_error,
                            parse_constant=_reject_constant)


def loads(text: str | bytes) -> Any:
    """``json.Unmarshal`` into ``interface{}``: numbers are float64, duplicate keys last-wins,
    lone surrogate escapes and bytes of invalid UTF-8 in strings become U+FFFD.

    Raises :class:`JSONError` with Go's message on invalid input (syntax is checked first,
    as ``checkValid`` does, then numbers out of float64 range).
    """
    data: bytes | None = None
    if isinstance(text, (bytes, bytearray)):
        data = bytes(text)
        text = data.decode("utf-8", "surrogateescape")
    # Text Python's strict decoder accepts is text Go's scanner accepts (same grammar, same
    # whitespace), short of Go's nesting limit; only other text pays for the scanner port.
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:
        try:
            return _decoded(text)
        except (ValueError, RecursionError):
            pass
    if data is None:
        try:  # invalid UTF-8 carried as surrogate escapes: scan the original bytes
            data = text.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            data = text.encode("utf-8", "surrogatepass")
    problem = syntax_error(data)
    if problem:
        raise JSONError(problem)
    try:
        return _decoded(text)
    except JSONError:
        raise  # a number out of float64's range
    except ValueError as exc:  # pragma: no cover - syntax_error saw it first
        raise JSONError(f"invalid JSON: {exc}") from None


def _decoded(text: str) -> Any:
    value = _decoder().decode(text)
    if text.isascii() and "\\u" not in text:
        return value  # neither a raw surrogate nor an escape of one
    return _replace_surrogates(value) if _surrogate_patterns()[0].search(text) else value


def _replace_surrogates(value: Any) -> Any:
    """Go's ``unquote`` yields U+FFFD where Python's decoder leaves a lone surrogate."""
    if isinstance(value, str):
        return _surrogate_patterns()[1].sub("\ufffd", value)
    if isinstance(value, list):
        return [_replace_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {_replace_surrogates(key): _replace_surrogates(item) for key, item in value.items()}
    return value


def copy_tree(value: Any) -> Any:
    """A deep copy of JSON-like data (maps and lists copied, as plain ``dict`` and ``list``;
    scalars shared).

    Several times faster than ``copy.deepcopy``, which values pass through often (a warm
    prepare and render copy a chart's values several times).
    """
    if value.__class__ is dict or isinstance(value, dict):
        return _copy_map(value)
    if value.__class__ is list or isinstance(value, list):
        return _copy_list(value)
    return value


# Leaves (most of a values tree) are told by their class in the loop, without a call each.

def _copy_map(value: dict[Any, Any]) -> dict[Any, Any]:
    out = {}
    for key, item in value.items():
        cls = item.__class__
        if cls is dict:
            item = _copy_map(item)
        elif cls is list:
            item = _copy_list(item)
        elif cls is not str and isinstance(item, (dict, list)):  # subclasses: plain copies
            item = copy_tree(item)
        out[key] = item
    return out


def _copy_list(value: list[Any]) -> list[Any]:
    out = list(value)
    for index, item in enumerate(out):
        cls = item.__class__
        if cls is dict:
            out[index] = _copy_map(item)
        elif cls is list:
            out[index] = _copy_list(item)
        elif cls is not str and isinstance(item, (dict, list)):
            out[index] = copy_tree(item)
    return out


def load_values(value: Any, *, context: str) -> dict[str, Any]:
    """Values from an already JSON-decoded object (a Kubernetes ``spec.values``, a library
    caller's dict), typed as Go's ``json.Unmarshal`` into ``map[string]interface{}`` types
    the same JSON: every number a float64, the rest as is (null → {}).

    Flux's helm-controller and Helm's SDK read ``apiextensions JSON`` values that way, so a
    controller's ``replicas: 3`` is the ``float64`` that ``helm -f`` gives, not Python's int.
    Returns new containers (the caller's object is never shared). Raises
    :class:`~helm_core.errors.ValuesError` ``"<context>: <Go's message>"``.
    """
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValuesError(f"{context}: json: cannot unmarshal {json_kind(value)} into Go value of type "
                          "map[string]interface {}")
    try:
        typed: dict[str, Any] = _go_typed(value, 1)
    except JSONError as exc:
        raise ValuesError(f"{context}: {exc}") from None
    return typed


def _go_typed(value: Any, depth: int) -> Any:
    if depth > MAX_JSON_DEPTH:
        raise JSONError(f"json: exceeded max depth {MAX_JSON_DEPTH}")
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise JSONError(f"json: unsupported type: map[{type(key).__name__}]")
            out[key] = _go_typed(item, depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        return [_go_typed(item, depth + 1) for item in value]
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return _float_or_range_error(str(value))
    if isinstance(value, float):
        json_float(value)  # NaN and infinities have no JSON form: Go's Marshal error
        return value
    raise JSONError(f"json: unsupported type: {type(value).__name__}")
