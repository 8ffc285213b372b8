"""The ``helm-core`` release commands against the real API server, next to the real ``helm``."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from e2e import release_kit as kit
from e2e.conftest import ClusterInfo
from helm_core.kube import client as kclient
from helm_core.kube import live

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[1]
HELM_CACHE = Path("/root/.cache/hc-bootstrap/bin/helm")


def helm_binary() -> str | None:
    found = os.environ.get("HELM_BIN") or shutil.which("helm")
    if found:
        return found
    return str(HELM_CACHE) if HELM_CACHE.exists() else None


def _chart(root: Path) -> Path:
    kit.chart(root, {"a.yaml": kit.configmap("a"), "NOTES.txt": "Thanks {{ .Release.Name }}",
                     "t.yaml": kit.hook_job("smoke", "test")})
    return root


def _run(cluster: ClusterInfo, namespace: str, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([sys.executable, "-m", "helm_core", *args, "--kubeconfig",
                             str(cluster.kubeconfig), "-n", namespace],
                            capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert (result.returncode == 0) == ok, result.stderr
    return result


def test_cli_release_lifecycle(cluster: ClusterInfo, hc: live.LiveClient, namespace: str,
                               tmp_path: Path) -> None:
    chart = str(_chart(tmp_path / "demo"))
    out = _run(cluster, namespace, "install", "web", chart, "--set", "greeting=yo", "--wait").stdout
    assert out.splitlines()[0] == "NAME: web"
    # the chart has a test that never ran: helm prints no TEST SUITE line
    assert "TEST SUITE" not in out and out.endswith("\nNOTES:\nThanks web\n")
    out = _run(cluster, namespace, "upgrade", "web", chart, "--reuse-values", "--set", "x=1").stdout
    assert out.startswith('Release "web" has been upgraded. Happy Helming!\nNAME: web\n')
    assert _run(cluster, namespace, "get", "values", "web").stdout == (
        "USER-SUPPLIED VALUES:\ngreeting: yo\nx: 1\n")
    assert json.loads(_run(cluster, namespace, "get", "values", "web", "--all", "-o", "json").stdout) == {
        "greeting": "yo", "x": 1}
    assert "name: a" in _run(cluster, namespace, "get", "manifest", "web").stdout
    assert "name: smoke" in _run(cluster, namespace, "get", "hooks", "web").stdout
    assert _run(cluster, namespace, "get", "notes", "web").stdout == "NOTES:\nThanks web\n"
    rows = _run(cluster, namespace, "history", "web").stdout.splitlines()
    assert rows[0].split("\t")[0].rstrip() == "REVISION"
    assert [r.split("\t")[2].strip() for r in rows[1:]] == ["superseded", "deployed"]
    listed = json.loads(_run(cluster, namespace, "list", "-o", "json").stdout)
    assert [(e["name"], e["status"], e["chart"]) for e in listed] == [("web", "deployed", "demo-0.1.0")]
    assert _run(cluster, namespace, "list", "-q").stdout == "web\n"
    tested = _run(cluster, namespace, "test", "web", "--timeout", "60s").stdout
    assert tested.startswith("NAME: web\n") and "TEST SUITE:     smoke\n" in tested
    assert "Phase:          Succeeded\n" in _run(cluster, namespace, "status", "web").stdout
    assert _run(cluster, namespace, "rollback", "web").stdout == "Rollback was a success! Happy Helming!\n"
    assert "STATUS: deployed" in _run(cluster, namespace, "status", "web").stdout
    assert _run(cluster, namespace, "uninstall", "web", "--wait").stdout == 'release "web" uninstalled\n'
    failed = _run(cluster, namespace, "status", "web", ok=False)
    assert failed.stderr == "Error: release: not found\n"


def test_cli_list_layout_matches_helm(cluster: ClusterInfo, hc: live.LiveClient, namespace: str,
                                      tmp_path: Path) -> None:
    helm = helm_binary()
    if helm is None:
        pytest.skip("the reference helm binary is not available (HELM_BIN, PATH or the tools cache)")
    kit.chart(tmp_path / "demo", {"a.yaml": kit.configmap("{{ .Release.Name }}-a")})
    chart = str(tmp_path / "demo")
    _run(cluster, namespace, "install", "ours", chart)
    subprocess.run([helm, "install", "theirs", chart, "--kubeconfig", str(cluster.kubeconfig),
                    "-n", namespace], check=True, capture_output=True, timeout=300)
    ours = _run(cluster, namespace, "list").stdout.splitlines()
    theirs = subprocess.run([helm, "list", "--kubeconfig", str(cluster.kubeconfig), "-n", namespace],
                            check=True, capture_output=True, text=True).stdout.splitlines()
    assert [c.strip() for c in ours[0].split("\t")] == [c.strip() for c in theirs[0].split("\t")]
    for row in (ours[1], theirs[1]):
        cells = row.split("\t")
        assert len(cells) == 7 and cells[4].strip() == "deployed" and cells[5].strip() == "demo-0.1.0"
    widths = [len(c) for c in ours[0].split("\t")]
    assert all(len(c) == w for c, w in zip(ours[1].split("\t"), widths))
    subprocess.run([helm, "uninstall", "theirs", "--kubeconfig", str(cluster.kubeconfig),
                    "-n", namespace], check=True, capture_output=True, timeout=300)


def test_cli_rollback_test_and_uninstall_run_the_charts_lua(cluster: ClusterInfo, hc: live.LiveClient,
                                                            namespace: str, tmp_path: Path) -> None:
    """The Lua kept with each version answers pre/post-rollback, pre/post/failed-test and
    pre/post-delete on a real API server; its permissions are asked for again, as on install."""
    events = ("pre-rollback", "post-rollback", "pre-test", "post-test", "failed-test", "pre-delete",
              "post-delete")
    script = "".join(f'events.on("{e}", function(_) print("{e} " .. _.values.greeting) end)\n' for e in events)
    script += 'events.on("pre-rollback", function(_) print(os.date("!%Y") ~= nil) end)\n'
    extra = {"ext/lua/chart.lua": script, "ext/permissions.yaml": "lua: [os]\n"}
    kit.chart(tmp_path / "one", {"a.yaml": kit.configmap("a"), "t.yaml": kit.hook_job("smoke", "test")},
              values="greeting: one\n", extra=extra)
    kit.chart(tmp_path / "two", {"a.yaml": kit.configmap("a"), "t.yaml": kit.hook_job("smoke", "test", fail=True)},
              values="greeting: two\n", extra=extra)

    def lua_lines(result: subprocess.CompletedProcess[str]) -> list[str]:
        """What the chart's Lua printed (on stderr, as for ``template``)."""
        return [line.removeprefix("lua: demo: ") for line in result.stderr.splitlines() if line.startswith("lua: ")]

    _run(cluster, namespace, "install", "web", str(tmp_path / "one"), "--accept-perms", "os")
    assert lua_lines(_run(cluster, namespace, "test", "web", "--timeout", "60s", "-y")) == [
        "pre-test one", "post-test one"]
    _run(cluster, namespace, "upgrade", "web", str(tmp_path / "two"), "-y")
    failed = _run(cluster, namespace, "test", "web", "--timeout", "60s", "-y", ok=False)
    assert lua_lines(failed) == ["pre-test two", "failed-test two"]
    refused = _run(cluster, namespace, "rollback", "web", ok=False)
    assert 'chart "demo" asks for Lua permissions [os] but only [] were accepted' in refused.stderr
    assert len(json.loads(_run(cluster, namespace, "history", "web", "-o", "json").stdout)) == 2  # nothing done
    rolled = _run(cluster, namespace, "rollback", "web", "--accept-perms", "os")
    assert lua_lines(rolled) == ["pre-rollback one", "true", "post-rollback one"]
    assert hc.get(kclient.ObjectRef("v1", "ConfigMap", "a", namespace))["data"] == {"greeting": "one"}
    gone = _run(cluster, namespace, "uninstall", "web", "-y")
    assert lua_lines(gone) == ["pre-delete one", "post-delete one"]
