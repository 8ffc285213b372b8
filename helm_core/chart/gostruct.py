"""Chart.yaml read into Helm's Go structs the way ``sigs.k8s.io/yaml.Unmarshal`` does it.

Helm v3.22 loads Chart.yaml (and requirements.yaml) with ``yaml.Unmarshal(data, &Metadata)``:
yaml.v2 types every plain scalar (YAML 1.1: ``1.0`` is a float, ``yes`` a bool), then a
number or bool whose target field is a Go ``string`` is turned into text (ints in decimal,
floats as ``strconv.FormatFloat(f, 'g', -1, 32)``, so ``appVersion: 1.0`` reads ``"1"`` and
``1.10`` reads ``"1.1"``), and ``encoding/json`` decodes the result into the struct, matching
keys case-insensitively and refusing other type mismatches with its own message.

:func:`unmarshal` does the same for the structs described here and returns a dict keyed
by each field's JSON name (absent or null fields are left out).
"""
from __future__ import annotations

import math

from helm_core.golib import gojson, gostrconv
from helm_core.support.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeAlias, Union

STRING = "string"
BOOL = "bool"
STRINGS = "[]string"
STRING_MAP = "map[string]string"
ANY_LIST = "[]interface {}"


@record(frozen=True)
class GoStruct:
    """A Go struct type: its name (``chart.Metadata``) and its fields' types by JSON name."""

    type_name: str
    fields: dict[str, FieldType]

    @property
    def short_name(self) -> str:
        """The name encoding/json puts before the field path (``Metadata``; empty for an
        anonymous ``struct { ... }``)."""
        return "" if self.type_name.startswith("struct {") else self.type_name.rsplit(".", 1)[-1]


@record(frozen=True)
class PointerList:
    """``[]*T`` of a struct: a null item stays ``None`` (Helm's Validate refuses it)."""

    item: GoStruct


@record(frozen=True)
class StructList:
    """``[]T`` of a struct: a null item is T's zero value (an empty dict here)."""

    item: GoStruct


FieldType: TypeAlias = "Union[str, GoStruct, PointerList, StructList]"

MAINTAINER = GoStruct("chart.Maintainer", {"name": STRING, "email": STRING, "url": STRING})
DEPENDENCY = GoStruct("chart.Dependency", {
    "name": STRING, "version": STRING, "repository": STRING, "condition": STRING, "tags": STRINGS,
    "enabled": BOOL, "import-values": ANY_LIST, "alias": STRING,
})
METADATA = GoStruct("chart.Metadata", {
    "name": STRING, "home": STRING, "sources": STRINGS, "version": STRING, "description": STRING,
    "keywords": STRINGS, "maintainers": PointerList(MAINTAINER), "icon": STRING, "apiVersion": STRING,
    "condition": STRING, "tags": STRING, "appVersion": STRING, "deprecated": BOOL,
    "annotations": STRING_MAP, "kubeVersion": STRING, "dependencies": PointerList(DEPENDENCY),
    "type": STRING,
})
#: ``chart.Lock``; ``generated`` is a ``time.Time`` in Go, kept here as the text written.
LOCK = GoStruct("chart.Lock", {"generated": STRING, "digest": STRING, "dependencies": PointerList(DEPENDENCY)})


class MarshalError(ValueError):
    """encoding/json refused a value on the way to JSON (NaN or infinity left as a number)."""


class UnmarshalError(ValueError):
    """encoding/json's ``UnmarshalTypeError`` text (the first one, in the document's key order)."""


def unmarshal(doc: Any, target: GoStruct) -> dict[str, Any]:
    """``doc`` (as yaml.v2 decodes into ``interface{}``) decoded into ``target``.

    Raises :class:`MarshalError` (``json: unsupported value: NaN``) when a NaN or infinity
    is not bound for a string field, else :class:`UnmarshalError` with Go's ``json: cannot
    unmarshal ...`` message for the first mismatched field.
    """
    _check_marshalable(doc, target)
    if doc is None:
        return {}
    if not isinstance(doc, dict):
        raise UnmarshalError(f"json: cannot unmarshal {gojson.json_kind(doc)} into Go value of type {target.type_name}")
    return _struct(doc, target, [])


def error_text(exc: MarshalError | UnmarshalError) -> str:
    """sigs.k8s.io/yaml's text for a failed unmarshal: the step that failed, then Go's message."""
    if isinstance(exc, MarshalError):
        return f"error converting YAML to JSON: {exc}"
    return f"error unmarshaling JSON: while decoding JSON: {exc}"


def _check_marshalable(value: Any, kind: FieldType | None) -> None:
    """sigs.k8s.io/yaml turns only numbers bound for a string into text; json.Marshal then
    refuses any NaN or infinity left."""
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)) and kind != STRING:
        raise MarshalError(f"json: unsupported value: {gostrconv.format_float(value)}")
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(kind, GoStruct):
                name = _field_name(kind, key)
                _check_marshalable(item, kind.fields[name] if name else None)
            else:
                _check_marshalable(item, STRING if kind == STRING_MAP else None)
    elif isinstance(value, list):
        item_kind = STRING if kind == STRINGS else kind.item if isinstance(kind, (PointerList, StructList)) else None
        for item in value:
            _check_marshalable(item, item_kind)


def _struct(doc: dict[str, Any], target: GoStruct, path: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    # json.Marshal sorts map keys, and the decoder meets them in that order: the first error
    # reported, and which of two case-insensitively equal keys wins, follow it.
    for key in sorted(doc):
        name = _field_name(target, key)
        if name is None:
            continue
        kind = target.fields[name]
        value = _convert(doc[key], kind, target, path + [name])
        if value is not None:
            out[name] = value
        elif kind not in (STRING, BOOL):  # null leaves a string or bool as it was, empties the rest
            out.pop(name, None)
    return out


def _field_name(target: GoStruct, key: str) -> str | None:
    if key in target.fields:
        return key
    folded = key.casefold()
    return next((name for name in target.fields if name.casefold() == folded), None)


def _convert(value: Any, kind: FieldType, owner: GoStruct, path: list[str]) -> Any:
    if value is None:
        return None
    if kind == STRING:
        if isinstance(value, (dict, list)):
            raise _type_error(value, owner, path, STRING)
        return to_go_string(value)
    if kind == BOOL:
        if not isinstance(value, bool):
            raise _type_error(value, owner, path, BOOL)
        return value
    if kind == STRINGS:
        if not isinstance(value, list):
            raise _type_error(value, owner, path, STRINGS)
        return ["" if item is None else _convert(item, STRING, owner, path) for item in value]
    if kind == STRING_MAP:
        if not isinstance(value, dict):
            raise _type_error(value, owner, path, STRING_MAP)
        return {k: "" if v is None else _convert(v, STRING, owner, path) for k, v in sorted(value.items())}
    if kind == ANY_LIST:
        if not isinstance(value, list):
            raise _type_error(value, owner, path, ANY_LIST)
        return [_json_value(item) for item in value]
    if isinstance(kind, GoStruct):
        if not isinstance(value, dict):
            raise _type_error(value, owner, path, kind.type_name)
        return _struct(value, kind, path)
    if isinstance(kind, (PointerList, StructList)):
        pointers = isinstance(kind, PointerList)
        if not isinstance(value, list):
            raise _type_error(value, owner, path, ("[]*" if pointers else "[]") + kind.item.type_name)
        items: list[Any] = []
        for item in value:
            if item is not None and not isinstance(item, dict):
                raise _type_error(item, owner, path, kind.item.type_name)
            items.append(_struct(item, kind.item, path) if item is not None else None if pointers else {})
        return items
    raise AssertionError(f"unknown field type {kind!r}")  # pragma: no cover - schemas are ours


def to_go_string(value: Any) -> str:
    """sigs.k8s.io/yaml's text for a scalar decoded into a Go ``string`` field."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return gostrconv.format_float32(value)


def _type_error(value: Any, owner: GoStruct, path: list[str], go_type: str) -> UnmarshalError:
    return UnmarshalError(f"json: cannot unmarshal {gojson.json_kind(value)} into Go struct field "
                          f"{owner.short_name}.{'.'.join(path)} of type {go_type}")


def _json_value(value: Any) -> Any:
    """A value of an ``interface{}`` field after the JSON step: every number is a float64."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, dict):
        return {k: _json_value(v) for k, v in value.items()}
    return [_json_value(v) for v in value]
