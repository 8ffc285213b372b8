"""``helm test`` records each test's last run in the tested version (helm's hook ``last_run``),
``status`` prints it as helm's TEST SUITE, ``-o json`` shows it in the hooks, filters store the
hooks in helm's order, and helm's own record carries it both ways (fake cluster). Against the
real API server and stock helm: e2e/test_release_cli_test_suite.py."""
from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from helm_core import cli
from helm_core.action import config, hooks, install
from helm_core.action import test as test_action
from helm_core.cli import release as cli_release
from helm_core.kube import client as kclient
from helm_core.kube import fake
from helm_core.storage import helmsecrets, secrets
from helm_core.storage import release as rel
from tests.action.conftest import configmap, make_chart

NS = "apps"


def _test_pod(name: str, *, weight: int = 0, phase: str = "Succeeded", event: str = "test") -> str:
    return (f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  annotations:\n"
            f"    helm.sh/hook: {event}\n    helm.sh/hook-weight: \"{weight}\"\nspec:\n"
            "  restartPolicy: Never\n  containers:\n  - name: main\n    image: busybox\n"
            f"status:\n  phase: {phase}\n")


class Clock:
    """``rel.now`` ticking one second a call from 2026-01-02 03:04:05 UTC after ``start``."""

    START = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)

    def __init__(self) -> None:
        self.ticks = 0

    def start(self) -> None:
        self.ticks = 0

    def now(self) -> dt.datetime:
        self.ticks += 1
        return self.START + dt.timedelta(seconds=self.ticks - 1)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    ticking = Clock()
    monkeypatch.setattr(rel, "now", ticking.now)
    return ticking


def _configuration(driver: str = "ours") -> config.Configuration:
    client = fake.FakeCluster((*fake.FAKE_RESOURCES, kclient.ApiResource("v1", "Pod", "pods", True))).client()
    store = secrets.SecretsDriver(client) if driver == "ours" else helmsecrets.HelmSecretsDriver(client)
    return config.Configuration(client=client, driver=store)


def _install(cfg: config.Configuration, root: Path, templates: dict[str, str]) -> rel.ReleaseVersion:
    chart = make_chart(root, {"a.yaml": configmap("a"), **templates})
    return install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace=NS))


def _stored(cfg: config.Configuration) -> rel.ReleaseVersion:
    return cfg.driver.history(NS, "web")[-1]


TWO_TESTS = {"t1.yaml": _test_pod("b-test"), "t2.yaml": _test_pod("a-test", weight=-1),
             "t3.yaml": _test_pod("setup", event="pre-install")}


def test_a_passed_run_is_stored_and_printed_as_helms_test_suite(tmp_path: Path, clock: Clock) -> None:
    cfg = _configuration()
    _install(cfg, tmp_path, TWO_TESTS)
    clock.start()
    assert "TEST SUITE" not in cli_release.test_suite_text(_stored(cfg))  # tests never run: no block
    test_action.run(cfg, "web", NS)
    stored = _stored(cfg)
    # run order a-test (weight -1) then b-test; one tick at each start and each end (the
    # pre-install hook's run, recorded by the install, stays as it was)
    assert stored.hook_runs[0].name == "setup" and stored.hook_runs[1:] == (
        rel.HookRun("Pod", "a-test", rel.HookPhase.SUCCEEDED, started=dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC),
                    completed=dt.datetime(2026, 1, 2, 3, 4, 6, tzinfo=dt.UTC)),
        rel.HookRun("Pod", "b-test", rel.HookPhase.SUCCEEDED, started=dt.datetime(2026, 1, 2, 3, 4, 7, tzinfo=dt.UTC),
                    completed=dt.datetime(2026, 1, 2, 3, 4, 8, tzinfo=dt.UTC)))
    # printed in stored hook order (b-test's template first), not run order
    assert cli_release.test_suite_text(stored) == (
        "TEST SUITE:     b-test\nLast Started:   Fri Jan  2 03:04:07 2026\n"
        "Last Completed: Fri Jan  2 03:04:08 2026\nPhase:          Succeeded\n"
        "TEST SUITE:     a-test\nLast Started:   Fri Jan  2 03:04:05 2026\n"
        "Last Completed: Fri Jan  2 03:04:06 2026\nPhase:          Succeeded\n")
    assert "REVISION: " in cli_release.status_text(stored)
    assert "TEST SUITE:     b-test\n" in cli_release.status_text(stored)
    assert "TEST SUITE: None" not in cli_release.status_text(stored)


def test_a_release_without_tests_has_no_test_suite(tmp_path: Path) -> None:
    cfg = _configuration()
    _install(cfg, tmp_path, {"t3.yaml": _test_pod("setup", event="pre-install")})
    test_action.run(cfg, "web", NS)
    assert cli_release.test_suite_text(_stored(cfg)) == "TEST SUITE: None\n"


def test_a_test_is_stored_running_when_it_starts(tmp_path: Path, clock: Clock) -> None:
    cfg = _configuration()
    _install(cfg, tmp_path, TWO_TESTS)
    clock.start()
    seen: list[tuple[str, str, tuple[str, ...]]] = []

    def observe(ref: kclient.ObjectRef, phase: str, _message: str) -> None:
        seen.append((ref.name, phase, tuple(f"{r.name}={r.phase.value}" for r in _stored(cfg).hook_runs)))
    test_action.run(cfg, "web", NS, observe=observe)
    assert seen == [("a-test", "Running", ("setup=Succeeded", "a-test=Running")),
                    ("a-test", "Succeeded", ("setup=Succeeded", "a-test=Running")),
                    ("b-test", "Running", ("setup=Succeeded", "a-test=Succeeded", "b-test=Running")),
                    ("b-test", "Succeeded", ("setup=Succeeded", "a-test=Succeeded", "b-test=Running"))]
    running = rel.HookRun("Pod", "b-test", rel.HookPhase.RUNNING,
                          started=dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC))
    # a run that never ended (the process died) prints Go's zero time as its completion
    assert cli_release.test_suite_text(_stored(cfg).replace(hook_runs=(running,))) == (
        "TEST SUITE:     b-test\nLast Started:   Fri Jan  2 03:04:05 2026\n"
        "Last Completed: Mon Jan  1 00:00:00 0001\nPhase:          Running\n")


def test_a_failed_test_is_stored_failed_and_the_rest_keep_their_last_run(tmp_path: Path, clock: Clock) -> None:
    cfg = _configuration()
    _install(cfg, tmp_path, {"t1.yaml": _test_pod("first", weight=1), "t2.yaml": _test_pod("second", weight=2)})
    test_action.run(cfg, "web", NS)
    before = _stored(cfg).last_run("Pod", "second")
    stored = _stored(cfg)
    first_fails = "---".join(doc.replace("phase: Succeeded", "phase: Failed") if "name: first" in doc else doc
                             for doc in stored.hooks.split("---"))
    cfg.driver.update(stored.replace(hooks=first_fails))
    with pytest.raises(hooks.HookError):
        test_action.run(cfg, "web", NS)
    after = _stored(cfg)
    assert after.last_run("Pod", "first").phase is rel.HookPhase.FAILED  # type: ignore[union-attr]
    assert after.last_run("Pod", "second") == before  # not run again: its earlier run stays


def test_filters_store_the_hooks_in_helms_order(tmp_path: Path) -> None:
    cfg = _configuration()
    _install(cfg, tmp_path, {"t1.yaml": _test_pod("one"), "t2.yaml": _test_pod("two"),
                             "t3.yaml": _test_pod("three"), "t4.yaml": _test_pod("setup", event="pre-install")})
    assert [h.name for h in hooks.parse(_stored(cfg).hooks)] == ["one", "two", "three", "setup"]
    test_action.run(cfg, "web", NS, filters=test_action.filters_from_flags(["!name=three", "name=one"]))
    # helm's ReleaseTesting.Run: the excluded, then those the include left out, then the kept
    assert [h.name for h in hooks.parse(_stored(cfg).hooks)] == ["three", "two", "setup", "one"]
    assert [r.name for r in _stored(cfg).hook_runs] == ["setup", "one"]
    test_action.run(cfg, "web", NS)  # no filter: the order stays as stored
    assert [h.name for h in hooks.parse(_stored(cfg).hooks)] == ["three", "two", "setup", "one"]


@pytest.mark.parametrize(("flags", "order"), [
    ([], "abcd"), (["!name=b"], "bacd"), (["name=c"], "abdc"), (["name=c,name=a", "!name=d"], "dbac")])
def test_stored_order(flags: list[str], order: str, tmp_path: Path) -> None:
    chart_hooks = {f"{n}.yaml": _test_pod(n) for n in "abcd"}
    stored = hooks.parse(_install(_configuration(), tmp_path, chart_hooks).hooks)
    ordered = test_action.stored_order(stored, test_action.filters_from_flags(flags))
    assert "".join(h.name for h in ordered) == order


def test_status_json_shows_the_hooks_with_their_last_run(tmp_path: Path, clock: Clock,
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    cfg = _configuration()
    _install(cfg, tmp_path, {"t1.yaml": _test_pod("one"), "t4.yaml": _test_pod("setup", event="pre-install"),
                             "t5.yaml": _test_pod("later", event="post-upgrade")})
    clock.start()
    test_action.run(cfg, "web", NS)
    monkeypatch.setattr(cli_release, "_configuration", lambda args: cfg)
    assert cli.main(["status", "web", "-n", NS, "-o", "json"]) == 0
    shown = json.loads(capsys.readouterr().out)["hooks"]
    assert [(h["name"], h["kind"], h["path"], h["events"], h["last_run"]) for h in shown] == [
        ("one", "Pod", "demo/templates/t1.yaml", ["test"],
         {"started_at": "2026-01-02T03:04:05Z", "completed_at": "2026-01-02T03:04:06Z", "phase": "Succeeded"}),
        ("setup", "Pod", "demo/templates/t4.yaml", ["pre-install"],  # run by the install
         {"started_at": "2026-01-02T03:04:06Z", "completed_at": "2026-01-02T03:04:07Z", "phase": "Succeeded"}),
        ("later", "Pod", "demo/templates/t5.yaml", ["post-upgrade"],
         {"started_at": "", "completed_at": "", "phase": ""})]
    # a hook that ran has helm's default delete policy; one that never ran none
    assert [h.get("delete_policies") for h in shown] == [["before-hook-creation"]] * 2 + [None]


def test_our_secret_keeps_the_runs_and_helms_record_its_last_run(clock: Clock) -> None:
    when = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)
    runs = (rel.HookRun("Pod", "a-test", rel.HookPhase.FAILED, started=when, completed=when),
            rel.HookRun("Job", "b-test", rel.HookPhase.RUNNING, started=when))
    version = rel.ReleaseVersion(name="web", namespace=NS, version=rel.revision_version(3),
                                 status=rel.Status.DEPLOYED, chart_name="demo", chart_version="0.1.0",
                                 hooks=_hook_doc("a-test", "Pod") + _hook_doc("b-test", "Job"), hook_runs=runs)
    assert secrets.decode(secrets.encode(version)).hook_runs == runs
    assert "hookRuns" not in secrets.encode(version.replace(hook_runs=()))["data"]  # nothing run: no key
    record = helmsecrets.to_helm(version)
    assert [h["last_run"] for h in record["hooks"]] == [
        {"started_at": "2026-01-02T03:04:05Z", "completed_at": "2026-01-02T03:04:05Z", "phase": "Failed"},
        {"started_at": "2026-01-02T03:04:05Z", "completed_at": "", "phase": "Running"}]
    assert helmsecrets.decode(helmsecrets.encode(version)).hook_runs == runs


def test_helms_own_last_run_is_read_as_it_writes_it(local_tz) -> None:  # noqa: ANN001
    """Stock helm writes nanoseconds and its local offset (read as Go reads it: the instant in
    that offset, printed in it as helm prints it, written back as it was); a hook never run has
    "" times and no phase."""
    local_tz("UTC")
    record = {"name": "web", "namespace": NS, "version": 2, "info": {"status": "deployed"},
              "chart": {"metadata": {"name": "demo", "version": "0.1.0"}},
              "hooks": [{"name": "t", "kind": "Pod", "path": "demo/templates/t.yaml", "events": ["test"],
                         "manifest": _hook_doc("t", "Pod").split("\n", 2)[2],
                         "last_run": {"started_at": "2026-01-02T04:04:05.123456789+01:00",
                                      "completed_at": "2026-01-02T04:04:09.5+01:00", "phase": "Succeeded"}},
                        {"name": "u", "kind": "Pod", "path": "demo/templates/u.yaml", "events": ["test"],
                         "manifest": _hook_doc("u", "Pod").split("\n", 2)[2],
                         "last_run": {"started_at": "", "completed_at": "", "phase": ""}}]}
    version = helmsecrets.from_helm(record)
    assert version.hook_runs == (rel.HookRun("Pod", "t", rel.HookPhase.SUCCEEDED,
                                             started=dt.datetime(2026, 1, 2, 3, 4, 5, 123456, tzinfo=dt.UTC),
                                             completed=dt.datetime(2026, 1, 2, 3, 4, 9, 500000, tzinfo=dt.UTC)),)
    assert cli_release.test_suite_text(version) == (
        "TEST SUITE:     t\nLast Started:   Fri Jan  2 04:04:05 2026\n"
        "Last Completed: Fri Jan  2 04:04:09 2026\nPhase:          Succeeded\n")
    assert helmsecrets.to_helm(version)["hooks"][0]["last_run"] == record["hooks"][0]["last_run"]


def test_a_release_kept_in_helms_format_records_the_runs_there(tmp_path: Path, clock: Clock) -> None:
    cfg = _configuration("helm")
    _install(cfg, tmp_path, TWO_TESTS)
    test_action.run(cfg, "web", NS)
    secret = cfg.client.get(kclient.ObjectRef("v1", "Secret", helmsecrets.secret_name("web", 1), NS))
    record = helmsecrets.to_helm(helmsecrets.decode(secret))
    assert {h["name"]: h["last_run"]["phase"] for h in record["hooks"]} == {
        "b-test": "Succeeded", "a-test": "Succeeded", "setup": "Succeeded"}


def test_after_release_reports_fluxs_test_hooks(tmp_path: Path, clock: Clock) -> None:
    cfg = _configuration()
    done = _install(cfg, tmp_path, {"t1.yaml": _test_pod("one"), "t2.yaml": _test_pod("two")})
    clock.start()
    report = test_action.after_release(cfg, done, test_action.TestOptions(
        filters=test_action.filters_from_flags(["!name=two"])))
    assert report.test_hooks == {
        "one": {"lastStarted": "2026-01-02T03:04:06Z", "lastCompleted": "2026-01-02T03:04:08Z",
                "phase": "Succeeded"},
        "two": {}}


def test_after_release_reports_a_failed_test_in_helms_words(tmp_path: Path) -> None:
    """The status (``lastTest``) and the condition carry helm's error of the failed test."""
    from helm_core.errors import TestFailedError
    cfg = _configuration()
    done = _install(cfg, tmp_path, {"t1.yaml": _test_pod("one"), "t2.yaml": _test_pod("two", phase="Failed")})
    with pytest.raises(TestFailedError) as caught:
        test_action.after_release(cfg, done, test_action.TestOptions())
    said = "1 error occurred:\n\t* pod two failed"
    assert str(caught.value) == f"test hooks of release web failed: {said}"
    summary = caught.value.summary
    assert (summary["phase"], summary["message"]) == ("Failed", said)
    assert [(h["name"], h["phase"], h.get("message")) for h in summary["hooks"]] == [
        ("one", "Succeeded", None), ("two", "Failed", "pod two failed")]


def _hook_doc(name: str, kind: str) -> str:
    return (f"---\n# Source: demo/templates/{name}.yaml\napiVersion: v1\nkind: {kind}\nmetadata:\n"
            f"  name: {name}\n  annotations:\n    helm.sh/hook: test\n")
