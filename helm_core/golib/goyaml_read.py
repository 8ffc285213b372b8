"""The YAML reader behind :mod:`helm_core.golib.goyaml`: libyaml composes, yaml.v2's rules type.

Kept apart from :mod:`helm_core.golib.goyaml` because importing PyYAML is costly (its modules
compile regular expressions at import; ``bench/deferred.py``): a run whose documents all come from the disk memo
never imports it. The rules are listed in :mod:`helm_core.golib.goyaml`.
"""
from __future__ import annotations

import base64
import binascii
import contextlib
import math
import re
from collections.abc import Iterator
from typing import Any, cast

import yaml

from helm_core.golib import gojson, gostrconv
from helm_core.golib.goyaml_rules import (
    ALIAS_RATIO_HIGH,
    ALIAS_RATIO_LOW,
    INT64_MAX,
    INT64_MIN,
    MAX_DEPTH,
    MIN_ALIASES_CHECKED,
    MIN_DECODES_CHECKED,
    TAG_BINARY,
    TAG_BOOL,
    TAG_FLOAT,
    TAG_INT,
    TAG_MERGE,
    TAG_NULL,
    TAG_PLAIN,
    TAG_TIMESTAMP,
    resolve,
)

#: libyaml's parser when present: the C code yaml.v2 was ported from, and faster.
_BaseLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _GoLoader(_BaseLoader):  # type: ignore[misc]
    """Composes nodes only; every untagged plain scalar gets :data:`TAG_PLAIN`."""


_GoLoader.yaml_implicit_resolvers = {}


def _allow_go_nesting() -> None:
    """libyaml refuses more than 1000 nested collections; yaml.v2 allows 10000 flow levels
    and 10000 block indents (counted apart), so libyaml may nest both: the builder then
    applies yaml.v2's two limits. The setter is exported by PyYAML's bundled libyaml."""
    try:
        import ctypes

        from yaml import _yaml

        ctypes.CDLL(_yaml.__file__).yaml_set_max_nest_level(2 * MAX_DEPTH + 1)
    except (ImportError, OSError, AttributeError):  # pure-Python PyYAML: it has no such limit
        pass


_allow_go_nesting()
_GoLoader.add_implicit_resolver(TAG_PLAIN, re.compile(r"(?s).*"), [None, ""])


def _float32_key(value: float) -> str:
    """``strconv.FormatFloat(f, 'g', -1, 32)`` as sigs.k8s.io/yaml names float keys."""
    text = gostrconv.format_float32(value)
    return {"NaN": ".nan", "+Inf": ".inf", "-Inf": "-.inf"}.get(text, text)


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
        self.flow_depth = 0
        self.block_depth = 0
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
        flow = bool(cast(yaml.CollectionNode, node).flow_style)  # not a scalar: a collection
        self.flow_depth += flow
        self.block_depth += not flow
        if self.flow_depth > MAX_DEPTH or self.block_depth > MAX_DEPTH:
            line = node.start_mark.line
            where = f"line {line + 1}: " if line else ""
            raise ValueError(f"yaml: {where}exceeded max depth of {MAX_DEPTH}")
        self.building.add(key)
        self.alias_depth += alias
        try:
            if isinstance(node, yaml.SequenceNode):
                return [self.value(child) for child in node.value]
            out: dict[str, Any] = {}
            self.mapping(node, out)
            return out
        finally:
            self.flow_depth -= flow
            self.block_depth -= not flow
            self.alias_depth -= alias
            self.building.discard(key)

    def scalar(self, node: yaml.ScalarNode) -> Any:
        tag = node.tag
        if tag == TAG_BINARY:
            try:
                return base64.b64decode(node.value.encode("ascii", "replace"), validate=False).decode(
                    "utf-8", "surrogateescape")
            except (ValueError, binascii.Error):
                raise ValueError("yaml: !!binary value contains invalid base64 data") from None
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


class _JSONTooDeep(Exception):
    """The JSON text of the document nests deeper than Go's decoder reads it back."""


def _json_types(value: Any, depth: int = 1) -> Any:
    """The JSON step: ints become float64; NaN/Inf cannot be marshalled; Go's decoder
    reads at most :data:`~helm_core.golib.gojson.MAX_JSON_DEPTH` nested arrays and objects."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise ValueError(f"json: unsupported value: {gojson.format_float(value)}")
        return value
    if depth > gojson.MAX_JSON_DEPTH:
        raise _JSONTooDeep("{" if isinstance(value, dict) else "[")
    if isinstance(value, dict):
        return {k: _json_types(v, depth + 1) for k, v in value.items()}
    return [_json_types(v, depth + 1) for v in value]


def _describe_yaml_error(exc: yaml.YAMLError) -> str:
    """yaml.v2's ``yaml: line N: problem`` text for a libyaml scanner or parser error."""
    problem = getattr(exc, "problem", None) or str(exc)
    if problem == "exceeded maximum nesting depth":  # libyaml's limit, met only past yaml.v2's
        problem = f"exceeded max depth of {MAX_DEPTH}"
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
    except _JSONTooDeep as exc:  # YAML allows 10000 levels of each kind; JSON 10000 in all
        raise ValueError(
            f"error unmarshaling JSON: while decoding JSON: invalid character '{exc}' exceeded max depth") from None
    except _SelfReference:
        name = _self_referencing_anchor(text)
        raise ValueError(f"error converting YAML to JSON: yaml: anchor '{name}' value contains itself") from None
    except ValueError as exc:
        raise ValueError(f"error converting YAML to JSON: {exc}") from None
    except RecursionError:  # a caller on a small stack (the CLI's is deep enough for 10000)
        raise ValueError("error converting YAML to JSON: yaml: nested deeper than this thread's stack allows") from None


def decode(text: str) -> Any:
    """The first document of ``text`` with Helm's typing (see :mod:`helm_core.golib.goyaml`)."""
    return _first_document(text, json_step=True)


def decode_unconverted(text: str) -> Any:
    """The first document as yaml.v2 types it (ints stay ints, NaN stays), before the JSON
    step: what sigs.k8s.io/yaml converts for a typed target such as Helm's ``chart.Metadata``."""
    return _first_document(text, json_step=False)


def _first_document(text: str, *, json_step: bool) -> Any:
    loader = _GoLoader(text)
    try:
        with _go_errors(text):
            node = _first_node(loader)
            decoded = _Builder().value(node) if node is not None else None
            return _json_types(decoded) if json_step else decoded
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
