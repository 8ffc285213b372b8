"""kstatus-style readiness rules, one table row per rule."""
from __future__ import annotations

from typing import Any

import pytest

from helm_core.kube import readiness as kready

S = kready.State


def _obj(api_version: str, kind: str, *, spec: Any = None, status: Any = None,
         generation: int | None = None, deleting: bool = False) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": "x", "namespace": "ns"}
    if generation is not None:
        meta["generation"] = generation
    if deleting:
        meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    obj: dict[str, Any] = {"apiVersion": api_version, "kind": kind, "metadata": meta}
    if spec is not None:
        obj["spec"] = spec
    if status is not None:
        obj["status"] = status
    return obj


def _cond(kind: str, status: str, reason: str = "", message: str = "") -> dict[str, str]:
    return {"type": kind, "status": status, "reason": reason, "message": message}


DEPLOY_OK = {"replicas": 3, "updatedReplicas": 3, "readyReplicas": 3, "availableReplicas": 3,
             "observedGeneration": 2, "conditions": [_cond("Available", "True")]}

CASES = [
    ("deleting", _obj("v1", "ConfigMap", deleting=True), S.TERMINATING,
     "Resource scheduled for deletion"),
    ("generation-not-observed", _obj("apps/v1", "Deployment", spec={"replicas": 3}, generation=3,
                                     status=DEPLOY_OK), S.IN_PROGRESS, "observed generation 2 < 3"),
    ("deployment-ready", _obj("apps/v1", "Deployment", spec={"replicas": 3}, generation=2,
                              status=DEPLOY_OK), S.CURRENT, "Deployment is available. Replicas: 3"),
    ("deployment-no-status", _obj("apps/v1", "Deployment", spec={}), S.IN_PROGRESS, "Updated: 0/1"),
    ("deployment-zero-replicas", _obj("apps/v1", "Deployment", spec={"replicas": 0}, status={}),
     S.CURRENT, "Deployment is available. Replicas: 0"),
    ("deployment-not-available", _obj("apps/v1", "Deployment", spec={"replicas": 3},
                                      status={**DEPLOY_OK, "availableReplicas": 1}),
     S.IN_PROGRESS, "Available: 1/3"),
    ("deployment-old-replicas", _obj("apps/v1", "Deployment", spec={"replicas": 3},
                                     status={**DEPLOY_OK, "replicas": 4}),
     S.IN_PROGRESS, "Pending termination: 1"),
    ("deployment-deadline", _obj("apps/v1", "Deployment", spec={"replicas": 1}, status={
        "conditions": [_cond("Progressing", "False", "ProgressDeadlineExceeded", "too slow")]}),
     S.FAILED, "progress deadline exceeded: too slow"),
    ("statefulset-ready", _obj("apps/v1", "StatefulSet", spec={"replicas": 2}, status={
        "readyReplicas": 2, "currentReplicas": 2, "updatedReplicas": 2,
        "currentRevision": "r1", "updateRevision": "r1"}),
     S.CURRENT, "All replicas scheduled as expected. Replicas: 2"),
    ("statefulset-rolling", _obj("apps/v1", "StatefulSet", spec={"replicas": 2}, status={
        "readyReplicas": 2, "currentReplicas": 2, "currentRevision": "r1", "updateRevision": "r2"}),
     S.IN_PROGRESS, "revision r1 != r2"),
    ("statefulset-ondelete", _obj("apps/v1", "StatefulSet", spec={
        "replicas": 1, "updateStrategy": {"type": "OnDelete"}}, status={"readyReplicas": 1}),
     S.CURRENT, "Ready: 1/1"),
    ("statefulset-partition", _obj("apps/v1", "StatefulSet", spec={
        "replicas": 3, "updateStrategy": {"rollingUpdate": {"partition": 2}}},
        status={"readyReplicas": 3, "updatedReplicas": 0}), S.IN_PROGRESS, "Updated: 0/1"),
    ("daemonset-ready", _obj("apps/v1", "DaemonSet", status={
        "desiredNumberScheduled": 2, "currentNumberScheduled": 2, "updatedNumberScheduled": 2,
        "numberAvailable": 2, "numberReady": 2}),
     S.CURRENT, "All replicas scheduled as expected. Replicas: 2"),
    ("daemonset-no-status", _obj("apps/v1", "DaemonSet", status={}), S.IN_PROGRESS,
     "missing status.desiredNumberScheduled"),
    ("daemonset-unready", _obj("apps/v1", "DaemonSet", status={
        "desiredNumberScheduled": 2, "currentNumberScheduled": 2, "updatedNumberScheduled": 2,
        "numberAvailable": 1, "numberReady": 1}), S.IN_PROGRESS, "Available: 1/2"),
    ("job-complete", _obj("batch/v1", "Job", status={"conditions": [_cond("Complete", "True")]}),
     S.CURRENT, "Job Completed"),
    ("job-failed", _obj("batch/v1", "Job", status={"conditions": [
        _cond("Failed", "True", "BackoffLimitExceeded", "Job has reached the specified backoff limit")]}),
     S.FAILED, "Job failed: BackoffLimitExceeded: Job has reached the specified backoff limit"),
    ("job-running", _obj("batch/v1", "Job", status={"active": 1}), S.IN_PROGRESS,
     "Job in progress: active 1, succeeded 0, failed 0"),
    ("pod-ready", _obj("v1", "Pod", status={"phase": "Running",
                                            "conditions": [_cond("Ready", "True")]}),
     S.CURRENT, "Pod is Ready"),
    ("pod-succeeded", _obj("v1", "Pod", status={"phase": "Succeeded"}), S.CURRENT,
     "Pod has completed successfully"),
    ("pod-failed", _obj("v1", "Pod", status={"phase": "Failed"}), S.FAILED,
     "Pod has completed, but not successfully"),
    ("pvc-bound", _obj("v1", "PersistentVolumeClaim", status={"phase": "Bound"}), S.CURRENT,
     "PVC is Bound"),
    ("pvc-pending", _obj("v1", "PersistentVolumeClaim", status={"phase": "Pending"}),
     S.IN_PROGRESS, "PVC is not Bound. phase: Pending"),
    ("service-clusterip", _obj("v1", "Service", spec={"type": "ClusterIP"}), S.CURRENT,
     "Service is ready"),
    ("service-lb-pending", _obj("v1", "Service", spec={"type": "LoadBalancer"}, status={}),
     S.IN_PROGRESS, "LoadBalancer has no ingress address yet"),
    ("service-lb-ready", _obj("v1", "Service", spec={"type": "LoadBalancer"}, status={
        "loadBalancer": {"ingress": [{"ip": "10.0.0.1"}]}}), S.CURRENT, "Service is ready"),
    ("crd-established", _obj("apiextensions.k8s.io/v1", "CustomResourceDefinition", status={
        "conditions": [_cond("Established", "True")]}), S.CURRENT, "CRD is established"),
    ("crd-pending", _obj("apiextensions.k8s.io/v1", "CustomResourceDefinition", status={}),
     S.IN_PROGRESS, "CRD is not established yet"),
    ("crd-names-refused", _obj("apiextensions.k8s.io/v1", "CustomResourceDefinition", status={
        "conditions": [_cond("NamesAccepted", "False", "MultipleNamesNotAllowed", "clash")]}),
     S.FAILED, "names not accepted: MultipleNamesNotAllowed: clash"),
    ("generic-no-status", _obj("v1", "ConfigMap"), S.CURRENT, "Resource is current"),
    ("generic-stalled", _obj("example.com/v1", "Widget", status={
        "conditions": [_cond("Stalled", "True", "Broken")]}), S.FAILED, "Broken"),
    ("generic-reconciling", _obj("example.com/v1", "Widget", status={
        "conditions": [_cond("Reconciling", "True", "Progressing", "working")]}),
     S.IN_PROGRESS, "Progressing: working"),
    ("generic-not-ready", _obj("example.com/v1", "Widget", status={
        "conditions": [_cond("Ready", "False")]}), S.IN_PROGRESS, "not Ready"),
    ("deployment-in-other-group-is-generic", _obj("example.com/v1", "Deployment", spec={}),
     S.CURRENT, "Resource is current"),
]


@pytest.mark.parametrize(("obj", "state", "message"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_readiness_follows_kstatus_rules(obj, state, message):
    result = kready.readiness(obj)
    assert (result.state, result.message) == (state, message)
    assert result.ready is (state is S.CURRENT)


STARTED = {"startTime": "2026-01-01T00:00:00Z", "active": 1}
JOB_CASES = [
    ("not-started", _obj("batch/v1", "Job", status={}), S.IN_PROGRESS, S.IN_PROGRESS, "Job not started"),
    ("started", _obj("batch/v1", "Job", status=STARTED), S.IN_PROGRESS, S.CURRENT,
     "Job started (its completion is not waited for): active 1, succeeded 0, failed 0"),
    ("suspended", _obj("batch/v1", "Job", spec={"suspend": True},
                       status={"conditions": [_cond("Suspended", "True")]}),
     S.IN_PROGRESS, S.CURRENT, "Job is suspended"),
    ("suspend-asked-not-yet-done", _obj("batch/v1", "Job", spec={"suspend": True}, status=STARTED),
     S.IN_PROGRESS, S.CURRENT, "Job started (its completion is not waited for): active 1, succeeded 0, failed 0"),
    ("complete", _obj("batch/v1", "Job", status={**STARTED, "conditions": [_cond("Complete", "True")]}),
     S.CURRENT, S.CURRENT, "Job Completed"),
    ("failed", _obj("batch/v1", "Job", status={
        **STARTED, "conditions": [_cond("Failed", "True", "DeadlineExceeded")]}),
     S.FAILED, S.FAILED, "Job failed: DeadlineExceeded"),
    ("not-observed", _obj("batch/v1", "Job", generation=2, status={**STARTED, "observedGeneration": 1}),
     S.IN_PROGRESS, S.IN_PROGRESS, "observed generation 1 < 2"),
]


@pytest.mark.parametrize(("obj", "finished", "started", "message"), [c[1:] for c in JOB_CASES],
                         ids=[c[0] for c in JOB_CASES])
def test_a_job_is_ready_once_complete_or_without_wait_for_jobs_once_started(obj, finished, started, message):
    """helm's --wait-for-jobs (readiness) against kstatus' own Job rule (jobs_started), which
    Flux uses with disableWaitForJobs; every other kind is judged alike by both."""
    assert kready.readiness(obj).state is finished
    result = kready.jobs_started(obj)
    assert (result.state, result.message) == (started, message)


@pytest.mark.parametrize("obj", [c[1] for c in CASES if c[1]["kind"] != "Job"],
                         ids=[c[0] for c in CASES if c[1]["kind"] != "Job"])
def test_only_jobs_differ_without_wait_for_jobs(obj):
    assert kready.jobs_started(obj) == kready.readiness(obj)


def test_readiness_never_mutates_its_input():
    obj = _obj("apps/v1", "Deployment", spec={"replicas": 3}, status=DEPLOY_OK)
    before = repr(obj)
    kready.readiness(obj)
    assert repr(obj) == before
