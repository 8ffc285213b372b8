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
from helm_core.golib import gostrconv

_UTF8_BOM = b"\xef\xbb\xbf"


def read_rules(top: str) -> ignore.Rules:
    """The chart's ``.helmignore`` rules (none when it has no such file)."""
    rules_file = os.path.join(top, ignore.HELMIGNORE)
    text = ""
    if os.path.isfile(rules_file):
        with open(rules_file, encoding="utf-8") as handle:
            text = handle.read()
    return ignore.Rules.parse(text, source=rules_file)


def read_files(root: str | os.PathLike[str], *, limits: archive.Limits = archive.Limits()) -> list[tuple[str, bytes]]:
    """``(path, bytes)`` of every file of the chart folder ``root``, paths relative to it."""
    top = os.path.abspath(root)
    rules = read_rules(top)
    out: list[tuple[str, bytes]] = []
    # Each entry: (absolute path as Helm names it, chart-relative name, real folders above it).
    pending: list[tuple[str, str, tuple[str, ...]]] = [
        (os.path.join(top, name), name, (os.path.realpath(top),)) for name in _sorted_names(top, top)[::-1]
    ]
    visited = 0
    while pending:
        path, rel, above = pending.pop()
        visited += 1
        if visited > limits.max_dir_entries:
            raise ChartError(f"{top}: more than {limits.max_dir_entries} files and folders in the chart")
        info = _lstat(path)
        real = path
        if stat.S_ISLNK(info.st_mode):
            real = _resolve(path)
            # Helm's warning, word for word (links can bring in anything on the disk). logging
            # is imported here: with traceback and tokenize it is a visible part of a short run.
            import logging
            logging.getLogger(__name__).warning(
                "found symbolic link in path: %s resolves to %s. Contents of linked file included and used",
                path, real)
            info = _lstat(real)
            if stat.S_ISDIR(info.st_mode) and real in above:
                raise ChartError(f"{top}: symlink {rel} points to {real}, a folder that contains it (a loop)")
        if stat.S_ISDIR(info.st_mode):
            if rules.ignored(rel, is_dir=True):
                continue
            inside = (*above, os.path.realpath(real))
            pending.extend((os.path.join(path, name), f"{rel}/{name}", inside)
                           for name in _sorted_names(path, top)[::-1])
            continue
        if rules.ignored(rel, is_dir=False):
            continue
        if not stat.S_ISREG(info.st_mode):
            raise ChartError(f"cannot load irregular file {path} as it has file mode type bits set")
        data = _read_bounded(real, rel, limits.max_file_bytes, os.path.basename(real))
        if data.startswith(_UTF8_BOM):
            data = data[len(_UTF8_BOM):]
        out.append((rel, data))
    return out


def _too_large(name: str, limit: int) -> ChartError:
    return ChartError(f"chart file {gostrconv.quote(name)} is larger than the maximum file size {limit}")


def _read_bounded(path: str, rel: str, limit: int, name: str) -> bytes:
    """The file's bytes, refused past ``limit`` (checked again on the bytes read: it may grow)."""
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > limit:
                raise _too_large(name, limit)
            # Sized to the file, not to the limit: a 5 MiB buffer per small file is slow.
            data = handle.read(size + 1)
            if len(data) > size:
                data += handle.read(limit + 1 - len(data))
    except OSError as exc:
        raise ChartError(f"error reading {rel}: {exc.strerror}") from None
    if len(data) > limit:
        raise _too_large(name, limit)
    return data


def _sorted_names(path: str, top: str) -> list[str]:
    try:
        return sorted(os.listdir(path))
    except OSError as exc:
        raise ChartError(f"{top}: cannot list {path}: {exc.strerror}") from None


def _lstat(path: str) -> os.stat_result:
    try:
        return os.lstat(path)
    except OSError as exc:
        raise ChartError(f"lstat {path}: {_go_errno(exc)}") from None


def _resolve(path: str) -> str:
    """Go's ``filepath.EvalSymlinks``: the real path, or an error naming the link."""
    try:
        real = os.path.realpath(path, strict=True)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # links pointing at each other
            raise ChartError(f"error evaluating symlink {path}: EvalSymlinks: too many links") from None
        where = f"lstat {exc.filename}: " if exc.filename else ""
        raise ChartError(f"error evaluating symlink {path}: {where}{_go_errno(exc)}") from None
    return real


def _go_errno(exc: OSError) -> str:
    """Go's text for an errno: Python's strerror with a lower-case first letter."""
    text = exc.strerror or str(exc)
    return text[:1].lower() + text[1:]


