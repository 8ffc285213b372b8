"""The ``status`` action: the newest version of a release and its state (``helm status``)."""
from __future__ import annotations

import ulid

from helm_core.action import config, get
from helm_core.storage import release as rel


def run(cfg: config.Configuration, name: str, namespace: str,
        version: ulid.ULID | None = None) -> rel.ReleaseVersion:
    """The version ``helm status`` reports (the newest, or ``version``)."""
    return get.run(cfg, name, namespace, version)
