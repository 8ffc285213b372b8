"""helm_core errors become Kopf retry policy and condition reasons (helm_operator.errors)."""
from __future__ import annotations

import kopf
import pytest

from helm_core import errors as core
from helm_operator import errors

CASES = [
    (core.ChartFileError("Chart.yaml: name is required"), "ChartInvalid", True),
    (core.ArchiveError("chart.tgz: ../x escapes"), "ChartInvalid", True),
    (core.SchemaError("values don't meet the schema"), "ValuesInvalid", True),
    (core.TemplateError("templates/x.yaml:1:2: boom"), "RenderFailed", True),
    (core.ManifestError("bad yaml"), "RenderFailed", True),
    (core.LuaError("lua failed"), "LuaFailed", True),
    (core.ForbiddenError("forbidden"), "Forbidden", True),
    (core.WaitError("timeout", timed_out=True), "WaitFailed", False),
    (core.HookError("failed pre-install: 1 error occurred:", event="pre-install"), "HookFailed", False),
    (core.LockedError("in progress"), "OperationInProgress", False),
    (core.ConflictError("conflict"), "ClusterError", False),
    (core.TooLargeError("too big"), "ReleaseTooLarge", True),
    (core.StorageError("storage"), "StorageError", False),
    (core.AuthError("401"), "ChartSourceAuth", False),
    (core.RegistryUnavailableError("down"), "ChartSourceUnavailable", False),
    (core.ChartNotFoundError("no chart"), "ChartNotFound", False),
    (core.NoMatchingVersionError("no 9.x"), "ChartVersionNotFound", False),
    (core.DigestMismatchError("digest"), "ChartDigestMismatch", True),
    (core.SourceError("invalid version"), "ChartSourceFailed", True),
    (errors.RequestError("claimed", reason="ReleaseClaimed"), "ReleaseClaimed", True),
    (RuntimeError("bug"), "InternalError", False),
    # a hook the API server refused: helm's words, the refusal's reason and retries
    (core.HookError("failed pre-install: ...", event="pre-install", refusal=core.ForbiddenError("no")),
     "Forbidden", True),
    (core.HookError("failed pre-install: ...", event="pre-install", refusal=core.ConflictError("busy")),
     "ClusterError", False),
    # an atomic upgrade undone: as the failure it undid
    (core.UndoneError("release web failed, and has been rolled back ...", undo="rollback",
                      cause=core.HookError("pre-upgrade hooks failed: ...", event="pre-upgrade")),
     "HookFailed", False),
]


def _stored(exc: core.HelmError) -> core.HelmError:
    exc.failed_version = "01J0000000000000000000000A"
    return exc


@pytest.mark.parametrize(("exc", "reason", "permanent"), CASES,
                         ids=[type(c[0]).__name__ for c in CASES])
def test_reason_and_permanence(exc, reason, permanent):
    assert errors.reason(exc) == reason
    assert errors.is_permanent(exc) is permanent


def test_what_failed_once_a_version_was_stored_is_a_release_failure_as_flux_counts_it():
    """What Flux counts in installFailures/upgradeFailures and remediates: any failure of the
    install or upgrade once it stored its version (helm_core's ``failed_version``), and failed
    tests; what failed before storing anything (a wait for CRDs, a values schema) did not."""
    assert errors.is_release_failure(core.TestFailedError("tests failed", summary={}))
    for exc in (core.WaitError("timed out", timed_out=True),
                core.HookError("pre-upgrade hooks failed: ...", event="pre-upgrade"),
                core.HookError("failed pre-install: ...", event="pre-install", refusal=core.ConflictError("busy")),
                core.ForbiddenError('configmaps "x" is forbidden'), core.ConflictError("the object has been modified")):
        assert not errors.is_release_failure(exc)
        assert errors.is_release_failure(_stored(exc))
    undone = core.UndoneError("release web failed, and has been rolled back ...", undo="rollback",
                              cause=_stored(core.HookError("pre-upgrade hooks failed: ...", event="pre-upgrade")))
    assert errors.is_release_failure(undone)
    assert not errors.is_release_failure(core.SchemaError("values don't meet the schema"))
    assert not errors.is_release_failure(core.LockedError("in progress"))


def test_release_failures_say_fluxs_reason_and_keep_ours_in_the_message():
    hook = _stored(core.HookError("failed pre-install: 1 error occurred:", event="pre-install"))
    assert errors.release_reason(hook, action="install") == "InstallFailed"
    assert errors.release_reason(hook, action="upgrade") == "UpgradeFailed"
    assert errors.release_message(hook, action="install") == "HookFailed: failed pre-install: 1 error occurred:"
    tests = core.TestFailedError("test hooks of release web failed: ...", summary={})
    assert errors.release_reason(tests, action="upgrade") == "TestFailed"
    assert errors.release_message(tests, action="upgrade") == "test hooks of release web failed: ..."


def test_release_failures_name_the_release_and_the_chart_tried_in_fluxs_words():
    """Flux's fmtInstallFailure / fmtUpgradeFailure / fmtTestFailure: the chart version tried
    appears in the message, our cause where Flux puts the error."""
    hook = _stored(core.HookError("failed pre-install: 1 error occurred:", event="pre-install"))
    errors.tell_attempt(hook, errors.Attempt("team/app", "app@1.2.0"))
    errors.tell_attempt(hook, errors.Attempt("team/other", "other@9"))  # the first told wins
    assert errors.release_message(hook, action="install") == (
        "Helm install failed for release team/app with chart app@1.2.0: "
        "HookFailed: failed pre-install: 1 error occurred:")
    assert errors.release_message(hook, action="upgrade").startswith(
        "Helm upgrade failed for release team/app with chart app@1.2.0: HookFailed: ")
    action = errors.ActionError(core.TemplateError("parse error"))
    errors.tell_attempt(action, errors.Attempt("team/app", "app@1.3.0"))
    assert errors.release_message(action, action="upgrade") == (
        "Helm upgrade failed for release team/app with chart app@1.3.0: RenderFailed: parse error")
    tests = core.TestFailedError("test hooks of release app failed: pod app-test failed", summary={})
    errors.tell_attempt(tests, errors.Attempt("team/app.v01JABCDEF", "app@1.2.0"))
    assert errors.release_message(tests, action="upgrade") == (
        "Helm test failed for release team/app.v01JABCDEF with chart app@1.2.0: "
        "test hooks of release app failed: pod app-test failed")


def test_permanent_error_becomes_kopf_permanent_error_with_message():
    out = errors.to_kopf(core.SchemaError("values don't meet the specifications of the schema(s)"),
                         retry=0)
    assert isinstance(out, kopf.PermanentError)
    assert str(out) == "values don't meet the specifications of the schema(s)"


def test_temporary_error_becomes_kopf_temporary_error_with_backoff():
    out = errors.to_kopf(core.LockedError("release demo/web: another operation is in progress"),
                         retry=2)
    assert isinstance(out, kopf.TemporaryError)
    assert out.delay == 20.0


@pytest.mark.parametrize(("retry", "delay"), [(0, 5.0), (1, 10.0), (5, 160.0), (6, 300.0),
                                              (1000, 300.0)],
                         ids=["first", "second", "sixth", "capped", "huge"])
def test_backoff_doubles_and_is_capped(retry, delay):
    assert errors.backoff_seconds(retry) == delay


def test_backoff_refuses_negative_retry():
    with pytest.raises(ValueError, match="retry must be >= 0, not -1"):
        errors.backoff_seconds(-1)


def test_message_of_a_non_helm_error_names_its_type():
    assert errors.message(KeyError("x")) == "KeyError: 'x'"
    assert errors.message(core.ClusterError("refused")) == "refused"
