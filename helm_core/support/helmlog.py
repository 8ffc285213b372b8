"""Helm's ``log.Printf`` warnings (a symbolic link followed, a dependency condition that is not a
boolean, values that do not coalesce...): logged (stderr for the CLI, the log for the
controller), and recorded while a :func:`recording` block runs, so that a CLI run printed from
its memo says them again.

Each line starts as helm's does: helm sets ``log.Lshortfile``, so Go's logger puts the file and
line of the ``log.Printf`` call first (``coalesce.go:316: warning: ...``).

logging is imported by the first warning only: with traceback and tokenize it is a visible part
of a short run.
"""
from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

_recorded: list[str] | None = None
#: Per thread: the controller reads one release quietly while another thread prepares a chart.
_quiet = threading.local()


def warn(logger: str, where: str, text: str) -> None:
    """Log Helm's warning ``text`` as ``logger`` (a module's name), and record it; ``where`` is
    the Go file and line of helm's ``log.Printf`` (``coalesce.go:316``)."""
    if getattr(_quiet, "on", False):
        return
    import logging

    line = f"{where}: {text}"
    logging.getLogger(logger).warning("%s", line)
    if _recorded is not None:
        _recorded.append(line)


@contextlib.contextmanager
def recording() -> Iterator[list[str]]:
    """The warnings given while the block runs (in this process), in order."""
    global _recorded
    previous, _recorded = _recorded, []
    try:
        yield _recorded
    finally:
        _recorded = previous


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """No warning is logged or recorded while the block runs: for work that is not one of
    helm's steps (reading a release helm stored), or that another process repeats and logs."""
    previous, _quiet.on = getattr(_quiet, "on", False), True
    try:
        yield
    finally:
        _quiet.on = previous
