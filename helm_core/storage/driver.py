"""The storage seam: a small ``Driver`` interface for release versions, with sentinel errors.

Why: actions keep history through this interface only, so the cluster driver
(``storage/secrets.py``) and the in-memory one (``storage/memory.py``) are interchangeable and
behave alike (the memory driver stores the very Secrets the cluster one would).

Rules every driver keeps:
- ``create`` of a version already stored raises ``ReleaseExistsError``; ``get``/``update``/
  ``delete`` of a missing one raise ``ReleaseNotFoundError``.
- A version whose encoded Secret exceeds the 1 MiB limit raises ``TooLargeError`` before the
  driver writes anything (``secrets.encode`` is the one place that decides).
- ``history`` is oldest first (ULID order) and empty for an unknown release; ``list_all``
  returns every version of every release, ``list_latest`` the newest version of each.
"""
from __future__ import annotations

from typing import Protocol

import ulid

from helm_core.storage import release as rel


class Driver(Protocol):
    """Where release versions live."""

    def create(self, version: rel.ReleaseVersion) -> None:
        """Store a new version."""
        ...

    def update(self, version: rel.ReleaseVersion) -> None:
        """Replace a stored version (status, description, timestamps)."""
        ...

    def get(self, namespace: str, name: str, version: ulid.ULID) -> rel.ReleaseVersion:
        """One version of a release."""
        ...

    def history(self, namespace: str, name: str) -> list[rel.ReleaseVersion]:
        """Every stored version of a release, oldest first."""
        ...

    def delete(self, namespace: str, name: str, version: ulid.ULID) -> rel.ReleaseVersion:
        """Remove one version and return it."""
        ...

    def list_latest(self, namespace: str = "") -> list[rel.ReleaseVersion]:
        """The newest version of every release (in one namespace, or all when empty)."""
        ...

    def list_all(self, namespace: str = "") -> list[rel.ReleaseVersion]:
        """Every version of every release (in one namespace, or all when empty), in no order."""
        ...

    def check(self, version: rel.ReleaseVersion) -> None:
        """Raise what ``create`` would raise for the size of ``version`` (``TooLargeError``) or
        labels the API server refuses (``StorageError``), writing nothing: actions check before
        they apply anything."""
        ...

    def claim(self, namespace: str, name: str, *, annotation: str, claimant: str,
              new: bool = False) -> str:
        """Record ``claimant`` as the one manager of the release (under ``annotation``) unless
        another one is recorded; returns that other claimant, "" when the claim holds.
        ``new``: the caller holds the release's lock and expects the release not to be stored
        yet (a first install), so a driver may try to create its record before reading it; a
        record created so holds no versions (they are written under the lock), and the history
        read next may be known empty without a read."""
        ...

    def claimant(self, namespace: str, name: str, *, annotation: str) -> str | None:
        """Who claimed the release ("" for nobody), None when the release is not stored."""
        ...

    def owner_reference(self, namespace: str, name: str) -> dict[str, object] | None:
        """The owner reference objects of the release carry, None when there is none."""
        ...


def next_version(driver: Driver, after: ulid.ULID | None) -> ulid.ULID:
    """The id of a new version after ``after`` (the newest stored one).

    A time-made ULID (``rel.new_version``), unless the driver numbers versions itself: a
    driver keeping Helm's format has ``next_version`` and counts revisions (1, 2, 3...)."""
    own = getattr(driver, "next_version", None)
    return own(after) if own is not None else rel.new_version(after)


INTERRUPTED = "operation interrupted: {status} never finished (its lock expired)"
"""Description given to a version left pending by a dead operation."""


def recover_interrupted(driver: Driver, namespace: str, name: str) -> list[rel.ReleaseVersion]:
    """Mark versions left pending by a crashed operation as failed; returns the new records.

    Call it after taking the release's lock: nobody else can be working on those versions then,
    so a pending status can only be a leftover, and leaving it would block the release for good.
    """
    _, recovered = recover(driver, driver.history(namespace, name))
    return recovered


def recover(driver: Driver, history: list[rel.ReleaseVersion]
            ) -> tuple[list[rel.ReleaseVersion], list[rel.ReleaseVersion]]:
    """``recover_interrupted`` over a history just read: returns the history as it is now
    (recovered versions replaced) and the recovered versions, so callers need no second read."""
    now, recovered = [], []
    for version in history:
        if version.status.pending:
            version = version.with_status(rel.Status.FAILED,
                                          INTERRUPTED.format(status=version.status.value))
            driver.update(version)
            recovered.append(version)
        now.append(version)
    return now, recovered


def prune_history(driver: Driver, namespace: str, name: str, max_history: int,
                  history: list[rel.ReleaseVersion] | None = None) -> list[rel.ReleaseVersion]:
    """Delete the oldest versions beyond ``max_history`` (Helm's ``--history-max``; 0 keeps all),
    never the last deployed one; returns what was deleted, oldest first. ``history``: the
    versions as stored now, when the caller knows them (under the release's lock), else read."""
    doomed = rel.to_prune(driver.history(namespace, name) if history is None else history, max_history)
    return [driver.delete(namespace, name, version.version) for version in doomed]
