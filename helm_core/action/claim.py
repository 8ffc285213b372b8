"""The ``claim`` action: one manager per release.

A caller that manages releases on behalf of something else (the controller, for a HelmRequest)
claims the release before acting on it; the claim is kept by the storage driver (on a cluster,
an annotation of the ``Release`` object, created with the claim). A second claimant is told who
holds the release and must not act; a release nobody claimed (installed by the CLI) is taken.
"""
from __future__ import annotations

from helm_core.action import config


def run(cfg: config.Configuration, *, namespace: str, name: str, annotation: str, claimant: str,
        new: bool = False) -> str:
    """Claim release ``namespace/name`` for ``claimant`` (under ``annotation``); returns the
    other claimant holding it, "" when the claim holds. ``new``: the caller expects a first
    install (the storage may then create before it reads)."""
    return cfg.driver.claim(namespace, name, annotation=annotation, claimant=claimant, new=new)


def holder(cfg: config.Configuration, *, namespace: str, name: str, annotation: str) -> str | None:
    """Who holds the release ("" for nobody), None when the release is not stored."""
    return cfg.driver.claimant(namespace, name, annotation=annotation)
