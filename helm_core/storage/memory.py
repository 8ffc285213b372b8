"""An in-memory ``Driver`` for unit tests of actions and history logic.

Why it stores encoded Secrets: every version goes through ``secrets.encode``/``decode``, so size
limits, compression and round-trip losses show up in unit tests exactly as on a cluster.
Thread-safe (one lock); nothing survives the process.
"""
from __future__ import annotations

import threading
from typing import Any

import ulid

from helm_core.storage import release as rel
from helm_core.storage import secrets


class MemoryDriver:
    """``Driver`` keeping Secrets in a dict keyed by (namespace, secret name)."""

    def __init__(self) -> None:
        self._secrets: dict[tuple[str, str], dict[str, Any]] = {}
        self._claims: dict[tuple[str, str], str] = {}
        self._lock = threading.Lock()

    def _key(self, namespace: str, name: str, version: ulid.ULID) -> tuple[str, str]:
        return namespace, secrets.secret_name(name, version)

    def create(self, version: rel.ReleaseVersion) -> None:
        secret = secrets.encode(version)
        key = self._key(version.namespace, version.name, version.version)
        with self._lock:
            if key in self._secrets:
                raise secrets.exists_error(version)
            self._secrets[key] = secret

    def update(self, version: rel.ReleaseVersion) -> None:
        secret = secrets.encode(version)
        key = self._key(version.namespace, version.name, version.version)
        with self._lock:
            if key not in self._secrets:
                raise secrets.missing_version(version.namespace, version.name, version.version)
            self._secrets[key] = secret

    def get(self, namespace: str, name: str, version: ulid.ULID) -> rel.ReleaseVersion:
        with self._lock:
            secret = self._secrets.get(self._key(namespace, name, version))
        if secret is None:
            raise secrets.missing_version(namespace, name, version)
        return secrets.decode(secret)

    def history(self, namespace: str, name: str) -> list[rel.ReleaseVersion]:
        with self._lock:
            stored = [s for (ns, _), s in self._secrets.items()
                      if ns == namespace and s["metadata"]["labels"][secrets.RELEASE_LABEL] == name]
        return rel.sort_history(secrets.decode(s) for s in stored)

    def delete(self, namespace: str, name: str, version: ulid.ULID) -> rel.ReleaseVersion:
        with self._lock:
            secret = self._secrets.pop(self._key(namespace, name, version), None)
        if secret is None:
            raise secrets.missing_version(namespace, name, version)
        return secrets.decode(secret)

    def list_latest(self, namespace: str = "") -> list[rel.ReleaseVersion]:
        return secrets.latest_of_each(self.list_all(namespace))

    def list_all(self, namespace: str = "") -> list[rel.ReleaseVersion]:
        with self._lock:
            stored = [s for (ns, _), s in self._secrets.items() if not namespace or ns == namespace]
        return [secrets.decode(s) for s in stored]

    def check(self, version: rel.ReleaseVersion) -> None:
        secrets.encode(version)

    def claim(self, namespace: str, name: str, *, annotation: str, claimant: str,
              new: bool = False) -> str:
        with self._lock:
            current = self._claims.setdefault((namespace, name), claimant)
        return "" if current == claimant else current

    def claimant(self, namespace: str, name: str, *, annotation: str) -> str | None:
        with self._lock:
            if (namespace, name) in self._claims:
                return self._claims[(namespace, name)]
        return "" if self.history(namespace, name) else None

    def owner_reference(self, namespace: str, name: str) -> dict[str, object] | None:
        return None  # no Release object: objects carry labels and annotations only
