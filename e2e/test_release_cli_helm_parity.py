"""helm-core's release commands beside stock helm 3.22 on the same releases (kept in helm's
format, so each reads what the other wrote), against the real API server: what ``get``
prints of empty values, the state a failed rollback leaves, ``--force`` going on past an
object the server refuses to replace, and helm's coalescing warnings when a release's values
are read back or reused."""
from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from e2e import release_kit as kit
from e2e.conftest import ClusterInfo
from e2e.test_release_cli_helm_flags import _core, _helm, helm
from helm_core.kube import live

pytestmark = pytest.mark.e2e

__all__ = ["helm"]  # the fixture used by the tests below

Run = Callable[..., subprocess.CompletedProcess[str]]


def _both(helm: str, cluster: ClusterInfo, namespace: str, tmp_path: Path) -> tuple[Run, Run]:
    """helm-core and stock helm, each as ``run(*args, ok=True)``."""
    return (lambda *args, ok=True: _core(tmp_path, cluster, namespace, *args, ok=ok),
            lambda *args, ok=True: _helm(helm, tmp_path, cluster, namespace, *args, ok=ok))


def test_get_prints_empty_values_as_helm(cluster: ClusterInfo, hc: live.LiveClient, namespace: str,
                                         tmp_path: Path, helm: str) -> None:
    """No user values print ``null`` (helm's record leaves an empty ``config`` out: read back,
    it is nil), computed values that are empty ``{}``: in ``get all`` and ``get values``."""
    empty = str(tmp_path / "empty")
    kit.chart(tmp_path / "empty", {"cm.yaml": kit.configmap("{{ .Release.Name }}-cm", data="x")}, values="")
    core, stock = _both(helm, cluster, namespace, tmp_path)
    core("install", "by-core", empty)
    stock("install", "by-stock", empty)
    for name in ("by-core", "by-stock"):
        everything = stock("get", "all", name).stdout
        assert "USER-SUPPLIED VALUES:\nnull\n\nCOMPUTED VALUES:\n{}\n\n" in everything
        assert core("get", "all", name).stdout == everything, name
        for args in (["values"], ["values", "-o", "json"], ["values", "-o", "yaml"],
                     ["values", "--all"], ["values", "--all", "-o", "json"], ["values", "--all", "-o", "yaml"]):
            assert core("get", *args, name).stdout == stock("get", *args, name).stdout, (name, args)
    assert core("get", "values", "by-core").stdout == "USER-SUPPLIED VALUES:\nnull\n"
    assert core("get", "values", "by-core", "--all").stdout == "COMPUTED VALUES:\n{}\n"
