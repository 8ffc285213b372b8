"""The schema's own references that lead nowhere, and ids that are no URL, found before any value
is checked, as helm finds them.

Helm's validator (santhosh-tekuri/jsonschema v6) compiles the whole schema before validating:
a ``$ref`` to a JSON pointer or an anchor the document does not have fails the chart whatever
the values (``json-pointer in "file:///values.schema.json#/definitions/x" not found``), where
python-jsonschema resolves a reference only when a value reaches it. References into the
document itself are checked here; others (remote documents, or under a nested ``$id``, whose
base differs) are left to the validator (helm-core fetches nothing: its own reason then).

Before those, v6 reads every subschema's id (``$id``, draft 4's ``id``; none beside a ``$ref``
before 2019-09) as a URL: one Go's ``url.Parse`` refuses fails the chart first
(``error in parsing id at "file:///values.schema.json#/properties/a"``).
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
    return _strings_after(text, _REF_KEY)


def _strings_after(text: str, key: str) -> set[str] | None:
    """Every string value written after ``key`` (a key and the value's opening quote) in a
    ``json.dumps`` text, or None when one holds an escape (then the walk decides)."""
    found: set[str] = set()
    start = text.find(key)
    while start >= 0:
        begin = start + len(key)
        end = text.find('"', begin)
        value = text[begin:end]
        if "\\" in value:
            return None
        found.add(value)
        start = text.find(key, end)
    return found


def _parses(ident: str) -> bool:
    """Whether Go's ``url.Parse`` reads an id (the part before its fragment)."""
    from helm_core.golib import gourl

    try:
        gourl.parse(ident.partition("#")[0])
    except gourl.URLError:
        return False
    return True


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


def _members(node: dict[str, Any], pointer: str) -> list[tuple[Any, str]]:
    """:func:`_subschemas` with the pointer to each."""
    found: list[tuple[Any, str]] = []
    for key, value in node.items():
        at = f"{pointer}/{jsonpointers.escape(key)}"
        if key in _APPLICATORS:
            if isinstance(value, dict):
                found.append((value, at))
            elif isinstance(value, list):
                found.extend((item, f"{at}/{i}") for i, item in enumerate(value))
        elif key in _MAPS and isinstance(value, dict):
            found.extend((item, f"{at}/{jsonpointers.escape(name)}") for name, item in value.items())
    return found


def unparsable_id(schema: Any, uri: str, draft: int, text: str | None = None) -> str | None:
    """Helm's error for a subschema's id that Go's ``url.Parse`` refuses (its fragment aside), in
    a schema of ``draft`` at ``uri``; None when every id parses.

    ``text``: the schema as ``json.dumps`` writes it. When every string written after the id's
    key parses (nearly always), that is the answer without walking the schema."""
    from helm_core.golib import gostrconv, gourl

    keyword = "id" if draft < 6 else "$id"
    if text is not None:
        written = _strings_after(text, f'"{keyword}": "')
        if written is not None and all(_parses(ident) for ident in written):
            return None
    stack: list[tuple[Any, str]] = [(schema, "")]
    while stack:
        node, pointer = stack.pop()
        if not isinstance(node, dict):
            continue
        ident = node.get(keyword)
        if isinstance(ident, str) and not (draft < 2019 and "$ref" in node):
            if not _parses(ident):
                # The location as v6 writes it: each pointer token path-escaped.
                tokens = pointer.split("/")
                escaped = "/".join(gourl.escape(t.encode("utf-8", "surrogateescape"), gourl.PATH_SEGMENT).decode()
                                   for t in tokens)
                return f"error in parsing id at {gostrconv.quote(f'{uri}#{escaped}')}"
        stack.extend(reversed(_members(node, pointer)))
    return None


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
