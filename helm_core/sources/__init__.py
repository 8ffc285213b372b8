"""Chart sources: where a chart comes from, fetched, verified and cached the same way for the
CLI and the controller.

    resolve(ChartRef, Credentials, Cache) -> ResolvedChart

Kinds (``ChartRef.kind``):
- ``repo``: an HTTP(S) chart repository URL, a chart name and a version or semver range
  (:mod:`helm_core.sources.repo`);
- ``oci``: an ``oci://host/path/chart`` reference with a tag, a range or ``@sha256:`` digest
  (:mod:`helm_core.sources.oci`);
- ``packaged``: chart bytes the caller read from a ConfigMap/Secret
  (:mod:`helm_core.sources.packaged`).

Errors are the :class:`~helm_core.errors.SourceError` family: ``RegistryUnavailableError`` and
``AuthError`` are worth retrying (the controller reports ``Reconciling``);
``DigestMismatchError`` and a refused archive are permanent (``Stalled``).
"""
from __future__ import annotations

import httpx

from helm_core.errors import DigestMismatchError, SourceError
from helm_core.sources import auth, oci, packaged, repo
from helm_core.sources.auth import Credentials
from helm_core.sources.cache import Cache
from helm_core.support.records import field, record

__all__ = ["ChartRef", "Credentials", "Cache", "ResolvedChart", "resolve", "KINDS"]

KINDS = ("repo", "oci", "packaged")


@record(frozen=True)
class ChartRef:
    """What the user asked for; which fields matter depends on ``kind``."""

    kind: str
    url: str = ""
    """Repository URL (``repo``) or ``oci://`` reference (``oci``)."""
    name: str = ""
    """Chart name in the repository index (``repo`` only)."""
    version: str = ""
    """Exact version or semver constraint; empty means the newest stable version."""
    devel: bool = False
    """Let an empty version or a range match pre-releases (``helm --devel``)."""
    plain_http: bool = False
    """OCI over plain HTTP; never a silent fallback."""
    data: bytes = field(default=b"", repr=False)
    """The archive bytes (``packaged``)."""
    description: str = ""
    """Where packaged bytes came from (``configmap/ns/name[key]``), for messages."""
    digest: str = ""
    """Optional ``sha256:`` pin of the chart archive, checked for every kind."""
    index_digest: str = ""
    """``repo`` only: resolve in the cached index with this digest instead of fetching the
    index (a shared repository's reconciler fetched it; many requests read it)."""


@record(frozen=True)
class ResolvedChart:
    """A verified chart archive and where it came from."""

    data: bytes = field(repr=False)
    digest: str
    """``sha256:`` of the archive bytes."""
    name: str
    version: str
    source: str
    """Human description: URL of the package, OCI reference with tag/digest, or object."""
    manifest_digest: str = ""
    """OCI only: the manifest's digest (what ``helm pull`` prints as ``Digest:``)."""


def resolve(ref: ChartRef, credentials: Credentials, cache: Cache, *,
            transport: httpx.BaseTransport | None = None,
            timeout: float = auth.DEFAULT_TIMEOUT_S) -> ResolvedChart:
    """Fetch (or find in the cache) and verify the chart ``ref`` names.

    ``timeout`` bounds each HTTP request (seconds); ``transport`` is httpx's seam.
    """
    if ref.kind == "repo":
        with repo.Repository(ref.url, credentials=credentials, cache=cache, transport=transport,
                             timeout=timeout) as r:
            fetched = r.fetch(ref.name, ref.version, devel=ref.devel, index_digest=ref.index_digest)
        resolved = ResolvedChart(fetched.data, fetched.digest, fetched.entry.name,
                                 fetched.entry.version, fetched.url)
    elif ref.kind == "oci":
        reference = oci.Reference.parse(ref.url)
        with oci.Registry(reference.registry, credentials=credentials, cache=cache,
                          plain_http=ref.plain_http, transport=transport, timeout=timeout) as registry:
            pulled = registry.pull(reference, ref.version, devel=ref.devel)
        resolved = ResolvedChart(pulled.data, pulled.digest, reference.name, pulled.version,
                                 str(pulled.reference), pulled.manifest_digest)
    elif ref.kind == "packaged":
        loaded = packaged.load(ref.data, source=ref.description or "<packaged chart>")
        cache.put(ref.data)
        resolved = ResolvedChart(loaded.data, loaded.digest, loaded.name, loaded.version,
                                 ref.description or "<packaged chart>")
    else:
        raise SourceError(f"unknown chart source kind {ref.kind!r} (want one of {', '.join(KINDS)})")
    # An OCI pin may name the manifest (what `helm push` prints) or the archive itself.
    if ref.digest and ref.digest not in (resolved.digest, resolved.manifest_digest):
        shown = resolved.digest + (f" (manifest {resolved.manifest_digest})"
                                   if resolved.manifest_digest else "")
        raise DigestMismatchError(f"{resolved.source}: digest mismatch: got {shown}, "
                                  f"pinned {ref.digest}")
    return resolved

