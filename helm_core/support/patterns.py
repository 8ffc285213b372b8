"""Regular expressions compiled on first use instead of at import.

A module's patterns are compiled when it is imported, and a short CLI run imports many modules
whose patterns it never uses (a run whose parse trees and YAML come from the disk memo never
lexes or resolves a scalar): compiling them is start-up time (bench/deferred.py). Hot loops
take the pattern once (``match = _PATTERN().match``) rather than calling for it each time.
"""
from __future__ import annotations

import functools
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


def on_first_use(pattern: str, flags: int = 0) -> Callable[[], re.Pattern[str]]:
    """A function that returns ``re.compile(pattern, flags)``, compiled by its first call."""
    return functools.cache(lambda: re.compile(pattern, flags))
