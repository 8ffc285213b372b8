"""Packaged charts read from a real ConfigMap and Secret (created with kubectl) on the API server."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from e2e.conftest import ClusterInfo, Kubectl
from helm_core import errors
from helm_core.kube import live
from helm_core.sources import ChartRef, Credentials, cache as cache_mod, package as package_mod, packaged, resolve

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def hc(cluster: ClusterInfo) -> Iterator[live.LiveClient]:
    yield live.connect(live.LiveOptions(kubeconfig=str(cluster.kubeconfig)))


@pytest.mark.parametrize("kind, create", [
    ("ConfigMap", ["create", "configmap", "charts"]),
    ("Secret", ["create", "secret", "generic", "charts"]),
], ids=["configmap-binarydata", "secret"])
def test_packaged_chart_from_cluster_object(hc: live.LiveClient, kubectl: Kubectl, namespace: str,
                                            tmp_path: Path, kind: str, create: list[str]) -> None:
    data = package_mod.archive_bytes("demo", [("Chart.yaml", b"apiVersion: v2\nname: demo\nversion: 4.5.6\n"),
                                              ("templates/cm.yaml", b"kind: ConfigMap\n")])
    archive = tmp_path / "demo-4.5.6.tgz"
    archive.write_bytes(data)
    kubectl(*create, "-n", namespace, f"--from-file={archive}")
    got, where = packaged.read_from_cluster(hc, kind=kind, namespace=namespace, name="charts")
    assert where == f"{kind.lower()}/{namespace}/charts[demo-4.5.6.tgz]"
    resolved = resolve(ChartRef(kind="packaged", data=got, description=where), Credentials(),
                       cache_mod.Cache(tmp_path / "cache"))
    assert (resolved.name, resolved.version, resolved.data) == ("demo", "4.5.6", data)


def test_missing_packaged_chart_object(hc: live.LiveClient, namespace: str) -> None:
    with pytest.raises(errors.NotFoundError):
        packaged.read_from_cluster(hc, kind="ConfigMap", namespace=namespace, name="absent")
