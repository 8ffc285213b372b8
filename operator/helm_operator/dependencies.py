"""``spec.dependsOn``: the HelmRequests that must be Ready before this one's Helm actions run.

Flux's rules (helm-controller's ``checkDependencies``):
- each dependency, its namespace the request's unless given, must exist, have handled its
  generation (``status.observedGeneration == metadata.generation``) and be Ready True;
- the first one that is not stops the check, its message Flux's
  (``dependency 'ns/name' is not ready``; ``unable to get 'ns/name' dependency: ...``);
- it is read by the controller itself (Flux's own reader), whoever the release runs as, and in
  any namespace: Flux's ``--no-cross-namespace-refs`` covers sources, not ``dependsOn``;
- nothing orders deletion, and a cycle (or a request depending on itself) simply waits: each
  stays DependencyNotReady, looked at again every ``--requeue-dependency``.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from helm_core import errors as core_errors
from helm_core.kube import client as kclient
from helm_operator import identity, status


def not_ready(admin: kclient.ClusterClient, body: Mapping[str, Any]) -> str | None:
    """Why ``body`` must wait for its dependencies (Flux's words), or None when every one is
    Ready for its own generation (or there are none)."""
    namespace = body["metadata"]["namespace"]
    for ref in (body.get("spec") or {}).get("dependsOn") or ():
        where = kclient.ObjectRef(identity.API_VERSION, identity.KIND, ref["name"],
                                  ref.get("namespace") or namespace)
        name = f"{where.namespace}/{where.name}"
        try:
            dep = admin.get(where)
        except core_errors.NotFoundError:  # the API server's words, as Flux quotes them
            return (f"unable to get '{name}' dependency: {identity.PLURAL}.{identity.GROUP} "
                    f"\"{ref['name']}\" not found")
        except core_errors.HelmError as exc:
            return f"unable to get '{name}' dependency: {exc}"
        if not status.is_ready(dep.get("status"), int((dep.get("metadata") or {}).get("generation") or 0)):
            return f"dependency '{name}' is not ready"
    return None
