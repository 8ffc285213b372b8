"""Kopf's diff base derived from status (operator/helm_operator/diffbase.py), on a real API
server: an install patches the HelmRequest once (Kopf's finalizer), a spec change upgrades, a
label change does nothing, failures are retried without a spec change, a restart re-installs
nothing, and a request still carrying the previous version's annotation is handled as before."""
from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import kopf
import pytest
from kubernetes import client as k8s

from e2e.conftest import ClusterInfo, Kubectl
from e2e import operator_kit
from e2e.operator_kit import (GROUP, PLURAL, VERSION, Controller, chart_tgz, condition, get,
                              patch_spec, ready_at, setup_namespace, version_secrets,
                              wait_for)
from helm_core.sources import index as index_mod
from tests.sources import servers

pytestmark = pytest.mark.e2e

PREFIX = "helm-operator.helm.sh"
LEGACY = f"{PREFIX}/last-handled-configuration"
#: Long enough for Kopf to have seen and processed an event (it takes milliseconds here).
SETTLE_S = 4.0
#: Kopf retries after 5, then 10 s.
RETRY_TIMEOUT_S = 60.0
REQUEST_LINE = re.compile(r'^apiserver_request_total\{(?P<labels>[^}]*)\} (?P<value>\S+)$', re.M)


#: This module's requests, and the only ones its controller serves: the PATCH counts below are the
#: API server's over every namespace, and requests other modules leave behind (their namespaces
#: deleted, their finalizers still there) would be patched by a controller that sees them.
SHARD = {"e2e.helm.sh/module": "diffbase"}


def request(objects: k8s.CustomObjectsApi, namespace: str, name: str = "app", **spec: Any) -> None:
    operator_kit.request(objects, namespace, name, meta_labels=SHARD, **spec)


@pytest.fixture(scope="module")
def ctl(cluster: ClusterInfo, kubectl: Kubectl, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Controller]:
    controller = operator_kit.shard_controller(
        cluster, kubectl, tmp_path_factory.mktemp("diffbase") / "controller.log", SHARD)
    yield controller
    controller.stop()


def cm_chart(name: str = "demo", version: str = "1.0.0") -> bytes:
    return chart_tgz({"Chart.yaml": f"apiVersion: v2\nname: {name}\nversion: {version}\n",
                      "templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n"
                                           "  name: {{ .Release.Name }}-out\ndata:\n"
                                           "  v: {{ .Values.v | default \"0\" | quote }}\n"}, name=name)


def helmrequest_patches(api: k8s.ApiClient) -> int:
    """PATCH requests on helmrequests (not their status) the API server has answered."""
    response = api.call_api(*api.param_serialize("GET", "/metrics", auth_settings=["BearerToken"]))
    total = 0
    for match in REQUEST_LINE.finditer(response.read().decode()):
        labels = dict(re.findall(r'(\w+)="([^"]*)"', match["labels"]))
        if labels.get("verb") == "PATCH" and labels.get("resource") == PLURAL and not labels.get("subresource"):
            total += int(float(match["value"]))
    return total


def retries(ctl: Controller) -> int:
    """Reconciles that ended in a retry (a transient failure on a loaded machine: the service
    account or the chart not visible yet, a conflict): Kopf writes its progress record for each
    and purges it after the success, two PATCHes the diff base has nothing to do with."""
    return sum(int(float(value)) for value in re.findall(
        r'helm_operator_reconciles_total\{action="[^"]*",result="retry"\} (\S+)', ctl.metrics()))


def kopf_patches(retried: int) -> int:
    """Kopf's PATCHes of one handling: its finalizer on a create (else none), plus a progress
    record per retry and its purge."""
    return retried + 1 if retried else 0


def annotations(obj: dict[str, Any]) -> dict[str, str]:
    return dict(obj["metadata"].get("annotations") or {})


def leave_previous_annotation(objects: k8s.CustomObjectsApi, namespace: str) -> None:
    """What the previous controller left on a handled request: Kopf's essence in an annotation
    (its AnnotationsDiffBaseStorage under the controller's prefix, with its marker)."""
    stock = kopf.AnnotationsDiffBaseStorage(prefix=PREFIX, key="last-handled-configuration")
    body = kopf.Body(get(objects, namespace))
    left = kopf.Patch()
    stock.store(body=body, patch=left, essence=stock.build(body=body))
    objects.patch_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, "app", dict(left))
    assert LEGACY in annotations(get(objects, namespace))


def without_previous_annotation(objects: k8s.CustomObjectsApi, namespace: str) -> dict[str, Any]:
    """The request once the controller has removed the previous annotation (Kopf's patch after
    its handlers)."""
    return wait_for(objects, namespace, lambda o: LEGACY not in annotations(o), timeout=30)


def events(kubectl: Kubectl, namespace: str) -> list[str]:
    items = json.loads(kubectl("get", "events", "-n", namespace, "-o", "json").stdout)["items"]
    return sorted(e["reason"] for e in items if e["involvedObject"]["kind"] == "HelmRequest")


def test_install_upgrade_and_a_label_change_write_no_diff_base(
        ctl: Controller, api: k8s.ApiClient, kubectl: Kubectl, namespace: str) -> None:
    objects = k8s.CustomObjectsApi(api)
    setup_namespace(api, namespace, chart=cm_chart())
    before, retried = helmrequest_patches(api), retries(ctl)
    request(objects, namespace)
    obj = wait_for(objects, namespace, ready_at(1))
    time.sleep(SETTLE_S)
    # Kopf's finalizer (and any retry's records); no diff-base annotation
    assert helmrequest_patches(api) - before == 1 + kopf_patches(retries(ctl) - retried)
    assert not [k for k in annotations(get(objects, namespace)) if k.startswith(f"{PREFIX}/")]
    first = obj["status"]["version"]

    before, retried = helmrequest_patches(api), retries(ctl)
    patch_spec(objects, namespace, "app", {"values": {"v": "2"}})  # our own PATCH
    obj = wait_for(objects, namespace, ready_at(2))
    assert obj["status"]["version"] != first
    assert k8s.CoreV1Api(api).read_namespaced_config_map("app-out", namespace).data == {"v": "2"}
    time.sleep(SETTLE_S)
    assert helmrequest_patches(api) - before == 1 + kopf_patches(retries(ctl) - retried)
    assert len(version_secrets(api, namespace)) == 2

    deadline = time.monotonic() + 30  # the upgrade's Event, posted after its status, is in what is seen
    while "UpgradeSucceeded" not in (seen := events(kubectl, namespace)):
        assert time.monotonic() < deadline, f"no UpgradeSucceeded Event: {seen}"
        time.sleep(0.3)
    before = helmrequest_patches(api)
    objects.patch_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, "app",
                                           {"metadata": {"labels": {"team": "a"},
                                                         "annotations": {"note": "x"}}})
    time.sleep(SETTLE_S)
    obj = get(objects, namespace)
    assert obj["metadata"]["generation"] == 2 and obj["status"]["observedGeneration"] == 2
    assert helmrequest_patches(api) - before == 1  # ours alone (the annotation storage patched too)
    assert len(version_secrets(api, namespace)) == 2 and events(kubectl, namespace) == seen


def test_failures_are_retried_without_a_spec_change(ctl: Controller, api: k8s.ApiClient,
                                                    tmp_path: Path, namespace: str) -> None:
    """A chart not yet in its repository (a transient error, status written with
    observedGeneration), then published: Kopf's own retry installs it, for a create and for an
    update alike."""
    objects = k8s.CustomObjectsApi(api)
    setup_namespace(api, namespace, chart=None)
    root = tmp_path / "repo"
    root.mkdir()
    repo = servers.RepoServer(root=root)
    index_mod.write_index(root)
    repo.start()
    try:
        def publish(version: str) -> None:
            (root / f"web-{version}.tgz").write_bytes(cm_chart("web", version))
            index_mod.write_index(root)

        request(objects, namespace, chart={"repository": {"url": repo.url, "name": "web", "version": "1.0.0"}})
        failed = wait_for(objects, namespace, lambda o: (o.get("status") or {}).get("failures", 0) >= 1)
        assert failed["status"]["observedGeneration"] == 1
        assert condition(failed, "Ready")["reason"] == "ChartNotFound"
        publish("1.0.0")
        obj = wait_for(objects, namespace, ready_at(1), timeout=RETRY_TIMEOUT_S)
        assert obj["metadata"]["generation"] == 1 and obj["status"]["chartVersion"] == "1.0.0"

        patch_spec(objects, namespace, "app", {"chart": {"repository": {"version": "2.0.0"}}})
        failed = wait_for(objects, namespace, lambda o: condition(o, "Ready")["reason"] == "ChartVersionNotFound"
                          and o["status"]["observedGeneration"] == 2)
        publish("2.0.0")
        obj = wait_for(objects, namespace, ready_at(2), timeout=RETRY_TIMEOUT_S)
        assert obj["metadata"]["generation"] == 2 and obj["status"]["chartVersion"] == "2.0.0"
        assert len(version_secrets(api, namespace)) == 2
    finally:
        repo.stop()


def installed_then_stopped(ctl: Controller, api: k8s.ApiClient,
                           namespace: str) -> tuple[k8s.CustomObjectsApi, str]:
    """A request installed and Ready, then the controller stopped: the API and its version."""
    objects = k8s.CustomObjectsApi(api)
    setup_namespace(api, namespace, chart=cm_chart())
    request(objects, namespace)
    version = wait_for(objects, namespace, ready_at(1))["status"]["version"]
    ctl.stop()
    return objects, version


def test_a_restart_reinstalls_nothing_and_handles_a_change_made_meanwhile(
        ctl: Controller, api: k8s.ApiClient, namespace: str) -> None:
    objects, version = installed_then_stopped(ctl, api, namespace)
    ctl.start()
    time.sleep(SETTLE_S)  # resumed: checked, nothing changed
    obj = get(objects, namespace)
    assert obj["status"]["version"] == version and len(version_secrets(api, namespace)) == 1
    ctl.stop()
    patch_spec(objects, namespace, "app", {"values": {"v": "3"}})
    ctl.start()
    obj = wait_for(objects, namespace, ready_at(2))
    assert obj["status"]["version"] != version and len(version_secrets(api, namespace)) == 2


def test_a_request_with_the_previous_versions_annotation_is_handled_as_before(
        ctl: Controller, api: k8s.ApiClient, kubectl: Kubectl, namespace: str) -> None:
    """The previous controller kept Kopf's essence in an annotation (AnnotationsDiffBaseStorage
    with the controller's prefix): the state it leaves on a Ready request is rebuilt here, with
    the controller stopped, then the new one starts."""
    objects, version = installed_then_stopped(ctl, api, namespace)
    leave_previous_annotation(objects, namespace)
    ctl.start()
    time.sleep(SETTLE_S)  # resumed as before: nothing re-installed, the annotation still there
    obj = get(objects, namespace)
    assert obj["status"]["version"] == version and len(version_secrets(api, namespace)) == 1
    assert LEGACY in annotations(obj)
    seen = events(kubectl, namespace)
    # a label change: as before, no upgrade; the base is stored, i.e. the annotation removed
    objects.patch_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, "app",
                                           {"metadata": {"labels": {"team": "a"}}})
    obj = without_previous_annotation(objects, namespace)
    assert obj["status"]["version"] == version and len(version_secrets(api, namespace)) == 1
    assert events(kubectl, namespace) == seen
    # then the status rules: a spec change upgrades
    patch_spec(objects, namespace, "app", {"values": {"v": "4"}})
    obj = wait_for(objects, namespace, ready_at(2))
    assert obj["status"]["version"] != version and len(version_secrets(api, namespace)) == 2


def test_a_pending_update_under_the_previous_annotation_is_upgraded(
        ctl: Controller, api: k8s.ApiClient, namespace: str) -> None:
    """The previous controller stopped with a spec change not handled (its annotation holds the
    older spec, status already says generation 2 as an announcement leaves it): an update, as
    before, then the annotation goes."""
    objects, version = installed_then_stopped(ctl, api, namespace)
    leave_previous_annotation(objects, namespace)
    patch_spec(objects, namespace, "app", {"values": {"v": "5"}})
    status = dict(get(objects, namespace)["status"], observedGeneration=2)
    objects.patch_namespaced_custom_object_status(GROUP, VERSION, namespace, PLURAL, "app", {"status": status})
    ctl.start()
    wait_for(objects, namespace, lambda o: ready_at(2)(o) and o["status"]["version"] != version)
    assert k8s.CoreV1Api(api).read_namespaced_config_map("app-out", namespace).data == {"v": "5"}
    without_previous_annotation(objects, namespace)
    assert len(version_secrets(api, namespace)) == 2
