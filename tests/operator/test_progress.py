"""Kopf progress records: a retry delay of an older generation never holds a newer one."""
from __future__ import annotations

import json
from typing import Any

import kopf

from helm_operator import progress

PREFIX = "helm-operator.helm.sh"
DELAYED = {"started": "2026-11-23T17:00:00.000000+00:00", "delayed": "2026-11-23T17:00:20.000000+00:00",
           "purpose": "update", "retries": 3, "success": False, "failure": False, "message": "down"}


def body(generation: int, observed: int | None, record: dict[str, Any] | None = DELAYED, *,
         kind: str = "HelmRequest", token: str | None = None, handled: str | None = None) -> kopf.Body:
    raw: dict[str, Any] = {"apiVersion": "helm.sh/v1alpha1", "kind": kind,
                           "metadata": {"name": "app", "namespace": "ns", "generation": generation,
                                        "annotations": {}}}
    if token is not None:
        raw["metadata"]["annotations"]["reconcile.fluxcd.io/requestedAt"] = token
    if record is not None:
        raw["metadata"]["annotations"][f"{PREFIX}/apply"] = json.dumps(record)
    if observed is not None:
        raw["status"] = {"observedGeneration": observed}
        if handled is not None:
            raw["status"]["lastHandledReconcileAt"] = handled
    return kopf.Body(raw)


def fetch(b: kopf.Body) -> Any:
    return progress.GenerationAwareProgressStorage(prefix=PREFIX).fetch(key=kopf.HandlerId("apply"), body=b)


def test_the_delay_of_the_same_generation_is_kept() -> None:
    assert fetch(body(2, 2)) == DELAYED


def test_a_newer_generation_drops_the_delay_and_the_retry_count() -> None:
    record = fetch(body(3, 2))
    assert record["delayed"] is None and record["retries"] == 0
    assert record["started"] == DELAYED["started"] and record["purpose"] == "update"


def test_a_reconcile_token_not_handled_yet_drops_the_delay_but_keeps_the_count() -> None:
    # flux reconcile hr on a request waiting out its backoff: the retry runs now
    record = fetch(body(2, 2, token="t1"))
    assert record["delayed"] is None and record["retries"] == DELAYED["retries"]
    # once its run recorded the token, the next delay holds again (no retry loop)
    assert fetch(body(2, 2, token="t1", handled="t1")) == DELAYED
    assert fetch(body(2, 2, token="t2", handled="t1"))["delayed"] is None
    # only HelmRequests record tokens: a repository's handler delay is Kopf's
    assert fetch(body(2, 2, kind="HelmRepository", token="t1")) == DELAYED


def test_a_touch_naming_a_new_index_drops_the_delay_but_keeps_the_count() -> None:
    storage = progress.GenerationAwareProgressStorage(prefix=PREFIX)
    waiting = body(2, 2)
    touch = storage.index_touch(waiting, "HelmRepository ns/charts sha256:ab")
    assert touch == {f"{PREFIX}/touch-dummy": "new index HelmRepository ns/charts sha256:ab"}
    touched = kopf.Body(dict(waiting, metadata=dict(
        waiting["metadata"], annotations={**waiting["metadata"]["annotations"], **touch})))
    record = storage.fetch(key=kopf.HandlerId("apply"), body=touched)
    assert record["delayed"] is None and record["retries"] == DELAYED["retries"]
    # Kopf's own touch (a time, once the delay is over) drops nothing
    kopfs = kopf.Body(dict(waiting, metadata=dict(waiting["metadata"], annotations={
        **waiting["metadata"]["annotations"], f"{PREFIX}/touch-dummy": "2026-11-23T17:00:20"})))
    assert storage.fetch(key=kopf.HandlerId("apply"), body=kopfs) == DELAYED


def test_nothing_to_drop() -> None:
    assert fetch(body(3, 2, record=None)) is None
    done = dict(DELAYED, success=True)
    assert fetch(body(3, 2, record=done)) == done
    assert fetch(body(3, None)) == DELAYED  # no attempt reported yet: Kopf decides


def test_superseded() -> None:
    assert progress.superseded({"metadata": {"generation": 2}, "status": {"observedGeneration": 1}})
    assert not progress.superseded({"metadata": {"generation": 2}, "status": {"observedGeneration": 2}})
    assert not progress.superseded({"metadata": {"generation": 2}})
