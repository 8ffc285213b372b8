"""Scaling out: replicas electing a leader on a Lease, and shards by label selector, as real
``helm-operator run`` processes; the one-step installs (``kubectl apply -k deploy/`` and the
chart ``charts/helm-operator`` through ``helm-core install``)."""
from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException

from e2e.conftest import ClusterInfo, Kubectl
from e2e.operator_kit import (ROOT, Controller, chart_tgz, get, ready_at, request, setup_namespace,
                              wait_for)
from e2e.test_operator_sources import Repo, make_repo
from helm_operator import leader

pytestmark = pytest.mark.e2e

__all__ = ["make_repo"]  # a fixture used below

TAKEOVER_TIMEOUT_S = 60.0
SHARD_KEY = "sharding.helm.sh/key"
CHART = chart_tgz({"Chart.yaml": "apiVersion: v2\nname: demo\nversion: 1.0.0\n",
                   "templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n"
                                        "  name: {{ .Release.Name }}\n"})


@pytest.fixture(scope="module")
def crds(kubectl: Kubectl) -> None:
    for crd in ("helmrequest.yaml", "release.yaml", "helmrepository.yaml"):
        kubectl("apply", "-f", str(ROOT / "manifests" / "crds" / crd))
    kubectl("wait", "--for=condition=Established", "crd/helmrequests.helm.sh", "crd/releases.helm.sh",
            "crd/helmrepositories.helm.sh", "--timeout=60s")


@pytest.fixture
def controllers(cluster: ClusterInfo, tmp_path: Path) -> Iterator[Any]:
    """Starts controllers (``start(name, *args)``) and stops every one at the end."""
    started: list[Controller] = []

    def start(name: str, *args: str) -> Controller:
        ctl = Controller(cluster, tmp_path / f"{name}.log", args)
        ctl.start()
        started.append(ctl)
        return ctl

    yield start
    for ctl in started:
        ctl.stop()


def holder(api: k8s.ApiClient, namespace: str, name: str = leader.lease_name("")) -> str | None:
    try:
        return k8s.CoordinationV1Api(api).read_namespaced_lease(name, namespace).spec.holder_identity
    except ApiException as exc:
        if exc.status == 404:
            return None
        raise


def wait_holder(api: k8s.ApiClient, namespace: str, want: set[str], timeout: float = TAKEOVER_TIMEOUT_S) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = holder(api, namespace)
        if found in want:
            return found
        time.sleep(0.2)
    raise AssertionError(f"Lease holder {holder(api, namespace)!r}, expected one of {sorted(want)}")


def versions_per_release(api: k8s.ApiClient, namespace: str) -> dict[str, int]:
    secrets = k8s.CoreV1Api(api).list_namespaced_secret(namespace, field_selector="type=helm.sh/release-version")
    return dict(Counter(s.metadata.labels["release"] for s in secrets.items))


def labelled_request(objects: k8s.CustomObjectsApi, namespace: str, name: str, shard: str | None) -> None:
    request(objects, namespace, name)
    if shard is not None:
        objects.patch_namespaced_custom_object("helm.sh", "v1alpha1", namespace, "helmrequests", name,
                                               {"metadata": {"labels": {SHARD_KEY: shard}}})


def untouched(obj: dict[str, Any]) -> bool:
    meta = obj["metadata"]
    return ("status" not in obj and not meta.get("finalizers")
            and not any(k.startswith("helm-operator.helm.sh") for k in meta.get("annotations") or {}))


def test_one_leader_reconciles_and_a_killed_leader_is_replaced(crds: None, controllers: Any,
                                                               api: k8s.ApiClient, namespace: str) -> None:
    objects = k8s.CustomObjectsApi(api)
    setup_namespace(api, namespace, chart=CHART)
    flags = ("-n", namespace, "--leader-elect", "--leader-election-namespace", namespace)
    replicas = {name: controllers(name, *flags, "--identity", name) for name in ("a", "b")}
    first = wait_holder(api, namespace, {"a", "b"})
    standby = "b" if first == "a" else "a"
    assert replicas[standby].readyz() == "ok (standby)\n" and replicas[first].readyz() == "ok\n"
    for i in range(3):
        request(objects, namespace, f"r{i}")
    for i in range(3):
        wait_for(objects, namespace, ready_at(1), name=f"r{i}")
    assert versions_per_release(api, namespace) == {"r0": 1, "r1": 1, "r2": 1}

    replicas[first].stop(signal.SIGKILL)
    request(objects, namespace, "after")
    wait_for(objects, namespace, ready_at(1), name="after", timeout=TAKEOVER_TIMEOUT_S)
    assert holder(api, namespace) == standby
    assert versions_per_release(api, namespace) == {"r0": 1, "r1": 1, "r2": 1, "after": 1}

    replicas[standby].stop(signal.SIGTERM)  # the leader hands over at once: no holder left
    assert replicas[standby].proc is not None and replicas[standby].proc.returncode == 0
    assert holder(api, namespace) is None


def test_shards_reconcile_only_their_requests(crds: None, controllers: Any, api: k8s.ApiClient,
                                              namespace: str) -> None:
    objects = k8s.CustomObjectsApi(api)
    setup_namespace(api, namespace, chart=CHART)
    for name, shard in (("one", "shard1"), ("two", "shard2"), ("other", "shard3"), ("plain", None)):
        labelled_request(objects, namespace, name, shard)
    controllers("shard1", "-n", namespace, "--selector", f"{SHARD_KEY}=shard1")
    wait_for(objects, namespace, ready_at(1), name="one")
    assert untouched(get(objects, namespace, "two")) and untouched(get(objects, namespace, "plain"))
    controllers("shard2", "-n", namespace, "--selector", f"{SHARD_KEY} in (shard2)")
    controllers("catch-all", "-n", namespace, "--selector", f"!{SHARD_KEY}")
    wait_for(objects, namespace, ready_at(1), name="two")
    wait_for(objects, namespace, ready_at(1), name="plain")
    assert untouched(get(objects, namespace, "other"))  # outside every selector
    assert versions_per_release(api, namespace) == {"one": 1, "two": 1, "plain": 1}


def test_a_shard_uses_any_repository_and_writes_the_status_of_its_own(
        crds: None, controllers: Any, api: k8s.ApiClient, namespace: str,
        make_repo: Callable[..., Repo]) -> None:
    """Repositories follow the shard key too: the shard whose selector matches a repository's
    labels owns it (status, Events); a request of another shard still gets its charts from it
    (its replica fetches the index for its own requests, and writes nothing on it)."""
    objects = k8s.CustomObjectsApi(api)
    repo = make_repo()
    repo.publish("1.0.0")
    setup_namespace(api, namespace, chart=None)
    for name, shard in (("own", "shard1"), ("foreign", "nobody")):
        objects.create_namespaced_custom_object("helm.sh", "v1alpha1", namespace, "helmrepositories", {
            "apiVersion": "helm.sh/v1alpha1", "kind": "HelmRepository",
            "metadata": {"name": name, "namespace": namespace, "labels": {SHARD_KEY: shard}},
            "spec": {"url": repo.url, "interval": "1m"}})
    for name in ("own", "foreign"):
        request(objects, namespace, f"from-{name}", chart={
            "repositoryRef": {"name": name, "chart": "web", "version": "^1.0"}})
        objects.patch_namespaced_custom_object("helm.sh", "v1alpha1", namespace, "helmrequests", f"from-{name}",
                                               {"metadata": {"labels": {SHARD_KEY: "shard1"}}})
    controllers("shard1", "-n", namespace, "--selector", f"{SHARD_KEY}=shard1")
    for name in ("own", "foreign"):
        obj = wait_for(objects, namespace, ready_at(1), name=f"from-{name}")
        assert obj["status"]["chartVersion"] == "1.0.0"

    def repository(name: str) -> dict[str, Any]:
        return objects.get_namespaced_custom_object("helm.sh", "v1alpha1", namespace, "helmrepositories", name)

    deadline = time.monotonic() + 30
    while not repository("own").get("status") and time.monotonic() < deadline:
        time.sleep(0.2)
    ready = [c for c in repository("own")["status"]["conditions"] if c["type"] == "Ready"]
    assert ready and ready[0]["status"] == "True"
    assert "status" not in repository("foreign")  # no shard owns it: nobody writes its status
    foreign_events = k8s.CoreV1Api(api).list_namespaced_event(
        namespace, field_selector="involvedObject.kind=HelmRepository,involvedObject.name=foreign").items
    assert foreign_events == []


def created_objects(kubectl: Kubectl, manifest: str) -> list[str]:
    """``kind/name`` of every object of ``manifest`` as the API server returns them (404s fail)."""
    return sorted(kubectl("get", "-f", "-", "-o", "name", stdin=manifest).stdout.split())


def expected_names(manifest: str) -> list[str]:
    docs = [d for d in yaml.safe_load_all(manifest) if d]
    return sorted(f"{d['kind'].lower()}.{d['apiVersion'].split('/')[0]}/{d['metadata']['name']}"
                  if "/" in d["apiVersion"] else f"{d['kind'].lower()}/{d['metadata']['name']}" for d in docs)


def test_kubectl_apply_k_deploy_creates_every_object(crds: None, kubectl: Kubectl) -> None:
    manifest = kubectl("kustomize", str(ROOT / "deploy")).stdout
    try:
        kubectl("apply", "-k", str(ROOT / "deploy"))
        assert created_objects(kubectl, manifest) == expected_names(manifest)
    finally:  # everything but the CRDs, which the other tests of the session use
        without_crds = "---\n".join(yaml.safe_dump(d) for d in yaml.safe_load_all(manifest)
                                    if d and d["kind"] != "CustomResourceDefinition")
        kubectl("delete", "-f", "-", "--wait=false", "--ignore-not-found", stdin=without_crds)


def helm_core(*args: str) -> str:
    result = subprocess.run([sys.executable, "-m", "helm_core", *args], capture_output=True, text=True,
                            cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.parametrize("mode", ["cluster", "namespaced"])
def test_helm_core_installs_the_chart(mode: str, crds: None, cluster: ClusterInfo, kubectl: Kubectl,
                                      namespace: str) -> None:
    chart = str(ROOT / "charts" / "helm-operator")
    values = ["--set", f"rbac.mode={mode}", "--set", f"watchNamespaces={{{namespace}}}",
              "--set", "shard.selector=sharding.helm.sh/key=shard1"]
    manifest = helm_core("template", f"op-{mode}", chart, "-n", namespace, *values)
    on_cluster = ("-n", namespace, "--kubeconfig", str(cluster.kubeconfig))
    helm_core("install", f"op-{mode}", chart, *on_cluster, *values)
    try:
        assert created_objects(kubectl, manifest) == expected_names(manifest)
    finally:
        helm_core("uninstall", f"op-{mode}", *on_cluster)
