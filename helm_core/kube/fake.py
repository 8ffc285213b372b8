"""An in-memory ``ClusterClient`` for unit tests of logic built on the client (storage, locks).

What it models: object identity, ``resourceVersion`` guards (create/replace/delete/apply
preconditions), ``uid``, a server clock (``managedFields`` write times, ``server_time``; one
entry, of the last writer and its operation, ``Apply`` or ``Update``),
label-selector equality lists, a fixed discovery, the status subresource (writes to
``status`` touch only status), the server's default ``Table`` (``Name``, ``Created At``) and
Pod logs the test sets (``FakeCluster.logs``). What it does not: field ownership (apply is a recursive merge
that never conflicts), RBAC, defaulting, controllers, garbage collection.
Everything it models is also proven against a real API server in ``e2e/``.
"""
from __future__ import annotations

import copy
import datetime as dt
import threading
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from helm_core.errors import ClusterError, ConflictError, NotFoundError
from helm_core.kube import client as kclient

FAKE_SERVER_VERSION = "v1.37.0"
FAKE_RESOURCES: tuple[kclient.ApiResource, ...] = (
    kclient.ApiResource("v1", "Secret", "secrets", True),
    kclient.ApiResource("v1", "ConfigMap", "configmaps", True),
    kclient.ApiResource("v1", "Service", "services", True),
    kclient.ApiResource("v1", "Namespace", "namespaces", False),
    kclient.ApiResource("apps/v1", "Deployment", "deployments", True),
    kclient.ApiResource("coordination.k8s.io/v1", "Lease", "leases", True),
    kclient.ApiResource("helm.sh/v1alpha1", "Release", "releases", True),
)


def _merge(base: Mapping[str, Any], patch: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in patch.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def _matches(obj: Mapping[str, Any], selector: str) -> bool:
    labels = (obj.get("metadata") or {}).get("labels") or {}
    for term in filter(None, selector.split(",")):
        key, _, value = term.partition("=")
        if labels.get(key) != value:
            return False
    return True


class FakeCluster:
    """Objects shared by every ``FakeClient`` made from it (like one API server)."""

    def __init__(self, resources: tuple[kclient.ApiResource, ...] = FAKE_RESOURCES, *,
                 clock: Callable[[], dt.datetime] | None = None) -> None:
        self.clock = clock or (lambda: dt.datetime.now(dt.UTC))
        """The server's clock: stamps ``managedFields`` times and answers ``server_time``."""
        self.objects: dict[kclient.ObjectRef, dict[str, Any]] = {}
        self.resources = resources
        self.lock = threading.Lock()
        self.resource_version = 0
        """The last resourceVersion handed out (like etcd's revision)."""
        self.logs: dict[tuple[str, str], str] = {}
        """(namespace, Pod name) -> the log ``pod_logs`` reads (a Pod without one logged nothing)."""

    def next_version(self) -> str:
        self.resource_version += 1
        return str(self.resource_version)

    def client(self, field_manager: str = kclient.FIELD_MANAGER) -> FakeClient:
        return FakeClient(self, field_manager=field_manager)


class FakeClient:
    """``ClusterClient`` over a ``FakeCluster``; see the module docstring for its limits."""

    def __init__(self, cluster: FakeCluster, *, field_manager: str = kclient.FIELD_MANAGER,
                 user: str = "") -> None:
        self.cluster = cluster
        self.user = user
        self.identity: kclient.Identity | None = None
        """Who an impersonating client acts as (the fake enforces no RBAC)."""
        self._field_manager = field_manager

    @property
    def field_manager(self) -> str:
        return self._field_manager

    def _key(self, ref: kclient.ObjectRef) -> kclient.ObjectRef:
        resource = self.discover().find(ref.api_version, ref.kind)
        if resource is None:
            raise ClusterError(f'the server does not serve kind "{ref.kind}" in version '
                               f'"{ref.api_version}"')
        if resource.namespaced and not ref.namespace:
            raise ClusterError(f"{ref} is namespaced but has no namespace")
        return ref if resource.namespaced else kclient.ObjectRef(ref.api_version, ref.kind, ref.name)

    def _store(self, key: kclient.ObjectRef, obj: Mapping[str, Any], *,
               operation: str = "Update") -> dict[str, Any]:
        stored = copy.deepcopy(dict(obj))
        meta = stored.setdefault("metadata", {})
        meta["resourceVersion"] = self.cluster.next_version()
        meta.setdefault("uid", str(uuid.uuid4()))
        stamp = self.cluster.clock().astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        meta["managedFields"] = [{"manager": self._field_manager, "operation": operation,
                                  "apiVersion": stored.get("apiVersion"), "time": stamp}]
        self.cluster.objects[key] = stored
        return copy.deepcopy(stored)

    def get(self, ref: kclient.ObjectRef) -> dict[str, Any]:
        key = self._key(ref)
        with self.cluster.lock:
            if key not in self.cluster.objects:
                raise NotFoundError(f"get {ref}: not found")
            return copy.deepcopy(self.cluster.objects[key])

    def create(self, obj: Mapping[str, Any]) -> dict[str, Any]:
        ref = kclient.ObjectRef.of(obj)
        key = self._key(ref)
        with self.cluster.lock:
            if key in self.cluster.objects:
                raise ConflictError(f"create {ref}: already exists")
            return self._store(key, obj)

    def replace(self, obj: Mapping[str, Any], *, subresource: str = "") -> dict[str, Any]:
        ref = kclient.ObjectRef.of(obj)
        key = self._key(ref)
        with self.cluster.lock:
            current = self.cluster.objects.get(key)
            if current is None:
                raise NotFoundError(f"update {ref}: not found")
            wanted = (obj.get("metadata") or {}).get("resourceVersion")
            if wanted and wanted != current["metadata"]["resourceVersion"]:
                raise ConflictError(f"update {ref}: the object has been modified")
            new = dict(obj)
            if subresource == "status":
                new = {**current, "status": obj.get("status")}
            new["metadata"] = {**new.get("metadata", {}), "uid": current["metadata"]["uid"]}
            return self._store(key, new)

    def apply(self, obj: Mapping[str, Any], *, force: bool = False, dry_run: bool = False,
              subresource: str = "") -> dict[str, Any]:
        ref = kclient.ObjectRef.of(obj)
        key = self._key(ref)
        with self.cluster.lock:
            current = self.cluster.objects.get(key, {})
            wanted = (obj.get("metadata") or {}).get("resourceVersion")
            if wanted and wanted != (current.get("metadata") or {}).get("resourceVersion"):
                raise ConflictError(f"apply {ref}: the object has been modified")
            patch = {"status": obj.get("status")} if subresource == "status" else obj
            merged = _merge(current, patch)
            if dry_run:
                return merged
            return self._store(key, merged, operation="Apply")

    def list(self, api_version: str, kind: str, *, namespace: str = "",
             label_selector: str = "") -> list[dict[str, Any]]:
        with self.cluster.lock:
            return [copy.deepcopy(obj) for ref, obj in sorted(self.cluster.objects.items(),
                                                              key=lambda item: str(item[0]))
                    if ref.api_version == api_version and ref.kind == kind
                    and (not namespace or ref.namespace == namespace)
                    and _matches(obj, label_selector)]

    def collection(self, api_version: str, kind: str, *, namespace: str = "",
                   label_selector: str = "") -> dict[str, Any]:
        items = self.list(api_version, kind, namespace=namespace, label_selector=label_selector)
        return {"apiVersion": api_version, "kind": f"{kind}List",
                "metadata": {"resourceVersion": str(self.cluster.resource_version)},
                "items": items}

    def delete(self, ref: kclient.ObjectRef, *,
               propagation: kclient.Propagation = kclient.Propagation.BACKGROUND,
               resource_version: str = "") -> bool:
        key = self._key(ref)
        with self.cluster.lock:
            current = self.cluster.objects.get(key)
            if current is None:
                return False
            if resource_version and resource_version != current["metadata"]["resourceVersion"]:
                raise ConflictError(f"delete {ref}: precondition failed")
            del self.cluster.objects[key]
            return True

    def table(self, api_version: str, kind: str, *, namespace: str = "", name: str = "",
              label_selector: str = "") -> dict[str, Any]:
        if name:
            objects = [self.get(kclient.ObjectRef(api_version, kind, name, namespace))]
        else:
            objects = self.list(api_version, kind, namespace=namespace, label_selector=label_selector)
        columns = [{"name": "Name", "type": "string", "format": "name", "description": "", "priority": 0},
                   {"name": "Created At", "type": "date", "format": "", "description": "", "priority": 0}]
        rows = [{"cells": [obj["metadata"]["name"], obj["metadata"].get("creationTimestamp")],
                 "object": {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                            "metadata": obj["metadata"]}} for obj in objects]
        return {"kind": "Table", "apiVersion": "meta.k8s.io/v1",
                "metadata": {"resourceVersion": str(self.cluster.resource_version)},
                "columnDefinitions": columns, "rows": rows}

    def pod_logs(self, namespace: str, name: str) -> str:
        with self.cluster.lock:
            if kclient.ObjectRef("v1", "Pod", name, namespace) not in self.cluster.objects:
                raise NotFoundError(f'{kclient.pod_logs_failure(name)}: pods "{name}" not found')
            return self.cluster.logs.get((namespace, name), "")

    def server_time(self) -> dt.datetime:
        return self.cluster.clock().astimezone(dt.UTC).replace(microsecond=0)

    def discover(self, *, refresh: bool = False) -> kclient.Discovery:
        return kclient.Discovery(server_version=FAKE_SERVER_VERSION, resources=self.cluster.resources)

    def impersonate(self, *, service_account: str = "", namespace: str = "",
                    identity: kclient.Identity | None = None) -> FakeClient:
        acting = kclient.acting_as(service_account=service_account, namespace=namespace,
                                   identity=identity)
        client = FakeClient(self.cluster, field_manager=self._field_manager, user=acting.username)
        client.identity = acting
        return client
