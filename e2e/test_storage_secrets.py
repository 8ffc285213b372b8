"""Release versions stored as Secrets owned by a Release object, on the real API server."""
from __future__ import annotations

import base64
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from e2e.conftest import ClusterInfo, Kubectl
from helm_core.errors import ClusterError, ForbiddenError, TooLargeError
from helm_core.kube import client as kclient
from helm_core.kube import live
from helm_core.kube import wait as kwait
from helm_core.storage import release as rel
from helm_core.storage import secrets

pytestmark = pytest.mark.e2e

CRD_FILE = Path(__file__).resolve().parents[1] / "manifests" / "crds" / "release.yaml"
GC_TIMEOUT_S = 60.0
RBAC_PROPAGATION_S = 10.0


def install_release_crd(client: live.LiveClient) -> None:
    """Apply manifests/crds/release.yaml and wait until Releases are served."""
    crd = yaml.safe_load(CRD_FILE.read_text())
    client.apply(crd)
    kwait.wait_ready(client, [kclient.ObjectRef.of(crd)], options=kwait.WaitOptions(timeout_s=30))
    deadline = time.monotonic() + 30
    while client.discover(refresh=True).find(secrets.RELEASE_API_VERSION, secrets.RELEASE_KIND) is None:
        assert time.monotonic() < deadline, "Release CRD never served"
        time.sleep(0.2)


@pytest.fixture(scope="module")
def hc(cluster: ClusterInfo) -> Iterator[live.LiveClient]:
    client = live.connect(live.LiveOptions(kubeconfig=str(cluster.kubeconfig)))
    install_release_crd(client)
    yield client


def _version(namespace: str, status: rel.Status = rel.Status.DEPLOYED, **changes) -> rel.ReleaseVersion:
    return rel.ReleaseVersion(
        name="web", namespace=namespace, version=rel.new_version(), status=status,
        chart_name="nginx", chart_version="1.2.3", app_version="1.25.0",
        chart_source="oci://registry.example/charts/nginx:1.2.3",
        user_values={"auth": {"password": "hunter2"}}, chart_values={"auth": {"password": "hunter2"},
                                                                      "replicas": 1},
        manifest="---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n",
        notes="Enjoy.", description="Install complete", last_deployed=rel.now(),
    ).replace(**changes)


def test_version_secret_round_trip_and_release_record(
        hc: live.LiveClient, kubectl: Kubectl, namespace: str) -> None:
    driver = secrets.SecretsDriver(hc)
    first = _version(namespace)
    driver.create(first)
    assert driver.get(namespace, "web", first.version) == first
    second = _version(namespace, rel.Status.PENDING_UPGRADE, chart_version="1.3.0")
    driver.create(second)
    driver.update(first.with_status(rel.Status.SUPERSEDED))
    driver.update(second.with_status(rel.Status.DEPLOYED, "Upgrade complete"))
    history = driver.history(namespace, "web")
    assert [(v.version, v.status) for v in history] == [
        (first.version, rel.Status.SUPERSEDED), (second.version, rel.Status.DEPLOYED)]
    assert driver.list_latest(namespace) == [history[-1]]

    secret = hc.get(kclient.ObjectRef("v1", "Secret", f"web.{str(second.version).lower()}", namespace))
    assert secret["type"] == "helm.sh/release-version"
    assert secret["metadata"]["labels"] == {"release": "web", "version": str(second.version),
                                            "status": "deployed", "owner": "helm-core"}
    release = hc.get(kclient.ObjectRef("helm.sh/v1alpha1", "Release", "web", namespace))
    assert [(o["kind"], o["name"], o["uid"]) for o in secret["metadata"]["ownerReferences"]] == [
        ("Release", "web", release["metadata"]["uid"])]
    assert base64.b64decode(secret["data"]["chartName"]) == b"nginx"
    assert release["status"]["version"] == str(second.version)
    assert [h["status"] for h in release["status"]["history"]] == ["superseded", "deployed"]

    table = kubectl("get", "rel", "-n", namespace).stdout.splitlines()
    assert table[0].split() == ["NAME", "CHART", "APP", "VERSION", "STATUS", "VERSION", "AGE"]
    assert table[1].split()[:5] == ["web", "nginx-1.3.0", "1.25.0", "deployed", str(second.version)]


class _StatusWrites:
    """``hc`` counting the Release status writes made through it."""

    def __init__(self, client: live.LiveClient) -> None:
        self._client, self.count = client, 0

    def apply(self, obj, **kwargs):  # noqa: ANN001, ANN003, ANN201
        self.count += kwargs.get("subresource") == "status"
        return self._client.apply(obj, **kwargs)

    def __getattr__(self, name: str):  # noqa: ANN204
        return getattr(self._client, name)


def test_a_hooks_run_leaves_the_release_status_unwritten(hc: live.LiveClient, namespace: str) -> None:
    """The status the API server returned holds all the driver wrote: a write that changes only
    a hook's run (a hook starting) finds it unchanged and writes the Secret alone."""
    counting = _StatusWrites(hc)
    driver = secrets.SecretsDriver(counting)  # type: ignore[arg-type]
    pending = _version(namespace, rel.Status.PENDING_INSTALL, description="Initial install underway",
                       first_deployed=rel.now())
    driver.create(pending)
    running = pending.with_hook_run(rel.HookRun("Job", "setup", rel.HookPhase.RUNNING, started=rel.now()))
    written = counting.count
    driver.update(running)
    assert counting.count == written
    assert secrets.SecretsDriver(hc).get(namespace, "web", pending.version).hook_runs == running.hook_runs
    driver.update(running.with_status(rel.Status.DEPLOYED))
    assert counting.count == written + 1
    ref = kclient.ObjectRef(secrets.RELEASE_API_VERSION, secrets.RELEASE_KIND, "web", namespace)
    assert hc.get(ref)["status"]["status"] == "deployed"


def test_deleting_the_release_garbage_collects_its_versions(hc: live.LiveClient, namespace: str) -> None:
    driver = secrets.SecretsDriver(hc)
    for _ in range(2):
        driver.create(_version(namespace))
    hc.delete(kclient.ObjectRef("helm.sh/v1alpha1", "Release", "web", namespace))
    deadline = time.monotonic() + GC_TIMEOUT_S
    while driver.history(namespace, "web"):
        assert time.monotonic() < deadline, "version Secrets were not garbage-collected"
        time.sleep(0.5)


def test_deleting_the_last_version_deletes_the_release(hc: live.LiveClient, namespace: str) -> None:
    driver = secrets.SecretsDriver(hc)
    only = _version(namespace)
    driver.create(only)
    assert driver.delete(namespace, "web", only.version) == only
    assert hc.list("helm.sh/v1alpha1", "Release", namespace=namespace) == []


def test_version_over_one_mib_is_refused_before_anything_is_written(
        hc: live.LiveClient, namespace: str) -> None:
    noise = base64.b64encode(__import__("os").urandom(1_200_000)).decode()
    with pytest.raises(TooLargeError) as caught:
        secrets.SecretsDriver(hc).create(_version(namespace, manifest=noise))
    assert "over the 1 MiB limit of a Kubernetes Secret; nothing was applied" in str(caught.value)
    assert hc.list("v1", "Secret", namespace=namespace, label_selector=secrets.selector()) == []
    assert hc.list("helm.sh/v1alpha1", "Release", namespace=namespace) == []


def test_our_limit_is_the_api_servers_limit(hc: live.LiveClient, namespace: str) -> None:
    """Why the limit is checked up front: the server refuses one byte more, too late to help."""
    import os

    def secret(name: str, size: int) -> dict:
        return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name, "namespace": namespace},
                "data": {"blob": base64.b64encode(os.urandom(size)).decode()}}

    hc.create(secret("at-limit", secrets.MAX_SECRET_BYTES))
    with pytest.raises(ClusterError) as caught:
        hc.create(secret("over-limit", secrets.MAX_SECRET_BYTES + 1))
    assert str(caught.value) == (
        f'create Secret "over-limit" in namespace "{namespace}": Secret "over-limit" is invalid: '
        "data: Too long: may not be more than 1048576 bytes")


def test_release_readers_cannot_read_values(hc: live.LiveClient, namespace: str) -> None:
    secrets.SecretsDriver(hc).create(_version(namespace))
    hc.apply({"apiVersion": "v1", "kind": "ServiceAccount",
              "metadata": {"name": "viewer", "namespace": namespace}})
    hc.apply({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
              "metadata": {"name": "release-viewer", "namespace": namespace},
              "rules": [{"apiGroups": ["helm.sh"], "resources": ["releases"], "verbs": ["get", "list"]}]})
    hc.apply({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
              "metadata": {"name": "viewer", "namespace": namespace},
              "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "release-viewer"},
              "subjects": [{"kind": "ServiceAccount", "name": "viewer", "namespace": namespace}]})
    viewer = hc.impersonate(service_account="viewer", namespace=namespace)
    deadline = time.monotonic() + RBAC_PROPAGATION_S
    while True:
        try:
            releases = viewer.list("helm.sh/v1alpha1", "Release", namespace=namespace)
            break
        except ForbiddenError:
            assert time.monotonic() < deadline
            time.sleep(0.2)
    assert [r["status"]["chart"] for r in releases] == ["nginx-1.2.3"]
    assert "hunter2" not in str(releases)
    with pytest.raises(ForbiddenError):
        secrets.SecretsDriver(viewer).history(namespace, "web")
