"""``helm-operator run`` without a cluster to talk to ends in one clear line, not a traceback."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.sources import servers

ROOT = Path(__file__).resolve().parents[2]
KUBECONFIG = """apiVersion: v1
kind: Config
current-context: c
contexts:
- name: c
  context: {{cluster: c, user: u}}
clusters:
- name: c
  cluster: {{server: "https://127.0.0.1:{port}"}}
users:
- name: u
  user: {{token: x}}
"""


def _run(kubeconfig: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KUBECONFIG": str(kubeconfig),
           "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "operator")])}
    return subprocess.run([sys.executable, "-m", "helm_operator", "run", "--probe-port", "0",
                           "--metrics-port", "0"], capture_output=True, text=True, env=env,
                          timeout=120, check=False, cwd=ROOT)


@pytest.mark.parametrize("case", ["no-kubeconfig", "unreachable-server"])
def test_run_without_a_cluster_is_one_line(tmp_path, case):
    kubeconfig = tmp_path / "kubeconfig"
    if case == "unreachable-server":
        kubeconfig.write_text(KUBECONFIG.format(port=servers.free_port()))
    result = _run(kubeconfig)
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("helm-operator: "), result.stderr
    assert "Traceback" not in result.stderr
    expected = "cannot load kubeconfig" if case == "no-kubeconfig" else "connect: connection refused"
    assert expected in lines[0]
