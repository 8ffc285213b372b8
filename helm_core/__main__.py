"""The ``helm-core`` console script (and ``python -m helm_core``).

The cyclic garbage collector is turned off before anything else is imported: a run is a
short process that builds large, long-lived graphs (modules, classes, parse trees,
values), and collections that free nothing are a visible part of a small chart's run
(``bench/deferred.py`` renders with the collector on and off).
Reference counting still frees everything that is not cyclic.
"""
import gc


def run() -> None:
    gc.disable()
    try:
        from helm_core import cli
        cli.run()
    except Exception as exc:  # noqa: BLE001 - last resort: a bug is still one line, never a traceback
        import os
        import sys

        print(f"Error: internal error ({type(exc).__name__}): {exc}".splitlines()[0], file=sys.stderr)
        sys.stderr.flush()
        os._exit(1)


if __name__ == "__main__":
    run()
