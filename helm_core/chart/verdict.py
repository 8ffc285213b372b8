"""JSON Schema "valid or not" answers, compiled to closures, without importing jsonschema.

Where helm's validator (santhosh-tekuri/jsonschema v6) and jsonschema differ, the answer is
v6's and jsonschema is made to agree (:mod:`helm_core.chart.jsonschema_go`): ``multipleOf`` on
the numbers' decimal text, ``format`` asserted in drafts before 2019-09 when a ``formats`` hook
is given (:mod:`helm_core.chart.schema_formats`).

Importing jsonschema is costly and walking a schema with it is slow (``bench/schema.py``; a validator object
per visited subschema, every reference resolved again). Most first runs only need to learn
that the chart's values pass; the error messages matter only when they do not. So a schema
is compiled here into plain closures that answer exactly what jsonschema 4.x would answer
— same keyword semantics, same type rules (``1.0`` is an integer, ``True`` is not a
number), same equality (``1 == 1.0``, ``True != 1``) — and anything whose answer could
differ is not guessed: it raises :class:`Undecided` (when the check reaches a keyword or
reference this module does not model, or a rare instance such as a NaN), and the caller asks
jsonschema. ``uniqueItems`` over maps and lists is v6's answer (jsonschema compares them pair by
pair; both use the same equality but where jsonschema's sorting skips a pair).

A first run checks one instance once, so compiling is part of its cost: a subschema is
compiled at its first call (only what the instance reaches), and a node's ``allOf`` members
and reference targets are inlined into it (the 2020-12 metaschema's seven vocabularies become
one ``properties`` lookup per node of the schema it checks).

Drafts: 2020-12 (Helm's default) and 7, the two that chart schemas use; others are Undecided.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping

from helm_core.support import jsonpointers

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeAlias

    from helm_core.golib.goregexp import Regexp

Check: TypeAlias = "Callable[[Any], bool]"
#: A keyword as the compiler found it: (keyword, value, its node, base URI, dynamic scope).
_Part: TypeAlias = "tuple[str, Any, dict[str, Any], str, tuple[str, ...]]"
#: A format assertion: (format name) -> check of a string instance, or None when unknown.
FormatChecks = Callable[[str], Callable[[str], bool] | None]

DRAFT_2020_12 = "2020-12"
DRAFT_7 = "7"
#: The keywords jsonschema applies in each draft (its validators' VALIDATORS): every other
#: key of a schema is an annotation and ignored, as jsonschema ignores it.
KEYWORDS = {
    DRAFT_2020_12: frozenset({
        "$dynamicRef", "$ref", "additionalProperties", "allOf", "anyOf", "const", "contains",
        "dependentRequired", "dependentSchemas", "enum", "exclusiveMaximum", "exclusiveMinimum",
        "format", "if", "items", "maxItems", "maxLength", "maxProperties", "maximum", "minItems",
        "minLength", "minProperties", "minimum", "multipleOf", "not", "oneOf", "pattern",
        "patternProperties", "prefixItems", "properties", "propertyNames", "required", "type",
        "unevaluatedItems", "unevaluatedProperties", "uniqueItems"}),
    DRAFT_7: frozenset({
        "$ref", "additionalItems", "additionalProperties", "allOf", "anyOf", "const", "contains",
        "dependencies", "enum", "exclusiveMaximum", "exclusiveMinimum", "format", "if", "items",
        "maxItems", "maxLength", "maxProperties", "maximum", "minItems", "minLength",
        "minProperties", "minimum", "multipleOf", "not", "oneOf", "pattern", "patternProperties",
        "properties", "propertyNames", "required", "type", "uniqueItems"}),
}


def _resource(node: Any) -> bool:
    """Whether a key makes ``node`` its own resource or an anchor (a string ``$id``, ``$anchor``
    or ``$dynamicAnchor``): references around it resolve against another base, not modelled here."""
    # Spelled out: called for every subschema, where a generator over the keys costs more.
    return type(node) is dict and (type(node.get("$id")) is str or type(node.get("$anchor")) is str
                                   or type(node.get("$dynamicAnchor")) is str)


_SCHEME_START = frozenset("abcdefghijklmnopqrstuvwxyz")
_SCHEME = _SCHEME_START | frozenset("0123456789+.-")
_HOST = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-")
_SEGMENT = _HOST | frozenset("_~")


def _plain_segments(path: str) -> bool:
    """Whether ``path`` is ``/``-separated non-empty segments of ``[A-Za-z0-9._~-]``, none ``.`` or ``..``."""
    return all(seg and seg != "." and seg != ".." and _SEGMENT.issuperset(seg) for seg in path.split("/"))


def plain_absolute(uri: str) -> bool:
    """Whether ``uri`` is an absolute URI of the plain form :func:`resolve` merges into (its join
    with a plain relative path is a plain merge): a lower-case scheme, an authority, a path
    without empty or dot segments (a final ``/`` allowed) and nothing after it (urllib would
    change nothing in it). String methods, not a pattern: every schema check asks, and a
    pattern is compiled again by every process."""
    scheme, sep, rest = uri.partition("://")
    if not sep or not scheme or scheme[0] not in _SCHEME_START or not _SCHEME.issuperset(scheme):
        return False
    host, slash, path = rest.partition("/")
    if not host or not _HOST.issuperset(host):
        return False
    return not slash or not path or _plain_segments(path.removesuffix("/"))


def _plain_relative(ref: str) -> bool:
    """Whether ``ref`` is a relative reference that is a path of plain segments (neither ``.``
    nor ``..``, the first not starting with a dot), with any fragment."""
    path = ref.partition("#")[0]
    return not path.startswith(".") and _plain_segments(path)


def resolve(base: str, ref: str) -> tuple[str, str]:
    """(URI, fragment) of ``ref`` against ``base``: ``urldefrag(urljoin(base, ref))``. The
    metaschemas' references (``meta/core``) are merged here: importing urllib costs a first run ms."""
    if plain_absolute(base) and _plain_relative(ref):
        path, _, fragment = ref.partition("#")
        if base.count("/") > 2:  # a path to merge into; else the path is "/" + ref
            return base[:base.rindex("/") + 1] + path, fragment
        return f"{base}/{path}", fragment
    from urllib.parse import urldefrag, urljoin

    uri, fragment = urldefrag(urljoin(base, ref))
    return uri, fragment


def defragment(uri: str) -> tuple[str, str]:
    """``urldefrag(uri)`` (URI, fragment), without importing urllib for a plain URI."""
    head, _, fragment = uri.partition("#")
    if plain_absolute(head):
        return head, fragment
    from urllib.parse import urldefrag

    head, fragment = urldefrag(uri)
    return head, fragment


#: In a node's parts, a subschema that is called rather than inlined (value: (node, is a root)).
_SUBSCHEMA = "$subschema"


class Undecided(Exception):
    """This module cannot answer exactly as jsonschema would: ask jsonschema."""


# -- instances --------------------------------------------------------------------------------

def plain(instance: Any) -> None:
    """Raise Undecided unless ``instance`` is made only of what JSON and YAML values hold.

    The closures below rely on it: dicts with string keys, lists, strings, ints, finite
    floats, booleans and None (strings and numbers may be subclasses, such as ``--set``'s
    Int64: jsonschema's type checks are isinstance checks too).
    """
    stack = [instance]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict:
            for key in item:
                if type(key) is not str:
                    raise Undecided(f"a key of type {type(key).__name__}")
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
        elif isinstance(item, float):
            if item != item or item in (float("inf"), float("-inf")):
                raise Undecided("a NaN or infinite number")
        elif not isinstance(item, (str, int)) and item is not None:
            raise Undecided(f"a value of type {kind.__name__}")


def _is_number(instance: Any) -> bool:
    return isinstance(instance, (int, float)) and type(instance) is not bool


def _is_string(instance: Any) -> bool:
    return isinstance(instance, str)


#: jsonschema's draft 6+ type checker, for plain instances.
TYPE_CHECKS: dict[str, Check] = {
    "array": lambda i: type(i) is list,
    "boolean": lambda i: type(i) is bool,
    "integer": lambda i: (isinstance(i, int) and type(i) is not bool) or (isinstance(i, float) and i.is_integer()),
    "null": lambda i: i is None,
    "number": _is_number,
    "object": lambda i: type(i) is dict,
    "string": _is_string,
}


#: The types whose check is "exactly this Python type" (no subclass passes TYPE_CHECKS).
EXACT_TYPES: dict[str, type] = {"array": list, "boolean": bool, "null": type(None), "object": dict}


def same(one: Any, two: Any) -> bool:
    """jsonschema's equality of plain values: booleans equal only themselves, 1 equals 1.0."""
    if type(one) is bool or type(two) is bool:
        return one is two
    if type(one) is list and type(two) is list:
        return len(one) == len(two) and all(same(a, b) for a, b in zip(one, two, strict=True))
    if type(one) is dict and type(two) is dict:
        return len(one) == len(two) and all(k in two and same(v, two[k]) for k, v in one.items())
    return bool(one == two)


def _unique(items: list[Any]) -> bool:
    # jsonschema sorts and compares neighbours, falling back to pairs: for strings only, or
    # numbers only, that is plain set semantics. Other mixes (maps, lists) are v6's answer, as
    # its error tree words it: jsonschema compares them pair by pair (30000 maps: minutes).
    if all(_is_string(i) for i in items) or all(_is_number(i) for i in items):
        return len(set(items)) == len(items)
    from helm_core.chart import schema_errors

    return schema_errors.first_equal_pair(items) is None


# -- compiling --------------------------------------------------------------------------------

def _true(instance: Any) -> bool:
    return True


def _false(instance: Any) -> bool:
    return False


def _all(checks: list[Check]) -> Check:
    checks = [c for c in checks if c is not _true]
    if not checks:
        return _true
    if len(checks) == 1:
        return checks[0]
    if _false in checks:
        return _false
    frozen = tuple(checks)

    def every(instance: Any) -> bool:
        for check in frozen:
            if not check(instance):
                return False
        return True
    return every


@functools.lru_cache(maxsize=256)  # a schema says "object" or ["string", "null"] again and again
def _type_check(names: tuple[Any, ...] | None) -> Check:
    """``type`` with these names (from a string or a list), each known."""
    if names is None or any(type(n) is not str or n not in TYPE_CHECKS for n in names):
        raise Undecided("an unknown type name")
    checks = tuple(TYPE_CHECKS[n] for n in names)
    if len(checks) == 1:
        return checks[0]
    if set(names) <= EXACT_TYPES.keys():  # the metaschemas' ["object", "boolean"]
        exact = frozenset(EXACT_TYPES[n] for n in names)
        return lambda instance: type(instance) in exact
    return lambda instance: any(check(instance) for check in checks)


def _properties_check(by_name: dict[str, Check]) -> Check:
    """``properties``: each of the instance's keys that has a check passes it."""
    if not by_name:
        return _true
    pairs = tuple(by_name.items())
    size = len(pairs)

    def properties(instance: Any) -> bool:
        # Walks the smaller side: a metaschema's dozens of keywords against a schema
        # node's few keys, or a values schema's few properties against a large map.
        if type(instance) is dict:
            if len(instance) < size:
                for name, item in instance.items():
                    sub = by_name.get(name)
                    if sub is not None and not sub(item):
                        return False
            else:
                for name, sub in pairs:
                    if name in instance and not sub(instance[name]):
                        return False
        return True
    return properties


def _needs_names(name: str, needed: tuple[str, ...]) -> Check:
    """``dependencies`` with a list: when ``name`` is there, so are all of ``needed``."""
    return lambda instance: name not in instance or all(n in instance for n in needed)


def _needs_schema(name: str, sub: Check) -> Check:
    """``dependencies`` with a schema: when ``name`` is there, the object passes ``sub``."""
    return lambda instance: name not in instance or sub(instance)


class Compiler:
    """Compiles the schemas of ``documents`` (base URI -> document) for one draft.

    A node is compiled under the state jsonschema's ``referencing`` resolver would be in
    when it validates that node: its base URI and the URIs of its dynamic scope (by first
    entry; ``$dynamicRef`` lands in the outermost one with the anchor). Nodes are shared by
    (node, state), so recursive references (``"$ref": "#"``) close into cycles.
    """

    def __init__(self, draft: str, documents: Mapping[str, Any], *, formats: FormatChecks | None = None,
                 relative_refs: bool = False) -> None:
        if draft not in KEYWORDS:
            raise Undecided(f"draft {draft}")
        self.draft = draft
        self.keywords = KEYWORDS[draft]
        self.documents = documents
        self.formats = formats  # None: "format" is an annotation, as for values
        self.relative_refs = relative_refs
        self._nested_anchors: set[str] | None = None  # found when a named reference needs them
        self._done: dict[tuple[Any, ...], Check] = {}

    def compile(self, base: str) -> Check:
        """The check of the document at ``base``, as a validator rooted there runs it."""
        return self._subschema(self.documents[base], base, (), root=True)

    # -- subschemas and references ----------------------------------------------------------

    def _subschema(self, node: Any, base: str, scope: tuple[str, ...], *, root: bool = False) -> Check:
        """The check of ``node``, compiled at its first call: a first run compiles only the
        subschemas its instance reaches. What cannot be compiled raises Undecided then, and
        jsonschema decides (it too visits only what the instance reaches)."""
        if node is True:
            return _true
        if node is False:
            return _false
        if type(node) is not dict:
            raise Undecided(f"a subschema of type {type(node).__name__}")
        if not root and _resource(node):
            raise Undecided("a subschema with its own id or anchor")
        if self.keywords.isdisjoint(node) and (root or "$schema" not in node):
            return _true  # annotations only: checks nothing (and parents leave it out)
        key = (id(node), base, scope)
        known = self._done.get(key)
        if known is not None:  # the same node in the same state: shared, which closes cycles
            return known
        compiled: list[Check] = []

        def lazy(instance: Any) -> bool:
            if not compiled:
                compiled.append(self._compile_node(node, base, scope, root=root))
            return compiled[0](instance)
        self._done[key] = lazy
        return lazy

    def _compile_node(self, node: dict[str, Any], base: str, scope: tuple[str, ...], *, root: bool) -> Check:
        """``node``'s keywords and, inlined, those of the subschemas its ``allOf`` and references
        lead to (a conjunction of conjunctions): the 2020-12 metaschema is seven vocabularies
        joined by ``allOf``, so each node of a schema is checked once against the union of their
        ``properties`` instead of seven times. Each keyword is still compiled in its own node
        and state (base URI, dynamic scope), where jsonschema applies it."""
        items = self._applied(node, root)
        if "allOf" not in node and "$ref" not in node and "$dynamicRef" not in node:  # most nodes: nothing to inline
            return _all([self._keyword(k, v, node, base, scope) for k, v in items])
        if len(items) == 1 and items[0][0] != "allOf":
            # A reference alone: its target's check, shared by every reference to it (the
            # metaschemas' {"$dynamicRef": "#meta"}, a values schema's "#/$defs/x").
            return self._reference(items[0][1], base, scope)
        parts: list[_Part] = []
        self._inline(node, base, scope, root, parts, set())
        types: list[Check] = []
        seen_types: list[Any] = []
        named: dict[str, list[Check]] = {}  # the properties of every part, by name
        checks: list[Check] = []
        for keyword, value, where, at, within in parts:
            if keyword == "properties":
                for name, check in self._properties(value, at, within):
                    named.setdefault(name, []).append(check)
            elif keyword == _SUBSCHEMA:
                target, is_root = value
                checks.append(self._subschema(target, at, within, root=is_root))
            elif keyword == "type":
                if value not in seen_types:  # the vocabularies all say ["object", "boolean"]
                    seen_types.append(value)
                    types.append(self._keyword(keyword, value, where, at, within))
            else:
                checks.append(self._keyword(keyword, value, where, at, within))
        if named:
            checks.insert(0, _properties_check({name: _all(subs) for name, subs in named.items()}))
        return _all(types + checks)

    def _inline(self, node: dict[str, Any], base: str, scope: tuple[str, ...], root: bool,
                parts: list[_Part], seen: set[tuple[int, str, tuple[str, ...]]]) -> None:
        """Add ``node``'s keywords to ``parts``, with its ``allOf`` members' and its references'
        targets' keywords in their place: each node in each state once (a second visit, or a
        cycle, calls the node's check instead: a cycle recurses, as it does in jsonschema)."""
        seen.add((id(node), base, scope))
        for keyword, value in self._applied(node, root):
            if keyword == "allOf" and type(value) is list:
                targets = [(member, base, scope, False) for member in value]
            elif keyword in ("$ref", "$dynamicRef"):
                targets = [self._target(value, base, scope)]
            else:
                parts.append((keyword, value, node, base, scope))
                continue
            for target, at, within, is_root in targets:
                if type(target) is dict and (id(target), at, within) not in seen and (is_root or not _resource(target)):
                    self._inline(target, at, within, is_root, parts, seen)
                else:  # what _subschema raises, or the target's check
                    parts.append((_SUBSCHEMA, (target, is_root), node, at, within))

    def _applied(self, node: dict[str, Any], root: bool) -> list[tuple[str, Any]]:
        """The keywords jsonschema applies in ``node``, with their values."""
        if "$schema" in node and not root:
            raise Undecided("a subschema with its own $schema")
        if self.draft == DRAFT_7 and "$ref" in node:
            return [("$ref", node["$ref"])]  # draft 7: $ref's siblings are ignored
        return [(k, v) for k, v in node.items() if k in self.keywords]

    def _reference(self, ref: Any, base: str, scope: tuple[str, ...]) -> Check:
        """Resolved now, as ``referencing``'s ``Resolver.lookup`` would resolve it then."""
        node, uri, scope, root = self._target(ref, base, scope)
        return self._subschema(node, uri, scope, root=root)

    def _target(self, ref: Any, base: str, scope: tuple[str, ...]) -> tuple[Any, str, tuple[str, ...], bool]:
        """(node, base URI, dynamic scope, whether it is a document's root) ``ref`` leads to."""
        if type(ref) is not str:
            raise Undecided("a non-string reference")
        if ref.startswith("#"):
            uri, fragment = base, ref[1:]
        elif self.relative_refs:
            uri, fragment = resolve(base, ref)
        else:
            raise Undecided(f"reference {ref!r} outside the schema")
        document = self.documents.get(uri)
        if document is None:
            raise Undecided(f"reference {ref!r} to an unknown document")
        if base and (not scope or uri != base) and base not in scope:
            scope = (*scope, base)  # the lookup enters the base into the dynamic scope
        if fragment.startswith("/"):
            return self._pointer(document, fragment), uri, scope, False
        if fragment:
            if self._nested_anchors is None:
                # Documents with anchors below their top: a named reference could land there.
                self._nested_anchors = {u for u, doc in self.documents.items() if _nested_anchor(doc, top=True)}
            if self._nested_anchors.intersection((uri, *scope)):
                raise Undecided(f"anchor {ref!r} among nested anchors")
            if document.get("$dynamicAnchor") == fragment:
                # The outermost resource of the dynamic scope with the same dynamic anchor.
                uri = next((u for u in scope if self.documents.get(u, {}).get("$dynamicAnchor") == fragment), uri)
                return self.documents[uri], uri, scope, True
            raise Undecided(f"anchor {ref!r}")
        return document, uri, scope, True

    @staticmethod
    def _pointer(document: Any, pointer: str) -> Any:
        node = document
        if "%" in pointer:
            from urllib.parse import unquote  # imported when needed: its import costs ms of a first run

            pointer = unquote(pointer)
        for segment in pointer.split("/")[1:]:
            segment = jsonpointers.unescape(segment)
            try:
                node = node[int(segment)] if type(node) is list else node[segment]
            except (KeyError, IndexError, ValueError, TypeError):
                raise Undecided(f"pointer {pointer!r} leads nowhere") from None
            if _resource(node):
                raise Undecided(f"pointer {pointer!r} crosses an id or anchor")
        return node

    # -- keywords ---------------------------------------------------------------------------

    def _keyword(self, keyword: str, value: Any, node: dict[str, Any], base: str, scope: tuple[str, ...]) -> Check:
        name = _METHODS.get(keyword)
        if name is None:
            raise Undecided(f"keyword {keyword!r}")
        check: Check = getattr(self, name)(value, node, base, scope)
        return check

    def _subschemas(self, value: Any, base: str, scope: tuple[str, ...]) -> list[Check]:
        if type(value) is not list:
            raise Undecided("a list of subschemas that is not a list")
        return [self._subschema(v, base, scope) for v in value]

    def _k_ref(self, value: Any, node: Any, base: str, scope: tuple[str, ...]) -> Check:
        return self._reference(value, base, scope)

    def _k_dynamicRef(self, value: Any, node: Any, base: str, scope: tuple[str, ...]) -> Check:
        return self._reference(value, base, scope)  # referencing resolves both alike

    def _k_allOf(self, value: Any, node: Any, base: str, scope: tuple[str, ...]) -> Check:
        return _all(self._subschemas(value, base, scope))

    def _k_anyOf(self, value: Any, node: Any, base: str, scope: tuple[str, ...]) -> Check:
        subs = tuple(self._subschemas(value, base, scope))

        def any_of(instance: Any) -> bool:
            for sub in subs:  # a loop, not any(): the metaschemas' "type" takes this at every node
                if sub(instance):
                    return True
            return False
        return any_of

    def _k_oneOf(self, value: Any, node: Any, base: str, scope: tuple[str, ...]) -> Check:
        subs = tuple(self._subschemas(value, base, scope))
        return lambda instance: sum(1 for sub in subs if sub(instance)) == 1

    def _k_not(self, value: Any, node: Any, base: str, scope: tuple[str, ...]) -> Check:
        sub = self._subschema(value, base, scope)
        return lambda instance: not sub(instance)

    def _k_if(self, value: Any, node: Any, base: str, scope: tuple[str, ...]) -> Check:
        condition = self._subschema(value, base, scope)
        then = self._subschema(node["then"], base, scope) if "then" in node else _true
        otherwise = self._subschema(node["else"], base, scope) if "else" in node else _true
        return lambda instance: then(instance) if condition(instance) else otherwise(instance)

    def _k_properties(self, value: Any, node: Any, base: str, scope: tuple[str, ...]) -> Check:
        return _properties_check(dict(self._properties(value, base, scope)))

    def _properties(self, value: Any, base: str, scope: tuple[str, ...]) -> list[tuple[str, Check]]:
        """(name, check) of each property whose subschema checks something."""
        if type(value) is not dict:
            raise Undecided("properties that are not an object")
        return [(name, check) for name, s in value.items() if (check := self._subschema(s, base, scope)) is not _true]

    def _k_patternProperties(self, value: Any, node: Any, base: str, scope: tuple[str, ...]) -> Check:
        if type(value) is not dict:
            raise Undecided("patternProperties that are not an object")
        subs = tuple((_regex(p), self._subschema(s, base, scope)) for p, s in value.items())

        def pattern_properties(instance: Any) -> bool:
            if type(instance) is not dict:
                return True
            return all(sub(v) for search, sub in subs for k, v in instance.items() if search(k))
        return pattern_properties

    def _k_additionalProperties(self, value: Any, node: Any, base: str, scope: tuple[str, ...]) -> Check:
        # "Additional" as jsonschema's find_additional_properties decides: not a key of
        # properties, and not matched by the patternProperties patterns joined with "|".
        known = node.get("properties", {})
        patterns = "|".join(node.get("patternProperties", {}))
        search = _regex(patterns) if patterns else None
        if value is True:
            return _true
        sub = _false if value is False else self._subschema(value, base, scope)

        def additional_properties(instance: Any) -> bool:
            if type(instance) is not dict:
                return True
            for name, item in instance.items():
                if name in known or (search is not None and search(name)):
                    continue
                if not sub(item):
                    return False
            return True
        return additional_properties

    def _k_propertyNames(self, value: Any, node: Any, base: str, scope: tuple[str, ...]) -> Check:
        sub = self._subschema(value, base, scope)
        return lambda instance: type(instance) is not dict or all(sub(name) for name in instance)

    def _k_prefixItems(self, value: Any, node: Any, base: str, scope: tuple[str, ...]) -> Check:
        subs = tuple(self._subschemas(value, base, scope))
        return lambda instance: type(instance) is not list or all(s(i) for s, i in zip(subs, instance, strict=False))

    def _k_items(self, value: Any, node: Any, base: str, scope: tuple[str, ...]) -> Check:
        if type(value) is list:
            if self.draft != DRAFT_7:
                raise Undecided("items as a list in draft 2020-12")
            return self._k_prefixItems(value, node, base, scope)  # draft 7's tuple form
        # 2020-12: items after prefixItems; draft 7 (no prefixItems keyword): all of them.
        start = len(node.get("prefixItems", [])) if self.draft == DRAFT_2020_12 else 0
        sub = self._subschema(value, base, scope)
        return lambda instance: type(instance) is not list or all(sub(i) for i in instance[start:])

    def _k_additionalItems(self, value: Any, node: Any, base: str, scope: tuple[str, ...]) -> Check:
        items = node.get("items", {})
        if type(items) is dict:
            return _true  # jsonschema ignores additionalItems unless items is a list
        if type(items) is not list:
            raise Undecided("additionalItems next to a boolean items")
        start = len(items)
        sub = self._subschema(value, base, scope)
        return lambda instance: type(instance) is not list or all(sub(i) for i in instance[start:])

    def _k_dependentSchemas(self, value: Any, node: Any, base: str, scope: tuple[str, ...]) -> Check:
        if type(value) is not dict:
            raise Undecided("dependentSchemas that are not an object")
        subs = tuple((name, self._subschema(s, base, scope)) for name, s in value.items())
        return lambda instance: type(instance) is not dict or all(
            sub(instance) for name, sub in subs if name in instance)

    def _k_dependentRequired(self, value: Any, node: Any, base: str, scope: tuple[str, ...]) -> Check:
        if type(value) is not dict:
            raise Undecided("dependentRequired that is not an object")
        pairs = tuple(value.items())
        return lambda instance: type(instance) is not dict or all(
            each in instance for name, needed in pairs if name in instance for each in needed)

    def _k_dependencies(self, value: Any, node: Any, base: str, scope: tuple[str, ...]) -> Check:
        if type(value) is not dict:
            raise Undecided("dependencies that are not an object")
        checks: list[Check] = []
        for name, dependency in value.items():
            if type(dependency) is list:
                checks.append(_needs_names(name, tuple(dependency)))
            else:
                checks.append(_needs_schema(name, self._subschema(dependency, base, scope)))
        every = _all(checks)
        return lambda instance: type(instance) is not dict or every(instance)

    # -- leaf keywords ----------------------------------------------------------------------

    def _k_type(self, value: Any, node: Any, base: str, scope: tuple[str, ...]) -> Check:
        try:
            return _type_check((value,) if type(value) is str else tuple(value) if type(value) is list else None)
        except (TypeError, Undecided):  # TypeError: a "name" that cannot be hashed
            raise Undecided(f"type {value!r}") from None  # jsonschema: UnknownType, not a verdict

    def _k_enum(self, value: Any, node: Any, base: str, scope: tuple[str, ...]) -> Check:
        if type(value) is not list:
            raise Undecided("enum that is not a list")
        # A string equals only an equal string (same()): a set answers for strings, the
        # usual instance (the metaschema's simpleTypes enum meets every "type" of a schema).
        strings = frozenset(each for each in value if type(each) is str)

        def enum(instance: Any) -> bool:
            if type(instance) is str:
                return instance in strings
            return any(same(each, instance) for each in value)
        return enum

    def _k_const(self, value: Any, node: Any, base: str, scope: tuple[str, ...]) -> Check:
        return lambda instance: same(instance, value)

    def _k_required(self, value: Any, node: Any, base: str, scope: tuple[str, ...]) -> Check:
        if type(value) is not list:
            raise Undecided("required that is not a list")
        names = tuple(value)
        return lambda instance: type(instance) is not dict or all(n in instance for n in names)

    def _k_pattern(self, value: Any, node: Any, base: str, scope: tuple[str, ...]) -> Check:
        search = _regex(value)
        return lambda instance: not _is_string(instance) or search(instance)

    def _k_format(self, value: Any, node: Any, base: str, scope: tuple[str, ...]) -> Check:
        if self.formats is None:
            return _true
        check = self.formats(value) if type(value) is str else None
        if check is None:
            raise Undecided(f"format {value!r}")
        return lambda instance: not _is_string(instance) or check(instance)

    def _k_uniqueItems(self, value: Any, node: Any, base: str, scope: tuple[str, ...]) -> Check:
        if not value:
            return _true
        return lambda instance: type(instance) is not list or _unique(instance)

    def _k_multipleOf(self, value: Any, node: Any, base: str, scope: tuple[str, ...]) -> Check:
        _number(value)
        if value <= 0:
            raise Undecided("multipleOf that is not positive")  # the metaschema refuses it

        return lambda instance: not _is_number(instance) or multiple_of(instance, value)

    def _k_minimum(self, value: Any, *_: Any) -> Check:
        _number(value)
        return lambda instance: not _is_number(instance) or instance >= value

    def _k_maximum(self, value: Any, *_: Any) -> Check:
        _number(value)
        return lambda instance: not _is_number(instance) or instance <= value

    def _k_exclusiveMinimum(self, value: Any, *_: Any) -> Check:
        _number(value)
        return lambda instance: not _is_number(instance) or instance > value

    def _k_exclusiveMaximum(self, value: Any, *_: Any) -> Check:
        _number(value)
        return lambda instance: not _is_number(instance) or instance < value

    def _k_minLength(self, value: Any, *_: Any) -> Check:
        return _size(TYPE_CHECKS["string"], value, lambda n: n >= value)

    def _k_maxLength(self, value: Any, *_: Any) -> Check:
        return _size(TYPE_CHECKS["string"], value, lambda n: n <= value)

    def _k_minItems(self, value: Any, *_: Any) -> Check:
        return _size(TYPE_CHECKS["array"], value, lambda n: n >= value)

    def _k_maxItems(self, value: Any, *_: Any) -> Check:
        return _size(TYPE_CHECKS["array"], value, lambda n: n <= value)

    def _k_minProperties(self, value: Any, *_: Any) -> Check:
        return _size(TYPE_CHECKS["object"], value, lambda n: n >= value)

    def _k_maxProperties(self, value: Any, *_: Any) -> Check:
        return _size(TYPE_CHECKS["object"], value, lambda n: n <= value)


#: The compiling method of each keyword that has one.
_METHODS = {keyword: f"_k_{keyword.lstrip('$')}" for keywords in KEYWORDS.values() for keyword in keywords
            if hasattr(Compiler, f"_k_{keyword.lstrip('$')}")}


def _nested_anchor(node: Any, *, top: bool = False) -> bool:
    if type(node) is dict:
        if not top and (type(node.get("$anchor")) is str or type(node.get("$dynamicAnchor")) is str):
            return True
        return any(_nested_anchor(v) for v in node.values())
    if type(node) is list:
        return any(_nested_anchor(v) for v in node)
    return False


def _number(value: Any) -> None:
    if not _is_number(value):
        raise Undecided(f"a bound that is not a number: {value!r}")


def _decimal(number: int | float) -> tuple[int, int]:
    """(digits, exponent): ``number`` is digits × 10^exponent, from its shortest decimal text (Go's
    ``%v`` and Python's repr write the same digits), or from its text in the schema file when it
    carries it (``schema_errors.JsonNumber``: v6 reads schema numbers as json.Number)."""
    if isinstance(number, int):
        return int(number), 0
    text = getattr(number, "literal", None) or repr(float(number))
    mantissa, _, exponent = text.lower().partition("e")
    whole, _, fraction = mantissa.partition(".")
    return int(whole + fraction), int(exponent or 0) - len(fraction)


def multiple_of(number: int | float, step: int | float) -> bool:
    """v6's ``multipleOf``: big.Rat of both numbers' decimal text, the quotient an integer (``0.3``
    is a multiple of ``0.1``, where the floats' quotient is not). Integers scaled to one exponent:
    no ``fractions`` import on the path of a first run."""
    if type(number) is int and type(step) is int:
        return number % step == 0 if step else False
    if not (math.isfinite(number) and math.isfinite(step)):
        return False  # v6 reads no rational from "+Inf" or "NaN"
    digits, exponent = _decimal(number)
    step_digits, step_exponent = _decimal(step)
    low = min(exponent, step_exponent)
    divisor = step_digits * 10 ** (step_exponent - low)
    return divisor != 0 and bool(digits * 10 ** (exponent - low) % divisor == 0)


def _size(applies: Check, value: Any, fits: Callable[[int], bool]) -> Check:
    _number(value)
    return lambda instance: not applies(instance) or fits(len(instance))


def _regex(pattern: Any) -> Callable[[str], bool]:
    """A schema pattern as Helm's validator reads it: Go's regexp (searched, not anchored),
    compiled at its first search (compiling imports the regexp engine: a first run whose
    instances meet no pattern spares it)."""
    if type(pattern) is not str:
        raise Undecided("a pattern that is not a string")
    compiled: list[Regexp] = []

    def search(text: str) -> bool:
        if not compiled:
            from helm_core.golib import goregexp

            try:
                compiled.append(goregexp.compile(pattern))
            except goregexp.GoSyntaxError:
                raise Undecided(f"pattern {pattern!r} does not compile") from None
        return compiled[0].match_string(text)
    return search
