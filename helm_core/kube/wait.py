"""Wait until objects are ready (or gone), polling through a ``ClusterClient``.

Why polling: it needs only ``get``, works the same for every kind and through impersonation,
and a poll every ``WaitOptions.poll_s`` is cheap next to typical rollout times.

Rules:
- ``wait_ready`` returns once every object is CURRENT (``kube/readiness.py``); an object that is
  FAILED (a failed Job, a Deployment past its progress deadline) ends the wait at once with a
  ``WaitError(timed_out=False)`` naming it and the reason; reaching the deadline raises
  ``WaitError(timed_out=True)`` listing every object still not ready with its last state.
- Jobs count as ready once complete (helm's ``--wait-for-jobs``); with
  ``WaitOptions.wait_for_jobs`` False, once started (``readiness.jobs_started``).
- A missing object counts as not ready (it may not be created yet), never as an error.
- ``wait_deleted`` returns once every object is gone (``NotFoundError``).
- Cancellation: after each poll that leaves objects pending, ``WaitOptions.cancelled`` is
  asked; a non-empty answer (the reason) ends the wait with ``WaitCancelled`` naming it and
  the objects still pending. Polling is the only blocking step, so a cancellation is seen
  within one ``poll_s`` plus one poll; a wait whose objects are all ready is never cancelled.
- Each poll reads objects with one LIST per (kind, namespace) holding at least
  ``LIST_THRESHOLD`` pending objects (falling back to GETs when RBAC refuses the LIST), and
  one GET for the others: a big chart costs a handful of requests per poll, not one per object.
- Objects ``wait_ready`` is given as the server just returned them (``seen``: the responses of
  the apply that made them) are rated from those in the first poll instead of read again: an
  object that is ready as written (a ConfigMap, a Secret, a ClusterIP Service) costs no
  request; the others are read from the next poll on.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping

from helm_core.errors import ForbiddenError, NotFoundError, WaitCancelled, WaitError
from helm_core.kube import client as kclient
from helm_core.kube import readiness as kready
from helm_core.support.records import field, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DEFAULT_TIMEOUT_S = 300.0
"""Helm's default ``--timeout`` (5m0s)."""
DEFAULT_POLL_S = 0.5
LIST_THRESHOLD = 3
"""Pending objects of one kind in one namespace from which a poll LISTs instead of GETs."""


def never_cancelled() -> str:
    """The default cancellation hook: never stop a wait."""
    return ""


@record(frozen=True)
class WaitOptions:
    """How long and how often to poll."""

    timeout_s: float = DEFAULT_TIMEOUT_S
    """Deadline for all objects together, in seconds (Helm's ``--timeout``)."""
    poll_s: float = DEFAULT_POLL_S
    """Seconds between polls of objects not yet ready."""
    clock: Callable[[], float] = field(default=time.monotonic, compare=False)
    """Monotonic clock in seconds (tests may pass their own)."""
    sleep: Callable[[float], None] = field(default=time.sleep, compare=False)
    cancelled: Callable[[], str] = field(default=never_cancelled, compare=False)
    """Asked between polls: why the wait should stop now ("" to go on). Must be cheap (it runs
    every ``poll_s``) and thread-safe (actions wait in worker threads)."""
    wait_for_jobs: bool = True
    """A Job is ready once complete; False: once started (helm without ``--wait-for-jobs``)."""


def stop_if_cancelled(options: WaitOptions, waiting_for: str) -> None:
    """Raise ``WaitCancelled`` when ``options.cancelled`` gives a reason."""
    reason = options.cancelled()
    if reason:
        raise WaitCancelled(f"wait cancelled ({reason}) while waiting for {waiting_for}",
                            reason=reason)


def _describe(pending: dict[kclient.ObjectRef, kready.Readiness]) -> str:
    return "; ".join(f"{ref}: {state.message or state.state.value}"
                     for ref, state in pending.items())


def _seconds(value: float) -> str:
    return f"{value:g}s"


def check(client: kclient.ClusterClient, ref: kclient.ObjectRef, *,
          rule: Callable[[Mapping[str, Any]], kready.Readiness] = kready.readiness) -> kready.Readiness:
    """The readiness of one object now by ``rule`` (NOT_FOUND when it does not exist)."""
    try:
        return rule(client.get(ref))
    except NotFoundError:
        return kready.Readiness(kready.State.NOT_FOUND, "not found")


def _listed(client: kclient.ClusterClient, refs: list[kclient.ObjectRef],
            rule: Callable[[Mapping[str, Any]], kready.Readiness]) -> dict[kclient.ObjectRef, kready.Readiness] | None:
    first = refs[0]
    try:
        items = client.list(first.api_version, first.kind, namespace=first.namespace)
    except ForbiddenError:
        return None
    by_name = {str((item.get("metadata") or {}).get("name")): item for item in items}
    return {ref: rule(by_name[ref.name]) if ref.name in by_name
            else kready.Readiness(kready.State.NOT_FOUND, "not found") for ref in refs}


def check_all(client: kclient.ClusterClient, refs: Iterable[kclient.ObjectRef], *,
              rule: Callable[[Mapping[str, Any]], kready.Readiness] = kready.readiness
              ) -> dict[kclient.ObjectRef, kready.Readiness]:
    """The readiness of several objects now by ``rule``, in ``refs`` order (LIST or GET, see
    the rules)."""
    ordered = list(dict.fromkeys(refs))
    groups: dict[tuple[str, str, str], list[kclient.ObjectRef]] = {}
    for ref in ordered:
        groups.setdefault((ref.api_version, ref.kind, ref.namespace), []).append(ref)
    states: dict[kclient.ObjectRef, kready.Readiness] = {}
    for group in groups.values():
        listed = _listed(client, group, rule) if len(group) >= LIST_THRESHOLD else None
        states.update(listed if listed is not None else {ref: check(client, ref, rule=rule) for ref in group})
    return {ref: states[ref] for ref in ordered}


def wait_ready(client: kclient.ClusterClient, refs: Iterable[kclient.ObjectRef], *,
               options: WaitOptions = WaitOptions(), seen: Iterable[Mapping[str, Any]] = ()) -> None:
    """Block until every object in ``refs`` is ready; see the module rules for failures.
    ``seen``: some of them as the server just returned them (rated without a read at first)."""
    pending = {ref: kready.Readiness(kready.State.NOT_FOUND) for ref in refs}
    deadline = options.clock() + options.timeout_s
    rule = kready.readiness if options.wait_for_jobs else kready.jobs_started
    fresh = {ref: obj for obj in seen if (ref := kclient.ObjectRef.of(obj)) in pending}
    while True:
        states = {ref: rule(obj) for ref, obj in fresh.items()}
        fresh = {}
        states.update(check_all(client, [ref for ref in pending if ref not in states], rule=rule))
        for ref, state in states.items():
            if state.state is kready.State.FAILED:
                raise WaitError(f"{ref} failed: {state.message}", timed_out=False)
            if state.ready:
                del pending[ref]
            else:
                pending[ref] = state
        if not pending:
            return
        stop_if_cancelled(options, f"{len(pending)} object(s) to be ready: {_describe(pending)}")
        if options.clock() >= deadline:
            raise WaitError(f"timed out after {_seconds(options.timeout_s)} waiting for "
                            f"{len(pending)} object(s) to be ready: {_describe(pending)}",
                            timed_out=True)
        options.sleep(options.poll_s)


def wait_deleted(client: kclient.ClusterClient, refs: Iterable[kclient.ObjectRef], *,
                 options: WaitOptions = WaitOptions()) -> None:
    """Block until every object in ``refs`` is gone from the server."""
    pending = list(refs)
    deadline = options.clock() + options.timeout_s
    while True:
        pending = [ref for ref, state in check_all(client, pending).items()
                   if state.state is not kready.State.NOT_FOUND]
        if not pending:
            return
        names = ", ".join(str(ref) for ref in pending)
        stop_if_cancelled(options, f"deletion of {names}")
        if options.clock() >= deadline:
            raise WaitError(f"timed out after {_seconds(options.timeout_s)} waiting for "
                            f"deletion of {names}", timed_out=True)
        options.sleep(options.poll_s)
