"""One operation at a time per release: a ``coordination.k8s.io/v1`` Lease as a crash-safe lock.

Why a Lease: it is the standard Kubernetes lock record (holder, duration, renew time), every
write is guarded by ``resourceVersion`` so two contenders can never both win, and a holder that
dies simply stops renewing, so its lock expires instead of blocking the release for good (the
stuck ``pending-*`` releases of Flux helm-controller #149 and #454).

Rules:
- The Lease is ``<release>.lock`` in the release's namespace, labels ``release`` and
  ``owner: helm-core``, annotation ``helm.sh/operation`` naming the running operation.
- ``acquire``: create the Lease (in a namespace that does not exist: ``NotFoundError`` in the
  words helm's first write, its release Secret, meets it with); if it exists and is still live,
  raise ``LockedError`` "another operation (upgrade) is in progress on release ..." naming the
  holder and when it expires; if it expired, take it over with a ``resourceVersion``-guarded
  update (losing that race is the same ``LockedError``). The holder's own Lease is re-acquired
  (a retry of the same holder).
- Expiry is judged on the API server's clock only: the server's time of the Lease's last write
  (``managedFields``) plus ``leaseDurationSeconds`` plus ``CLOCK_GRANULARITY_S`` (those times
  are whole seconds) against the server's time now, so a contender whose clock runs ahead
  cannot steal a live lock. ``renewTime`` (the holder's clock) is only read for Leases written
  without managed fields.
- While held, it is renewed every ``renew_every_s`` by the process's one scheduler
  (:class:`Renewals` on ``helm_core.support.timers``: a thread started and joined per
  operation cost a controller running many operations at once more than the operation's own
  requests; a due renewal never waits for a slow one); a failed renewal (someone took it over
  after we stalled longer than the duration) marks the lock lost: ``check`` then raises
  ``LockedError`` so the operation stops before writing its result.
- ``release`` stops renewing and deletes the Lease only if it is still ours (delete
  precondition on our last ``resourceVersion``).
"""
from __future__ import annotations

import datetime as dt
import math
import os
import socket
import threading
import uuid
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Any

from helm_core.errors import ClusterError, ConflictError, LockedError, NotFoundError
from helm_core.kube import client as kclient
from helm_core.support import timers
from helm_core.support.records import field, record

LEASE_API_VERSION = "coordination.k8s.io/v1"
OPERATION_ANNOTATION = "helm.sh/operation"
DEFAULT_DURATION_S = 60
"""A dead holder blocks the release at most this long (seconds) after its last renewal."""
CLOCK_GRANULARITY_S = 1
"""Server timestamps are truncated to whole seconds: add one so expiry is never early."""
_MICRO_TIME = "%Y-%m-%dT%H:%M:%S.%fZ"


def default_holder() -> str:
    """``<host>/<pid>/<random>``: unique per lock object, readable in ``kubectl get lease``."""
    return f"{socket.gethostname()}/{os.getpid()}/{uuid.uuid4().hex[:8]}"


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


@record(frozen=True)
class LockOptions:
    """Timing and identity of a release lock."""

    duration_s: int = DEFAULT_DURATION_S
    """Lease duration in whole seconds (``leaseDurationSeconds``)."""
    renew_every_s: float = DEFAULT_DURATION_S / 3
    """Seconds between renewals; a third of the duration tolerates two missed renewals."""
    holder: str = field(default_factory=default_holder)
    """Identity written to ``holderIdentity``."""
    clock: Callable[[], dt.datetime] = field(default=_now, compare=False)
    """This machine's UTC time, written to ``acquireTime``/``renewTime`` for people to read;
    expiry never depends on it."""


class Renewals:
    """Renews every held lock of the process when due, on the process's scheduler
    (``helm_core.support.timers``: one timer thread, reused workers)."""

    def __init__(self) -> None:
        self._mutex = threading.Lock()
        self._due: dict[ReleaseLock, timers.Timer] = {}

    def add(self, lock: ReleaseLock, every_s: float) -> None:
        with self._mutex:
            self._schedule(lock, every_s)

    def _schedule(self, lock: ReleaseLock, every_s: float) -> None:
        old = self._due.get(lock)
        if old is not None:
            old.cancel()
        self._due[lock] = timers.TIMERS.call_later(every_s, lambda: self._renew(lock))

    def remove(self, lock: ReleaseLock) -> None:
        with self._mutex:
            timer = self._due.pop(lock, None)
        if timer is not None:
            timer.cancel()

    def holds(self, lock: ReleaseLock) -> bool:
        with self._mutex:
            return lock in self._due

    def _renew(self, lock: ReleaseLock) -> None:
        with self._mutex:
            if lock not in self._due:
                return
            self._schedule(lock, lock.renew_every_s)  # the next one is due from now, as before
        try:
            lock.renew()
        except ClusterError:
            if lock.lost:
                self.remove(lock)


RENEWALS = Renewals()


def lease_name(release: str) -> str:
    return f"{release}.lock"


def _micro(value: dt.datetime) -> str:
    return value.astimezone(dt.UTC).strftime(_MICRO_TIME)


def _parse_micro(text: str) -> dt.datetime | None:
    for pattern in (_MICRO_TIME, "%Y-%m-%dT%H:%M:%SZ"):
        try:
            return dt.datetime.strptime(text, pattern).replace(tzinfo=dt.UTC)
        except ValueError:
            continue
    return None


def expiry(lease: Mapping[str, Any]) -> dt.datetime | None:
    """When a Lease stops protecting its holder, on the server's clock (None: malformed, treat
    as expired)."""
    spec = lease.get("spec") or {}
    renewed = kclient.last_write(lease)
    if renewed is None:
        renewed = _parse_micro(str(spec.get("renewTime") or spec.get("acquireTime") or ""))
    duration = spec.get("leaseDurationSeconds")
    if renewed is None or not isinstance(duration, int):
        return None
    return renewed + dt.timedelta(seconds=duration + CLOCK_GRANULARITY_S)


class ReleaseLock:
    """The lock of one release; use as a context manager around an operation."""

    def __init__(self, client: kclient.ClusterClient, *, namespace: str, release: str,
                 operation: str, options: LockOptions | None = None) -> None:
        self._client = client
        self._namespace = namespace
        self._release = release
        self._operation = operation
        self._options = options or LockOptions()
        self._resource_version = ""
        self._acquired: dt.datetime | None = None
        self._transitions = 0
        self._lost = threading.Event()
        self._stop = threading.Event()
        self._mutex = threading.Lock()

    @property
    def renew_every_s(self) -> float:
        return self._options.renew_every_s

    @property
    def lost(self) -> bool:
        return self._lost.is_set()

    @property
    def ref(self) -> kclient.ObjectRef:
        return kclient.ObjectRef(LEASE_API_VERSION, "Lease", lease_name(self._release),
                                 self._namespace)

    @property
    def holder(self) -> str:
        return self._options.holder

    def _lease(self, now: dt.datetime) -> dict[str, Any]:
        meta: dict[str, Any] = {
            "name": lease_name(self._release), "namespace": self._namespace,
            "labels": {"release": self._release, "owner": "helm-core"},
            "annotations": {OPERATION_ANNOTATION: self._operation},
        }
        if self._resource_version:
            meta["resourceVersion"] = self._resource_version
        return {"apiVersion": LEASE_API_VERSION, "kind": "Lease", "metadata": meta, "spec": {
            "holderIdentity": self._options.holder,
            "leaseDurationSeconds": int(self._options.duration_s),
            "acquireTime": _micro(self._acquired or now), "renewTime": _micro(now),
            "leaseTransitions": self._transitions,
        }}

    def _busy(self, lease: Mapping[str, Any], now: dt.datetime) -> LockedError:
        spec = lease.get("spec") or {}
        operation = ((lease.get("metadata") or {}).get("annotations") or {}).get(
            OPERATION_ANNOTATION, "unknown")
        ends = expiry(lease)
        left = math.ceil((ends - now).total_seconds()) if ends else 0
        return LockedError(
            f"another operation ({operation}) is in progress on release \"{self._release}\" in "
            f"namespace \"{self._namespace}\" (held by {spec.get('holderIdentity', '?')}, "
            f"lock expires in {max(left, 0)}s unless renewed)")

    def acquire(self) -> ReleaseLock:
        """Take the lock or raise ``LockedError``; starts renewing it in the background."""
        now = self._options.clock()
        self._acquired = now
        try:
            self._resource_version = ""
            created = self._client.create(self._lease(now))
        except ConflictError:
            created = self._take_over(now, self._client.server_time())
        except NotFoundError as exc:  # the operation's first write: helm's words for its first
            raise NotFoundError(f'create: failed to create: namespaces "{self._namespace}" not found') from exc
        self._resource_version = str(created["metadata"]["resourceVersion"])
        self._start_renewing()
        return self

    def _take_over(self, now: dt.datetime, server_now: dt.datetime) -> dict[str, Any]:
        try:
            current = self._client.get(self.ref)
        except NotFoundError:  # released between our create and get: try once more
            return self._client.create(self._lease(now))
        spec = current.get("spec") or {}
        ends = expiry(current)
        mine = spec.get("holderIdentity") == self._options.holder
        if not mine and ends is not None and ends > server_now:
            raise self._busy(current, server_now)
        self._resource_version = str(current["metadata"]["resourceVersion"])
        transitions = spec.get("leaseTransitions")
        self._transitions = (transitions if isinstance(transitions, int) else 0) + (0 if mine else 1)
        try:
            return self._client.replace(self._lease(now))
        except ConflictError:  # another contender took it over first
            raise self._busy(self._client.get(self.ref), server_now) from None

    def _start_renewing(self) -> None:
        self._stop.clear()
        self._lost.clear()
        RENEWALS.add(self, self._options.renew_every_s)

    def renew(self) -> None:
        """Push ``renewTime`` forward now; marks the lock lost when the Lease is no longer ours."""
        with self._mutex:
            if self._stop.is_set() or self._lost.is_set():
                return
            try:
                renewed = self._client.replace(self._lease(self._options.clock()))
            except (ConflictError, NotFoundError) as exc:
                self._lost.set()
                raise self._lost_error() from exc
            self._resource_version = str(renewed["metadata"]["resourceVersion"])

    def check(self) -> None:
        """Raise ``LockedError`` when the lock was lost (taken over after we stalled)."""
        if self._lost.is_set():
            raise self._lost_error()

    def _lost_error(self) -> LockedError:
        return LockedError(f'lost the lock of release "{self._release}" in namespace '
                           f'"{self._namespace}": another operation took it over after it expired')

    def release(self) -> None:
        """Stop renewing and delete the Lease if it is still ours. A renewal in flight holds the
        mutex: the delete waits for it (and it sees ``_stop`` if it had not started)."""
        self._stop.set()
        RENEWALS.remove(self)
        with self._mutex:
            if self._lost.is_set() or not self._resource_version:
                return
            try:
                self._client.delete(self.ref, resource_version=self._resource_version)
            except ConflictError:
                pass  # taken over after expiry: it is someone else's now
            self._resource_version = ""

    def __enter__(self) -> ReleaseLock:
        return self.acquire()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.release()
