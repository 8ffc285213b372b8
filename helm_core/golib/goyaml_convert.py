"""Composed YAML nodes to Helm's values: yaml.v2's typing, keys, merges and aliases, then
sigs.k8s.io/yaml's JSON step. The one converter behind both readers.

The readers compose (:mod:`helm_core.golib.goyaml_read` with PyYAML's libyaml composer, the
block fast path :mod:`helm_core.golib.goyaml_block` on its own); this module turns their nodes
into Go-typed values. It reads nodes by the attributes PyYAML's nodes have (:class:`Node`) and
imports nothing of PyYAML (importing any ``yaml.`` module imports all of it, ~50 ms).
"""
from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from itertools import chain

from helm_core.golib import gojson, gostrconv
from helm_core.golib.goyaml_rules import (
    ALIAS_RATIO_HIGH,
    ALIAS_RATIO_LOW,
    INT64_MAX,
    INT64_MIN,
    MAX_DEPTH,
    MIN_ALIASES_CHECKED,
    MIN_DECODES_CHECKED,
    RESOLVE_HINTS,
    TAG_BINARY,
    TAG_BOOL,
    TAG_FLOAT,
    TAG_INT,
    TAG_MERGE,
    TAG_NULL,
    TAG_PLAIN,
    resolve,
    resolve_plain,
)

#: Node kinds, as PyYAML's node classes name themselves (their ``id``).
SCALAR = "scalar"
SEQUENCE = "sequence"
MAPPING = "mapping"


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol

    class Node(Protocol):
        """What the converter reads of a composed node (PyYAML's nodes have these attributes).
        A ``str`` is a node too: an untagged plain scalar (the block reader's), never an alias.

        ``value`` is the text of a scalar, the child nodes of a sequence, the (key, value) node
        pairs of a mapping; ``flow_style`` and ``start_mark`` (with its 0-based ``line``) are read
        from collections only. A node met twice (the same object) is an alias.
        """

        @property
        def id(self) -> str: ...

        @property
        def tag(self) -> str: ...

        @property
        def value(self) -> Any: ...

        @property
        def flow_style(self) -> bool | None: ...

        @property
        def start_mark(self) -> Any: ...


class SelfReference(Exception):
    """An anchored node reached again while it is being built (yaml.v2's "contains itself");
    the reader that has anchors names it (:mod:`helm_core.golib.goyaml_read`)."""


class _JSONTooDeep(Exception):
    """The JSON text of the document nests deeper than Go's decoder reads it back."""


@contextlib.contextmanager
def go_errors() -> Iterator[None]:
    """Turn the converter's failures (and a reader's :class:`ValueError`) into Go's
    ``error converting YAML to JSON: ...`` texts."""
    try:
        yield
    except _JSONTooDeep as exc:  # YAML allows 10000 levels of each kind; JSON 10000 in all
        raise ValueError(
            f"error unmarshaling JSON: while decoding JSON: invalid character '{exc}' exceeded max depth") from None
    except ValueError as exc:
        raise ValueError(f"error converting YAML to JSON: {exc}") from None
    except RecursionError:  # a caller on a small stack (the CLI's is deep enough for 10000)
        raise ValueError("error converting YAML to JSON: yaml: nested deeper than this thread's stack allows") from None


def convert(node: Node | None, *, json_step: bool, anchors: bool = True) -> Any:
    """The Go value of a document's root node (None for a stream without documents).

    With ``json_step``, as Helm's ``interface{}`` holds it after sigs.k8s.io/yaml's JSON round
    trip (every number a float64); without, as yaml.v2 types it (ints stay ints, NaN stays),
    what sigs.k8s.io/yaml converts for a typed target such as Helm's ``chart.Metadata``.
    ``anchors=False`` says no node of the document is met twice (there are no aliases): the
    search for aliases and their accounting are skipped. Raises :class:`SelfReference` for an
    anchor inside itself; call it inside :func:`go_errors`.
    """
    if node is None:
        return None
    aliases = _alias_positions(node) if anchors else {}
    if json_step:
        builder = _Builder(aliases, json_step=True)
        try:
            decoded = builder.value(node)
        except (ValueError, SelfReference):
            pass  # worded by the general path below: yaml.v2's errors show values before the JSON step
        else:
            # The JSON step's refusals (a NaN or an infinity, nesting past Go's JSON decoder) come
            # after yaml.v2's, the first in the value's order (a later key may replace a NaN).
            return _json_types(decoded) if builder.json_refusal else decoded
    decoded = _Builder(aliases, json_step=False).value(node)
    return _json_types(decoded) if json_step else decoded


def _kind(node: Node | str) -> str:
    """The node's kind (:data:`SCALAR` for a ``str``, a plain scalar)."""
    return SCALAR if isinstance(node, str) else node.id


def _children(node: Node) -> Iterator[tuple[int, Any]]:
    """A collection's child nodes in the text's order, numbered (a mapping's key ``2i``, its
    value ``2i+1``)."""
    return enumerate(node.value if node.id == SEQUENCE else chain.from_iterable(node.value))


def _alias_positions(root: Node) -> dict[int, set[int]]:
    """Where the document's aliases are: for each collection (by ``id``) that has some, the
    positions of its children (:func:`_children`) that are aliases. The composers give an alias
    as the anchored node itself, which they composed before: walking the nodes in the text's
    order, without entering a node met before, a node met again is an alias."""
    positions: dict[int, set[int]] = {}
    seen = {id(root)}
    stack = [(id(root), _children(root))] if _kind(root) != SCALAR else []
    while stack:
        parent, children = stack[-1]
        for index, child in children:
            if isinstance(child, str):  # a plain text is never an alias (equal texts may be one object)
                continue
            if id(child) in seen:
                positions.setdefault(parent, set()).add(index)
            else:
                seen.add(id(child))
                if child.id != SCALAR:
                    stack.append((id(child), _children(child)))
                    break
        else:
            stack.pop()
    return positions


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


class _Builder:
    """Turns composed nodes into Go-typed values, with yaml.v2's merge, key and alias rules.

    An alias is expanded afresh (Go values are copies); expansion is bounded as yaml.v2 bounds
    it ("document contains excessive aliasing"), counting the nodes yaml.v2 decodes: the
    document, each node, each alias node apart from its target, a merged map.

    With ``json_step``, numbers are built as sigs.k8s.io/yaml's JSON round trip leaves them
    (float64) on the way, rather than by a second walk over the value (:func:`_json_types`, the
    general path); what that step refuses is only noted (``json_refusal``), for the general path
    to word in its order.
    """

    def __init__(self, aliases: dict[int, set[int]], json_step: bool) -> None:
        #: The alias positions (:func:`_alias_positions`); none: nothing is counted.
        self.aliases = aliases
        self.counting = bool(aliases)
        self.json_step = json_step
        #: A NaN or an infinity was built, or collections nested past Go's JSON decoder.
        self.json_refusal = False
        self.flow_depth = 0
        self.block_depth = 0
        self.building: set[int] = set()
        self.alias_depth = 0
        self.decode_count = 1  # yaml.v2 decodes the document node first
        self.alias_count = 0

    def value(self, node: Node | str) -> Any:
        counting = self.counting
        if counting:
            self.count()
        if isinstance(node, str):
            scalar = resolve_plain(node)
        elif node.id == SCALAR:
            scalar = self.scalar(node)
        else:  # a collection, in this frame: one frame per level on a caller's small stack
            kind = node.id
            if counting and id(node) in self.building:
                raise SelfReference()
            flow = bool(node.flow_style)
            self.flow_depth += flow
            self.block_depth += not flow
            if self.flow_depth > MAX_DEPTH or self.block_depth > MAX_DEPTH:
                line = node.start_mark.line
                where = f"line {line + 1}: " if line else ""
                raise ValueError(f"yaml: {where}exceeded max depth of {MAX_DEPTH}")
            if self.flow_depth + self.block_depth > gojson.MAX_JSON_DEPTH:
                self.json_refusal = True
            if counting:
                self.building.add(id(node))
            try:
                if kind == SEQUENCE:
                    if counting and id(node) in self.aliases:
                        aliased = self.aliases[id(node)]
                        return [self.aliased_value(child) if index in aliased else self.value(child)
                                for index, child in enumerate(node.value)]
                    return [self.value(child) for child in node.value]
                out: dict[str, Any] = {}
                self.mapping(node, out)
                return out
            finally:
                self.flow_depth -= flow
                self.block_depth -= not flow
                if counting:
                    self.building.discard(id(node))
        if self.json_step and (type(scalar) is int or type(scalar) is float):  # not bool
            return self.json_number(scalar)
        return scalar

    def json_number(self, number: float) -> float:
        """A number after the JSON step: a float64 (JSON has no NaN or infinity: noted)."""
        if not math.isfinite(number):
            self.json_refusal = True
        return float(number)

    def aliased_value(self, node: Node) -> Any:
        """:meth:`value` of a node reached by an alias: yaml.v2 decodes the alias node, then its
        target and what it holds as an alias expansion."""
        self.count()
        self.alias_depth += 1
        try:
            return self.value(node)
        finally:
            self.alias_depth -= 1

    def count(self) -> None:
        """yaml.v2's count of one node's decode (an alias expansion's when inside one), and its
        bound on how much of the document comes from alias expansion."""
        self.decode_count += 1
        if self.alias_depth:
            self.alias_count += 1
        if (self.alias_count > MIN_ALIASES_CHECKED and self.decode_count > MIN_DECODES_CHECKED
                and self.alias_count / self.decode_count > _allowed_alias_ratio(self.decode_count)):
            raise ValueError("yaml: document contains excessive aliasing")

    def scalar(self, node: Node) -> Any:
        tag = node.tag
        text: str = node.value
        if tag == TAG_PLAIN:
            return resolve_plain(text)
        if tag == TAG_BINARY:
            import binascii  # here: !!binary is rare, and binascii an extension module to load

            try:
                return binascii.a2b_base64(text.encode("ascii", "replace")).decode("utf-8", "surrogateescape")
            except (ValueError, binascii.Error):
                raise ValueError("yaml: !!binary value contains invalid base64 data") from None
        if tag in (TAG_INT, TAG_FLOAT, TAG_BOOL, TAG_NULL):
            rtag, value = resolve(text)
            if rtag == TAG_INT and tag == TAG_FLOAT:
                return float(value)
            if rtag != tag:
                raise ValueError(f"yaml: cannot decode {_short(rtag)} `{text}` as a {_short(tag)}")
            return value
        return text

    def mapping(self, node: Node, out: dict[str, Any]) -> None:
        if self.counting:
            aliased = self.aliases.get(id(node))
            if aliased is not None:
                self.mapping_with_aliases(node, out, aliased)
                return
        plain_keys = not self.counting  # a plain key that resolves to itself is its own text
        for key_node, value_node in node.value:  # no alias among the pairs: the usual loop, kept lean
            if (key_node == "<<" if isinstance(key_node, str) else key_node.value == "<<") and _is_merge(key_node):
                self.merge(value_node, out, False)
                continue
            if plain_keys and isinstance(key_node, str) and key_node[:1] not in RESOLVE_HINTS:
                out[key_node] = self.value(value_node)
                continue
            key = self.value(key_node)
            if isinstance(key, (list, dict)):
                raise ValueError(f"yaml: invalid map key: {_go_sharp_v(key)}")
            value = self.value(value_node)
            out[_key_string(key, value)] = value

    def mapping_with_aliases(self, node: Node, out: dict[str, Any], aliased: set[int]) -> None:
        """:meth:`mapping` for a mapping with aliases at the positions ``aliased`` (an alias is no
        merge key)."""
        for index, (key_node, value_node) in enumerate(node.value):
            key_alias = 2 * index in aliased
            if not key_alias and _is_merge(key_node):
                self.merge(value_node, out, 2 * index + 1 in aliased)
                continue
            key = self.aliased_value(key_node) if key_alias else self.value(key_node)
            if isinstance(key, (list, dict)):
                raise ValueError(f"yaml: invalid map key: {_go_sharp_v(key)}")
            value = self.aliased_value(value_node) if 2 * index + 1 in aliased else self.value(value_node)
            out[_key_string(key, value)] = value

    def merge(self, node: Node, out: dict[str, Any], via_alias: bool) -> None:
        """A merge key's value into ``out``: a map, an alias to a map, or a sequence (not an
        alias to one) of those, the last first (earlier maps win)."""
        kind = _kind(node)
        if kind == MAPPING:
            self.merged(node, out, via_alias)
            return
        if kind == SEQUENCE and not via_alias:
            aliased = self.aliases.get(id(node), ()) if self.counting else ()
            for index in range(len(node.value) - 1, -1, -1):
                child = node.value[index]
                if _kind(child) != MAPPING:
                    raise ValueError("yaml: map merge requires map or sequence of maps as the value")
                self.merged(child, out, index in aliased)
            return
        raise ValueError("yaml: map merge requires map or sequence of maps as the value")

    def merged(self, node: Node, out: dict[str, Any], via_alias: bool) -> None:
        """The pairs of a merged mapping into ``out`` (yaml.v2 decodes it into the map); a
        mapping merged into itself (``<<: *x`` inside ``x``) is yaml.v2's "contains itself",
        not an endless merge."""
        if via_alias:
            self.count()  # the alias node
        self.alias_depth += via_alias
        try:
            if self.counting:
                self.count()
                if id(node) in self.building:
                    raise SelfReference()
            self.mapping(node, out)
        finally:
            self.alias_depth -= via_alias


def _is_merge(node: Node | str) -> bool:
    if isinstance(node, str):
        return node == "<<"
    return node.id == SCALAR and node.value == "<<" and node.tag in (TAG_PLAIN, TAG_MERGE)


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
