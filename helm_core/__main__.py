"""The ``helm-core`` console script (and ``python -m helm_core``).

The cyclic garbage collector is turned off before anything else is imported: a run is a
short process that builds large, long-lived graphs (modules, classes, parse trees,
values), and collections that free nothing are a visible part of a small chart's run
(``bench/deferred.py`` renders with the collector on and off).
Reference counting still frees everything that is not cyclic.

argparse is imported without gettext (:func:`_argparse_without_gettext`), and ``datetime`` is
CPython's C module itself (:func:`_datetime_without_its_python_twin`).
"""
from __future__ import annotations

import gc
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def run() -> None:
    gc.disable()
    try:
        _argparse_without_gettext()
        _datetime_without_its_python_twin()
        from helm_core import cli
        cli.run()
    except Exception as exc:  # noqa: BLE001 - last resort: a bug is still one line, never a traceback
        import os

        print(f"Error: internal error ({type(exc).__name__}): {exc}".splitlines()[0], file=sys.stderr)
        sys.stderr.flush()
        os._exit(1)


def _argparse_without_gettext() -> None:
    """Import argparse with a stand-in for the gettext module, which it imports for its two
    message functions: gettext's import (a module and a compiled pattern, ~1 ms) is paid by
    every run, and the console script words argparse in English anyway
    (``cli._english_argparse`` sets both functions before any parser is built). A program
    that imported argparse or gettext already keeps them as they are."""
    if "argparse" in sys.modules or "gettext" in sys.modules:
        return
    stand_in = type(sys)("gettext")
    for name in ("gettext", "ngettext"):  # argparse's two imports; cli._english_argparse sets both
        setattr(stand_in, name, None)
    sys.modules["gettext"] = stand_in
    try:
        import argparse  # noqa: F401
    finally:
        del sys.modules["gettext"]


def _datetime_without_its_python_twin() -> None:
    """``import datetime`` gives CPython's ``_datetime``, the C module whose names the standard
    ``datetime.py`` re-exports after defining each of its classes in Python first (its fallback
    for interpreters without the C module): ~6 million instructions, 4% of a small chart's
    render, for classes that are then replaced. The names and classes are the same objects
    (``datetime.datetime is _datetime.datetime``; pickles name them ``datetime.*`` either way).
    Done by the first ``import datetime``, so a run printed from the memo imports neither: a
    finder first on ``sys.meta_path`` answers it with the C module and leaves (without the C
    module, the next finder finds ``datetime.py``). The finder, also the spec's loader, is a
    ``types.SimpleNamespace`` (``sys.implementation``'s type): a class costs a CLI run ~0.1 ms
    to create. A program that imported datetime already keeps it."""
    if "datetime" in sys.modules:
        return
    finder: Any = type(sys.implementation)()

    def find_spec(name: str, path: Any = None, target: Any = None) -> Any:
        if name != "datetime":
            return None
        sys.meta_path.remove(finder)
        try:
            import _datetime  # type: ignore[import-not-found]  # noqa: F401  # (no stubs; in sys.modules now)
        except ImportError:
            return None
        return type(sys.__spec__)(name, finder)  # a ModuleSpec (the finder is its loader)

    finder.find_spec = find_spec
    finder.create_module = lambda spec: sys.modules["_datetime"]
    finder.exec_module = lambda module: None  # the C module is initialised
    sys.meta_path.insert(0, finder)


if __name__ == "__main__":
    run()
