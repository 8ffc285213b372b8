"""The metadata of the version Secrets a driver wrote, so that it writes them again without reading.

Why: an operation writes its version's Secret several times (pending, each hook's run, the
result). Each write after the first is a replace guarded by the resourceVersion this driver's
last write returned, instead of a read and a replace; a conflict (someone wrote the Secret
meanwhile) reads it and replaces over what was read. Both Secret drivers (``secrets``, helm-core's
format, and ``helmsecrets``, Helm's) keep their Secrets' metadata here.
"""
from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from typing import Any

from helm_core.errors import ConflictError
from helm_core.kube import client as kclient

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeAlias

    SecretOver: TypeAlias = Callable[[Mapping[str, Any]], dict[str, Any]]
    """The Secret to write over the given metadata of the stored one (its resourceVersion is set
    by :meth:`WrittenSecrets.replace`)."""


class WrittenSecrets:
    """The metadata of each Secret as it was last written through this object, by (namespace,
    name). Not thread-safe: a driver serves one operation of a release at a time (the release
    lock)."""

    def __init__(self, client: kclient.ClusterClient) -> None:
        self._client = client
        self._metadata: dict[tuple[str, str], dict[str, Any]] = {}

    def created(self, secret: Mapping[str, Any]) -> None:
        """Remember a Secret as the API server returned it from its creation."""
        meta = secret["metadata"]
        self._metadata[(meta["namespace"], meta["name"])] = meta

    def known(self, namespace: str, name: str) -> Mapping[str, Any] | None:
        """The Secret's metadata as last written here (None: not written here)."""
        return self._metadata.get((namespace, name))

    def forget(self, namespace: str, name: str) -> None:
        """Drop a deleted Secret."""
        self._metadata.pop((namespace, name), None)

    def write(self, secret: dict[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
        """Replace ``secret`` guarded by ``over``'s resourceVersion (``ConflictError`` when it
        changed since), and remember what was written."""
        secret["metadata"]["resourceVersion"] = over.get("resourceVersion")
        written = self._client.replace(secret)
        self.created(written)
        return written

    def replace(self, ref: kclient.ObjectRef, secret_over: SecretOver) -> dict[str, Any]:
        """Replace the Secret ``ref`` with ``secret_over(metadata)``: over the metadata last
        written here, else (not written here, or written by someone else since) over the
        stored Secret's, read first. ``NotFoundError`` when it is gone."""
        known = self._metadata.pop((ref.namespace, ref.name), None)
        if known is not None:
            with contextlib.suppress(ConflictError):  # written by someone else since: read it
                return self.write(secret_over(known), known)
        stored = self._client.get(ref).get("metadata") or {}
        return self.write(secret_over(stored), stored)
