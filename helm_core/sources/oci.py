"""OCI registries: Helm charts as OCI artifacts, pulled and pushed over the distribution API.

Why our own client: the Python OCI clients on PyPI (oras-py) sit on ``requests`` and hide the
transport, and we need httpx's transport seam, one TLS/credential model shared with HTTP
repositories, and the cache. The protocol subset Helm uses is small:

- Reference ``oci://host[:port]/path/name[:tag][@sha256:<hex>]``; the tag is the chart version
  with ``+`` written ``_`` (OCI tags cannot hold ``+``). A version that is not an exact tag is a
  semver constraint over the tag list (Helm's ``GetTagMatchingVersionOrConstraint``: exact tag
  first, then the newest match; pre-releases only when asked).
- Manifest ``application/vnd.oci.image.manifest.v1+json`` with config media type
  ``CONFIG_MEDIA_TYPE`` and one layer ``CHART_LAYER_MEDIA_TYPE`` (or the legacy
  ``application/tar+gzip``). A digest-pinned reference is verified against the manifest bytes;
  the layer is verified against its descriptor digest. Layers are content addressed, so a chart
  already in the cache is never downloaded again.
- Auth: a 401 with ``WWW-Authenticate: Bearer realm=..,service=..,scope=..`` runs the token flow
  (GET realm with basic credentials when we have them, tokens cached per scope); a ``Basic``
  challenge is answered with the credentials. A static bearer token is sent as is.
- HTTPS always, unless ``plain_http`` is asked for explicitly.
"""
from __future__ import annotations

import json
import re
from collections.abc import Generator
from typing import Any, NoReturn

import httpx

from helm_core.chart import loader
from helm_core.errors import (
    AuthError,
    ChartNotFoundError,
    DigestMismatchError,
    NoMatchingVersionError,
    RegistryUnavailableError,
    SourceError,
)
from helm_core.golib import versions
from helm_core.sources import auth, repo
from helm_core.sources import cache as cache_mod
from helm_core.support.records import record

SCHEME = "oci://"
CONFIG_MEDIA_TYPE = "application/vnd.cncf.helm.config.v1+json"
CHART_LAYER_MEDIA_TYPE = "application/vnd.cncf.helm.chart.content.v1.tar+gzip"
PROV_LAYER_MEDIA_TYPE = "application/vnd.cncf.helm.chart.provenance.v1.prov"
LEGACY_CHART_LAYER_MEDIA_TYPE = "application/tar+gzip"
MANIFEST_MEDIA_TYPE = "application/vnd.oci.image.manifest.v1+json"
MAX_MANIFEST_BYTES = 4 * 1024 * 1024
"""Largest manifest accepted (bytes), the distribution registry's own limit."""
MAX_CONFIG_BYTES = 1024 * 1024
MAX_TAG_PAGES = 100
"""Pages of ``tags/list`` followed before giving up (guards against a Link loop)."""
_DIGEST_RE = re.compile(r"sha256:[0-9a-f]{64}")
_REPO_PATH_RE = re.compile(r"/v2/(.+?)/(?:manifests|blobs|tags)/")
_CHALLENGE_RE = re.compile(r'(\w+)="([^"]*)"')


@record(frozen=True)
class Reference:
    """A parsed ``oci://`` reference."""

    registry: str
    """host[:port]"""
    repository: str
    """path/name inside the registry"""
    tag: str = ""
    digest: str = ""

    @classmethod
    def parse(cls, text: str) -> Reference:
        if not text.startswith(SCHEME):
            raise SourceError(f"{text}: not an OCI reference (must start with {SCHEME})")
        rest = text[len(SCHEME):]
        digest = ""
        if "@" in rest:
            rest, digest = rest.split("@", 1)
            if not _DIGEST_RE.fullmatch(digest):
                raise SourceError(f"{text}: invalid digest {digest!r} (want sha256:<64 hex>)")
        registry, _, path = rest.partition("/")
        tag = ""
        last = path.rsplit("/", 1)[-1]
        if ":" in last:
            path, tag = path.rsplit(":", 1)
        if not registry or not path or path.endswith("/") or "//" in path:
            raise SourceError(f"{text}: invalid OCI reference (want oci://host/path/chart)")
        return cls(registry=registry, repository=path, tag=tag, digest=digest)

    @property
    def name(self) -> str:
        """The chart name: the last path segment."""
        return self.repository.rsplit("/", 1)[-1]

    def __str__(self) -> str:
        text = f"{SCHEME}{self.registry}/{self.repository}"
        if self.tag:
            text += f":{self.tag}"
        if self.digest:
            text += f"@{self.digest}"
        return text


def version_to_tag(version: str) -> str:
    return version.replace("+", "_")


def tag_to_version(tag: str) -> str:
    return tag.replace("_", "+")


def select_tag(tags: list[str], version: str, *, devel: bool = False, where: str) -> str:
    """Helm's rule: exact tag first, then the newest tag satisfying the constraint."""
    wanted = version_to_tag(version)
    if version and wanted in tags:
        return wanted
    text = version or (repo.DEVEL_CONSTRAINT if devel else "*")
    try:
        constraint = versions.Constraints.parse(text, include_prerelease=devel)
    except versions.VersionError as exc:
        raise SourceError(f"{where}: invalid version {version!r}: {exc}") from None
    candidates = []
    for tag in tags:
        try:
            candidates.append((versions.Version.parse(tag_to_version(tag)), tag))
        except versions.VersionError:
            continue
    candidates.sort(key=lambda pair: pair[0], reverse=True)
    for parsed, tag in candidates:
        if constraint.check(parsed):
            return tag
    raise NoMatchingVersionError(f"{where}: no tag matching version {version or '*'!r}")


@record(frozen=True)
class Pulled:
    data: bytes
    digest: str
    """The chart layer's digest (``sha256:``)."""
    manifest_digest: str
    version: str
    reference: Reference


class TokenAuth(httpx.Auth):
    """The registry auth flow: static token, Basic challenge or Bearer token service."""

    requires_response_body = True

    def __init__(self, credentials: auth.Credentials, origin: str, client_factory: Any) -> None:
        self._credentials = credentials
        self._origin = httpx.URL(origin)
        self._tokens: dict[str, str] = {}
        self._client_factory = client_factory

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        if self._credentials.token:
            request.headers["Authorization"] = f"Bearer {self._credentials.token}"
            yield request
            return
        match = _REPO_PATH_RE.match(request.url.path)
        scope_key = match.group(1) if match else request.url.path
        cached = self._tokens.get(scope_key)
        if cached:
            request.headers["Authorization"] = cached
        response = yield request
        if response.status_code != 401:
            return
        challenge = response.headers.get("WWW-Authenticate", "")
        scheme, _, params = challenge.partition(" ")
        if scheme.lower() == "basic":
            header = auth.authorization_header(self._credentials)
            if not header:
                return
        elif scheme.lower() == "bearer":
            header = self._token(dict(_CHALLENGE_RE.findall(params)))
        else:
            return
        self._tokens[scope_key] = header
        request.headers["Authorization"] = header
        yield request

    def _token(self, challenge: dict[str, str]) -> str:
        realm = challenge.get("realm", "")
        if not realm:
            raise AuthError(f"{self._origin}: Bearer challenge without a realm")
        params = {k: v for k, v in challenge.items() if k in ("service", "scope")}
        headers = {}
        basic = auth.authorization_header(auth.Credentials(
            username=self._credentials.username, password=self._credentials.password))
        if basic:
            headers["Authorization"] = basic
        client: httpx.Client = self._client_factory()
        try:
            response = client.get(realm, params=params, headers=headers)
        except httpx.TransportError as exc:
            raise RegistryUnavailableError(f"{self._origin}: token service {realm} unreachable: {exc}") from None
        if response.status_code in (401, 403):
            raise AuthError(f"{self._origin}: token service {realm} refused the credentials "
                            f"({response.status_code})")
        if response.status_code != 200:
            raise RegistryUnavailableError(f"{self._origin}: token service {realm} answered "
                                           f"{response.status_code}")
        body = response.json()
        token = body.get("token") or body.get("access_token")
        if not token:
            raise AuthError(f"{self._origin}: token service {realm} returned no token")
        return f"Bearer {token}"


class Registry:
    """A client for one registry host (pull, push, tags), sharing the chart cache."""

    def __init__(self, registry: str, *, credentials: auth.Credentials = auth.NO_CREDENTIALS,
                 cache: cache_mod.Cache, plain_http: bool = False,
                 transport: httpx.BaseTransport | None = None,
                 timeout: float = auth.DEFAULT_TIMEOUT_S) -> None:
        self.registry = registry
        self.base = f"{'http' if plain_http else 'https'}://{registry}"
        self.cache = cache
        self._client = auth.client(credentials, transport=transport, timeout=timeout)
        self._auth = TokenAuth(credentials, self.base, lambda: self._client)

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> Registry:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # requests ------------------------------------------------------------------------------
    def _request(self, method: str, path: str, *, where: str, ok: tuple[int, ...] = (200,),
                 **kwargs: Any) -> httpx.Response:
        url = path if path.startswith(("http://", "https://")) else f"{self.base}{path}"
        try:
            response = self._client.request(method, url, auth=self._auth, **kwargs)
        except httpx.TransportError as exc:
            raise RegistryUnavailableError(f"{where}: cannot reach registry {self.registry}: {exc}") from None
        if response.status_code in ok:
            return response
        self._raise_for(response, where)

    def _raise_for(self, response: httpx.Response, where: str) -> NoReturn:
        status = response.status_code
        if status in (401, 403):
            raise AuthError(f"{where}: registry {self.registry} refused the request "
                            f"({status}: missing or wrong credentials)")
        if status == 404:
            raise ChartNotFoundError(f"{where}: not found in registry {self.registry}")
        if status == 429 or status >= 500:
            raise RegistryUnavailableError(f"{where}: registry {self.registry} answered {status}")
        raise SourceError(f"{where}: registry {self.registry} answered {status}: {response.text[:200]}")

    def _get_bounded(self, path: str, *, where: str, limit: int,
                     headers: dict[str, str] | None = None) -> bytes:
        """GET a manifest or blob, refusing bodies over ``limit`` bytes (hostile registries)."""
        try:
            with self._client.stream("GET", f"{self.base}{path}", auth=self._auth,
                                     headers=headers or {}) as response:
                if response.status_code != 200:
                    response.read()
                    self._raise_for(response, where)
                return repo.read_bounded(response, limit=limit, what=f"{where} ({path})",
                                         repo=f"{where}: registry {self.registry}")
        except httpx.TransportError as exc:
            raise RegistryUnavailableError(f"{where}: cannot reach registry {self.registry}: {exc}") from None

    def ping(self) -> None:
        """Check that the registry takes our credentials (``GET /v2/``, as ``docker login``)."""
        self._request("GET", "/v2/", where=self.registry)

    # reading -------------------------------------------------------------------------------
    def tags(self, ref: Reference) -> list[str]:
        """Every tag of the repository, following ``Link`` pagination."""
        path: str | None = f"/v2/{ref.repository}/tags/list"
        found: list[str] = []
        for _ in range(MAX_TAG_PAGES):
            if path is None:
                break
            response = self._request("GET", path, where=str(ref))
            found.extend(response.json().get("tags") or [])
            link = response.links.get("next", {}).get("url")
            path = link if link else None
        return found

    def resolve_tag(self, ref: Reference, version: str = "", *, devel: bool = False) -> str:
        """The tag to pull: the reference's own, an exact version as is, else a tag-list match."""
        if ref.tag and not version:
            return ref.tag
        if version:
            try:
                versions.Version.parse_strict(version)
                return version_to_tag(version)  # exact X.Y.Z: no need to list tags
            except versions.VersionError:
                pass
        return select_tag(self.tags(ref), version or ref.tag, devel=devel, where=str(ref))

    def pull(self, ref: Reference, version: str = "", *, devel: bool = False) -> Pulled:
        """Resolve the reference (digest, tag or range) and return the checked chart."""
        target = ref.digest or self.resolve_tag(ref, version, devel=devel)
        body = self._get_bounded(f"/v2/{ref.repository}/manifests/{target}", where=str(ref),
                                 limit=MAX_MANIFEST_BYTES, headers={"Accept": MANIFEST_MEDIA_TYPE})
        manifest_digest = "sha256:" + cache_mod.sha256_hex(body)
        if ref.digest and manifest_digest != ref.digest:
            raise DigestMismatchError(f"{ref}: digest mismatch: manifest digest {manifest_digest} "
                                      "does not match the reference")
        layer = _chart_layer(json.loads(body), where=str(ref))
        data = self._blob(ref, layer["digest"], int(layer.get("size", 0)))
        pulled_ref = Reference(ref.registry, ref.repository, "" if ref.digest else target, ref.digest)
        chart = loader.load_archive(data, source=str(pulled_ref))
        return Pulled(data=data, digest=layer["digest"], manifest_digest=manifest_digest,
                      version=chart.metadata.version, reference=pulled_ref)

    def _blob(self, ref: Reference, digest: str, size: int) -> bytes:
        if not _DIGEST_RE.fullmatch(digest):
            raise SourceError(f"{ref}: layer digest {digest!r} is not sha256")
        cached = self.cache.get(digest)
        if cached is not None:
            return cached
        if size > repo.MAX_CHART_BYTES:
            raise SourceError(f"{ref}: chart layer of {size} bytes exceeds {repo.MAX_CHART_BYTES}")
        with self.cache.lock(f"oci-blob:{digest}"):
            cached = self.cache.get(digest)  # another process may have fetched it while we waited
            if cached is not None:
                return cached
            data = self._get_bounded(f"/v2/{ref.repository}/blobs/{digest}", where=str(ref),
                                     limit=repo.MAX_CHART_BYTES)
            actual = "sha256:" + cache_mod.sha256_hex(data)
            if actual != digest:
                raise DigestMismatchError(f"{ref}: digest mismatch: chart layer digest {actual} "
                                          f"does not match the manifest's {digest}")
            repo.check_archive(data, source=str(ref))
            self.cache.put(data)  # still under the lock: waiters find it in the cache
        return data

    # writing -------------------------------------------------------------------------------
    def push(self, ref: Reference, chart_data: bytes, config: dict[str, Any], *,
             annotations: dict[str, str]) -> str:
        """Upload the chart and its config, tag the manifest; return the manifest digest."""
        config_bytes = json.dumps(config, separators=(",", ":")).encode("utf-8")
        layer = self._upload(ref, chart_data, CHART_LAYER_MEDIA_TYPE)
        config_desc = self._upload(ref, config_bytes, CONFIG_MEDIA_TYPE)
        manifest = {
            "schemaVersion": 2,
            "mediaType": MANIFEST_MEDIA_TYPE,
            "config": config_desc,
            "layers": [layer],
            "annotations": annotations,
        }
        body = json.dumps(manifest, separators=(",", ":")).encode("utf-8")
        self._request("PUT", f"/v2/{ref.repository}/manifests/{ref.tag}", where=str(ref), ok=(201,),
                      content=body, headers={"Content-Type": MANIFEST_MEDIA_TYPE})
        return "sha256:" + cache_mod.sha256_hex(body)

    def _upload(self, ref: Reference, data: bytes, media_type: str) -> dict[str, Any]:
        digest = "sha256:" + cache_mod.sha256_hex(data)
        descriptor = {"mediaType": media_type, "digest": digest, "size": len(data)}
        head = self._request("HEAD", f"/v2/{ref.repository}/blobs/{digest}", where=str(ref), ok=(200, 404))
        if head.status_code == 200:
            return descriptor
        started = self._request("POST", f"/v2/{ref.repository}/blobs/uploads/", where=str(ref), ok=(202,))
        location = str(httpx.URL(self.base + "/").join(started.headers["Location"]))
        separator = "&" if "?" in location else "?"
        self._request("PUT", f"{location}{separator}digest={digest}", where=str(ref), ok=(201,),
                      content=data, headers={"Content-Type": "application/octet-stream"})
        return descriptor


def _chart_layer(manifest: Any, *, where: str) -> dict[str, Any]:
    if not isinstance(manifest, dict):
        raise SourceError(f"{where}: manifest is not a JSON object")
    config = manifest.get("config") or {}
    if config.get("mediaType") != CONFIG_MEDIA_TYPE:
        raise SourceError(f"{where}: not a Helm chart (config media type "
                          f"{config.get('mediaType')!r}, want {CONFIG_MEDIA_TYPE})")
    layers = [layer for layer in manifest.get("layers") or ()
              if isinstance(layer, dict) and layer.get("mediaType") in
              (CHART_LAYER_MEDIA_TYPE, LEGACY_CHART_LAYER_MEDIA_TYPE)]
    if len(layers) != 1:
        raise SourceError(f"{where}: manifest must have exactly one chart layer, found {len(layers)}")
    return layers[0]
