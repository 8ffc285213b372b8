"""Act as the requester: a release runs with the RBAC of the user who last applied its request.

The identity comes from admission, never from the requester: the ``helmrequest-requester``
MutatingAdmissionPolicy (deploy/requester/policy.yaml; or the same rule as a webhook,
:mod:`helm_operator.admission`) writes the authenticated ``userInfo``
of every create, and of every update that changes the spec or touches the stamp, into the
request's top-level ``requester`` field, replacing whatever the client sent there.

Rules:
- The mode is the Namespace's :data:`NAMESPACE_LABEL` (``serviceaccount`` or ``requester``;
  Namespaces are the admin's, not the requester's), else ``--act-as``. A Namespace the
  controller may not read leaves ``--act-as`` in force. The label is read at most every
  :data:`LABEL_TTL_S` per namespace.
- In requester mode every cluster access of the release (objects, Release records, version
  Secrets, hooks, values and chart reads) goes through one client impersonating the stamped
  username, groups, uid and extra; ``spec.serviceAccountName`` is not used.
- No stamp, or a stamp naming the controller itself (its own write re-stamped the request),
  is refused with Stalled/:data:`REQUESTER_UNKNOWN`: the controller's own rights are never
  used for a release.
- After an install, upgrade, rollback or drift correction, ``status.lastAppliedBy`` names the
  user and a Normal Event (:data:`ACTED_AS`) records who it ran as.
"""
from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable, Mapping
from typing import Any

from helm_core import errors as core_errors
from helm_core.kube import client as kclient
from helm_operator import errors

SERVICE_ACCOUNT = "serviceaccount"
REQUESTER = "requester"
MODES = (SERVICE_ACCOUNT, REQUESTER)
#: Label on a Namespace choosing the mode of the HelmRequests in it.
NAMESPACE_LABEL = "helm.sh/act-as"
#: Top-level field of a HelmRequest the admission policy stamps.
STAMP_FIELD = "requester"
#: Stalled reason of a request that cannot be run as its requester.
REQUESTER_UNKNOWN = "RequesterUnknown"
#: Reason of the Event naming who an action ran as.
ACTED_AS = "ActedAsRequester"
#: Outcomes that wrote to the cluster, so who they ran as is recorded.
_WRITING = frozenset({"install", "upgrade", "rollback", "drift-correction"})

#: Seconds a Namespace's label is remembered: a label change applies within this long, and an
#: idle interval check of a busy namespace does not read its Namespace each time.
LABEL_TTL_S = 10.0

# Per controller client (weak: a client that is gone takes its entries along).
_own_names: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
_labels: weakref.WeakKeyDictionary[Any, dict[str, tuple[float, str | None]]] = weakref.WeakKeyDictionary()
_own_guard = threading.Lock()


def check_mode(value: str, what: str) -> str:
    """``value`` when it is a mode; ValueError naming ``what`` otherwise."""
    if value not in MODES:
        raise ValueError(f"{what} must be one of {', '.join(MODES)}, not {value!r}")
    return value


def mode(admin: kclient.ClusterClient, namespace: str, default: str,
         log: Callable[[str], None] = lambda _line: None) -> str:
    """The mode of requests in ``namespace``: its label, else ``default``. An unknown label
    value is refused (Stalled) rather than guessed."""
    label = _label(admin, namespace, log)
    if label is None:
        return default
    try:
        return check_mode(label, f"label {NAMESPACE_LABEL} of Namespace {namespace}")
    except ValueError as exc:
        raise errors.RequestError(str(exc), reason="ActAsInvalid") from None


def _label(admin: kclient.ClusterClient, namespace: str, log: Callable[[str], None]) -> str | None:
    """The Namespace's :data:`NAMESPACE_LABEL` (None when absent or unreadable), remembered
    for :data:`LABEL_TTL_S`."""
    now = time.monotonic()
    with _own_guard:
        known = _labels.setdefault(admin, {}).get(namespace)
    if known is not None and known[0] > now:
        return known[1]
    try:
        ns = admin.get(kclient.ObjectRef("v1", "Namespace", namespace))
        label = ((ns.get("metadata") or {}).get("labels") or {}).get(NAMESPACE_LABEL)
    except core_errors.ForbiddenError:
        log(f"cannot read Namespace {namespace} (no get on namespaces): "
            f"label {NAMESPACE_LABEL} ignored")
        label = None
    except core_errors.NotFoundError:
        label = None
    with _own_guard:
        _labels.setdefault(admin, {})[namespace] = (now + LABEL_TTL_S, label)
    return label


def stamped(body: Mapping[str, Any]) -> kclient.Identity | None:
    """The identity admission stamped on the request, or None when it has none."""
    stamp = body.get(STAMP_FIELD)
    if not isinstance(stamp, Mapping) or not stamp.get("username"):
        return None
    return kclient.Identity.of(stamp)


def own_username(admin: kclient.ClusterClient) -> str:
    """Who the controller's credentials authenticate as (a SelfSubjectReview, asked once)."""
    with _own_guard:
        name = _own_names.get(admin)
    if name is not None:
        return name
    review = admin.create({"apiVersion": "authentication.k8s.io/v1",
                           "kind": "SelfSubjectReview", "metadata": {}})
    name = str(((review.get("status") or {}).get("userInfo") or {}).get("username") or "")
    with _own_guard:
        _own_names[admin] = name
    return name


def identity_for(admin: kclient.ClusterClient, body: Mapping[str, Any]) -> kclient.Identity:
    """The stamped requester to act as; :class:`errors.RequestError` (RequesterUnknown) when
    the request has no stamp or the stamp is the controller's own identity."""
    meta = body["metadata"]
    who = f"HelmRequest {meta['namespace']}/{meta['name']}"
    identity = stamped(body)
    if identity is None:
        raise errors.RequestError(
            f"{who} has no requester stamp (field {STAMP_FIELD!r}): it was written before the "
            "helmrequest-requester admission policy existed or without it; the controller acts "
            "as the requester in this namespace and will not use its own rights. Apply the "
            "request again (any spec change) once the policy is installed",
            reason=REQUESTER_UNKNOWN)
    if identity.username == own_username(admin):
        raise errors.RequestError(
            f"{who} was last written by the controller itself ({identity.username}); "
            "the controller will not act with its own rights: a user must apply the request",
            reason=REQUESTER_UNKNOWN)
    return identity


def describe(identity: kclient.Identity) -> str:
    """``user "alice" (groups: dev, system:authenticated)`` for messages and Events."""
    groups = f" (groups: {', '.join(identity.groups)})" if identity.groups else ""
    return f"{identity}{groups}"


def acting(client: kclient.ClusterClient, body: Mapping[str, Any]) -> str:
    """`` as user "alice"`` when ``client`` acts as the request's stamped requester ("" in
    ServiceAccount mode): release descriptions say who each version was made as."""
    identity = stamped(body)
    if identity is None or getattr(client, "identity", None) != identity:
        return ""
    return f" as {identity}"


def applied(admin: kclient.ClusterClient, body: Mapping[str, Any], action: str,
            new_status: Mapping[str, Any], *, default: str,
            log: Callable[[str], None] = lambda _line: None) -> tuple[dict[str, Any], str]:
    """After ``action``: the status with ``lastAppliedBy`` and the Event message naming who it
    ran as ("" when nothing was written or the request is in ServiceAccount mode)."""
    out = dict(new_status)
    if action not in _WRITING:
        return out, ""
    meta = body["metadata"]
    if mode(admin, meta["namespace"], default, log) != REQUESTER:
        return out, ""
    identity = stamped(body)
    if identity is None:  # cannot happen: the action itself refused such a request
        return out, ""
    out["lastAppliedBy"] = identity.username
    return out, f"{action} ran as {describe(identity)}, who last applied the request"
