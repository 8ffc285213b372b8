"""The ``--set`` family of value strings, parsed exactly as Helm 3.22's ``pkg/strvals``.

Syntax (``name1=value1,name2=value2``):

* ``a.b.c=x`` nests maps (at most :data:`MAX_NESTED_NAME_LEVEL` dots per key);
* ``a[0]=x``, ``a[1][2]=x``, ``a[0].b=x`` set list items (index at most :data:`MAX_INDEX`;
  missing items become ``None``); ``a={x,y}`` gives a list;
* a backslash escapes the next character anywhere (``a\\.b=c`` is the key ``a.b``,
  ``x\\,y`` a comma in a value); ``--set-literal`` knows no escapes and no lists;
* an empty key part is silently dropped (``a..b=1``), as Helm does.

Typing (Helm's ``typedVal``): ``true``/``false``/``null`` in any case give ``True``/``False``/
``None``; ``0`` and base-10 int64 literals not starting with ``0`` give ``int`` (Go int64);
everything else, including ``00009`` and ``1_000``, stays a string. ``parse_set_string``
keeps every value a string; ``parse_set_json`` reads JSON values with Go's typing (every
number a ``float``); ``parse_set_file`` replaces each value by what a reader returns for it.

Errors are :class:`~helm_core.errors.ValuesError` with Helm's own texts (the CLI adds
``failed parsing --set data: ``, see :func:`helm_core.chart.values.merge_user_values`).
Helm mutates structures in place while it parses, and some of its results depend on that
(``a[0]=1,a[0].b=`` keeps ``b``; ``a[0].b=`` alone does not); this module follows the
same steps on a private copy, so callers' dicts are never changed.
"""
from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Mapping

from helm_core.errors import ValuesError
from helm_core.golib import gojson, gostrconv
from helm_core.golib.gojson import copy_tree
from helm_core.golib.gotypes import Int64
from helm_core.support import patterns

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeAlias

#: Largest list index Helm accepts (``strvals.MaxIndex``).
MAX_INDEX = 65536
#: Most ``.`` levels one key may have (``strvals.MaxNestedNameLevel``).
MAX_NESTED_NAME_LEVEL = 30

_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1
_INT64_DIGITS = len(str(_INT64_MAX))
_DECIMAL_RE = patterns.on_first_use(r"[+-]?[0-9]+", re.ASCII)
_KEY_STOPS = frozenset("=[,.")
_LITERAL_KEY_STOPS = frozenset("=[.")
_ITEM_STOPS = frozenset("[.=")
_LIST_STOPS = frozenset(",}")

#: Reads the value written after ``=`` for ``--set-file`` (a path) and returns the value.
FileReader: TypeAlias = "Callable[[str], Any]"


class _Panic(Exception):
    """A failed Go type assertion; Helm recovers it as ``unable to parse key: ...``."""

    def __init__(self, value: Any, want: str) -> None:
        super().__init__(f"interface conversion: interface {{}} is {_go_type(value)}, not {want}")


def parse_set(s: str, into: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``--set``: Helm's ``ParseInto``; returns ``into`` (copied) with ``s`` merged over it."""
    return _run(s, into, _Mode.TYPED)


def parse_set_string(s: str, into: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``--set-string``: like :func:`parse_set` but every value stays a string."""
    return _run(s, into, _Mode.STRING)


def parse_set_json(s: str, into: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``--set-json``: each value is one JSON document (empty means ``None``), numbers float."""
    return _run(s, into, _Mode.JSON)


def parse_set_file(
    s: str, reader: FileReader, *, into: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """``--set-file``: each value (also each ``{a,b}`` item) is passed to ``reader``.

    ``reader`` gets the path as written and returns the value (Helm: the file as a string);
    a :class:`ValuesError` it raises is reported as is.
    """
    return _run(s, into, _Mode.FILE, reader)


def parse_set_literal(s: str, into: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``--set-literal``: one key, and everything after the first ``=`` is the string value."""
    return _run(s, into, _Mode.LITERAL)


def typed_value(text: str) -> Any:
    """Helm's ``typedVal`` for ``--set``: bool, None, int64 or the string itself."""
    if _fold_equal(text, "true"):
        return True
    if _fold_equal(text, "false"):
        return False
    if _fold_equal(text, "null"):
        return None
    if text == "0":
        return Int64(0)
    if text and text[0] != "0" and len(text.lstrip("+-0")) <= _INT64_DIGITS and _DECIMAL_RE().fullmatch(text):
        number = int(text)
        if _INT64_MIN <= number <= _INT64_MAX:
            return Int64(number)
    return text


class _Mode:
    TYPED = "typed"
    STRING = "string"
    JSON = "json"
    FILE = "file"
    LITERAL = "literal"


def _run(s: str, into: Mapping[str, Any] | None, mode: str, reader: FileReader | None = None) -> dict[str, Any]:
    data: dict[str, Any] = copy_tree(dict(into)) if into else {}
    parser = _Parser(s, mode, reader)
    try:
        parser.parse(data)
    except _Panic as exc:
        raise ValuesError(f"unable to parse key: {exc}") from None
    return data


class _Parser:
    """One pass over a set line; methods return True where Helm's returns ``io.EOF``."""

    def __init__(self, text: str, mode: str, reader: FileReader | None) -> None:
        self.text = text
        self.pos = 0
        self.mode = mode
        self.reader = reader
        literal = mode == _Mode.LITERAL
        self.escapes = not literal
        self.key_stops = _LITERAL_KEY_STOPS if literal else _KEY_STOPS

    # -- scanning -------------------------------------------------------
    def _until(self, stops: frozenset[str]) -> tuple[str, str | None]:
        """Characters up to a stop (consumed); the stop is None at end of input."""
        special = _special_chars(stops, self.escapes)
        out: list[str] = []
        text, n = self.text, len(self.text)
        while True:
            found = special.search(text, self.pos)
            if found is None:
                out.append(text[self.pos:])
                self.pos = n
                return "".join(out), None
            at = found.start()
            out.append(text[self.pos:at])
            ch = text[at]
            self.pos = at + 1
            if ch != "\\" or not self.escapes:
                return "".join(out), ch
            if self.pos >= n:
                return "".join(out), None
            out.append(text[self.pos])
            self.pos += 1

    def _rest(self) -> str:
        value = self.text[self.pos:]
        self.pos = len(self.text)
        return value

    # -- grammar ----------------------------------------------------------
    def parse(self, data: dict[str, Any]) -> None:
        """line := key ( ',' key )* ; stops at end of input."""
        while not self.key(data, 0):
            pass

    def key(self, data: dict[str, Any], level: int) -> bool:
        """key := name ( '=' value | '.' key | '[' index ']' item )."""
        name, last = self._until(self.key_stops)
        if last is None:
            if not name:
                return True
            raise ValuesError(f"key {go_quote(name)} has no value")
        if last == "[":
            index = self._index()
            items = _as_list(data[name]) if name in data else []
            items, eof = self.item(items, index, level)
            _set(data, name, items)
            return eof
        if last == "=":
            value, eof = self._value()
            _set(data, name, value)
            return eof
        if last == ",":
            _set(data, name, "")
            raise ValuesError(f"key {go_quote(name)} has no value (cannot end with ,)")
        level += 1
        if level > MAX_NESTED_NAME_LEVEL:
            raise ValuesError(
                "value name nested level is greater than maximum supported nested level"
                f" of {MAX_NESTED_NAME_LEVEL}"
            )
        inner = _as_map(data[name]) if name in data else {}
        eof = self.key(inner, level)
        if not eof and not inner:
            raise ValuesError(f"key map {go_quote(name)} has no value")
        if inner:
            _set(data, name, inner)
        return eof

    def item(self, items: list[Any], index: int, level: int) -> tuple[list[Any], bool]:
        """item := '=' value | '[' index ']' item | '.' key  (after ``name[index]``).

        Helm recurses once per ``[i]``; a chain ``a[0][0]...`` as long as a command line
        allows is followed here in a loop (the lists on the way kept in ``chain``), then
        each list is set into the one above it, innermost first, as Helm's returns do.
        """
        chain: list[tuple[list[Any], int]] = []
        while True:
            if index < 0:
                raise ValuesError(f"negative {index} index not allowed")
            rest, last = self._until(_ITEM_STOPS)
            if rest:
                raise ValuesError(f"unexpected data at end of array index: {_go_quote_runes(rest)}")
            if last is None:
                return (chain[0][0] if chain else items), True
            if last != "[":
                break
            next_index = self._index()
            chain.append((items, index))
            current: list[Any] = []
            if len(items) > index and items[index] is not None:
                current = _as_list(items[index])
            items, index = current, next_index
        if last == "=":
            value, _ = self._value()
            result = _set_index(items, index, value)
        else:
            inner: dict[str, Any] = {}
            if len(items) > index:
                if isinstance(items[index], dict):
                    inner = items[index]
                else:  # indices out of order: Helm replaces the item in place
                    items[index] = inner
            if self.key(inner, level):
                return (chain[0][0] if chain else items), True
            result = _set_index(items, index, inner)
        for outer, outer_index in reversed(chain):
            result = _set_index(outer, outer_index, result)
        return result, False

    def _index(self) -> int:
        """index := decimal ']' (Go's strconv.Atoi)."""
        text, last = self._until(frozenset("]"))
        if last is None:
            raise ValuesError("error parsing index: EOF")
        if not _DECIMAL_RE().fullmatch(text):
            raise ValuesError(
                f"error parsing index: strconv.Atoi: parsing {go_quote(text)}: invalid syntax"
            )
        # Thousands of digits are out of range: Python would refuse to convert them at all.
        number = int(text) if len(text.lstrip("+-0")) <= _INT64_DIGITS else _INT64_MAX + 1
        if not _INT64_MIN <= number <= _INT64_MAX:
            raise ValuesError(
                f"error parsing index: strconv.Atoi: parsing {go_quote(text)}: value out of range"
            )
        return number

    def _value(self) -> tuple[Any, bool]:
        """The value after '='; the flag is Helm's io.EOF from ``a=`` at end of input."""
        if self.mode == _Mode.LITERAL:
            return self._rest(), False
        if self.mode == _Mode.JSON:
            return self._json_value(), False
        items, status = self._list()
        if status == "list":
            return items, False
        if status == "eof":
            return "", True
        text, _ = self._until(frozenset(","))
        return self._read(text), False

    def _list(self) -> tuple[list[Any], str]:
        """list := '{' item ( ',' item )* '}' ','? ; status list, eof or not-a-list."""
        if self.pos >= len(self.text):
            return [], "eof"
        if self.text[self.pos] != "{":
            return [], "scalar"
        self.pos += 1
        items: list[Any] = []
        while True:
            text, last = self._until(_LIST_STOPS)
            if last is None:
                raise ValuesError("list must terminate with '}'")
            items.append(self._read(text))
            if last == "}":
                if self.pos < len(self.text) and self.text[self.pos] == ",":
                    self.pos += 1
                return items, "list"

    def _read(self, text: str) -> Any:
        if self.mode == _Mode.STRING:
            return text
        if self.mode == _Mode.FILE:
            assert self.reader is not None
            return self.reader(text)
        return typed_value(text)

    def _skip_empty(self) -> bool:
        """Helm's ``emptyVal``: skip spaces; True at end of input or after a ','."""
        while self.pos < len(self.text):
            ch = self.text[self.pos]
            self.pos += 1
            if ch == ",":
                return True
            if not _go_isspace(ch):
                self.pos -= 1
                return False
        return True

    def _json_value(self) -> Any:
        if self._skip_empty():
            return None
        try:
            value, end = _json_decoder().raw_decode(self.text, self.pos)
        except (ValueError, RecursionError) as exc:
            raise ValuesError(f"invalid JSON value: {exc}") from None
        decoded = self.text[self.pos:end]
        if decoded.count("[") + decoded.count("{") > gojson.MAX_JSON_DEPTH:
            # Go's decoder refuses nesting past its limit; Python's has none.
            problem = gojson.syntax_error(decoded.encode("utf-8", "surrogatepass"))
            if problem:
                raise ValuesError(f"invalid JSON value: {problem}")
        self.pos = end
        self._skip_empty()
        return value


def _json_float(text: str) -> float:
    """Go decodes every JSON number as float64 (``-0`` stays negative zero)."""
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"number {text} out of range of float64")
    return value


def _json_constant(text: str) -> Any:
    raise ValueError(f"invalid character {text[0]!r} looking for beginning of value")


@functools.cache
def _json_decoder() -> Any:
    import json  # only --set-json needs it: not on every CLI run's start path

    return json.JSONDecoder(parse_float=_json_float, parse_int=_json_float,
                            parse_constant=_json_constant)


@functools.cache
def _special_chars(stops: frozenset[str], escapes: bool) -> re.Pattern[str]:
    """A pattern finding the next stop (or backslash, when escapes apply)."""
    chars = "".join(sorted(stops)) + ("\\" if escapes else "")
    return re.compile("[" + re.escape(chars) + "]")


def _set(data: dict[str, Any], key: str, value: Any) -> None:
    if key:
        data[key] = value


def _set_index(items: list[Any], index: int, value: Any) -> list[Any]:
    """Helm's ``setIndex``: in place when the index exists, else a longer new list."""
    if index < 0:
        raise ValuesError(f"negative {index} index not allowed")
    if index > MAX_INDEX:
        raise ValuesError(
            f"index of {index} is greater than maximum supported index of {MAX_INDEX}"
        )
    if len(items) <= index:
        items = items + [None] * (index + 1 - len(items))
    items[index] = value
    return items


def _as_list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise _Panic(value, "[]interface {}")
    return value


def _as_map(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _Panic(value, "map[string]interface {}")
    return value


def _go_type(value: Any) -> str:
    """Go's dynamic type of a parsed value as a type-assertion panic names it."""
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "[]interface {}"
    if isinstance(value, dict):
        return "map[string]interface {}"
    return type(value).__name__


def _go_isspace(ch: str) -> bool:
    """Go's ``unicode.IsSpace`` (Python's ``isspace`` also accepts U+001C..U+001F)."""
    return ch.isspace() and not "\x1c" <= ch <= "\x1f"


def _fold_equal(text: str, word: str) -> bool:
    """Go's ``strings.EqualFold`` against an ASCII lower-case word (ſ folds to s)."""
    if len(text) != len(word):
        return False
    for ch, want in zip(text, word, strict=True):
        if ch.lower() != want and not (ch == "\u017f" and want == "s"):
            return False
    return True




def go_quote(text: str) -> str:
    """Go's ``%q`` of a string (``strconv.Quote``), as Helm's error texts print keys."""
    return gostrconv.quote(text)


def _go_quote_runes(text: str) -> str:
    """Go's ``%q`` of a ``[]rune``: ``['a' 'b']``."""
    return "[" + " ".join(gostrconv.quote_char(ord(ch), False) for ch in text) + "]"

