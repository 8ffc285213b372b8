"""``spec.dependsOn`` on the real control plane, as Flux's helm-controller orders installs: a
request waits (Ready False, DependencyNotReady) until its dependencies are Ready, looking
again every ``--requeue-dependency``; a missing dependency says so; a cycle waits for good
without a hot loop."""
from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from kubernetes import client as k8s

from e2e import operator_kit
from e2e.conftest import ClusterInfo, Kubectl
from e2e.operator_kit import (
    Controller,
    condition,
    get,
    hello_tgz,
    objects,
    patch_spec,
    ready_at,
    setup_namespace,
    version_secrets,
    wait_for,
)

pytestmark = pytest.mark.e2e

__all__ = ["objects"]  # fixtures used by the tests below

SHARD = {"e2e.helm.sh/module": "depends-on"}
REQUEUE = "2s"


def request(objects: k8s.CustomObjectsApi, namespace: str, name: str, **spec: Any) -> None:
    operator_kit.request(objects, namespace, name, meta_labels=SHARD, **spec)


@pytest.fixture(scope="module")
def ctl(cluster: ClusterInfo, kubectl: Kubectl, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Controller]:
    controller = operator_kit.shard_controller(
        cluster, kubectl, tmp_path_factory.mktemp("depends-on") / "controller.log", SHARD,
        "--requeue-dependency", REQUEUE)
    yield controller
    controller.stop()


def waiting(obj: dict[str, Any]) -> bool:
    return (condition(obj, "Ready") or {}).get("reason") == "DependencyNotReady"


def looks(ctl: Controller, namespace: str, name: str) -> int:
    """Dependency checks of ``namespace/name`` that found one not Ready (the controller's log)."""
    return ctl.log.read_text().count(f"{namespace}/{name}: dependencies do not meet ready condition")


def our_events(kubectl: Kubectl, namespace: str, name: str) -> list[tuple[str, str, str]]:
    items = json.loads(kubectl("get", "events", "-n", namespace, "-o", "json").stdout)["items"]
    return [(e["type"], e["reason"], e["message"]) for e in items
            if e["involvedObject"]["kind"] == "HelmRequest" and e["involvedObject"]["name"] == name]


def test_a_request_waits_for_its_dependency_then_installs_within_the_requeue_interval(
        ctl: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, kubectl: Kubectl,
        namespace: str) -> None:
    setup_namespace(api, namespace, chart=hello_tgz())
    request(objects, namespace, "db", suspend=True)  # there, not Ready
    request(objects, namespace, "app", dependsOn=[{"name": "db"}])
    obj = wait_for(objects, namespace, waiting, name="app")
    assert condition(obj, "Ready")["status"] == "False"
    assert condition(obj, "Ready")["message"] == f"dependency '{namespace}/db' is not ready"
    assert condition(obj, "Reconciling")["reason"] == "Progressing"
    assert condition(obj, "Reconciling")["message"] == "Fulfilling prerequisites"
    assert condition(obj, "Stalled") is None
    assert "observedGeneration" not in obj["status"]
    # a look more (logged before its status write): still waiting, nothing installed, no failure counted
    deadline = time.monotonic() + 60
    while looks(ctl, namespace, "app") < 2:
        assert time.monotonic() < deadline, "the dependency was looked at once only"
        time.sleep(0.3)
    obj = get(objects, namespace, "app")
    assert waiting(obj) and not obj["status"].get("failures") and version_secrets(api, namespace) == []

    patch_spec(objects, namespace, "db", {"suspend": False})
    db = wait_for(objects, namespace, ready_at(2), name="db")
    app = wait_for(objects, namespace, ready_at(1), name="app", timeout=30)
    assert condition(app, "Ready")["reason"] == "InstallSucceeded"
    # installed after the dependency was Ready
    assert condition(app, "Ready")["lastTransitionTime"] >= condition(db, "Ready")["lastTransitionTime"]
    assert ("Normal", "DependencyNotReady", f"dependency '{namespace}/db' is not ready") in \
        our_events(kubectl, namespace, "app")


def test_a_missing_dependency_is_told_in_flux_s_words(
        ctl: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str) -> None:
    setup_namespace(api, namespace, chart=hello_tgz())
    request(objects, namespace, "app", dependsOn=[{"name": "gone", "namespace": "nowhere"}])
    obj = wait_for(objects, namespace, waiting, name="app")
    assert condition(obj, "Ready")["message"] == (
        "unable to get 'nowhere/gone' dependency: helmrequests.helm.sh \"gone\" not found")
    assert version_secrets(api, namespace) == []


def test_a_cycle_waits_for_good_looking_once_per_requeue_interval(
        ctl: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str) -> None:
    setup_namespace(api, namespace, chart=hello_tgz())
    request(objects, namespace, "a", dependsOn=[{"name": "b"}])
    request(objects, namespace, "b", dependsOn=[{"name": "a"}])
    request(objects, namespace, "self", dependsOn=[{"name": "self"}])
    for name in ("a", "b", "self"):
        wait_for(objects, namespace, waiting, name=name)
    before = {name: looks(ctl, namespace, name) for name in ("a", "b", "self")}
    time.sleep(10)
    for name in ("a", "b", "self"):
        more = looks(ctl, namespace, name) - before[name]
        # every 2s: about 5 looks in 10s; a hot loop would make hundreds
        assert 1 <= more <= 15, (name, more)
        assert waiting(get(objects, namespace, name))
    assert version_secrets(api, namespace) == []


def test_an_install_failing_right_after_the_wait_retries_with_backoff(
        ctl: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str) -> None:
    """The check that ends the wait makes the first try of the generation: its failure (a
    valuesFrom ConfigMap missing) is retried as any failed install is, with backoff (5 s, then
    10 s: Reconciling ProgressingWithRetry), not once per ``spec.interval`` (10m here)."""
    setup_namespace(api, namespace, chart=hello_tgz())
    request(objects, namespace, "db", suspend=True)
    request(objects, namespace, "app", dependsOn=[{"name": "db"}],
            valuesFrom=[{"kind": "ConfigMap", "name": "late"}])
    wait_for(objects, namespace, waiting, name="app")
    patch_spec(objects, namespace, "db", {"suspend": False})
    wait_for(objects, namespace, ready_at(2), name="db")
    obj = wait_for(objects, namespace, lambda o: (o["status"].get("failures") or 0) >= 2, name="app", timeout=40)
    assert condition(obj, "Ready")["reason"] == "ValuesError"
    assert condition(obj, "Reconciling")["reason"] == "ProgressingWithRetry"
    k8s.CoreV1Api(api).create_namespaced_config_map(namespace, k8s.V1ConfigMap(
        metadata=k8s.V1ObjectMeta(name="late"), data={"values.yaml": "message: late\n"}))
    assert condition(wait_for(objects, namespace, ready_at(1), name="app", timeout=40), "Ready")["reason"] == \
        "InstallSucceeded"
