"""Checking a values schema against its metaschema: jsonschema's verdict, much faster.

``cls.check_schema(schema)`` walks the metaschema with jsonschema's general machinery: every
subschema it visits builds a new validator object and every ``$ref`` / ``$dynamicRef`` is
resolved again through ``referencing`` (URL joins, dynamic scope). For Draft 2020-12, whose
metaschema is seven vocabulary documents tied together by ``$dynamicRef: "#meta"``, that is
slow on large schemas such as bitnami's redis, after the import of jsonschema itself
(``bench/schema.py`` measures both paths).

A metaschema never changes, so here it is compiled once per process by
:mod:`helm_core.chart.verdict`, with every reference — ``$dynamicRef`` included — resolved
statically, into closures that answer "valid or not" without importing jsonschema (the
2020-12 vocabularies, joined by ``allOf``, inlined into one lookup per node). The
metaschema documents are read from the files the installed ``jsonschema-specifications``
ships (the same ones jsonschema uses), not copied. When the closures say "not valid", or
cannot decide, :func:`check_schema` runs ``cls.check_schema`` and its error is raised as it
always was: users see jsonschema's messages, word for word.

Formats are asserted as helm's validator asserts them on a schema: ``uri`` and ``uri-reference``
by Go's ``url.Parse`` (:mod:`helm_core.chart.schema_formats`), ``regex`` by Go's regexp.
"""
from __future__ import annotations

import functools
import json
import os

from helm_core.chart import jsonschema_go, verdict
from helm_core.support import memo

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: Folders of jsonschema-specifications' ``schemas/`` for the drafts compiled here.
_FOLDERS = {verdict.DRAFT_2020_12: "draft202012", verdict.DRAFT_7: "draft7"}
#: Every dialect jsonschema 4.x knows (normalized as its ``validator_for`` normalizes them):
#: a ``$schema`` that is none of these gets the default, Draft 2020-12, as in Helm.
DIALECTS = {
    "https://json-schema.org/draft/2020-12/schema": verdict.DRAFT_2020_12,
    "https://json-schema.org/draft/2019-09/schema": "2019-09",
    "http://json-schema.org/draft-07/schema": verdict.DRAFT_7,
    "http://json-schema.org/draft-06/schema": "6",
    "http://json-schema.org/draft-04/schema": "4",
    "http://json-schema.org/draft-03/schema": "3",
}

#: What a fragment may hold for the plain forms below (no escape, which Go would decode).
_FRAGMENT = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~!$&'()*+,;=:@-/?")


def _plain_uri(text: str) -> bool:
    """A plain absolute URI with a plain fragment, such as ``http://json-schema.org/schema#``:
    what Go's url.Parse surely reads as an absolute URL, known with string methods."""
    head, _, fragment = text.partition("#")
    return verdict.plain_absolute(head) and _FRAGMENT.issuperset(fragment)


def _is_uri(text: str) -> bool:
    return _plain_uri(text) or _v6_format("uri", text)


def _is_uri_reference(text: str) -> bool:
    # "#/$defs/name", the usual reference, and plain URIs: no parse needed.
    if text[:1] == "#" and _FRAGMENT.issuperset(text[1:]):
        return True
    return _plain_uri(text) or _v6_format("uri-reference", text)


def _v6_format(name: str, text: str) -> bool:
    from helm_core.chart import schema_formats  # for a schema with a URI out of the plain forms only

    return schema_formats.reason(name, text) is None


def _is_regex(text: str) -> bool:
    from helm_core.golib import goregexp  # for a schema with a pattern only

    return goregexp.valid(text)  # Helm's validator: Go's regexp.Compile


#: The formats the metaschemas use, asserted as helm's validator asserts them on a schema (v6's
#: checkers, :mod:`helm_core.chart.schema_formats`), with string-method answers for the usual forms.
_FORMATS: dict[str, verdict.Check] = {
    "regex": _is_regex,
    "uri": _is_uri,
    "uri-reference": _is_uri_reference,
}


def _folder(draft: str) -> str | None:
    package = memo.package_folder("jsonschema_specifications")
    if package is None or draft not in _FOLDERS:
        return None
    return os.path.join(package, "schemas", _FOLDERS[draft])


def _files(folder: str) -> list[str]:
    """The files below ``folder`` but hidden ones, in sorted order (os, not pathlib: its import
    costs a first run ms)."""
    return sorted(os.path.join(top, name) for top, _, names in os.walk(folder)
                  for name in names if not name.startswith("."))


def dialect(schema: Any) -> str:
    """The draft jsonschema's ``validator_for(schema, default=Draft202012Validator)`` picks."""
    if type(schema) is not dict or "$schema" not in schema:
        return verdict.DRAFT_2020_12
    uri = schema["$schema"]
    if type(uri) is not str:
        raise verdict.Undecided("$schema that is not a string")
    return DIALECTS.get(_normalized(uri), verdict.DRAFT_2020_12)


#: The drafts helm's validator (santhosh-tekuri/jsonschema v6) knows, by ``$schema`` without its
#: scheme (http or https) and with no fragment but an empty one.
_V6_DRAFTS = {"json-schema.org/schema": 2020, "json-schema.org/draft/2020-12/schema": 2020,
              "json-schema.org/draft/2019-09/schema": 2019, "json-schema.org/draft-07/schema": 7,
              "json-schema.org/draft-06/schema": 6, "json-schema.org/draft-04/schema": 4}
#: v6's drafts as jsonschema's (and the compiled checks') names.
V6_DIALECTS = {2020: verdict.DRAFT_2020_12, 2019: "2019-09", 7: verdict.DRAFT_7, 6: "6", 4: "4"}


def v6_draft(schema: Any) -> int:
    """The draft helm's validator applies to ``schema``: the one its ``$schema`` names (http or
    https), 2020-12 without one. A ``$schema`` v6 does not know it would fetch as a metaschema;
    helm-core fetches nothing and applies 2020-12 (a string that is no URI is refused by the
    metaschema, as in helm)."""
    uri = schema.get("$schema") if type(schema) is dict else None
    if type(uri) is not str:
        return 2020
    head, _, fragment = uri.partition("#")
    if fragment:
        return 2020
    for scheme in ("http://", "https://"):
        if head.startswith(scheme):
            return _V6_DRAFTS.get(head[len(scheme):], 2020)
    return 2020


def _normalized(uri: str) -> str:
    """``urlsplit(uri).geturl()``, as jsonschema normalizes dialect URIs: for the known ones and
    what charts declare, without importing urllib."""
    head = uri[:-1] if uri.endswith("#") else uri  # an empty fragment is dropped
    if head in DIALECTS or head in _UNKNOWN_DIALECTS:
        return head
    from urllib.parse import urlsplit

    return urlsplit(uri).geturl()


#: URIs that normalize to themselves but name no dialect: bitnami's charts declare the first.
_UNKNOWN_DIALECTS = frozenset({"http://json-schema.org/schema", "https://json-schema.org/schema"})


@functools.cache
def _documents(draft: str) -> tuple[str, dict[str, Any]]:
    """(root URI, documents by URI): ``draft``'s metaschema as jsonschema-specifications ships it."""
    folder = _folder(draft)
    if folder is None:
        raise verdict.Undecided(f"no metaschema files for draft {draft}")
    documents: dict[str, Any] = {}
    root = ""
    for path in _files(folder):
        with open(path, encoding="utf-8") as file:
            document = json.load(file)
        uri, _ = verdict.defragment(document["$id"])
        documents[uri] = document
        root = uri if os.path.basename(path) == "metaschema.json" else root
    return root, documents


@functools.cache
def compiled(draft: str) -> tuple[verdict.Check | None, str]:
    """(check, why not): the compiled metaschema of ``draft``, or None and the reason."""
    try:
        root, documents = _documents(draft)
        compiler = verdict.Compiler(draft, documents, formats=_FORMATS.get, relative_refs=True)
        return compiler.compile(root), ""
    except (verdict.Undecided, OSError, ValueError, KeyError) as exc:
        return None, str(exc) or type(exc).__name__


def valid(schema: Any, draft: str | None = None, *, plain: bool = False) -> bool:
    """Whether ``schema`` meets its metaschema; raises verdict.Undecided when that is not known.

    ``plain``: the caller knows the schema is made of plain JSON values (``json.loads``' of a
    text without NaN or Infinity), which spares walking it once more to find out."""
    draft = dialect(schema) if draft is None else draft
    check, why = compiled(draft)
    if check is None:
        raise verdict.Undecided(why)
    if not plain:
        verdict.plain(schema)
    try:
        return check(schema)
    except RecursionError:
        raise verdict.Undecided("a schema nested too deeply") from None


def check_schema(cls: Any, schema: Any) -> None:
    """Raise what ``cls.check_schema(schema)`` raises (``jsonschema.SchemaError``), or nothing."""
    draft = DIALECTS.get(_normalized(cls.ID_OF(cls.META_SCHEMA) or ""))
    if draft is not None:
        try:
            if valid(schema, draft):
                return
        except verdict.Undecided:
            pass
    cls.check_schema(schema, format_checker=jsonschema_go.v6_format_checker())
