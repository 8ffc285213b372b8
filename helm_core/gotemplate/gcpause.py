"""Pause the cyclic garbage collector while trees and closures are built.

Parsing a template, loading its trees from the memo and compiling them into closures
allocate many small objects that all stay alive; the collector scanning them again and
again made a chart's first render markedly slower (``bench/deferred.py`` renders with the
collector on and off). Nothing cyclic becomes garbage while they are built, so pausing
changes no behaviour. The previous state is restored; nested pauses are harmless. (The CLI runs with the collector off.)
"""
from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused() -> Iterator[None]:
    was_enabled = gc.isenabled()
    if was_enabled:
        gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
