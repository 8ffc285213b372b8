"""The ``history`` action: every stored version of a release, oldest first (ULID order).

Rules: ``max_versions`` keeps the newest ones (Helm's ``--max``, default 256); a release with
no stored version is ``ReleaseNotFoundError`` ("release: not found", Helm's text).
"""
from __future__ import annotations

from helm_core.action import config
from helm_core.errors import ReleaseNotFoundError
from helm_core.storage import release as rel

DEFAULT_MAX = 256


def run(cfg: config.Configuration, name: str, namespace: str, *,
        max_versions: int = DEFAULT_MAX) -> list[rel.ReleaseVersion]:
    """The newest ``max_versions`` versions of ``name``, oldest first."""
    history = cfg.driver.history(namespace, name)
    if not history:
        raise ReleaseNotFoundError("release: not found")
    return history[-max_versions:] if max_versions > 0 else history
