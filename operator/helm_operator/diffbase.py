"""What Kopf last handled, derived from what the controller already writes: no write of its own.

Kopf compares each HelmRequest with a stored "diff base" (the essence it last handled) to tell
create, update, resume and nothing apart. Its stock storage keeps that essence, a full copy of
the spec, in an annotation: one more PATCH of the request per install, upgrade and label
change (a custom-resource write, the API server's costliest request), a bigger object, and one
more watch event for Kopf to process. The controller already records the generation it acted
on in ``status.observedGeneration`` (kstatus, as Flux); the base is derived from it:

- a create or update handler has a progress record (it failed and waits for a retry, or the
  operator stopped it): that cause goes on (create: no base; update: a base without the spec),
  so retries, backoffs and a spec change during a backoff stay Kopf's, as with the annotation;
- otherwise the generation handled is the newer of ``status.observedGeneration`` and the one
  this process saw Kopf finish (:meth:`store`; the status event may come after events older
  than it): none is a create, an older one an update (only the spec moves the generation, so
  labels and annotations alone change nothing, as with the annotation and ``field="spec"``),
  the current one nothing (or resume when the operator starts);
- a request still carrying the annotation of the previous controller version: that annotation,
  exactly as before; it is removed by the next completed handling (the one PATCH that carries
  it), so an upgraded controller re-installs nothing and loses no pending update. (A
  controller going back to the annotation finds none: a create, i.e. an idle reconcile, once.)

One difference: ``requester`` (docs/requester.md) is the one field besides the spec that moves
the generation; a write of it alone is now an update (a reconcile as the new requester, which
records the generation), where the annotation saw no spec change, ran nothing and left
``observedGeneration`` behind for good (the interval check waits for it to catch up).

Not covered: someone else writing ``status.observedGeneration`` (the status subresource is the
controller's) can mark a spec handled; a status erased by someone else reads as a create, and
the handler records the release again (an upgrade to the same chart and values).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, cast

import kopf

#: Annotation key (under the controller's prefix) of the previous version's diff base.
LEGACY_KEY = "last-handled-configuration"


class GenerationDiffBaseStorage(kopf.DiffBaseStorage):
    """Kopf's diff base read from status and progress records; stores nothing on the object."""

    def __init__(self, *, prefix: str, progress: kopf.ProgressStorage,
                 handlers: Sequence[str]) -> None:
        super().__init__()
        self.progress = progress
        """Where Kopf keeps the changing handlers' attempts (the controller's progress storage)."""
        self.handlers = [kopf.HandlerId(handler) for handler in handlers]
        """The ids of the create, update and resume handlers."""
        self.legacy = kopf.AnnotationsDiffBaseStorage(prefix=prefix, key=LEGACY_KEY)
        self.handled: dict[str, int] = {}
        """Generation Kopf finished handling, by uid, in this process."""

    def build(self, *, body: kopf.Body,
              extra_fields: Iterable[Any] | None = None) -> kopf.BodyEssence:
        # the previous version's essence (its own annotation left out), so that its stored
        # bases compare equal
        extra = list(extra_fields or [])
        return self.legacy.build(body=_essential(body, extra), extra_fields=extra)

    def fetch(self, *, body: kopf.Body) -> kopf.BodyEssence | None:
        legacy = self.legacy.fetch(body=body)
        if legacy is not None:
            return legacy
        meta = body.get("metadata") or {}
        uid = meta.get("uid", "")
        if meta.get("deletionTimestamp"):
            self.handled.pop(uid, None)  # the finalizer's turn; nothing to remember past it
        purpose = next((record.get("purpose") for record in (
            self.progress.fetch(key=handler, body=body) for handler in self.handlers) if record), None)
        if purpose == "create":
            return None
        if purpose == "update":
            return self._without_spec(body)
        # no record, or a resume's (which a newer spec turns into an update, as before)
        generation = meta.get("generation")
        observed = (body.get("status") or {}).get("observedGeneration")
        handled = max(observed if isinstance(observed, int) else 0, self.handled.get(uid, 0))
        if not handled:
            return None
        if isinstance(generation, int) and generation > handled:
            return self._without_spec(body)
        return self.build(body=body)

    def store(self, *, body: kopf.Body, patch: kopf.Patch, essence: kopf.BodyEssence) -> None:
        meta = body.get("metadata") or {}
        generation = meta.get("generation")
        if isinstance(generation, int):
            uid = meta.get("uid", "")
            self.handled[uid] = max(generation, self.handled.get(uid, 0))
        annotations = meta.get("annotations") or {}
        for key in self.legacy.make_keys(LEGACY_KEY, body=body):
            if key in annotations:
                patch.metadata.annotations[key] = None

    def _without_spec(self, body: kopf.Body) -> kopf.BodyEssence:
        """A base whose only difference from the current essence is the spec: an update."""
        essence: dict[str, Any] = dict(self.build(body=body))
        essence.pop("spec", None)
        return essence  # type: ignore[return-value]


#: What Kopf's essence keeps of ``metadata``, and what it reads there to name its annotations.
ESSENCE_METADATA = ("labels", "annotations", "ownerReferences")


def _essential(body: kopf.Body, extra_fields: list[Any]) -> kopf.Body:
    """``body`` without what Kopf's essence drops (status, and metadata but for its labels and
    annotations): Kopf deep-copies the whole body before dropping them (managedFields and
    status included), once or twice per watch event. The same body when an extra field
    names a part of status or metadata."""
    if any(_field_root(field) in ("status", "metadata") for field in extra_fields):
        return body
    meta = body.get("metadata") or {}
    slim: dict[str, Any] = {key: value for key, value in body.items() if key not in ("status", "metadata")}
    slim["metadata"] = {key: meta[key] for key in ESSENCE_METADATA if key in meta}
    return kopf.Body(cast(kopf.RawBody, slim))


def _field_root(field: Any) -> str:
    """The first key of a Kopf field spec (a dotted string or a tuple of keys)."""
    return str(field).split(".", 1)[0] if isinstance(field, str) else str(next(iter(field), ""))
