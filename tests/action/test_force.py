"""helm's ``--force`` on the fake cluster: existing objects of the release are replaced (PUT), so
fields another manager set are gone, where a plain upgrade or rollback applies over them; new
objects are created and dropped ones deleted as without it; refusals read as helm's."""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from helm_core.action import config, install, rollback, upgrade
from helm_core.errors import ClusterError, HelmError
from helm_core.kube import client as kclient
from helm_core.kube import fake
from helm_core.storage import release as rel
from helm_core.storage import secrets
from tests.action.conftest import configmap, make_chart

NS = "apps"
NOTE = "example.com/note"


def _cm(cfg: config.Configuration, name: str) -> dict[str, Any]:
    return cfg.client.get(kclient.ObjectRef("v1", "ConfigMap", name, NS))


def _annotate(cluster: fake.FakeCluster, name: str) -> None:
    """What ``kubectl annotate`` does: another manager writes one field of the object."""
    cluster.client(field_manager="kubectl").apply({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": NS, "annotations": {NOTE: "by hand"}}})


def _installed(cfg: config.Configuration, tmp_path: Path) -> Any:
    chart = make_chart(tmp_path, {"a.yaml": configmap("a")})
    install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace=NS))
    return chart


def test_a_plain_upgrade_keeps_another_managers_field_and_force_replaces_the_object(
        cluster: fake.FakeCluster, cfg: config.Configuration, tmp_path: Path) -> None:
    chart = _installed(cfg, tmp_path)
    _annotate(cluster, "a")
    upgrade.run(cfg, chart, {"greeting": "two"}, upgrade.UpgradeOptions(name="web", namespace=NS))
    assert _cm(cfg, "a")["metadata"]["annotations"][NOTE] == "by hand"
    uid = _cm(cfg, "a")["metadata"]["uid"]
    done = upgrade.run(cfg, chart, {"greeting": "three"},
                       upgrade.UpgradeOptions(name="web", namespace=NS, force=True))
    assert done.status is rel.Status.DEPLOYED
    forced = _cm(cfg, "a")
    assert NOTE not in forced["metadata"]["annotations"]
    assert forced["metadata"]["annotations"]["meta.helm.sh/release-name"] == "web"  # still ours
    assert forced["data"] == {"greeting": "three"}
    assert forced["metadata"]["uid"] == uid  # replaced in place, not deleted and created


def test_force_creates_new_objects_and_deletes_dropped_ones(cfg: config.Configuration, tmp_path: Path) -> None:
    _installed(cfg, tmp_path)
    chart = make_chart(tmp_path / "v2", {"b.yaml": configmap("b")})
    upgrade.run(cfg, chart, {}, upgrade.UpgradeOptions(name="web", namespace=NS, force=True))
    assert [o["metadata"]["name"] for o in cfg.client.list("v1", "ConfigMap", namespace=NS)] == ["b"]


def test_rollback_force_replaces_and_a_plain_one_applies(
        cluster: fake.FakeCluster, cfg: config.Configuration, tmp_path: Path) -> None:
    chart = _installed(cfg, tmp_path)
    upgrade.run(cfg, chart, {"greeting": "two"}, upgrade.UpgradeOptions(name="web", namespace=NS))
    _annotate(cluster, "a")
    rollback.run(cfg, "web", NS)
    assert _cm(cfg, "a")["metadata"]["annotations"][NOTE] == "by hand"
    _annotate(cluster, "a")
    rollback.run(cfg, "web", NS, options=rollback.RollbackOptions(force=True))
    assert NOTE not in _cm(cfg, "a")["metadata"]["annotations"]


def test_install_force_replaces_the_objects_it_takes_over(
        cluster: fake.FakeCluster, cfg: config.Configuration, tmp_path: Path) -> None:
    chart = make_chart(tmp_path, {"a.yaml": configmap("a")})
    _annotate(cluster, "a")  # there before the release, taken over
    install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace=NS, take_ownership=True,
                                                       force=True))
    assert NOTE not in _cm(cfg, "a")["metadata"]["annotations"]


class Refusing(fake.FakeClient):
    """Refuses a PUT of ConfigMap ``a`` whose greeting is ``refused`` as the API server refuses
    an immutable field's change; records every PUT."""

    def __init__(self, cluster: fake.FakeCluster) -> None:
        super().__init__(cluster)
        self.puts: list[tuple[str, str]] = []

    def replace(self, obj: Mapping[str, Any], *, subresource: str = "") -> dict[str, Any]:
        if obj.get("kind") == "ConfigMap":
            greeting = str((obj.get("data") or {}).get("greeting"))
            self.puts.append((obj["metadata"]["name"], greeting))
            if greeting == "refused":
                answer = 'ConfigMap "a" is invalid: data: Forbidden: field is immutable when `immutable` is set'
                raise ClusterError(f'update {kclient.ObjectRef.of(obj)}: {answer}', answer=answer)
        return super().replace(obj, subresource=subresource)


def test_a_refused_replace_reads_as_helms_and_atomic_rolls_back_with_force(
        cluster: fake.FakeCluster, tmp_path: Path) -> None:
    client = Refusing(cluster)
    cfg = config.Configuration(client=client, driver=secrets.SecretsDriver(client))
    chart = _installed(cfg, tmp_path)
    words = ('failed to replace object: ConfigMap "a" is invalid: data: Forbidden: field is immutable '
             'when `immutable` is set')
    with pytest.raises(ClusterError) as caught:
        upgrade.run(cfg, chart, {"greeting": "refused"}, upgrade.UpgradeOptions(name="web", namespace=NS,
                                                                               force=True))
    assert str(caught.value) == words
    assert cfg.driver.history(NS, "web")[-1].description == f'Upgrade "web" failed: {words}'
    client.puts.clear()
    with pytest.raises(HelmError) as caught:
        upgrade.run(cfg, chart, {"greeting": "refused"}, upgrade.UpgradeOptions(
            name="web", namespace=NS, force=True, atomic=True))
    assert str(caught.value) == f"release web failed, and has been rolled back due to atomic being set: {words}"
    # helm's rollback after a failed --atomic upgrade is forced too: the first version's object is PUT
    assert client.puts[:2] == [("a", "refused"), ("a", "hello")]
    assert [v.status for v in cfg.driver.history(NS, "web")][-2:] == [rel.Status.FAILED, rel.Status.DEPLOYED]
