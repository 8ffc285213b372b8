"""Helm's storage (``HELM_CORE_STORAGE=helm``) on a cluster without helm-core's ``Release`` CRD:
a Helm user trying helm-core on their cluster gets what helm gives. Every release command
(install, upgrade, rollback, test, uninstall, each running hooks, and ``--wait``) works, stock
``helm list/status/history`` print what ``helm-core`` prints, and nothing helm-core made refers
to a ``Release`` object (there is none: under helm's storage the release has no owner object),
nor is the CRD installed behind the user's back.

The module deletes the cluster's Release CRD first (with every Release of earlier modules,
which are done by then) and applies it again when done, as later modules' fixtures also do."""
from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from e2e import release_kit as kit
from e2e.conftest import ClusterInfo
from e2e.test_release_cli_helm_flags import _core, _helm, helm  # noqa: F401  (helm: a fixture)
from e2e.test_storage_release_crd import CRD_REF, remove_crd
from helm_core.errors import NotFoundError
from helm_core.kube import live
from helm_core.storage import secrets

pytestmark = pytest.mark.e2e

EVENTS = ("pre-install", "post-install", "pre-upgrade", "post-upgrade", "pre-rollback", "post-rollback",
          "pre-delete", "post-delete", "test")
CONFIGMAP = kit.configmap("{{ .Release.Name }}-cm")


@pytest.fixture(scope="module")
def no_crd(cluster: ClusterInfo) -> Iterator[live.LiveClient]:
    """An admin client of the cluster without the Release CRD (applied again afterwards)."""
    admin = kit.connect(cluster.kubeconfig)
    remove_crd(admin)
    yield admin
    kit.install_release_crd(admin)


def _references_to_releases(client: live.LiveClient, namespace: str) -> list[str]:
    """The objects of ``namespace`` (ConfigMaps, Jobs, Secrets) with an owner reference to a
    ``Release``."""
    found = []
    for api_version, kind in (("v1", "ConfigMap"), ("batch/v1", "Job"), ("v1", "Secret")):
        for obj in client.list(api_version, kind, namespace=namespace):
            meta: dict[str, Any] = obj.get("metadata") or {}
            if any(ref.get("kind") == secrets.RELEASE_KIND for ref in meta.get("ownerReferences") or ()):
                found.append(f"{kind}/{meta.get('name')}")
    return found


def test_every_command_works_as_helm_without_the_release_crd(cluster: ClusterInfo, no_crd: live.LiveClient,
                                                              namespace: str, tmp_path: Path,
                                                              helm: str) -> None:  # noqa: F811
    hooks = "---\n".join(kit.hook_job(f"{{{{ .Release.Name }}}}-{event}", event) for event in EVENTS)
    kit.chart(tmp_path / "demo", {"cm.yaml": CONFIGMAP, "hooks.yaml": hooks})
    chart = str(tmp_path / "demo")

    def core(*args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
        return _core(tmp_path, cluster, namespace, *args, ok=ok)  # HELM_CORE_STORAGE=helm

    def stock(*args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
        return _helm(helm, tmp_path, cluster, namespace, *args, ok=ok)

    def agree(*args: str) -> None:
        assert core(*args).stdout == stock(*args).stdout, args

    core("install", "web", chart, "--wait")
    assert kit.exists(no_crd, "Job", "web-post-install", namespace, api_version="batch/v1")
    core("upgrade", "web", chart, "--set", "greeting=hi", "--wait")
    core("rollback", "web", "1", "--wait")
    core("test", "web")
    for args in (("list",), ("status", "web"), ("status", "web", "-o", "json"),
                 ("history", "web"), ("get", "hooks", "web")):
        agree(*args)
    assert stock("history", "web", "-o", "json").stdout.count('"status":"') == 3
    assert _references_to_releases(no_crd, namespace) == []
    with pytest.raises(NotFoundError):
        no_crd.get(CRD_REF)  # not installed behind the Helm user's back

    core("uninstall", "web", "--wait")
    assert kit.exists(no_crd, "Job", "web-post-delete", namespace, api_version="batch/v1")
    assert not kit.exists(no_crd, "ConfigMap", "web-cm", namespace)
    agree("list", "-a")
    # the name is free again, for helm-core as for helm
    core("install", "web", chart)
    stock("uninstall", "web")
    stock("install", "web", chart)
    agree("status", "web")
    core("uninstall", "web")
    assert stock("list", "-a", "-q").stdout == ""
    with pytest.raises(NotFoundError):
        no_crd.get(CRD_REF)
