"""The ``get`` action: one stored version of a release (``helm get manifest|values|notes|hooks|all``).

Rules: without a version, the newest one whatever its status (Helm's ``Get``); values are the
user-supplied ones unless ``all_values`` (the coalesced values templates saw). Reading needs
Secrets access: a reader of ``Release`` objects only cannot get here.
"""
from __future__ import annotations

from typing import Any

import ulid

from helm_core.action import config
from helm_core.errors import ReleaseNotFoundError
from helm_core.storage import release as rel


def not_found(name: str) -> ReleaseNotFoundError:
    return ReleaseNotFoundError("release: not found")


def run(cfg: config.Configuration, name: str, namespace: str,
        version: ulid.ULID | None = None) -> rel.ReleaseVersion:
    """The version ``version`` of release ``name`` (the newest when None)."""
    if version is not None:
        return cfg.driver.get(namespace, name, version)
    newest = rel.latest(cfg.driver.history(namespace, name))
    if newest is None:
        raise not_found(name)
    return newest


def values(release: rel.ReleaseVersion, *, all_values: bool = False) -> dict[str, Any]:
    """``get values`` (user values) or ``get values --all`` (computed values)."""
    return dict(release.chart_values if all_values else release.user_values)
