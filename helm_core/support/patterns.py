"""Regular expressions compiled on first use instead of at import, and from prebuilt code.

A module's patterns are compiled when it is imported, and a short CLI run imports many modules
whose patterns it never uses (a run whose parse trees and YAML come from the disk memo never
lexes or resolves a scalar): compiling them is start-up time (bench/deferred.py). Hot loops
take the pattern once (``match = _PATTERN().match``) rather than calling for it each time.

Compiling is itself costly: ``re`` parses and compiles a pattern in Python (the lexer's two
stream patterns took ~2.7 ms, ~10 million instructions, of every run that lexes). The patterns
this package declares (:func:`on_first_use`, :func:`compiled`) are compiled once more, ahead,
by ``scripts/gen_sre_codes.py`` into ``sre_codes.py``: the engine's code for each, which
:func:`compiled` hands to the engine directly (what ``re``'s compiler does last) when the
running interpreter's engine is the one the table was made for (same implementation, Python
minor version, engine magic and code size). The engine checks the code it is given; anything
else (another interpreter, a pattern not in the table, code it refuses) is compiled by ``re``.
A compiled pattern compares equal to ``re.compile``'s exactly when their code is the same
(tests/test_patterns.py).
"""
from __future__ import annotations

import functools
import re
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

#: Every (pattern, flags) declared through this module, in declaration order: what
#: ``scripts/gen_sre_codes.py`` prebuilds (``sre_prebuild``: after importing every module of the package).
DECLARED: dict[tuple[str, int], None] = {}


def on_first_use(pattern: str, flags: int = 0) -> Callable[[], re.Pattern[str]]:
    """A function that returns ``re.compile(pattern, flags)``, compiled by its first call
    (from prebuilt code when there is some, see :func:`compiled`)."""
    DECLARED[pattern, int(flags)] = None
    return functools.cache(lambda: _compiled(pattern, int(flags)))


def compiled(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, from its prebuilt code when ``sre_codes.py`` has it for
    this interpreter's engine."""
    DECLARED[pattern, int(flags)] = None
    return _compiled(pattern, int(flags))


def _compiled(pattern: str, flags: int) -> re.Pattern[str]:
    built = _prebuilt(pattern, flags)
    return built if built is not None else re.compile(pattern, flags)


def _engine_module() -> Any:
    import _sre  # type: ignore[import-not-found]  # (no stubs: the engine of re)

    return _sre


def engine() -> tuple[Any, ...]:
    """What decides the engine's code for a pattern: prebuilt code is for this engine only."""
    sre = _engine_module()
    return (sys.implementation.name, sys.version_info[:2], sre.MAGIC, sre.CODESIZE, sys.byteorder)


def _prebuilt(pattern: str, flags: int) -> re.Pattern[str] | None:
    codes = _table()
    entry = codes.get((pattern, flags)) if codes else None
    if entry is None:
        return None
    final_flags, code, groups, groupindex, indexgroup = entry
    try:  # the engine validates the code ("invalid SRE code" otherwise)
        built: re.Pattern[str] = _engine_module().compile(
            pattern, final_flags, memoryview(code).cast("I").tolist(), groups, dict(groupindex), indexgroup)
    except Exception:  # noqa: BLE001 - refused or another engine's API: re compiles it
        return None
    return built


@functools.cache
def _table() -> dict[tuple[str, int], Any]:
    """The prebuilt codes when they were made for this engine, else nothing."""
    try:
        from helm_core.support import sre_codes
    except ImportError:
        return {}
    if sre_codes.ENGINE != engine() or memoryview(bytes(4)).cast("I").itemsize != 4:  # (words of CODESIZE 4)
        return {}
    return sre_codes.CODES
