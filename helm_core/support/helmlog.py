"""Helm's ``log.Printf`` warnings (a symbolic link followed, a dependency condition that is not a
boolean...): logged (stderr for the CLI, the log for the controller), and recorded while a
:func:`recording` block runs, so that a CLI run printed from its memo says them again.

logging is imported by the first warning only: with traceback and tokenize it is a visible part
of a short run.
"""
from __future__ import annotations

import contextlib
from collections.abc import Iterator

_recorded: list[str] | None = None


def warn(logger: str, text: str) -> None:
    """Log Helm's warning ``text`` as ``logger`` (a module's name), and record it."""
    import logging

    logging.getLogger(logger).warning("%s", text)
    if _recorded is not None:
        _recorded.append(text)


@contextlib.contextmanager
def recording() -> Iterator[list[str]]:
    """The warnings given while the block runs (in this process), in order."""
    global _recorded
    previous, _recorded = _recorded, []
    try:
        yield _recorded
    finally:
        _recorded = previous
