"""Finding the reference ``helm`` binary for comparison tests (never used by the product).

Order: ``$HELM_BIN``, ``helm`` on PATH, the bootstrap cache. Tests skip visibly without it.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

BOOTSTRAP_HELM = Path("/root/.cache/hc-bootstrap/bin/helm")
#: Seconds a single `helm template` may take before the test fails.
HELM_TIMEOUT = 120


def find_helm() -> str | None:
    env = os.environ.get("HELM_BIN")
    if env and Path(env).is_file():
        return env
    on_path = shutil.which("helm")
    if on_path:
        return on_path
    return str(BOOTSTRAP_HELM) if BOOTSTRAP_HELM.is_file() else None


def require_helm() -> str:
    helm = find_helm()
    if helm is None:
        pytest.skip("helm binary not found (set HELM_BIN): comparison with Helm skipped")
    return helm


def helm_template(chart_dir: Path, *args: str) -> str:
    """Run `helm template` and return stdout; fails the test with helm's stderr on error."""
    helm = require_helm()
    proc = subprocess.run(
        [helm, "template", str(chart_dir), *args],
        capture_output=True, text=True, timeout=HELM_TIMEOUT,
    )
    if proc.returncode != 0:
        raise AssertionError(f"helm template failed: {proc.stderr}")
    return proc.stdout


def helm_template_result(chart_dir: Path, *args: str) -> tuple[int, str, str]:
    """Run `helm template`, returning (exit code, stdout, stderr) without judging."""
    helm = require_helm()
    proc = subprocess.run(
        [helm, "template", str(chart_dir), *args],
        capture_output=True, text=True, timeout=HELM_TIMEOUT,
    )
    return proc.returncode, proc.stdout, proc.stderr
