"""Reading an unpacked chart folder from disk, as Helm's ``LoadDir`` and ``sympath.Walk`` do.

Files are visited depth first in name order, ``.helmignore`` applied. Symbolic links are
followed wherever they point, as Helm follows them (the link's own path names what it
brings in). What Helm refuses is refused with Helm's words: irregular files (devices,
FIFOs, sockets) and files over ``MaxDecompressedFileSize``.

Where Helm would recurse until the path is too long (a link to a folder that contains it)
or read without end, a :class:`~helm_core.errors.ChartError` names the link or the limit.
The walk is iterative: no chart can exhaust Python's stack.
"""
from __future__ import annotations

import errno
import os
import stat

from helm_core.chart import archive, ignore
from helm_core.errors import ChartError
from helm_core.support import helmlog

_UTF8_BOM = b"\xef\xbb\xbf"


def read_rules(top: str) -> ignore.Rules:
    """The chart's ``.helmignore`` rules (none when it has no such file)."""
    rules_file = os.path.join(top, ignore.HELMIGNORE)
    text = ""
    if os.path.isfile(rules_file):
        with open(rules_file, encoding="utf-8") as handle:
            text = handle.read()
    return ignore.Rules.parse(text, source=rules_file)


_DIR, _REGULAR, _OTHER = "dir", "regular", "other"


def read_files(root: str | os.PathLike[str], *, limits: archive.Limits = archive.Limits()) -> list[tuple[str, bytes]]:
    """``(path, bytes)`` of every file of the chart folder ``root``, paths relative to it."""
    top = os.path.abspath(root)
    rules = read_rules(top)
    out: list[tuple[str, bytes]] = []
    # Each entry: (the folder's entry, chart-relative name, real folders above it). The
    # entry's type comes from the folder listing (no lstat per file); links are resolved.
    real_top = (os.path.realpath(top),)  # once: each is an lstat per folder above the chart
    pending: list[tuple[os.DirEntry[str], str, tuple[str, ...]]] = [
        (entry, entry.name, real_top) for entry in _sorted_entries(top, top)[::-1]
    ]
    visited = 0
    max_bytes, max_entries = limits.max_file_bytes, limits.max_dir_entries
    first_read = min(_FIRST_READ_BYTES, max_bytes + 1)
    while pending:
        entry, rel, above = pending.pop()
        path = entry.path  # os.path.join(folder, name): the path as Helm names it
        visited += 1
        if visited > max_entries:
            raise ChartError(f"{top}: more than {limits.max_dir_entries} files and folders in the chart")
        real = path
        # (the commonest first: a regular file, then a folder, neither through a link)
        if entry.is_file(follow_symlinks=False):
            kind = _REGULAR
        elif entry.is_dir(follow_symlinks=False):
            kind = _DIR
            real_folder = os.path.join(above[-1], entry.name)  # no link on the way: its real path
        elif entry.is_symlink():
            real = _resolve(path)
            # Helm's warning, word for word (links can bring in anything on the disk).
            helmlog.warn(__name__, "walk.go:75", f"found symbolic link in path: {path} resolves to {real}. "
                                                 "Contents of linked file included and used")
            kind = _kind(_lstat(real).st_mode)
            if kind == _DIR and real in above:
                raise ChartError(f"{top}: symlink {rel} points to {real}, a folder that contains it (a loop)")
            real_folder = os.path.realpath(real)
        else:  # irregular, or gone since the listing: lstat says which, in Go's words
            kind = _kind(_lstat(path).st_mode)
        if kind == _DIR:
            if rules.ignored(rel, is_dir=True):
                continue
            inside = (*above, real_folder)
            pending.extend((sub, f"{rel}/{sub.name}", inside) for sub in _sorted_entries(path, top)[::-1])
            continue
        if rules.ignored(rel, is_dir=False):
            continue
        if kind != _REGULAR:
            raise _irregular(path)
        data = _read_bounded(real, rel, max_bytes, first_read)
        if data.startswith(_UTF8_BOM):
            data = data[len(_UTF8_BOM):]
        out.append((rel, data))
    return out


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return _DIR
    return _REGULAR if stat.S_ISREG(mode) else _OTHER


def _irregular(path: str) -> ChartError:
    return ChartError(f"cannot load irregular file {path} as it has file mode type bits set")


def _too_large(name: str, limit: int) -> ChartError:
    return ChartError(f"chart file {archive.go_quoted(name)} is larger than the maximum file size {limit}")


#: The first read of a file: most chart files are smaller (a larger one is read on in chunks
#: that double). A buffer sized for the limit (5 MiB) per file is slow; one sized to an fstat of
#: the file costs that syscall on every file of every warm load.
_FIRST_READ_BYTES = 16 * 1024


#: Opened without blocking, in case a listed file became a FIFO since (see _read_bounded).
_OPEN_FLAGS = os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK


def _read_bounded(real: str, rel: str, limit: int, first_read: int) -> bytes:
    """The file's bytes, refused past ``limit``.

    Plain descriptors, not Python's buffered files: a chart has hundreds of small files and
    every warm load reads them all again. The folder's listing said it is a regular file (as
    Helm's walk says, and Helm reads it without looking again); opened without blocking, in
    case it became a FIFO since, and never read past ``limit``, in case it became a device.
    """
    try:
        fd = os.open(real, _OPEN_FLAGS)
    except OSError as exc:
        raise ChartError(f"error reading {rel}: {exc.strerror}") from None
    try:
        # A regular file reads short only at its end. (``first_read``: the first read's size,
        # min(_FIRST_READ_BYTES, limit + 1), worked out once per chart.)
        want = first_read
        data = os.read(fd, want)
        if len(data) == want:
            chunks = [data]
            total = len(data)
            while total <= limit:
                want = min(total, limit + 1 - total)
                chunk = os.read(fd, want)
                chunks.append(chunk)
                total += len(chunk)
                if len(chunk) < want:
                    break
            data = b"".join(chunks)
    except OSError as exc:
        raise ChartError(f"error reading {rel}: {exc.strerror}") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise _too_large(os.path.basename(real), limit)
    return data


def _sorted_entries(path: str, top: str) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(path) as listing:
            entries = list(listing)
    except OSError as exc:
        raise ChartError(f"{top}: cannot list {path}: {exc.strerror}") from None
    entries.sort(key=_entry_name)
    return entries


def _entry_name(entry: os.DirEntry[str]) -> str:
    return entry.name


def _lstat(path: str) -> os.stat_result:
    try:
        return os.lstat(path)
    except OSError as exc:
        raise ChartError(f"lstat {path}: {go_errno(exc)}") from None


def _resolve(path: str) -> str:
    """Go's ``filepath.EvalSymlinks``: the real path, or an error naming the link."""
    try:
        real = os.path.realpath(path, strict=True)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # links pointing at each other
            raise ChartError(f"error evaluating symlink {path}: EvalSymlinks: too many links") from None
        where = f"lstat {exc.filename}: " if exc.filename else ""
        raise ChartError(f"error evaluating symlink {path}: {where}{go_errno(exc)}") from None
    return real


def go_errno(exc: OSError) -> str:
    """Go's text for an errno: Python's strerror with a lower-case first letter."""
    text = exc.strerror or str(exc)
    return text[:1].lower() + text[1:]


