"""The schema's own references that lead nowhere, found before any value is checked, as helm finds them.

Helm's validator (santhosh-tekuri/jsonschema v6) compiles the whole schema before validating:
a ``$ref`` to a JSON pointer or an anchor the document does not have fails the chart whatever
the values (``json-pointer in "file:///values.schema.json#/definitions/x" not found``), where
python-jsonschema resolves a reference only when a value reaches it. References into the
document itself are checked here; others (remote documents, or under a nested ``$id``, whose
base differs) are left to the validator (helm-core fetches nothing: its own reason then).
"""
from __future__ import annotations

from helm_core.support import jsonpointers

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: Keywords whose value holds subschemas: one, a list of them, or a map of them (by the value's type).
_APPLICATORS = frozenset({
    "additionalProperties", "additionalItems", "contains", "propertyNames", "not", "if", "then", "else",
    "unevaluatedProperties", "unevaluatedItems", "items", "allOf", "anyOf", "oneOf", "prefixItems"})
_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"})

def unresolved(schema: Any, uri: str, text: str | None = None) -> str | None:
    """Helm's error for the first local reference of ``schema`` (at ``uri``) that leads nowhere.

    ``text``: the schema as ``json.dumps`` writes it. When every ``"$ref"`` string in it leads
    somewhere (nearly always), that is the answer without walking the schema (a first run of a
    chart with thousands of subschemas pays the walk only when a reference is broken)."""
    if text is not None:
        written = _refs_in_text(text)
        if written is not None and all(_found(schema, ref[1:]) for ref in written if ref.startswith("#")):
            return None
    for ref in _local_refs(schema):
        fragment = ref[1:]
        if fragment.startswith("/") and not _pointer_found(schema, fragment):
            return f'json-pointer in "{uri}#{fragment}" not found'
        if fragment and not fragment.startswith("/") and not _anchor_found(schema, fragment, top=True):
            return f'anchor in "{uri}#{fragment}" not found in schema "{uri}"'
    return None


def _found(schema: Any, fragment: str) -> bool:
    if fragment.startswith("/"):
        return _pointer_found(schema, fragment)
    return not fragment or _anchor_found(schema, fragment, top=True)


#: How json.dumps writes a reference's key and the opening quote of its value.
_REF_KEY = '"$ref": "'


def _refs_in_text(text: str) -> set[str] | None:
    """Every ``"$ref"`` string value of a ``json.dumps`` text (wherever it stands), or None when
    one holds an escape (then the walk decides)."""
    refs: set[str] = set()
    start = text.find(_REF_KEY)
    while start >= 0:
        begin = start + len(_REF_KEY)
        end = text.find('"', begin)
        ref = text[begin:end]
        if "\\" in ref:
            return None
        refs.add(ref)
        start = text.find(_REF_KEY, end)
    return refs


def _subschemas(node: dict[str, Any]) -> list[Any]:
    # By the node's keys (a handful), not by the keyword list: called for every subschema.
    found: list[Any] = []
    for key, value in node.items():
        if key in _APPLICATORS:
            if isinstance(value, dict):
                found.append(value)
            elif isinstance(value, list):
                found.extend(value)
        elif key in _MAPS and isinstance(value, dict):
            found.extend(value.values())
    return found


def _local_refs(schema: Any) -> dict[str, None]:
    """The distinct ``#...`` references of the document's own resource, in the order met
    (subschemas with an ``$id`` of their own are other resources, resolved against another
    base: not followed). A loop, not recursion: charts' schemas hold thousands of subschemas."""
    refs: dict[str, None] = {}
    stack = [schema]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict) or node is not schema and isinstance(node.get("$id"), str):
            continue
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#"):
            refs[ref] = None
        stack.extend(reversed(_subschemas(node)))
    return refs


def _pointer_found(document: Any, fragment: str) -> bool:
    if "%" in fragment:  # a URI fragment: percent-escapes first (urllib only for those)
        from urllib.parse import unquote

        fragment = unquote(fragment)
    return jsonpointers.get(document, jsonpointers.tokens(fragment))[0]


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
