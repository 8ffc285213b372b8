"""The harness itself: the CLI contract, side-by-side clusters, nothing left running."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from e2e.cluster import harness, processes, tools
from e2e.conftest import ClusterInfo, Kubectl

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[1]
CLI_TIMEOUT_S = 240.0


def run_cli(*args: str, clusters_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, harness.CLUSTERS_ENV: str(clusters_dir)}
    return subprocess.run([sys.executable, "-m", "e2e.cluster", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=CLI_TIMEOUT_S)


def test_servers_report_the_pinned_kubernetes_version(kubectl: Kubectl) -> None:
    version = json.loads(kubectl("version", "-o", "json").stdout)
    assert version["serverVersion"]["gitVersion"] == tools.KUBE_VERSION
    assert (version["serverVersion"]["major"], version["serverVersion"]["minor"]) == (
        tools.KUBE_MAJOR, tools.KUBE_MINOR)


def test_up_is_idempotent_runs_beside_another_cluster_and_down_stops_everything(
        cluster: ClusterInfo, tmp_path: Path) -> None:
    first = run_cli("up", "--name", "side", clusters_dir=tmp_path)
    assert first.returncode == 0, first.stderr
    kubeconfig = first.stdout.strip().splitlines()[-1]
    state = json.loads((tmp_path / "side" / harness.STATE_FILE).read_text())
    try:
        assert kubeconfig == state["kubeconfig"]
        assert state["server"] != cluster.server
        again = run_cli("up", "--name", "side", clusters_dir=tmp_path)
        assert again.returncode == 0, again.stderr
        assert again.stdout.strip().splitlines()[-1] == kubeconfig
        assert json.loads((tmp_path / "side" / harness.STATE_FILE).read_text()) == state
        nodes = Kubectl(Path(kubeconfig))("get", "nodes", "-o", "name").stdout.split()
        assert len(nodes) == 3
        shown = run_cli("status", "--name", "side", clusters_dir=tmp_path)
        assert shown.returncode == 0
        assert json.loads(shown.stdout)["status"] == "ready"
    finally:
        stopped = run_cli("down", "--name", "side", clusters_dir=tmp_path)
    assert stopped.returncode == 0, stopped.stderr
    assert stopped.stderr.strip() == "[cluster] 'side' stopped and removed"
    pids = [state["supervisor_pid"], *state["pids"].values()]
    assert [pid for pid in pids if processes.pid_alive(pid)] == []
    assert not (tmp_path / "side").exists()
    gone = run_cli("status", "--name", "side", clusters_dir=tmp_path)
    assert gone.returncode == 1
    assert json.loads(gone.stdout) == {"name": "side", "running": False}


OWNER_SCRIPT = textwrap.dedent("""
    import json, sys, time
    from e2e.cluster import harness
    local = harness.LocalCluster.start()
    print(json.dumps(local.state), flush=True)
    time.sleep(600)
""")


def test_killing_the_owning_process_leaves_no_component_running(cluster: ClusterInfo) -> None:
    owner = subprocess.Popen([sys.executable, "-c", OWNER_SCRIPT], cwd=REPO,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert owner.stdout is not None
        line = owner.stdout.readline()
        assert line, owner.stderr.read() if owner.stderr else ""
        state = json.loads(line)
    finally:
        owner.send_signal(signal.SIGKILL)
        owner.wait()
    pids = [state["supervisor_pid"], *state["pids"].values()]
    assert [pid for pid in pids if not processes.wait_gone(pid, 15.0)] == []
    shutil.rmtree(state["directory"], ignore_errors=True)


def test_build_with_cached_binaries_builds_nothing_and_prints_the_bin_dir_last(
        cluster: ClusterInfo, tmp_path: Path) -> None:
    result = run_cli("build", clusters_dir=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == str(tools.bin_dir())
    assert result.stderr == ""
