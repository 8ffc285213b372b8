"""Workloads really run on the kwok nodes: scheduling, readiness, volumes, jobs, load balancers."""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from kubernetes import client as k8s

from e2e.cluster import bootstrap

pytestmark = pytest.mark.e2e

READY_TIMEOUT_S = 60.0
LABELS = {"app": "web"}


def wait_for(check: Callable[[], Any], what: str, timeout_s: float = READY_TIMEOUT_S) -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        result = check()
        if result:
            return result
        time.sleep(0.2)
    raise AssertionError(f"{what} not reached after {timeout_s:.0f}s")


def pod_template() -> dict[str, Any]:
    return {
        "metadata": {"labels": LABELS},
        "spec": {"containers": [{
            "name": "web", "image": "registry.example/web:1.0",
            "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}},
            "readinessProbe": {"httpGet": {"path": "/", "port": 8080}},
        }]},
    }


def condition(obj: Any, kind: str) -> str | None:
    for item in (obj.status.conditions or []) if obj.status else []:
        if item.type == kind:
            return str(item.status)
    return None


def test_nodes_look_like_real_linux_nodes(api: k8s.ApiClient) -> None:
    nodes = k8s.CoreV1Api(api).list_node().items
    fake = [n for n in nodes if n.metadata.name.startswith(bootstrap.NODE_PREFIX)]
    assert len(fake) == bootstrap.NODE_COUNT
    for node in fake:
        labels = node.metadata.labels
        assert labels["kubernetes.io/os"] == "linux"
        assert labels["kubernetes.io/arch"] == "amd64"
        assert labels["kubernetes.io/hostname"] == node.metadata.name
        assert node.status.allocatable["cpu"] == "32"
        assert condition(node, "Ready") == "True"


def test_deployment_is_scheduled_onto_kwok_nodes_and_becomes_available(
        api: k8s.ApiClient, namespace: str) -> None:
    apps = k8s.AppsV1Api(api)
    apps.create_namespaced_deployment(namespace, {
        "metadata": {"name": "web"},
        "spec": {"replicas": 2, "selector": {"matchLabels": LABELS}, "template": pod_template()},
    })
    deployment = wait_for(
        lambda: (d := apps.read_namespaced_deployment("web", namespace)) and
        condition(d, "Available") == "True" and d.status.ready_replicas == 2 and d,
        "Deployment Available")
    assert deployment.status.available_replicas == 2
    pods = k8s.CoreV1Api(api).list_namespaced_pod(namespace, label_selector="app=web").items
    assert len(pods) == 2
    for pod in pods:
        assert pod.spec.node_name.startswith(bootstrap.NODE_PREFIX)
        assert pod.status.phase == "Running"
        assert pod.status.pod_ip


def test_statefulset_with_volume_claims_gets_bound_volumes_and_becomes_ready(
        api: k8s.ApiClient, namespace: str) -> None:
    apps = k8s.AppsV1Api(api)
    core = k8s.CoreV1Api(api)
    core.create_namespaced_service(namespace, {
        "metadata": {"name": "db"},
        "spec": {"clusterIP": "None", "selector": LABELS, "ports": [{"port": 5432}]},
    })
    apps.create_namespaced_stateful_set(namespace, {
        "metadata": {"name": "db"},
        "spec": {
            "serviceName": "db", "replicas": 2, "selector": {"matchLabels": LABELS},
            "template": pod_template(),
            "volumeClaimTemplates": [{
                "metadata": {"name": "data"},
                "spec": {"accessModes": ["ReadWriteOnce"],
                         "resources": {"requests": {"storage": "2Gi"}}},
            }],
        },
    })
    wait_for(lambda: apps.read_namespaced_stateful_set("db", namespace).status.ready_replicas == 2,
             "StatefulSet ready")
    claims = core.list_namespaced_persistent_volume_claim(namespace).items
    assert sorted(c.metadata.name for c in claims) == ["data-db-0", "data-db-1"]
    for claim in claims:
        assert claim.status.phase == "Bound"
        assert claim.spec.storage_class_name == bootstrap.STORAGE_CLASS
        volume = core.read_persistent_volume(claim.spec.volume_name)
        assert volume.spec.capacity["storage"] == "2Gi"


def test_job_pods_complete(api: k8s.ApiClient, namespace: str) -> None:
    batch = k8s.BatchV1Api(api)
    batch.create_namespaced_job(namespace, {
        "metadata": {"name": "once"},
        "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [
            {"name": "once", "image": "registry.example/once:1.0"}]}}},
    })
    job = wait_for(lambda: (j := batch.read_namespaced_job("once", namespace)) and
                   condition(j, "Complete") == "True" and j, "Job Complete")
    assert job.status.succeeded == 1


def test_daemonset_runs_one_pod_per_node(api: k8s.ApiClient, namespace: str) -> None:
    apps = k8s.AppsV1Api(api)
    apps.create_namespaced_daemon_set(namespace, {
        "metadata": {"name": "agent"},
        "spec": {"selector": {"matchLabels": LABELS}, "template": pod_template()},
    })
    wait_for(lambda: (s := apps.read_namespaced_daemon_set("agent", namespace).status)
             and s.desired_number_scheduled == bootstrap.NODE_COUNT
             and s.number_ready == bootstrap.NODE_COUNT, "DaemonSet ready on every node")


def test_load_balancer_service_gets_an_ingress_address(api: k8s.ApiClient, namespace: str) -> None:
    core = k8s.CoreV1Api(api)
    core.create_namespaced_service(namespace, {
        "metadata": {"name": "edge"},
        "spec": {"type": "LoadBalancer", "selector": LABELS, "ports": [{"port": 80}]},
    })
    service = wait_for(lambda: (s := core.read_namespaced_service("edge", namespace))
                       .status.load_balancer.ingress and s, "LoadBalancer ingress")
    assert service.status.load_balancer.ingress[0].ip.startswith(bootstrap.LOAD_BALANCER_NET)


def test_deleting_a_claim_releases_and_deletes_its_volume(
        api: k8s.ApiClient, namespace: str) -> None:
    core = k8s.CoreV1Api(api)
    core.create_namespaced_persistent_volume_claim(namespace, {
        "metadata": {"name": "scratch"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    })
    claim = wait_for(lambda: (c := core.read_namespaced_persistent_volume_claim(
        "scratch", namespace)).status.phase == "Bound" and c, "claim Bound")
    core.delete_namespaced_persistent_volume_claim("scratch", namespace)
    wait_for(lambda: claim.spec.volume_name not in {
        v.metadata.name for v in core.list_persistent_volume().items}, "volume deleted")
