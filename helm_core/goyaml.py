"""YAML read the way Helm reads it (``sigs.k8s.io/yaml`` on top of yaml.v2).

Helm never hands YAML straight to templates: ``sigs.k8s.io/yaml`` decodes with
yaml.v2's YAML 1.1 rules, converts the result to JSON and decodes that JSON into
``interface{}``. So, in what :func:`load` returns:

* every number is a ``float`` (Go float64), whatever its YAML spelling;
* ``y``/``n``/``yes``/``no``/``on``/``off`` (any of yaml.v2's spellings) are booleans;
* timestamps stay strings (yaml.v2 keeps them as strings when decoding to ``interface{}``);
* ``1e3`` is a number (yaml.v2's float pattern needs no dot), ``0x1F`` and ``0o17``/``017``
  are integers (Go's ``strconv.ParseInt`` with base 0);
* mapping keys become strings (``true``, ``1``, ``null``...), as the JSON step does;
* only the first document of a stream counts (``yaml.Unmarshal``).

Dumping (``toYaml``) lives beside loading in this module's sibling functions once
the template engine needs it.
"""
from __future__ import annotations

import math
import re
from typing import Any

import yaml

from helm_core.errors import ValuesError

try:  # libyaml's parser when present: same grammar, several times faster
    _BaseLoader = yaml.CSafeLoader  # type: ignore[attr-defined]
except AttributeError:  # pragma: no cover - depends on the PyYAML build
    _BaseLoader = yaml.SafeLoader  # type: ignore[misc]

_BOOL_TRUE = {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"}
_BOOL_FALSE = {"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"}
_NULLS = {"", "~", "null", "Null", "NULL"}
_FLOAT_RE = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_INT_RE = re.compile(r"^[-+]?(0[bB][01_]+|0[oO][0-7_]+|0[xX][0-9a-fA-F_]+|[0-9][0-9_]*)$")
_SPECIAL_FLOATS = {
    ".nan": math.nan, ".NaN": math.nan, ".NAN": math.nan,
    ".inf": math.inf, ".Inf": math.inf, ".INF": math.inf,
    "+.inf": math.inf, "+.Inf": math.inf, "+.INF": math.inf,
    "-.inf": -math.inf, "-.Inf": -math.inf, "-.INF": -math.inf,
}


def _parse_go_int(text: str) -> int | None:
    """``strconv.ParseInt(s, 0, 64)`` after yaml.v2 removed underscores (uint64 fallback)."""
    plain = text.replace("_", "")
    sign = 1
    if plain[:1] in "+-":
        sign = -1 if plain[0] == "-" else 1
        plain = plain[1:]
    if not plain:
        return None
    lower = plain.lower()
    try:
        if lower.startswith("0x"):
            value = int(lower[2:], 16)
        elif lower.startswith("0b"):
            value = int(lower[2:], 2)
        elif lower.startswith("0o"):
            value = int(lower[2:], 8)
        elif len(lower) > 1 and lower.startswith("0"):
            value = int(lower[1:], 8)
        else:
            value = int(lower, 10)
    except ValueError:
        return None
    value *= sign
    if -(2**63) <= value < 2**64:
        return value
    return None


def resolve_plain(text: str) -> Any:
    """What yaml.v2 makes of an untagged plain scalar (before the JSON step)."""
    if text in _NULLS:
        return None
    if text in _BOOL_TRUE:
        return True
    if text in _BOOL_FALSE:
        return False
    if text in _SPECIAL_FLOATS:
        return _SPECIAL_FLOATS[text]
    if _INT_RE.match(text):
        value = _parse_go_int(text)
        if value is not None:
            return value
    if _FLOAT_RE.match(text.replace("_", "")) and text[:1] not in "_":
        try:
            return float(text.replace("_", ""))
        except ValueError:
            pass
    return text


class _GoLoader(_BaseLoader):  # type: ignore[misc, valid-type]
    """A SafeLoader whose plain scalars resolve as yaml.v2 resolves them."""


# Drop PyYAML's YAML 1.1 implicit resolvers; every plain scalar goes to our resolver.
_GoLoader.yaml_implicit_resolvers = {}


def _construct_plain_or_str(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Any:
    if node.style is None or node.style == "":
        return resolve_plain(node.value)
    return node.value


_GoLoader.add_constructor("tag:yaml.org,2002:str", _construct_plain_or_str)
# Explicit tags keep their meaning, as in yaml.v2.
_GoLoader.add_constructor(
    "tag:yaml.org,2002:timestamp", lambda loader, node: loader.construct_scalar(node)
)
_GoLoader.add_constructor("tag:yaml.org,2002:binary", lambda loader, node: loader.construct_scalar(node))


def to_json_types(value: Any, path: str = "") -> Any:
    """The JSON round trip of ``sigs.k8s.io/yaml``: string keys, float64 numbers."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            skey = _key_string(key)
            out[skey] = to_json_types(item, f"{path}.{skey}" if path else skey)
        return out
    if isinstance(value, list):
        return [to_json_types(item, f"{path}[{i}]") for i, item in enumerate(value)]
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise ValueError(f"{path or 'value'}: {value} cannot be represented in JSON")
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def _key_string(key: Any) -> str:
    if isinstance(key, str):
        return key
    if key is None:
        return "null"
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, float):
        return repr(key) if not key.is_integer() else str(int(key))
    return str(key)


def load(data: bytes | str, *, source: str = "<input>") -> Any:
    """Decode the first YAML document of ``data`` with Helm's typing.

    Raises :class:`ValueError` with the source name and YAML position on bad input.
    """
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    loader = _GoLoader(text)
    try:
        node = _first_document(loader)
        return to_json_types(node)
    except yaml.YAMLError as exc:
        raise ValueError(f"{source}: {_describe_yaml_error(exc)}") from None
    finally:
        loader.dispose()


def _first_document(loader: Any) -> Any:
    if loader.check_node():
        node = loader.get_node()
        return loader.construct_document(node) if node is not None else None
    return None


def _describe_yaml_error(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    if mark is not None:
        return f"line {mark.line + 1}, column {mark.column + 1}: {problem}"
    return problem


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
