"""The ``helm-core`` console script (and ``python -m helm_core``).

The cyclic garbage collector is turned off before anything else is imported: a run is a
short process that builds large, long-lived graphs (modules, classes, parse trees,
values), and collections that free nothing are a visible part of a small chart's run
(``bench/deferred.py`` renders with the collector on and off).
Reference counting still frees everything that is not cyclic.

argparse is imported without gettext (:func:`_argparse_without_gettext`), and ``datetime`` is
CPython's C module itself (:func:`_datetime_without_its_python_twin`).
"""
import gc
import sys


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
    A program that imported datetime already keeps it; without the C module, nothing changes."""
    if "datetime" in sys.modules:
        return
    try:
        import _datetime  # type: ignore[import-not-found]  # (no stubs: the C module behind datetime)
    except ImportError:
        return
    sys.modules["datetime"] = _datetime


if __name__ == "__main__":
    run()
