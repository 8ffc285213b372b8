"""Rendered output as objects keyed by Source + kind/namespace/name, and random-tolerant
equality: what the conformance tests and ``bench/sweep.py`` compare with helm by."""
from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from helm_core.golib import goyaml
Key = tuple[str, str, str, str, int]

_ALNUM = re.compile(r"^[A-Za-z0-9]+$")
_PEM = re.compile(r"-----BEGIN [A-Z ]+-----")
_DOCUMENT_SPLIT = re.compile(r"(?m)^---\s*$")
_SOURCE = re.compile(r"# Source: (.+)\n?")


def template_documents(text: str) -> dict[Key, Any]:
    """The objects of ``helm template`` output (each document starts with ``# Source:``).

    Raises ValueError for a document without a Source line.
    """
    objects: dict[Key, Any] = {}
    for chunk in _DOCUMENT_SPLIT.split(text):
        chunk = chunk.strip("\n")
        if not chunk.strip():
            continue
        match = _SOURCE.match(chunk)
        if not match:
            raise ValueError(f"document without a Source line: {chunk[:200]!r}")
        add(objects, match.group(1), goyaml.decode(chunk[match.end():]))
    return objects


def add(objects: dict[Key, Any], source: str, obj: Any) -> None:
    """Store ``obj`` under its Source, kind, namespace and name (numbered when repeated)."""
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    meta = meta if isinstance(meta, dict) else {}
    kind = obj.get("kind") if isinstance(obj, dict) else None
    base = (source, str(kind), str(meta.get("namespace", "")), str(meta.get("name", "")))
    n = 0
    while base + (n,) in objects:
        n += 1
    objects[base + (n,)] = obj


def random_like(a: Any, b: Any) -> bool:
    """Two leaves that only random functions could make differ."""
    if not isinstance(a, str) or not isinstance(b, str):
        return False
    if _PEM.search(a) and _PEM.search(b):
        return True
    if len(a) == len(b) and _ALNUM.match(a) and _ALNUM.match(b):
        return True
    try:
        da, db = base64.b64decode(a, validate=True), base64.b64decode(b, validate=True)
    except (binascii.Error, ValueError):
        return False
    try:
        return random_like(da.decode(), db.decode())
    except UnicodeDecodeError:
        return len(da) == len(db)


def first_difference(ours: Any, theirs: Any, again: Any, path: str = "", tolerated: list[int] | None = None) -> str | None:
    """Where ``ours`` first differs from helm's ``theirs`` (``None`` when equal); a leaf that
    differs between helm's two runs (``again``) is accepted when ours equals the second run
    or is ``random_like``."""
    tolerated = [] if tolerated is None else tolerated
    if isinstance(ours, dict) and isinstance(theirs, dict):
        if ours.keys() != theirs.keys():
            only_ours = sorted(set(ours) - set(theirs))
            only_theirs = sorted(set(theirs) - set(ours))
            return f"{path or '.'}: keys only in ours {only_ours}, only in helm's {only_theirs}"
        again_map = again if isinstance(again, dict) else {}
        for k in ours:
            found = first_difference(ours[k], theirs[k], again_map.get(k), f"{path}.{k}", tolerated)
            if found:
                return found
        return None
    if isinstance(ours, list) and isinstance(theirs, list):
        if len(ours) != len(theirs):
            return f"{path or '.'}: {len(ours)} items in ours, {len(theirs)} in helm's"
        again_list = again if isinstance(again, list) and len(again) == len(theirs) else [None] * len(theirs)
        for i, (a, b, c) in enumerate(zip(ours, theirs, again_list)):
            found = first_difference(a, b, c, f"{path}[{i}]", tolerated)
            if found:
                return found
        return None
    if ours == theirs and type(ours) is type(theirs):
        return None
    if again != theirs and (ours == again or random_like(ours, theirs) or _random_inside(ours, theirs, again)):
        tolerated.append(1)
        return None
    return f"{path or '.'}: ours {_short(ours)}, helm's {_short(theirs)}"


_TOKEN = re.compile(r"([A-Za-z0-9+/=]+)")


def _random_inside(ours: Any, theirs: Any, again: Any) -> bool:
    """Texts (a config file with a generated secret in it) equal but for random tokens: every
    token that differs also differs between helm's two runs and is ``random_like``."""
    if not (isinstance(ours, str) and isinstance(theirs, str) and isinstance(again, str)):
        return False
    decoded = [_base64_text(text) for text in (ours, theirs, again)]
    if None not in decoded:  # a Secret's data: the text inside
        ours, theirs, again = decoded
    mine, helms, helms_again = _TOKEN.split(ours), _TOKEN.split(theirs), _TOKEN.split(again)
    if not len(mine) == len(helms) == len(helms_again):
        return False
    return all(a == b or (b != c and random_like(a, b)) for a, b, c in zip(mine, helms, helms_again))


def _base64_text(text: str) -> str | None:
    try:
        return base64.b64decode(text, validate=True).decode()
    except (binascii.Error, ValueError):
        return None


def _short(value: Any, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."
