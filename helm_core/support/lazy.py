"""Package names imported on first use (PEP 562): a package re-exports its public names
without importing the submodules that hold them until a name is read."""
from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def exports(package: str, homes: Mapping[str, str], namespace: dict[str, Any]) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``package``: each name of ``homes`` comes from the submodule it
    maps to, then stays in ``namespace`` (the package's globals) as a plain attribute."""

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{home}"), name)
        namespace[name] = value
        return value

    return __getattr__
