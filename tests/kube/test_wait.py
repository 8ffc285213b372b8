"""Polling waits: ready, failed fast, timed out, deleted (clock and sleep are the test's)."""
from __future__ import annotations

from typing import Any

import pytest

from helm_core.errors import WaitCancelled, WaitError
from helm_core.kube import client as kclient
from helm_core.kube import fake
from helm_core.kube import wait as kwait


class Clock:
    """Fake time: ``sleep`` advances it and runs a hook (a controller acting meanwhile)."""

    def __init__(self, hook=None) -> None:
        self.now = 0.0
        self.sleeps = 0
        self.hook = hook

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds
        self.sleeps += 1
        if self.hook:
            self.hook(self.sleeps)


def _deployment(name: str, ready: int, want: int = 1) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": "ns"}, "spec": {"replicas": want},
            "status": {"replicas": want, "updatedReplicas": want, "readyReplicas": ready,
                       "availableReplicas": ready}}


def _options(clock: Clock, timeout: float = 5.0) -> kwait.WaitOptions:
    return kwait.WaitOptions(timeout_s=timeout, poll_s=1.0, clock=clock, sleep=clock.sleep)


def test_wait_ready_returns_once_a_controller_makes_objects_ready():
    client = fake.FakeCluster().client()
    client.create(_deployment("web", ready=0))

    def controller(sleeps: int) -> None:
        if sleeps == 2:
            client.apply(_deployment("web", ready=1))

    clock = Clock(controller)
    kwait.wait_ready(client, [kclient.ObjectRef("apps/v1", "Deployment", "web", "ns")],
                     options=_options(clock))
    assert clock.sleeps == 2


def test_wait_ready_waits_for_objects_not_created_yet():
    client = fake.FakeCluster().client()
    clock = Clock(lambda sleeps: client.create(_deployment("late", ready=1)) if sleeps == 1 else None)
    kwait.wait_ready(client, [kclient.ObjectRef("apps/v1", "Deployment", "late", "ns")],
                     options=_options(clock))
    assert clock.sleeps == 1


def test_wait_ready_times_out_listing_what_is_not_ready():
    client = fake.FakeCluster().client()
    client.create(_deployment("web", ready=1, want=3))
    clock = Clock()
    refs = [kclient.ObjectRef("apps/v1", "Deployment", "web", "ns"),
            kclient.ObjectRef("v1", "Service", "missing", "ns")]
    with pytest.raises(WaitError) as caught:
        kwait.wait_ready(client, refs, options=_options(clock, timeout=3))
    assert str(caught.value) == (
        'timed out after 3s waiting for 2 object(s) to be ready: Deployment "web" in namespace '
        '"ns": Ready: 1/3; Service "missing" in namespace "ns": not found')
    assert caught.value.timed_out is True
    assert clock.now == 3.0


def test_wait_ready_stops_at_once_when_an_object_failed():
    client = fake.FakeCluster().client()
    client.create({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "ok", "namespace": "ns"}})
    client.cluster.resources += (kclient.ApiResource("batch/v1", "Job", "jobs", True),)
    client.create({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "hook", "namespace": "ns"},
                   "status": {"conditions": [{"type": "Failed", "status": "True",
                                              "reason": "BackoffLimitExceeded"}]}})
    clock = Clock()
    with pytest.raises(WaitError) as caught:
        kwait.wait_ready(client, [kclient.ObjectRef("v1", "Service", "ok", "ns"),
                                  kclient.ObjectRef("batch/v1", "Job", "hook", "ns")],
                         options=_options(clock))
    assert str(caught.value) == 'Job "hook" in namespace "ns" failed: Job failed: BackoffLimitExceeded'
    assert caught.value.timed_out is False
    assert clock.sleeps == 0


def test_wait_deleted_returns_when_objects_are_gone():
    client = fake.FakeCluster().client()
    client.create(_deployment("web", ready=1))
    ref = kclient.ObjectRef("apps/v1", "Deployment", "web", "ns")
    clock = Clock(lambda sleeps: client.delete(ref) if sleeps == 3 else None)
    kwait.wait_deleted(client, [ref], options=_options(clock))
    assert clock.sleeps == 3


def test_wait_deleted_times_out_naming_survivors():
    client = fake.FakeCluster().client()
    client.create(_deployment("web", ready=1))
    clock = Clock()
    with pytest.raises(WaitError) as caught:
        kwait.wait_deleted(client, [kclient.ObjectRef("apps/v1", "Deployment", "web", "ns")],
                           options=_options(clock, timeout=2))
    assert str(caught.value) == ('timed out after 2s waiting for deletion of Deployment "web" in '
                                 'namespace "ns"')


class CountingClient(fake.FakeClient):
    """Counts the reads a wait makes."""

    def __init__(self, cluster: fake.FakeCluster) -> None:
        super().__init__(cluster)
        self.gets = 0
        self.lists = 0

    def get(self, ref):
        self.gets += 1
        return super().get(ref)

    def list(self, *args, **kwargs):
        self.lists += 1
        return super().list(*args, **kwargs)


def test_check_all_lists_large_groups_and_gets_the_rest():
    client = CountingClient(fake.FakeCluster())
    for i in range(4):
        client.create(_deployment(f"web-{i}", ready=1))
    client.create({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc", "namespace": "ns"}})
    refs = [kclient.ObjectRef("apps/v1", "Deployment", f"web-{i}", "ns") for i in range(5)]
    refs.append(kclient.ObjectRef("v1", "Service", "svc", "ns"))
    states = kwait.check_all(client, refs)
    assert list(states) == refs
    assert [s.state.value for s in states.values()] == ["Current"] * 4 + ["NotFound", "Current"]
    assert (client.lists, client.gets) == (1, 1)


def test_objects_seen_as_the_apply_returned_them_are_read_only_when_not_ready_then():
    """The first poll rates what the apply returned: a ConfigMap ready as written costs no
    read; a Deployment not ready yet is read from the next poll on."""
    client = CountingClient(fake.FakeCluster())
    config_map = client.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "ns"}})
    starting = client.create(_deployment("web", ready=0))
    client.apply(_deployment("web", ready=1))  # ready by the next poll
    clock = Clock()
    refs = [kclient.ObjectRef.of(config_map), kclient.ObjectRef.of(starting)]
    kwait.wait_ready(client, refs, seen=[config_map, starting], options=_options(clock))
    assert (client.gets, clock.sleeps) == (1, 1)  # the Deployment, once, after one poll
    client.gets = 0
    kwait.wait_ready(client, refs[:1], seen=[config_map], options=_options(Clock()))
    assert client.gets == 0


class Cancel:
    """A cancellation hook giving ``reason`` from the ``after``-th question on."""

    def __init__(self, after: int, reason: str = "superseded by generation 2") -> None:
        self.asked = 0
        self.after = after
        self.reason = reason

    def __call__(self) -> str:
        self.asked += 1
        return self.reason if self.asked >= self.after else ""


def test_wait_ready_stops_between_polls_once_cancelled_naming_reason_and_pending():
    client = fake.FakeCluster().client()
    client.create(_deployment("web", ready=0))
    clock, cancel = Clock(), Cancel(after=3)
    options = kwait.WaitOptions(timeout_s=300, poll_s=1.0, clock=clock, sleep=clock.sleep,
                                cancelled=cancel)
    with pytest.raises(WaitCancelled) as caught:
        kwait.wait_ready(client, [kclient.ObjectRef("apps/v1", "Deployment", "web", "ns")],
                         options=options)
    assert isinstance(caught.value, WaitError) and caught.value.timed_out is False
    assert caught.value.reason == "superseded by generation 2"
    assert str(caught.value) == ('wait cancelled (superseded by generation 2) while waiting for '
                                 '1 object(s) to be ready: Deployment "web" in namespace "ns": '
                                 'Ready: 0/1')
    assert (cancel.asked, clock.sleeps, clock.now) == (3, 2, 2.0)  # long before the 300 s


def test_a_wait_whose_objects_are_ready_is_not_cancelled():
    client = fake.FakeCluster().client()
    client.create(_deployment("web", ready=0))
    ref = kclient.ObjectRef("apps/v1", "Deployment", "web", "ns")
    clock = Clock(lambda sleeps: client.apply(_deployment("web", ready=1)))
    cancel = Cancel(after=2)  # would cancel at the second question, after the object is ready
    kwait.wait_ready(client, [ref], options=kwait.WaitOptions(
        timeout_s=10, poll_s=1.0, clock=clock, sleep=clock.sleep, cancelled=cancel))
    assert (cancel.asked, clock.sleeps) == (1, 1)


def test_wait_deleted_stops_once_cancelled():
    client = fake.FakeCluster().client()
    client.create(_deployment("web", ready=1))
    clock = Clock()
    with pytest.raises(WaitCancelled, match=r'^wait cancelled \(stop\) while waiting for deletion '
                                            r'of Deployment "web" in namespace "ns"$'):
        kwait.wait_deleted(client, [kclient.ObjectRef("apps/v1", "Deployment", "web", "ns")],
                           options=kwait.WaitOptions(timeout_s=60, poll_s=1.0, clock=clock,
                                                     sleep=clock.sleep,
                                                     cancelled=Cancel(after=1, reason="stop")))
    assert clock.sleeps == 0


def test_the_default_hook_never_cancels():
    assert kwait.WaitOptions().cancelled() == ""


def _job(name: str, status: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "namespace": "ns"},
            "status": status}


@pytest.mark.parametrize("count", [1, kwait.LIST_THRESHOLD], ids=["get", "list"])
def test_without_wait_for_jobs_a_started_job_is_ready_and_with_it_only_a_complete_one(count):
    """helm's --wait-for-jobs: without it (Flux's disableWaitForJobs) the wait ends once the
    Jobs started; with it, once they completed. Read by GET or, several at once, by LIST."""
    client = fake.FakeCluster().client()
    client.cluster.resources += (kclient.ApiResource("batch/v1", "Job", "jobs", True),)
    names = [f"job-{i}" for i in range(count)]
    for name in names:
        client.create(_job(name, {}))
    refs = [kclient.ObjectRef("batch/v1", "Job", name, "ns") for name in names]

    def job_controller(sleeps: int) -> None:
        status = {"startTime": "2026-01-01T00:00:00Z", "active": 1}
        if sleeps >= 3:
            status = {**status, "active": 0, "succeeded": 1,
                      "conditions": [{"type": "Complete", "status": "True"}]}
        for name in names:
            client.replace(_job(name, status), subresource="status")

    started = Clock(job_controller)
    kwait.wait_ready(client, refs, options=kwait.WaitOptions(
        timeout_s=10, poll_s=1.0, clock=started, sleep=started.sleep, wait_for_jobs=False))
    assert started.sleeps == 1
    complete = Clock(job_controller)
    kwait.wait_ready(client, refs, options=kwait.WaitOptions(
        timeout_s=10, poll_s=1.0, clock=complete, sleep=complete.sleep, wait_for_jobs=True))
    assert complete.sleeps == 3
