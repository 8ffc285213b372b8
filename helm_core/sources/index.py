"""``helm-core repo index DIR --url URL``: build a repository ``index.yaml`` as Helm does.

Rules (Helm's ``repo.IndexDirectory``):
- Archives are ``DIR/*.tgz`` and ``DIR/*/*.tgz`` (Go's glob has no recursive ``**``); files that
  do not load as charts are skipped.
- Each entry is Chart.yaml's metadata plus ``created`` (RFC 3339, UTC), ``digest`` (SHA-256 hex
  of the archive) and ``urls``: ``<url>/<subdir>/<file>`` when a URL is given, else the
  relative path. Versions of a chart are listed newest first.
- ``merge`` keeps the entries of an existing index that the directory does not provide.
- The YAML is written with sorted keys, as Helm's JSON-tag marshalling produces.
"""
from __future__ import annotations

import datetime
import glob
import os
from pathlib import Path
from typing import Any

import yaml

from helm_core.errors import HelmError, SourceError
from helm_core.sources import cache as cache_mod
from helm_core.sources import package as package_mod
from helm_core.sources import repo

API_VERSION = "v1"


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat().replace("+00:00", "Z")


def _join(base: str, *parts: str) -> str:
    pieces = [base.rstrip("/")] + [p.strip("/") for p in parts if p]
    return "/".join(pieces) if base else "/".join(pieces[1:])


def index_directory(directory: str | os.PathLike[str], *, url: str = "",
                    created: str | None = None) -> dict[str, Any]:
    """The index document for every chart archive in ``directory``."""
    root = Path(directory)
    archives = sorted(glob.glob(str(root / "*.tgz")) + glob.glob(str(root / "*" / "*.tgz")))
    entries: dict[str, list[dict[str, Any]]] = {}
    stamp = created or _now()
    for path in archives:
        rel = os.path.relpath(path, root)
        parent, filename = os.path.split(rel)
        data = Path(path).read_bytes()
        try:
            repo.check_archive(data, source=rel)
            doc = package_mod.raw_chart_yaml(data, source=rel)
        except HelmError:
            continue
        entry = package_mod.chart_metadata(doc)
        entry.update({
            "created": stamp,
            "digest": cache_mod.sha256_hex(data),
            "urls": [_join(url, parent, filename) if url else rel],
        })
        entries.setdefault(str(entry["name"]), []).append(entry)
    return {"apiVersion": API_VERSION, "entries": _sorted(entries), "generated": stamp}


def _sorted(entries: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    return {name: repo.newest_first(items, lambda e: str(e.get("version", "")))
            for name, items in entries.items()}


def merge(new: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    """``--merge``: entries of ``old`` whose name and version ``new`` lacks are kept."""
    entries = {name: list(items) for name, items in new["entries"].items()}
    for name, items in (old.get("entries") or {}).items():
        have = {str(e.get("version")) for e in entries.get(name, [])}
        for item in items or ():
            if str(item.get("version")) not in have:
                entries.setdefault(name, []).append(item)
    return {**new, "entries": _sorted(entries)}


def dump(index: dict[str, Any]) -> str:
    text: str = yaml.safe_dump(index, sort_keys=True, default_flow_style=False, allow_unicode=True)
    return text


def write_index(directory: str | os.PathLike[str], *, url: str = "", merge_with: str = "") -> Path:
    """Write ``DIR/index.yaml`` atomically; return its path."""
    index = index_directory(directory, url=url)
    if merge_with:
        try:
            old = yaml.safe_load(Path(merge_with).read_text("utf-8")) or {}
        except (OSError, yaml.YAMLError) as exc:
            raise SourceError(f"{merge_with}: cannot read index to merge: {exc}") from None
        index = merge(index, old)
    target = Path(directory) / "index.yaml"
    temporary = target.with_name(".index.yaml.tmp")
    temporary.write_text(dump(index), encoding="utf-8")
    os.replace(temporary, target)
    return target
