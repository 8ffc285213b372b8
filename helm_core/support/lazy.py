"""Package names imported on first use (PEP 562): a package re-exports its public names
without importing the submodules that hold them until a name is read; and modules imported
by name (:func:`import_module`)."""
from __future__ import annotations

import sys
from collections.abc import Callable, Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any


def import_module(name: str) -> ModuleType:
    """``importlib.import_module`` of an absolute name, without importing :mod:`importlib`
    (a package of its own beside the interpreter's frozen import system): start-up time of
    every CLI run, which needs nothing else of it."""
    __import__(name)
    return sys.modules[name]


def exports(package: str, homes: Mapping[str, str], namespace: dict[str, Any]) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``package``: each name of ``homes`` comes from the submodule it
    maps to, then stays in ``namespace`` (the package's globals) as a plain attribute."""

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f"{package}.{home}"), name)
        namespace[name] = value
        return value

    return __getattr__
