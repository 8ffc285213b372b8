"""The ``drift`` action: objects of a deployed version changed or deleted behind its back.

Detection reads each object of the stored manifest: a missing object is drift; a present one is
compared with a server-side apply dry run of the stored object (forced, so fields another
manager took over come back): if the dry run would change anything outside ``metadata`` and
``status``, the object drifted.
Correction server-side applies the drifted objects again, and only them, under the release
lock, exactly as the version stored them (Flux corrects drift the same way): no new version,
since what runs is again what the deployed version says. If another operation changed the
release meanwhile, nothing is applied.
Hooks are not checked (Helm keeps them outside the manifest).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from helm_core.action import config
from helm_core.errors import NotFoundError
from helm_core.kube import client as kclient
from helm_core.storage import release as rel
from helm_core.support.records import record

_IGNORED = ("metadata", "status")


@record(frozen=True)
class Drifted:
    """One drifted object: what to say, and the stored object that puts it right."""

    line: str
    """``ConfigMap "x" in namespace "y": deleted`` (or ``changed (data)``)."""
    stored: dict[str, Any]
    """The object as the deployed version stored it, resolved."""


def detect(cfg: config.Configuration, version: rel.ReleaseVersion) -> list[Drifted]:
    """Every drifted object of ``version``, in manifest order."""
    found: list[Drifted] = []
    objects = config.resolve_stored(cfg, config.parse_manifest(version.manifest), version.namespace)
    for obj in objects:
        ref = kclient.ObjectRef.of(obj)
        try:
            live = cfg.client.get(ref)
        except NotFoundError:
            found.append(Drifted(f"{ref}: deleted", obj))
            continue
        desired = _content(cfg.client.apply(obj, force=True, dry_run=True))
        current = _content(live)
        if desired != current:
            changed = sorted(k for k in set(desired) | set(current) if desired.get(k) != current.get(k))
            found.append(Drifted(f"{ref}: changed ({', '.join(changed)})", obj))
    return found


def correct(cfg: config.Configuration, version: rel.ReleaseVersion, found: Sequence[Drifted]) -> bool:
    """Apply the drifted objects of ``version`` again (module rules); False when ``version``
    is no longer the deployed head of the release, and nothing was applied."""
    with config.locked(cfg, namespace=version.namespace, name=version.name,
                       operation="drift-correction") as history:
        head = rel.latest(history)
        if head is None or head.version != version.version or head.status is not rel.Status.DEPLOYED:
            return False
        owner = config.owner(cfg, namespace=version.namespace, name=version.name)
        config.apply_batched(cfg, [d.stored for d in found], owner)
    return True


def _content(obj: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k not in _IGNORED}
