"""Layering rules of DESIGN/STYLE that matter for the cluster seam, checked on the sources."""
from __future__ import annotations

import ast
from pathlib import Path

import helm_core

ROOT = Path(helm_core.__file__).resolve().parent


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


def test_only_kube_live_imports_the_kubernetes_package():
    importers = sorted(str(p.relative_to(ROOT)) for p in ROOT.rglob("*.py")
                       if "kubernetes" in _imports(p))
    assert importers == ["kube/live.py"]


def test_helm_core_never_imports_kopf():
    assert [p for p in ROOT.rglob("*.py") if "kopf" in _imports(p)] == []


def test_storage_reaches_the_cluster_only_through_the_client_seam():
    for path in sorted((ROOT / "storage").glob("*.py")):
        source = path.read_text()
        assert "kube import live" not in source and "kube.live" not in source, path.name
