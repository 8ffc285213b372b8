"""The schema's own references that lead nowhere, found before any value is checked, as helm finds them.

Helm's validator (santhosh-tekuri/jsonschema v6) compiles the whole schema before validating:
a ``$ref`` to a JSON pointer or an anchor the document does not have fails the chart whatever
the values (``json-pointer in "file:///values.schema.json#/definitions/x" not found``), where
python-jsonschema resolves a reference only when a value reaches it. References into the
document itself are checked here; others (remote documents, or under a nested ``$id``, whose
base differs) are left to the validator (helm-core fetches nothing: its own reason then).
"""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: Keywords whose value is one subschema, a list of subschemas, or a map of them.
_ONE = ("additionalProperties", "additionalItems", "contains", "propertyNames", "not", "if", "then", "else",
        "unevaluatedProperties", "unevaluatedItems", "items")
_LIST = ("allOf", "anyOf", "oneOf", "prefixItems", "items")
_MAP = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies")


def unresolved(schema: Any, uri: str) -> str | None:
    """Helm's error for the first local reference of ``schema`` (at ``uri``) that leads nowhere."""
    for ref in _local_refs(schema, top=True):
        fragment = ref[1:]
        if fragment.startswith("/") and not _pointer_found(schema, fragment):
            return f'json-pointer in "{uri}#{fragment}" not found'
        if fragment and not fragment.startswith("/") and not _anchor_found(schema, fragment, top=True):
            return f'anchor in "{uri}#{fragment}" not found in schema "{uri}"'
    return None


def _subschemas(node: dict[str, Any]) -> list[Any]:
    found: list[Any] = [node[k] for k in _ONE if k in node and isinstance(node[k], dict)]
    for keyword in _LIST:
        if isinstance(node.get(keyword), list):
            found.extend(node[keyword])
    for keyword in _MAP:
        if isinstance(node.get(keyword), dict):
            found.extend(node[keyword].values())
    return found


def _local_refs(node: Any, *, top: bool = False) -> list[str]:
    """The ``#...`` references of the document's own resource (subschemas with an ``$id`` of
    their own are other resources, resolved against another base: not followed)."""
    if not isinstance(node, dict) or not top and isinstance(node.get("$id"), str):
        return []
    refs = [node["$ref"]] if isinstance(node.get("$ref"), str) and node["$ref"].startswith("#") else []
    for sub in _subschemas(node):
        refs.extend(_local_refs(sub))
    return refs


def _pointer_found(document: Any, fragment: str) -> bool:
    from urllib.parse import unquote

    node = document
    for token in unquote(fragment).split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return False
    return True


def _anchor_found(node: Any, name: str, *, top: bool = False) -> bool:
    """Whether the document's own resource declares anchor ``name`` (``$anchor``,
    ``$dynamicAnchor``, or an old draft's ``$id``/``id`` of ``#name``)."""
    if not isinstance(node, dict):
        return False
    declared = {node.get("$anchor"), node.get("$dynamicAnchor"), node.get("$id"), node.get("id")}
    if name in declared or f"#{name}" in declared:
        return True
    if not top and isinstance(node.get("$id"), str) and not node["$id"].startswith("#"):
        return False
    return any(_anchor_found(sub, name) for sub in _subschemas(node))
