"""Is an object ready? kstatus-style rules computed from the object alone (pure functions).

Why: ``--wait`` must agree with what users see in ``kubectl``/Flux (sigs.k8s.io kstatus), and
the rules must be testable without a cluster; ``kube/wait.py`` polls and applies them.

Rules (first match wins):
- ``metadata.deletionTimestamp`` set: TERMINATING.
- ``status.observedGeneration`` below ``metadata.generation``: IN_PROGRESS (the controller has
  not seen the latest spec yet).
- Deployment: ``Progressing`` with reason ``ProgressDeadlineExceeded`` is FAILED; ready when
  updated, ready and available replicas reach ``spec.replicas`` (default 1), no old replicas
  remain, and ``Available`` is not False.
- StatefulSet: ready when ready/current/updated replicas reach ``spec.replicas`` and
  ``currentRevision`` equals ``updateRevision`` (partitioned rollouts: updated >= replicas -
  partition); ``OnDelete`` sets only need ready replicas.
- DaemonSet: ready when desired == current == updated == available == ready scheduled.
- Job: ``Complete`` True is CURRENT, ``Failed`` True is FAILED (with its reason), else running.
  Waited for without its completion (:func:`jobs_started`, helm without ``--wait-for-jobs``,
  Flux's ``disableWaitForJobs``): kstatus' own Job rule, CURRENT once started
  (``status.startTime``) or suspended, FAILED and complete as above.
- Pod: ``Succeeded`` or ``Ready`` True is CURRENT; ``Failed`` is FAILED.
- PersistentVolumeClaim: phase ``Bound``. Service: ``LoadBalancer`` needs an ingress address.
- CustomResourceDefinition: ``Established`` True; ``NamesAccepted`` False is FAILED.
- A hook (``completion``) is waited for until it finished, as helm waits for hooks: a Pod is
  CURRENT only once ``Succeeded`` (a running Pod, Ready or not, is IN_PROGRESS); other kinds
  as above.
- Anything else: ``Stalled`` True is FAILED, ``Reconciling`` True or ``Ready`` False is
  IN_PROGRESS, otherwise CURRENT (objects without status are ready once they exist).
"""
from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from typing import Any

from helm_core.support.records import record


class State(str, enum.Enum):
    """kstatus' status values that matter for waiting."""

    CURRENT = "Current"
    IN_PROGRESS = "InProgress"
    FAILED = "Failed"
    TERMINATING = "Terminating"
    NOT_FOUND = "NotFound"


@record(frozen=True)
class Readiness:
    """The state of one object and a human reason (``Available: 1/3``)."""

    state: State
    message: str = ""

    @property
    def ready(self) -> bool:
        return self.state is State.CURRENT


def _condition(obj: Mapping[str, Any], kind: str) -> Mapping[str, Any] | None:
    for condition in (obj.get("status") or {}).get("conditions") or ():
        if isinstance(condition, Mapping) and condition.get("type") == kind:
            return condition
    return None


def _is(obj: Mapping[str, Any], kind: str, value: str = "True") -> bool:
    condition = _condition(obj, kind)
    return condition is not None and condition.get("status") == value


def _reason(obj: Mapping[str, Any], kind: str) -> str:
    condition = _condition(obj, kind) or {}
    parts = [str(condition.get(key)) for key in ("reason", "message") if condition.get(key)]
    return ": ".join(parts)


def _int(mapping: Mapping[str, Any], key: str, default: int = 0) -> int:
    value = mapping.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _progress(label: str, have: int, want: int) -> Readiness | None:
    if have < want:
        return Readiness(State.IN_PROGRESS, f"{label}: {have}/{want}")
    return None


def _deployment(obj: Mapping[str, Any]) -> Readiness:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    condition = _condition(obj, "Progressing") or {}
    if condition.get("reason") == "ProgressDeadlineExceeded":
        return Readiness(State.FAILED, f"progress deadline exceeded: {condition.get('message', '')}")
    want = _int(spec, "replicas", 1)
    for label, key in (("Updated", "updatedReplicas"), ("Ready", "readyReplicas"),
                       ("Available", "availableReplicas")):
        waiting = _progress(label, _int(status, key), want)
        if waiting:
            return waiting
    if _int(status, "replicas") > _int(status, "updatedReplicas"):
        extra = _int(status, "replicas") - _int(status, "updatedReplicas")
        return Readiness(State.IN_PROGRESS, f"Pending termination: {extra}")
    if _is(obj, "Available", "False"):
        return Readiness(State.IN_PROGRESS, f"not available: {_reason(obj, 'Available')}")
    return Readiness(State.CURRENT, f"Deployment is available. Replicas: {want}")


def _statefulset(obj: Mapping[str, Any]) -> Readiness:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    want = _int(spec, "replicas", 1)
    waiting = _progress("Ready", _int(status, "readyReplicas"), want)
    if waiting:
        return waiting
    strategy = spec.get("updateStrategy") or {}
    if strategy.get("type") == "OnDelete":
        return Readiness(State.CURRENT, f"Ready: {want}/{want}")
    partition = _int(strategy.get("rollingUpdate") or {}, "partition")
    if partition:
        waiting = _progress("Updated", _int(status, "updatedReplicas"), max(want - partition, 0))
        return waiting or Readiness(State.CURRENT, f"Partition rollout complete: {want}")
    waiting = _progress("Current", _int(status, "currentReplicas"), want)
    if waiting:
        return waiting
    if status.get("currentRevision") != status.get("updateRevision"):
        return Readiness(State.IN_PROGRESS,
                         f"revision {status.get('currentRevision')} != {status.get('updateRevision')}")
    return Readiness(State.CURRENT, f"All replicas scheduled as expected. Replicas: {want}")


def _daemonset(obj: Mapping[str, Any]) -> Readiness:
    status = obj.get("status") or {}
    if "desiredNumberScheduled" not in status:
        return Readiness(State.IN_PROGRESS, "missing status.desiredNumberScheduled")
    want = _int(status, "desiredNumberScheduled")
    for label, key in (("Current", "currentNumberScheduled"), ("Updated", "updatedNumberScheduled"),
                       ("Available", "numberAvailable"), ("Ready", "numberReady")):
        waiting = _progress(label, _int(status, key), want)
        if waiting:
            return waiting
    return Readiness(State.CURRENT, f"All replicas scheduled as expected. Replicas: {want}")


def _job(obj: Mapping[str, Any]) -> Readiness:
    if _is(obj, "Failed"):
        return Readiness(State.FAILED, f"Job failed: {_reason(obj, 'Failed')}")
    if _is(obj, "Complete"):
        return Readiness(State.CURRENT, "Job Completed")
    status = obj.get("status") or {}
    return Readiness(State.IN_PROGRESS, f"Job in progress: active {_int(status, 'active')}, "
                                        f"succeeded {_int(status, 'succeeded')}, "
                                        f"failed {_int(status, 'failed')}")


def _job_started(obj: Mapping[str, Any]) -> Readiness:
    # kstatus' default Job reader, which Flux replaces only when it waits for Jobs
    if _is(obj, "Failed") or _is(obj, "Complete"):
        return _job(obj)
    if (obj.get("spec") or {}).get("suspend") is True and _is(obj, "Suspended"):
        return Readiness(State.CURRENT, "Job is suspended")
    status = obj.get("status") or {}
    if not status.get("startTime"):
        return Readiness(State.IN_PROGRESS, "Job not started")
    return Readiness(State.CURRENT, f"Job started (its completion is not waited for): "
                                    f"active {_int(status, 'active')}, "
                                    f"succeeded {_int(status, 'succeeded')}, "
                                    f"failed {_int(status, 'failed')}")


def _pod(obj: Mapping[str, Any]) -> Readiness:
    phase = (obj.get("status") or {}).get("phase")
    if phase == "Succeeded":
        return Readiness(State.CURRENT, "Pod has completed successfully")
    if phase == "Failed":
        return Readiness(State.FAILED, "Pod has completed, but not successfully")
    if _is(obj, "Ready"):
        return Readiness(State.CURRENT, "Pod is Ready")
    return Readiness(State.IN_PROGRESS, f"Pod phase: {phase or 'unknown'}")


def _pvc(obj: Mapping[str, Any]) -> Readiness:
    phase = (obj.get("status") or {}).get("phase")
    if phase == "Bound":
        return Readiness(State.CURRENT, "PVC is Bound")
    return Readiness(State.IN_PROGRESS, f"PVC is not Bound. phase: {phase or 'unknown'}")


def _service(obj: Mapping[str, Any]) -> Readiness:
    if (obj.get("spec") or {}).get("type") != "LoadBalancer":
        return Readiness(State.CURRENT, "Service is ready")
    ingress = (((obj.get("status") or {}).get("loadBalancer")) or {}).get("ingress")
    if ingress:
        return Readiness(State.CURRENT, "Service is ready")
    return Readiness(State.IN_PROGRESS, "LoadBalancer has no ingress address yet")


def _crd(obj: Mapping[str, Any]) -> Readiness:
    if _is(obj, "NamesAccepted", "False"):
        return Readiness(State.FAILED, f"names not accepted: {_reason(obj, 'NamesAccepted')}")
    if _is(obj, "Established"):
        return Readiness(State.CURRENT, "CRD is established")
    return Readiness(State.IN_PROGRESS, "CRD is not established yet")


def _generic(obj: Mapping[str, Any]) -> Readiness:
    if _is(obj, "Stalled"):
        return Readiness(State.FAILED, _reason(obj, "Stalled") or "Stalled")
    if _is(obj, "Reconciling"):
        return Readiness(State.IN_PROGRESS, _reason(obj, "Reconciling") or "Reconciling")
    if _is(obj, "Ready", "False"):
        return Readiness(State.IN_PROGRESS, _reason(obj, "Ready") or "not Ready")
    return Readiness(State.CURRENT, "Resource is current")


_Rule = Callable[[Mapping[str, Any]], Readiness]
_RULES: dict[tuple[str, str], _Rule] = {
    ("apps", "Deployment"): _deployment,
    ("apps", "StatefulSet"): _statefulset,
    ("apps", "DaemonSet"): _daemonset,
    ("batch", "Job"): _job,
    ("", "Pod"): _pod,
    ("", "PersistentVolumeClaim"): _pvc,
    ("", "Service"): _service,
    ("apiextensions.k8s.io", "CustomResourceDefinition"): _crd,
}
_RULES_JOBS_STARTED = {**_RULES, ("batch", "Job"): _job_started}


def readiness(obj: Mapping[str, Any]) -> Readiness:
    """The kstatus-style state of ``obj`` (see the module docstring for the rules)."""
    return _by(_RULES, obj)


def jobs_started(obj: Mapping[str, Any]) -> Readiness:
    """:func:`readiness`, but a Job is ready once it started (module rules): a wait without
    helm's ``--wait-for-jobs``."""
    return _by(_RULES_JOBS_STARTED, obj)


def _by(rules: Mapping[tuple[str, str], _Rule], obj: Mapping[str, Any]) -> Readiness:
    meta = obj.get("metadata") or {}
    if meta.get("deletionTimestamp"):
        return Readiness(State.TERMINATING, "Resource scheduled for deletion")
    generation = meta.get("generation")
    observed = (obj.get("status") or {}).get("observedGeneration")
    if isinstance(generation, int) and isinstance(observed, int) and observed < generation:
        return Readiness(State.IN_PROGRESS, f"observed generation {observed} < {generation}")
    group = str(obj.get("apiVersion", "")).rpartition("/")[0]
    rule = rules.get((group, str(obj.get("kind", ""))), _generic)
    return rule(obj)


def completion(obj: Mapping[str, Any]) -> Readiness:
    """The state of a hook ``obj`` (module rules): done when finished, not when ready."""
    phase = (obj.get("status") or {}).get("phase")
    if obj.get("kind") == "Pod" and str(obj.get("apiVersion", "")) == "v1" and phase not in ("Succeeded", "Failed"):
        if (obj.get("metadata") or {}).get("deletionTimestamp"):
            return Readiness(State.TERMINATING, "Resource scheduled for deletion")
        return Readiness(State.IN_PROGRESS, f"Pod phase: {phase or 'unknown'}")
    return readiness(obj)
