"""A memo on disk for pure, expensive results that short processes would otherwise redo.

``helm-core template`` is a fresh process each time: without a memo it re-parses every
template and re-checks every values schema against its metaschema on every run (most of a
cold run for large charts). Like Python's ``__pycache__``, entries are found only by a digest
of everything the result depends on (the input and the code that computes it), so an entry
can never be stale: after a change it is simply not found again.

Rules:
- The library keeps no memo unless one is installed with :func:`use` (the CLI does, under its
  cache root; a long-running controller keeps its caches in memory instead).
- Writes go to a temporary file in the same folder and are renamed into place; a missing,
  unreadable or corrupt entry is a miss and the result is computed again.
- The folder is private to the user (0700): entries may be pickles, and a pickle must only
  come from the user's own earlier runs.
- Size is bounded: now and then a write removes the least recently written entries until the
  folder fits ``max_bytes``.
- A memo made with ``defer_writes`` (the CLI's) keeps its new entries in memory until
  :meth:`DiskMemo.write_pending`: the console script prints its output first and then writes
  them from a detached child (:meth:`DiskMemo.write_pending_detached`), as ``git gc --auto``
  detaches: creating a file is the memo's cost, and the user waits for the output, not for the memo.
"""
from __future__ import annotations

import contextlib
import itertools
import os
import sys
import threading
from collections.abc import Callable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from importlib.machinery import ModuleSpec
    from pathlib import Path
    from typing import Any, TypeVar

    T = TypeVar("T")

DEFAULT_MAX_BYTES = 256 * 1024 * 1024
#: One writing process in this many checks the folder's size (a scan lists every entry).
PRUNE_EVERY = 32
#: Fewer pending entries than this are written by the exiting process itself: a fork of a CLI
#: run costs 1.5-4 ms, what creating a few to 40 entries costs on the machine measured (its file
#: creations vary forty-fold with other processes' writes; bench/memo_writes.py).
DETACH_FROM_ENTRIES = 4
#: The detached writer's niceness (added to this process's).
CHILD_NICENESS = 10


#: What :meth:`DiskMemo.unpickled` returns for a miss where None may be a value.
_MISSING = object()


class DiskMemo:
    """Entries ``<root>/<kind>/<key>`` of bytes; ``kind`` names what computed them."""

    def __init__(self, root: str | os.PathLike[str], *, max_bytes: int = DEFAULT_MAX_BYTES,
                 defer_writes: bool = False) -> None:
        self._root_text = os.fspath(root)
        self.max_bytes = max_bytes
        self._folders: set[str] = set()  # kinds whose folder this process made sure of
        self._temp_names = itertools.count()
        self._prune_drawn = False
        #: Entries put and not written yet (``defer_writes``), by (kind, key).
        self._pending: dict[tuple[str, str], bytes] | None = {} if defer_writes else None
        #: Jobs that make entries, run before the pending entries are written (``defer_writes``).
        self._jobs: list[Callable[[], None]] = []
        #: Kinds whose entries are read but no longer written (:meth:`stop_writing`).
        self._not_written: frozenset[str] = frozenset()

    @property
    def root_text(self) -> str:
        """The folder, as given (a string: no pathlib on a warm run's path)."""
        return self._root_text

    @property
    def root(self) -> Path:
        from pathlib import Path

        return Path(self._root_text)

    def get(self, kind: str, key: str) -> bytes | None:
        if self._pending:
            waiting = self._pending.get((kind, key))
            if waiting is not None:
                return waiting
        # A warm run reads hundreds of entries: plain strings and open(), no Path objects.
        try:
            with open(f"{self._root_text}/{kind}/{key}", "rb") as entry:
                return entry.read()
        except OSError:
            return None

    def put(self, kind: str, key: str, data: bytes) -> None:
        """Store ``data`` (kept in memory until :meth:`write_pending` with ``defer_writes``);
        a failure to write (read-only or full disk) only loses the memo."""
        if kind in self._not_written:
            return
        if self._pending is not None:
            self._pending[(kind, key)] = data
            return
        self._write(kind, key, data)

    def stop_writing(self, *kinds: str) -> None:
        """From now on, entries of ``kinds`` are read but not written: what this process would
        add would not be read again (a render that repeats an identical earlier one misses only
        on what it drew at random)."""
        self._not_written |= frozenset(kinds)

    @property
    def defers_writes(self) -> bool:
        """Whether :meth:`defer`'s jobs wait for :meth:`write_pending`."""
        return self._pending is not None

    def defer(self, job: Callable[[], None]) -> None:
        """Run ``job``, which makes entries and puts them, now; or with ``defer_writes``, when
        the pending entries are written (the console script: after its output, in the child
        that writes them: pickling a render's trees is a visible part of a first run)."""
        if self._pending is None:
            job()
        else:
            self._jobs.append(job)

    def write_pending(self) -> None:
        """Run the deferred jobs, then write the entries kept by ``defer_writes`` (none are kept
        after this). A job that fails only loses its entries, as a write that fails does."""
        jobs, self._jobs = self._jobs, []
        for job in jobs:
            try:
                job()
            except Exception:  # noqa: BLE001 - the output is done: only the memo loses
                continue
        if self._pending is None:
            return
        pending, self._pending = self._pending, {}
        for (kind, key), data in pending.items():
            self._write(kind, key, data)

    def write_pending_detached(self) -> None:
        """:meth:`write_pending` in a child process that outlives this one, for a process about
        to exit: its output is complete, and whoever waits for it (a shell, a pipe's reader) need
        not wait for the memo too. The child leaves the session and closes every inherited
        descriptor (a pipe's reader sees its end when this process exits), waits for it to exit,
        works at a lower priority (background work, as ``git gc --auto``'s) and never runs
        anything else.
        Entries appear by atomic renames as they always do: a run that starts meanwhile misses
        them and computes its results again. A few entries are written in place, and all of them
        where there is no fork or another thread is alive."""
        # A job (trees to pickle, shapes to compile) is worth a fork by itself. A fork copies only
        # this thread: with another one alive (holding a lock a job needs?), no fork. (Threads of
        # support/oneshot's deadlines are not counted: they hold no lock, and a cancelled one
        # may still be on its way out.)
        worth_a_fork = bool(self._jobs) or len(self._pending or ()) >= DETACH_FROM_ENTRIES
        if not worth_a_fork or not hasattr(os, "fork") or threading.active_count() > 1:
            self.write_pending()
            return
        try:
            # Open in this process until it exits: the child starts its work then, not while this
            # one exits (on a busy machine it took the CPU from the exit for tens of ms).
            exited, alive = os.pipe()
        except OSError:
            self.write_pending()
            return
        try:
            child = os.fork()
        except OSError:
            os.close(exited)
            os.close(alive)
            self.write_pending()
            return
        if child != 0:
            os.close(exited)
            self._pending, self._jobs = {}, []  # the child writes them
            return
        try:  # the child: the memo's jobs and writes, then _exit (never the parent's exit path)
            os.close(alive)
            os.setsid()
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            # No other descriptor either (one its caller passed on and waits to see closed).
            os.closerange(3, exited)
            os.closerange(exited + 1, os.sysconf("SC_OPEN_MAX"))
            os.read(exited, 1)  # end of file: the parent has exited
            os.nice(CHILD_NICENESS)
            self.write_pending()
        finally:
            os._exit(0)

    def _write(self, kind: str, key: str, data: bytes) -> None:
        """A first run writes dozens of entries: each costs one file creation and one rename
        (``os.write``: a file object cost a fifth of that; no mkdir once the folder is known)."""
        folder = f"{self._root_text}/{kind}"
        tmp = f"{folder}/.tmp-{os.getpid()}-{next(self._temp_names)}"
        try:
            if kind not in self._folders:
                os.makedirs(folder, mode=0o700, exist_ok=True)
                self._folders.add(kind)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                try:
                    view = memoryview(data)
                    while view:
                        view = view[os.write(fd, view):]
                finally:
                    os.close(fd)
                os.replace(tmp, f"{folder}/{key}")
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except OSError:
            return
        if not self._prune_drawn:
            self._prune_drawn = True
            if os.urandom(1)[0] % PRUNE_EVERY == 0:
                self.prune()

    def pickled(self, kind: str, key: str, compute: Callable[[], T]) -> T:
        """The result of ``compute()``, unpickled from the entry when there is one.

        A damaged entry is a miss; an exception from ``compute`` is raised and nothing is stored.
        """
        from helm_core.support import pickling

        found = self.unpickled(kind, key, _MISSING)
        if found is not _MISSING:
            kept: T = found
            return kept
        value = compute()
        if kind not in self._not_written:  # (not even pickled)
            self.put(kind, key, pickling.dumps(value, protocol=pickling.HIGHEST_PROTOCOL))
        return value

    def unpickled(self, kind: str, key: str, default: Any = None) -> Any:
        """The entry unpickled; ``default`` when there is none, or it is damaged (a miss)."""
        blob = self.get(kind, key)
        if blob is None:
            return default
        from helm_core.support import pickling

        try:
            return pickling.loads_naming_known(blob)
        except Exception:  # noqa: BLE001 - a damaged entry is a miss
            return default

    def prune(self) -> None:
        """Remove the oldest entries until the memo fits ``max_bytes``.

        With os.scandir, not pathlib: a CLI run draws a prune now and then, and pathlib would
        import urllib and ipaddress into it."""
        entries: list[tuple[float, int, str]] = []
        with contextlib.suppress(OSError), os.scandir(self._root_text) as kinds:
            for kind in kinds:
                if not kind.is_dir(follow_symlinks=False):
                    continue
                with contextlib.suppress(OSError), os.scandir(kind.path) as found:
                    for entry in found:
                        if entry.name.startswith("."):  # another process's entry being written
                            continue
                        with contextlib.suppress(OSError):
                            st = entry.stat(follow_symlinks=False)
                            entries.append((st.st_mtime, st.st_size, entry.path))
        total = sum(size for _, size, _ in entries)
        for _, size, path in sorted(entries):
            if total <= self.max_bytes:
                break
            with contextlib.suppress(OSError):
                os.unlink(path)
            total -= size


_ACTIVE: DiskMemo | None = None


def use(memo: DiskMemo | None) -> None:
    """Install ``memo`` for this process (``None`` turns memoising off)."""
    global _ACTIVE
    _ACTIVE = memo


def active() -> DiskMemo | None:
    """The installed memo, if any."""
    return _ACTIVE


def code_digest(*paths: str | os.PathLike[str]) -> str:
    """A digest of the source files whose code decides a memoised result (part of its key).

    Files are known by path, size and modification time, as Python's bytecode cache knows
    them: reading and hashing ~50 files cost every run a few milliseconds."""
    from helm_core.support import cachekeys

    h = cachekeys.hasher()
    for path in paths:
        st = os.stat(path)
        h.update(b"%s\0%d\0%d\0" % (os.fsencode(path), st.st_size, st.st_mtime_ns))
    return h.hexdigest()


def package_folder(name: str) -> str | None:
    """Where an installed top-level package's code lives, found without importing it (its
    files go into memo keys; importing it would cost what the memo saves). A string: pathlib
    imports urllib and ipaddress, start-up time of every CLI run.

    The finders of ``sys.meta_path`` are asked as ``importlib.util.find_spec`` asks them, without
    importing importlib.util (with importlib and warnings, ~1.5 ms of every first run)."""
    module = sys.modules.get(name)
    spec = getattr(module, "__spec__", None) if module is not None else _find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return str(next(iter(spec.submodule_search_locations)))


def _find_spec(name: str) -> ModuleSpec | None:
    for finder in sys.meta_path:
        find_spec = getattr(finder, "find_spec", None)  # importlib skips finders without one too
        spec = find_spec(name, None) if find_spec is not None else None
        if spec is not None:
            return spec  # type: ignore[no-any-return]
    return None


class RecentPickles:
    """An in-process memo of pickled results, least recently used first out, bounded in bytes.

    For long-running processes (a controller, a library user) that load the same chart again:
    the result is kept pickled, so each caller gets its own copy (values are merged in place)
    at the cost of an unpickle, far below the cost of computing it again.
    """

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._entries: dict[str, bytes] = {}
        self._bytes = 0
        # Renders on several threads share it (toYaml and fromYaml go through it).
        self._lock = threading.Lock()

    def get_or_compute(self, key: str, compute: Callable[[], T]) -> T:
        from helm_core.support import pickling

        with self._lock:
            blob = self._entries.pop(key, None)
            if blob is not None:
                self._entries[key] = blob  # most recently used last
        if blob is not None:
            found: T = pickling.loads(blob)
            return found
        value = compute()
        blob = pickling.dumps(value, protocol=pickling.HIGHEST_PROTOCOL)
        if len(blob) <= self.max_bytes // 8:
            with self._lock:
                old = self._entries.pop(key, None)  # another thread's, computed meanwhile
                self._bytes += len(blob) - (len(old) if old is not None else 0)
                self._entries[key] = blob
                while self._bytes > self.max_bytes:
                    self._bytes -= len(self._entries.pop(next(iter(self._entries))))
        return value
