"""Inputs the API server refuses only at a release's storage record are refused before
helm-core writes anything, in the words stock helm prints (its storage driver's, the API
server's), on the real API server next to stock helm."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from e2e import release_kit as kit
from e2e.conftest import ClusterInfo
from e2e.test_helm_interop import ROOT, helm  # noqa: F401  (helm: a fixture)
from helm_core.kube import live

pytestmark = pytest.mark.e2e

_OUR_SECRET = re.compile(r'Secret "web\.[0-9a-z]{26}"')


def stderr_of(command: list[str], cluster: ClusterInfo, namespace: str) -> str:
    result = subprocess.run([*command, "--kubeconfig", str(cluster.kubeconfig), "-n", namespace],
                            capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 1, result.stdout
    return result.stderr


def left(hc: live.LiveClient, namespace: str) -> list[str]:
    """What is stored in the namespace: Secrets, Releases, Leases."""
    return sorted(f"{kind}/{o['metadata']['name']}" for api, kind in (
        ("v1", "Secret"), ("helm.sh/v1alpha1", "Release"), ("coordination.k8s.io/v1", "Lease"))
        for o in hc.list(api, kind, namespace=namespace))


@pytest.mark.parametrize("labels", ["bad key!=x", "b/c/d=1", "x=" + "a" * 64, "team=bad value!"])
def test_labels_the_api_server_refuses_are_refused_in_helms_words_writing_nothing(
        cluster: ClusterInfo, hc: live.LiveClient, namespace: str, helm: str,  # noqa: F811
        tmp_path: Path, labels: str) -> None:
    kit.chart(tmp_path / "demo", {"cm.yaml": kit.configmap("{{ .Release.Name }}-cm")})
    chart = str(tmp_path / "demo")
    before = left(hc, namespace)
    theirs = stderr_of([helm, "install", "web", chart, "--labels", labels], cluster, namespace)
    assert theirs.startswith('Error: INSTALLATION FAILED: create: failed to create: Secret '
                             '"sh.helm.release.v1.web.v1" is invalid: metadata.labels: Invalid value: ')
    core = [sys.executable, "-m", "helm_core"]
    assert stderr_of([*core, "install", "web", chart, "--labels", labels, "--storage", "helm"],
                     cluster, namespace) == theirs
    ours = stderr_of([*core, "install", "web", chart, "--labels", labels], cluster, namespace)
    assert _OUR_SECRET.sub('Secret "sh.helm.release.v1.web.v1"', ours) == theirs
    upgraded = stderr_of([*core, "upgrade", "web", chart, "--install", "--labels", labels], cluster, namespace)
    assert _OUR_SECRET.sub('Secret "sh.helm.release.v1.web.v1"', upgraded) == theirs.replace(
        "INSTALLATION FAILED: ", "")  # helm's upgrade --install returns its install's error as it is
    assert left(hc, namespace) == before  # no Release, Secret or lock left behind

    # an upgrade of an installed release: refused before its version, or anything else, is written
    subprocess.run([*core, "install", "web", chart, "--kubeconfig", str(cluster.kubeconfig), "-n", namespace],
                   check=True, capture_output=True, cwd=ROOT, timeout=300)
    installed = left(hc, namespace)
    refused = stderr_of([*core, "upgrade", "web", chart, "--labels", labels], cluster, namespace)
    assert _OUR_SECRET.sub('Secret "sh.helm.release.v1.web.v1"', refused) == theirs.replace(
        "INSTALLATION FAILED", "UPGRADE FAILED")
    assert left(hc, namespace) == installed


def test_a_namespace_that_does_not_exist_is_named_in_helms_words(
        cluster: ClusterInfo, hc: live.LiveClient, helm: str, tmp_path: Path) -> None:  # noqa: F811
    kit.chart(tmp_path / "demo", {"cm.yaml": kit.configmap("{{ .Release.Name }}-cm")})
    chart = str(tmp_path / "demo")
    core = [sys.executable, "-m", "helm_core"]
    for command in (["install", "web", chart], ["upgrade", "web", chart, "--install"]):
        theirs = stderr_of([helm, *command], cluster, "no-such-namespace")
        assert 'namespaces "no-such-namespace" not found' in theirs
        assert stderr_of([*core, *command], cluster, "no-such-namespace") == theirs
        assert stderr_of([*core, *command, "--storage", "helm"], cluster, "no-such-namespace") == theirs
