"""A content-addressed local cache shared by the CLI and the controller.

Layout under the root (``$HELM_CORE_CACHE`` or ``~/.cache/helm-core``, chosen by callers):
- ``blobs/sha256/<hex>``: immutable content named by its SHA-256 (charts, index files).
- ``refs/<sha256 of key>.json``: small mutable records (an index URL's ETag, Last-Modified and
  blob digest; a resolved parse of an index).
- ``locks/<sha256 of key>``: ``flock`` files that serialise the download of one key across
  processes, so two resolutions of the same chart download it once.

Rules:
- Writes go to a temporary file in the same folder and are renamed into place (``os.replace``):
  readers never see a partial blob, a killed writer leaves only a ``.tmp-*`` file (swept later).
- A blob is checked against its name when read; a corrupt one is removed and reported missing.
- The size is bounded (``max_bytes``): after each write the least recently used blobs (by
  access time we set on read) are removed until the total fits, under a cache-wide lock.
- Nothing is ever written outside the root.
"""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from helm_core.errors import SourceError
from helm_core.support.cachedirs import default_root as default_root  # the cache root rule, re-exported

DEFAULT_MAX_BYTES = 2 * 1024 * 1024 * 1024
"""Default bound of the blob store: 2 GiB."""
CHUNK_BYTES = 1024 * 1024
"""Read/hash chunk size."""
STALE_TMP_S = 3600.0
"""Temporary files older than this (seconds) belong to a dead writer and are removed."""
_HEX = frozenset("0123456789abcdef")


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _key_name(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def _check_hex(digest: str) -> str:
    """Accept ``sha256:<hex>`` or ``<hex>``; return the hex, refusing anything else."""
    hex_part = digest.removeprefix("sha256:").lower()
    if len(hex_part) != 64 or not set(hex_part) <= _HEX:
        raise SourceError(f"invalid sha256 digest {digest!r}")
    return hex_part


class Cache:
    """The blob store and records of one cache root (safe to share between processes)."""

    def __init__(self, root: str | os.PathLike[str], *, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.root = Path(root)
        self.max_bytes = max_bytes
        self._blobs = self.root / "blobs" / "sha256"
        self._refs = self.root / "refs"
        self._locks = self.root / "locks"
        for folder in (self._blobs, self._refs, self._locks):
            folder.mkdir(parents=True, exist_ok=True)

    # blobs -------------------------------------------------------------------------------
    def blob_path(self, digest: str) -> Path:
        return self._blobs / _check_hex(digest)

    def has(self, digest: str) -> bool:
        return self.blob_path(digest).is_file()

    def get(self, digest: str) -> bytes | None:
        """The blob's bytes, or None when absent or corrupt (a corrupt blob is removed)."""
        path = self.blob_path(digest)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        if sha256_hex(data) != path.name:
            path.unlink(missing_ok=True)
            return None
        self._touch(path)
        return data

    def put(self, data: bytes) -> str:
        """Store ``data``; return its ``sha256:<hex>`` digest. Idempotent."""
        hex_digest = sha256_hex(data)
        path = self._blobs / hex_digest
        if not path.is_file():
            self._atomic_write(path, data)
            self.prune()
        else:
            self._touch(path)
        return f"sha256:{hex_digest}"

    def put_stream(self, chunks: Iterator[bytes], *, limit: int, what: str) -> str:
        """Store a stream without holding it in memory; refuse more than ``limit`` bytes."""
        digest = hashlib.sha256()
        size = 0
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=self._blobs)
        try:
            with os.fdopen(fd, "wb") as out:
                for chunk in chunks:
                    size += len(chunk)
                    if size > limit:
                        raise SourceError(f"{what}: larger than the limit of {limit} bytes")
                    digest.update(chunk)
                    out.write(chunk)
            os.replace(tmp, self._blobs / digest.hexdigest())
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise
        self.prune()
        return f"sha256:{digest.hexdigest()}"

    def open_blob(self, digest: str) -> BinaryIO:
        path = self.blob_path(digest)
        self._touch(path)
        return path.open("rb")

    def _atomic_write(self, path: Path, data: bytes) -> None:
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise

    @staticmethod
    def _touch(path: Path) -> None:
        with contextlib.suppress(FileNotFoundError):
            now = time.time()
            os.utime(path, (now, now))

    # records -----------------------------------------------------------------------------
    def read_record(self, key: str) -> dict[str, Any] | None:
        try:
            text = (self._refs / f"{_key_name(key)}.json").read_text("utf-8")
            record = json.loads(text)
        except (FileNotFoundError, ValueError):
            return None
        return record if isinstance(record, dict) and record.get("key") == key else None

    def write_record(self, key: str, record: dict[str, Any]) -> None:
        body = json.dumps({**record, "key": key}, sort_keys=True).encode("utf-8")
        self._atomic_write(self._refs / f"{_key_name(key)}.json", body)

    # locking and bounds ------------------------------------------------------------------
    @contextlib.contextmanager
    def lock(self, key: str) -> Iterator[None]:
        """Exclusive cross-process lock on ``key`` (held while a download runs)."""
        with open(self._locks / _key_name(key), "a+b") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def size(self) -> int:
        return sum(entry.stat().st_size for entry in os.scandir(self._blobs)
                   if entry.is_file() and not entry.name.startswith("."))

    def prune(self) -> None:
        """Remove least recently used blobs until the store fits ``max_bytes``."""
        with self.lock("<prune>"):
            now = time.time()
            blobs: list[tuple[float, int, str]] = []
            total = 0
            for entry in os.scandir(self._blobs):
                try:
                    st = entry.stat()
                except FileNotFoundError:
                    continue
                if entry.name.startswith(".tmp-"):
                    if now - st.st_mtime > STALE_TMP_S:
                        with contextlib.suppress(FileNotFoundError):
                            os.unlink(entry.path)
                    continue
                blobs.append((st.st_mtime, st.st_size, entry.path))
                total += st.st_size
            for _, size, path in sorted(blobs):
                if total <= self.max_bytes:
                    break
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(path)
                total -= size
