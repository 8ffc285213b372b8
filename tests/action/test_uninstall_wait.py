"""``uninstall --wait``: a deletion wait past its timeout does not stop the uninstall; helm
finishes it (post-delete hooks, history), then says what failed, as its ``Uninstall.Run`` joins
its errors. Beside stock helm: e2e/test_release_cli_helm_parity.py."""
from __future__ import annotations

from pathlib import Path

import pytest

from helm_core.action import config, install, uninstall
from helm_core.errors import HookError, WaitError
from helm_core.kube import client as kclient
from helm_core.kube import fake
from helm_core.kube import wait as kwait
from helm_core.storage import release as rel
from helm_core.storage import secrets
from tests.action.conftest import configmap, make_chart
from tests.action.test_hooks import NS, _job


@pytest.fixture
def waited(monkeypatch: pytest.MonkeyPatch) -> list[list[kclient.ObjectRef]]:
    """Deletions that never finish in time (the fake cluster deletes at once): what was waited for."""
    asked: list[list[kclient.ObjectRef]] = []

    def never_gone(client: kclient.ClusterClient, refs: list[kclient.ObjectRef], *,
                   options: kwait.WaitOptions) -> None:
        asked.append(list(refs))
        raise WaitError(f"timed out after {options.timeout_s:g}s waiting for deletion", timed_out=True)

    monkeypatch.setattr(kwait, "wait_deleted", never_gone)
    return asked


@pytest.fixture
def cfg() -> config.Configuration:
    client = fake.FakeCluster(fake.FAKE_RESOURCES + (kclient.ApiResource("batch/v1", "Job", "jobs", True),)).client()
    return config.Configuration(client=client, driver=secrets.SecretsDriver(client))


@pytest.mark.parametrize("keep_history", [False, True], ids=["purged", "kept"])
def test_a_wait_past_its_timeout_still_completes_the_uninstall(
        cfg: config.Configuration, waited: list[list[kclient.ObjectRef]], tmp_path: Path, keep_history: bool) -> None:
    chart = make_chart(tmp_path, {"a.yaml": configmap("a"), "j.yaml": _job("after", "post-delete")})
    install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace=NS))
    with pytest.raises(WaitError) as caught:
        uninstall.run(cfg, "web", NS, uninstall.UninstallOptions(wait=True, timeout_s=2,
                                                                 keep_history=keep_history))
    assert str(caught.value) == "uninstallation completed with 1 error(s): context deadline exceeded"
    assert waited == [[kclient.ObjectRef("v1", "ConfigMap", "a", NS)]]
    assert any(j["metadata"]["name"] == "after" for j in cfg.client.list("batch/v1", "Job", namespace=NS))
    history = cfg.driver.history(NS, "web")
    assert [v.status for v in history] == ([rel.Status.UNINSTALLED] if keep_history else [])


def test_a_failed_post_delete_hook_joins_the_wait_error(
        cfg: config.Configuration, waited: list[list[kclient.ObjectRef]], tmp_path: Path) -> None:
    chart = make_chart(tmp_path, {"a.yaml": configmap("a"), "j.yaml": _job("after", "post-delete", failed=True)})
    install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace=NS))
    with pytest.raises(HookError) as caught:
        uninstall.run(cfg, "web", NS, uninstall.UninstallOptions(wait=True, timeout_s=2))
    assert str(caught.value) == ("uninstallation completed with 2 error(s): context deadline exceeded; "
                                 "1 error occurred:\n\t* job after failed: BackoffLimitExceeded\n\n")
    assert caught.value.event == "post-delete"
    assert cfg.driver.history(NS, "web") == []
