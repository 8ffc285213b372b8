"""Helm's own client configuration, read and written as stock helm does, so that the two CLIs
share repositories and registry logins.

- ``repositories.yaml`` (``HELM_REPOSITORY_CONFIG``): ``apiVersion``, ``generated`` and
  ``repositories`` (name, url, username, password, certFile, keyFile, caFile,
  insecure_skip_tls_verify, pass_credentials_all), written with mode 0600 under a lock file
  next to it (``repositories.lock``), keys sorted as helm's YAML marshaller writes them.
- The repository cache (``HELM_REPOSITORY_CACHE``): ``<name>-index.yaml`` (the index bytes as
  served) and ``<name>-charts.txt`` (its chart names, one a line).
- The registry config (``HELM_REGISTRY_CONFIG``): Docker's ``config.json`` (``auths`` ->
  host -> ``auth`` = base64 ``user:password``).

Chart references (helm's ``LocateChart``): ``oci://...``; an existing path; ``./x`` or ``/x``
that does not exist is an error; with ``--repo URL`` a chart name in that repository; else
``repo/chart`` through ``repositories.yaml`` and the cached index (no network for the index,
as helm: ``helm repo update`` refreshes it).
"""
from __future__ import annotations

import base64
import contextlib
import datetime
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from helm_core.errors import ChartNotFoundError, HelmError, NoMatchingVersionError, SourceError
from helm_core.sources import auth
from helm_core.sources import repo as repo_mod
from helm_core.sources.cache import Cache
from helm_core.support.records import record

ENTRY_FIELDS = ("name", "url", "username", "password", "certFile", "keyFile", "caFile",
                "insecure_skip_tls_verify", "pass_credentials_all")
_BOOL_FIELDS = ("insecure_skip_tls_verify", "pass_credentials_all")


@record(frozen=True)
class RepoEntry:
    """One repository of ``repositories.yaml``."""

    name: str
    url: str
    username: str = ""
    password: str = ""
    cert_file: str = ""
    key_file: str = ""
    ca_file: str = ""
    insecure_skip_tls_verify: bool = False
    pass_credentials_all: bool = False

    def to_yaml(self) -> dict[str, Any]:
        return {"name": self.name, "url": self.url, "username": self.username,
                "password": self.password, "certFile": self.cert_file, "keyFile": self.key_file,
                "caFile": self.ca_file, "insecure_skip_tls_verify": self.insecure_skip_tls_verify,
                "pass_credentials_all": self.pass_credentials_all}

    @classmethod
    def from_yaml(cls, item: dict[str, Any]) -> RepoEntry:
        return cls(name=str(item.get("name") or ""), url=str(item.get("url") or ""),
                   username=str(item.get("username") or ""), password=str(item.get("password") or ""),
                   cert_file=str(item.get("certFile") or ""), key_file=str(item.get("keyFile") or ""),
                   ca_file=str(item.get("caFile") or ""),
                   insecure_skip_tls_verify=bool(item.get("insecure_skip_tls_verify")),
                   pass_credentials_all=bool(item.get("pass_credentials_all")))

    def credentials(self) -> auth.Credentials:
        return auth.Credentials(username=self.username, password=self.password,
                                ca_pem=_read(self.ca_file), cert_pem=_read(self.cert_file),
                                key_pem=_read(self.key_file),
                                insecure_skip_verify=self.insecure_skip_tls_verify,
                                pass_credentials=self.pass_credentials_all)


def _read(path: str) -> bytes:
    if not path:
        return b""
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise SourceError(f"open {path}: {(exc.strerror or str(exc)).lower()}") from None


# --------------------------------------------------------------------------- repositories.yaml

def load_repositories(path: str | os.PathLike[str]) -> list[RepoEntry]:
    """The repositories of ``path``; a missing file has none (as helm)."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise HelmError(f"open {path}: {(exc.strerror or str(exc)).lower()}") from None
    try:
        doc = yaml.safe_load(data) or {}
    except yaml.YAMLError as exc:
        raise HelmError(f"{path}: not valid YAML: {exc}") from None
    if not isinstance(doc, dict):
        raise HelmError(f"{path}: not a repository file")
    return [RepoEntry.from_yaml(item) for item in doc.get("repositories") or [] if isinstance(item, dict)]


def write_repositories(path: str | os.PathLike[str], entries: list[RepoEntry]) -> None:
    """Write the file as helm does (mode 0600, written whole then renamed into place)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    generated = datetime.datetime.now(datetime.UTC).isoformat(timespec="microseconds")
    doc = {"apiVersion": "", "generated": generated.replace("+00:00", "Z"),
           "repositories": [e.to_yaml() for e in entries]}
    text = yaml.safe_dump(doc, sort_keys=True, default_flow_style=False)
    temporary = target.with_name(f".{target.name}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(temporary, target)


@contextlib.contextmanager
def locked(path: str | os.PathLike[str]) -> Iterator[None]:
    """Helm's lock next to the repository file (``repositories.lock``), an advisory flock."""
    import fcntl

    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    lock_path = target.with_suffix(".lock") if target.suffix else Path(f"{target}.lock")
    with open(lock_path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def find_repository(entries: list[RepoEntry], name: str) -> RepoEntry:
    for entry in entries:
        if entry.name == name:
            if not entry.url:
                raise SourceError(f"no URL found for repository {name}")
            return entry
    raise SourceError(f"repo {name} not found")


# --------------------------------------------------------------------------- repository cache

def index_file(cache_dir: str | os.PathLike[str], name: str) -> Path:
    return Path(cache_dir) / f"{name}-index.yaml"


def charts_file(cache_dir: str | os.PathLike[str], name: str) -> Path:
    return Path(cache_dir) / f"{name}-charts.txt"


def download_index(entry: RepoEntry, cache_dir: str | os.PathLike[str], cache: Cache, *,
                   timeout: float = auth.DEFAULT_TIMEOUT_S) -> Path:
    """Fetch ``entry``'s index and keep it in helm's repository cache (``repo add/update``)."""
    try:
        with repo_mod.Repository(entry.url, credentials=entry.credentials(), cache=cache,
                                 timeout=timeout) as r:
            index, data = r.index_with_bytes()
    except SourceError as exc:
        status = getattr(exc, "http_status", "")
        if status:  # helm's getter words for a refused download
            raise SourceError(f"failed to fetch {repo_mod.index_url(entry.url)} : {status}") from None
        transport = getattr(exc, "transport", "")
        if transport:  # and for a server that did not answer
            raise SourceError(transport) from None
        raise
    _check_api_version(data, entry.url)
    folder = Path(cache_dir)
    folder.mkdir(parents=True, exist_ok=True)
    _atomic_write(index_file(folder, entry.name), data)
    _atomic_write(charts_file(folder, entry.name),
                  "".join(f"{name}\n" for name in index.entries).encode())
    return index_file(folder, entry.name)


def _check_api_version(data: bytes, url: str) -> None:
    """Helm refuses an index without ``apiVersion`` (``no API version specified``)."""
    try:
        doc = json.loads(data) if data.lstrip()[:1] == b"{" else repo_mod.load_yaml_strings(data)
    except (ValueError, yaml.YAMLError) as exc:
        raise SourceError(f"{url}: index.yaml is not valid YAML or JSON: {exc}") from None
    if not isinstance(doc, dict) or not doc.get("apiVersion"):
        raise SourceError("no API version specified")


def _atomic_write(path: Path, data: bytes) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def cached_index(entry: RepoEntry, cache_dir: str | os.PathLike[str], cache: Cache) -> repo_mod.Index:
    """The index helm's cache holds for ``entry`` (parsed once per content through ``cache``)."""
    path = index_file(cache_dir, entry.name)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SourceError(f"no cached repo found. (try 'helm repo update'): open {path}: "
                          f"{(exc.strerror or str(exc)).lower()}") from None
    with repo_mod.Repository(entry.url, cache=cache) as r:
        return r.index_from(data)


def get_version(index: repo_mod.Index, name: str, version: str, *, devel: bool = False) -> repo_mod.IndexEntry:
    """Helm's ``IndexFile.Get`` with helm's messages (``no chart name found``, ``no chart
    version found for NAME-VERSION``)."""
    try:
        return repo_mod.select(index, name, version, devel=devel)
    except ChartNotFoundError:
        raise ChartNotFoundError("no chart name found") from None
    except NoMatchingVersionError:
        raise NoMatchingVersionError(f"no chart version found for {name}-{version}") from None


# --------------------------------------------------------------------------- registry config

def load_registry_auths(path: str | os.PathLike[str]) -> dict[str, Any]:
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise HelmError(f"open {path}: {(exc.strerror or str(exc)).lower()}") from None
    try:
        doc = json.loads(data or b"{}")
    except ValueError as exc:
        raise HelmError(f"{path}: not valid JSON: {exc}") from None
    return doc if isinstance(doc, dict) else {}


def registry_credentials(path: str | os.PathLike[str], host: str) -> dict[str, str]:
    """``username``/``password`` the registry config holds for ``host`` (empty when none)."""
    doc = load_registry_auths(path)
    if not doc:
        return {}
    return auth._docker_config_auth(json.dumps(doc).encode(), host)


def registry_login(path: str | os.PathLike[str], host: str, username: str, password: str) -> None:
    """Keep ``host``'s credentials in the registry config (Docker's format, mode 0600)."""
    doc = load_registry_auths(path)
    auths = doc.setdefault("auths", {})
    token = base64.b64encode(f"{username}:{password}".encode()).decode()
    auths[host] = {"auth": token}
    _write_json(Path(path), doc)


def registry_logout(path: str | os.PathLike[str], host: str) -> None:
    doc = load_registry_auths(path)
    auths = doc.get("auths") or {}
    if host not in auths:
        raise HelmError(f"not logged in to {host}")
    del auths[host]
    _write_json(Path(path), doc)


def _write_json(path: Path, doc: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent="\t")
    os.replace(temporary, path)
