"""The Release CRD installed on first use (issue 18 item 5): by a user who may create CRDs, and a
clear error for one who may not.

The module deletes the cluster's Release CRD first (and with it every Release of earlier
modules, which are done by then); later modules apply it again in their fixtures."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from e2e import release_kit as kit
from e2e.conftest import ClusterInfo
from helm_core.errors import NotFoundError, StorageError
from helm_core.kube import client as kclient
from helm_core.kube import wait as kwait
from helm_core.storage import crd, secrets
from helm_core.storage import release as rel

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[1]
CRD_REF = kclient.ObjectRef("apiextensions.k8s.io/v1", "CustomResourceDefinition", crd.CRD_NAME)


def remove_crd(client: kclient.ClusterClient) -> None:
    try:
        client.delete(CRD_REF)
    except NotFoundError:
        return
    kwait.wait_deleted(client, [CRD_REF], options=kwait.WaitOptions(timeout_s=60))
    client.discover(refresh=True)


def test_without_the_right_to_create_crds_the_error_says_apply_it(cluster: ClusterInfo, namespace: str) -> None:
    admin = kit.connect(cluster.kubeconfig)
    remove_crd(admin)
    nobody = admin.impersonate(service_account="default", namespace=namespace)
    version = rel.ReleaseVersion(name="web", namespace=namespace, version=rel.new_version(),
                                 status=rel.Status.DEPLOYED, chart_name="demo", chart_version="0.1.0")
    with pytest.raises(StorageError) as caught:
        secrets.SecretsDriver(nobody).create(version)
    assert str(caught.value).startswith(secrets.CRD_MISSING + " (installing it was refused: ")
    assert "forbidden" in str(caught.value).lower()
    with pytest.raises(NotFoundError):
        admin.get(CRD_REF)
    assert admin.list("v1", "Secret", namespace=namespace, label_selector=secrets.selector()) == []


def test_install_creates_the_missing_crd_when_allowed(cluster: ClusterInfo, namespace: str,
                                                     tmp_path: Path) -> None:
    admin = kit.connect(cluster.kubeconfig)
    remove_crd(admin)
    kit.chart(tmp_path / "demo", {"cm.yaml": kit.configmap("{{ .Release.Name }}-cm")})
    result = subprocess.run([sys.executable, "-m", "helm_core", "install", "web", str(tmp_path / "demo"),
                             "--kubeconfig", str(cluster.kubeconfig), "-n", namespace],
                            capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("NAME: web\n")
    established = {c["type"]: c["status"] for c in admin.get(CRD_REF)["status"]["conditions"]}
    assert established["Established"] == "True"
    release = admin.get(kclient.ObjectRef(secrets.RELEASE_API_VERSION, secrets.RELEASE_KIND, "web", namespace))
    assert release["status"]["status"] == "deployed"
