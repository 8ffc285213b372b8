"""Results of the regular-expression functions, remembered in this process and in the disk memo.

A chart's regular expressions mostly run on the same short texts every render (Bitnami's
``common`` cleans the release name with ``regexReplaceAll`` and checks every image tag with
``regexFind``), and their results are decided by their arguments alone. Computing one costs a
run the import of :mod:`helm_core.golib.goregexp` and RE2 and the pattern's compilation (~10 ms
together), where a render that takes its results from the memo (a chart that generates
passwords renders only the templates that draw them: :mod:`helm_core.cli.rendered`) needs a
single file read.

One memo entry holds every result remembered (a first run meets a dozen; creating one file per
result would cost more than it saves), loaded at the first regex call of a process and written
again by :func:`save` when the process added some. Two processes saving at once may lose each
other's new results, which are then computed again: the entry's key covers the code that
computes them (this package's regex modules, goregexp with goutf8, and RE2), so it never holds a
wrong one.
"""
from __future__ import annotations

import functools
import os
import sys
import threading

from helm_core.support import cachekeys, memo

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeAlias

#: What a function was asked: its name, then its text arguments.
Call: TypeAlias = "tuple[str, ...]"

#: The memo kind of the results entry.
RESULTS_MEMO = "regex-results"
#: Results kept; past it, the process (and the entry it saves) starts again.
MAX_RESULTS = 1024
#: Longest arguments and result (characters together) remembered: long texts are rarely met again.
MAX_CHARS = 1024
#: What :func:`recall` answers for a call it has no result for.
MISSING: Any = object()


class _Results:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        #: The memo root the results were loaded from ("" when loaded from none).
        self.root: str | None = None
        self.found: dict[Call, Any] = {}
        self.new = False

    def loaded(self) -> dict[Call, Any]:
        """The results, loaded from the active memo the first time (or when it changed)."""
        disk = memo.active()
        root = disk.root_text if disk is not None else ""
        if root != self.root:
            self.root, self.found, self.new = root, {}, False
            found = disk.unpickled(RESULTS_MEMO, _entry_key()) if disk is not None else None
            if isinstance(found, dict):
                self.found = found
        return self.found


_RESULTS = _Results()


def recall(call: Call) -> Any:
    """The result remembered for ``call``, or :data:`MISSING`."""
    with _RESULTS.lock:
        return _RESULTS.loaded().get(call, MISSING)


def remember(call: Call, result: Any) -> None:
    """Keep ``result`` of ``call`` (short texts only, see :data:`MAX_CHARS`)."""
    size = sum(map(len, call)) + (len(result) if isinstance(result, str) else 0)
    if size > MAX_CHARS:
        return
    with _RESULTS.lock:
        found = _RESULTS.loaded()
        if len(found) >= MAX_RESULTS:
            found.clear()
        found[call] = result
        _RESULTS.new = True


def save() -> None:
    """Write the results if this process added some (a render calls it when done)."""
    disk = memo.active()
    with _RESULTS.lock:
        if disk is None or not _RESULTS.new or disk.root_text != _RESULTS.root:
            return
        _RESULTS.new = False
        from helm_core.support import pickling

        blob = pickling.dumps(_RESULTS.found, protocol=pickling.HIGHEST_PROTOCOL)
    disk.put(RESULTS_MEMO, _entry_key(), blob)


@functools.cache
def _entry_key() -> str:
    here = os.path.dirname(os.path.abspath(__file__))
    golib = os.path.join(os.path.dirname(os.path.dirname(here)), "golib")
    goregexp = os.path.join(golib, "goregexp")
    code = [os.path.join(here, "regex.py"), __file__, os.path.join(golib, "goutf8.py"),
            *(os.path.join(goregexp, name) for name in sorted(os.listdir(goregexp)) if name.endswith(".py"))]
    re2 = memo.package_folder("re2")
    if re2 is not None:
        code += [os.path.join(re2, name) for name in sorted(os.listdir(re2)) if name.endswith((".py", ".so"))]
    return cachekeys.hexdigest(f"{sys.version}\0regex results\0{memo.code_digest(*code)}".encode())
