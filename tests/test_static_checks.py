"""The type checker and the linter pass over the product's code (configured in pyproject.toml).

They run here so that ``./scripts/test`` runs them: a failure shows their own report.
"""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: What is checked: the library and the controller (tests and e2e are not type-checked).
TARGETS = ["helm_core", "operator/helm_operator"]


def _run(tool: str, *args: str) -> subprocess.CompletedProcess[str]:
    if importlib.util.find_spec(tool) is None:
        pytest.fail(f"{tool} is not installed: install the test tools "
                    "(pip install -e '.[test]', as scripts/bootstrap does)")
    return subprocess.run([sys.executable, "-m", tool, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=900, check=False)


def test_mypy_strict_passes():
    # Files, strictness and the modules without stubs are in [tool.mypy].
    result = _run("mypy")
    assert result.returncode == 0, f"mypy found problems:\n{result.stdout}{result.stderr}"
    assert "Success: no issues found" in result.stdout


def test_ruff_passes():
    result = _run("ruff", "check", "--no-cache", *TARGETS)
    assert result.returncode == 0, f"ruff check found problems:\n{result.stdout}{result.stderr}"
