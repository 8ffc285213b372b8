"""The seam between helm_core and a Kubernetes API server: the ``ClusterClient`` Protocol.

Why: actions and storage reach the cluster only through this small interface, so the one
implementation talking HTTP (``kube/live.py``) can change without touching them, and unit tests
of pure logic can use ``kube/fake.py``.

Rules every implementation keeps:
- Objects are plain JSON-shaped dicts; inputs are never mutated, results are fresh dicts.
- Writes of whole objects use server-side apply with ``field_manager``; a field owned by another
  manager is a ``ConflictError`` naming the object unless ``force`` is given (then we take it).
- ``create`` fails with ``ConflictError`` when the object exists; ``replace`` sends
  ``metadata.resourceVersion`` and fails with ``ConflictError`` when the object changed since.
- A missing object is ``NotFoundError``; RBAC refusals are ``ForbiddenError``; anything else the
  server refuses is ``ClusterError``. Every message names the object (``kind "name" in namespace
  "ns"``).
- ``impersonate`` returns a client acting as a ServiceAccount, or as any user (an
  :class:`Identity`: name, groups, uid, extra): requests carry the impersonation headers, so
  the server applies that identity's RBAC, never the caller's.
"""
from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from helm_core.support.records import record

FIELD_MANAGER = "helm-core"
"""Our server-side apply field manager: fields we apply are owned under this name."""
TABLE_ACCEPT = ("application/json;as=Table;v=v1;g=meta.k8s.io,"
                "application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json")
"""What kubectl (and helm's ``BuildTable``) ask for to receive a ``Table``."""


def pod_logs_failure(name: str) -> str:
    """The start of a failed ``pod_logs``'s message (helm's ``GetPodLogs`` words)."""
    return f"unable to get pod logs for {name}"


@record(frozen=True)
class ObjectRef:
    """Identity of one object: ``namespace`` is empty for cluster-scoped kinds."""

    api_version: str
    kind: str
    name: str
    namespace: str = ""

    @classmethod
    def of(cls, obj: Mapping[str, Any]) -> ObjectRef:
        """The reference of a JSON-shaped object (its apiVersion, kind and metadata)."""
        meta = obj.get("metadata") or {}
        return cls(api_version=str(obj.get("apiVersion", "")), kind=str(obj.get("kind", "")),
                   name=str(meta.get("name", "")), namespace=str(meta.get("namespace") or ""))

    @property
    def group(self) -> str:
        """API group ("" for the core group)."""
        return self.api_version.rpartition("/")[0]

    def __str__(self) -> str:
        where = f' in namespace "{self.namespace}"' if self.namespace else ""
        return f'{self.kind} "{self.name}"{where}'


@record(frozen=True)
class ApiResource:
    """One served resource type as discovery reports it."""

    api_version: str
    """Group/version, ``v1`` for the core group."""
    kind: str
    plural: str
    """The URL segment (``deployments``)."""
    namespaced: bool
    verbs: tuple[str, ...] = ()


@record(frozen=True)
class Discovery:
    """What the server serves: its version, every resource type, and what Helm's version set
    also counts (group/versions without resources, kinds of subresources such as ``Scale``)."""

    server_version: str
    """``gitVersion`` of ``/version`` (``v1.37.2``)."""
    resources: tuple[ApiResource, ...]
    """Top-level resources (no subresources): what can be applied, got and listed."""
    group_versions: tuple[str, ...] = ()
    """Every served group/version, ``v1`` for the core group."""
    subresource_kinds: tuple[tuple[str, str], ...] = ()
    """(group/version, kind) of subresources (``apps/v1`` serves ``deployments/scale``: Scale)."""

    def find(self, api_version: str, kind: str) -> ApiResource | None:
        """The resource serving ``kind`` at ``api_version``, or None when it is not served."""
        for resource in self.resources:
            if resource.api_version == api_version and resource.kind == kind:
                return resource
        return None

    def api_versions(self) -> tuple[str, ...]:
        """Helm's ``.Capabilities.APIVersions`` set (``action.GetVersionSet``): every
        group/version, and ``gv/Kind`` for every resource and subresource it serves."""
        seen: dict[str, None] = dict.fromkeys(self.group_versions)
        for resource in self.resources:
            seen.setdefault(resource.api_version, None)
        kinds = [(r.api_version, r.kind) for r in self.resources] + list(self.subresource_kinds)
        for api_version, kind in kinds:
            seen.setdefault(f"{api_version}/{kind}", None)
        return tuple(seen)


@record(frozen=True)
class Identity:
    """A user to act as, as the API server authenticated them (``UserInfo``). The server
    authorizes an impersonated request as exactly this: the groups are not looked up again,
    so they must be sent (a user without its groups loses what they grant)."""

    username: str
    groups: tuple[str, ...] = ()
    uid: str = ""
    extra: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """``(key, values)`` pairs, sorted by key (scopes and credential ids some authenticators
    add; authorizers may narrow a user's rights by them, so they are kept)."""

    @classmethod
    def of(cls, user_info: Mapping[str, Any]) -> Identity:
        """From a JSON-shaped ``UserInfo`` (``username``, ``groups``, ``uid``, ``extra``)."""
        extra = user_info.get("extra") or {}
        return cls(username=str(user_info.get("username") or ""),
                   groups=tuple(str(g) for g in user_info.get("groups") or ()),
                   uid=str(user_info.get("uid") or ""),
                   extra=tuple(sorted((str(k), tuple(str(v) for v in values or ()))
                                      for k, values in extra.items())))

    def __str__(self) -> str:
        return f'user "{self.username}"'


class Propagation(str, enum.Enum):
    """How deleting an owner treats its dependents (``propagationPolicy``)."""

    BACKGROUND = "Background"
    FOREGROUND = "Foreground"
    ORPHAN = "Orphan"


class ClusterClient(Protocol):
    """The operations helm_core needs from a cluster; see the module docstring for the rules."""

    @property
    def field_manager(self) -> str:
        """The server-side apply field manager this client writes as."""
        ...

    def apply(self, obj: Mapping[str, Any], *, force: bool = False, dry_run: bool = False,
              subresource: str = "") -> dict[str, Any]:
        """Server-side apply ``obj``; returns the object as stored (or as it would be)."""
        ...

    def create(self, obj: Mapping[str, Any]) -> dict[str, Any]:
        """Create ``obj``; ``ConflictError`` when it already exists."""
        ...

    def replace(self, obj: Mapping[str, Any], *, subresource: str = "") -> dict[str, Any]:
        """Replace ``obj`` guarded by its ``metadata.resourceVersion`` (``ConflictError``)."""
        ...

    def get(self, ref: ObjectRef) -> dict[str, Any]:
        """The object named by ``ref``; ``NotFoundError`` when absent."""
        ...

    def list(self, api_version: str, kind: str, *, namespace: str = "",
             label_selector: str = "") -> list[dict[str, Any]]:
        """Objects of a kind (in one namespace, or all when empty), each with apiVersion/kind."""
        ...

    def collection(self, api_version: str, kind: str, *, namespace: str = "",
                   label_selector: str = "") -> dict[str, Any]:
        """The whole ``<Kind>List`` object as the server returns it (``metadata`` holds its
        ``resourceVersion``), every page joined; ``list`` is its ``items``."""
        ...

    def delete(self, ref: ObjectRef, *, propagation: Propagation = Propagation.BACKGROUND,
               resource_version: str = "") -> bool:
        """Delete; False when it was already gone. ``resource_version`` makes it conditional."""
        ...

    def table(self, api_version: str, kind: str, *, namespace: str = "", name: str = "",
              label_selector: str = "") -> dict[str, Any]:
        """The server's ``meta.k8s.io/v1`` ``Table`` (kubectl's columns for the kind) of the object
        ``name``, or of the kind's objects (``label_selector``) when no name is given;
        ``NotFoundError`` when the named object is absent."""
        ...

    def pod_logs(self, namespace: str, name: str) -> str:
        """The log of the Pod's container (``kubectl logs``: the only container, else the
        server says which to choose); ``NotFoundError`` when the Pod is absent. Failures read
        ``unable to get pod logs for <name>: <the server's reason>`` (helm's words)."""
        ...

    def server_time(self) -> dt.datetime:
        """The API server's clock now (UTC, whole seconds): machines whose clocks disagree
        still agree on it, so lease expiry is judged by it."""
        ...

    def discover(self, *, refresh: bool = False) -> Discovery:
        """Server version and served types, cached until ``refresh``."""
        ...

    def impersonate(self, *, service_account: str = "", namespace: str = "",
                    identity: Identity | None = None) -> ClusterClient:
        """A client acting as ``system:serviceaccount:<namespace>:<service_account>``, or as
        ``identity`` (a user with its groups, uid and extra) when given."""
        ...


def acting_as(*, service_account: str = "", namespace: str = "",
              identity: Identity | None = None) -> Identity:
    """What ``impersonate`` was asked to act as: ``identity``, else the ServiceAccount's user
    (the API server adds an account's groups itself). ValueError when neither is given."""
    if identity is not None:
        if not identity.username:
            raise ValueError("cannot impersonate an identity without a username")
        return identity
    if not service_account or not namespace:
        raise ValueError("impersonate needs a service account and its namespace, or an identity")
    return Identity(username=service_account_user(service_account, namespace))


def service_account_user(service_account: str, namespace: str) -> str:
    """The user name Kubernetes gives a ServiceAccount (what impersonation sends)."""
    return f"system:serviceaccount:{namespace}:{service_account}"


def with_namespace(obj: Mapping[str, Any], namespace: str) -> dict[str, Any]:
    """A copy of ``obj`` whose metadata.namespace is ``namespace`` when it had none."""
    meta = dict(obj.get("metadata") or {})
    if meta.get("namespace") or not namespace:
        return dict(obj)
    meta["namespace"] = namespace
    return {**obj, "metadata": meta}


#: How Kubernetes writes a time (``metav1.Time``): UTC, to the second.
TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def kube_time(value: dt.datetime | None) -> str:
    """``value`` as Kubernetes writes times in objects ("" for none)."""
    return value.astimezone(dt.UTC).strftime(TIME_FORMAT) if value else ""


def last_write(obj: Mapping[str, Any]) -> dt.datetime | None:
    """When the server last recorded a write to ``obj`` (newest ``managedFields`` time, the
    server's clock), or None when it has none."""
    times = []
    for entry in (obj.get("metadata") or {}).get("managedFields") or ():
        try:
            times.append(dt.datetime.strptime(str(entry.get("time")), TIME_FORMAT))
        except ValueError:
            continue
    return max(times).replace(tzinfo=dt.UTC) if times else None


def refs(objects: Sequence[Mapping[str, Any]]) -> list[ObjectRef]:
    """References of several objects, in order."""
    return [ObjectRef.of(obj) for obj in objects]
