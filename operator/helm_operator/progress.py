"""Kopf's record of handler progress, with one change: a newer generation of a HelmRequest is
never kept waiting by the retry delay of an older one.

Kopf keeps a failed handler's next retry time (``delayed``) in its progress record and honours
it even when the object changes meanwhile, so a user who fixed a HelmRequest during a backoff
waited the delay out (measured: Ready 20.2 s after the fix, during a 20 s delay). The controller
writes ``status.observedGeneration`` with every failure; a record read for a body whose
generation is newer than that belongs to an older spec: its delay and retry count are dropped,
so the new spec runs at once with a fresh retry budget. A Flux reconcile token
(``reconcile.fluxcd.io/requestedAt``) not handled yet drops the delay too, keeping the count;
so does Kopf's own touch annotation when it names a new repository index (:data:`NEW_INDEX`,
written by :func:`handlers.touch_retry`): Kopf removes that annotation with its next patch of
the request (the retry's record), so the next delay holds again.

And one saving: Kopf writes its "kopf-managed" marker with every progress record, also with the
record of a handler that succeeded at once and is purged in the same patch; that marker alone
would cost a PATCH of the request per install. It is written only with a record that stays.
"""
from __future__ import annotations

from typing import Any

import kopf

from helm_operator import identity, ondemand

#: What Kopf's touch annotation (``touch-dummy``) starts with when a new index of the request's
#: repository wakes its retry; Kopf's own touches hold a time.
NEW_INDEX = "new index "


def superseded(body: Any) -> bool:
    """The spec changed after the last attempt reported in status."""
    generation = (body.get("metadata") or {}).get("generation")
    observed = (body.get("status") or {}).get("observedGeneration")
    return isinstance(generation, int) and isinstance(observed, int) and generation > observed


def requested(body: Any) -> bool:
    """A HelmRequest carrying a Flux reconcile token its status does not record as handled:
    ``flux reconcile hr`` runs the retry now, not after the backoff (its run records the token,
    so the next delay holds again)."""
    return body.get("kind") == identity.KIND and ondemand.pending(body)


class GenerationAwareProgressStorage(kopf.AnnotationsProgressStorage):
    """Annotations progress storage that forgets the retry delay of a superseded spec or of a
    request with a reconcile token not handled yet, and writes no marker without a record."""

    def fetch(self, *, key: Any, body: Any) -> Any:
        record = super().fetch(key=key, body=body)
        if record and record.get("delayed") and not record.get("success"):
            if superseded(body):
                return dict(record, delayed=None, retries=0)
            if requested(body) or self.touched_by_index(body):
                return dict(record, delayed=None)  # the retry budget goes on
        return record

    def index_touch(self, body: Any, index: str) -> dict[str, str]:
        """The annotations that wake Kopf's worker of ``body`` with its retry delay dropped:
        ``index`` (the repository and digest) is new since its last try."""
        return {key: NEW_INDEX + index for key in self.make_keys(self.touch_key, body=body)}

    def touched_by_index(self, body: Any) -> bool:
        annotations = (body.get("metadata") or {}).get("annotations") or {}
        return any(str(annotations.get(key) or "").startswith(NEW_INDEX)
                   for key in self.make_keys(self.touch_key, body=body))

    def purge(self, *, key: Any, body: Any, patch: Any) -> None:
        super().purge(key=key, body=body, patch=patch)
        marker = f"{self.prefix}/kopf-managed"
        meta = patch.get("metadata") or {}
        written = meta.get("annotations") or {}
        if marker in written and marker not in body.metadata.annotations and not any(
                name.startswith(f"{self.prefix}/") and value is not None
                for name, value in written.items() if name != marker):
            del written[marker]
            if not written:  # an empty stanza would still be a (no-op) PATCH
                del meta["annotations"]
                if not meta:
                    del patch["metadata"]
