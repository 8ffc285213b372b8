"""Flux's ``disableWaitForJobs`` (here ``waitForJobs: false``, as ``wait`` is Flux's
``disableWait`` inverted) with the controller as a real process: a chart whose Job cannot run
(its Pod fits no node) is Ready once the Job started when ``waitForJobs`` is false, for an
install, an upgrade and a rollback; by default the install waits, and is Ready only once a node
for the Job's Pod appears and the Job completes."""
from __future__ import annotations

from collections.abc import Iterator

import pytest
from kubernetes import client as k8s

from e2e.cluster import bootstrap
from e2e.operator_kit import (Controller, chart_tgz, condition, controller, get, objects, patch_spec, ready_at,
                              request, setup_namespace, wait_for)

pytestmark = pytest.mark.e2e

__all__ = ["controller", "objects"]  # fixtures used by the tests below

POOL = "e2e.helm-controller.io/pool"
#: A Job whose Pod runs only on a node of pool .Values.pool (labelled and tainted so).
JOB_CHART = {
    "Chart.yaml": "apiVersion: v2\nname: jobs\nversion: 1.0.0\n",
    "values.yaml": "suffix: a\npool: none\n",
    "templates/job.yaml": (
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate-{{ .Values.suffix }}\nspec:\n"
        "  backoffLimit: 0\n  template:\n    spec:\n      restartPolicy: Never\n"
        f"      nodeSelector: {{{POOL}: {{{{ .Values.pool | quote }}}}}}\n"
        f"      tolerations: [{{key: {POOL}, operator: Equal, value: {{{{ .Values.pool | quote }}}}, "
        "effect: NoSchedule}]\n"
        "      containers:\n      - name: migrate\n        image: busybox\n"),
}


def _job(api: k8s.ApiClient, namespace: str, name: str) -> k8s.V1Job:
    return k8s.BatchV1Api(api).read_namespaced_job(name, namespace)


def _complete(job: k8s.V1Job) -> bool:
    return any(c.type == "Complete" and c.status == "True" for c in job.status.conditions or ())


@pytest.fixture
def pool_node(api: k8s.ApiClient, namespace: str) -> Iterator[dict[str, object]]:
    """A kwok node for this test's pool, made by the test when it wants the Job to run; deleted after."""
    node = bootstrap.node_manifest(0)
    name = f"pool-{namespace}"
    meta = node["metadata"]
    assert isinstance(meta, dict)
    meta["name"] = name
    meta["labels"] = {**meta["labels"], "kubernetes.io/hostname": name, POOL: namespace}
    node["spec"] = {"taints": [{"key": POOL, "value": namespace, "effect": "NoSchedule"}]}
    yield node
    try:
        k8s.CoreV1Api(api).delete_node(name)
    except k8s.ApiException as exc:
        if exc.status != 404:
            raise


def test_wait_for_jobs_false_is_ready_once_the_job_started(
        controller: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str) -> None:
    setup_namespace(api, namespace, chart=chart_tgz(JOB_CHART, name="jobs"))
    request(objects, namespace, values={"pool": namespace},
            install={"timeout": "60s", "waitForJobs": False}, upgrade={"timeout": "60s", "waitForJobs": False})
    obj = wait_for(objects, namespace, ready_at(1))
    assert condition(obj, "Ready")["reason"] == "InstallSucceeded"
    first = obj["status"]["version"]
    job = _job(api, namespace, "migrate-a")
    assert job.status.start_time is not None and not _complete(job)

    patch_spec(objects, namespace, "app", {"values": {"pool": namespace, "suffix": "b"}})
    obj = wait_for(objects, namespace, ready_at(2))
    assert condition(obj, "Ready")["reason"] == "UpgradeSucceeded"
    assert not _complete(_job(api, namespace, "migrate-b"))

    # the rollback's own field (it would follow upgrade.waitForJobs, removed here)
    patch_spec(objects, namespace, "app", {"rollbackTo": first, "upgrade": {"waitForJobs": None},
                                           "rollback": {"timeout": "60s", "waitForJobs": False}})
    obj = wait_for(objects, namespace, ready_at(3))
    assert condition(obj, "Ready")["reason"] == "RollbackSucceeded"
    assert "waitForJobs" not in get(objects, namespace)["spec"]["upgrade"]
    assert not _complete(_job(api, namespace, "migrate-a"))


def test_jobs_are_waited_for_by_default(
        controller: Controller, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str,
        pool_node: dict[str, object]) -> None:
    setup_namespace(api, namespace, chart=chart_tgz(JOB_CHART, name="jobs"))
    request(objects, namespace, values={"pool": namespace}, install={"timeout": "3m"})
    # announced only by an install still running after the controller's grace (5 s)
    wait_for(objects, namespace, lambda o: (condition(o, "Reconciling") or {}).get("message")
             == "installing the release")
    job = _job(api, namespace, "migrate-a")
    assert job.status.start_time is not None and not _complete(job)
    assert condition(get(objects, namespace), "Ready")["status"] != "True"

    k8s.CoreV1Api(api).create_node(pool_node)
    obj = wait_for(objects, namespace, ready_at(1), timeout=150)
    assert condition(obj, "Ready")["reason"] == "InstallSucceeded"
    assert _complete(_job(api, namespace, "migrate-a"))
