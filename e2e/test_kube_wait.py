"""Readiness waits against real controllers and kwok nodes."""
from __future__ import annotations

from typing import Any

import pytest

from e2e.conftest import ClusterInfo
from helm_core.errors import WaitError
from helm_core.kube import client as kclient
from helm_core.kube import live
from helm_core.kube import readiness as kready
from helm_core.kube import wait as kwait

pytestmark = pytest.mark.e2e

WAIT = kwait.WaitOptions(timeout_s=90, poll_s=0.25)


@pytest.fixture(scope="module")
def hc(cluster: ClusterInfo) -> live.LiveClient:
    return live.connect(live.LiveOptions(kubeconfig=str(cluster.kubeconfig)))


def _pod_spec(**extra: Any) -> dict[str, Any]:
    return {"containers": [{"name": "app", "image": "registry.example/app:1.0",
                            "resources": {"requests": {"cpu": "100m"}}}], **extra}


def _deployment(namespace: str, name: str = "web", replicas: int = 3, **pod: Any) -> dict[str, Any]:
    labels = {"app": name}
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"replicas": replicas, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels}, "spec": _pod_spec(**pod)}}}


def test_deployment_on_kwok_nodes_is_waited_until_available(hc: live.LiveClient, namespace: str) -> None:
    ref = kclient.ObjectRef.of(hc.apply(_deployment(namespace)))
    assert kwait.check(hc, ref).state is kready.State.IN_PROGRESS
    kwait.wait_ready(hc, [ref], options=WAIT)
    status = hc.get(ref)["status"]
    assert (status["readyReplicas"], status["availableReplicas"]) == (3, 3)
    pods = hc.list("v1", "Pod", namespace=namespace, label_selector="app=web")
    assert len(pods) == 3 and all(p["spec"]["nodeName"].startswith("kwok-") for p in pods)


def test_statefulset_daemonset_job_pvc_and_load_balancer_are_waited(
        hc: live.LiveClient, namespace: str) -> None:
    labels = {"app": "db"}
    objects = [
        {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db", "namespace": namespace},
         "spec": {"serviceName": "db", "replicas": 2, "selector": {"matchLabels": labels},
                  "template": {"metadata": {"labels": labels}, "spec": _pod_spec()}}},
        {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": namespace},
         "spec": {"selector": {"matchLabels": {"app": "agent"}},
                  "template": {"metadata": {"labels": {"app": "agent"}}, "spec": _pod_spec()}}},
        {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "migrate", "namespace": namespace},
         "spec": {"template": {"spec": _pod_spec(restartPolicy="Never")}}},
        {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": namespace},
         "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}},
        {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "edge", "namespace": namespace},
         "spec": {"type": "LoadBalancer", "selector": labels, "ports": [{"port": 80}]}},
    ]
    refs = [kclient.ObjectRef.of(hc.apply(obj)) for obj in objects]
    kwait.wait_ready(hc, refs, options=WAIT)
    states = {ref.kind: kwait.check(hc, ref) for ref in refs}
    assert {kind: s.state for kind, s in states.items()} == dict.fromkeys(states, kready.State.CURRENT)
    assert states["Job"].message == "Job Completed"
    assert states["PersistentVolumeClaim"].message == "PVC is Bound"


def test_unschedulable_deployment_times_out_with_its_state(hc: live.LiveClient, namespace: str) -> None:
    obj = _deployment(namespace, name="stuck", replicas=2, nodeSelector={"no-such": "node"})
    ref = kclient.ObjectRef.of(hc.apply(obj))
    with pytest.raises(WaitError) as caught:
        kwait.wait_ready(hc, [ref], options=kwait.WaitOptions(timeout_s=3, poll_s=0.5))
    assert caught.value.timed_out is True
    assert str(caught.value) in {
        f'timed out after 3s waiting for 1 object(s) to be ready: Deployment "stuck" in '
        f'namespace "{namespace}": {progress}' for progress in ("Ready: 0/2", "Updated: 0/2")}


def test_wait_deleted_follows_real_deletion(hc: live.LiveClient, namespace: str) -> None:
    ref = kclient.ObjectRef.of(hc.apply(_deployment(namespace, name="gone", replicas=1)))
    hc.delete(ref, propagation=kclient.Propagation.FOREGROUND)
    kwait.wait_deleted(hc, [ref], options=WAIT)
    assert kwait.check(hc, ref).state is kready.State.NOT_FOUND
