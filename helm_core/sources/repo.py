"""HTTP(S) chart repositories: ``index.yaml``, version resolution, download and digest check.

Rules (Helm's ``pkg/repo`` and ``pkg/downloader``):
- The index is ``<url>/index.yaml`` (YAML or JSON). It is streamed to the cache (bounded by
  ``MAX_INDEX_BYTES``) and revalidated with ``If-None-Match``/``If-Modified-Since``: a 304
  reuses the cached copy. Its compact parse (name -> versions, urls, digest) is cached by the
  index's digest, so a warm resolution never parses the YAML again.
- Versions of a chart are sorted newest first (semver; unparsable ones last). A requested
  version equal to an entry's version string wins; otherwise it is a Masterminds constraint
  (``^1.2``, ``~1.2.3``, ``>=1.0 <2.0``, ``1.x``) and the newest match wins. Pre-releases
  match only when the constraint names one or ``devel`` is set (empty version + devel is
  ``>0.0.0-0``, as ``helm --devel``).
- Chart URLs may be relative to the repository URL. The package's SHA-256 must equal the
  index ``digest`` when one is published; the archive must load through the safe loader before
  it is cached. A chart whose digest is already cached is never downloaded again.
"""
from __future__ import annotations

import json
import socket
import threading
import types
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

import httpx
import yaml

from helm_core.chart import archive, loader
from helm_core.errors import (
    AuthError,
    ChartNotFoundError,
    DigestMismatchError,
    NoMatchingVersionError,
    RegistryUnavailableError,
    SourceError,
)
from helm_core.golib import versions
from helm_core.sources import auth
from helm_core.sources import cache as cache_mod
from helm_core.support.records import record

MAX_INDEX_BYTES = 256 * 1024 * 1024
"""Largest index.yaml accepted (bytes); the largest public indexes are tens of MB."""
MAX_CHART_BYTES = archive.MAX_CHART_BYTES
"""Largest chart package downloaded (bytes), the loader's own archive bound."""
INDEX_PARSE_VERSION = "1"
"""Bump when the cached compact parse changes shape."""
DEVEL_CONSTRAINT = ">0.0.0-0"
PARSED_IN_MEMORY = 16
"""Parsed indexes kept in memory per process (by URL and digest): a controller resolving many
requests in one index reads it once, not once per request (a 10 MB index's record takes
about a second to load)."""
T = TypeVar("T")
_INDEX_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@record(frozen=True)
class IndexEntry:
    """One chart version as an index lists it (only what resolution needs)."""

    name: str
    version: str
    urls: tuple[str, ...]
    digest: str = ""


@record(frozen=True)
class Index:
    """A parsed repository index: chart name -> versions, newest first."""

    url: str
    entries: dict[str, tuple[IndexEntry, ...]]
    digest: str = ""
    """The ``sha256:`` digest of the index file it came from."""


def normalize_url(url: str) -> str:
    return url.rstrip("/")


def index_url(repo_url: str) -> str:
    return normalize_url(repo_url) + "/index.yaml"


def parse_index(data: bytes, *, url: str) -> Index:
    """Parse index bytes (YAML or JSON) into an :class:`Index`; errors name the repository."""
    try:
        doc = json.loads(data) if data.lstrip()[:1] == b"{" else load_yaml_strings(data)
    except (ValueError, yaml.YAMLError) as exc:
        raise SourceError(f"{url}: index.yaml is not valid YAML or JSON: {exc}") from None
    if not isinstance(doc, dict) or not doc.get("apiVersion"):
        raise SourceError(f"{url}: index.yaml has no apiVersion (not a chart repository index)")
    raw_entries = doc.get("entries") or {}
    if not isinstance(raw_entries, dict):
        raise SourceError(f"{url}: index.yaml entries must be a map")
    entries: dict[str, tuple[IndexEntry, ...]] = {}
    for name, items in raw_entries.items():
        found = [_entry(str(name), item) for item in items or () if isinstance(item, dict)]
        entries[str(name)] = tuple(sort_newest_first([e for e in found if e is not None]))
    return Index(url=url, entries=entries)


_NULLS = frozenset(("", "~", "null", "Null", "NULL"))
_NO_KEY = object()


def load_yaml_strings(data: bytes) -> Any:
    """Parse YAML into dicts, lists and *strings* straight from libyaml's events.

    Why: resolving and constructing every scalar in Python makes ``yaml.load`` of a 10 MB index
    take tens of seconds; an index needs only strings (a version ``1.10`` must stay "1.10"
    anyway). Plain ``null``/``~``/empty scalars become None; anchors and aliases are honoured;
    merge keys (``<<``) are kept as ordinary keys. Only the first document is read.
    """
    root: Any = None
    stack: list[list[Any]] = []  # [container, pending mapping key]
    anchors: dict[str, Any] = {}
    event: Any  # switched on by exact type below, which mypy does not narrow on
    for event in yaml.parse(data, Loader=_INDEX_LOADER):
        kind = type(event)
        if kind is yaml.ScalarEvent:
            value: Any = None if event.implicit[0] and event.value in _NULLS else event.value
        elif kind is yaml.MappingStartEvent:
            value = {}
        elif kind is yaml.SequenceStartEvent:
            value = []
        elif kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
            stack.pop()
            if not stack:
                break
            continue
        elif kind is yaml.AliasEvent:
            if event.anchor not in anchors:
                raise yaml.YAMLError(f"found undefined alias {event.anchor!r}")
            value = anchors[event.anchor]
        else:
            continue
        if getattr(event, "anchor", None) and kind is not yaml.AliasEvent:
            anchors[event.anchor] = value
        if not stack:
            root = value
        else:
            frame = stack[-1]
            container = frame[0]
            if type(container) is list:
                container.append(value)
            elif frame[1] is _NO_KEY:
                frame[1] = value if isinstance(value, str) or value is None else str(value)
            else:
                container[frame[1]] = value
                frame[1] = _NO_KEY
        if kind is yaml.MappingStartEvent or kind is yaml.SequenceStartEvent:
            stack.append([value, _NO_KEY])
        elif not stack:
            break
    return root


def _entry(name: str, item: dict[str, Any]) -> IndexEntry | None:
    version = item.get("version")
    if version is None or item.get("name", name) in ("", None):
        return None
    urls = item.get("urls") or ()
    return IndexEntry(name=name, version=str(version), urls=tuple(str(u) for u in urls),
                      digest=str(item.get("digest") or ""))


def newest_first(items: list[T], version_of: Callable[[T], str]) -> list[T]:
    """Newest semver first; versions that do not parse go last (Helm's ``SortEntries``)."""
    parsed: list[tuple[versions.Version, T]] = []
    bad: list[T] = []
    for item in items:
        try:
            parsed.append((versions.Version.parse(version_of(item)), item))
        except versions.VersionError:
            bad.append(item)
    parsed.sort(key=lambda pair: pair[0], reverse=True)
    return [item for _, item in parsed] + bad


def sort_newest_first(entries: list[IndexEntry]) -> list[IndexEntry]:
    return newest_first(entries, lambda e: e.version)


def select(index: Index, name: str, version: str = "", *, devel: bool = False) -> IndexEntry:
    """Helm's ``IndexFile.Get``: exact version string first, then the newest constraint match."""
    found = index.entries.get(name)
    if not found:
        raise ChartNotFoundError(f'chart "{name}" not found in {index.url} repository')
    if version:
        for entry in found:
            if entry.version == version:
                return entry
    text = version or (DEVEL_CONSTRAINT if devel else "*")
    try:
        constraint = versions.Constraints.parse(text, include_prerelease=devel)
    except versions.VersionError as exc:
        raise SourceError(f'chart "{name}" in {index.url}: invalid version {version!r}: {exc}') from None
    for entry in found:
        try:
            candidate = versions.Version.parse(entry.version)
        except versions.VersionError:
            continue
        if constraint.check(candidate):
            return entry
    shown = version or ("latest development version" if devel else "latest stable version")
    raise NoMatchingVersionError(f'chart "{name}" version "{shown}" not found in {index.url} repository')


def resolve_url(repo_url: str, chart_url: str) -> str:
    """A chart URL from the index, made absolute against the repository URL (Helm's rule)."""
    return str(httpx.URL(normalize_url(repo_url) + "/").join(chart_url))


@record(frozen=True)
class Fetched:
    """A chart downloaded (or found in the cache) and checked."""

    data: bytes
    digest: str
    entry: IndexEntry
    url: str


class Repository:
    """One chart repository: its URL, credentials, HTTP client and the shared cache."""

    def __init__(self, url: str, *, credentials: auth.Credentials = auth.NO_CREDENTIALS,
                 cache: cache_mod.Cache, transport: httpx.BaseTransport | None = None,
                 timeout: float = auth.DEFAULT_TIMEOUT_S) -> None:
        self.url = normalize_url(url)
        self.credentials = credentials
        self.cache = cache
        self._transport, self._timeout = transport, timeout
        self._http: httpx.Client | None = None
        self._auth = auth.OriginAuth(credentials, self.url)

    def close(self) -> None:
        if self._http is not None:
            self._http.close()

    @property
    def _client(self) -> httpx.Client:
        """Made on first use: a resolution in a cached index with a cached chart needs no
        connection, and building the TLS context costs more than the rest of it."""
        if self._http is None:
            self._http = auth.client(self.credentials, transport=self._transport,
                                     timeout=self._timeout)
        return self._http

    def __enter__(self) -> Repository:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # index ---------------------------------------------------------------------------------
    def index(self) -> Index:
        """The repository's index, revalidated against the server, parsed once per content."""
        key = f"repo-index:{self.url}"
        with self.cache.lock(key):
            record = self.cache.read_record(key) or {}
            digest = self._fetch_index(record, key)
            return self._parsed(digest)

    def index_with_bytes(self) -> tuple[Index, bytes]:
        """The index (as :meth:`index`) and the bytes it was parsed from (what helm keeps in its
        repository cache)."""
        key = f"repo-index:{self.url}"
        with self.cache.lock(key):
            record = self.cache.read_record(key) or {}
            digest = self._fetch_index(record, key)
            data = self.cache.get(digest)
            if data is None:
                raise RegistryUnavailableError(f"{self.url}: cached index vanished; retry")
            return self._parsed(digest), data

    def index_from(self, data: bytes) -> Index:
        """An index read elsewhere (helm's repository cache), parsed once per content."""
        return self._parsed(self.cache.put(data))

    def _fetch_index(self, record: dict[str, Any], key: str) -> str:
        url = index_url(self.url)
        headers = {}
        cached = record.get("digest", "")
        if cached and self.cache.has(cached):
            if record.get("etag"):
                headers["If-None-Match"] = record["etag"]
            if record.get("last_modified"):
                headers["If-Modified-Since"] = record["last_modified"]
        with self._stream("GET", url, headers=headers, what="index") as response:
            if response.status_code == 304 and cached:
                return str(cached)
            try:
                digest = self.cache.put_stream(response.iter_bytes(cache_mod.CHUNK_BYTES),
                                               limit=MAX_INDEX_BYTES, what=url)
            except httpx.TransportError as exc:
                raise RegistryUnavailableError(f"{self.url}: index download failed: {exc}") from None
            self.cache.write_record(key, {
                "digest": digest,
                "etag": response.headers.get("ETag", ""),
                "last_modified": response.headers.get("Last-Modified", ""),
            })
            return digest

    def _parsed(self, digest: str) -> Index:
        """The parsed index: from memory, else the compact parse record of the cache (one per
        repository, replaced when it changes, so records stay bounded by the number of
        repositories), else parsed from the cached file."""
        found = _IN_MEMORY.get((self.url, digest))
        if found is not None:
            return found
        index = self._parsed_from_cache(digest)
        _IN_MEMORY.put((self.url, digest), index)
        return index

    def _parsed_from_cache(self, digest: str) -> Index:
        parse_key = f"repo-index-parse:{INDEX_PARSE_VERSION}:{self.url}"
        record = self.cache.read_record(parse_key)
        if record is not None and record.get("digest") == digest:
            entries = {name: tuple(IndexEntry(name, v, tuple(u), d) for v, u, d in items)
                       for name, items in record["entries"].items()}
            return Index(url=self.url, entries=entries, digest=digest)
        data = self.cache.get(digest)
        if data is None:
            raise RegistryUnavailableError(f"{self.url}: cached index vanished; retry")
        parsed = parse_index(data, url=self.url)
        self.cache.write_record(parse_key, {"digest": digest, "entries": {
            name: [[e.version, list(e.urls), e.digest] for e in items]
            for name, items in parsed.entries.items()}})
        return Index(url=self.url, entries=parsed.entries, digest=digest)

    # charts --------------------------------------------------------------------------------
    def cached_index(self, digest: str) -> Index:
        """The index with ``digest`` from the cache, without asking the server (what a
        shared repository fetched); RegistryUnavailableError when the cache no longer has it."""
        return self._parsed(digest)

    def fetch(self, name: str, version: str = "", *, devel: bool = False,
              index_digest: str = "") -> Fetched:
        """Resolve ``name``/``version`` in the index (the cached one with ``index_digest``
        when given, else revalidated against the server) and return the checked package."""
        index = self.cached_index(index_digest) if index_digest else self.index()
        return self.fetch_entry(select(index, name, version, devel=devel))

    def fetch_entry(self, entry: IndexEntry) -> Fetched:
        """The checked package of an index entry (from the cache when it holds it)."""
        name = entry.name
        if not entry.urls:
            raise SourceError(f'chart "{name}" version "{entry.version}" in {self.url} has no download URL')
        url = resolve_url(self.url, entry.urls[0])
        found = self._cached(entry, url)
        if found is not None:
            return found
        with self.cache.lock(f"chart:{url}"):
            found = self._cached(entry, url)  # another process may have fetched it while we waited
            if found is not None:
                return found
            data = self._download(url)
            digest = "sha256:" + cache_mod.sha256_hex(data)
            if entry.digest and _with_algo(entry.digest) != digest:
                raise DigestMismatchError(
                    f'chart "{name}" version "{entry.version}" from {url}: digest mismatch: got {digest}, '
                    f"the index says {_with_algo(entry.digest)}")
            check_archive(data, source=url)
            self.cache.put(data)  # still under the lock: waiters find it in the cache
            if not entry.digest:
                self.cache.write_record(f"chart-url:{url}", {"digest": digest})
        return Fetched(data, digest, entry, url)

    def _cached(self, entry: IndexEntry, url: str) -> Fetched | None:
        """The package from the cache: by the index digest, or (for indexes without digests)
        by what this URL held last time (chart versions are immutable by convention)."""
        digest = _with_algo(entry.digest) if entry.digest else ""
        if not digest:
            record = self.cache.read_record(f"chart-url:{url}")
            digest = str(record.get("digest", "")) if record else ""
        if not digest:
            return None
        data = self.cache.get(digest)
        return Fetched(data, digest, entry, url) if data is not None else None

    def _download(self, url: str) -> bytes:
        with self._stream("GET", url, what="chart") as response:
            return read_bounded(response, limit=MAX_CHART_BYTES, what=url, repo=self.url)

    def _stream(self, method: str, url: str, *, headers: dict[str, str] | None = None,
                what: str) -> Any:
        return _checked_stream(self._client, method, url, headers=headers or {}, auth=self._auth,
                               repo=self.url, what=what)


class _Recent:
    """A small thread-safe LRU of parsed indexes (they are never changed once made)."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._lock = threading.Lock()
        self._items: OrderedDict[tuple[str, str], Index] = OrderedDict()

    def get(self, key: tuple[str, str]) -> Index | None:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: tuple[str, str], index: Index) -> None:
        with self._lock:
            self._items[key] = index
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)


_IN_MEMORY = _Recent(PARSED_IN_MEMORY)


def _with_algo(digest: str) -> str:
    return digest if ":" in digest else f"sha256:{digest}"


def check_archive(data: bytes, *, source: str) -> None:
    """Refuse an unsafe or corrupt package before it reaches the cache."""
    loader.load_archive(data, source=source)


def read_bounded(response: httpx.Response, *, limit: int, what: str, repo: str) -> bytes:
    """The body of a streamed response, refusing more than ``limit`` bytes."""
    chunks = bytearray()
    try:
        for chunk in response.iter_bytes(cache_mod.CHUNK_BYTES):
            chunks += chunk
            if len(chunks) > limit:
                raise SourceError(f"{what}: larger than the limit of {limit} bytes")
    except httpx.TransportError as exc:
        raise RegistryUnavailableError(f"{repo}: download of {what} failed: {exc}") from None
    return bytes(chunks)


def _go_words(url: str, exc: httpx.TransportError) -> str:
    """What helm's getter says for a repository that did not answer (``Get "URL": dial tcp ...``),
    "" when Go's words for it are not known."""
    from helm_core.golib import godial

    cause = exc.__cause__ or exc.__context__
    while cause is not None and not isinstance(cause, OSError):
        cause = cause.__cause__ or cause.__context__
    if isinstance(exc, httpx.ConnectTimeout):
        return godial.words("GET", url, godial.Failure.TIMEOUT)
    if isinstance(cause, ConnectionRefusedError):
        return godial.words("GET", url, godial.Failure.REFUSED)
    if isinstance(cause, socket.gaierror) and cause.errno in (socket.EAI_NONAME, -5):  # -5: EAI_NODATA
        return godial.words("GET", url, godial.Failure.NO_SUCH_HOST)
    return ""


class _checked_stream:
    """``client.stream`` that maps transport failures and HTTP errors to source errors."""

    def __init__(self, client: httpx.Client, method: str, url: str, *, headers: dict[str, str],
                 auth: httpx.Auth, repo: str, what: str) -> None:
        self._cm = client.stream(method, url, headers=headers, auth=auth)
        self._url, self._repo, self._what = url, repo, what

    def __enter__(self) -> httpx.Response:
        try:
            response = self._cm.__enter__()
        except httpx.TransportError as exc:
            unreachable = RegistryUnavailableError(
                f"{self._repo}: cannot reach the repository ({self._url}): {exc}")
            unreachable.transport = _go_words(self._url, exc)  # type: ignore[attr-defined]
            raise unreachable from None
        if response.status_code in (200, 304):
            return response
        status = response.status_code
        self._cm.__exit__(None, None, None)
        error = self._error(status, response.reason_phrase)
        error.http_status = f"{status} {response.reason_phrase}"  # type: ignore[attr-defined]
        raise error

    def _error(self, status: int, reason: str) -> SourceError:
        if status in (401, 403):
            return AuthError(f"{self._repo}: {status} {reason} for {self._url} "
                             "(missing or wrong credentials)")
        if status == 404 and self._what == "index":
            return SourceError(f'{self._repo}: not a valid chart repository (no {self._url}: 404 Not Found)')
        if status == 404:
            return ChartNotFoundError(f"{self._repo}: chart package {self._url} not found (404)")
        if status == 429 or status >= 500:
            return RegistryUnavailableError(f"{self._repo}: {status} {reason} for {self._url}")
        return SourceError(f"{self._repo}: unexpected {status} {reason} for {self._url}")

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: types.TracebackType | None) -> None:
        try:
            self._cm.__exit__(exc_type, exc, tb)
        except httpx.TransportError:
            pass
