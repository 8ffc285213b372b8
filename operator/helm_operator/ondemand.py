"""Flux's on-demand annotations on a HelmRequest: reconcile now, force an upgrade, reset failures.

``flux reconcile helmrelease`` (and people with ``kubectl annotate``) write a token, usually the
time, into annotations the controller compares with what its status says it handled:

- ``reconcile.fluxcd.io/requestedAt``: a new token runs the request's check at once, whatever its
  interval and whatever stall it is in; ``status.lastHandledReconcileAt`` records the token.
- ``reconcile.fluxcd.io/forceAt``: with the same token as requestedAt, one upgrade even when
  nothing changed (``flux reconcile hr --force``); ``status.lastHandledForceAt``.
- ``reconcile.fluxcd.io/resetAt``: with the same token, the failure counts start again from zero
  (``flux reconcile hr --reset``); ``status.lastHandledResetAt``.

A forceAt or resetAt token is recorded as handled even when requestedAt holds another one, so a
stale token never fires later (Flux's ``meta.HandleAnnotationRequest`` rule).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from helm_core.support.records import record
from helm_operator import status as status_mod

REQUESTED_AT = "reconcile.fluxcd.io/requestedAt"
FORCE_AT = "reconcile.fluxcd.io/forceAt"
RESET_AT = "reconcile.fluxcd.io/resetAt"
#: Each annotation and the status field that records its last handled token.
HANDLED_FIELDS = {REQUESTED_AT: "lastHandledReconcileAt", FORCE_AT: "lastHandledForceAt",
                  RESET_AT: "lastHandledResetAt"}


@record(frozen=True)
class Asked:
    """What the annotations ask of this reconcile beyond the spec."""

    now: bool
    """A reconcile token not handled yet: run even if the interval or a stall says wait."""
    force: bool
    """Upgrade even when the release is as desired."""
    reset: bool
    """Count failures from zero again."""


def _annotations(body: Mapping[str, Any]) -> Mapping[str, str]:
    return (body.get("metadata") or {}).get("annotations") or {}


def _new_token(body: Mapping[str, Any], annotation: str) -> str | None:
    token = _annotations(body).get(annotation)
    handled = (body.get("status") or {}).get(HANDLED_FIELDS[annotation])
    return token if token is not None and token != handled else None


def pending(body: Mapping[str, Any]) -> bool:
    """The request carries a reconcile token its status does not record as handled."""
    return _new_token(body, REQUESTED_AT) is not None


def asked(body: Mapping[str, Any]) -> Asked:
    """What the annotations of ``body`` ask, against what its status records as handled."""
    requested = _annotations(body).get(REQUESTED_AT)

    def matches(annotation: str) -> bool:
        token = _new_token(body, annotation)
        return token is not None and token == requested

    return Asked(now=pending(body), force=matches(FORCE_AT), reset=matches(RESET_AT))


def handled(status: Mapping[str, Any], body: Mapping[str, Any], wanted: Asked) -> dict[str, Any]:
    """``status`` recording every token the annotations hold as handled, with the failure counts
    at zero when ``wanted.reset``."""
    out = dict(status)
    for annotation, field_name in HANDLED_FIELDS.items():
        token = _annotations(body).get(annotation)
        if token is not None:
            out[field_name] = token
    if wanted.reset:
        status_mod.zero_failure_counts(out)
    return out
