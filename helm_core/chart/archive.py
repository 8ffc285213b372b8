"""Reading packaged charts (``.tgz``) safely, entirely in memory.

A chart archive comes from untrusted places (repositories, ConfigMaps), so every
entry is checked before its bytes are kept, and nothing is ever written to disk:

* paths must stay inside the chart: no absolute paths, drive letters or ``..``
  (Helm's rules: the first path component is the chart's folder, whatever it is);
* links, devices and FIFOs become empty files, as Helm reads them: nothing is followed;
* Helm's size budgets for the whole archive and for each file, enforced on the bytes
  actually read (a lying header cannot bypass them), and a file count limit;
* tar's own headers are held to Go's limits before they are read: a PAX header or GNU long
  name of at most 1 MiB (``archive/tar: header field too long``, as Helm says), and a few of
  them in a row (Python's reader recurses once per header; Go's does not). Sparse files are
  refused before their maps are read (a map may claim millions of holes; Helm's ``helm
  package`` never writes one).

Each refusal is an :class:`~helm_core.errors.ArchiveError`: the archive, then Helm's words.
"""
from __future__ import annotations

import io
import posixpath

from helm_core.errors import ArchiveError
from helm_core.support import patterns
from helm_core.support.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

#: Helm's MaxDecompressedChartSize: the unpacked size of a whole chart archive.
MAX_CHART_BYTES = 100 * 1024 * 1024
#: Helm's MaxDecompressedFileSize: the largest single file.
MAX_FILE_BYTES = 5 * 1024 * 1024
#: Entries per archive (files and directories); real charts have a few hundred.
MAX_ENTRIES = 100_000
#: Go's archive/tar limit on a PAX header, a GNU long name or link (maxSpecialFileSize).
MAX_HEADER_BYTES = 1 << 20
#: Extension headers (PAX, GNU long name or link) in a row before one entry: a real archive
#: has at most three (a global PAX header, a PAX header, a long name).
MAX_HEADER_CHAIN = 16
#: Files and folders walked in a chart folder. Helm has no such limit, but links between
#: folders can make a walk without end (each folder linked twice from the one above it).
MAX_DIR_ENTRIES = 1_000_000

_DRIVE_PATH = patterns.on_first_use(r"^[a-zA-Z]:/")
_UTF8_BOM = b"\xef\xbb\xbf"


@record(frozen=True)
class Limits:
    """Size limits for archives; the defaults are Helm's."""

    max_chart_bytes: int = MAX_CHART_BYTES
    max_file_bytes: int = MAX_FILE_BYTES
    max_entries: int = MAX_ENTRIES
    max_dir_entries: int = MAX_DIR_ENTRIES
    #: Bytes the chart holding this archive (in its ``charts/``) unpacked already: nested
    #: archives share one ``max_chart_bytes`` (Helm gives each its own 100 MiB, so 30 small
    #: subchart archives of 100 MiB each in a 54 KiB chart took helm 15 s and 5.9 GiB).
    unpacked_before: int = 0


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

    def readinto(self, buffer: WriteableBuffer) -> int:
        import zlib

        view = memoryview(buffer)
        try:
            chunk = self._inflate.read(min(len(view), self._left + 1))
        except (OSError, EOFError, zlib.error) as exc:
            raise ArchiveError(f"{self._source}: corrupt gzip stream: {exc}") from None
        if len(chunk) > self._left:
            raise ArchiveError(
                f"{self._source}: decompressed archive is larger than {self._budget} bytes "
                "(a gzip bomb or a chart over the size limit)"
            )
        self._left -= len(chunk)
        view[: len(chunk)] = chunk
        return len(chunk)


class _Refused(Exception):
    """A header refused while tarfile reads it; :func:`read_archive` adds the archive's name."""


def _member_class() -> type:
    """A ``tarfile.TarInfo`` that checks tar's own headers before tarfile reads what they
    announce (tarfile is imported by archives only, so the class is made on first use)."""
    import tarfile

    extensions = (tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.SOLARIS_XHDTYPE,
                  tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK)

    class CheckedMember(tarfile.TarInfo):
        # tarfile's hooks (private, stable since Python 3.2): _proc_member dispatches on the
        # header's type before reading its data; the _proc_gnusparse_* read a PAX sparse map.
        def _proc_member(self, archive: tarfile.TarFile) -> tarfile.TarInfo:
            chain = getattr(archive, "_helm_chain", 0)
            if self.type in extensions:
                if self.size > MAX_HEADER_BYTES:
                    raise _Refused("archive/tar: header field too long")
                if chain >= MAX_HEADER_CHAIN:
                    raise _Refused(f"more than {MAX_HEADER_CHAIN} tar extension headers before one entry")
                archive._helm_chain = chain + 1  # type: ignore[attr-defined]
            else:
                archive._helm_chain = 0  # type: ignore[attr-defined]
                if self.type == tarfile.GNUTYPE_SPARSE:
                    raise _Refused(f"sparse files are not supported (entry {go_quoted(self.name)})")
            return super()._proc_member(archive)  # type: ignore[misc,no-any-return]

        def _proc_gnusparse_00(self, next: tarfile.TarInfo, *_: object) -> None:
            raise _Refused(f"sparse files are not supported (entry {go_quoted(next.name)})")

        _proc_gnusparse_01 = _proc_gnusparse_10 = _proc_gnusparse_00

    return CheckedMember


def read_archive(data: bytes, *, source: str = "<archive>", limits: Limits = Limits()) -> list[tuple[str, bytes]]:
    """Return ``(path, bytes)`` for every file of a chart archive, paths relative to the chart root.

    The first path component (the chart's folder in the archive) is removed, as Helm does.
    """
    import tarfile  # here: loading a chart folder needs no tar machinery
    import zlib

    # Tar headers and padding take room too: allow them on top of the content budget.
    raw = _BoundedReader(data, limits.max_chart_bytes + limits.max_entries * 1024 + 1024 * 1024, source)
    try:
        tar = tarfile.open(fileobj=io.BufferedReader(raw, buffer_size=1 << 20), mode="r|",
                           tarinfo=_member_class())
    except _Refused as exc:
        raise ArchiveError(f"{source}: {exc}") from None
    except (tarfile.TarError, OSError) as exc:
        raise ArchiveError(f"{source}: not a gzipped tar archive: {exc}") from None

    files: list[tuple[str, bytes]] = []
    remaining = limits.max_chart_bytes - limits.unpacked_before
    entries = 0
    try:
        for member in tar:
            entries += 1
            if entries > limits.max_entries:
                raise ArchiveError(f"{source}: more than {limits.max_entries} entries in the archive")
            if member.isdir():
                continue
            name = _chart_name(member.name, source)
            if member.size > remaining:
                raise ArchiveError(f"{source}: decompressed chart is larger than the maximum file size "
                                   f"{limits.max_chart_bytes}")
            if member.size > limits.max_file_bytes:
                raise ArchiveError(f"{source}: decompressed chart file {go_quoted(member.name)} is larger "
                                   f"than the maximum file size {limits.max_file_bytes}")
            # Links, devices and FIFOs carry no bytes: Helm keeps them as empty files and so do
            # we (tarfile would follow a link to another entry; nothing is ever followed here).
            content = b""
            if member.isreg():
                handle = tar.extractfile(member)
                content = handle.read(member.size + 1) if handle is not None else b""
                if len(content) != member.size:
                    raise ArchiveError(f"{source}: entry {member.name!r} is truncated or its size is wrong")
            remaining -= len(content)
            if remaining <= 0:
                raise ArchiveError(f"{source}: decompressed chart is larger than the maximum file size "
                                   f"{limits.max_chart_bytes}")
            if content.startswith(_UTF8_BOM):
                content = content[len(_UTF8_BOM):]
            files.append((name, content))
    except ArchiveError:
        raise
    except _Refused as exc:
        raise ArchiveError(f"{source}: {exc}") from None
    except (tarfile.TarError, OSError, EOFError, zlib.error) as exc:
        raise ArchiveError(f"{source}: corrupt archive: {exc}") from None
    if not files:
        raise ArchiveError(f"{source}: no files in chart archive")
    return files


def _chart_name(original: str, source: str) -> str:
    """The chart-relative path of an entry by Helm's rules, or Helm's error for a name that
    could escape the chart (the entry named after it). The first component (the chart's
    folder) is dropped, whatever it is."""
    delimiter = "\\" if "\\" in original else "/"
    parts = original.split(delimiter)
    name = "/".join(parts[1:])
    if name.startswith("/"):
        raise _refused(source, "chart illegally contains absolute paths", original)
    name = posixpath.normpath(name) if name else "."
    if name == ".":
        raise ArchiveError(f"{source}: chart illegally contains content outside the base directory: "
                           f"{go_quoted(original)}")
    if name.startswith(".."):
        raise _refused(source, "chart illegally references parent directory", original)
    if _DRIVE_PATH().match(name):
        raise _refused(source, "chart contains illegally named files", original)
    if parts[0] == "Chart.yaml":
        raise _refused(source, "chart yaml not in base directory", original)
    return name


def _refused(source: str, helm_words: str, entry: str) -> ArchiveError:
    return ArchiveError(f"{source}: {helm_words} (entry {go_quoted(entry)})")


def go_quoted(text: str) -> str:
    """``text`` as Go's ``%q`` prints it, for refusals (this module's and the folder reader's):
    gostrconv is imported by a refusal only, as every run reads a chart."""
    from helm_core.golib import gostrconv

    return gostrconv.quote(text)
