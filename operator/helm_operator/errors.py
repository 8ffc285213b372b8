"""The one place where helm_core errors become Kopf retry policy and condition reasons.

    HelmError                        -> permanent? reason
     ├── ChartError (+ Archive, ...)     yes        ChartInvalid
     ├── ValuesError / SchemaError       yes        ValuesInvalid
     │    └── ValuesFromError (ours)     no*        ValuesError (a valuesFrom object)
     ├── TemplateError, ManifestError    yes        RenderFailed (PatchError: a post-renderer)
     ├── LuaError                        yes        LuaFailed (LuaPermissionDenied when refused)
     ├── HookError                       no         HookFailed (a hook the server refused: as its
     │                                              refusal)
     ├── UndoneError (--atomic)          as cause   as its cause (the failure undone)
     ├── ActionError (ours)              as cause   as its cause (see below)
     ├── ClusterError                    no         ClusterError
     │    ├── ForbiddenError             yes        Forbidden (the service account lacks rights)
     │    ├── WaitError                  no         WaitFailed
     │    │    └── TestFailedError       no         TestFailed (remediated like a failed wait)
     │    └── LockedError                no         OperationInProgress
     ├── StorageError                    no         StorageError
     │    └── TooLargeError              yes        ReleaseTooLarge
     └── SourceError                     yes        ChartSourceFailed
          ├── AuthError                  no*        ChartSourceAuth
          ├── RegistryUnavailableError   no*        ChartSourceUnavailable
          ├── ChartNotFoundError         no*        ChartNotFound
          ├── NoMatchingVersionError     no*        ChartVersionNotFound
          └── DigestMismatchError        yes        ChartDigestMismatch
     ├── RenderLimitExceeded             yes**      RenderLimitExceeded
     └── RenderCrashed                   yes**      RenderCrashed
    RequestError (this package)          yes        its own reason

Permanent means "will not progress without a change" (Stalled); everything else is retried with
exponential backoff until the request's retry budget is used up. Anything that is not a
HelmError (a bug, a network hiccup in the Kubernetes client) is retried.

(*) Repository errors wait on something outside the request (the server back, a chart pushed,
the credentials Secret fixed): they stay Reconciling and, once the backoff budget is used, keep
being retried at the request's interval, never Stalled (Flux's HelmChart does the same). So do
valuesFrom objects missing or unreadable (Flux's ``ValuesError``).
(**) A chart past its render limits, or crashing its worker, does the same on the next try:
Stalled at once, then tried again at the request's interval (the admin may raise a limit).

A failure after the install or upgrade stored its version (``failed_version``: a hook, a wait,
an object the API server refused), and failed tests, are release failures instead
(:func:`is_release_failure`): Flux's reasons on the conditions (:func:`release_reason`),
``remediation.retries`` as the budget, the remediation strategy between attempts; the reason
above is kept where Flux's message puts the error (:func:`release_message`). An install or upgrade that
fails before storing its version (:class:`ActionError`) takes Flux's reason on Released and Ready
too, and its cause's retry policy: nothing was stored, so nothing counts or is remediated.
"""
from __future__ import annotations

import kopf

from helm_core import errors
from helm_core.support import limits
from helm_core.support.records import record
from helm_operator import status

#: First retry delay, doubled per attempt up to ``MAX_BACKOFF_S`` (seconds).
BASE_BACKOFF_S = 5.0
MAX_BACKOFF_S = 300.0


class ValuesFromError(errors.ValuesError):
    """A ``valuesFrom`` object missing or unreadable as values (a key absent, not base64, UTF-8
    or YAML): fixed in that object, not in the request, so retried as Flux's ``ValuesError``."""


class ActionError(errors.HelmError):
    """An install or upgrade that failed before storing a version (helm's checks, the render,
    a post-renderer, an object it may not take or read): Flux's ``InstallFailed`` /
    ``UpgradeFailed`` on Released and Ready, neither counted nor remediated (nothing stored);
    retried or stalled as its ``cause`` is."""

    def __init__(self, cause: errors.HelmError) -> None:
        super().__init__(str(cause))
        self.cause = cause


class RequestError(Exception):
    """A HelmRequest that cannot proceed as written (missing service account, release name
    claimed by another request, Lua permission refused by policy...). Always permanent."""

    def __init__(self, message: str, *, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


_REASONS: tuple[tuple[type[BaseException], str, bool], ...] = (
    # Most specific first: the first isinstance match wins.
    (errors.ForbiddenError, "Forbidden", True),
    (errors.TestFailedError, "TestFailed", False),
    (errors.WaitError, "WaitFailed", False),
    (errors.HookError, "HookFailed", False),
    (errors.LockedError, "OperationInProgress", False),
    (errors.ClusterError, "ClusterError", False),
    (errors.TooLargeError, "ReleaseTooLarge", True),
    (errors.StorageError, "StorageError", False),
    (errors.AuthError, "ChartSourceAuth", False),
    (errors.RegistryUnavailableError, "ChartSourceUnavailable", False),
    (errors.ChartNotFoundError, "ChartNotFound", False),
    (errors.NoMatchingVersionError, "ChartVersionNotFound", False),
    (errors.DigestMismatchError, "ChartDigestMismatch", True),
    (errors.SourceError, "ChartSourceFailed", True),
    (errors.ChartError, "ChartInvalid", True),
    (ValuesFromError, "ValuesError", False),
    (errors.ValuesError, "ValuesInvalid", True),
    (errors.TemplateError, "RenderFailed", True),
    (errors.ManifestError, "RenderFailed", True),
    (errors.LuaError, "LuaFailed", True),
    (limits.RenderLimitExceeded, limits.RenderLimitExceeded.reason, True),
    (limits.RenderCrashed, limits.RenderCrashed.reason, True),
    (errors.HelmError, "HelmError", True),
)


def _classified(exc: BaseException) -> BaseException:
    """The error that decides a failure's reason: an atomic operation's, the failure it undid;
    a hook the API server refused to create is told in helm's words (``HookError``), but
    retried or not as the server's refusal is."""
    if isinstance(exc, (errors.UndoneError, ActionError)):
        exc = exc.cause
    if isinstance(exc, errors.HookError) and exc.refusal is not None:
        return exc.refusal
    return exc


def reason(exc: BaseException) -> str:
    """The condition and Event reason for a failure (CamelCase)."""
    if isinstance(exc, RequestError):
        return exc.reason
    exc = _classified(exc)
    for kind, name, _ in _REASONS:
        if isinstance(exc, kind):
            return name
    return "InternalError"


def is_permanent(exc: BaseException) -> bool:
    """True when retrying the same spec cannot help (the request goes Stalled)."""
    if isinstance(exc, RequestError):
        return True
    exc = _classified(exc)
    for kind, _, permanent in _REASONS:
        if isinstance(exc, kind):
            return permanent
    return False


#: Failures of the chart source: a new index of the request's repository may mend them.
SOURCE_REASONS = frozenset({"ChartSourceAuth", "ChartSourceUnavailable", "ChartNotFound",
                            "ChartVersionNotFound"})
#: Reasons retried at the request's interval after the backoff budget, instead of Stalled.
RETRY_FOREVER = SOURCE_REASONS | {"ValuesError"}


def retries_forever(exc: BaseException) -> bool:
    """True for failures outside the request's control that must never give up (see (*))."""
    return reason(exc) in RETRY_FOREVER


def is_release_failure(exc: BaseException) -> bool:
    """True when an install or upgrade failed once its version was stored (a hook failed or
    was refused, an object was refused, objects or hooks not ready in time; an atomic one
    undone), or its tests failed. Flux counts these in ``installFailures``/``upgradeFailures``
    and remediates them, whatever the cause; other failures left nothing to remediate."""
    return isinstance(exc, errors.TestFailedError) or (
        isinstance(exc, errors.HelmError) and exc.failed_version is not None)


def release_reason(exc: BaseException, *, action: str) -> str:
    """Flux's reason for a release failure (or an :class:`ActionError`) of ``action`` (install
    or upgrade): ``TestFailed`` for its tests, else ``InstallFailed`` / ``UpgradeFailed``."""
    if isinstance(exc, errors.TestFailedError):
        return status.TEST_FAILED
    return status.INSTALL_FAILED if action == "install" else status.UPGRADE_FAILED


@record(frozen=True)
class Attempt:
    """What an install or upgrade tried, for Flux's messages: ``release`` as ``namespace/name``
    (for failed tests, the version they ran on: ``namespace/name.vVERSION``), ``chart`` as
    ``name@version``."""

    release: str
    chart: str


#: Where :func:`tell_attempt` keeps the attempt on an exception (helm_core's errors know none).
_ATTEMPT = "_helm_operator_attempt"


def tell_attempt(exc: BaseException, attempt: Attempt) -> None:
    """Record on ``exc`` what the failed install or upgrade tried; the innermost one told wins
    (the tested version is told before the action's)."""
    if attempt_of(exc) is None:
        setattr(exc, _ATTEMPT, attempt)


def attempt_of(exc: BaseException) -> Attempt | None:
    """What the failed install or upgrade ``exc`` tried, when told (:func:`tell_attempt`)."""
    attempt = getattr(exc, _ATTEMPT, None)
    return attempt if isinstance(attempt, Attempt) else None


def release_message(exc: BaseException, *, action: str) -> str:
    """The message of a failed ``action`` (install or upgrade), in Flux's words (``Helm
    install failed for release NS/NAME with chart CHART@VERSION: ERROR``, ``Helm test failed
    for release NS/NAME.vVERSION with chart CHART@VERSION: ERROR``), where the error is our
    finer cause (:func:`reason`: ``HookFailed``, ``WaitFailed``, ``Forbidden``...) before
    helm's words, as Flux's reason replaces it on the conditions."""
    cause = reason(exc)
    said = message(exc) if cause == status.TEST_FAILED else f"{cause}: {message(exc)}"
    attempt = attempt_of(exc)
    if attempt is None:  # not told what was tried: the error alone
        return said
    if cause == status.TEST_FAILED:
        return f"Helm test failed for release {attempt.release} with chart {attempt.chart}: {said}"
    return f"Helm {action} failed for release {attempt.release} with chart {attempt.chart}: {said}"


def tested_release(exc: BaseException, *, action: str) -> tuple[str, str] | None:
    """Released as Flux tells it when only the tests of ``action`` (install or upgrade) failed:
    the action's success reason and message, naming the tested version; None for other
    failures (or when what was tried is not told)."""
    attempt = attempt_of(exc)
    if not isinstance(exc, errors.TestFailedError) or attempt is None:
        return None
    reason = status.INSTALL_SUCCEEDED if action == "install" else status.UPGRADE_SUCCEEDED
    return reason, f"Helm {action} succeeded for release {attempt.release} with chart {attempt.chart}"


def backoff_seconds(retry: int) -> float:
    """Delay before retry number ``retry`` (0-based): 5 s, 10 s, 20 s ... capped at 300 s."""
    if retry < 0:
        raise ValueError(f"retry must be >= 0, not {retry}")
    return min(MAX_BACKOFF_S, BASE_BACKOFF_S * (2.0 ** min(retry, 32)))


def message(exc: BaseException) -> str:
    """A one-line human message; non-Helm errors keep their type so bugs stay visible."""
    text = str(exc).strip() or type(exc).__name__
    if not isinstance(exc, (errors.HelmError, RequestError)):
        text = f"{type(exc).__name__}: {text}"
    return text


def to_kopf(exc: BaseException, *, retry: int) -> kopf.PermanentError | kopf.TemporaryError:
    """The Kopf exception to raise for ``exc`` on attempt ``retry`` (0-based)."""
    if is_permanent(exc):
        return kopf.PermanentError(message(exc))
    return kopf.TemporaryError(message(exc), delay=backoff_seconds(retry))
