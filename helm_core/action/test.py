"""The ``test`` action: run a deployed release's ``test`` hooks (``helm test``).

Rules: the hooks are those stored with the newest version, which must be ``deployed``; they run
as every hook does (weights, delete policies, Jobs and Pods waited for); a failing test is a
``HookError`` naming it and its reason. ``filter`` keeps only tests whose name it lists.
"""
from __future__ import annotations

from collections.abc import Sequence

from helm_core.action import config, get, hooks
from helm_core.errors import HelmError
from helm_core.kube import client as kclient
from helm_core.kube import wait as kwait
from helm_core.storage import release as rel


def run(cfg: config.Configuration, name: str, namespace: str, *,
        timeout_s: float = kwait.DEFAULT_TIMEOUT_S,
        only: Sequence[str] = ()) -> list[kclient.ObjectRef]:
    """Run the test hooks of release ``name``; returns the tests run, in order."""
    release = get.run(cfg, name, namespace)
    if release.status is not rel.Status.DEPLOYED:
        raise HelmError(f'release "{name}" is {release.status.value}, not deployed: '
                        f"nothing to test")
    stored = [h for h in hooks.parse(release.hooks) if not only or h.name in only]
    owner = config.owner(cfg, namespace=namespace, name=name)
    return hooks.run(cfg, stored, "test", owner=owner, timeout_s=timeout_s)
