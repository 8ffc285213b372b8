"""``helm-core dependency build``: fetch Chart.yaml dependencies missing from ``charts/``.

Rules (Helm's ``downloader.Manager.Build``/``Update``):
- With a ``Chart.lock`` the locked versions are fetched, after checking the lock's digest
  against Chart.yaml (Helm's ``HashReq``: SHA-256 of the Go JSON of ``[requirements, lock]``);
  a stale lock is refused with Helm's message. Without a lock, each range is resolved (newest
  match) and a ``Chart.lock`` is written, as ``helm dependency update`` does.
- Repositories: ``https://``/``http://`` chart repositories, ``oci://`` registries (chart
  ``oci://<repository>/<name>``) and ``file://`` paths (packaged from the directory). Named
  repositories (``@name``, ``alias:``) need Helm's repositories.yaml and are refused.
- Archives are written to ``charts/<name>-<version>.tgz`` atomically; an archive already
  there with the same name and version is kept.
"""
from __future__ import annotations

import datetime
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import yaml

from helm_core.errors import DependencyError
from helm_core.golib import gojson
from helm_core.sources import ChartRef, Credentials, resolve
from helm_core.sources import cache as cache_mod
from helm_core.sources import package as package_mod
from helm_core.support.records import record

STALE_LOCK = ("the lock file (Chart.lock) is out of sync with the dependencies file (Chart.yaml). "
              "Please update the dependencies")
_DEP_FIELDS = ("name", "version", "repository", "condition", "tags", "enabled", "import-values", "alias")
_ALWAYS = ("name", "repository")


@record(frozen=True)
class Built:
    name: str
    version: str
    repository: str
    path: Path


def _go_dependency(dep: dict[str, Any]) -> gojson.Struct:
    out = gojson.Struct()
    for key in _DEP_FIELDS:
        value = dep.get(key)
        if key in _ALWAYS:
            out[key] = "" if value is None else str(value)
        elif value not in (None, "", [], False):
            out[key] = value
    return out


def hash_req(req: list[dict[str, Any]], lock: list[dict[str, Any]]) -> str:
    """Helm's ``resolver.HashReq``."""
    data = gojson.dumps([[_go_dependency(d) for d in req], [_go_dependency(d) for d in lock]])
    return "sha256:" + cache_mod.sha256_hex(data.encode("utf-8"))


def _read_yaml(path: Path) -> dict[str, Any]:
    try:
        doc = yaml.safe_load(path.read_text("utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise DependencyError(f"{path}: {exc}") from None
    if not isinstance(doc, dict):
        raise DependencyError(f"{path}: not a mapping")
    return doc


def _ref(dep: dict[str, Any], version: str, chart_dir: Path, plain_http: bool,
         repositories: Mapping[str, str] | None = None) -> ChartRef | Path:
    repository = named_repository(str(dep.get("repository") or ""), repositories or {})
    name = str(dep["name"])
    if repository.startswith("oci://"):
        return ChartRef(kind="oci", url=f"{repository.rstrip('/')}/{name}", version=version,
                        plain_http=plain_http)
    if repository.startswith(("http://", "https://")):
        return ChartRef(kind="repo", url=repository, name=name, version=version)
    if repository.startswith("file://"):
        return (chart_dir / repository[len("file://"):]).resolve()
    raise DependencyError(f"dependency {name!r}: repository {repository!r} is not supported "
                          "(use an http(s)://, oci:// or file:// URL; "
                          "named repositories need Helm's repositories.yaml)")


def named_repository(repository: str, repositories: Mapping[str, str]) -> str:
    """``@name`` / ``alias:name`` -> the URL ``repositories`` (helm's repositories.yaml) gives."""
    for prefix in ("@", "alias:"):
        if repository.startswith(prefix):
            key = repository[len(prefix):]
            if key not in repositories:
                raise DependencyError(f"no repository definition for {repository}. "
                                      "Please add them via 'helm repo add'")
            return repositories[key]
    return repository


def _known_repository(repository: str, repositories: Mapping[str, str]) -> str:
    try:
        return named_repository(repository, repositories)
    except DependencyError:
        return repository  # reported when the dependency is fetched


def build(chart_dir: str | os.PathLike[str], *, credentials: Callable[[str], Credentials],
          cache: cache_mod.Cache, plain_http: bool = False,
          now: Callable[[], str] | None = None, update: bool = False,
          repositories: Mapping[str, str] | None = None) -> list[Built]:
    """Fetch every dependency into ``charts/``; ``credentials(repository_url)`` picks auth.

    ``update`` (``helm dependency update``) resolves the ranges of Chart.yaml again, ignoring
    Chart.lock, and rewrites the lock; ``repositories`` names repositories for ``@name``."""
    root = Path(chart_dir)
    doc = _read_yaml(root / "Chart.yaml")
    req = [d for d in doc.get("dependencies") or [] if isinstance(d, dict)]
    # helm digests the dependencies with `@name` repositories already replaced by their URLs
    req = [{**d, "repository": _known_repository(str(d["repository"]), repositories or {})}
           if d.get("repository") else d for d in req]
    lock_path = root / "Chart.lock"
    locked: list[dict[str, Any]] | None = None
    if lock_path.is_file() and not update:
        lock = _read_yaml(lock_path)
        locked = [d for d in lock.get("dependencies") or [] if isinstance(d, dict)]
        if hash_req(req, locked) != lock.get("digest"):
            raise DependencyError(STALE_LOCK)
    charts = root / "charts"
    charts.mkdir(exist_ok=True)
    built: list[Built] = []
    resolved_lock: list[dict[str, Any]] = []
    for position, dep in enumerate(req):
        if not dep.get("repository"):
            continue  # a dependency already vendored in charts/ (Helm skips it too)
        version = str((locked[position] if locked else dep).get("version") or "")
        item = _fetch(dep, version, root, credentials, cache, plain_http, repositories or {})
        built.append(item)
        # the lock names the repository by URL, also for `@name` (as helm writes it)
        resolved_lock.append({"name": dep["name"], "version": item.version,
                              "repository": named_repository(str(dep["repository"]), repositories or {})})
    if locked is None and req:
        stamp = now() if now else datetime.datetime.now(datetime.UTC).isoformat().replace("+00:00", "Z")
        lock_doc = {"dependencies": resolved_lock, "digest": hash_req(req, resolved_lock), "generated": stamp}
        _atomic_write(lock_path, yaml.safe_dump(lock_doc, sort_keys=False).encode("utf-8"))
    return built


def _fetch(dep: dict[str, Any], version: str, root: Path, credentials: Callable[[str], Credentials],
           cache: cache_mod.Cache, plain_http: bool, repositories: Mapping[str, str]) -> Built:
    ref = _ref(dep, version, root, plain_http, repositories)
    repository = str(dep["repository"])
    if isinstance(ref, Path):
        filename, data = package_mod.package(ref)
        chart_version = filename[len(str(dep["name"])) + 1:-len(".tgz")]
    else:
        resolved = resolve(ref, credentials(repository), cache)
        data, chart_version = resolved.data, resolved.version
        filename = f"{dep['name']}-{chart_version}.tgz"
    target = root / "charts" / filename
    if not target.is_file() or target.read_bytes() != data:
        _atomic_write(target, data)
    return Built(str(dep["name"]), chart_version, repository, target)


def _atomic_write(path: Path, data: bytes) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)
