"""Release lock logic on the fake client with a controlled clock (proven live in e2e/)."""
from __future__ import annotations

import datetime as dt

import pytest

from helm_core.errors import LockedError, NotFoundError
from helm_core.kube import fake
from helm_core.storage import lock as slock

T0 = dt.datetime(2026, 11, 23, 12, 0, 0, tzinfo=dt.timezone.utc)


class Clock:
    def __init__(self, now: dt.datetime = T0) -> None:
        self.now = now

    def __call__(self) -> dt.datetime:
        return self.now


def _setup() -> tuple[fake.FakeClient, Clock]:
    """A fake API server whose clock the test moves (lock holders read the same clock)."""
    clock = Clock()
    return fake.FakeCluster(clock=clock).client(), clock


def _lock(client, clock, holder: str, operation: str = "upgrade", duration: int = 30) -> slock.ReleaseLock:
    options = slock.LockOptions(duration_s=duration, renew_every_s=3600, holder=holder, clock=clock)
    return slock.ReleaseLock(client, namespace="demo", release="web", operation=operation,
                             options=options)


def test_lease_records_holder_operation_and_times():
    client, clock = _setup()
    with _lock(client, clock, "host-a/1") as held:
        lease = client.get(held.ref)
    assert lease["metadata"]["name"] == "web.lock"
    assert lease["metadata"]["annotations"] == {"helm.sh/operation": "upgrade"}
    assert lease["metadata"]["labels"] == {"release": "web", "owner": "helm-core"}
    assert lease["spec"] == {"holderIdentity": "host-a/1", "leaseDurationSeconds": 30,
                             "acquireTime": "2026-11-23T12:00:00.000000Z",
                             "renewTime": "2026-11-23T12:00:00.000000Z", "leaseTransitions": 0}


def test_second_holder_gets_in_progress_error():
    client, clock = _setup()
    with _lock(client, clock, "host-a/1", "install"):
        clock.now = T0 + dt.timedelta(seconds=10)
        with pytest.raises(LockedError) as caught:
            _lock(client, clock, "host-b/2").acquire()
    assert str(caught.value) == (
        'another operation (install) is in progress on release "web" in namespace "demo" '
        "(held by host-a/1, lock expires in 21s unless renewed)")


def test_release_deletes_the_lease_so_next_operation_proceeds():
    client, clock = _setup()
    with _lock(client, clock, "host-a/1"):
        pass
    assert client.list("coordination.k8s.io/v1", "Lease", namespace="demo") == []
    with _lock(client, clock, "host-b/2"):
        pass


def test_expired_lock_of_a_dead_holder_is_taken_over():
    client, clock = _setup()
    dead = _lock(client, clock, "host-a/1").acquire()
    dead._stop.set()  # the process died: no renewals, no release
    clock.now = T0 + dt.timedelta(seconds=30, milliseconds=900)
    with pytest.raises(LockedError):  # 30 s lease + 1 s for whole-second server timestamps
        _lock(client, clock, "host-b/2").acquire()
    clock.now = T0 + dt.timedelta(seconds=31)
    with _lock(client, clock, "host-b/2") as taker:
        lease = client.get(taker.ref)
        assert lease["spec"]["holderIdentity"] == "host-b/2"
        assert lease["spec"]["leaseTransitions"] == 1


def test_renewal_keeps_the_lock_alive_past_its_duration():
    client, clock = _setup()
    with _lock(client, clock, "host-a/1") as held:
        clock.now = T0 + dt.timedelta(seconds=25)
        held.renew()
        clock.now = T0 + dt.timedelta(seconds=50)
        with pytest.raises(LockedError):
            _lock(client, clock, "host-b/2").acquire()
        held.check()


def test_holder_that_stalled_past_expiry_learns_it_lost_the_lock():
    client, clock = _setup()
    stalled = _lock(client, clock, "host-a/1").acquire()
    clock.now = T0 + dt.timedelta(seconds=45)
    with _lock(client, clock, "host-b/2") as taker:
        with pytest.raises(LockedError):
            stalled.renew()
        with pytest.raises(LockedError) as caught:
            stalled.check()
        assert str(caught.value) == ('lost the lock of release "web" in namespace "demo": another '
                                     "operation took it over after it expired")
        stalled.release()  # must not delete the new holder's lease
        assert client.get(taker.ref)["spec"]["holderIdentity"] == "host-b/2"


def test_same_holder_may_reacquire_its_own_live_lock():
    client, clock = _setup()
    _lock(client, clock, "host-a/1").acquire()._stop.set()
    with _lock(client, clock, "host-a/1") as again:
        assert client.get(again.ref)["spec"]["leaseTransitions"] == 0


def test_contender_with_a_clock_far_ahead_cannot_steal_a_live_lock():
    client, clock = _setup()
    with _lock(client, clock, "host-a/1"):
        ahead = Clock(T0 + dt.timedelta(hours=1))
        with pytest.raises(LockedError) as caught:
            _lock(client, ahead, "host-b/2").acquire()
        assert "lock expires in 31s unless renewed" in str(caught.value)


SERVER_WRITE = [{"manager": "helm-core", "operation": "Update", "time": "2026-11-23T12:00:10Z"},
                {"manager": "kubectl", "operation": "Update", "time": "2026-11-23T12:00:04Z"}]


@pytest.mark.parametrize(("meta", "spec", "expected"), [
    ({"managedFields": SERVER_WRITE}, {"renewTime": "2020-01-01T00:00:00.000000Z", "leaseDurationSeconds": 15},
     T0 + dt.timedelta(seconds=26)),
    ({}, {"renewTime": "2026-11-23T12:00:00.000000Z", "leaseDurationSeconds": 15}, T0 + dt.timedelta(seconds=16)),
    ({}, {"acquireTime": "2026-11-23T12:00:00Z", "leaseDurationSeconds": 5}, T0 + dt.timedelta(seconds=6)),
    ({}, {"renewTime": "garbage", "leaseDurationSeconds": 5}, None),
    ({}, {"renewTime": "2026-11-23T12:00:00.000000Z"}, None),
], ids=["server-write-time-wins", "renewed", "acquired-only", "bad-time", "no-duration"])
def test_expiry_of_lease_records(meta, spec, expected):
    assert slock.expiry({"metadata": meta, "spec": spec}) == expected


def test_held_locks_are_renewed_by_one_thread_and_no_more_once_released():
    import threading
    import time

    client = fake.FakeCluster().client()
    locks = [slock.ReleaseLock(client, namespace="demo", release=f"r{i}", operation="install",
                               options=slock.LockOptions(duration_s=30, renew_every_s=0.1,
                                                         holder=f"h{i}"))
             for i in range(5)]
    before = threading.active_count()
    for held in locks:
        held.acquire()
    versions = [client.get(held.ref)["metadata"]["resourceVersion"] for held in locks]
    time.sleep(0.5)
    assert threading.active_count() <= before + 1 + len(locks)  # the renewal thread, renewals in flight
    renewed = [client.get(held.ref)["metadata"]["resourceVersion"] for held in locks]
    assert all(a != b for a, b in zip(versions, renewed))
    for held in locks:
        held.release()
        assert not slock.RENEWALS.holds(held)
        with pytest.raises(NotFoundError):
            client.get(held.ref)  # deleted


def test_a_namespace_that_does_not_exist_is_named_in_helms_words(monkeypatch):
    client, clock = _setup()

    def missing(obj):
        raise NotFoundError('create Lease "web.lock" in namespace "demo": namespaces "demo" not found')
    monkeypatch.setattr(client, "create", missing)
    with pytest.raises(NotFoundError) as refused:
        _lock(client, clock, "host-a/1").acquire()
    assert str(refused.value) == 'create: failed to create: namespaces "demo" not found'
