"""Release records: one ``ReleaseVersion`` per install/upgrade/rollback, ordered by ULID.

Why ULIDs: two operations started close together on different machines never need to agree on
a counter (seed 003, "Versions are ULIDs"); the ULID's time prefix gives history order.

Rules:
- A version id is a ULID; ``new_version`` is monotonic within a process (python-ulid's strict
  generator) and, given the newest stored version, also strictly after it, so a clock running
  behind on another machine cannot reorder history.
- History order is ULID order (oldest first); ``latest`` is the newest version whatever its
  status, ``last_deployed`` the newest ``deployed`` one; :func:`uninstalled` tells a version
  whose objects were uninstalled, also once an install over it marked it superseded.
- Records are frozen; "changing" one (``with_status``) returns a new record.
"""
from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import ulid

from helm_core.storage.names import RELEASE_NAME_MAX as RELEASE_NAME_MAX  # re-exported
from helm_core.storage.names import check_name as check_name
from helm_core.support import records
from helm_core.support.records import field, record


class Status(str, enum.Enum):
    """Helm's release statuses, with Helm's spelling."""

    UNKNOWN = "unknown"
    DEPLOYED = "deployed"
    UNINSTALLED = "uninstalled"
    SUPERSEDED = "superseded"
    FAILED = "failed"
    UNINSTALLING = "uninstalling"
    PENDING_INSTALL = "pending-install"
    PENDING_UPGRADE = "pending-upgrade"
    PENDING_ROLLBACK = "pending-rollback"

    @property
    def pending(self) -> bool:
        """True while an operation is running (or died) on this version."""
        return self in (Status.PENDING_INSTALL, Status.PENDING_UPGRADE, Status.PENDING_ROLLBACK,
                        Status.UNINSTALLING)


def now() -> dt.datetime:
    """Now, as helm stamps a release's times (Go's ``time.Now()``: the local zone, nanoseconds),
    so that helm and helm-core print those of helm-core's releases as helm prints its own."""
    from helm_core.golib import gotime

    return gotime.now()


class HookPhase(str, enum.Enum):
    """Helm's ``HookPhase`` of a hook's last run."""

    UNKNOWN = "Unknown"
    RUNNING = "Running"
    SUCCEEDED = "Succeeded"
    FAILED = "Failed"


@record(frozen=True)
class HookRun:
    """A hook's last run, as helm keeps it in the release (its ``HookExecution``): recorded by
    ``helm test`` for test hooks, shown by ``status``. The hook is its object's kind and name."""

    kind: str
    name: str
    phase: HookPhase
    started: dt.datetime | None = None
    completed: dt.datetime | None = None


@record(frozen=True)
class ReleaseVersion:
    """One stored version of a release: what was applied, with which values, and how it went."""

    name: str
    namespace: str
    version: ulid.ULID
    status: Status
    chart_name: str
    chart_version: str
    app_version: str = ""
    chart_source: str = ""
    """Where the chart came from (directory, archive, repository URL or OCI reference)."""
    user_values: Mapping[str, Any] = field(default_factory=dict, hash=False)
    """Values the user supplied (``get values``)."""
    chart_values: Mapping[str, Any] = field(default_factory=dict, hash=False)
    """The final coalesced values the templates saw (``get values --all``)."""
    helm_chart_values: Mapping[str, Any] | None = field(default=None, hash=False, compare=False)
    """A version read from helm's record: the record's chart values (the chart's defaults, as
    helm keeps them), which helm coalesces ``user_values`` over again, with its warnings, when it
    shows or reuses the values (``action.get.computed_values``), and which are written back with
    it. None for a version helm-core made: its ``chart_values`` are the record's."""
    manifest: str = ""
    hooks: str = ""
    """Rendered hook documents, in Helm's ``---`` joined form."""
    notes: str = ""
    description: str = ""
    extensions: str = ""
    """The chart tree's Lua kept for the events of later actions (``helm_core.lua.kept``; "" if none)."""
    first_deployed: dt.datetime | None = None
    last_deployed: dt.datetime | None = None
    deleted: dt.datetime | None = None
    labels: Mapping[str, str] = field(default_factory=dict, hash=False)
    """The release's custom labels (helm's ``--labels``), kept as labels of the version's
    storage record (``storage/labels.py``)."""
    revision: int = 0
    """The number helm would give this version, counting on past pruned versions as helm's
    revisions do (0: not recorded, a version stored before it was; see :func:`next_revision`):
    ``.Release.Revision`` when an upgrade rendered it; an install's templates see 1, as helm's,
    even one that replaces an uninstalled release's history."""
    hook_runs: tuple[HookRun, ...] = ()
    """The last run of each hook that ran and was recorded (``helm test``'s), in hook order."""
    made_of: Any = field(default=None, hash=False, compare=False)
    """The prepared chart (``chart.model.Chart``) the action rendered this version of, in
    memory only (never stored; None when read back): what helm's ``install``/``upgrade -o
    json`` print as the release's chart."""

    @property
    def chart(self) -> str:
        """``<name>-<version>`` as ``helm list`` shows it."""
        return f"{self.chart_name}-{self.chart_version}"

    @property
    def version_id(self) -> str:
        """The ULID as stored in labels (upper case, Crockford base32)."""
        return str(self.version)

    def with_status(self, status: Status, description: str = "") -> ReleaseVersion:
        """A copy with a new status (and description when given)."""
        return records.replace(self, status=status, description=description or self.description)

    def replace(self, **changes: Any) -> ReleaseVersion:
        """A copy with ``changes`` applied."""
        return records.replace(self, **changes)

    def last_run(self, kind: str, name: str) -> HookRun | None:
        """The recorded last run of the hook ``kind``/``name`` (None: never ran or not recorded)."""
        return next((r for r in self.hook_runs if r.kind == kind and r.name == name), None)

    def with_hook_run(self, run: HookRun) -> ReleaseVersion:
        """A copy with ``run`` as its hook's last run (replacing the one recorded before)."""
        kept = tuple(r for r in self.hook_runs if (r.kind, r.name) != (run.kind, run.name))
        return records.replace(self, hook_runs=(*kept, run))


def new_version(after: ulid.ULID | None = None) -> ulid.ULID:
    """A fresh ULID, strictly greater than ``after`` (the newest stored version) when given."""
    candidate = ulid.ULID()
    if after is not None and candidate <= after:
        return ulid.ULID.from_int(int(after) + 1)
    return candidate


REVISION_LIMIT = 1 << 80
"""Versions below this (a ULID whose time part is zero) are Helm revisions: ``revision_version(n)``
is revision ``n`` of a release kept in Helm's format or adopted from it. They sort before every
time-made ULID, so adopted history stays oldest first."""


def revision_version(revision: int) -> ulid.ULID:
    """The version standing for Helm revision ``revision`` (1 and up)."""
    if not 0 < revision < REVISION_LIMIT:
        raise ValueError(f"revision {revision} is out of range")
    return ulid.ULID.from_int(revision)


def revision_of(version: ulid.ULID) -> int | None:
    """The Helm revision a version stands for, or None for a time-made ULID."""
    number = int(version)
    return number if 0 < number < REVISION_LIMIT else None


def version_text(version: ulid.ULID) -> str:
    """How a version is shown: Helm's integer for a revision, else the ULID."""
    revision = revision_of(version)
    return str(revision) if revision is not None else str(version)


def next_revision(history: Sequence[ReleaseVersion]) -> int:
    """``.Release.Revision`` of the next version: one more than the newest version's (its
    recorded revision, or the Helm revision it is), so that pruned history keeps counting as
    helm's does (a chart naming a Job after the revision gets a new name at every upgrade);
    for a newest version that recorded none, one more than the versions stored."""
    newest = latest(history)
    if newest is None:
        return 1
    number = newest.revision or revision_of(newest.version)
    return number + 1 if number else len(history) + 1


def parse_version(text: str) -> ulid.ULID:
    """A version from its text: a ULID (either case) or a Helm revision number; ``ValueError``
    naming the text otherwise."""
    if text.isdigit() and len(text) < 26:
        try:
            return revision_version(int(text))
        except ValueError:
            raise ValueError(f'"{text}" is not a release version (a ULID or a revision number)') from None
    try:
        return ulid.ULID.from_str(text.upper())
    except ValueError as exc:
        raise ValueError(f'"{text}" is not a release version (a ULID or a revision number)') from exc


def sort_history(versions: Iterable[ReleaseVersion]) -> list[ReleaseVersion]:
    """Versions oldest first (ULID order)."""
    return sorted(versions, key=lambda v: v.version)


def latest(versions: Sequence[ReleaseVersion]) -> ReleaseVersion | None:
    """The newest version, whatever its status."""
    return max(versions, key=lambda v: v.version, default=None)


def last_deployed(versions: Sequence[ReleaseVersion]) -> ReleaseVersion | None:
    """The newest version whose status is ``deployed``."""
    deployed = [v for v in versions if v.status is Status.DEPLOYED]
    return latest(deployed)


SUPERSEDED_BY_NEW_RELEASE = "superseded by new release"
"""The description helm's ``install --replace`` (and ``upgrade --install`` of an uninstalled
release) gives the newest version it installs over: an uninstalled one, as only those are
marked (a failed one is left as it is)."""


def uninstalled(version: ReleaseVersion) -> bool:
    """True when ``version``'s objects were uninstalled: it is ``uninstalled``, or an install
    over it marked it superseded (:data:`SUPERSEDED_BY_NEW_RELEASE`), which is what helm writes
    over an uninstalled one; such a version never counts as deployed."""
    return version.status is Status.UNINSTALLED or (
        version.status is Status.SUPERSEDED and version.description == SUPERSEDED_BY_NEW_RELEASE)


def to_prune(versions: Sequence[ReleaseVersion], max_history: int) -> list[ReleaseVersion]:
    """Oldest versions beyond ``max_history`` (0 keeps all); the last deployed one is kept."""
    if max_history <= 0 or len(versions) <= max_history:
        return []
    keep_deployed = last_deployed(versions)
    ordered = sort_history(versions)
    excess = len(ordered) - max_history
    pruned = [v for v in ordered if v is not keep_deployed][:excess]
    return pruned
