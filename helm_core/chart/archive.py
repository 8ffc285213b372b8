"""Reading packaged charts (``.tgz``) safely, entirely in memory.

A chart archive comes from untrusted places (repositories, ConfigMaps), so every
entry is checked before its bytes are kept, and nothing is ever written to disk:

* paths must stay inside the chart: no absolute paths, drive letters or ``..``;
* only regular files and directories: symlinks, hard links, devices and FIFOs are
  refused (a link inside a packaged chart has no meaning Helm honours);
* a size budget for the whole archive and for each file, and a file count limit,
  all enforced on the bytes actually read (a lying header cannot bypass them).

Each refusal is an :class:`~helm_core.errors.ArchiveError` naming the entry.
"""
from __future__ import annotations

import io
import posixpath
import re
from typing import TYPE_CHECKING

from helm_core.errors import ArchiveError
from helm_core.records import record

if TYPE_CHECKING:
    import tarfile

#: Helm's MaxDecompressedChartSize: the unpacked size of a whole chart archive.
MAX_CHART_BYTES = 100 * 1024 * 1024
#: Helm's MaxDecompressedFileSize: the largest single file.
MAX_FILE_BYTES = 5 * 1024 * 1024
#: Entries per archive (files and directories); real charts have a few hundred.
MAX_ENTRIES = 20_000
#: Files and folders walked in a chart folder. Helm has no such limit, but links between
#: folders can make a walk without end (each folder linked twice from the one above it).
MAX_DIR_ENTRIES = 1_000_000

_DRIVE_PATH = re.compile(r"^[a-zA-Z]:/")
_UTF8_BOM = b"\xef\xbb\xbf"


@record(frozen=True)
class Limits:
    """Size limits for archives; the defaults are Helm's."""

    max_chart_bytes: int = MAX_CHART_BYTES
    max_file_bytes: int = MAX_FILE_BYTES
    max_entries: int = MAX_ENTRIES
    max_dir_entries: int = MAX_DIR_ENTRIES


class _BoundedReader(io.RawIOBase):
    """A gzip stream that refuses to inflate past a byte budget (gzip bombs)."""

    def __init__(self, data: bytes, budget: int, source: str) -> None:
        import gzip  # archives only: a chart folder is read without it

        self._inflate = gzip.GzipFile(fileobj=io.BytesIO(data))
        self._left = budget
        self._budget = budget
        self._source = source

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray) -> int:  # type: ignore[override]
        import zlib

        try:
            chunk = self._inflate.read(min(len(buffer), self._left + 1))
        except (OSError, EOFError, zlib.error) as exc:
            raise ArchiveError(f"{self._source}: corrupt gzip stream: {exc}") from None
        if len(chunk) > self._left:
            raise ArchiveError(
                f"{self._source}: decompressed archive is larger than {self._budget} bytes "
                "(a gzip bomb or a chart over the size limit)"
            )
        self._left -= len(chunk)
        buffer[: len(chunk)] = chunk
        return len(chunk)


def read_archive(data: bytes, *, source: str = "<archive>", limits: Limits = Limits()) -> list[tuple[str, bytes]]:
    """Return ``(path, bytes)`` for every file of a chart archive, paths relative to the chart root.

    The first path component (the chart's folder in the archive) is removed, as Helm does.
    """
    import tarfile  # here: loading a chart folder needs no tar machinery
    import zlib

    # Tar headers and padding take room too: allow them on top of the content budget.
    raw = _BoundedReader(data, limits.max_chart_bytes + limits.max_entries * 1024 + 1024 * 1024, source)
    try:
        tar = tarfile.open(fileobj=io.BufferedReader(raw), mode="r|")
    except (tarfile.TarError, OSError) as exc:
        raise ArchiveError(f"{source}: not a gzipped tar archive: {exc}") from None

    files: list[tuple[str, bytes]] = []
    total = 0
    entries = 0
    try:
        for member in tar:
            entries += 1
            if entries > limits.max_entries:
                raise ArchiveError(f"{source}: more than {limits.max_entries} entries in the archive")
            name = _safe_name(member, source)
            if member.isdir():
                continue
            if member.issym() or member.islnk():
                raise ArchiveError(
                    f"{source}: entry {member.name!r} is a {'symlink' if member.issym() else 'hard link'} "
                    f"to {member.linkname!r}; links are not allowed in chart archives"
                )
            if not member.isreg():
                raise ArchiveError(f"{source}: entry {member.name!r} is not a regular file (device, FIFO or other)")
            if name is None:
                continue
            if member.size > limits.max_file_bytes:
                raise ArchiveError(
                    f"{source}: entry {member.name!r} is {member.size} bytes, over the per-file "
                    f"limit of {limits.max_file_bytes}"
                )
            if total + member.size > limits.max_chart_bytes:
                raise ArchiveError(
                    f"{source}: decompressed chart is larger than the limit of {limits.max_chart_bytes} "
                    f"bytes (at entry {member.name!r})"
                )
            handle = tar.extractfile(member)
            content = handle.read(member.size + 1) if handle is not None else b""
            if len(content) != member.size:
                raise ArchiveError(f"{source}: entry {member.name!r} is truncated or its size is wrong")
            total += len(content)
            if content.startswith(_UTF8_BOM):
                content = content[len(_UTF8_BOM):]
            files.append((name, content))
    except ArchiveError:
        raise
    except (tarfile.TarError, OSError, EOFError, zlib.error) as exc:
        raise ArchiveError(f"{source}: corrupt archive: {exc}") from None
    if not files:
        raise ArchiveError(f"{source}: no files in chart archive")
    return files


def _safe_name(member: tarfile.TarInfo, source: str) -> str | None:
    """The chart-relative path of an entry, or an error if it could escape the chart.

    Returns None for the top folder itself.
    """
    original = member.name
    delimiter = "\\" if "\\" in original else "/"
    if original.startswith(("/", "\\")) or _DRIVE_PATH.match(original.replace("\\", "/")):
        raise ArchiveError(f"{source}: entry {original!r} has an absolute path")
    parts = original.split(delimiter)
    if ".." in parts:
        raise ArchiveError(f"{source}: entry {original!r} references a parent directory")
    if len(parts) > 1 and parts[0] in (".", ""):
        parts = parts[1:]
    if parts and parts[0] == "Chart.yaml" and len(parts) == 1:
        raise ArchiveError(f"{source}: entry {original!r}: Chart.yaml is not inside the chart's folder")
    rest = "/".join(parts[1:])
    if not rest:
        return None
    cleaned = posixpath.normpath(rest)
    if cleaned.startswith("..") or cleaned.startswith("/") or _DRIVE_PATH.match(cleaned):
        raise ArchiveError(f"{source}: entry {original!r} points outside the chart")
    if member.issym() or member.islnk():
        target = member.linkname
        base = posixpath.dirname(cleaned) if member.issym() else ""
        resolved = posixpath.normpath(posixpath.join(base, target))
        if target.startswith("/") or resolved.startswith(".."):
            raise ArchiveError(
                f"{source}: entry {original!r} is a link pointing outside the chart ({target!r})"
            )
    return cleaned
