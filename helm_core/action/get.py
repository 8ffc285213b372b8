"""The ``get`` action: one stored version of a release (``helm get manifest|values|notes|hooks|all``).

Rules: without a version, the newest one whatever its status (Helm's ``Get``); values are the
user-supplied ones unless ``all_values`` (the coalesced values templates saw). Reading needs
Secrets access: a reader of ``Release`` objects only cannot get here.
"""
from __future__ import annotations

from typing import Any

import ulid

from helm_core.action import config
from helm_core.chart import values as chart_values
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
    """``get values`` (user values) or ``get values --all`` (:func:`computed_values`)."""
    return computed_values(release) if all_values else dict(release.user_values)


def computed_values(release: rel.ReleaseVersion) -> dict[str, Any]:
    """The version's computed values as helm rebuilds them from its record (``get values
    --all``, ``get all``, ``upgrade --reuse-values``): a version read from helm's record has its
    user values coalesced over the record's chart values again, saying helm's coalescing
    warnings (``helmlog``) as helm does each time; one helm-core made has them stored."""
    if release.helm_chart_values is None:
        return dict(release.chart_values)
    return chart_values.coalesce_stored(release.chart_name, release.helm_chart_values, release.user_values)
