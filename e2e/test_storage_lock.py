"""The per-release Lease lock on the real API server: contention, crashes, recovery."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from e2e.conftest import ClusterInfo
from e2e.test_storage_secrets import install_release_crd
from helm_core.errors import LockedError
from helm_core.kube import live
from helm_core.storage import driver as sdriver
from helm_core.storage import lock as slock
from helm_core.storage import release as rel
from helm_core.storage import secrets

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[1]
CHILD_READY_TIMEOUT_S = 60.0

# A separate process that takes the lock (3 s lease), records a pending-install version as an
# install does, says so, then hangs mid-operation until killed.
CHILD = """
import sys, time
from helm_core.kube import live
from helm_core.storage import lock as slock, release as rel, secrets
client = live.connect(live.LiveOptions(kubeconfig=sys.argv[1]))
options = slock.LockOptions(duration_s=3, renew_every_s=1, holder="child/" + sys.argv[3])
slock.ReleaseLock(client, namespace=sys.argv[2], release="web", operation="install",
                  options=options).acquire()
version = rel.ReleaseVersion(name="web", namespace=sys.argv[2], version=rel.new_version(),
                             status=rel.Status.PENDING_INSTALL, chart_name="nginx",
                             chart_version="1.2.3", manifest="kind: ConfigMap")
secrets.SecretsDriver(client).create(version)
print("locked", version.version, flush=True)
time.sleep(600)
"""


@pytest.fixture(scope="module")
def hc(cluster: ClusterInfo) -> live.LiveClient:
    client = live.connect(live.LiveOptions(kubeconfig=str(cluster.kubeconfig)))
    install_release_crd(client)
    return client


def _lock(client: live.LiveClient, namespace: str, holder: str, *, duration: int = 30,
          operation: str = "upgrade") -> slock.ReleaseLock:
    return slock.ReleaseLock(client, namespace=namespace, release="web", operation=operation,
                             options=slock.LockOptions(duration_s=duration, renew_every_s=1,
                                                       holder=holder))


def test_two_concurrent_holders_one_wins_the_other_gets_the_clear_error(
        cluster: ClusterInfo, namespace: str) -> None:
    contenders = 2
    barrier = threading.Barrier(contenders)
    results: dict[str, object] = {}

    def contend(holder: str) -> None:
        client = live.connect(live.LiveOptions(kubeconfig=str(cluster.kubeconfig)))
        lock = _lock(client, namespace, holder)
        barrier.wait()
        try:
            results[holder] = lock.acquire()
        except LockedError as exc:
            results[holder] = exc

    threads = [threading.Thread(target=contend, args=(f"worker-{i}",)) for i in range(contenders)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    winners = [h for h, r in results.items() if isinstance(r, slock.ReleaseLock)]
    losers = [r for r in results.values() if isinstance(r, LockedError)]
    assert len(winners) == 1 and len(losers) == 1
    message = str(losers[0])
    assert message.startswith('another operation (upgrade) is in progress on release "web" in '
                              f'namespace "{namespace}" (held by {winners[0]}, lock expires in ')
    assert message.endswith("s unless renewed)")
    held = results[winners[0]]
    assert isinstance(held, slock.ReleaseLock)
    held.release()


def test_renewal_keeps_a_long_operation_locked(hc: live.LiveClient, namespace: str) -> None:
    with _lock(hc, namespace, "long", duration=2) as held:
        time.sleep(3.5)  # longer than the lease: only renewals keep it
        held.check()
        with pytest.raises(LockedError):
            _lock(hc, namespace, "impatient").acquire()
    with _lock(hc, namespace, "next"):
        pass


def test_lock_of_a_sigkilled_process_is_recovered_after_expiry(
        cluster: ClusterInfo, hc: live.LiveClient, namespace: str) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(cluster.kubeconfig), namespace, "x"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = child.stdout.readline() if child.stdout else ""
        assert line.startswith("locked "), child.stderr.read() if child.stderr else ""
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=CHILD_READY_TIMEOUT_S)
    killed_at = time.monotonic()
    with pytest.raises(LockedError) as caught:
        _lock(hc, namespace, "survivor").acquire()
    assert "another operation (install) is in progress" in str(caught.value)
    assert "held by child/x" in str(caught.value)
    deadline = killed_at + 30
    while True:
        try:
            held = _lock(hc, namespace, "survivor").acquire()
            break
        except LockedError:
            assert time.monotonic() < deadline, "the dead process's lock never expired"
            time.sleep(0.5)
    assert time.monotonic() - killed_at >= 1.0  # not before the 3 s lease ran out (less the renewals)
    lease = hc.get(held.ref)
    assert lease["spec"]["holderIdentity"] == "survivor"
    assert lease["spec"]["leaseTransitions"] == 1
    # Holding the lock, the next operation finds the dead one's version and fails it for good:
    # no version lost, none left pending.
    driver = secrets.SecretsDriver(hc)
    recovered = sdriver.recover_interrupted(driver, namespace, "web")
    assert [str(v.version) for v in recovered] == [line.split()[1]]
    assert [(v.status, v.description) for v in driver.history(namespace, "web")] == [
        (rel.Status.FAILED, "operation interrupted: pending-install never finished (its lock expired)")]
    held.release()
    assert hc.list("coordination.k8s.io/v1", "Lease", namespace=namespace) == []


def test_contender_whose_clock_runs_ahead_cannot_take_a_live_lock(
        hc: live.LiveClient, namespace: str) -> None:
    import datetime as dt

    def hour_ahead() -> dt.datetime:
        return dt.datetime.now(dt.timezone.utc) + dt.timedelta(hours=1)

    with _lock(hc, namespace, "honest", duration=30):
        skewed = slock.ReleaseLock(hc, namespace=namespace, release="web", operation="rollback",
                                   options=slock.LockOptions(duration_s=30, holder="skewed",
                                                             clock=hour_ahead))
        with pytest.raises(LockedError) as caught:
            skewed.acquire()
        assert "(held by honest, lock expires in " in str(caught.value)
    server_now = hc.server_time()
    assert abs((server_now - dt.datetime.now(dt.timezone.utc)).total_seconds()) < 5
