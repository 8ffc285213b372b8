"""What a fresh control plane needs before real charts become ready on it.

Rules:
- Fake nodes look like real ones to charts and schedulers: ``kubernetes.io/os=linux``,
  ``kubernetes.io/arch``, ``kubernetes.io/hostname``, zone/region and instance-type labels,
  generous capacity, a kubelet version; kwok (selected by annotation) makes them Ready and runs
  the pods bound to them.
- One default StorageClass (``standard``, immediate binding). Nothing in a kwok cluster provisions
  volumes, so ``Provisioner`` makes one hostPath PersistentVolume per pending claim of that class
  (pre-bound through ``claimRef``; the controller-manager's binder finishes the binding) and
  deletes released volumes, which is what lets StatefulSets with volume claims become ready.
- Nothing implements Services of type LoadBalancer either; ``LoadBalancers`` gives each one an
  ingress address from TEST-NET-1 (192.0.2.0/24), as MetalLB or cloud-provider-kind would, so
  ``helm install --wait`` of charts exposing one (ingress-nginx) completes.
- ``wait_usable`` returns once nodes are Ready and the ``default`` ServiceAccount exists: before
  that, pods in the ``default`` namespace are refused.
"""
from __future__ import annotations

import time
from collections.abc import Callable

from kubernetes import client as k8s
from kubernetes.client.rest import ApiException

from e2e.cluster import tools

NODE_COUNT = 3
NODE_PREFIX = "kwok-node-"
NODE_CAPACITY = {"cpu": "32", "memory": "128Gi", "pods": "110", "ephemeral-storage": "200Gi"}
STORAGE_CLASS = "standard"
PROVISIONER = "e2e.helm-controller.io/hostpath"
VOLUME_ROOT = "/var/lib/e2e-volumes"
"""hostPath prefix recorded in the fake volumes; nothing is ever written there."""
USABLE_TIMEOUT_S = 60.0
POLL_S = 0.2


def node_manifest(index: int) -> dict[str, object]:
    """The Node object for fake node ``index`` (zones alternate between a and b)."""
    name = f"{NODE_PREFIX}{index}"
    zone = "e2e-a" if index % 2 == 0 else "e2e-b"
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "annotations": {
                "kwok.x-k8s.io/node": "fake",
                "node.alpha.kubernetes.io/ttl": "0",
            },
            "labels": {
                "kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64",
                "kubernetes.io/hostname": name,
                "beta.kubernetes.io/os": "linux",
                "beta.kubernetes.io/arch": "amd64",
                "node.kubernetes.io/instance-type": "kwok",
                "topology.kubernetes.io/region": "e2e",
                "topology.kubernetes.io/zone": zone,
                "type": "kwok",
            },
        },
        "spec": {},
        "status": {
            "capacity": dict(NODE_CAPACITY),
            "allocatable": dict(NODE_CAPACITY),
            "nodeInfo": {
                "architecture": "amd64",
                "operatingSystem": "linux",
                "kubeletVersion": tools.KUBE_VERSION,
                "kubeProxyVersion": tools.KUBE_VERSION,
                "containerRuntimeVersion": f"kwok://{tools.KWOK_VERSION}",
                "kernelVersion": "6.0.0-kwok",
                "osImage": "kwok",
                "machineID": "",
                "systemUUID": "",
                "bootID": "",
            },
        },
    }


def storage_class_manifest() -> dict[str, object]:
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {
            "name": STORAGE_CLASS,
            "annotations": {"storageclass.kubernetes.io/is-default-class": "true"},
        },
        "provisioner": PROVISIONER,
        "reclaimPolicy": "Delete",
        "volumeBindingMode": "Immediate",
        "allowVolumeExpansion": True,
    }


def seed(api: k8s.ApiClient, node_count: int = NODE_COUNT) -> None:
    """Create the fake nodes and the default StorageClass; existing ones are left as they are."""
    core = k8s.CoreV1Api(api)
    for index in range(node_count):
        _create_ignoring_conflict(lambda i=index: core.create_node(node_manifest(i)))
    storage = k8s.StorageV1Api(api)
    _create_ignoring_conflict(lambda: storage.create_storage_class(storage_class_manifest()))


def wait_usable(api: k8s.ApiClient, node_count: int = NODE_COUNT,
                alive: Callable[[], None] = lambda: None) -> dict[str, float]:
    """Block until ``node_count`` nodes are Ready and ``default/default`` ServiceAccount exists.

    ``alive`` is called each round so a crashed component fails fast instead of timing out.
    Returns the seconds each part took: ``nodes`` and ``default-serviceaccount``.
    """
    core = k8s.CoreV1Api(api)
    began = time.monotonic()
    deadline = began + USABLE_TIMEOUT_S
    missing = "nodes"
    timings: dict[str, float] = {}
    while time.monotonic() < deadline:
        alive()
        ready = [node for node in core.list_node().items if _node_ready(node)]
        if len(ready) >= node_count:
            timings.setdefault("nodes", round(time.monotonic() - began, 2))
            try:
                core.read_namespaced_service_account("default", "default")
                timings["default-serviceaccount"] = round(time.monotonic() - began, 2)
                return timings
            except ApiException as exc:
                if exc.status != 404:
                    raise
                missing = "the default ServiceAccount"
        else:
            missing = f"Ready nodes ({len(ready)}/{node_count})"
        time.sleep(POLL_S)
    raise TimeoutError(f"cluster not usable after {USABLE_TIMEOUT_S:.0f}s: waiting for {missing}")


def _node_ready(node: k8s.V1Node) -> bool:
    conditions = (node.status.conditions or []) if node.status else []
    return any(c.type == "Ready" and c.status == "True" for c in conditions)


def _create_ignoring_conflict(create: Callable[[], object]) -> None:
    try:
        create()
    except ApiException as exc:
        if exc.status != 409:
            raise


class Provisioner:
    """Binds claims of the default class to fresh hostPath volumes; call ``sync`` periodically."""

    def __init__(self, api: k8s.ApiClient) -> None:
        self._core = k8s.CoreV1Api(api)

    def sync(self) -> int:
        """One pass: provision pending claims, delete released volumes. Returns volumes made."""
        volumes = self._core.list_persistent_volume().items
        claimed = {v.spec.claim_ref.uid for v in volumes if v.spec.claim_ref}
        made = 0
        for claim in self._core.list_persistent_volume_claim_for_all_namespaces().items:
            if (claim.status.phase == "Pending" and not claim.spec.volume_name
                    and claim.spec.storage_class_name == STORAGE_CLASS
                    and claim.metadata.deletion_timestamp is None
                    and claim.metadata.uid not in claimed):
                _create_ignoring_conflict(
                    lambda c=claim: self._core.create_persistent_volume(volume_for(c)))
                made += 1
        for volume in volumes:
            if (volume.status.phase == "Released"
                    and volume.spec.storage_class_name == STORAGE_CLASS
                    and volume.spec.persistent_volume_reclaim_policy == "Delete"):
                try:
                    self._core.delete_persistent_volume(volume.metadata.name)
                except ApiException as exc:
                    if exc.status != 404:
                        raise
        return made


def volume_for(claim: k8s.V1PersistentVolumeClaim) -> dict[str, object]:
    """A PersistentVolume pre-bound to ``claim`` with the size and access modes it asks for."""
    name = f"pvc-{claim.metadata.uid}"
    requests = (claim.spec.resources.requests or {}) if claim.spec.resources else {}
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {
            "name": name,
            "annotations": {"pv.kubernetes.io/provisioned-by": PROVISIONER},
        },
        "spec": {
            "capacity": {"storage": requests.get("storage", "1Gi")},
            "accessModes": list(claim.spec.access_modes or ["ReadWriteOnce"]),
            "persistentVolumeReclaimPolicy": "Delete",
            "storageClassName": STORAGE_CLASS,
            "volumeMode": claim.spec.volume_mode or "Filesystem",
            "hostPath": {"path": f"{VOLUME_ROOT}/{name}", "type": "DirectoryOrCreate"},
            "claimRef": {
                "apiVersion": "v1",
                "kind": "PersistentVolumeClaim",
                "namespace": claim.metadata.namespace,
                "name": claim.metadata.name,
                "uid": claim.metadata.uid,
            },
        },
    }


LOAD_BALANCER_NET = "192.0.2."
"""TEST-NET-1 (RFC 5737): never routed, so a fake address cannot reach anything real."""


class LoadBalancers:
    """Publishes an ingress IP for Services of type LoadBalancer; call ``sync`` periodically."""

    def __init__(self, api: k8s.ApiClient) -> None:
        self._core = k8s.CoreV1Api(api)

    def sync(self) -> int:
        """One pass over all Services; returns how many got an address."""
        services = self._core.list_service_for_all_namespaces().items
        used = {ingress.ip for svc in services if svc.status and svc.status.load_balancer
                for ingress in (svc.status.load_balancer.ingress or []) if ingress.ip}
        free = (f"{LOAD_BALANCER_NET}{n}" for n in range(1, 255)
                if f"{LOAD_BALANCER_NET}{n}" not in used)
        published = 0
        for svc in services:
            if svc.spec.type != "LoadBalancer" or (
                    svc.status and svc.status.load_balancer and svc.status.load_balancer.ingress):
                continue
            address = next(free, None)
            if address is None:
                break
            try:
                self._core.patch_namespaced_service_status(
                    svc.metadata.name, svc.metadata.namespace,
                    {"status": {"loadBalancer": {"ingress": [{"ip": address}]}}})
                published += 1
            except ApiException as exc:
                if exc.status != 404:
                    raise
        return published
