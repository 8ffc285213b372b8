"""Leader election on a Lease (helm_operator.leader), against an in-memory Lease API that
keeps resourceVersions as the API server does (a stale update is a 409 Conflict)."""
from __future__ import annotations

import copy
import datetime as dt
import threading

import pytest

from helm_core import errors as core_errors
from helm_operator import leader, settings


class Leases:
    """get/create/replace of Leases with optimistic concurrency on resourceVersion."""

    def __init__(self) -> None:
        self.stored: dict[tuple[str, str], dict] = {}
        self.version = 0
        self.down = False

    def _key(self, namespace, name):
        if self.down:
            raise core_errors.ClusterError("cannot reach the Kubernetes API")
        return namespace, name

    def get(self, ref):
        key = self._key(ref.namespace, ref.name)
        if key not in self.stored:
            raise core_errors.NotFoundError(f"get {ref}: not found")
        return copy.deepcopy(self.stored[key])

    def create(self, obj):
        key = self._key(obj["metadata"]["namespace"], obj["metadata"]["name"])
        if key in self.stored:
            raise core_errors.ConflictError("create: already exists")
        return self._store(key, obj)

    def replace(self, obj, *, subresource=""):
        key = self._key(obj["metadata"]["namespace"], obj["metadata"]["name"])
        if obj["metadata"].get("resourceVersion") != self.stored[key]["metadata"]["resourceVersion"]:
            raise core_errors.ConflictError("update: the object has been modified")
        return self._store(key, obj)

    def _store(self, key, obj):
        self.version += 1
        stored = copy.deepcopy(dict(obj))
        stored["metadata"]["resourceVersion"] = str(self.version)
        self.stored[key] = stored
        return copy.deepcopy(stored)

    def spec(self, name=settings.DEFAULT_LEASE_NAME):
        return self.stored[("system", name)]["spec"]


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


WALL = dt.datetime(2026, 11, 25, 21, 0, 0, 123456, tzinfo=dt.timezone.utc)


def elector(leases: Leases, identity: str, clock: Clock, **kw) -> leader.Elector:
    election = settings.LeaderElectionSettings(enabled=True, namespace="system", identity=identity, **kw)
    return leader.Elector(leases, election, clock=clock, now=lambda: WALL)


def test_the_first_replica_creates_the_lease_and_the_second_stands_by():
    leases, clock = Leases(), Clock()
    a, b = elector(leases, "a", clock), elector(leases, "b", clock)
    assert a.try_acquire_or_renew() and a.leading
    assert not b.try_acquire_or_renew() and not b.leading
    assert leases.spec() == {"holderIdentity": "a", "acquireTime": "2026-11-25T21:00:00.123456Z",
                             "renewTime": "2026-11-25T21:00:00.123456Z", "leaseTransitions": 0,
                             "leaseDurationSeconds": 15}


def test_a_lease_not_renewed_for_its_duration_passes_to_the_standby():
    leases, clock = Leases(), Clock()
    a, b = elector(leases, "a", clock), elector(leases, "b", clock)
    a.try_acquire_or_renew()
    assert not b.try_acquire_or_renew()
    clock.now += 14.9  # b measures from when it first saw this record, on its own clock
    assert not b.try_acquire_or_renew()
    clock.now += 0.2
    assert b.try_acquire_or_renew()
    assert leases.spec()["holderIdentity"] == "b" and leases.spec()["leaseTransitions"] == 1


def test_renewals_keep_the_lease_however_long_it_is_held():
    leases, clock = Leases(), Clock()
    a, b = elector(leases, "a", clock), elector(leases, "b", clock)
    for _ in range(20):
        assert a.try_acquire_or_renew()
        assert not b.try_acquire_or_renew()
        clock.now += 2
    assert leases.spec()["leaseTransitions"] == 0


def test_an_update_racing_another_replica_loses_on_resource_version():
    leases, clock = Leases(), Clock()
    a = elector(leases, "a", clock)
    a.try_acquire_or_renew()
    stale = leases.get(leader.Elector(leases, settings.LeaderElectionSettings(
        enabled=True, namespace="system", identity="x")).ref)
    a.try_acquire_or_renew()  # a renews: the version b read is now stale
    b = elector(leases, "b", clock)
    clock.now += 100
    original_get = leases.get
    leases.get = lambda ref: stale
    assert not b.try_acquire_or_renew()
    leases.get = original_get
    assert leases.spec()["holderIdentity"] == "a"


def test_release_clears_the_holder_and_the_standby_takes_over_at_once():
    leases, clock = Leases(), Clock()
    a, b = elector(leases, "a", clock), elector(leases, "b", clock)
    a.try_acquire_or_renew()
    assert not b.try_acquire_or_renew()
    assert a.release() and not a.leading
    assert leases.spec()["holderIdentity"] is None and leases.spec()["leaseDurationSeconds"] == 1
    assert b.try_acquire_or_renew()
    assert leases.spec()["holderIdentity"] == "b"
    assert not a.release()  # not the holder any more: nothing to release


def test_a_renewal_after_release_does_not_take_the_lease_back():
    leases, clock = Leases(), Clock()
    a = elector(leases, "a", clock)
    a.try_acquire_or_renew()
    a.release()
    assert not a.try_acquire_or_renew()
    assert leases.spec()["holderIdentity"] is None


def test_keep_reports_the_loss_once_renewals_fail_for_the_renew_deadline():
    leases, clock = Leases(), Clock()
    a = elector(leases, "a", clock, retry_period_s=0.01, renew_deadline_s=10, lease_duration_s=15)
    a.try_acquire_or_renew()
    leases.down = True
    lost, stop = threading.Event(), threading.Event()
    ticker = threading.Thread(target=a.keep, args=(stop, lost.set))
    ticker.start()
    assert not lost.wait(0.2)  # failures alone, within the deadline, are not a loss
    clock.now += 10
    assert lost.wait(5)
    ticker.join(5)
    assert not a.leading


def test_keep_reports_the_loss_when_another_replica_holds_the_lease():
    leases, clock = Leases(), Clock()
    a = elector(leases, "a", clock, retry_period_s=0.01)
    a.try_acquire_or_renew()
    leases.stored[("system", settings.DEFAULT_LEASE_NAME)]["spec"]["holderIdentity"] = "b"
    lost = threading.Event()
    a.keep(threading.Event(), lost.set)
    assert lost.is_set() and not a.leading


def test_each_shard_elects_its_own_leader():
    assert leader.lease_name("") == "helm-operator-leader"
    one, two = leader.lease_name("sharding.helm.sh/key=shard1"), leader.lease_name("!sharding.helm.sh/key")
    assert one != two and one.startswith("helm-operator-leader-") and len(one) == len("helm-operator-leader-") + 10


def test_timings_must_leave_room_for_a_renewal():
    with pytest.raises(ValueError, match="retry period < renew deadline < lease duration"):
        settings.LeaderElectionSettings(renew_deadline_s=20)


def _gap_setup(leases: Leases):
    import logging

    from helm_operator import main, probes, shutdown

    inv = main.parse(["run", "--leader-elect", "--leader-election-namespace", "system",
                      "--identity", "a"], {})
    exited: list[int] = []
    stop = shutdown.Shutdown(exit=exited.append, grace_s=0.1)
    return main, inv, probes.Health(), logging.getLogger("test"), stop, exited


def test_sigterm_while_the_lease_is_being_won_hands_it_over():
    """The signal lands during the very attempt that wins the Lease: the replica does not go on
    leading (nor die holding it); the Lease is released for the standby at once."""
    leases = Leases()
    main, inv, health, log, stop, _exited = _gap_setup(leases)
    create = leases.create

    def create_then_signal(obj):
        created = create(obj)
        stop.begin()  # SIGTERM arrives while the winning create is answered
        return created

    leases.create = create_then_signal
    with pytest.raises(SystemExit) as ended:
        main.await_leadership(inv, leases, health, log, stop)
    assert ended.value.code == 0
    assert leases.spec()["holderIdentity"] is None and leases.spec()["leaseDurationSeconds"] == 1


def test_sigterm_after_the_lease_is_won_releases_it_first():
    leases = Leases()
    main, inv, health, log, stop, _exited = _gap_setup(leases)
    steps: list[str] = []
    main.await_leadership(inv, leases, health, log, stop)
    assert leases.spec()["holderIdentity"] == "a" and not health.standby
    stop.on_stop(lambda: steps.append(f"workers killed; holder {leases.spec()['holderIdentity']}"))
    stop.begin()  # e.g. while the render workers start, before Kopf runs
    assert steps == ["workers killed; holder None"]  # the Lease went first


def test_sigterm_while_standing_by_exits_without_taking_the_lease():
    leases = Leases()
    leases.create({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                   "metadata": {"name": settings.DEFAULT_LEASE_NAME, "namespace": "system"},
                   "spec": {"holderIdentity": "b", "leaseDurationSeconds": 15}})
    main, inv, health, log, stop, _exited = _gap_setup(leases)
    threading.Timer(0.3, stop.begin).start()
    with pytest.raises(SystemExit) as ended:
        main.await_leadership(inv, leases, health, log, stop)
    assert ended.value.code == 0 and health.standby
    assert leases.spec()["holderIdentity"] == "b"
