"""Runs one reconcile for a handler: status before and after, Events, metrics, retry policy.

Rules:
- Status is written by the controller alone, with server-side apply on the status subresource
  (field manager ``helm-operator``), so it is whole after every step.
- Before an install/upgrade, Reconciling is announced so ``kubectl get hreq`` shows work, but
  written only if the operation still runs ``runtime.announce_after_s`` later (one timer of the
  process's scheduler, ``helm_core.support.timers``, no thread per operation): a fast one writes
  its result alone (kstatus reads ``observedGeneration < generation`` as in progress meanwhile).
  The announcement is settled (stopped, or waited for) before the final status is written, so
  it never lands after it.
- A failure is a condition with a reason and message, a Warning Event, and a retry policy:
  release failures (anything failed once a version was stored, or tests,
  :func:`errors.is_release_failure`) follow ``remediation.retries`` (default 0) and run the
  remediation strategy between attempts (the last one only with ``remediateLastFailure``), as
  Flux does, with Flux's reasons (InstallFailed, UpgradeFailed on Released and Ready;
  TestFailed on TestSuccess and Ready, Released True; Remediated RollbackSucceeded,
  UninstallFailed...); an upgrade its remediation uninstalled
  is installed again, its retries used up or not; a rollback remediation with no version to go
  to stalls (MissingRollbackTarget); a stall of either kind tries nothing more until the
  counts start from zero (:func:`reconcile.hold`); an install or upgrade that failed before
  storing (:class:`errors.ActionError`) says Flux's reason too, but is retried or stalled as its
  cause;
  transient cluster/source errors retry up to ``MAX_TRANSIENT_RETRIES`` with exponential
  backoff; permanent errors stall at once.
- A wait cancelled by a newer generation (``Runtime.superseded``) is no failure: Ready False
  HealthCheckCanceled (Flux's, when a new reconcile request cuts its health checks), Reconciling
  and a Normal Event say so, and the handler returns so the newer generation runs at once.
- Before anything else (Flux's order), a request whose ``spec.dependsOn`` is not Ready waits
  (:mod:`dependencies`): Ready False DependencyNotReady, nothing tried or counted, and
  :class:`WaitingForDependencies` tells the handler when to look again.
- A drift correction that fails is no failure of the release (Flux's): Ready Unknown and
  Reconciling ProgressingWithRetry "correcting cluster drift", a Warning DriftCorrectionFailed
  Event, and :class:`CheckAgain` has the interval check try again after the backoff.
- Deletion never blocks for good: after ``MAX_DELETE_RETRIES`` (or at once when retrying
  cannot help) the finalizer is released with a Warning Event saying what was left.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

import kopf

from helm_core import errors as core_errors
from helm_core.golib import gostrconv
from helm_core.kube import client as kclient
from helm_core.support import timers
from helm_operator import dependencies, errors, identity, ondemand, reconcile, requester, status
from helm_operator import metrics as metrics_mod

MAX_TRANSIENT_RETRIES = 8
MAX_DELETE_RETRIES = 5
#: Stalled reasons worth re-trying at the request's interval: an admin may fix them without
#: touching the request (RBAC granted, chart pushed, service account created).
RETRY_ON_INTERVAL = frozenset({"Forbidden", "ChartSourceFailed", "ServiceAccountNotFound",
                               "ActAsInvalid",
                               "ChartDigestMismatch", "RenderLimitExceeded",
                               "RenderCrashed", "KubeConfigNotFound", "InvalidKubeConfig",
                               # a chart or values the same inputs fail the same way, but a new
                               # chart version in range or a valuesFrom object may mend (Flux
                               # retries them all with backoff)
                               "ChartInvalid", "ValuesInvalid", "RenderFailed", "LuaFailed",
                               # Flux acts again on a new chart or values: the check looks for
                               # them, and tries nothing until then (reconcile.hold)
                               *status.HELD_REASONS})


class CheckAgain(Exception):
    """Nothing failed, but the request's interval check must run again after ``seconds`` (no
    Kopf retry: it is the check's own work that waits)."""

    def __init__(self, message: str, seconds: float) -> None:
        super().__init__(message)
        self.seconds = seconds


class WaitingForDependencies(CheckAgain):
    """A ``spec.dependsOn`` request is not Ready: nothing was tried; look again after
    ``seconds`` (``--requeue-dependency``, Flux's fixed interval: no backoff, no Kopf retry,
    no failure counted)."""


def ends_a_wait(body: Mapping[str, Any]) -> bool:
    """The request's generation waits for its dependencies, not handled yet (the wait leaves
    ``observedGeneration`` behind): the check that finds them Ready makes the generation's first
    try, which must fail and retry as the handlers' tries do (with backoff), not as an interval
    check's."""
    st = body.get("status") or {}
    generation = int(body["metadata"].get("generation") or 1)
    ready = status.get_condition(st, status.READY) or {}
    return (ready.get("reason") == status.DEPENDENCY_NOT_READY
            and ready.get("observedGeneration") == generation and st.get("observedGeneration") != generation)


def write_status(rt: reconcile.Runtime, body: Mapping[str, Any], new: Mapping[str, Any]) -> None:
    """Replace the request's status (server-side apply, forced: the controller owns it)."""
    meta = body["metadata"]
    rt.admin.apply({"apiVersion": identity.API_VERSION, "kind": identity.KIND,
                    "metadata": {"name": meta["name"], "namespace": meta["namespace"]},
                    "status": dict(new)}, subresource="status", force=True)


def _announce(rt: reconcile.Runtime, body: Mapping[str, Any],
              reconciling: Mapping[str, Any]) -> timers.Deferred:
    """Write ``reconciling`` if the operation still runs after the announce grace."""
    meta = body["metadata"]

    def failed(exc: Exception) -> None:
        rt.log(f"cannot write status of {meta['namespace']}/{meta['name']}: {exc}")

    return timers.Deferred(lambda: write_status(rt, body, reconciling),
                           rt.settings.runtime.announce_after_s, on_error=failed)


def state_of(st: Mapping[str, Any]) -> str:
    """The metrics state of a status."""
    ready = status.get_condition(st, status.READY) or {}
    if ready.get("reason") == status.SUSPENDED:
        return "suspended"
    if status.get_condition(st, status.STALLED):
        return "stalled"
    if ready.get("status") == "True":
        return "ready"
    return "reconciling"


def apply(rt: reconcile.Runtime, body: Mapping[str, Any], *, retry: int,
          metrics: metrics_mod.Metrics, interval_check: bool = False) -> None:
    """Reconcile ``body``; raises Kopf's TemporaryError to retry, PermanentError to stall."""
    meta = body["metadata"]
    recorded = dict(body.get("status") or {})
    generation = int(meta.get("generation") or 1)
    wanted = ondemand.asked(body)
    if interval_check and not _due_on_interval(recorded, generation, requested=wanted.now):
        return
    old = ondemand.handled(recorded, body, wanted)
    if recorded.get("observedGeneration") != generation:
        status.zero_failure_counts(old)  # Flux: a new generation counts its failures from zero
    started = time.monotonic()
    metrics.in_flight.inc()
    announcement: timers.Deferred | None = None
    try:
        if not (body.get("spec") or {}).get("suspend"):  # Flux: a suspended request checks none
            waiting = dependencies.not_ready(rt.admin, body)
            if waiting is not None:
                _wait_for_dependencies(rt, body, recorded, old, waiting, metrics=metrics,
                                       started=started)
        # a request held out of retries most likely stays so: no Reconciling to take back
        announce = not status.is_ready(old, generation) and not _held(old)
        if not interval_check and announce and not (body.get("spec") or {}).get("suspend"):
            message = "upgrading" if old.get("version") else "installing"
            old = status.reconciling(old, generation=generation, message=f"{message} the release",
                                     now=status.now_rfc3339())
            announcement = _announce(rt, body, old)
        live = dict(body, status=old)
        try:
            outcome = reconcile.apply(rt, live, force=wanted.force)
        except Exception as exc:  # noqa: BLE001 - every failure becomes status and policy
            if announcement is not None:
                announcement.settle()
            if rt.stopping():
                # the shutdown broke it (workers killed, waits cut): no verdict on the request;
                # the next start resumes it
                raise kopf.TemporaryError(f"interrupted by shutdown: {errors.message(exc)}",
                                          delay=1) from None
            cancelled = _cancelled_wait(exc)
            if cancelled is not None:
                _superseded(rt, live, cancelled, metrics=metrics, started=started)
                return
            _failed(rt, live, exc, retry=retry, metrics=metrics, started=started,
                    interval_check=interval_check)
            raise AssertionError("unreachable") from None
        new, acted_as = requester.applied(rt.admin, body, outcome.action, outcome.status,
                                          default=rt.settings.security.act_as, log=rt.log)
        announced = announcement.settle() if announcement is not None else True
        if new != recorded or not announced:  # an idle check writes nothing
            write_status(rt, body, new)
        uncorrected = outcome.action == reconcile.DRIFT_CORRECTION_FAILED
        metrics.set_state(meta["uid"], state_of(outcome.status))
        metrics.observe(action=outcome.action, result="stalled" if outcome.action == "held" else
                        "retry" if uncorrected else "success", seconds=time.monotonic() - started)
        if outcome.drift:  # Flux's Events: the drift found, then its correction
            rt.post_event(body, "Warning", reason="DriftDetected", message="; ".join(outcome.drift))
            if outcome.action == "drift-correction":
                rt.post_event(body, "Normal", reason="DriftCorrected", message="; ".join(outcome.drift))
        if uncorrected:
            # Flux: the release stays as it is; the correction is tried again, with backoff
            rt.post_event(body, "Warning", reason=status.DRIFT_CORRECTION_FAILED, message=outcome.error)
            raise CheckAgain(outcome.error, errors.backoff_seconds(int(outcome.status["failures"]) - 1))
        if acted_as:
            rt.post_event(body, "Normal", reason=requester.ACTED_AS, message=acted_as)
        if outcome.action in ("install", "upgrade", "rollback"):
            released = status.get_condition(outcome.status, status.RELEASED) or {}
            rt.post_event(body, "Normal", reason=released.get("reason", "Succeeded"),
                          message=released.get("message", ""))
            _post_tests(rt, body, outcome.status)
    finally:
        metrics.in_flight.dec()


def _wait_for_dependencies(rt: reconcile.Runtime, body: Mapping[str, Any],
                           recorded: Mapping[str, Any], old: Mapping[str, Any], message: str, *,
                           metrics: metrics_mod.Metrics, started: float) -> None:
    """Flux's wait for ``spec.dependsOn``: Ready False DependencyNotReady, a Normal Event, a log
    line, then :class:`WaitingForDependencies`. The status and Event are written when the
    wait starts or its message changes, not at every look (Flux's Event recorder folds the
    repeats into one Event)."""
    meta = body["metadata"]
    seconds = rt.settings.runtime.requeue_dependency_s
    new = status.waiting_for_dependencies(old, generation=int(meta.get("generation") or 1),
                                          message=message, now=status.now_rfc3339())
    rt.log(f"{meta['namespace']}/{meta['name']}: dependencies do not meet ready condition "
           f"({message}): retrying in {gostrconv.format_duration(round(seconds * 1e9))}")
    if new != recorded:
        write_status(rt, body, new)
        rt.post_event(body, "Normal", reason=status.DEPENDENCY_NOT_READY, message=message)
    metrics.set_state(meta["uid"], state_of(new))
    metrics.observe(action="dependencies", result="not-ready", seconds=time.monotonic() - started)
    raise WaitingForDependencies(message, seconds)


def _post_tests(rt: reconcile.Runtime, body: Mapping[str, Any], st: Mapping[str, Any]) -> None:
    """Flux's Event of the tests the release's new version ran, as its TestSuccess condition
    says: Normal TestSucceeded, or Warning TestFailed when their failure was ignored (a failure
    not ignored fails the release, whose Event says TestFailed)."""
    tested = status.get_condition(st, status.TEST_SUCCESS)
    if tested is not None:
        rt.post_event(body, "Normal" if tested["status"] == "True" else "Warning",
                      reason=tested["reason"], message=tested["message"])


def _held(st: Mapping[str, Any]) -> bool:
    """Stalled for a reason only a change lifts (:func:`reconcile.hold`), failures still counted."""
    return status.reason_of(status.get_condition(st, status.STALLED)) in status.HELD_REASONS \
        and status.counts_failures(st)


def _failed(rt: reconcile.Runtime, body: Mapping[str, Any], exc: Exception, *, retry: int,
            metrics: metrics_mod.Metrics, started: float, interval_check: bool = False) -> None:
    meta, spec = body["metadata"], body.get("spec") or {}
    old = body.get("status") or {}
    generation = int(meta.get("generation") or 1)
    reason, message = errors.reason(exc), errors.message(exc)
    action = _action(rt, body, exc)
    release_failure = errors.is_release_failure(exc)
    released: status.ReleaseFailure | None = None
    remedy: status.Remedy | None = None
    stalled_message: str | None = None
    if release_failure:
        # Flux: whatever failed once a version was stored counts, and retries and remediation
        # follow the action's remediation settings (a refusal that would stall is retried too)
        budget = int(reconcile.remediation(spec, action).get("retries") or 0)
        permanent = False
        # Flux counts each action's failures apart (installFailures, upgradeFailures) since the
        # generation's, chart's or values' first try: the install that follows an upgrade's
        # uninstall remediation has its own budget (a forceAt upgrade out of retries stalls again)
        failed_before = int(old.get(f"{action}Failures") or 0)
        retrying = budget < 0 or failed_before < budget  # Flux: -1 retries without end
        message = errors.release_message(exc, action=action)
        if isinstance(exc, core_errors.UndoneError):  # --atomic undid it already
            remedy = status.Remedy(exc.undo, f"{exc.undo} by upgrade.atomic")
        elif retrying or reconcile.remediates_last_failure(spec, action):
            try:
                remedy = reconcile.remediate(rt, body, action=action)
            except reconcile.MissingRollbackTarget as missing:
                # Flux stalls: nothing more is tried until the counts start again from zero
                reason, stalled_message = status.MISSING_ROLLBACK_TARGET, str(missing)
                permanent, retrying = True, False
        # else: the last failure is left as it is, for debugging (Flux's remediateLastFailure)
        if remedy is not None:
            message = f"{message} (remediation: {remedy.message})"
            # Flux (IsUninstallAfterUpgrade): an upgrade uninstalled by its remediation is
            # installed again, its retries used up or not; the install's own budget then applies
            retrying = retrying or reconcile.reinstalls_after(remedy, action=action)
        released = status.ReleaseFailure(errors.release_reason(exc, action=action), remedy=remedy,
                                         released=errors.tested_release(exc, action=action))
    else:
        permanent = errors.is_permanent(exc)
        retrying = not permanent and retry < MAX_TRANSIENT_RETRIES
        if isinstance(exc, errors.ActionError):  # Flux's failed action, with nothing stored
            message = errors.release_message(exc, action=action)
            released = status.ReleaseFailure(errors.release_reason(exc, action=action))
    # No Kopf retry follows an interval check, and a repository error must never give up: the
    # interval daemon tries again (Reconciling, reason RetryingOnInterval).
    on_interval = not permanent and (retrying or not release_failure) and (
        interval_check or (not retrying and errors.retries_forever(exc)))
    if not permanent and not retrying and not on_interval:
        if release_failure:  # Flux's stall: its count on Stalled, the failure on the others
            reason, stalled_message = status.RETRIES_EXCEEDED, status.retries_exceeded(
                action, int(old.get(f"{action}Failures") or 0) + 1)
        else:  # ours: Flux retries other failures without end
            message = f"{message} (gave up after {retry + 1} attempt{'' if retry == 0 else 's'})"
    new = status.failed(old, generation=generation, reason=reason, message=message,
                        retrying=retrying or on_interval, released=released, now=status.now_rfc3339(),
                        retry_reason=status.RETRYING_ON_INTERVAL if on_interval else status.RETRYING,
                        stalled_message=stalled_message)
    if release_failure:
        counter = f"{action}Failures"
        new[counter] = int(old.get(counter) or 0) + 1
    if isinstance(exc, core_errors.TestFailedError):
        new["lastTest"] = exc.summary
    if released is not None and released.released is not None:  # Flux: released, then tested
        rt.post_event(body, "Normal", reason=released.released[0], message=released.released[1])
    if remedy is not None:  # Flux's Event of the remediation, before the failure's own
        rt.post_event(body, "Warning" if remedy.failed else "Normal", reason=remedy.reason,
                      message=remedy.message)
    _report(rt, body, new, "Warning", reason=reason if released is None else released.reason,
            message=message, metrics=metrics, action=action,
            result="retry" if retrying or on_interval else "stalled", started=started)
    if retrying and not on_interval:
        raise kopf.TemporaryError(message, delay=errors.backoff_seconds(retry))
    raise kopf.PermanentError(message)


def _action(rt: reconcile.Runtime, body: Mapping[str, Any], exc: BaseException | None = None) -> str:
    """The operation that failed or was cut short: install or upgrade. For a release failure,
    the one that stored the failed (or tested) version, as helm_core tells it
    (``failed_action``); otherwise as helm_core decides it (:func:`reconcile.planned_action`);
    when the history cannot be read (the cluster is failing too), what the status last
    recorded."""
    failed_action = getattr(exc, "failed_action", None)
    if failed_action is not None:
        return str(failed_action)
    try:
        return reconcile.planned_action(rt, body)
    except Exception:  # noqa: BLE001 - the original failure is what gets reported
        return "upgrade" if (body.get("status") or {}).get("version") else "install"


def _cancelled_wait(exc: BaseException) -> core_errors.WaitCancelled | None:
    """The cancelled wait behind ``exc`` (an atomic undo wraps it), if any."""
    for cause in (exc, exc.__cause__):
        if isinstance(cause, core_errors.WaitCancelled):
            return cause
    return None


def _superseded(rt: reconcile.Runtime, body: Mapping[str, Any],
                cancelled: core_errors.WaitCancelled, *, metrics: metrics_mod.Metrics,
                started: float) -> None:
    """A newer generation stopped this one's wait (its version is marked failed): say so and
    return normally, so Kopf hands the newer generation to the handlers at once. No retry, no
    backoff, no remediation: the new spec decides what the release becomes."""
    meta = body["metadata"]
    old = body.get("status") or {}
    generation = int(meta.get("generation") or 1)
    action = _action(rt, body)
    detail = (f"{cancelled.reason}: the {action} of generation {generation} stopped waiting "
              f"and its version was marked failed")
    # Flux's words, naming what triggered the new reconcile: the request itself
    trigger = f"{identity.KIND}/{meta['namespace']}/{meta['name']}"
    new = status.health_check_canceled(old, generation=generation, detail=detail,
                                       message=f"New reconciliation triggered by {trigger}",
                                       now=status.now_rfc3339())
    _report(rt, body, new, "Normal", reason=status.HEALTH_CHECK_CANCELED,
            message=f"Health checks canceled due to new reconciliation triggered by {trigger}: {detail}",
            metrics=metrics, action=action, result="superseded", started=started)


def _report(rt: reconcile.Runtime, body: Mapping[str, Any], new: Mapping[str, Any], type_: str,
            *, reason: str, message: str, metrics: metrics_mod.Metrics, action: str, result: str,
            started: float) -> None:
    """An unsuccessful end: status (a failed write is logged, the Event still goes), Event,
    metrics."""
    meta = body["metadata"]
    try:
        write_status(rt, body, new)
    except core_errors.HelmError as write_exc:
        rt.log(f"cannot write status of {meta['namespace']}/{meta['name']}: {write_exc}")
    rt.post_event(body, type_, reason=reason, message=message)
    metrics.set_state(meta["uid"], state_of(new))
    metrics.observe(action=action, result=result, seconds=time.monotonic() - started)


def _due_on_interval(old: Mapping[str, Any], generation: int, *, requested: bool = False) -> bool:
    """The interval check runs for requests Ready, stalled for a reason an admin can fix or
    that a new chart or values lift (retries used up, no rollback target: no Helm action
    until then, :func:`reconcile.hold`), or left to it to retry; other stalls wait for a spec
    change, in-progress ones for their own (Kopf) retries. A reconcile token not handled yet
    (``requested``) runs it whatever the stall. A request waiting for its dependencies is due
    (its daemon sleeps ``--requeue-dependency`` between looks)."""
    ready = status.get_condition(old, status.READY) or {}
    if ready.get("reason") == status.DEPENDENCY_NOT_READY:
        # a wait for dependencies leaves observedGeneration behind (Flux): its condition tells
        # which generation waits; a newer one is the update handler's
        return ready.get("observedGeneration") == generation
    if old.get("observedGeneration") != generation:
        return False
    if requested:
        return True
    stalled = status.get_condition(old, status.STALLED)
    if stalled:
        return status.reason_of(stalled) in RETRY_ON_INTERVAL
    reconciling = status.get_condition(old, status.RECONCILING)
    return reconciling is None or reconciling.get("reason") == status.RETRYING_ON_INTERVAL \
        or status.correcting_drift(old)  # the check retries its own drift correction


def unless_terminating(admin: kclient.ClusterClient, post: reconcile.EventPoster,
                       log: Callable[[str], None]) -> reconcile.EventPoster:
    """``post``, but an event about an object being deleted whose namespace is being deleted too
    goes to ``log``: the API server refuses new Events there, and Kopf retried each one for
    seconds with an ERROR line per attempt. (One GET of the namespace, for deleted objects only.)"""
    def poster(body: Mapping[str, Any], type_: str, *, reason: str, message: str) -> None:
        meta = body["metadata"]
        if meta.get("deletionTimestamp") and _terminating(admin, meta.get("namespace") or ""):
            log(f"{meta['namespace']}/{meta['name']}: {type_} {reason}: {message} "
                "(no Event: the namespace is being deleted)")
            return
        post(body, type_, reason=reason, message=message)
    return poster


def _terminating(admin: kclient.ClusterClient, namespace: str) -> bool:
    if not namespace:
        return False
    try:
        found = admin.get(kclient.ObjectRef("v1", "Namespace", namespace, ""))
    except core_errors.HelmError:
        return False  # not known: post, as before
    return (found.get("status") or {}).get("phase") == "Terminating"


def delete(rt: reconcile.Runtime, body: Mapping[str, Any], *, retry: int,
           metrics: metrics_mod.Metrics) -> None:
    """Uninstall for the finalizer; gives up (and says so) rather than block forever."""
    meta = body["metadata"]
    started = time.monotonic()
    try:
        said = reconcile.delete(rt, body)
    except Exception as exc:  # noqa: BLE001
        message = _uninstall_failed(body, errors.message(exc))
        if not errors.is_permanent(exc) and retry < MAX_DELETE_RETRIES:
            rt.post_event(body, "Warning", reason=status.UNINSTALL_FAILED, message=message)
            raise kopf.TemporaryError(message, delay=errors.backoff_seconds(retry)) from None
        rt.post_event(body, "Warning", reason="FinalizerReleased",
                   message=f"{message} (finalizer released anyway)")
        metrics.observe(action="uninstall", result="stalled", seconds=time.monotonic() - started)
        metrics.set_state(meta["uid"], None)
        return
    rt.post_event(body, "Normal", reason=status.UNINSTALL_SUCCEEDED, message=said)
    metrics.observe(action="uninstall", result="success", seconds=time.monotonic() - started)
    metrics.set_state(meta["uid"], None)


def _uninstall_failed(body: Mapping[str, Any], error: str) -> str:
    """Flux's words for a failed uninstall, naming the version and chart ``status`` shows
    deployed (what the uninstall removes), or the release alone before any."""
    st, meta = body.get("status") or {}, body["metadata"]
    release = f"{st.get('releaseNamespace') or meta['namespace']}/{st.get('releaseName') or meta['name']}"
    if st.get("version"):
        release = f"{release}.v{st['version']} with chart {st.get('chartName', '')}@{st.get('chartVersion', '')}"
    return f"Helm uninstall failed for release {release}: {error}"
