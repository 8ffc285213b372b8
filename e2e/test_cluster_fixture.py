"""The session fixture's contract when the cluster cannot be had: loud in CI, a skip locally."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from e2e.cluster import tools

REPO = Path(__file__).resolve().parents[1]
PROBE = "e2e/test_cluster_workloads.py::test_nodes_look_like_real_linux_nodes"


def run_probe(tmp_path: Path, ci: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "HELM_CONTROLLER_E2E_KUBECONFIG")}
    env.update({tools.CACHE_ENV: str(tmp_path / "empty-cache"), "GO": str(tmp_path / "no-go")})
    if ci is not None:
        env["CI"] = ci
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
                           PROBE], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)


def test_missing_binaries_without_go_skip_visibly_locally(tmp_path: Path) -> None:
    result = run_probe(tmp_path, ci=None)
    assert result.returncode == 0, result.stdout
    assert "1 skipped" in result.stdout
    assert (f"e2e cluster unavailable: the control-plane binaries are not built in "
            f"{tmp_path}/empty-cache/") in result.stdout


@pytest.mark.parametrize("ci", ["true", "TRUE"])
def test_missing_binaries_without_go_fail_loudly_in_ci(tmp_path: Path, ci: str) -> None:
    result = run_probe(tmp_path, ci=ci)
    assert result.returncode == 1, result.stdout
    assert "1 error" in result.stdout
    assert "e2e cluster unavailable in CI: the control-plane binaries are not built" \
        in result.stdout
