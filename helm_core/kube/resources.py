"""A release's objects on the cluster: ownership metadata, adoption checks, apply and delete sets.

Why: install, upgrade, rollback and uninstall all perform the same cluster steps; keeping them
here (on ``ClusterClient`` only) lets each action read as prepare, record, perform, update.

Rules (Helm v3.22 ``pkg/action/validate.go`` and ``pkg/kube/client.go``, plus DESIGN §5):
- Every applied object carries label ``app.kubernetes.io/managed-by: Helm`` and annotations
  ``meta.helm.sh/release-name`` / ``meta.helm.sh/release-namespace`` (so Helm tooling sees it);
  a namespaced object without a namespace gets the release's; namespaced objects in the
  release's namespace also get an owner reference to the ``Release`` (garbage-collected with it);
  objects elsewhere and cluster-scoped ones are tracked by the manifest only.
- An existing object may be taken over only if its metadata says it belongs to this release;
  otherwise ``ConflictError`` with Helm's text (``... exists and cannot be imported into the
  current release: invalid ownership metadata; ...``), unless ``adopt`` is asked.
- ``stale`` lists what an old manifest had and a new one lacks (same group, kind, namespace and
  name), in the old order; ``delete_all`` skips objects annotated
  ``helm.sh/resource-policy: keep`` and ones already gone, and reports both.
- ``replace`` is helm's ``--force``: a PUT of the object as rendered over the live one (fields
  other managers set are gone), ``failed to replace object: ...`` when the server refuses it
  (an immutable field), the PUT's fields then owned as applied (``applied_ownership``).
- ``create_missing`` is for a chart's ``crds/``: create what is absent, never touch what exists
  (Helm installs CRDs once and never upgrades or deletes them); wait for the created ones.
- A kept object must lose its owner reference before the ``Release`` is deleted (or garbage
  collection would remove it anyway): re-apply it with ``owner=None``.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from helm_core.errors import ClusterError, ConflictError, NotFoundError
from helm_core.kube import client as kclient
from helm_core.support.records import field, record

MANAGED_BY_LABEL = "app.kubernetes.io/managed-by"
MANAGED_BY = "Helm"
RELEASE_NAME_ANNOTATION = "meta.helm.sh/release-name"
RELEASE_NAMESPACE_ANNOTATION = "meta.helm.sh/release-namespace"
RESOURCE_POLICY_ANNOTATION = "helm.sh/resource-policy"
KEEP_POLICY = "keep"


@record(frozen=True)
class Owner:
    """The release objects belong to; ``reference`` is the ``Release``'s owner reference."""

    name: str
    namespace: str
    reference: Mapping[str, Any] | None = field(default=None, hash=False)


def owner_reference(release: Mapping[str, Any]) -> dict[str, Any]:
    """An owner reference to a stored ``Release`` object (not a controller: adopted objects may
    already have one)."""
    meta = release.get("metadata") or {}
    return {"apiVersion": release.get("apiVersion"), "kind": release.get("kind"),
            "name": meta.get("name"), "uid": meta.get("uid")}


def resolve(client: kclient.ClusterClient, obj: Mapping[str, Any], namespace: str) -> dict[str, Any]:
    """A copy of ``obj`` with the release namespace filled in for namespaced kinds, and cleared
    for cluster-scoped ones; ``ClusterError`` (Helm's wording) when the kind is not served."""
    ref = kclient.ObjectRef.of(obj)
    resource = client.discover().find(ref.api_version, ref.kind)
    if resource is None:
        resource = client.discover(refresh=True).find(ref.api_version, ref.kind)
    if resource is None:
        raise ClusterError(f'resource mapping not found for name: "{ref.name}" namespace: '
                           f'"{ref.namespace}": no matches for kind "{ref.kind}" in version '
                           f'"{ref.api_version}"; ensure CRDs are installed first')
    meta = dict(obj.get("metadata") or {})
    if resource.namespaced:
        meta["namespace"] = meta.get("namespace") or namespace
    else:
        meta.pop("namespace", None)
    return {**obj, "metadata": meta}


def mark(obj: Mapping[str, Any], owner: Owner) -> dict[str, Any]:
    """A copy of a resolved object carrying the release's label, annotations and owner reference."""
    meta = dict(obj.get("metadata") or {})
    meta["labels"] = {**(meta.get("labels") or {}), MANAGED_BY_LABEL: MANAGED_BY}
    meta["annotations"] = {**(meta.get("annotations") or {}), RELEASE_NAME_ANNOTATION: owner.name,
                           RELEASE_NAMESPACE_ANNOTATION: owner.namespace}
    if owner.reference is not None and meta.get("namespace") == owner.namespace:
        others = [r for r in meta.get("ownerReferences") or ()
                  if r.get("uid") != owner.reference.get("uid")]
        meta["ownerReferences"] = [*others, dict(owner.reference)]
    return {**obj, "metadata": meta}


def ownership_problem(existing: Mapping[str, Any], owner: Owner) -> str:
    """Why ``existing`` does not belong to ``owner`` (Helm's ``checkOwnership`` text), or ""."""
    meta = existing.get("metadata") or {}
    labels, annotations = meta.get("labels") or {}, meta.get("annotations") or {}
    problems = []
    for where, values, key, want in (
            ("label", labels, MANAGED_BY_LABEL, MANAGED_BY),
            ("annotation", annotations, RELEASE_NAME_ANNOTATION, owner.name),
            ("annotation", annotations, RELEASE_NAMESPACE_ANNOTATION, owner.namespace)):
        if key not in values:
            problems.append(f'{where} validation error: missing key "{key}": must be set to "{want}"')
        elif values[key] != want:
            problems.append(f'{where} validation error: key "{key}" must equal "{want}": '
                            f'current value is "{values[key]}"')
    return "; ".join(["invalid ownership metadata", *problems]) if problems else ""


def check_adoption(client: kclient.ClusterClient, objects: Iterable[Mapping[str, Any]],
                   owner: Owner, *, adopt: bool = False,
                   operation: str = "install") -> list[kclient.ObjectRef]:
    """The resolved ``objects`` that already exist (to be taken over); ``ConflictError`` naming
    the first one owned by someone else, unless ``adopt``. ``operation`` is ``install`` or
    ``update`` as in Helm's "Unable to continue with ..." prefix."""
    existing = []
    for obj in objects:
        ref = kclient.ObjectRef.of(obj)
        try:
            live = client.get(ref)
        except NotFoundError:
            continue
        problem = "" if adopt else ownership_problem(live, owner)
        if problem:
            raise ConflictError(f"Unable to continue with {operation}: {ref} exists and cannot be "
                                f"imported into the current release: {problem}")
        existing.append(ref)
    return existing


def apply_all(client: kclient.ClusterClient, objects: Sequence[Mapping[str, Any]], owner: Owner, *,
              force: bool = False, dry_run: bool = False) -> list[dict[str, Any]]:
    """Server-side apply resolved ``objects`` in the given order, marked for ``owner``."""
    return [client.apply(mark(obj, owner), force=force, dry_run=dry_run) for obj in objects]


REPLACE_FAILED = "failed to replace object"
"""helm's words before the server's when ``--force`` cannot replace an object."""
GET_FAILED = "could not get information about the resource"
"""helm's words before the server's when it cannot read the object it is about to update."""
_OWNERSHIP_TRIES = 3


def replace(client: kclient.ClusterClient, obj: Mapping[str, Any]) -> dict[str, Any] | ClusterError:
    """helm's ``--force`` for one marked object: the object as rendered is PUT over the live one
    (guarded by the live ``resourceVersion``, as helm's ``Replace(overwrite)``), so fields other
    managers set are gone; a missing object is created (server-side apply). Failures read as
    helm's (``failed to replace object: <the server's words>``); a PUT the server refuses is
    returned, not raised: helm goes on to the next object and fails at the end with every
    refusal (:func:`joined`), where a failed read or creation stops it at once.

    The fields the PUT changed are then recorded as applied by us rather than updated (a PUT is
    an ``Update`` in ``managedFields``): a later server-side apply that drops one of them removes
    it, as helm's next three-way patch would."""
    ref = kclient.ObjectRef.of(obj)
    try:
        live = client.get(ref)
    except NotFoundError:
        return client.apply(obj, force=True)
    except ClusterError as exc:
        raise _reworded(exc, GET_FAILED) from exc
    meta = {**(obj.get("metadata") or {}), "resourceVersion": live["metadata"].get("resourceVersion")}
    try:
        done = client.replace({**obj, "metadata": meta})
    except ClusterError as exc:
        return _reworded(exc, REPLACE_FAILED)
    return _own_replaced_fields(client, done)


#: What :func:`joined` puts between the refusals (helm's ``Update`` joins them so).
JOINER = " && "


def joined(refusals: Sequence[ClusterError]) -> ClusterError:
    """helm's error when objects could not be updated: their errors joined by `` && ``, in the
    objects' order (of the first one's kind, which callers classify)."""
    first = refusals[0]
    return type(first)(JOINER.join(str(exc) for exc in refusals), answer=first.answer)


def _reworded(exc: ClusterError, words: str) -> ClusterError:
    """``exc`` as helm words it: ``<words>: <the server's answer>``, of the same kind."""
    return type(exc)(f"{words}: {exc.answer}", answer=exc.answer)


def _own_replaced_fields(client: kclient.ClusterClient, done: dict[str, Any]) -> dict[str, Any]:
    """``done`` after its PUT's fields moved to our apply entry (``applied_ownership``); a
    concurrent writer makes it read the object again, a few times, then leave it as it is."""
    for _ in range(_OWNERSHIP_TRIES):
        meta = done.get("metadata") or {}
        managed = applied_ownership(meta.get("managedFields") or [], client.field_manager,
                                    str(done.get("apiVersion") or ""))
        if managed is None:
            return done
        try:
            return client.replace({**done, "metadata": {**meta, "managedFields": managed}})
        except ConflictError:
            done = client.get(kclient.ObjectRef.of(done))
    return done


def applied_ownership(managed: Sequence[Mapping[str, Any]], manager: str,
                      api_version: str) -> list[dict[str, Any]] | None:
    """``managedFields`` with ``manager``'s ``Update`` entry of ``api_version`` (what a PUT
    records) folded into its ``Apply`` entry (created when missing), or None when there is
    nothing to fold. Field sets (``FieldsV1``) are trees of keys, so their union is a merge."""
    def ours(entry: Mapping[str, Any], operation: str) -> bool:
        return (entry.get("manager") == manager and entry.get("operation") == operation
                and not entry.get("subresource"))

    update = next((e for e in managed if ours(e, "Update") and e.get("apiVersion") == api_version), None)
    if update is None:
        return None
    applied = next((e for e in managed if ours(e, "Apply")), None)
    if applied is not None and applied.get("apiVersion") != api_version:
        return None  # sets of two versions are not comparable; left to the next apply
    folded = {"manager": manager, "operation": "Apply", "apiVersion": api_version,
              "time": update.get("time"), "fieldsType": "FieldsV1",
              "fieldsV1": _union((applied or {}).get("fieldsV1") or {}, update.get("fieldsV1") or {})}
    kept = [dict(e) for e in managed if e is not update and e is not applied]
    return [*kept, folded]


def _union(one: Mapping[str, Any], other: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(one)
    for key, value in other.items():
        here = merged.get(key)
        merged[key] = _union(here, value) if isinstance(here, Mapping) and isinstance(value, Mapping) \
            else value
    return merged


def create_missing(client: kclient.ClusterClient, objects: Sequence[Mapping[str, Any]]
                   ) -> tuple[list[kclient.ObjectRef], list[kclient.ObjectRef]]:
    """Create each object unless it exists; returns (created, already there), in order."""
    created, existing = [], []
    for obj in objects:
        ref = kclient.ObjectRef.of(obj)
        try:
            client.create(obj)
        except ConflictError:
            existing.append(ref)
            continue
        created.append(ref)
    return created, existing


def _key(ref: kclient.ObjectRef) -> tuple[str, str, str, str]:
    return ref.group, ref.kind, ref.namespace, ref.name


def stale(old: Iterable[Mapping[str, Any]], new: Iterable[Mapping[str, Any]]) -> list[kclient.ObjectRef]:
    """Objects of resolved ``old`` absent from resolved ``new`` (any version of the same group)."""
    wanted = {_key(kclient.ObjectRef.of(obj)) for obj in new}
    return [ref for ref in map(kclient.ObjectRef.of, old) if _key(ref) not in wanted]


@record(frozen=True)
class Deletion:
    """What ``delete_all`` did."""

    deleted: tuple[kclient.ObjectRef, ...] = ()
    kept: tuple[kclient.ObjectRef, ...] = ()
    """Annotated ``helm.sh/resource-policy: keep``."""
    missing: tuple[kclient.ObjectRef, ...] = ()
    """Already gone."""


def delete_all(client: kclient.ClusterClient, refs: Iterable[kclient.ObjectRef], *,
               propagation: kclient.Propagation = kclient.Propagation.BACKGROUND) -> Deletion:
    """Delete ``refs`` in the given order (reverse install order for uninstall), keeping kept ones."""
    deleted: list[kclient.ObjectRef] = []
    kept: list[kclient.ObjectRef] = []
    missing: list[kclient.ObjectRef] = []
    for ref in refs:
        try:
            live = client.get(ref)
        except NotFoundError:
            missing.append(ref)
            continue
        annotations = (live.get("metadata") or {}).get("annotations") or {}
        if annotations.get(RESOURCE_POLICY_ANNOTATION) == KEEP_POLICY:
            kept.append(ref)
            continue
        (deleted if client.delete(ref, propagation=propagation) else missing).append(ref)
    return Deletion(deleted=tuple(deleted), kept=tuple(kept), missing=tuple(missing))
