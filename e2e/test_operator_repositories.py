"""HelmRepository through the controller, a real process, on the local control plane: four
HelmRequests share one repository served over loopback by a server that counts index fetches;
the index is fetched once per the repository's interval whatever the number of requests, and a
newly published chart version upgrades at once the requests whose range now matches it."""
from __future__ import annotations

import datetime
import hashlib
import json
import math
import time
from collections.abc import Callable
from typing import Any

import pytest
from kubernetes import client as k8s

from e2e.conftest import Kubectl
from e2e.operator_kit import (
    condition,
    controller,
    explain,
    get,
    objects,
    ready_at,
    request,
    setup_namespace,
    wait_for,
)
from e2e.test_operator_sources import Repo, make_repo, web_configmap, web_tgz

pytestmark = pytest.mark.e2e

__all__ = ["controller", "make_repo", "objects"]  # fixtures used by the tests below

GROUP, VERSION, PLURAL = "helm.sh", "v1alpha1", "helmrepositories"
REPO_INTERVAL_S = 4
#: The requests check themselves every 2 s: were they to fetch the index, it would show.
REQUEST_INTERVAL = "2s"
#: (request name, version range) -> the version it runs after 1.1.0 and 2.0.0 are published.
REQUESTS = {"caret": ("^1.0", "1.1.0"), "range": (">=1.0 <2.0", "1.1.0"),
            "tilde": ("~1.0.0", "1.0.0"), "pinned": ("1.0.0", "1.0.0")}


def helm_repository(objects: k8s.CustomObjectsApi, namespace: str, url: str, name: str = "charts",
                    **spec: Any) -> None:
    objects.create_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, {
        "apiVersion": f"{GROUP}/{VERSION}", "kind": "HelmRepository",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"url": url, "interval": f"{REPO_INTERVAL_S}s", **spec}})


def repository_status(objects: k8s.CustomObjectsApi, namespace: str, name: str = "charts") -> dict[str, Any]:
    return objects.get_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, name).get("status") or {}


def running(version: str) -> Callable[[dict[str, Any]], bool]:
    def check(obj: dict[str, Any]) -> bool:
        return ready_at()(obj) and obj["status"].get("chartVersion") == version
    return check


def test_four_requests_share_one_index_fetch_per_interval_and_upgrade_on_a_new_version(
        controller: Any, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str,
        make_repo: Callable[..., Repo], kubectl: Kubectl) -> None:
    repo = make_repo()
    repo.publish("1.0.0")
    setup_namespace(api, namespace, chart=None)
    helm_repository(objects, namespace, repo.url)
    started = time.monotonic()
    for name, (version, _) in REQUESTS.items():
        request(objects, namespace, name=name, interval=REQUEST_INTERVAL, chart={
            "repositoryRef": {"name": "charts", "chart": "web", "version": version}})
    for name in REQUESTS:
        obj = wait_for(objects, namespace, running("1.0.0"), name=name)
        assert obj["status"]["chartName"] == "web"
        assert web_configmap(api, namespace, name) == {"chartVersion": "1.0.0"}

    st = repository_status(objects, namespace)
    index = (repo.root / "index.yaml").read_bytes()
    assert condition({"status": st}, "Ready")["status"] == "True"
    assert st["artifact"]["digest"] == "sha256:" + hashlib.sha256(index).hexdigest()
    assert st["artifact"]["size"] == len(index)
    assert st["lastFetchTime"] and st["artifact"]["lastUpdateTime"]

    # Over a few intervals, with every request checking itself every 2 s: one fetch per
    # repository interval (the requests read the cached index, never the server's).
    first = repo.index_fetches()
    time.sleep(3 * REPO_INTERVAL_S + 1)
    window = repo.index_fetches() - first
    elapsed = time.monotonic() - started
    assert 2 <= window <= 4, f"{window} index fetches in {3 * REPO_INTERVAL_S + 1} s"
    assert repo.index_fetches() <= math.ceil(elapsed / REPO_INTERVAL_S) + 1
    # the chart itself was downloaded once for the four requests (content-addressed cache)
    assert sum(1 for _, path, _ in repo.server.requests if path.endswith("web-1.0.0.tgz")) == 1

    # A new index: the requests whose range now resolves to 1.1.0 upgrade within about one
    # repository interval (their own interval alone would be 2 s too, so give them 10 m now).
    for name in REQUESTS:
        objects.patch_namespaced_custom_object("helm.sh", "v1alpha1", namespace, "helmrequests", name,
                                               {"spec": {"interval": "10m"}})
    for name in REQUESTS:
        wait_for(objects, namespace, ready_at(2), name=name)
    published = time.monotonic()
    (repo.root / "web-2.0.0.tgz").write_bytes(web_tgz("2.0.0"))
    repo.publish("1.1.0")  # one new index with 1.1.0 and 2.0.0
    for name, (_, expected) in REQUESTS.items():
        if expected != "1.0.0":
            obj = wait_for(objects, namespace, running(expected), name=name,
                           timeout=REPO_INTERVAL_S + 40)
            assert web_configmap(api, namespace, name) == {"chartVersion": expected}
    upgraded_after = time.monotonic() - published
    assert upgraded_after < 60  # far below the requests' own 10 m interval: woken by the index
    for name, (_, expected) in REQUESTS.items():
        if expected == "1.0.0":
            obj = get(objects, namespace, name)
            assert obj["status"]["chartVersion"] == "1.0.0" and ready_at()(obj)
            assert web_configmap(api, namespace, name) == {"chartVersion": "1.0.0"}
    new_digest = "sha256:" + hashlib.sha256((repo.root / "index.yaml").read_bytes()).hexdigest()
    assert repository_status(objects, namespace)["artifact"]["digest"] == new_digest
    assert all(get(objects, namespace, name)["status"]["chartVersion"] != "2.0.0" for name in REQUESTS)

    # kubectl knows the kind by its short name and documents its fields
    assert "charts" in kubectl("get", "hrepo", "-n", namespace).stdout
    assert "http:// or https://" in explain(kubectl, "helmrepository.spec.url")


def test_a_missing_repository_waits_then_resolves_and_cross_namespace_refs_work(
        controller: Any, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str,
        make_repo: Callable[..., Repo]) -> None:
    repo = make_repo()
    repo.publish("1.0.0")
    setup_namespace(api, namespace, chart=None)
    request(objects, namespace, chart={"repositoryRef": {"name": "later", "chart": "web"}})

    def waiting(obj: dict[str, Any]) -> bool:
        ready = condition(obj, "Ready") or {}
        return ready.get("status") == "False" and "HelmRepository" in ready.get("message", "")

    obj = wait_for(objects, namespace, waiting)
    assert f"HelmRepository {namespace}/later is not ready" in condition(obj, "Ready")["message"]
    assert condition(obj, "Stalled") is None  # retried, and woken when the repository comes
    helm_repository(objects, namespace, repo.url, name="later", interval="10m")
    wait_for(objects, namespace, running("1.0.0"), timeout=40)
    before = condition(get(objects, namespace), "Ready")

    # A restart: the request's resume check needs the index before the repository's daemon
    # may have fetched it; it waits for one fetch (no flap to not-Ready) and the daemon then
    # finds that index fresh: one fetch for the restart, not one per requester.
    fetches = repo.index_fetches()
    controller.stop()
    controller.start()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and repo.index_fetches() == fetches:
        time.sleep(0.3)
    time.sleep(5)  # the resume handlers and the daemon have run
    assert repo.index_fetches() == fetches + 1
    after = condition(get(objects, namespace), "Ready")
    assert after["status"] == "True"
    assert after["lastTransitionTime"] == before["lastTransitionTime"]


def test_flux_reconcile_runs_a_failed_request_s_retry_now_not_after_its_backoff(
        controller: Any, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str,
        make_repo: Callable[..., Repo]) -> None:
    """A request whose chart version is not published yet retries with backoff (Kopf's delay in
    its progress annotation). A reconcile.fluxcd.io/requestedAt token, what `flux reconcile hr`
    writes, runs the retry at once: handled while the chart is still missing (the next delay is
    set again: no retry loop), then Ready once it is published, before the retry was due. (The
    chart comes by URL: a HelmRepository's new index would run the retry by itself, below.)"""
    repo = make_repo()
    repo.publish("1.0.0")
    setup_namespace(api, namespace, chart=None)
    request(objects, namespace, interval="10m",
            chart={"repository": {"url": repo.url, "name": "web", "version": "2.0.0"}})

    def progress(obj: dict[str, Any]) -> dict[str, Any]:
        """Kopf's record of the apply handler: its retries and the time of the next one."""
        annotations = obj["metadata"].get("annotations") or {}
        return dict(json.loads(annotations.get("helm-operator.helm.sh/apply") or "{}"))

    def delayed_until() -> datetime.datetime | None:
        record = progress(get(objects, namespace))
        return datetime.datetime.fromisoformat(record["delayed"]) if record.get("delayed") else None

    def annotate(token: str) -> None:
        objects.patch_namespaced_custom_object(
            "helm.sh", "v1alpha1", namespace, "helmrequests", "app",
            {"metadata": {"annotations": {"reconcile.fluxcd.io/requestedAt": token}}})

    # the third failure: the next retry is 20 s away
    wait_for(objects, namespace, lambda obj: (condition(obj, "Ready") or {}).get("reason")
             == "ChartVersionNotFound" and progress(obj).get("retries", 0) >= 3, timeout=60)
    annotate("still-missing")
    obj = wait_for(objects, namespace, lambda o: o.get("status", {}).get("lastHandledReconcileAt")
                   == "still-missing", timeout=15)
    assert (condition(obj, "Ready") or {}).get("reason") == "ChartVersionNotFound"
    due = None
    for _ in range(50):  # the failed run wrote its next delay (the token no longer drops it)
        due = delayed_until()
        if due is not None:
            break
        time.sleep(0.2)
    assert due is not None

    repo.publish("2.0.0")
    time.sleep(2)
    due = delayed_until()
    assert due is not None  # still waiting out its backoff
    annotate("published")
    obj = wait_for(objects, namespace, running("2.0.0"), timeout=60)
    assert obj["status"]["lastHandledReconcileAt"] == "published"
    ready_since = datetime.datetime.strptime(condition(obj, "Ready")["lastTransitionTime"],
                                             "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.UTC)
    assert ready_since < due, f"Ready at {ready_since}, the retry was due at {due}"


def test_flux_reconcile_source_fetches_the_index_now(
        controller: Any, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str,
        make_repo: Callable[..., Repo]) -> None:
    """`flux reconcile source helm` on a repository fetched 10 min apart: its token fetches the
    new index at once and is recorded; a second look at the same token fetches nothing."""
    repo = make_repo()
    repo.publish("1.0.0")
    setup_namespace(api, namespace, chart=None)
    helm_repository(objects, namespace, repo.url, interval="10m")
    deadline = time.monotonic() + 30
    while not repository_status(objects, namespace).get("artifact"):
        assert time.monotonic() < deadline, "the repository was never fetched"
        time.sleep(0.3)
    first = repository_status(objects, namespace)["artifact"]["digest"]
    assert repo.index_fetches() == 1
    repo.publish("1.1.0")
    objects.patch_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, "charts", {
        "metadata": {"annotations": {"reconcile.fluxcd.io/requestedAt": "now"}}})
    deadline = time.monotonic() + 30
    while repository_status(objects, namespace).get("lastHandledReconcileAt") != "now":
        assert time.monotonic() < deadline, f"token never handled: {repository_status(objects, namespace)}"
        time.sleep(0.3)
    st = repository_status(objects, namespace)
    assert st["artifact"]["digest"] != first
    time.sleep(3)  # the status write is an event too: it must not fetch again
    assert repo.index_fetches() == 2


def test_a_new_index_runs_a_source_failure_s_retry_at_once_and_an_unchanged_one_nothing(
        controller: Any, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str,
        make_repo: Callable[..., Repo]) -> None:
    """Flux reconciles a HelmRelease as soon as its chart source has a new artifact. A request
    whose version is not published yet waits out Kopf's backoff (ChartVersionNotFound); the
    repository's refetches of an unchanged index leave it waiting, and the index that publishes
    the version makes it Ready at once, long before its retry was due."""
    repo = make_repo()
    repo.publish("1.0.0")
    setup_namespace(api, namespace, chart=None)
    helm_repository(objects, namespace, repo.url)
    request(objects, namespace, interval="10m",
            chart={"repositoryRef": {"name": "charts", "chart": "web", "version": "2.0.0"}})
    touch_key = "helm-operator.helm.sh/touch-dummy"

    def progress(obj: dict[str, Any]) -> dict[str, Any]:
        annotations = obj["metadata"].get("annotations") or {}
        return dict(json.loads(annotations.get("helm-operator.helm.sh/apply") or "{}"))

    # the third failure: the next retry is 20 s away
    obj = wait_for(objects, namespace, lambda o: (condition(o, "Ready") or {}).get("reason")
                   == "ChartVersionNotFound" and progress(o).get("retries", 0) >= 3
                   and progress(o).get("delayed"), timeout=60)
    waiting = progress(obj)
    due = datetime.datetime.fromisoformat(waiting["delayed"])

    # the repository fetches its unchanged index again: nothing runs, nothing is written
    fetches = repo.index_fetches()
    deadline = time.monotonic() + 3 * REPO_INTERVAL_S
    while repo.index_fetches() < fetches + 1:
        assert time.monotonic() < deadline, "the repository never fetched its index again"
        time.sleep(0.2)
    time.sleep(1)
    obj = get(objects, namespace)
    assert progress(obj) == waiting
    assert touch_key not in (obj["metadata"].get("annotations") or {})

    published = time.monotonic()
    repo.publish("2.0.0")
    obj = wait_for(objects, namespace, running("2.0.0"), timeout=60)
    print(f"Ready {time.monotonic() - published:.1f} s after the publish (the repository fetches "
          f"every {REPO_INTERVAL_S} s), the retry was due "
          f"{(due - datetime.datetime.now(datetime.UTC)).total_seconds():.1f} s later")
    ready_since = datetime.datetime.strptime(condition(obj, "Ready")["lastTransitionTime"],
                                             "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.UTC)
    # (the time is cut to the second: a second's margin)
    assert ready_since + datetime.timedelta(seconds=1) < due, \
        f"Ready at {ready_since}, the retry was due at {due}"
    assert web_configmap(api, namespace, "app") == {"chartVersion": "2.0.0"}
    # Kopf's success patch dropped its record and the touch that woke it
    deadline = time.monotonic() + 10
    while True:
        annotations = get(objects, namespace)["metadata"].get("annotations") or {}
        if touch_key not in annotations and "helm-operator.helm.sh/apply" not in annotations:
            break
        assert time.monotonic() < deadline, annotations
        time.sleep(0.3)
