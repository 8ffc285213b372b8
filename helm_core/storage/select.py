"""Which storage a command or a HelmRequest keeps its release in.

- ``release`` (the default): helm-core's own (version Secrets owned by a ``Release``), read
  together with Helm's so releases stock helm made are listed and adopted (``storage/adopt.py``).
- ``helm``: Helm's own format (``storage/helmsecrets.py``), so stock helm keeps working on the
  release; versions are integer revisions.
"""
from __future__ import annotations

from collections.abc import Callable

from helm_core.kube import client as kclient
from helm_core.storage import adopt, helmsecrets, secrets
from helm_core.storage import driver as drv

STORAGES = ("release", "helm")
DEFAULT_STORAGE = "release"


def open_driver(client: kclient.ClusterClient, *, storage: str = DEFAULT_STORAGE,
                helm_secrets: str = adopt.HelmSecrets.KEEP.value,
                log: Callable[[str], None] | None = None, announce_after_s: float = 0.0) -> drv.Driver:
    """The driver for ``storage`` (``ValueError`` naming an unknown storage or policy).
    ``announce_after_s``: how long an operation runs before its pending version reaches the
    ``Release`` status (``storage/secrets.py``; Helm's format writes its status in the version
    Secret itself, at once)."""
    if storage == "helm":
        return helmsecrets.HelmSecretsDriver(client)
    if storage != "release":
        raise ValueError(f'storage "{storage}" is not one of: {", ".join(STORAGES)}')
    return adopt.AdoptingDriver(client, secrets.SecretsDriver(client, announce_after_s=announce_after_s),
                                helm_secrets=adopt.HelmSecrets.parse(helm_secrets), log=log)
