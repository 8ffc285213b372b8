"""``status --show-resources`` (action/status.py ``resources``) on the fake cluster: what is read,
under which group, and the related Pods. The printing: tests/test_kubetable.py; against the
real API server beside helm: e2e/test_release_cli_helm_habits.py."""
from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from helm_core.action import config, install
from helm_core.action import status as status_action
from helm_core.cli import release as cli_release
from helm_core.kube import client as kclient
from helm_core.kube import fake
from helm_core.storage import secrets
from tests.action.conftest import configmap, make_chart

NS = "apps"
POD = kclient.ApiResource("v1", "Pod", "pods", True)


def _deployment(name: str, labels: str) -> str:
    return (f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\nspec:\n"
            f"  selector:\n    matchLabels: {labels}\n  template:\n    metadata:\n      labels: {labels}\n"
            "    spec:\n      containers:\n      - name: main\n        image: busybox\n")


@pytest.fixture
def cluster() -> fake.FakeCluster:
    return fake.FakeCluster((*fake.FAKE_RESOURCES, POD))


@pytest.fixture
def cfg(cluster: fake.FakeCluster) -> config.Configuration:
    client = cluster.client()
    return config.Configuration(client=client, driver=secrets.SecretsDriver(client))


def _pod(cfg: config.Configuration, name: str, **labels: str) -> None:
    cfg.client.create({"apiVersion": "v1", "kind": "Pod",
                       "metadata": {"name": name, "namespace": NS, "labels": labels}})


def _release(cfg: config.Configuration, tmp_path: Path) -> object:
    chart = make_chart(tmp_path, {"a.yaml": configmap("a"), "b.yaml": configmap("b"),
                                  "web.yaml": _deployment("web", "{app: web}"),
                                  "web2.yaml": _deployment("web2", "{app: web}"),
                                  "db.yaml": _deployment("db", "{app: db, tier: data}")})
    release = install.run(cfg, chart, {}, install.InstallOptions(name="demo", namespace=NS))
    _pod(cfg, "web-1", app="web")
    _pod(cfg, "web-2", app="web")
    _pod(cfg, "db-1", app="db", tier="data")
    _pod(cfg, "other", app="other")
    return release


def test_objects_are_grouped_by_version_and_kind_with_related_pods_once_per_selector(
        cfg: config.Configuration, tmp_path: Path) -> None:
    release = _release(cfg, tmp_path)
    found = status_action.resources(cfg, release, as_tables=True)
    assert list(found) == ["v1/ConfigMap", "v1/Deployment", "v1/Pod(related)"]
    names = {key: [[row["cells"][0] for row in table["rows"]] for table in tables] for key, tables in found.items()}
    assert names == {"v1/ConfigMap": [["a"], ["b"]], "v1/Deployment": [["db"], ["web"], ["web2"]],
                     "v1/Pod(related)": [["db-1"], ["web-1", "web-2"]]}  # web2's selector is web's
    assert all(table["kind"] == "Table" for tables in found.values() for table in tables)


def test_whole_objects_and_pod_lists_for_json(cfg: config.Configuration, tmp_path: Path) -> None:
    release = _release(cfg, tmp_path)
    found = status_action.resources(cfg, release, as_tables=False)
    assert [o["metadata"]["name"] for o in found["v1/ConfigMap"]] == ["a", "b"]
    assert found["v1/Deployment"][0]["spec"]["selector"] == {"matchLabels": {"app": "db", "tier": "data"}}
    assert [(pods["kind"], [p["metadata"]["name"] for p in pods["items"]]) for pods in found["v1/Pod(related)"]] == [
        ("PodList", ["db-1"]), ("PodList", ["web-1", "web-2"])]


def test_an_object_gone_from_the_cluster_is_left_out_with_its_pods(cfg: config.Configuration,
                                                                   tmp_path: Path) -> None:
    release = _release(cfg, tmp_path)
    for name in ("db", "web", "web2"):
        cfg.client.delete(kclient.ObjectRef("apps/v1", "Deployment", name, NS))
    cfg.client.delete(kclient.ObjectRef("v1", "ConfigMap", "a", NS))
    found = status_action.resources(cfg, release, as_tables=True)
    assert {key: len(tables) for key, tables in found.items()} == {"v1/ConfigMap": 1}


@pytest.mark.parametrize(("obj", "expected"), [
    ({"kind": "Deployment", "spec": {"selector": {"matchLabels": {"a": "1"}}}}, {"a": "1"}),
    ({"kind": "Job", "spec": {"selector": {"matchLabels": {}}}}, {}),  # every Pod of the namespace, as helm
    ({"kind": "ReplicationController", "spec": {"selector": {"a": "1"}}}, {"a": "1"}),
    ({"kind": "Deployment", "spec": {"selector": {"matchExpressions": []}}}, None),
    ({"kind": "StatefulSet", "spec": {"selector": {"matchLabels": {"a": 1}}}}, None),
    ({"kind": "Service", "spec": {"selector": {"a": "1"}}}, None),
    ({"kind": "DaemonSet"}, None),
])
def test_pod_selector_is_helms(obj: dict, expected: dict | None) -> None:
    assert status_action.pod_selector(obj) == expected


def test_status_text_prints_resources_after_the_description(cfg: config.Configuration, tmp_path: Path) -> None:
    chart = make_chart(tmp_path, {"a.yaml": configmap("a")})
    release = install.run(cfg, chart, {}, install.InstallOptions(name="demo", namespace=NS))
    release = release.replace(last_deployed=dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC), notes="")
    found = status_action.resources(cfg, release, as_tables=True)
    created = found["v1/ConfigMap"][0]["rows"][0]["cells"][1] or ""
    text = cli_release.status_text(release, show_description=True, resources=found)
    assert text == (
        "NAME: demo\nLAST DEPLOYED: Fri Jan  2 03:04:05 2026\nNAMESPACE: apps\nSTATUS: deployed\n"
        f"REVISION: {release.version}\nDESCRIPTION: Install complete\nRESOURCES:\n==> v1/ConfigMap\n"
        f"NAME   CREATED AT\na      {created}\n\n\nTEST SUITE: None\n")
    assert "RESOURCES" not in cli_release.status_text(release, resources={})
