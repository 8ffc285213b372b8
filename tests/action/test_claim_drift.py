"""The claim and drift actions on the fake cluster behind the real Secrets driver."""
from __future__ import annotations

from pathlib import Path

from helm_core.action import claim, config, drift, install
from helm_core.kube import client as kclient
from tests.action.conftest import configmap, make_chart

NS = "apps"
OWNER = "example.com/owner"


def test_claim_then_a_second_claimant_is_told_who_holds_the_release(cfg: config.Configuration) -> None:
    assert claim.holder(cfg, namespace=NS, name="web", annotation=OWNER) is None
    assert claim.run(cfg, namespace=NS, name="web", annotation=OWNER, claimant="team/a") == ""
    assert claim.run(cfg, namespace=NS, name="web", annotation=OWNER, claimant="team/b") == "team/a"
    assert claim.holder(cfg, namespace=NS, name="web", annotation=OWNER) == "team/a"


def test_drift_finds_deleted_and_changed_objects_and_corrects_them(cfg: config.Configuration,
                                                                   tmp_path: Path) -> None:
    chart = make_chart(tmp_path, {"a.yaml": configmap("a"), "b.yaml": configmap("b")})
    done = install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace=NS))
    assert drift.detect(cfg, done) == []
    cfg.client.delete(kclient.ObjectRef("v1", "ConfigMap", "a", NS))
    b = cfg.client.get(kclient.ObjectRef("v1", "ConfigMap", "b", NS))
    cfg.client.apply({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b", "namespace": NS},
                      "data": {"greeting": "changed"}}, force=True)
    found = drift.detect(cfg, done)
    assert [d.line for d in found] == [f'ConfigMap "a" in namespace "{NS}": deleted',
                                       f'ConfigMap "b" in namespace "{NS}": changed (data)']
    assert drift.correct(cfg, done, found)
    assert drift.detect(cfg, done) == []
    assert cfg.client.get(kclient.ObjectRef("v1", "ConfigMap", "b", NS))["data"] == b["data"]
