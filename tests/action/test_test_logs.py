"""helm's ``test --logs``: which test Pods' logs are read, in which order, and how ``helm-core
test`` prints them (status first, then ``POD LOGS: <name>`` blocks, then a test failure), on the
fake cluster. Against the real API server: e2e/test_release_cli_helm_habits.py."""
from __future__ import annotations

from pathlib import Path

import pytest

from helm_core import cli
from helm_core.action import config, hooks, install
from helm_core.action import test as test_action
from helm_core.cli import release as cli_release
from helm_core.errors import NotFoundError
from helm_core.kube import client as kclient
from helm_core.kube import fake
from helm_core.storage import secrets
from tests.action.conftest import configmap, make_chart

NS = "apps"


def _test_pod(name: str, *, weight: int = 0, event: str = "test") -> str:
    return (f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  annotations:\n"
            f"    helm.sh/hook: {event}\n    helm.sh/hook-weight: \"{weight}\"\nspec:\n"
            "  restartPolicy: Never\n  containers:\n  - name: main\n    image: busybox\n")


@pytest.fixture
def cluster() -> fake.FakeCluster:
    return fake.FakeCluster((*fake.FAKE_RESOURCES, kclient.ApiResource("v1", "Pod", "pods", True)))


@pytest.fixture
def cfg(cluster: fake.FakeCluster, tmp_path: Path) -> config.Configuration:
    client = cluster.client()
    cfg = config.Configuration(client=client, driver=secrets.SecretsDriver(client))
    chart = make_chart(tmp_path, {"a.yaml": configmap("a"), "NOTES.txt": "see {{ .Release.Name }}",
                                  "t1.yaml": _test_pod("b-test"), "t2.yaml": _test_pod("a-test"),
                                  "t3.yaml": _test_pod("late", weight=5),
                                  "t4.yaml": _test_pod("old-style", weight=9, event="test-success"),
                                  "t5.yaml": _test_pod("setup", event="pre-install")})
    install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace=NS, no_hooks=True))
    for name in ("a-test", "b-test", "late", "old-style"):
        client.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": NS}})
        cluster.logs[(NS, name)] = f"log of {name}\n"
    return cfg


def test_logs_of_the_test_pods_in_run_order(cfg: config.Configuration) -> None:
    release = cfg.driver.history(NS, "web")[-1]
    assert list(test_action.logs(cfg, release, NS)) == [
        ("a-test", "log of a-test\n"), ("b-test", "log of b-test\n"), ("late", "log of late\n"),
        ("old-style", "log of old-style\n")]
    kept = test_action.filters_from_flags(["!name=b-test", "!name=late"])
    assert [name for name, _ in test_action.logs(cfg, release, NS, kept)] == ["a-test", "old-style"]
    only = test_action.filters_from_flags(["name=late"])
    assert [name for name, _ in test_action.logs(cfg, release, NS, only)] == ["late"]


def test_a_pod_that_is_gone_fails_in_helms_words(cfg: config.Configuration) -> None:
    cfg.client.delete(kclient.ObjectRef("v1", "Pod", "b-test", NS))
    release = cfg.driver.history(NS, "web")[-1]
    logs = test_action.logs(cfg, release, NS)
    assert next(logs)[0] == "a-test"  # read one at a time: the first is printed before the second fails
    with pytest.raises(NotFoundError) as failed:
        next(logs)
    assert str(failed.value) == 'unable to get pod logs for b-test: pods "b-test" not found'


@pytest.fixture
def cli_on_fake(cfg: config.Configuration, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """``helm-core test`` on the fake cluster; the tests themselves 'run' as the list says."""
    outcome: list[str] = []
    monkeypatch.setattr(cli_release, "_configuration", lambda args: cfg)

    def run(*args: object, **kwargs: object) -> list[kclient.ObjectRef]:
        if outcome:
            raise hooks.HookError(outcome[0], event="test")
        return []
    monkeypatch.setattr(test_action, "run", run)
    return outcome


def test_cli_prints_status_then_each_log(cli_on_fake: list[str], cfg: config.Configuration,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["test", "web", "-n", NS, "--logs", "--filter", "!name=late"]) == 0
    out = capsys.readouterr().out
    release = cfg.driver.history(NS, "web")[-1]
    assert out == (cli_release.status_text(release) + "\nPOD LOGS: a-test\nlog of a-test\n\n"
                   "POD LOGS: b-test\nlog of b-test\n\nPOD LOGS: old-style\nlog of old-style\n\n")
    assert cli.main(["test", "web", "-n", NS, "--hide-notes"]) == 0
    assert capsys.readouterr().out == cli_release.status_text(release, hide_notes=True)


def test_cli_prints_status_and_logs_of_failed_tests_then_fails(
        cli_on_fake: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    cli_on_fake.append("1 error occurred:\n\t* pod b-test failed\n\n")
    assert cli.main(["test", "web", "-n", NS, "--logs"]) == 1
    out, err = capsys.readouterr()
    assert out.startswith("NAME: web\n") and "POD LOGS: b-test\nlog of b-test\n" in out
    assert err == "Error: 1 error occurred:\n\t* pod b-test failed\n\n\n"


def test_cli_stops_at_the_first_pod_it_cannot_read(cli_on_fake: list[str], cfg: config.Configuration,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    cfg.client.delete(kclient.ObjectRef("v1", "Pod", "b-test", NS))
    assert cli.main(["test", "web", "-n", NS, "--logs"]) == 1
    out, err = capsys.readouterr()
    assert out.endswith("\nPOD LOGS: a-test\nlog of a-test\n\n")
    assert err == 'Error: unable to get pod logs for b-test: pods "b-test" not found\n'
