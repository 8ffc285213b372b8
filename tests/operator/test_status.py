"""kstatus rules of the HelmRequest status (helm_operator.status)."""
from __future__ import annotations

import copy

import pytest

from helm_operator import status

T0, T1 = "2026-01-01T00:00:00Z", "2026-01-01T00:01:00Z"
RELEASE = {"version": "01JABCDEFGHJKMNPQRSTVWXYZ0", "chartName": "hello", "chartVersion": "0.1.0",
           "appVersion": "1.0", "valuesDigest": "sha256:aa", "notes": "hi"}


def types(st):
    return [c["type"] for c in st["conditions"]]


def cond(st, type_):
    return status.get_condition(st, type_)


def test_reconciling_sets_ready_unknown_and_reconciling_true_without_stalled():
    st = status.reconciling(None, generation=1, message="installing", now=T0)
    assert types(st) == ["Ready", "Reconciling"]
    assert cond(st, "Ready")["status"] == "Unknown"
    assert cond(st, "Reconciling") == {
        "type": "Reconciling", "status": "True", "reason": "Progressing", "message": "installing",
        "observedGeneration": 1, "lastTransitionTime": T0}
    assert st["observedGeneration"] == 1


def test_succeeded_removes_reconciling_and_stalled_and_records_release():
    st = status.reconciling(None, generation=2, message="x", now=T0)
    st = status.failed(st, generation=2, reason="ValuesInvalid", message="bad", retrying=False,
                       released=None, now=T0)
    st = status.succeeded(st, generation=3, reason=status.UPGRADE_SUCCEEDED, message="ok",
                          release=RELEASE, now=T1)
    assert types(st) == ["Ready", "Released"]
    assert cond(st, "Ready")["status"] == "True"
    assert st["version"] == RELEASE["version"] and st["chartVersion"] == "0.1.0"
    assert st["failures"] == 0 and "lastError" not in st
    assert st["history"] == [{"version": RELEASE["version"], "chartVersion": "0.1.0",
                              "appVersion": "1.0", "valuesDigest": "sha256:aa",
                              "status": "deployed", "deployed": T1}]
    assert status.is_ready(st, 3) and not status.is_ready(st, 4)


def test_succeeded_keeps_fluxs_test_hooks_in_the_versions_history_entry():
    hooks = {"smoke": {"lastStarted": T0, "lastCompleted": T1, "phase": "Succeeded"}, "skipped": {}}
    st = status.succeeded(None, generation=1, reason=status.UPGRADE_SUCCEEDED, message="ok",
                          release=RELEASE, now=T1, test_hooks=hooks)
    assert st["history"][0]["testHooks"] == hooks and "testHooks" not in st
    untested = status.succeeded(st, generation=2, reason=status.UPGRADE_SUCCEEDED, message="ok",
                                release={**RELEASE, "version": RELEASE["version"][:-1] + "1"}, now=T1)
    assert "testHooks" not in untested["history"][0]  # not tested: no map (Flux's HasBeenTested)
    assert untested["history"][1]["testHooks"] == hooks


def test_failed_permanent_is_stalled_and_never_reconciling():
    st = status.reconciling(None, generation=1, message="x", now=T0)
    st = status.failed(st, generation=1, reason="ChartInvalid", message="no Chart.yaml",
                       retrying=False, released=None, now=T1)
    assert types(st) == ["Ready", "Stalled"]
    assert cond(st, "Stalled")["reason"] == "ChartInvalid"
    assert cond(st, "Ready") ["status"] == "False"
    assert st["lastError"] == "no Chart.yaml" and st["failures"] == 1


def test_failed_retrying_is_reconciling_and_never_stalled_and_counts_failures():
    st = status.failed(None, generation=1, reason="WaitFailed", message="timeout",
                       retrying=True, released=status.ReleaseFailure("InstallFailed"), now=T0)
    st = status.failed(st, generation=1, reason="WaitFailed", message="timeout",
                       retrying=True, released=status.ReleaseFailure("InstallFailed"), now=T1)
    assert types(st) == ["Ready", "Reconciling", "Released"]
    assert cond(st, "Reconciling")["reason"] == "ProgressingWithRetry"
    assert cond(st, "Released")["status"] == "False"
    assert st["failures"] == 2


def test_transition_time_kept_while_status_unchanged():
    st = status.failed(None, generation=1, reason="A", message="m1", retrying=False,
                       released=None, now=T0)
    st2 = status.failed(st, generation=1, reason="B", message="m2", retrying=False,
                        released=None, now=T1)
    assert cond(st2, "Ready")["lastTransitionTime"] == T0
    assert cond(st2, "Ready")["reason"] == "B"
    st3 = status.succeeded(st2, generation=1, reason="X", message="ok", release={}, now=T1)
    assert cond(st3, "Ready")["lastTransitionTime"] == T1


def test_released_survives_later_stall():
    st = status.succeeded(None, generation=1, reason="InstallSucceeded", message="ok",
                          release=RELEASE, now=T0)
    st = status.failed(st, generation=2, reason="ValuesInvalid", message="bad", retrying=False,
                       released=None, now=T1)
    assert cond(st, "Released")["status"] == "True"
    assert st["version"] == RELEASE["version"]
    assert not status.is_ready(st, 2)


def test_history_is_bounded_and_marks_previous_superseded():
    st = None
    for i in range(status.MAX_STATUS_HISTORY + 3):
        rel = dict(RELEASE, version=f"01JABCDEFGHJKMNPQRSTVWXYZ{i:x}")
        st = status.succeeded(st, generation=i + 1, reason="UpgradeSucceeded", message="ok",
                              release=rel, now=T0)
    assert len(st["history"]) == status.MAX_STATUS_HISTORY
    assert [h["status"] for h in st["history"]] == ["deployed"] + ["superseded"] * 4
    assert st["history"][0]["version"].endswith("7")


def test_suspended_keeps_ready_status_and_drops_reconciling():
    st = status.succeeded(None, generation=1, reason="InstallSucceeded", message="ok",
                          release=RELEASE, now=T0)
    st = status.reconciling(st, generation=2, message="upgrading", now=T0)
    st = status.suspended(st, generation=2, now=T1)
    assert types(st) == ["Ready", "Released"]
    assert cond(st, "Ready")["status"] == "Unknown"
    assert cond(st, "Ready")["reason"] == "Suspended"


def test_functions_never_mutate_their_input():
    st = status.succeeded(None, generation=1, reason="InstallSucceeded", message="ok",
                          release=RELEASE, now=T0)
    before = copy.deepcopy(st)
    status.failed(st, generation=2, reason="A", message="m", retrying=True,
                  released=status.ReleaseFailure("UpgradeFailed", remedy=status.Remedy("rollback", "r")),
                  now=T1)
    status.reconciling(st, generation=2, message="m", now=T1)
    status.succeeded(st, generation=2, reason="A", message="m", release=RELEASE, now=T1)
    status.suspended(st, generation=2, now=T1)
    assert st == before


def test_long_messages_are_cut_keeping_both_ends():
    # helm's error for an include loop: 1000 wrappers, the cause at the very end
    loop = 'error calling include: template: c/templates/a.yaml:1:20: executing "r" at <include "r" .>: '
    message = ("RenderFailed: " + loop * 1000 + "rendering template has a nested reference name: r: "
               "unable to execute template (gave up after 1 attempt)")
    st = status.failed(None, generation=1, reason="A", message=message, retrying=False,
                       released=None, now=T0)
    for cut in (cond(st, "Ready")["message"], st["lastError"]):
        assert len(cut) == status.MAX_MESSAGE_CHARS
        assert cut.startswith("RenderFailed: error calling include")
        assert cut.endswith("nested reference name: r: unable to execute template (gave up after 1 attempt)")
        assert "..." in cut


@pytest.mark.parametrize("bad", ["true", "", "yes"], ids=["lowercase", "empty", "yes"])
def test_set_condition_refuses_non_kubernetes_status(bad):
    with pytest.raises(ValueError, match=f"condition status must be True, False or Unknown, not {bad!r}"):
        status.set_condition([], type_="Ready", status=bad, reason="r", message="m",
                             generation=1, now=T0)


def test_a_failed_release_says_fluxs_reasons_and_a_success_clears_remediated():
    """Flux's summary: Ready takes the Remediated reason when a remediation ran, else the
    release's failure reason; Stalled keeps ours; the next failure without remediation and
    the next success drop a stale Remediated."""
    st = status.failed(None, generation=1, reason="RetriesExceeded", message="m", retrying=False,
                       released=status.ReleaseFailure("UpgradeFailed", remedy=status.Remedy(
                           "rollback", "rolled back")), now=T0)
    assert {c["type"]: (c["status"], c["reason"]) for c in st["conditions"]} == {
        "Ready": ("False", "RollbackSucceeded"), "Stalled": ("True", "RetriesExceeded"),
        "Released": ("False", "UpgradeFailed"), "Remediated": ("True", "RollbackSucceeded")}
    assert cond(st, "Remediated")["message"] == "rolled back"
    again = status.failed(st, generation=2, reason="RetriesExceeded", message="m", retrying=False,
                          released=status.ReleaseFailure("UpgradeFailed"), now=T1)
    assert types(again) == ["Ready", "Stalled", "Released"]
    assert cond(again, "Ready")["reason"] == "UpgradeFailed"
    done = status.succeeded(st, generation=2, reason="UpgradeSucceeded", message="ok", release=RELEASE, now=T1)
    assert types(done) == ["Ready", "Released"]


ATTEMPT = {"revision": "1.0.0", "config_digest": "sha256:aa", "chart_digest": "sha256:c1"}


@pytest.mark.parametrize(("changed", "reset"), [
    ({}, False),
    ({"revision": "1.0.1"}, True),             # Flux: chart version differs from last attempt
    ({"config_digest": "sha256:bb"}, True),    # Flux: values differ (valuesFrom included)
    ({"chart_digest": "sha256:c2"}, True),     # the same version, another archive
], ids=["same", "chart-version", "values", "chart-digest"])
def test_an_attempt_of_another_chart_or_values_counts_failures_from_zero(changed, reset):
    """Flux's MustResetFailures within one generation, its lastAttempted* fields recorded."""
    before = status.attempted({"failures": 3, "installFailures": 2, "upgradeFailures": 1}, **ATTEMPT)
    assert before["installFailures"] == 2  # nothing recorded before: nothing to compare
    after = status.attempted(before, **dict(ATTEMPT, **changed))
    assert (after["failures"], after["installFailures"], after["upgradeFailures"]) == \
        ((0, 0, 0) if reset else (3, 2, 1))
    assert (after["lastAttemptedRevision"], after["lastAttemptedConfigDigest"],
            after["lastAttemptedChartDigest"]) == tuple(dict(ATTEMPT, **changed).values())
    assert before["installFailures"] == 2  # its input is left alone


def test_held_keeps_a_stall_that_says_the_same_and_otherwise_stalls_keeping_readys_failure():
    st = status.failed(None, generation=1, reason="RetriesExceeded", message="m (gave up after 1 attempt)",
                       retrying=False, released=status.ReleaseFailure("UpgradeFailed"), now=T0)
    assert status.held(st, generation=1, reason="RetriesExceeded", message="other", now=T1) == st
    retried = status.reconciling(st, generation=1, message="upgrading", now=T0)
    held = status.held(retried, generation=1, reason="MissingRollbackTarget", message="no target", now=T1)
    assert {c["type"]: (c["status"], c["reason"], c["message"]) for c in held["conditions"]} == {
        "Ready": ("False", "MissingRollbackTarget", "no target"),
        "Stalled": ("True", "MissingRollbackTarget", "no target"),
        "Released": ("False", "UpgradeFailed", "m (gave up after 1 attempt)")}
    assert held["failures"] == st["failures"]  # nothing was tried: nothing counts


def test_a_former_reason_reads_as_flux_s_and_a_hold_writes_flux_s_once():
    """Statuses written before the controller spoke Flux's words: ``RetriesExhausted`` is read
    as ``RetriesExceeded``; ``held`` writes Flux's word, keeping the transition time."""
    assert status.reason_of({"reason": "RetriesExhausted"}) == "RetriesExceeded"
    assert status.reason_of({"reason": "RetriesExceeded"}) == "RetriesExceeded"
    assert status.reason_of({"reason": "MissingRollbackTarget"}) in status.HELD_REASONS
    assert status.reason_of(None) == ""
    old = status.failed(None, generation=1, reason="RetriesExhausted", message="m", retrying=False,
                        released=status.ReleaseFailure("UpgradeFailed"), now=T0)
    held = status.held(old, generation=1, reason="RetriesExceeded", message="m", now=T1)
    assert cond(held, "Stalled") == dict(cond(old, "Stalled"), reason="RetriesExceeded")


def test_tests_failed_as_a_former_version_told_them_read_as_flux_s_test_success():
    """Earlier versions told failed tests on Released (False TestFailed); it is read, and the
    first write writes it, as the TestSuccess False TestFailed it now is (message and transition
    time kept), as Flux's condition is; a failure of the tests now keeps Released True."""
    old = status.failed(None, generation=1, reason="RetriesExceeded", message="tests failed", retrying=False,
                        released=status.ReleaseFailure("TestFailed"), now=T0)  # no success told: former
    old["conditions"] = [dict(c, status="False", reason="TestFailed") if c["type"] == "Released" else c
                         for c in old["conditions"]]
    held = status.held(old, generation=1, reason="RetriesExceeded", message="m", now=T1)
    assert cond(held, "TestSuccess") == dict(cond(old, "Released"), type="TestSuccess")
    assert cond(held, "Released") is None
    new = status.failed(None, generation=1, reason="TestFailed", message="tests failed", retrying=True,
                        released=status.ReleaseFailure("TestFailed", released=("InstallSucceeded", "ok")), now=T0)
    assert {t: (c["status"], c["reason"], c["message"]) for t, c in ((t, cond(new, t)) for t in types(new))} == {
        "Ready": ("False", "TestFailed", "tests failed"), "Reconciling": ("True", "ProgressingWithRetry", "tests failed"),
        "Released": ("True", "InstallSucceeded", "ok"), "TestSuccess": ("False", "TestFailed", "tests failed")}


@pytest.mark.parametrize("released, reason", [
    (("True", "InstallSucceeded"), "InstallSucceeded"),
    (("False", "UpgradeFailed"), "UpgradeSucceeded"),
    (("False", "InstallFailed"), "InstallSucceeded"),
    (None, "ReconciliationSucceeded"),
])
def test_a_recovery_says_released_s_success_as_flux_s_summary(released, reason):
    """The release found as desired after a failure that changed nothing: Ready takes
    Released's success (a failed install or upgrade turns into its success), as Flux's
    in-sync release and summary do; ReconciliationSucceeded when nothing was released."""
    st = status.succeeded(None, generation=1, reason=status.INSTALL_SUCCEEDED, message="ok",
                          release=RELEASE, now=T0)
    st["conditions"] = [c for c in st["conditions"] if c["type"] != "Released"]
    if released is not None:
        st["conditions"].append({"type": "Released", "status": released[0], "reason": released[1],
                                 "message": "before", "observedGeneration": 1, "lastTransitionTime": T0})
    st = status.failed(st, generation=1, reason="ChartSourceUnavailable", message="down",
                       retrying=True, released=None, now=T0)
    back = status.recovered(st, generation=1, now=T1)
    assert cond(back, "Ready")["reason"] == reason
    assert types(back) == (["Ready"] if released is None else ["Ready", "Released"])
    if released is not None:
        assert (cond(back, "Released")["status"], cond(back, "Released")["reason"]) == ("True", reason)
