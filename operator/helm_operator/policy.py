"""Admin policy applied to one HelmRequest: who to act as, what Lua may do, which release.

Rules:
- Lua permissions granted = the admin allowlist ∩ ``spec.lua.acceptPermissions``; a chart asking
  for anything outside that is refused before any of its Lua runs (helm_core checks the chart
  against the granted set; :func:`lua_refusal` words the message).
- The service account is ``spec.serviceAccountName``, else the admin default; with
  ``require_service_account`` and neither, the request is refused. An empty result means the
  controller's own identity (single-tenant clusters only).
- The release is ``spec.releaseName`` (default ``metadata.name``) in ``spec.targetNamespace``
  (default the request's namespace); one release has one owner request, named in an annotation
  of the Release object (:data:`OWNER_ANNOTATION`), and a second claimant is refused.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from helm_operator import errors, identity
from helm_operator import settings as settings_mod

#: Kubernetes' username for a ServiceAccount, used for impersonation.
SERVICE_ACCOUNT_USER = "system:serviceaccount:{namespace}:{name}"
# The request's identity and its release's (defined in identity.py, used here under these names).
OWNER_ANNOTATION = identity.OWNER_ANNOTATION
ReleaseKey = identity.ReleaseKey
release_key, owner_id = identity.release_key, identity.owner_id


def check_owner(key: ReleaseKey, *, claimed_by: str, requester: str) -> None:
    """Refuse a request for a release another request already owns (``claimed_by`` is the
    Release's annotation, empty when the release is new or unowned)."""
    if claimed_by and claimed_by != requester:
        raise errors.RequestError(
            f"release {key} is already managed by HelmRequest {claimed_by}; "
            f"choose another releaseName or targetNamespace", reason="ReleaseClaimed")


def service_account(meta: Mapping[str, Any], spec: Mapping[str, Any], *,
                    security: settings_mod.SecuritySettings, kind: str = "HelmRequest") -> str:
    """The ServiceAccount name to act as, or "" for the controller's own identity."""
    name = spec.get("serviceAccountName") or security.default_service_account
    if not name and security.require_service_account:
        raise errors.RequestError(
            f"{kind} {owner_id(meta)}: spec.serviceAccountName is required by the operator "
            "(no default service account is configured)", reason="ServiceAccountRequired")
    return name


def impersonated_user(namespace: str, service_account_name: str) -> str:
    """The username Kubernetes gives that ServiceAccount (what we impersonate)."""
    return SERVICE_ACCOUNT_USER.format(namespace=namespace, name=service_account_name)


def granted_lua_permissions(spec: Mapping[str, Any], *,
                            security: settings_mod.SecuritySettings) -> frozenset[str]:
    """Admin allowlist ∩ what the request accepts."""
    accepted = frozenset((spec.get("lua") or {}).get("acceptPermissions") or ())
    return accepted & security.lua_allowlist


def lua_refusal(asked: Mapping[str, Iterable[str]], *, accepted: Iterable[str],
                allowlist: Iterable[str]) -> str | None:
    """A message listing what each chart asked for and what was allowed, or None when every
    request is granted. ``asked`` maps chart path → permissions (helm_core's
    ``requested_permissions``)."""
    accepted_set, allow = frozenset(accepted), frozenset(allowlist)
    granted = accepted_set & allow
    lines = []
    for path, perms in asked.items():
        missing = frozenset(perms) - granted
        if not missing:
            continue
        why = []
        not_allowed = sorted(missing - allow)
        not_accepted = sorted(missing - accepted_set)
        if not_allowed:
            why.append(f"not in the operator's allowlist: {', '.join(not_allowed)}")
        if not_accepted:
            why.append(f"not in spec.lua.acceptPermissions: {', '.join(not_accepted)}")
        lines.append(f'chart "{path}" asks for Lua permissions [{", ".join(sorted(perms))}]; '
                     f"granted [{', '.join(sorted(granted))}] ({'; '.join(why)})")
    return "; ".join(lines) or None
