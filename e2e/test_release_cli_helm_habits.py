"""helm-core's release commands used with a Helm user's habits, against the real API server:
a chart from ``repo/chart`` (helm's repositories.yaml and cache), global flags before the
command, the kubeconfig context's namespace as the default, and ``-o json`` with helm's
integer ``revision`` beside the ULID version."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from e2e import release_kit as kit
from e2e.conftest import ClusterInfo
from helm_core.kube import live
from helm_core.sources import index as index_mod, package as package_mod
from tests.sources import servers

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[servers.RepoServer]:
    root = tmp_path / "served"
    root.mkdir()
    for version in ("1.0.0", "1.1.0"):
        files = [("Chart.yaml", f"apiVersion: v2\nname: web\nversion: {version}\n".encode()),
                 ("templates/cm.yaml", b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n"
                                       b"data:\n  version: {{ .Chart.Version }}\n")]
        (root / f"web-{version}.tgz").write_bytes(package_mod.archive_bytes("web", files))
    index_mod.write_index(root)
    server = servers.RepoServer(root=root).start()
    yield server
    server.stop()


def _kubeconfig_in(cluster: ClusterInfo, tmp_path: Path, namespace: str) -> Path:
    """The cluster's kubeconfig with its current context set to ``namespace``."""
    doc = yaml.safe_load(Path(cluster.kubeconfig).read_text())
    current = doc["current-context"]
    for item in doc["contexts"]:
        if item["name"] == current:
            item["context"]["namespace"] = namespace
    path = tmp_path / "kubeconfig"
    path.write_text(yaml.safe_dump(doc))
    return path


def _run(tmp_path: Path, kubeconfig: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KUBECONFIG": str(kubeconfig), "HELM_CONFIG_HOME": str(tmp_path / "config"),
           "HELM_CACHE_HOME": str(tmp_path / "cache"), "HELM_CORE_CACHE": str(tmp_path / "core-cache")}
    env.pop("HELM_NAMESPACE", None)
    result = subprocess.run([sys.executable, "-m", "helm_core", *args], capture_output=True, text=True,
                            cwd=ROOT, timeout=300, env=env)
    assert result.returncode == 0, result.stderr
    return result


def test_repo_chart_context_namespace_and_integer_revisions(cluster: ClusterInfo, hc: live.LiveClient,
                                                            namespace: str, tmp_path: Path,
                                                            repo: servers.RepoServer) -> None:
    kubeconfig = _kubeconfig_in(cluster, tmp_path, namespace)
    run = lambda *args: _run(tmp_path, kubeconfig, *args)  # noqa: E731
    assert run("repo", "add", "charts", repo.url).stdout == '"charts" has been added to your repositories\n'
    # no -n: the context's namespace; the chart from the repository, an older version first
    run("install", "web", "charts/web", "--version", "~1.0.0")
    assert kit.get(hc, "ConfigMap", "web", namespace)["data"]["version"] == "1.0.0"
    run("upgrade", "web", "charts/web")
    assert kit.get(hc, "ConfigMap", "web", namespace)["data"]["version"] == "1.1.0"
    # a global flag before the command, as helm takes it
    listed = json.loads(run("-n", namespace, "list", "-o", "json").stdout)
    assert [(e["name"], e["revision"], e["chart"]) for e in listed] == [("web", "2", "web-1.1.0")]  # helm list prints it as a string
    assert isinstance(listed[0]["version"], str) and len(listed[0]["version"]) == 26  # the ULID
    history = json.loads(run("history", "web", "-o", "json").stdout)
    assert [(h["revision"], h["status"]) for h in history] == [(1, "superseded"), (2, "deployed")]
    status = json.loads(run("status", "web", "-o", "json").stdout)
    assert status["version"] == 2 and status["versionId"] == history[1]["version"]  # helm's integer, the ULID
    status = yaml.safe_load(run("--namespace", namespace, "status", "web", "-o", "yaml").stdout)
    assert status["version"] == 2
    meta = json.loads(run("get", "metadata", "web", "-o", "json").stdout)
    assert (meta["name"], meta["chart"], meta["version"], meta["revision"], meta["namespace"]) == (
        "web", "web", "1.1.0", 2, namespace)
    table = run("get", "metadata", "web").stdout
    assert "REVISION: 2\n" in table and "VERSION: 1.1.0\n" in table
    run("uninstall", "web")


def test_helm_max_history_bounds_upgrades_as_helm(cluster: ClusterInfo, hc: live.LiveClient, namespace: str,
                                                  tmp_path: Path, repo: servers.RepoServer) -> None:
    """``$HELM_MAX_HISTORY`` is ``upgrade --history-max``'s default, as in helm (and ``env`` shows it)."""
    kubeconfig = _kubeconfig_in(cluster, tmp_path, namespace)
    os.environ["HELM_MAX_HISTORY"] = "2"
    try:
        run = lambda *args: _run(tmp_path, kubeconfig, *args)  # noqa: E731
        assert run("env", "HELM_MAX_HISTORY").stdout == "2\n"
        run("repo", "add", "charts", repo.url)
        run("install", "web", "charts/web")
        for _ in range(3):
            run("upgrade", "web", "charts/web")
        history = json.loads(run("history", "web", "-o", "json").stdout)
        assert [h["revision"] for h in history] == [3, 4]
        run("upgrade", "web", "charts/web", "--history-max", "0")  # the flag wins: no limit
        assert len(json.loads(run("history", "web", "-o", "json").stdout)) == 3
    finally:
        del os.environ["HELM_MAX_HISTORY"]
