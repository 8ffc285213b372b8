"""Drift: objects of the deployed version changed or deleted behind the controller's back.

Detection reads each object of the stored manifest (as the request's service account): a
missing object is drift; a present one is compared with a server-side apply dry run of the
stored object (forced, so fields another manager took over come back): if the dry run would
change anything outside ``metadata`` and ``status``, the object drifted. Correction is an
upgrade with the same chart and values (a new version), so helm_core re-applies everything
exactly as an upgrade does.
Limits: ``MAX_REPORTED`` drifted objects are named; hooks are not checked (Helm keeps them
outside the manifest).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from helm_core import errors as core_errors
from helm_core.action import config as action_config
from helm_core.kube import client as kclient
from helm_core.storage import release as rel

MODES = ("disabled", "warn", "enabled")
MAX_REPORTED = 20
_IGNORED = ("metadata", "status")


def mode(spec: Mapping[str, Any]) -> str:
    """``spec.driftDetection.mode`` (default disabled)."""
    return str((spec.get("driftDetection") or {}).get("mode") or "disabled")


def detect(cfg: action_config.Configuration, version: rel.ReleaseVersion) -> list[str]:
    """Lines naming each drifted object (``ConfigMap "x" in namespace "y": deleted``)."""
    found: list[str] = []
    objects = action_config.resolve_stored(cfg, action_config.parse_manifest(version.manifest),
                                           version.namespace)
    for obj in objects:
        ref = kclient.ObjectRef.of(obj)
        try:
            live = cfg.client.get(ref)
        except core_errors.NotFoundError:
            found.append(f"{ref}: deleted")
            continue
        desired = cfg.client.apply(obj, force=True, dry_run=True)
        if _content(desired) != _content(live):
            changed = sorted(k for k in set(_content(desired)) | set(_content(live))
                             if _content(desired).get(k) != _content(live).get(k))
            found.append(f"{ref}: changed ({', '.join(changed)})")
        if len(found) >= MAX_REPORTED:
            break
    return found


def _content(obj: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k not in _IGNORED}
