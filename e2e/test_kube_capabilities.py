"""Discovery gives templates what real Helm gives them on the same cluster (.Capabilities)."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from e2e.conftest import ClusterInfo
from helm_core.kube import live
from tests.engine import helmbin

pytestmark = pytest.mark.e2e

CHART_YAML = "apiVersion: v2\nname: caps\nversion: 0.1.0\n"
TEMPLATE = """apiVersion: v1
kind: ConfigMap
metadata:
  name: caps
data:
  kube: {{ .Capabilities.KubeVersion.Version | quote }}
  major: {{ .Capabilities.KubeVersion.Major | quote }}
  minor: {{ .Capabilities.KubeVersion.Minor | quote }}
  apis: |
{{- range .Capabilities.APIVersions }}
    {{ . }}
{{- end }}
"""


def _helm_capabilities(cluster: ClusterInfo, tmp_path: Path, namespace: str) -> dict[str, str]:
    helm = helmbin.require_helm()
    chart = tmp_path / "caps"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text(CHART_YAML)
    (chart / "templates" / "cm.yaml").write_text(TEMPLATE)
    env = {**os.environ, "KUBECONFIG": str(cluster.kubeconfig), "HELM_CACHE_HOME": str(tmp_path / "cache"),
           "HELM_CONFIG_HOME": str(tmp_path / "config"), "HELM_DATA_HOME": str(tmp_path / "data")}
    proc = subprocess.run([helm, "install", "caps", str(chart), "--dry-run=server", "-n", namespace],
                          capture_output=True, text=True, env=env, timeout=helmbin.HELM_TIMEOUT)
    assert proc.returncode == 0, proc.stderr
    import yaml

    manifest = proc.stdout.split("MANIFEST:", 1)[1]
    doc = next(d for d in yaml.safe_load_all(manifest) if d)
    return doc["data"]


def test_capabilities_from_discovery_match_helm_install(
        cluster: ClusterInfo, tmp_path: Path, namespace: str) -> None:
    helm = _helm_capabilities(cluster, tmp_path, namespace)
    ours = live.connect(live.LiveOptions(kubeconfig=str(cluster.kubeconfig))).discover(refresh=True)
    assert helm["kube"] == ours.server_version == "v1.37.2"
    assert (helm["major"], helm["minor"]) == ("1", "37")
    helm_set = set(helm["apis"].split())
    our_set = set(ours.api_versions())
    assert our_set == helm_set, (sorted(our_set - helm_set), sorted(helm_set - our_set))
    assert {"apps/v1/Scale", "v1/Eviction", "apps/v1/Deployment", "v1"} <= our_set
