"""Finding the ``$ref`` cycle a values check would meet, worded as Helm's validator words it.

Helm's validator (santhosh-tekuri/jsonschema v6) stops when a schema is entered again for
the same value without descending into it (``{"$ref": "#"}``, or ``a`` → ``b`` → ``a``):
``both /properties/x/$ref/$ref/$ref and /properties/x/$ref resolve to
"file:///values.schema.json#/definitions/a" causing reference cycle``. Python's jsonschema
recurses until the stack is spent instead, so the walk here looks for such a cycle first,
along the values actually given (a cycle no value reaches is no error, as in Helm).

The walk is iterative and bounded (:data:`MAX_STEPS`): it never exhausts a stack, and
gives up (None) rather than take long on a huge schema or values.
"""
from __future__ import annotations

from helm_core.support import jsonpointers
from helm_core.support.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Optional

#: Helm validates the chart's schema as this document.
SCHEMA_URL = "file:///values.schema.json"
#: Schema-and-value pairs looked at before giving up.
MAX_STEPS = 200_000

#: Keywords that apply their subschemas to the same value (where a cycle can form).
_IN_PLACE_ONE = ("not", "if", "then", "else")
_IN_PLACE_MANY = ("allOf", "anyOf", "oneOf")


@record(frozen=True)
class Cycle:
    """Where the cycle was met: the value's path and Helm's description of it."""

    path: tuple[str | int, ...]
    message: str


class _Scope:
    """A schema entered by the walk (a plain class: typing's NamedTuple is an import of every
    first run that checks a schema)."""

    __slots__ = ("location", "keywords", "value_id", "parent")

    def __init__(self, location: str, keywords: str, value_id: int, parent: Optional[_Scope]) -> None:
        self.location = location  # the schema's JSON pointer in the document
        self.keywords = keywords  # Helm's keyword location: how validation got there from the root
        self.value_id = value_id  # the walk step that entered the value: a new one per value descended into
        self.parent = parent


def unquote(text: str) -> str:
    """A URI fragment's %-escapes decoded (urllib only when there is one: its import is a first
    run's cost)."""
    if "%" not in text:
        return text
    from urllib.parse import unquote as url_unquote

    return url_unquote(text)


def find(schema: Any, values: Any) -> Cycle | None:
    """The first reference cycle validating ``values`` against ``schema`` meets, if any."""
    root = _Scope("", "", 0, None)
    pending: list[tuple[Any, _Scope, Any, tuple[str | int, ...]]] = [(schema, root, values, ())]
    steps = 0
    while pending:
        node, scope, value, path = pending.pop()
        steps += 1
        if steps > MAX_STEPS:
            return None
        if type(node) is not dict:
            continue
        children: list[tuple[Any, str, str, bool, Any, tuple[str | int, ...]]] = []
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#"):
            target = _pointer(schema, ref[1:])
            if target is not None:
                children.append((target, unquote(ref[1:]), "/$ref", False, value, path))
        for keyword in _IN_PLACE_MANY:
            subs = node.get(keyword)
            for i, sub in enumerate(subs if isinstance(subs, list) else ()):
                children.append((sub, f"{scope.location}/{keyword}/{i}", f"/{keyword}/{i}", False, value, path))
        for keyword in _IN_PLACE_ONE:
            if keyword in node:
                children.append((node[keyword], f"{scope.location}/{keyword}", f"/{keyword}", False, value, path))
        children.extend(_descents(node, scope.location, value, path))
        for sub, location, keyword, descends, sub_value, sub_path in reversed(children):
            keywords = scope.keywords + keyword
            if not descends:
                earlier = _same_value_scope(scope, location)
                if earlier is not None:
                    return Cycle(path, f"both {keywords} and {earlier.keywords} resolve to "
                                       f'"{SCHEMA_URL}#{location}" causing reference cycle')
            pending.append((sub, _Scope(location, keywords, steps if descends else scope.value_id, scope),
                            sub_value, sub_path))
    return None


def _descents(node: dict[str, Any], location: str, value: Any, path: tuple[str | int, ...]) -> list[Any]:
    """Subschemas applied to parts of the value: properties and array items present in it."""
    out: list[Any] = []
    properties = node.get("properties")
    if isinstance(value, dict) and isinstance(properties, dict):
        for key, sub in properties.items():
            if key in value:
                segment = f"/properties/{jsonpointers.escape(key)}"
                out.append((sub, f"{location}{segment}", segment, True, value[key], (*path, key)))
    additional = node.get("additionalProperties")
    if isinstance(value, dict) and isinstance(additional, dict) and "patternProperties" not in node:
        for key in value:
            if not isinstance(properties, dict) or key not in properties:
                out.append((additional, f"{location}/additionalProperties", "/additionalProperties", True,
                            value[key], (*path, key)))
    items = node.get("items")
    if isinstance(value, list) and isinstance(items, dict) and "prefixItems" not in node:
        for i, item in enumerate(value):
            out.append((items, f"{location}/items", "/items", True, item, (*path, i)))
    return out


def _same_value_scope(scope: _Scope | None, location: str) -> _Scope | None:
    """The scope that entered ``location`` for the same value, as v6's ``checkCycle`` finds it."""
    value_id = scope.value_id if scope is not None else 0
    while scope is not None and scope.value_id == value_id:
        if scope.location == location:
            return scope
        scope = scope.parent
    return None


def _pointer(document: Any, fragment: str) -> Any:
    node = document
    for segment in unquote(fragment).split("/")[1:] if fragment else ():
        segment = jsonpointers.unescape(segment)
        try:
            node = node[int(segment)] if type(node) is list else node[segment]
        except (KeyError, IndexError, ValueError, TypeError):
            return None
    return node

