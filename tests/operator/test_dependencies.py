"""``spec.dependsOn`` as Flux's helm-controller checks it: a request waits, DependencyNotReady,
until each dependency exists and is Ready for its own generation; the wait is no failure."""
from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace

import pytest

from helm_core.support.records import replace
from helm_operator import dependencies, handlers, runner, settings, status
from tests.operator.test_runner import NS, World, conditions


def _wait(w: World, name: str) -> runner.WaitingForDependencies:
    with pytest.raises(runner.WaitingForDependencies) as waiting:
        w.run(name)
    return waiting.value


def test_a_request_waits_for_its_dependency_then_installs_once_it_is_ready(tmp_path):
    w = World(tmp_path)
    w.request("db")
    w.request("app", dependsOn=[{"name": "db"}])
    waiting = _wait(w, "app")
    assert str(waiting) == f"dependency '{NS}/db' is not ready"
    assert waiting.seconds == 30.0  # Flux's --requeue-dependency default
    app = w.current("app")
    assert conditions(app) == {"Ready": ("False", "DependencyNotReady"),
                               "Reconciling": ("True", "Progressing")}
    assert status.get_condition(app["status"], "Reconciling")["message"] == "Fulfilling prerequisites"
    assert "observedGeneration" not in app["status"]  # Flux: the generation is not handled yet
    assert not app["status"].get("failures") and "version" not in app["status"]
    assert w.events == [("Normal", "DependencyNotReady", f"dependency '{NS}/db' is not ready")]
    assert w.metrics.registry.get_sample_value(
        "helm_operator_reconciles_total", {"action": "dependencies", "result": "not-ready"}) == 1

    _wait(w, "app")  # a second look, still waiting: no new write, no new Event
    assert w.current("app")["metadata"]["resourceVersion"] == app["metadata"]["resourceVersion"]
    assert len(w.events) == 1

    w.run("db")
    out = w.run("app")
    assert conditions(out)["Ready"] == ("True", "InstallSucceeded")
    assert "Reconciling" not in conditions(out)
    assert out["status"]["observedGeneration"] == 1


def test_a_dependency_ready_for_an_older_generation_is_not_ready(tmp_path):
    w = World(tmp_path)
    w.request("db")
    w.run("db")
    w.edit("db", values={"n": 1})  # generation 2, not handled yet
    w.request("app", dependsOn=[{"name": "db", "namespace": NS}])
    assert str(_wait(w, "app")) == f"dependency '{NS}/db' is not ready"


def test_a_missing_dependency_says_so_in_flux_s_words(tmp_path):
    w = World(tmp_path)
    w.request("app", dependsOn=[{"name": "gone", "namespace": "other"}])
    assert str(_wait(w, "app")) == ("unable to get 'other/gone' dependency: "
                                    "helmrequests.helm.sh \"gone\" not found")
    w.edit("app", suspend=True)  # Flux: a suspended request checks no dependency
    assert conditions(w.run("app"))["Ready"][1] == "Suspended"


def test_a_request_depending_on_itself_or_a_cycle_waits_without_trying(tmp_path):
    w = World(tmp_path)
    w.request("a", dependsOn=[{"name": "b"}])
    w.request("b", dependsOn=[{"name": "a"}])
    w.request("self", dependsOn=[{"name": "self"}])
    for name in ("a", "b", "self", "a", "b", "self"):
        _wait(w, name)
    assert [reason for _type, reason, _msg in w.events] == ["DependencyNotReady"] * 3
    for name in ("a", "b", "self"):  # nothing installed
        assert "version" not in w.current(name)["status"]


def test_a_ready_request_whose_dependency_is_no_longer_ready_waits_on_its_interval_check(tmp_path):
    w = World(tmp_path)
    w.request("db")
    w.run("db")
    w.request("app", dependsOn=[{"name": "db"}])
    w.run("app")
    w.edit("db", values={"n": 2})
    with pytest.raises(runner.WaitingForDependencies):
        runner.apply(w.rt, w.current("app"), retry=0, metrics=w.metrics, interval_check=True)
    app = w.current("app")
    assert conditions(app)["Ready"] == ("False", "DependencyNotReady")
    assert app["status"]["observedGeneration"] == 1  # kept, as Flux keeps it
    # the next interval check is due (the wait's, not the request's interval)
    assert runner._due_on_interval(app["status"], 1)
    w.run("db")
    runner.apply(w.rt, w.current("app"), retry=0, metrics=w.metrics, interval_check=True)
    assert conditions(w.current("app"))["Ready"][0] == "True"


def test_the_check_reads_dependencies_as_the_controller_in_any_namespace(tmp_path):
    # Flux reads dependencies with its own reader, and --no-cross-namespace-refs covers sources only
    w = World(tmp_path, no_cross_namespace_refs=True)
    body = {"metadata": {"name": "app", "namespace": NS},
            "spec": {"dependsOn": [{"name": "db", "namespace": "elsewhere"}]}}
    w.admin.create({"apiVersion": "helm.sh/v1alpha1", "kind": "HelmRequest",
                    "metadata": {"name": "db", "namespace": "elsewhere", "generation": 3},
                    "status": {"observedGeneration": 3, "conditions": [
                        {"type": "Ready", "status": "True", "reason": "InstallSucceeded"}]}})
    assert dependencies.not_ready(w.admin, body) is None
    w.admin.create({"apiVersion": "helm.sh/v1alpha1", "kind": "HelmRequest",
                    "metadata": {"name": "db", "namespace": "third", "generation": 1}})
    body["spec"]["dependsOn"].append({"name": "db", "namespace": "third"})
    assert dependencies.not_ready(w.admin, body) == "dependency 'third/db' is not ready"
    assert dependencies.not_ready(w.admin, {"metadata": {"namespace": NS}, "spec": {}}) is None


def test_the_requeue_interval_is_the_setting(tmp_path):
    w = World(tmp_path)
    w.rt = replace(w.rt, settings=settings.OperatorSettings(
        runtime=settings.RuntimeSettings(requeue_dependency_s=5.0)))
    w.request("app", dependsOn=[{"name": "gone"}])
    assert _wait(w, "app").seconds == 5.0


def test_a_wait_makes_the_daemon_look_again_after_the_requeue_interval_not_the_interval():
    async def main() -> tuple[float, bool]:
        woken = asyncio.Event()
        memo = SimpleNamespace(last_check={"u1": time.monotonic()}, wakeups={"u1": woken})
        handlers.recheck(memo, "u1", 600.0, 30.0)
        return handlers.until_due(memo.last_check["u1"], 600.0, time.monotonic()), woken.is_set()

    remaining, woken = asyncio.run(main())
    assert 29.0 < remaining <= 30.0 and woken


def test_a_request_waiting_for_dependencies_is_not_busy():
    body = {"metadata": {"generation": 2}, "status": status.waiting_for_dependencies(
        {"observedGeneration": 1}, generation=2, message="dependency 'a/b' is not ready", now="t")}
    assert not handlers._busy(body)


def test_an_install_failing_right_after_a_dependency_wait_retries_with_backoff_as_any(tmp_path):
    """The interval check that finds the dependencies Ready makes the generation's first try:
    its failure is retried as any failed install is (Reconciling ProgressingWithRetry, backoff
    5 s, 10 s..., its remediation's retries), by the check itself (Kopf's handler is done with
    that generation), not at ``spec.interval`` (RetryingOnInterval)."""
    from tests.operator.test_runner import _hooked

    w = World(tmp_path)
    _hooked(w)
    w.request("db")
    w.request("app", chart={"configMapRef": {"name": "hooked"}}, values={"fail": "pre-install"},
              install={"wait": False, "remediation": {"retries": 2}}, dependsOn=[{"name": "db"}])
    _wait(w, "app")
    w.run("db")
    memo = SimpleNamespace(runtime=w.rt, metrics=w.metrics, retrying={})
    assert handlers._interval_check(memo, w.current("app")) == 5.0  # the backoff, not the 600 s interval
    app = w.current("app")
    assert conditions(app)["Reconciling"] == ("True", "ProgressingWithRetry")
    assert conditions(app)["Released"] == ("False", "InstallFailed")
    assert app["status"]["installFailures"] == 1
    assert memo.retrying == {"uid-app": (1, 1)}
    # its retry runs though a Kopf retry would not be due on the interval, and backs off
    assert not runner._due_on_interval(app["status"], 1)
    assert handlers._interval_check(memo, w.current("app")) == 10.0
    assert w.current("app")["status"]["installFailures"] == 2
    assert handlers._interval_check(memo, w.current("app")) is None  # retries used up: Stalled
    app = w.current("app")
    assert conditions(app)["Stalled"] == ("True", "RetriesExceeded") and memo.retrying == {}
    assert app["status"]["installFailures"] == 3
    # the next check is an interval check again: held, nothing tried
    assert handlers._interval_check(memo, w.current("app")) is None
    assert w.current("app")["status"]["installFailures"] == 3
