"""Hook ordering, storage round trip and failures (fake cluster with Jobs)."""
from __future__ import annotations

from pathlib import Path

import pytest

from helm_core.engine import manifests as mf
from helm_core.action import config, hooks, install
from helm_core.errors import ClusterError, HelmError, UndoneError
from helm_core.kube import client as kclient
from helm_core.kube import fake
from helm_core.storage import secrets
from tests.action.conftest import configmap, make_chart

NS = "apps"


def _job(name: str, event: str, *, weight: int = 0, policy: str = "", failed: bool = False) -> str:
    policy_line = f"    helm.sh/hook-delete-policy: {policy}\n" if policy else ""
    condition = ("Failed", "BackoffLimitExceeded") if failed else ("Complete", "Done")
    return (f"apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {name}\n  annotations:\n"
            f"    helm.sh/hook: {event}\n    helm.sh/hook-weight: \"{weight}\"\n{policy_line}"
            f"status:\n  conditions:\n  - type: {condition[0]}\n    status: \"True\"\n"
            f"    reason: {condition[1]}\n    message: the message\n")


@pytest.fixture
def jobs_cfg() -> config.Configuration:
    cluster = fake.FakeCluster(fake.FAKE_RESOURCES + (
        kclient.ApiResource("batch/v1", "Job", "jobs", True),))
    client = cluster.client()
    lines: list[str] = []
    return config.Configuration(client=client, driver=secrets.SecretsDriver(client),
                                log=lines.append)


def _exists(cfg: config.Configuration, name: str) -> bool:
    return any(o["metadata"]["name"] == name for o in cfg.client.list("batch/v1", "Job", namespace=NS))


def test_hooks_run_by_weight_then_name_and_delete_policies_apply(
        jobs_cfg: config.Configuration, tmp_path: Path) -> None:
    lines: list[str] = []
    cfg = config.Configuration(client=jobs_cfg.client, driver=jobs_cfg.driver, log=lines.append)
    chart = make_chart(tmp_path, {
        "a.yaml": configmap("a"),
        "j1.yaml": _job("zeta", "pre-install", weight=1),
        "j2.yaml": _job("beta", "pre-install", weight=1, policy="hook-succeeded"),
        "j3.yaml": _job("first", "pre-install,post-install", weight=-5),
    })
    done = install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace=NS))
    assert [line for line in lines if line.startswith("running")] == [
        'running pre-install hook Job "first" in namespace "apps"',
        'running pre-install hook Job "beta" in namespace "apps"',
        'running pre-install hook Job "zeta" in namespace "apps"',
        'running post-install hook Job "first" in namespace "apps"']
    assert not _exists(cfg, "beta") and _exists(cfg, "zeta")
    stored = hooks.parse(done.hooks)
    assert [(h.name, h.events, h.weight) for h in stored] == [
        ("zeta", ["pre-install"], 1), ("beta", ["pre-install"], 1),
        ("first", ["pre-install", "post-install"], -5)]
    assert hooks.format_hooks(stored) == done.hooks


def test_a_failed_hook_job_fails_the_install_with_its_reason(
        jobs_cfg: config.Configuration, tmp_path: Path) -> None:
    chart = make_chart(tmp_path, {"a.yaml": configmap("a"),
                                  "j.yaml": _job("migrate", "pre-install", failed=True,
                                                 policy="hook-failed")})
    with pytest.raises(hooks.HookError) as caught:
        install.run(jobs_cfg, chart, {}, install.InstallOptions(name="web", namespace=NS))
    # helm's words: install.go's wrap of WatchUntilReady's go-multierror list
    assert str(caught.value) == ("failed pre-install: 1 error occurred:\n"
                                 "\t* job migrate failed: BackoffLimitExceeded\n\n")
    assert caught.value.event == "pre-install"
    assert not _exists(jobs_cfg, "migrate")
    assert jobs_cfg.client.list("v1", "ConfigMap", namespace=NS) == []
    # the version was stored, then marked failed: callers remediating failed releases read it
    [stored] = jobs_cfg.driver.history(NS, "web")
    assert (stored.status.value, caught.value.failed_version) == ("failed", str(stored.version))


def test_a_failure_before_the_version_is_stored_names_no_failed_version(
        jobs_cfg: config.Configuration, tmp_path: Path) -> None:
    chart = make_chart(tmp_path, {"a.yaml": "apiVersion: v9\nkind: Unknown\nmetadata:\n  name: a\n"})
    with pytest.raises(HelmError) as caught:
        install.run(jobs_cfg, chart, {}, install.InstallOptions(name="web", namespace=NS))
    assert caught.value.failed_version is None
    assert jobs_cfg.driver.history(NS, "web") == []


def test_atomic_install_removes_objects_hooks_and_history(
        jobs_cfg: config.Configuration, tmp_path: Path) -> None:
    chart = make_chart(tmp_path, {"a.yaml": configmap("a"),
                                  "j.yaml": _job("check", "post-install", failed=True)})
    with pytest.raises(HelmError, match="^release web failed, and has been uninstalled due to atomic "
                                        "being set: failed post-install: 1 error occurred:\n\t\\* job check failed: ") as caught:
        install.run(jobs_cfg, chart, {}, install.InstallOptions(name="web", namespace=NS,
                                                                atomic=True))
    # what was undone, and the failure it undid (stored, then removed with the history)
    assert isinstance(caught.value, UndoneError) and caught.value.undo == "uninstall"
    assert isinstance(caught.value.cause, hooks.HookError)
    assert caught.value.failed_version == caught.value.cause.failed_version is not None
    assert jobs_cfg.client.list("v1", "ConfigMap", namespace=NS) == []
    assert not _exists(jobs_cfg, "check")
    assert jobs_cfg.driver.history(NS, "web") == []


@pytest.mark.parametrize(("event", "names"), [
    ("pre-install", ["b", "a"]), ("test", ["t"]), ("post-delete", [])],
    ids=["weights", "test", "none"])
def test_for_event_selects_and_orders(event: str, names: list[str]) -> None:
    def hook(name: str, events: list[str], weight: int) -> mf.Hook:
        return mf.Hook(mf.Manifest("x", "", {"kind": "Job", "metadata": {"name": name}}),
                       events, weight, [], [])
    all_hooks = [hook("a", ["pre-install"], 2), hook("b", ["pre-install"], -1), hook("t", ["test"], 0)]
    assert [h.name for h in hooks.for_event(all_hooks, event)] == names


def _pod_hook(name: str, status: str) -> str:
    return (f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  annotations:\n"
            f"    helm.sh/hook: test\nspec:\n  containers:\n  - name: main\n    image: busybox\n{status}")


@pytest.mark.parametrize(("status", "passes"), [
    ("status:\n  phase: Succeeded\n", True),
    ("status:\n  phase: Running\n  conditions:\n  - type: Ready\n    status: \"True\"\n", False),
    ("status:\n  phase: Pending\n", False),
], ids=["succeeded", "running-and-ready", "pending"])
def test_a_pod_hook_is_done_once_it_succeeded_not_when_it_is_ready(tmp_path: Path, status: str,
                                                                    passes: bool) -> None:
    """helm waits for a hook Pod to succeed; Ready (what --wait wants of a Pod) is not enough."""
    cluster = fake.FakeCluster(fake.FAKE_RESOURCES + (kclient.ApiResource("v1", "Pod", "pods", True),))
    client = cluster.client()
    cfg = config.Configuration(client=client, driver=secrets.SecretsDriver(client))
    chart = make_chart(tmp_path, {"a.yaml": configmap("a"), "t.yaml": _pod_hook("smoke", status)})
    done = install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace=NS))
    owner = config.owner(cfg, namespace=NS, name="web")
    if passes:
        assert hooks.run(cfg, hooks.parse(done.hooks), "test", owner=owner, timeout_s=1) == [
            kclient.ObjectRef("v1", "Pod", "smoke", NS)]
    else:
        with pytest.raises(hooks.HookError) as caught:
            hooks.run(cfg, hooks.parse(done.hooks), "test", owner=owner, timeout_s=0.1)
        assert str(caught.value) == "1 error occurred:\n\t* timed out waiting for the condition\n\n"


def test_a_failed_pod_hook_says_helms_words(tmp_path: Path) -> None:
    """helm's waitForPodSuccess: ``pod NAME failed``, in WatchUntilReady's list; bare for ``test``."""
    cluster = fake.FakeCluster(fake.FAKE_RESOURCES + (kclient.ApiResource("v1", "Pod", "pods", True),))
    client = cluster.client()
    cfg = config.Configuration(client=client, driver=secrets.SecretsDriver(client))
    chart = make_chart(tmp_path, {"a.yaml": configmap("a"), "t.yaml": _pod_hook("smoke", "status:\n  phase: Failed\n")})
    done = install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace=NS))
    with pytest.raises(hooks.HookError) as caught:
        hooks.run(cfg, hooks.parse(done.hooks), "test", owner=config.owner(cfg, namespace=NS, name="web"),
                  timeout_s=1)
    assert (str(caught.value), caught.value.event) == ("1 error occurred:\n\t* pod smoke failed\n\n", "test")


def _runs(version) -> dict[str, str]:  # noqa: ANN001
    return {run.name: run.phase.value for run in version.hook_runs}


def test_every_action_records_the_runs_of_its_hooks_in_its_version(
        jobs_cfg: config.Configuration, tmp_path: Path) -> None:
    """helm keeps each hook's last run in the release it ran for (its ``last_run``)."""
    from helm_core.action import rollback, uninstall, upgrade

    chart = make_chart(tmp_path, {"a.yaml": configmap("a"),
                                  "i.yaml": _job("setup", "pre-install,post-install"),
                                  "u.yaml": _job("migrate", "pre-upgrade"),
                                  "r.yaml": _job("restore", "post-rollback"),
                                  "d.yaml": _job("goodbye", "pre-delete")})
    installed = install.run(jobs_cfg, chart, {}, install.InstallOptions(name="web", namespace=NS))
    assert _runs(installed) == {"setup": "Succeeded"} == _runs(jobs_cfg.driver.history(NS, "web")[-1])
    upgraded = upgrade.run(jobs_cfg, chart, {}, upgrade.UpgradeOptions(name="web", namespace=NS))
    assert _runs(upgraded) == {"migrate": "Succeeded"}  # a new version: the hooks it ran
    rolled = rollback.run(jobs_cfg, "web", NS, installed.version)
    # helm's rollback copies the target's hooks with their runs, then runs its own
    assert _runs(rolled) == {"setup": "Succeeded", "restore": "Succeeded"}
    done = uninstall.run(jobs_cfg, "web", NS, uninstall.UninstallOptions(keep_history=True)).release
    assert done is not None and _runs(done) == {"setup": "Succeeded", "restore": "Succeeded",
                                                "goodbye": "Succeeded"}
    assert _runs(jobs_cfg.driver.history(NS, "web")[-1]) == _runs(done)


def test_a_failed_hook_is_recorded_failed_in_the_failed_version(
        jobs_cfg: config.Configuration, tmp_path: Path) -> None:
    chart = make_chart(tmp_path, {"a.yaml": configmap("a"), "j.yaml": _job("migrate", "pre-install", failed=True)})
    with pytest.raises(hooks.HookError):
        install.run(jobs_cfg, chart, {}, install.InstallOptions(name="web", namespace=NS))
    [failed] = jobs_cfg.driver.history(NS, "web")
    assert _runs(failed) == {"migrate": "Failed"} and failed.hook_runs[0].completed is not None


def test_a_failed_post_rollback_hook_leaves_the_version_pending_and_what_it_created(
        jobs_cfg: config.Configuration, tmp_path: Path) -> None:
    """helm's rollback returns on a failed hook without writing its release again, and cleans up
    (``--cleanup-on-fail``) only after objects failed to apply: the new version stays
    ``pending-rollback`` as its hook's start stored it, the newest one before stays deployed,
    and the object the rollback created stays."""
    from helm_core.action import rollback, upgrade
    from helm_core.storage import release as rel

    chart = make_chart(tmp_path, {"a.yaml": configmap("a"), "b.yaml": configmap("b", condition=".Values.b"),
                                  "r.yaml": _job("restore", "post-rollback", failed=True)})
    installed = install.run(jobs_cfg, chart, {"b": True}, install.InstallOptions(name="web", namespace=NS))
    upgrade.run(jobs_cfg, chart, {"b": False}, upgrade.UpgradeOptions(name="web", namespace=NS))
    with pytest.raises(hooks.HookError, match="^1 error occurred:\n\t\\* job restore failed: "):
        rollback.run(jobs_cfg, "web", NS, installed.version, rollback.RollbackOptions(cleanup_on_fail=True))
    *_, upgraded, rolled = jobs_cfg.driver.history(NS, "web")
    assert (upgraded.status, rolled.status) == (rel.Status.DEPLOYED, rel.Status.PENDING_ROLLBACK)
    assert rolled.description == f"Rollback to {installed.version}"
    assert _runs(rolled) == {"restore": "Running"}
    assert jobs_cfg.client.get(kclient.ObjectRef("v1", "ConfigMap", "b", NS))


class _RefusingHooks(fake.FakeClient):
    """Refuses to apply a ConfigMap named ``refused`` as the API server refuses an invalid one."""

    ANSWER = 'ConfigMap "refused" is invalid: data[a b]: Invalid value: "a b": a valid config key must ...'

    def apply(self, obj, **kw):  # type: ignore[no-untyped-def]  # noqa: ANN001, ANN003
        if obj.get("metadata", {}).get("name") == "refused":
            raise ClusterError(f"apply {kclient.ObjectRef.of(obj)}: {self.ANSWER}", answer=self.ANSWER)
        return super().apply(obj, **kw)


@pytest.mark.parametrize(("event", "wrapped"), [("pre-install", "failed pre-install: {}"),
                                                ("post-upgrade", "post-upgrade hooks failed: {}"),
                                                ("pre-delete", "{}")])
def test_a_hook_the_server_refuses_says_helms_words(
        tmp_path: Path, event: str, wrapped: str) -> None:
    """helm's execHook: ``warning: Hook EVENT PATH failed:`` and the Create's go-multierror list
    of the server's answer (without the request helm-core names before it), as the action wraps it."""
    client = _RefusingHooks(fake.FakeCluster())
    cfg = config.Configuration(client=client, driver=secrets.SecretsDriver(client))
    chart = make_chart(tmp_path, {"a.yaml": configmap("a"), "h.yaml": (
        f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: refused\n  annotations:\n"
        f"    helm.sh/hook: {event}\ndata:\n  a: b\n")})
    done = install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace=NS, no_hooks=True))
    with pytest.raises(hooks.HookError) as caught:
        hooks.run(cfg, hooks.parse(done.hooks), event, owner=config.owner(cfg, namespace=NS, name="web"),
                  timeout_s=1)
    said = f"warning: Hook {event} demo/templates/h.yaml failed: 1 error occurred:\n\t* {_RefusingHooks.ANSWER}\n\n"
    assert (str(caught.value), caught.value.event) == (wrapped.format(said), event)
    assert isinstance(caught.value.refusal, ClusterError)  # the controller retries as the server's answer says
