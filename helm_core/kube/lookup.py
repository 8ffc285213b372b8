"""Helm's template ``lookup`` on a ``ClusterClient`` (install/upgrade read the real cluster).

Rules (Helm v3.22 ``pkg/engine/lookup_func.go``):
- ``lookup apiVersion kind namespace name`` returns the object as a map, or an empty map when it
  does not exist (also when a namespaced kind is asked for without a namespace).
- An empty ``name`` lists: the server's ``<Kind>List`` (``apiVersion``, ``kind``, ``metadata``
  with its ``resourceVersion``, ``items``), across all namespaces when ``namespace`` is empty or
  the kind is cluster-scoped.
- A kind missing from a served group/version gives an empty map (Helm finds no resource and the
  request 404s); a group/version the server does not serve is an error with Helm's text. Other
  API errors (RBAC) propagate as ``ClusterError``; the engine turns them into template errors.
- ``helm template`` never calls this: it keeps the engine's empty lookup.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from helm_core.errors import ClusterError, NotFoundError
from helm_core.kube import client as kclient

LookupFunc = Callable[[str, str, str, str], dict[str, Any]]


def _gvk(api_version: str, kind: str) -> str:
    group, _, version = api_version.rpartition("/")
    return f"{group}/{version}, Kind={kind}"


def lookup(client: kclient.ClusterClient, api_version: str, kind: str, namespace: str,
           name: str) -> dict[str, Any]:
    """One ``lookup`` call; see the module rules."""
    found = client.discover().find(api_version, kind)
    if found is None:
        discovery = client.discover(refresh=True)
        found = discovery.find(api_version, kind)
        if found is None:
            if any(r.api_version == api_version for r in discovery.resources):
                return {}
            raise ClusterError(f"unable to get apiresource from unstructured: "
                               f"{_gvk(api_version, kind)}: the server could not find the "
                               f"requested resource")
    scope = namespace if found.namespaced else ""
    if name:
        if found.namespaced and not scope:
            return {}
        try:
            return client.get(kclient.ObjectRef(api_version, kind, name, scope))
        except NotFoundError:
            return {}
    return client.collection(api_version, kind, namespace=scope)


def make_lookup(client: kclient.ClusterClient) -> LookupFunc:
    """The engine's ``lookup`` hook bound to ``client``."""
    def bound(api_version: str, kind: str, namespace: str, name: str) -> dict[str, Any]:
        return lookup(client, api_version, kind, namespace, name)

    return bound
