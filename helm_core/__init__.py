"""helm_core: Helm 3 as a Python library (charts, templates, releases), and the ``helm-core`` CLI.

The public API (docs/library.md) is re-exported here lazily (PEP 562): ``import helm_core``
imports nothing else, so the CLI's start-up stays as cheap as ``bench/startup.py`` measures;
the first use of a name imports what it needs.

    >>> import helm_core
    >>> print(helm_core.template("examples/charts/hello", {"replicaCount": 2}))  # doctest: +SKIP

Names: :func:`load_chart`, :func:`template`, :func:`merge_values`, :func:`connect`,
:func:`install`, :func:`upgrade`, :func:`rollback`, :func:`uninstall`, :func:`get`,
:func:`history`, :func:`list_releases` (all in :mod:`helm_core.api`); ``actions`` (the action
modules, :mod:`helm_core.action`), ``errors`` (:mod:`helm_core.errors`), ``HelmError``.
"""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from helm_core import action as actions
    from helm_core import api, errors
    from helm_core.api import (
        connect,
        get,
        history,
        install,
        list_releases,
        load_chart,
        merge_values,
        rollback,
        template,
        uninstall,
        upgrade,
    )
    from helm_core.errors import HelmError

_API = ("load_chart", "template", "merge_values", "connect", "install", "upgrade", "rollback",
        "uninstall", "get", "history", "list_releases")
_MODULES = {"actions": "helm_core.action", "errors": "helm_core.errors", "api": "helm_core.api"}

__all__ = ["load_chart", "template", "merge_values", "connect", "install", "upgrade", "rollback",
           "uninstall", "get", "history", "list_releases", "actions", "errors", "api", "HelmError"]


def __getattr__(name: str) -> Any:
    if name in _API:
        home, attribute = "helm_core.api", name
    elif name in _MODULES:
        home, attribute = _MODULES[name], None
    elif name == "HelmError":
        home, attribute = "helm_core.errors", name
    else:  # also asked for every submodule before it is imported (`from helm_core import cli`)
        raise AttributeError(f"module 'helm_core' has no attribute {name!r}")
    from helm_core.support.lazy import import_module  # not importlib: start-up time

    module = import_module(home)
    value = module if attribute is None else getattr(module, attribute)
    globals()[name] = value  # the next lookup is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
