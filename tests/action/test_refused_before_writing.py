"""Inputs the API server would refuse only at the version's Secret (after the ``Release``, the
chart's CRDs...) are refused before anything is written, in helm's words; and a first version
the cluster refuses leaves no empty ``Release`` behind (fake cluster, real Secrets driver).
Against the real API server and stock helm: e2e/test_release_cli_refusals.py."""
from __future__ import annotations

from pathlib import Path

import pytest

from helm_core.action import config, install, upgrade
from helm_core.chart import loader, model
from helm_core.errors import ForbiddenError, HelmError, StorageError
from helm_core.kube import client as kclient
from helm_core.kube import fake
from helm_core.storage import helmsecrets, secrets
from helm_core.storage import release as rel
from tests import chartkit
from tests.action.conftest import configmap, make_chart

NS = "apps"
KEY_WHY = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
           "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
           "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
VALUE_WHY = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
             "must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
             "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
CRD = ("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n"
       "  name: widgets.example.com\nspec:\n  group: example.com\n  names:\n    kind: Widget\n"
       "    plural: widgets\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n"
       "    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n"
       "status:\n  conditions:\n  - type: Established\n    status: \"True\"\n")
SERVED = (*fake.FAKE_RESOURCES, kclient.ApiResource("apiextensions.k8s.io/v1", "CustomResourceDefinition",
                                                    "customresourcedefinitions", False))


def _written(cluster: fake.FakeCluster) -> list[str]:
    return sorted(f"{ref.kind}/{ref.name}" for ref in cluster.objects)


def _chart(tmp_path: Path) -> model.Chart:
    """A chart with a CRD (an install applies it, an upgrade with ``crds=CreateReplace`` too)."""
    root = chartkit.write_chart(tmp_path / "demo", {
        "Chart.yaml": chartkit.chart_yaml("demo", "0.1.0"), "values.yaml": "greeting: hi\n",
        "templates/a.yaml": configmap("a"), "crds/widget.yaml": CRD})
    return loader.load(root)


def test_the_words_are_the_api_servers_after_helms_storage_driver() -> None:
    version = rel.ReleaseVersion(name="web", namespace=NS, version=rel.revision_version(1),
                                 status=rel.Status.PENDING_INSTALL, chart_name="demo", chart_version="0.1.0",
                                 labels={"bad key!": "x"})
    with pytest.raises(StorageError) as refused:
        helmsecrets.encode(version)
    assert str(refused.value) == ('create: failed to create: Secret "sh.helm.release.v1.web.v1" is invalid: '
                                  f'metadata.labels: Invalid value: "bad key!": {KEY_WHY}')
    several = version.replace(labels={"a": "bad value!", "b": "bad value!", "ok": "fine", "c!": "bad value!"})
    with pytest.raises(StorageError) as refused:
        secrets.encode(several)
    # Go's aggregate: in brackets, each distinct error once
    assert str(refused.value) == (
        'create: failed to create: Secret "web.00000000000000000000000001" is invalid: '
        f'[metadata.labels: Invalid value: "bad value!": {VALUE_WHY}, '
        f'metadata.labels: Invalid value: "c!": {KEY_WHY}]')
    secrets.encode(version.replace(labels={"example.com/team": "a-b_c.d", "empty": ""}))  # valid ones pass


@pytest.mark.parametrize("storage", ["ours", "helm"])
def test_install_with_labels_the_api_server_refuses_writes_nothing(tmp_path: Path, storage: str) -> None:
    cluster = fake.FakeCluster(SERVED)
    client = cluster.client()
    driver = secrets.SecretsDriver(client) if storage == "ours" else helmsecrets.HelmSecretsDriver(client)
    cfg = config.Configuration(client=client, driver=driver)
    for run in (lambda: install.run(cfg, _chart(tmp_path), {}, install.InstallOptions(
                    name="web", namespace=NS, labels={"bad key!": "x"})),
                lambda: upgrade.run(cfg, _chart(tmp_path), {}, upgrade.UpgradeOptions(
                    name="web", namespace=NS, install=True, labels={"bad key!": "x"}))):
        with pytest.raises(StorageError) as refused:
            run()
        assert str(refused.value).endswith(f'is invalid: metadata.labels: Invalid value: "bad key!": {KEY_WHY}')
        assert _written(cluster) == []  # no Release, no Secret, no CRD, no lock left
    # a dry run stores nothing: as helm's, it passes
    dry = install.run(cfg, _chart(tmp_path), {}, install.InstallOptions(
        name="web", namespace=NS, labels={"bad key!": "x"}, dry_run=True))
    assert dry.labels == {"bad key!": "x"} and _written(cluster) == []


def test_upgrade_with_labels_the_api_server_refuses_writes_nothing(tmp_path: Path) -> None:
    cluster = fake.FakeCluster(SERVED)
    cfg = config.Configuration(client=cluster.client(), driver=secrets.SecretsDriver(cluster.client()))
    install.run(cfg, _chart(tmp_path), {}, install.InstallOptions(name="web", namespace=NS))
    cluster.objects = {ref: obj for ref, obj in cluster.objects.items() if ref.kind != "CustomResourceDefinition"}
    before = _written(cluster)
    with pytest.raises(StorageError):
        upgrade.run(cfg, _chart(tmp_path), {}, upgrade.UpgradeOptions(
            name="web", namespace=NS, labels={"team": "bad value!"}, crds="CreateReplace"))
    assert _written(cluster) == before  # the CRD the upgrade would have applied included
    assert len(cfg.driver.history(NS, "web")) == 1


def test_a_first_version_the_cluster_refuses_leaves_no_empty_release(
        cfg: config.Configuration, cluster: fake.FakeCluster, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    create = cfg.client.create

    def refuse_secrets(obj):  # noqa: ANN001, ANN202
        if obj.get("kind") == "Secret":
            raise ForbiddenError('secrets is forbidden: User "u" cannot create resource "secrets"')
        return create(obj)
    monkeypatch.setattr(cfg.client, "create", refuse_secrets)
    chart = make_chart(tmp_path, {"a.yaml": configmap("a")})
    with pytest.raises(HelmError, match="forbidden"):
        install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace=NS))
    assert _written(cluster) == []
    # a Release that existed before (the controller's claim) is not this driver's to delete
    cfg.driver.claim(NS, "web", annotation="example.com/claim", claimant="me")
    with pytest.raises(HelmError, match="forbidden"):
        install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace=NS))
    assert _written(cluster) == ["Release/web"]
    assert kclient.ObjectRef(secrets.RELEASE_API_VERSION, "Release", "web", NS) in cluster.objects
