"""The ``status`` action: the newest version of a release and its state (``helm status``), and
the objects of its manifest as the cluster has them (``--show-resources``).

Resources (helm's ``Status`` with ``ShowResources``, its kube client's ``Get`` with related
Pods):
- every object of the version's manifest (namespaces settled as on install; a kind the
  cluster no longer serves fails, as helm's manifest build does) is read from the cluster and
  kept under ``<version>/<Kind>`` (``v1/ConfigMap``, ``v1/Deployment``: the manifest's version
  without its group); an object that cannot be read is left out, as helm leaves it;
- a ``Deployment``, ``ReplicaSet``, ``StatefulSet``, ``DaemonSet`` or ``Job`` with
  ``spec.selector.matchLabels`` (a ``ReplicationController`` with ``spec.selector``), as the
  manifest has it, adds the Pods of its namespace those labels select under
  ``v1/Pod(related)``, once per distinct selector; a failing Pod list is logged and skipped;
- ``as_tables`` reads each as the server's ``Table`` (what the table output prints), else as
  the full object, and the related Pods as their list.
Groups are kept in the order first met (helm's is Go's map order, which changes every run).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import ulid

from helm_core.action import config, get
from helm_core.errors import ClusterError
from helm_core.kube import client as kclient
from helm_core.storage import release as rel

RELATED_PODS = "v1/Pod(related)"
_MATCH_LABELS_KINDS = ("ReplicaSet", "Deployment", "StatefulSet", "DaemonSet", "Job")


def run(cfg: config.Configuration, name: str, namespace: str,
        version: ulid.ULID | None = None) -> rel.ReleaseVersion:
    """The version ``helm status`` reports (the newest, or ``version``)."""
    return get.run(cfg, name, namespace, version)


def resources(cfg: config.Configuration, release: rel.ReleaseVersion, *,
              as_tables: bool) -> dict[str, list[dict[str, Any]]]:
    """The release's objects grouped by ``<version>/<Kind>``, with their related Pods (module
    rules)."""
    found: dict[str, list[dict[str, Any]]] = {}
    selectors: list[dict[str, str]] = []
    for obj in config.resolve_all(cfg, config.parse_manifest(release.manifest), release.namespace):
        ref = kclient.ObjectRef.of(obj)
        try:
            current = (cfg.client.table(ref.api_version, ref.kind, namespace=ref.namespace, name=ref.name)
                       if as_tables else cfg.client.get(ref))
        except ClusterError:
            continue
        found.setdefault(f"{ref.api_version.rpartition('/')[2]}/{ref.kind}", []).append(current)
        selector = pod_selector(obj)
        if selector is None or selector in selectors:
            continue
        selectors.append(selector)
        query = ",".join(f"{key}={value}" for key, value in sorted(selector.items()))
        try:
            pods = (cfg.client.table("v1", "Pod", namespace=ref.namespace, label_selector=query) if as_tables
                    else cfg.client.collection("v1", "Pod", namespace=ref.namespace, label_selector=query))
        except ClusterError as exc:
            cfg.log(f"Warning: get the relation pod is failed, err:{exc}")
            continue
        found.setdefault(RELATED_PODS, []).append(pods)
    return found


def pod_selector(obj: Mapping[str, Any]) -> dict[str, str] | None:
    """The labels selecting the Pods of a workload object (module rules), or None: not a
    workload, no such selector, or one holding other than strings (helm's ``NestedStringMap``)."""
    path = ("spec", "selector") if obj.get("kind") == "ReplicationController" else (
        ("spec", "selector", "matchLabels") if obj.get("kind") in _MATCH_LABELS_KINDS else None)
    if path is None:
        return None
    value: Any = obj
    for key in path:
        value = value.get(key) if isinstance(value, Mapping) else None
    if not isinstance(value, Mapping) or not all(isinstance(v, str) for v in value.values()):
        return None
    return {str(k): v for k, v in value.items()}
