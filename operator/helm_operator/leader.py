"""Leader election on a ``coordination.k8s.io/v1`` Lease, so only one replica reconciles.

Rules (those of client-go's leaderelection package, which controller-runtime uses):
- The Lease names its holder (``spec.holderIdentity``), how long a claim lasts
  (``leaseDurationSeconds``) and when it was last renewed. A replica takes it when it is
  free (no holder: released) or when it has seen the same record for longer than the
  duration. Expiry is judged on the local clock from when this replica last saw the record
  change, never by comparing timestamps written by another machine's clock.
- Every write is a create, or an update carrying the resourceVersion that was read: two
  replicas racing for the Lease cannot both win (the loser gets 409 Conflict).
- The leader renews every retry period; when no renewal succeeded for the renew deadline
  it stops leading (it may be partitioned away and another replica may take over once the
  duration has passed). The renew deadline is shorter than the duration for that reason.
- Releasing clears the holder so a standby takes over at its next retry, without waiting
  out the duration.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from helm_core import errors as core_errors
from helm_core.kube import client as kclient
from helm_operator.settings import DEFAULT_LEASE_NAME, LeaderElectionSettings

API_VERSION, KIND = "coordination.k8s.io/v1", "Lease"


class LeaseClient(Protocol):
    """What election needs of the cluster client (``helm_core.kube.live.LiveClient``)."""

    def get(self, ref: kclient.ObjectRef) -> dict[str, Any]: ...

    def create(self, obj: Mapping[str, Any]) -> dict[str, Any]: ...

    def replace(self, obj: Mapping[str, Any], *, subresource: str = "") -> dict[str, Any]: ...


def lease_name(selector: str) -> str:
    """One Lease per shard: replicas of different shards must not elect one leader between
    them. The unsharded controller keeps the plain name."""
    if not selector:
        return DEFAULT_LEASE_NAME
    return f"{DEFAULT_LEASE_NAME}-{hashlib.sha256(selector.encode()).hexdigest()[:10]}"


def micro_time(when: dt.datetime) -> str:
    """Kubernetes' MicroTime format (RFC 3339 with microseconds, UTC)."""
    return when.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Elector:
    """One replica's side of the election for one Lease (thread-safe)."""

    def __init__(self, client: LeaseClient, election: LeaderElectionSettings, *,
                 log: Callable[[str], None] = lambda line: None,
                 tick: Callable[[], None] = lambda: None,
                 clock: Callable[[], float] = time.monotonic,
                 now: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC)) -> None:
        self.ref = kclient.ObjectRef(API_VERSION, KIND, election.lease_name, election.namespace)
        self.identity = election.identity
        self.lease_duration_s = election.lease_duration_s
        self.renew_deadline_s = election.renew_deadline_s
        self.retry_period_s = election.retry_period_s
        self._client = client
        self._log = log
        self._tick = tick
        self._clock = clock
        self._now = now
        self._lock = threading.Lock()
        self._observed: tuple[Any, ...] | None = None
        self._observed_at = 0.0
        self._leading = False
        self._released = False

    @property
    def leading(self) -> bool:
        return self._leading

    def try_acquire_or_renew(self) -> bool:
        """One attempt to take or keep the Lease; True when this replica holds it after.
        Never after :meth:`release` (a renewal racing the release must not take it back)."""
        with self._lock:
            self._leading = not self._released and self._attempt()
            return self._leading

    def _attempt(self) -> bool:
        stamp = micro_time(self._now())
        try:
            lease = self._client.get(self.ref)
        except core_errors.NotFoundError:
            try:
                self._seen(self._client.create(self._lease({}, {
                    "holderIdentity": self.identity, "acquireTime": stamp, "renewTime": stamp,
                    "leaseTransitions": 0})))
            except core_errors.ConflictError:
                return False  # another replica created it first
            return True
        spec = dict(lease.get("spec") or {})
        self._seen(lease)
        holder = spec.get("holderIdentity") or ""
        duration = float(spec.get("leaseDurationSeconds") or self.lease_duration_s)
        if holder and holder != self.identity and self._clock() < self._observed_at + duration:
            return False
        if holder != self.identity:
            spec["acquireTime"] = stamp
            spec["leaseTransitions"] = int(spec.get("leaseTransitions") or 0) + 1
        spec.update(holderIdentity=self.identity, renewTime=stamp)
        try:
            self._seen(self._client.replace(self._lease(lease.get("metadata") or {}, spec)))
        except core_errors.ConflictError:
            return False  # someone wrote it since we read it: look again next time
        return True

    def _lease(self, metadata: Mapping[str, Any], spec: Mapping[str, Any]) -> dict[str, Any]:
        meta = {"name": self.ref.name, "namespace": self.ref.namespace}
        if metadata.get("resourceVersion"):
            meta["resourceVersion"] = metadata["resourceVersion"]
        return {"apiVersion": API_VERSION, "kind": KIND, "metadata": meta,
                "spec": {**spec, "leaseDurationSeconds": int(self.lease_duration_s)}}

    def _seen(self, lease: Mapping[str, Any]) -> None:
        # any write counts as a sign of life, even one within the same microsecond
        spec = lease.get("spec") or {}
        record = (spec.get("holderIdentity"), spec.get("renewTime"),
                  (lease.get("metadata") or {}).get("resourceVersion"))
        if record != self._observed:
            self._observed, self._observed_at = record, self._clock()

    def _held_by_other(self) -> bool:
        holder = self._observed[0] if self._observed else None
        return bool(holder) and holder != self.identity

    def acquire(self, stop: threading.Event) -> bool:
        """Try every retry period until this replica leads (True) or ``stop`` is set (False);
        calls ``tick`` before each try (a standby's liveness)."""
        while not stop.is_set():
            self._tick()
            try:
                if self.try_acquire_or_renew():
                    self._log(f"became leader: Lease {self.ref.namespace}/{self.ref.name}")
                    return True
            except core_errors.ClusterError as exc:
                self._log(f"cannot read or take Lease {self.ref.namespace}/{self.ref.name}: {exc}")
            stop.wait(self.retry_period_s)
        return False

    def keep(self, stop: threading.Event, lost: Callable[[], None]) -> None:
        """Renew every retry period until ``stop`` or :meth:`release`; calls ``lost`` (and
        returns) once no renewal has succeeded for the renew deadline or another replica holds
        the Lease."""
        last_renewed = self._clock()
        while not stop.wait(self.retry_period_s):
            if self._released:
                return  # given up on purpose: not a loss
            try:
                renewed = self.try_acquire_or_renew()
            except core_errors.ClusterError as exc:
                self._log(f"cannot renew Lease {self.ref.namespace}/{self.ref.name}: {exc}")
                renewed = False
            if renewed:
                last_renewed = self._clock()
            elif self._held_by_other() or self._clock() - last_renewed >= self.renew_deadline_s:
                self._leading = False
                self._log(f"leader election lost: Lease {self.ref.namespace}/{self.ref.name}")
                lost()
                return

    def start_keeping(self, stop: threading.Event, lost: Callable[[], None]) -> threading.Thread:
        thread = threading.Thread(target=self.keep, args=(stop, lost), name="leader-renew",
                                  daemon=True)
        thread.start()
        return thread

    def release(self) -> bool:
        """Give the Lease up if this replica holds it (holder cleared); True when released."""
        with self._lock:
            self._released = True
            if not self._leading:
                return False
            self._leading = False
            try:
                lease = self._client.get(self.ref)
                spec = dict(lease.get("spec") or {})
                if spec.get("holderIdentity") != self.identity:
                    return False
                spec.update(holderIdentity=None, renewTime=micro_time(self._now()))
                body = self._lease(lease.get("metadata") or {}, spec)
                body["spec"]["leaseDurationSeconds"] = 1
                self._client.replace(body)
            except core_errors.ClusterError as exc:
                self._log(f"cannot release Lease {self.ref.namespace}/{self.ref.name}: {exc}")
                return False
            self._log(f"released Lease {self.ref.namespace}/{self.ref.name}")
            return True
