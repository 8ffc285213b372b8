"""HelmRequest status under kstatus rules, as pure functions from (old status, event) to new.

Rules (sigs.k8s.io/cli-utils kstatus, as Flux follows them):
- ``observedGeneration`` is the generation the controller has acted on; every transition sets
  it but a wait for ``spec.dependsOn`` (Flux's: nothing was acted on).
- ``Ready`` is always present: True when the release for this generation is deployed, False on
  failure, Unknown while an operation runs.
- ``Reconciling`` and ``Stalled`` are "abnormal-true" conditions: present only while True, and
  never both. Reconciling = work in progress (or retrying); Stalled = it will not progress
  without a change (bad chart, values, Lua refused, retries used up).
- ``Released`` tells whether the last Helm operation succeeded; it survives a later Stalled so
  users see that the previous version still runs. ``Remediated`` (Flux's) tells how the
  remediation of a failed release went; a success removes it. ``TestSuccess`` (Flux's) tells
  how the tests ``spec.test`` ran after the last install or upgrade went (Released stays True
  when only they failed); Ready summarizes it unless ``test.ignoreFailures``.
- ``lastTransitionTime`` changes only when a condition's status changes.
No function changes its input: each returns a new status dict.
"""
from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from typing import Any

from helm_core.support.records import record

READY = "Ready"
RECONCILING = "Reconciling"
STALLED = "Stalled"
RELEASED = "Released"
#: Flux's Remediated condition: the last remediation (rollback or uninstall) after a failed
#: release, True when it succeeded; present after a remediation until the next success.
REMEDIATED = "Remediated"
#: Flux's TestSuccess condition: how the tests of the last install or upgrade went (True
#: TestSucceeded, False TestFailed); present only when ``spec.test`` ran them.
TEST_SUCCESS = "TestSuccess"

#: Conditions present only while True (kstatus "abnormal-true").
ABNORMAL_TRUE = frozenset({RECONCILING, STALLED})

#: Entries kept in ``status.history`` (the Release object holds the full list).
MAX_STATUS_HISTORY = 5
#: A condition message longer than this is cut (the API server allows 32768; kubectl rows stay readable).
MAX_MESSAGE_CHARS = 4096

# Reasons (CamelCase, as Kubernetes conditions require): Flux's (helm-controller api/v2,
# fluxcd/pkg apis/meta) wherever Flux has the same situation.
PROGRESSING = "Progressing"
INSTALL_SUCCEEDED = "InstallSucceeded"
UPGRADE_SUCCEEDED = "UpgradeSucceeded"
ROLLBACK_SUCCEEDED = "RollbackSucceeded"
#: Event reasons of the uninstall a request's deletion runs: Flux's, as its own deletion posts them.
UNINSTALL_SUCCEEDED = "UninstallSucceeded"
UNINSTALL_FAILED = "UninstallFailed"
#: Flux's Released (and Ready) reasons of a failed install or upgrade.
INSTALL_FAILED = "InstallFailed"
UPGRADE_FAILED = "UpgradeFailed"
#: Flux's TestSuccess (and Event) reasons for tests run after an install or upgrade.
TEST_SUCCEEDED = "TestSucceeded"
TEST_FAILED = "TestFailed"
#: The success Flux tells on Released when it finds the release as desired after such a failure.
SUCCEEDED_AFTER = {INSTALL_FAILED: INSTALL_SUCCEEDED, UPGRADE_FAILED: UPGRADE_SUCCEEDED}
#: Ready after a check found the release as desired with no success to tell (no Released).
RECONCILE_SUCCEEDED = "ReconciliationSucceeded"
#: Reconciling reason when a failure is retried with backoff (Flux's, meta.ProgressingWithRetry).
RETRYING = "ProgressingWithRetry"
#: Reconciling reason when the next try is the request's interval check (not a Kopf retry).
RETRYING_ON_INTERVAL = "RetryingOnInterval"
#: Flux's Stalled reason once ``remediation.retries`` are used up.
RETRIES_EXCEEDED = "RetriesExceeded"
#: Flux's Stalled reason and message when an upgrade's rollback remediation finds no version to
#: roll back to.
MISSING_ROLLBACK_TARGET = "MissingRollbackTarget"
MISSING_ROLLBACK_TARGET_MESSAGE = ("Failed to perform remediation: missing target release for "
                                   "rollback: cannot remediate failed release")
#: Stalls that try nothing more until the failure counts start again from zero (:func:`held`).
HELD_REASONS = frozenset({RETRIES_EXCEEDED, MISSING_ROLLBACK_TARGET})
#: Reasons earlier versions wrote where Flux's word is now written, by that word: a status
#: written before an upgrade of the controller is read as if it said Flux's (:func:`reason_of`).
FORMER_REASONS = {"RetriesExhausted": RETRIES_EXCEEDED}
#: Failure counts: a success, a new generation, a new chart or values (:func:`attempted`) and
#: Flux's reset request (:mod:`helm_operator.ondemand`) start them again from zero.
FAILURE_COUNTS = ("failures", "installFailures", "upgradeFailures")
SUSPENDED = "Suspended"
#: Flux's Ready reason (and Event reason) while a ``spec.dependsOn`` request is not Ready.
DEPENDENCY_NOT_READY = "DependencyNotReady"
#: Flux's Ready (and Event) reason when a new reconcile request cuts the wait of the running one.
HEALTH_CHECK_CANCELED = "HealthCheckCanceled"
#: Flux's Reconciling message while it checks the prerequisites (dependencies, source).
FULFILLING_PREREQUISITES = "Fulfilling prerequisites"
#: Flux's Ready message while it corrects drift, kept (with Reconciling) when the correction
#: fails: the correction is tried again (:func:`drift_uncorrected`).
CORRECTING_DRIFT = "correcting cluster drift"
#: Flux's Event reason of a drift correction that failed.
DRIFT_CORRECTION_FAILED = "DriftCorrectionFailed"


def retries_exceeded(action: str, failures: int) -> str:
    """Flux's Stalled message (RetriesExceeded) once ``action``'s (install or upgrade)
    ``failures`` used up its remediation's retries."""
    return f"Failed to {action} after {failures} attempt(s)"


def now_rfc3339() -> str:
    """The current UTC time as Kubernetes writes it (seconds, ``Z``)."""
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def get_condition(status: Mapping[str, Any] | None, type_: str) -> dict[str, Any] | None:
    """The condition of that type in ``status``, or None."""
    for cond in (status or {}).get("conditions") or []:
        if cond.get("type") == type_:
            return dict(cond)
    return None


def reason_of(condition: Mapping[str, Any] | None) -> str:
    """The reason of ``condition`` ("" without one) in today's words (:data:`FORMER_REASONS`)."""
    reason = str((condition or {}).get("reason") or "")
    return FORMER_REASONS.get(reason, reason)


def set_condition(
    conditions: Sequence[Mapping[str, Any]],
    *,
    type_: str,
    status: str,
    reason: str,
    message: str,
    generation: int,
    now: str,
) -> list[dict[str, Any]]:
    """A new condition list with ``type_`` set; keeps ``lastTransitionTime`` when the status
    does not change, and the other conditions' order."""
    if status not in ("True", "False", "Unknown"):
        raise ValueError(f"condition status must be True, False or Unknown, not {status!r}")
    old = next((c for c in conditions if c.get("type") == type_), None)
    since = old.get("lastTransitionTime", now) if old and old.get("status") == status else now
    new = {"type": type_, "status": status, "reason": reason, "message": _cut(message),
           "observedGeneration": generation, "lastTransitionTime": since}
    if old is None:
        return [dict(c) for c in conditions] + [new]
    return [new if c.get("type") == type_ else dict(c) for c in conditions]


def remove_condition(conditions: Sequence[Mapping[str, Any]], type_: str) -> list[dict[str, Any]]:
    """A new condition list without ``type_``."""
    return [dict(c) for c in conditions if c.get("type") != type_]


def reconciling(status: Mapping[str, Any] | None, *, generation: int, message: str,
                reason: str = PROGRESSING, now: str) -> dict[str, Any]:
    """An operation starts (or is retried): Reconciling True, Ready Unknown, no Stalled."""
    return _in_progress(status, generation, reconciling=(reason, message),
                        ready=("Unknown", reason, message), now=now)


def _in_progress(status: Mapping[str, Any] | None, generation: int, *, reconciling: tuple[str, str],
                 ready: tuple[str, str, str], now: str) -> dict[str, Any]:
    """``status`` with Reconciling True (reason, message), Ready (status, reason, message) and
    no Stalled: work goes on."""
    out = _base(status, generation)
    conds = remove_condition(out.get("conditions", []), STALLED)
    conds = set_condition(conds, type_=RECONCILING, status="True", reason=reconciling[0],
                          message=reconciling[1], generation=generation, now=now)
    conds = set_condition(conds, type_=READY, status=ready[0], reason=ready[1], message=ready[2],
                          generation=generation, now=now)
    out["conditions"] = _ordered(conds)
    return out


@record(frozen=True)
class Tested:
    """How the tests run after an install or upgrade went, as Flux's TestSuccess says it."""

    passed: bool
    message: str

    @property
    def reason(self) -> str:
        return TEST_SUCCEEDED if self.passed else TEST_FAILED


def health_check_canceled(status: Mapping[str, Any] | None, *, generation: int, message: str,
                          detail: str, now: str) -> dict[str, Any]:
    """A newer generation cut this one's wait, Flux's way (a new reconcile request cancelling
    its health checks): Ready False HealthCheckCanceled (``message``), Reconciling True
    Progressing (``detail``: what was cut): the newer generation runs at once. Nothing else
    changes: no failure is counted (a new generation counts from zero), nothing is remediated."""
    return _in_progress(status, generation, reconciling=(PROGRESSING, detail),
                        ready=("False", HEALTH_CHECK_CANCELED, message), now=now)


def succeeded(status: Mapping[str, Any] | None, *, generation: int, reason: str, message: str,
              release: Mapping[str, Any], now: str,
              test_hooks: Mapping[str, Any] | None = None, tested: Tested | None = None,
              tests_count: bool = False) -> dict[str, Any]:
    """The release for ``generation`` is deployed: Ready and Released True, nothing abnormal.

    ``release`` holds the status fields to record (version, chartName, chartVersion, appVersion,
    valuesDigest, chartDigest, notes, releaseName, releaseNamespace); ``history`` gets the new
    version in front, at most ``MAX_STATUS_HISTORY`` entries, with ``test_hooks`` (the version's
    tests after a ``spec.test`` run, Flux's ``history[].testHooks``) when given. ``tested``: the
    TestSuccess condition of the tests that ran, their failure ignored by the action's
    remediation; none ran, none is kept. ``tests_count``: Ready summarizes TestSuccess too
    (:func:`_summary`)."""
    out = _base(status, generation)
    out.update({k: v for k, v in release.items() if k != "history"})
    conds = out.get("conditions", [])
    for gone in (STALLED, RECONCILING, REMEDIATED, TEST_SUCCESS):
        conds = remove_condition(conds, gone)
    for type_ in (READY, RELEASED):
        conds = set_condition(conds, type_=type_, status="True", reason=reason, message=message,
                              generation=generation, now=now)
    if tested is not None:
        conds = set_condition(conds, type_=TEST_SUCCESS, status="True" if tested.passed else "False",
                              reason=tested.reason, message=tested.message, generation=generation,
                              now=now)
        conds = _summary(conds, tests_count=tests_count, generation=generation, now=now)
    out["conditions"] = _ordered(conds)
    out.pop("lastError", None)
    out["failures"] = 0
    zero_failure_counts(out)
    if release.get("version"):
        entry = {k: release[k] for k in ("version", "chartVersion", "appVersion", "valuesDigest")
                 if k in release}
        entry["status"] = "deployed"
        entry["deployed"] = now
        if test_hooks is not None:
            entry["testHooks"] = dict(test_hooks)
        rest = [dict(h) for h in out.get("history") or [] if h.get("version") != release["version"]]
        for h in rest:
            if h.get("status") == "deployed":
                h["status"] = "superseded"
        out["history"] = ([entry] + rest)[:MAX_STATUS_HISTORY]
    return out


@record(frozen=True)
class Remedy:
    """A remediation that ran after a failed release: ``strategy`` rollback or uninstall, what
    it did or why it ``failed``."""

    strategy: str
    message: str
    failed: bool = False

    @property
    def reason(self) -> str:
        """Flux's reason on its Remediated condition (and Event): RollbackSucceeded,
        UninstallFailed..."""
        return f"{self.strategy.capitalize()}{'Failed' if self.failed else 'Succeeded'}"


@record(frozen=True)
class ReleaseFailure:
    """How a failed release is told, Flux's way: ``reason`` on Released (InstallFailed,
    UpgradeFailed) and Ready; ``remedy`` the Remediated condition when a remediation ran (its
    reason is then Ready's, as Flux's summary puts Remediated first). Failed tests (``reason``
    TestFailed) are told on TestSuccess, Released True saying the action's success
    (``released``: its reason and message), as Flux's."""

    reason: str
    remedy: Remedy | None = None
    released: tuple[str, str] | None = None


def failed(status: Mapping[str, Any] | None, *, generation: int, reason: str, message: str,
           retrying: bool, released: ReleaseFailure | None, now: str,
           retry_reason: str = RETRYING, stalled_message: str | None = None) -> dict[str, Any]:
    """An operation failed. ``retrying``: Reconciling True (reason ``retry_reason``: who tries
    next) and a retry follows; otherwise Stalled True (reason ``reason``, message
    ``stalled_message`` when it says why nothing more is tried, as Flux's
    MissingRollbackTarget). Ready is False either way; ``failures`` counts up.
    ``released`` records that the Helm operation itself failed (Released False, Remediated as
    it went; Ready's reason is then Flux's, see :class:`ReleaseFailure`); None leaves Released
    and Remediated as they were (the failure came before any Helm write)."""
    out = _base(status, generation)
    conds = list(out.get("conditions", []))
    ready_reason = reason
    if released is not None:
        conds = remove_condition(conds, TEST_SUCCESS)
        if released.released is not None:  # only its tests failed
            conds = set_condition(conds, type_=RELEASED, status="True", reason=released.released[0],
                                  message=released.released[1], generation=generation, now=now)
            conds = set_condition(conds, type_=TEST_SUCCESS, status="False", reason=released.reason,
                                  message=message, generation=generation, now=now)
        else:
            conds = set_condition(conds, type_=RELEASED, status="False", reason=released.reason,
                                  message=message, generation=generation, now=now)
        conds = remove_condition(conds, REMEDIATED)
        ready_reason = released.reason
        remedy = released.remedy
        if remedy is not None:
            ready_reason = remedy.reason
            conds = set_condition(conds, type_=REMEDIATED, status="False" if remedy.failed else "True",
                                  reason=remedy.reason, message=remedy.message, generation=generation,
                                  now=now)
    if retrying:
        conds = remove_condition(conds, STALLED)
        conds = set_condition(conds, type_=RECONCILING, status="True", reason=retry_reason,
                              message=message, generation=generation, now=now)
    else:
        conds = remove_condition(conds, RECONCILING)
        conds = set_condition(conds, type_=STALLED, status="True", reason=reason,
                              message=message if stalled_message is None else stalled_message,
                              generation=generation, now=now)
    conds = set_condition(conds, type_=READY, status="False", reason=ready_reason, message=message,
                          generation=generation, now=now)
    out["conditions"] = _ordered(conds)
    out["lastError"] = _cut(message)
    out["failures"] = int(out.get("failures") or 0) + 1
    return out


def held(status: Mapping[str, Any] | None, *, generation: int, reason: str, message: str,
         now: str) -> dict[str, Any]:
    """Nothing is tried until something changes (Flux's stop on RetriesExceeded or
    MissingRollbackTarget): Stalled True (reason, message), no Reconciling, Ready False (a
    False Ready keeps the failure it tells). A Stalled that already says ``reason`` is kept as
    it is, so a check of a held request writes nothing (one that says it in a former word,
    :data:`FORMER_REASONS`, is written once more, in Flux's)."""
    out = _base(status, generation)
    stalled = get_condition(out, STALLED)
    if stalled is not None and stalled.get("reason") == reason:
        return out
    conds = remove_condition(out.get("conditions", []), RECONCILING)
    conds = set_condition(conds, type_=STALLED, status="True", reason=reason, message=message,
                          generation=generation, now=now)
    if (get_condition(out, READY) or {}).get("status") != "False":
        conds = set_condition(conds, type_=READY, status="False", reason=reason, message=message,
                              generation=generation, now=now)
    out["conditions"] = _ordered(conds)
    return out


def waiting_for_dependencies(status: Mapping[str, Any] | None, *, generation: int, message: str,
                             now: str) -> dict[str, Any]:
    """A dependency is not Ready (``message`` says which), Flux's way: Ready False
    DependencyNotReady, Reconciling True (Progressing, "Fulfilling prerequisites"), no Stalled,
    and ``observedGeneration`` left as it was: the generation is not handled yet. Failure
    counts and release fields are kept: nothing was tried."""
    out = _in_progress(status, generation, reconciling=(PROGRESSING, FULFILLING_PREREQUISITES),
                       ready=("False", DEPENDENCY_NOT_READY, message), now=now)
    if "observedGeneration" in (status or {}):
        out["observedGeneration"] = (status or {})["observedGeneration"]
    else:
        out.pop("observedGeneration")
    return out


def drift_uncorrected(status: Mapping[str, Any] | None, *, generation: int, drift: Sequence[str],
                      tries: int, now: str) -> dict[str, Any]:
    """A drift correction failed, Flux's way: Ready Unknown (Progressing, "correcting cluster
    drift", as Flux marks it before correcting), Reconciling True (ProgressingWithRetry, the
    same message): the correction is tried again with backoff, ``failures`` saying how many
    ``tries`` failed in a row.
    Released, Remediated and the failure counts of installs and upgrades are kept: the release
    did not fail. ``drift`` lists the objects still drifted."""
    out = _in_progress(status, generation, reconciling=(RETRYING, CORRECTING_DRIFT),
                       ready=("Unknown", PROGRESSING, CORRECTING_DRIFT), now=now)
    out["drift"] = list(drift)
    out["failures"] = tries
    return out


def correcting_drift(status: Mapping[str, Any] | None) -> bool:
    """True while a failed drift correction waits to be tried again (:func:`drift_uncorrected`):
    the interval check is its retry."""
    reconciling = get_condition(status, RECONCILING) or {}
    return reconciling.get("reason") == RETRYING and reconciling.get("message") == CORRECTING_DRIFT


def attempted(status: Mapping[str, Any], *, revision: str, config_digest: str,
              chart_digest: str) -> dict[str, Any]:
    """``status`` recording what an install or upgrade is about to release: the chart version
    (Flux's ``lastAttemptedRevision``), the values' digest (Flux's
    ``lastAttemptedConfigDigest``) and the chart archive's (``lastAttemptedChartDigest``).
    When one differs from the last attempt's, the failure counts start again from zero within
    the generation (Flux's ``MustResetFailures``: a new chart version, values changed in a
    ``valuesFrom`` object); a status recording none yet resets nothing."""
    out = dict(status)
    now = {"lastAttemptedRevision": revision, "lastAttemptedConfigDigest": config_digest,
           "lastAttemptedChartDigest": chart_digest}
    if any(out.get(key) not in (None, value) for key, value in now.items()):
        zero_failure_counts(out)
    out.update(now)
    return out


def _summary(conds: list[dict[str, Any]], *, tests_count: bool, generation: int,
             now: str) -> list[dict[str, Any]]:
    """Flux's summary of a released version's tests: with ``tests_count`` (``spec.test``
    enabled, ``test.ignoreFailures`` not set), a False TestSuccess is Ready's (False
    TestFailed), though the action's ``ignoreTestFailures`` kept it from counting or being
    remediated; otherwise Ready says the release."""
    tested = next((c for c in conds if c.get("type") == TEST_SUCCESS), None)
    if not tests_count or tested is None or tested.get("status") != "False":
        return conds
    return set_condition(conds, type_=READY, status="False", reason=TEST_FAILED,
                         message=str(tested.get("message") or ""), generation=generation, now=now)


def recovered(status: Mapping[str, Any] | None, *, generation: int, now: str,
              tests_count: bool = False) -> dict[str, Any]:
    """A check found the deployed release as desired after a failure that changed nothing (a
    repository back, a Secret fixed): Ready True again, nothing abnormal; release fields kept.
    Ready says Released's success, as Flux's summary does (a Released False InstallFailed or
    UpgradeFailed turns True, InstallSucceeded or UpgradeSucceeded: Flux's in-sync release);
    ReconciliationSucceeded when Released tells no success; a False TestSuccess when its tests
    count (:func:`_summary`)."""
    out = _base(status, generation)
    conds = out.get("conditions", [])
    for gone in (STALLED, RECONCILING, REMEDIATED):
        conds = remove_condition(conds, gone)
    released = get_condition(out, RELEASED) or {}
    reason = str(released.get("reason") or "")
    if released.get("status") == "True":
        # Flux's summary: Ready says what Released says of the version deployed
        message = str(released.get("message") or "")
    else:
        message = (f"Release version {out.get('version', '')} of {out.get('chartName', '')}-"
                   f"{out.get('chartVersion', '')} is deployed as desired")
        reason = SUCCEEDED_AFTER.get(reason, "")
        if reason:
            conds = set_condition(conds, type_=RELEASED, status="True", reason=reason,
                                  message=message, generation=generation, now=now)
    conds = set_condition(conds, type_=READY, status="True", reason=reason or RECONCILE_SUCCEEDED,
                          message=message, generation=generation, now=now)
    out["conditions"] = _ordered(_summary(conds, tests_count=tests_count, generation=generation, now=now))
    out.pop("lastError", None)
    out["failures"] = 0
    return out


def suspended(status: Mapping[str, Any] | None, *, generation: int, now: str) -> dict[str, Any]:
    """``spec.suspend``: nothing runs; Ready keeps its status but says why nothing changes."""
    out = _base(status, generation)
    conds = remove_condition(remove_condition(out.get("conditions", []), STALLED), RECONCILING)
    ready = get_condition(out, READY)
    conds = set_condition(conds, type_=READY, status=ready["status"] if ready else "Unknown",
                          reason=SUSPENDED, message="reconciliation is suspended",
                          generation=generation, now=now)
    out["conditions"] = _ordered(conds)
    return out


def counts_failures(status: Mapping[str, Any]) -> bool:
    """True when failed installs or upgrades are counted (not reset since they failed)."""
    return any(status.get(count) for count in ("installFailures", "upgradeFailures"))


def zero_failure_counts(status: dict[str, Any]) -> None:
    """Set every failure count ``status`` holds to zero (in place: for statuses being built)."""
    for count in FAILURE_COUNTS:
        if count in status:
            status[count] = 0


def is_ready(status: Mapping[str, Any] | None, generation: int) -> bool:
    """True when Ready is True for this very generation (what ``kubectl wait`` and Argo CD mean)."""
    ready = get_condition(status, READY)
    return bool(ready and ready.get("status") == "True"
                and (status or {}).get("observedGeneration") == generation)


def _base(status: Mapping[str, Any] | None, generation: int) -> dict[str, Any]:
    out = {k: v for k, v in (status or {}).items()}
    out["conditions"] = [_former(c) for c in out.get("conditions") or []]
    out["observedGeneration"] = generation
    return out


def _former(condition: Mapping[str, Any]) -> dict[str, Any]:
    """``condition`` as this version tells it: a Released False TestFailed that earlier versions
    wrote is the TestSuccess False TestFailed it now is (message and times kept; the success
    Released would say was not recorded: the next install or upgrade writes it)."""
    if condition.get("type") == RELEASED and condition.get("reason") == TEST_FAILED \
            and condition.get("status") == "False":
        return dict(condition, type=TEST_SUCCESS)
    return dict(condition)


_ORDER = {READY: 0, RECONCILING: 1, STALLED: 2, RELEASED: 3, REMEDIATED: 4, TEST_SUCCESS: 5}


def _ordered(conds: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(conds, key=lambda c: _ORDER.get(c["type"], len(_ORDER)))


def _cut(message: str) -> str:
    """Both ends of a long message: the head names the failure, the tail holds helm's innermost
    cause (the end of a chain of ``error calling include``) and our ``(gave up after ...)``.
    Kopf cuts Events the same way."""
    if len(message) <= MAX_MESSAGE_CHARS:
        return message
    head = (MAX_MESSAGE_CHARS - 3) // 2
    return message[:head] + "..." + message[-(MAX_MESSAGE_CHARS - 3 - head):]
