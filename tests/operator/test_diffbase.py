"""Kopf's causes with the diff base derived from status (helm_operator.diffbase): the same
causes and handlers as with Kopf's annotation, and no write of its own.

Each case goes through Kopf's own cause detection and handler selection (its private modules,
as its reactor calls them) with the controller's real registry.
"""
from __future__ import annotations

import copy
import logging
from typing import Any

import kopf
from kopf._cogs.structs import diffs, references
from kopf._core.intents import causes

from helm_operator import diffbase, handlers, progress

PREFIX = "helm-operator.helm.sh"
LEGACY = f"{PREFIX}/{diffbase.LEGACY_KEY}"
MARKER = f"{PREFIX}/kopf-managed"
RESOURCE = references.Resource(group="helm.sh", version="v1alpha1", plural="helmrequests",
                               kind="HelmRequest", namespaced=True)
UPDATE_ID = handlers.APPLY_IDS[1]
SPEC = {"chart": {"configMapRef": {"name": "chart"}}, "values": {"a": 1}}


def storages() -> tuple[progress.GenerationAwareProgressStorage, diffbase.GenerationDiffBaseStorage]:
    attempts = progress.GenerationAwareProgressStorage(prefix=PREFIX)
    return attempts, diffbase.GenerationDiffBaseStorage(prefix=PREFIX, progress=attempts,
                                                        handlers=handlers.APPLY_IDS)


def request(generation: int = 1, observed: int | None = None, spec: dict[str, Any] | None = None,
            labels: dict[str, str] | None = None, record: dict[str, Any] | None = None,
            handler: str = handlers.APPLY,
            annotations: dict[str, str] | None = None, uid: str = "u1") -> kopf.Body:
    raw: dict[str, Any] = {
        "apiVersion": "helm.sh/v1alpha1", "kind": "HelmRequest",
        "metadata": {"name": "app", "namespace": "ns", "uid": uid, "generation": generation,
                     "finalizers": ["helm.sh/helmrequest-finalizer"],
                     "labels": dict(labels or {}), "annotations": dict(annotations or {})},
        "spec": copy.deepcopy(SPEC if spec is None else spec)}
    if observed is not None:
        raw["status"] = {"observedGeneration": observed}
    if record is not None:  # Kopf's progress record of that handler, as Kopf writes it
        patch = kopf.Patch()
        progress.GenerationAwareProgressStorage(prefix=PREFIX).store(
            key=kopf.HandlerId(handler), record=record, body=kopf.Body(raw), patch=patch)
        raw["metadata"]["annotations"].update(patch["metadata"]["annotations"])
    return kopf.Body(raw)


def registry() -> kopf.OperatorRegistry:
    reg = kopf.OperatorRegistry()
    handlers.register(reg)
    return reg


def cause_of(storage: kopf.DiffBaseStorage, attempts: kopf.ProgressStorage, body: kopf.Body,
             *, initial: bool = False) -> tuple[kopf.Reason, list[str]]:
    """Kopf's cause for ``body`` and the ids of the handlers it would call (as its reactor does:
    processing._detect_causes, then the registry's selection)."""
    reg = registry()
    extra = reg._changing.get_extra_fields(resource=RESOURCE)
    old = storage.fetch(body=body)
    new = storage.build(body=body, extra_fields=extra)
    old = attempts.clear(essence=old) if old is not None else None
    new = attempts.clear(essence=new)
    cause = causes.detect_changing_cause(
        finalizer="helm.sh/helmrequest-finalizer", raw_event={"type": "MODIFIED", "object": dict(body)},
        body=body, old=old, new=new, diff=diffs.diff(old, new), initial=initial, resource=RESOURCE,
        indices={}, logger=logging.getLogger("test"), patch=kopf.Patch(), memo=kopf.Memo())
    return cause.reason, [str(h.id) for h in reg._changing.get_handlers(cause=cause)]


def handled(storage: diffbase.GenerationDiffBaseStorage, body: kopf.Body) -> kopf.Patch:
    """Kopf finished the handlers of ``body`` (what its reactor does then)."""
    patch = kopf.Patch()
    storage.store(body=body, patch=patch, essence=storage.build(body=body))
    return patch


def test_create_then_nothing_then_resume_at_start() -> None:
    attempts, storage = storages()
    assert cause_of(storage, attempts, request()) == (kopf.Reason.CREATE, [handlers.APPLY])
    assert handled(storage, request()) == {}  # nothing written on the request
    assert cause_of(storage, attempts, request(observed=1))[0] == kopf.Reason.NOOP
    assert cause_of(storage, attempts, request(observed=1), initial=True) == (
        kopf.Reason.RESUME, [handlers.APPLY])
    _, restarted = storages()  # a new process: status alone says it was handled
    assert cause_of(restarted, attempts, request(observed=1), initial=True)[0] == kopf.Reason.RESUME


def test_an_event_older_than_the_status_write_is_not_a_second_create() -> None:
    attempts, storage = storages()
    handled(storage, request())
    late = request(labels={"team": "a"})  # a user's label change arrived before our status
    assert cause_of(storage, attempts, late)[0] == kopf.Reason.NOOP
    assert cause_of(storage, attempts, request(uid="other"))[0] == kopf.Reason.CREATE


def test_spec_change_is_an_update_and_labels_alone_nothing() -> None:
    attempts, storage = storages()
    changed = request(generation=2, observed=1, spec=dict(SPEC, values={"a": 2}))
    assert cause_of(storage, attempts, changed) == (kopf.Reason.UPDATE, [UPDATE_ID])
    assert cause_of(storage, attempts, changed, initial=True)[0] == kopf.Reason.UPDATE
    handled(storage, changed)
    assert cause_of(storage, attempts, changed)[0] == kopf.Reason.NOOP  # status not there yet
    labelled = request(observed=1, labels={"team": "a"}, annotations={"note": "x"})
    assert cause_of(storage, attempts, labelled)[0] == kopf.Reason.NOOP


def test_a_failed_handler_keeps_its_cause_until_it_succeeds() -> None:
    attempts, storage = storages()
    delayed = {"started": "2026-11-26T15:00:00.000000+00:00", "delayed": "2026-11-26T15:00:20.000000+00:00",
               "retries": 1, "success": False, "failure": False, "message": "down"}
    # the controller wrote observedGeneration with the failure: still the same cause
    first = request(observed=1, record=dict(delayed, purpose="create"))
    assert cause_of(storage, attempts, first) == (kopf.Reason.CREATE, [handlers.APPLY])
    upgrade = request(generation=2, observed=2, record=dict(delayed, purpose="update"), handler=UPDATE_ID)
    assert cause_of(storage, attempts, upgrade) == (kopf.Reason.UPDATE, [UPDATE_ID])
    resuming = request(observed=1, record=dict(delayed, purpose="resume"))
    assert cause_of(storage, attempts, resuming, initial=True)[0] == kopf.Reason.RESUME
    # a resume failing, then a spec change: an update (the annotation held the older spec)
    resumed_then_changed = request(generation=2, observed=1, record=dict(delayed, purpose="resume"))
    assert cause_of(storage, attempts, resumed_then_changed, initial=True)[0] == kopf.Reason.UPDATE
    # a spec change during the backoff: the same cause, without the old delay
    fixed = request(generation=3, observed=2, record=dict(delayed, purpose="update"), handler=UPDATE_ID)
    assert cause_of(storage, attempts, fixed) == (kopf.Reason.UPDATE, [UPDATE_ID])
    assert attempts.fetch(key=kopf.HandlerId(UPDATE_ID), body=fixed)["delayed"] is None


def test_a_requester_stamp_alone_is_an_update() -> None:
    """The one difference from the annotation (diffbase's docstring): ``requester`` moves the
    generation, and only the generation is known."""
    attempts, storage = storages()
    raw = dict(request(generation=2, observed=1))
    raw["requester"] = {"username": "bob"}
    assert cause_of(storage, attempts, kopf.Body(raw)) == (kopf.Reason.UPDATE, [UPDATE_ID])


def test_a_request_with_the_previous_versions_annotation_is_handled_as_before() -> None:
    attempts, storage = storages()
    stock = kopf.AnnotationsDiffBaseStorage(prefix=PREFIX, key=diffbase.LEGACY_KEY)
    stored = kopf.Patch()
    stock.store(body=request(), patch=stored, essence=stock.build(body=request()))
    annotations = dict(stored["metadata"]["annotations"])
    assert set(annotations) == {LEGACY, MARKER}
    same = request(observed=1, annotations=annotations)
    for initial in (False, True):
        assert (cause_of(storage, attempts, same, initial=initial)
                == cause_of(stock, attempts, same, initial=initial))
    assert cause_of(storage, attempts, same, initial=True)[0] == kopf.Reason.RESUME
    # an update the previous version had not handled yet (even with status ahead of it)
    pending = request(generation=2, observed=2, spec=dict(SPEC, values={"a": 2}), annotations=annotations)
    assert cause_of(storage, attempts, pending) == cause_of(stock, attempts, pending)
    assert cause_of(storage, attempts, pending)[0] == kopf.Reason.UPDATE
    labelled = request(observed=1, labels={"team": "a"}, annotations=annotations)
    assert cause_of(storage, attempts, labelled) == (kopf.Reason.UPDATE, [])  # as before: no handler
    # the next completed handling removes it (in Kopf's patch after the handlers)
    assert handled(storage, pending) == {"metadata": {"annotations": {LEGACY: None}}}
    after = request(generation=2, observed=2, spec=dict(SPEC, values={"a": 2}), annotations={MARKER: "yes"})
    assert cause_of(storage, attempts, after)[0] == kopf.Reason.NOOP


def test_deletion_is_kopfs_as_before() -> None:
    attempts, storage = storages()
    handled(storage, request())
    raw = dict(request(observed=1))
    raw["metadata"] = dict(raw["metadata"], deletionTimestamp="2026-11-26T15:00:00Z")
    assert cause_of(storage, attempts, kopf.Body(raw)) == (kopf.Reason.DELETE, ["uninstall"])
    assert "u1" not in storage.handled


def test_the_ids_read_are_those_of_the_registered_handlers() -> None:
    ids = {str(h.id) for h in registry()._changing.get_resource_handlers(resource=RESOURCE)}
    assert ids == {*handlers.APPLY_IDS, "uninstall"}


def test_the_handlers_watch_no_field_outside_the_spec() -> None:
    """The derived base is built without Kopf's extra fields: equal only while every field a
    handler names lies in the spec (which the essence holds whole)."""
    extra = registry()._changing.get_extra_fields(resource=RESOURCE)
    assert extra and all(field[:1] == ("spec",) for field in extra)


def test_a_handler_succeeding_at_once_writes_nothing_a_failing_one_its_record_and_marker() -> None:
    attempts, _ = storages()
    key = kopf.HandlerId(handlers.APPLY)
    record: Any = {"started": "2026-11-26T15:00:00.000000+00:00", "purpose": "create", "retries": 1,
                   "success": True, "failure": False}
    body = request()
    patch = kopf.Patch()
    attempts.store(key=key, record=record, body=body, patch=patch)
    attempts.purge(key=key, body=body, patch=patch)
    assert patch == {} and not patch
    failing = dict(record, success=False, delayed="2026-11-26T15:00:20.000000+00:00")
    patch = kopf.Patch()
    attempts.store(key=key, record=failing, body=body, patch=patch)
    assert set(patch["metadata"]["annotations"]) == {f"{PREFIX}/{handlers.APPLY}", MARKER}
    # its retry succeeds: the record goes, the marker (on the object since the failure) stays
    marked = request(record=failing, annotations={MARKER: "yes"})
    patch = kopf.Patch()
    attempts.store(key=key, record=record, body=marked, patch=patch)
    attempts.purge(key=key, body=marked, patch=patch)
    assert patch == {"metadata": {"annotations": {f"{PREFIX}/{handlers.APPLY}": None}}}


class Counted:
    """A value that counts its deep copies."""

    copies = 0

    def __deepcopy__(self, memo: dict[int, Any]) -> Counted:
        Counted.copies += 1
        return self


def test_the_essence_is_kopfs_without_copying_status_or_managed_fields() -> None:
    """Kopf's essence keeps the spec, labels and annotations (but its own and kubectl's); it
    deep-copied the whole body first, status and managedFields included, for every event."""
    _, storage = storages()
    body = request(labels={"team": "a"}, annotations={
        "note": "x", "kubectl.kubernetes.io/last-applied-configuration": "{}", MARKER: "yes"})
    raw = dict(body)
    raw["metadata"] = dict(raw["metadata"], ownerReferences=[{"kind": "X", "name": "o"}],
                           managedFields=[{"manager": "kubectl"}], resourceVersion="7")
    raw["status"] = {"observedGeneration": 1, "conditions": [{"type": "Ready", "status": "True"}]}
    stock = kopf.AnnotationsDiffBaseStorage(prefix=PREFIX, key=diffbase.LEGACY_KEY)
    extra = registry()._changing.get_extra_fields(resource=RESOURCE)
    expected = stock.build(body=kopf.Body(raw), extra_fields=extra)
    assert storage.build(body=kopf.Body(raw), extra_fields=extra) == expected
    assert expected == {"spec": SPEC, "metadata": {"labels": {"team": "a"}, "annotations": {"note": "x"}}}

    raw["status"]["history"] = [Counted()]
    raw["metadata"]["managedFields"] = [Counted()]
    Counted.copies = 0
    storage.build(body=kopf.Body(raw), extra_fields=extra)
    assert Counted.copies == 0
    # a field handler on status would need it: then the whole body, as Kopf builds it
    storage.build(body=kopf.Body(raw), extra_fields=[("status", "history")])
    assert Counted.copies > 0
