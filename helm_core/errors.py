"""The one error tree of helm_core.

    HelmError
     ├── ChartError            a chart cannot be loaded or is invalid
     │    ├── ChartFileError   Chart.yaml / requirements.yaml content (names file and field)
     │    ├── ArchiveError     a packaged chart is unsafe or corrupt (names the entry)
     │    └── DependencyError  a declared dependency is missing or wrong
     ├── ReleaseNameError      a release name Helm refuses
 ├── ValuesError           values cannot be parsed or merged (names the path, a.b[2])
     │    └── SchemaError      values fail values.schema.json (lists every violation)
     ├── TemplateError         template parse or execution failure (carries SourcePos)
     ├── ManifestError         rendered output is not valid YAML / Kubernetes objects
     │    └── PatchError       a post-render patch cannot be read or applied (names it)
     ├── LuaError              a chart's Lua failed (chart, file, line)
     ├── ClusterError          the cluster refused or failed (names the object)
     │    ├── NotFoundError    the object does not exist
     │    ├── ConflictError    already exists, stale resourceVersion, or an apply field conflict
     │    ├── ForbiddenError   RBAC refused the (possibly impersonated) user
     │    ├── WaitError        resources did not become ready (timeout) or failed (e.g. a Job)
     │    │    ├── WaitCancelled  the caller stopped the wait (e.g. a newer desired state)
     │    │    └── TestFailedError  test hooks after an install/upgrade failed (remediated)
     │    └── LockedError      another operation on the release holds its lock
     ├── StorageError          a release record cannot be stored or read
     │    ├── ReleaseNotFoundError  no such release / version
     │    ├── ReleaseExistsError    the version is already stored
     │    └── TooLargeError         a version exceeds the 1 MiB Secret limit (checked up front)
     └── SourceError           a chart source (repository, registry, packaged chart) failed
          ├── ChartNotFoundError       the repository has no chart by that name
          ├── NoMatchingVersionError   no version satisfies the requested range
          ├── DigestMismatchError      downloaded bytes do not match the published digest
          ├── AuthError                the repository refused our credentials (401/403)
          └── RegistryUnavailableError the repository cannot be reached or failed (retry later)

Only boundaries (CLI, operator) translate these into exit codes or retry policy.
"""
from __future__ import annotations

from collections import namedtuple

# Names for type checkers only: importing typing is start-up time the CLI's render path
# otherwise does without (bench/deferred.py). Type checkers take this name as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NamedTuple

    class _Place(NamedTuple):
        file: str
        line: int = 0
        col: int = 0
else:  # the same tuple, without typing.NamedTuple's class machinery
    _Place = namedtuple("SourcePos", ("file", "line", "col"), defaults=(0, 0))


class SourcePos(_Place):
    """A place in a source file; ``line`` and ``col`` are 1-based, 0 means unknown.

    A named tuple rather than a ``support.records`` record: this module is the bottom of the
    layers and imports nothing of helm_core (``support.limits`` builds on its errors)."""

    __slots__ = ()

    def __str__(self) -> str:
        if self.line and self.col:
            return f"{self.file}:{self.line}:{self.col}"
        if self.line:
            return f"{self.file}:{self.line}"
        return self.file


class HelmError(Exception):
    """Base of every error helm_core raises on purpose."""

    #: Set when the error came once rendering had begun (helm then returns a partial release):
    #: the rendered files it could show, "" if none. ``helm template --debug`` prints them.
    rendered: str | None = None
    #: Set when an install or upgrade failed after storing its version (then marked failed):
    #: that version. None when it failed before storing anything. Flux's helm-controller counts
    #: and remediates exactly these failures (a version it could observe).
    failed_version: str | None = None
    #: With ``failed_version`` (or on failed tests): the operation that stored the version,
    #: ``install`` or ``upgrade``, as the caller cannot read it from the history once the
    #: version is stored (an install may go on from an uninstalled history).
    failed_action: str | None = None


class ActionFailed(HelmError):
    """helm's wrap of what an install or upgrade ran into: ``INSTALLATION FAILED: <cause>``
    (``words``), the cause kept whole (a schema report prints as it is)."""

    def __init__(self, words: str, cause: HelmError) -> None:
        super().__init__(f"{words}: {cause}")
        self.words = words
        self.cause = cause


class UndoneError(HelmError):
    """An ``--atomic`` install or upgrade failed and was undone: ``undo`` is ``uninstall`` or
    ``rollback``, ``cause`` the failure. The message is helm's (``release NAME failed, and has
    been rolled back due to atomic being set: CAUSE``)."""

    def __init__(self, message: str, *, cause: HelmError, undo: str) -> None:
        super().__init__(message)
        self.cause = cause
        self.undo = undo
        self.failed_version = cause.failed_version
        self.failed_action = cause.failed_action


class ChartError(HelmError):
    """A chart cannot be loaded or is not valid."""


class ChartFileError(ChartError):
    """Chart.yaml (or requirements.yaml/lock) is invalid; the message names file and field."""


class ArchiveError(ChartError):
    """A chart archive is unsafe (traversal, links, bombs) or corrupt; names the entry."""


class DependencyError(ChartError):
    """A dependency declared by a chart is missing, duplicated or malformed."""


class ValuesError(HelmError):
    """Values cannot be read, parsed (--set syntax) or merged."""


class ReleaseNameError(HelmError, ValueError):
    """A release name Helm refuses (still a ValueError, as callers caught it before)."""


class SchemaError(ValuesError):
    """Values do not satisfy a chart's schema; ``violations`` holds one line per failure."""

    def __init__(self, message: str, violations: list[str] | None = None) -> None:
        super().__init__(message)
        self.violations = list(violations or [])


class TemplateError(HelmError):
    """A template failed to parse or execute."""

    def __init__(self, message: str, pos: SourcePos | None = None) -> None:
        super().__init__(message)
        self.pos = pos


class ManifestError(HelmError):
    """A rendered document is not valid YAML or not a Kubernetes object."""


class PatchError(ManifestError):
    """A post-render patch (strategic merge, JSON 6902, image) cannot be read or applied; the
    message names the patch and the object."""


class LuaError(HelmError):
    """A chart's Lua script failed or was refused."""

    def __init__(self, message: str, *, chart: str = "", file: str = "", line: int = 0) -> None:
        super().__init__(message)
        self.chart = chart
        self.file = file
        self.line = line


class ClusterError(HelmError):
    """The Kubernetes API refused a request or could not be reached."""

    def __init__(self, message: str, *, answer: str = "") -> None:
        super().__init__(message)
        self.answer = answer or message
        """The API server's own words (its Status message) without the request we name before
        them, for wrapping in helm's words (``failed to replace object: <answer>``); the
        message itself when the server said nothing."""


class NotFoundError(ClusterError):
    """The named object does not exist (HTTP 404)."""


class ConflictError(ClusterError):
    """The object already exists, was changed since read, or an apply hit a field conflict."""


class ForbiddenError(ClusterError):
    """RBAC refused the request; the message names the user, verb and resource."""


class WaitError(ClusterError):
    """Objects did not become ready: ``timed_out`` is False when one failed outright."""

    def __init__(self, message: str, *, timed_out: bool) -> None:
        super().__init__(message)
        self.timed_out = timed_out


class HookError(HelmError):
    """A hook of ``event`` failed, timed out, or was refused by the API server (``refusal``: its
    answer, whose kind says whether retrying may help); the operation stops (and ``--atomic``
    undoes it). The message is helm's, go-multierror's list included: printed whole, as helm
    prints it."""

    def __init__(self, message: str, *, event: str, refusal: ClusterError | None = None) -> None:
        super().__init__(message)
        self.event = event
        self.refusal = refusal


class WaitCancelled(WaitError):
    """The caller's cancellation hook stopped a wait (``WaitOptions.cancelled``); actions treat
    it as a failed wait (the version is marked failed, the lock released); ``reason`` is what
    the hook said."""

    def __init__(self, message: str, *, reason: str) -> None:
        super().__init__(message, timed_out=False)
        self.reason = reason


class TestFailedError(WaitError):
    """The release's test hooks failed after an install or upgrade: the release is not healthy,
    so it is remediated like a failed wait. ``summary`` holds the per-test results."""

    def __init__(self, message: str, *, summary: dict[str, Any]) -> None:
        super().__init__(message, timed_out=False)
        self.summary = summary


class LockedError(ClusterError):
    """Another operation holds the release's lock; retry after it ends or its lease expires."""


class StorageError(HelmError):
    """A release record cannot be stored or read back."""


class ReleaseNotFoundError(StorageError):
    """No release (or no such version of it) is stored."""


class ReleaseExistsError(StorageError):
    """The release version being created is already stored."""


class TooLargeError(StorageError):
    """An encoded release version exceeds Kubernetes' 1 MiB Secret limit."""


class SourceError(HelmError):
    """A chart source failed; every message names the repository or reference."""


class ChartNotFoundError(SourceError):
    """The repository or registry has no chart by that name."""


class NoMatchingVersionError(SourceError):
    """The chart exists but no version satisfies the requested version or range."""


class DigestMismatchError(SourceError):
    """Downloaded bytes differ from the digest the index, lock or reference promised."""


class AuthError(SourceError):
    """The repository refused the request (missing or wrong credentials)."""


class RegistryUnavailableError(SourceError):
    """The repository is unreachable or answered with a server error: worth retrying later."""
