"""``upgrade --force`` and ``rollback --force`` against the real API server, beside stock helm
3.22 on the same scenario: fields other managers set on a release's objects (a ``kubectl
annotate``-style patch, a server-side apply of another field manager) survive a plain upgrade
and are gone after ``--force``, which replaces each object whole (a PUT) in place; a change the
server refuses in place fails in helm's words; fields a forced upgrade added are dropped by the
next plain upgrade, as helm's three-way patch drops them."""
from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from kubernetes import client as k8s

from e2e import release_kit as kit
from e2e.conftest import ClusterInfo
from e2e.test_release_cli_helm_flags import SERVICE, _core, _helm, helm
from helm_core.kube import live

pytestmark = pytest.mark.e2e

__all__ = ["helm"]  # the fixture used by the tests below

NOTE = "example.com/note"
TEAM = "example.com/team"
CONFIGMAP = """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-cm
data:
  greeting: {{ .Values.greeting | quote }}
  {{- if .Values.extra }}
  extra: "yes"
  {{- end }}
"""
FROZEN = """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-frozen
immutable: true
data:
  greeting: {{ .Values.greeting | quote }}
"""

Run = Callable[..., subprocess.CompletedProcess[str]]


def _tools(helm: str, cluster: ClusterInfo, namespace: str, tmp_path: Path) -> list[tuple[str, Run]]:
    """helm-core and stock helm, each as ``run(*args, ok=True)`` (both keep helm's storage)."""
    return [("core", lambda *args, ok=True: _core(tmp_path, cluster, namespace, *args, ok=ok)),
            ("stock", lambda *args, ok=True: _helm(helm, tmp_path, cluster, namespace, *args, ok=ok))]


def _edit_by_others(api: k8s.ApiClient, other: live.LiveClient, namespace: str, name: str) -> None:
    """Fields the release does not set, written as ``kubectl annotate`` writes them (a patch by
    its field manager) and by another controller's server-side apply."""
    k8s.CoreV1Api(api).patch_namespaced_config_map(name, namespace, {"metadata": {"annotations": {NOTE: "by hand"}}},
                                                   field_manager="kubectl-annotate")
    other.apply({"apiVersion": "v1", "kind": "ConfigMap",
                 "metadata": {"name": name, "namespace": namespace, "labels": {TEAM: "a"}}})


def _others(obj: dict[str, Any]) -> tuple[str | None, str | None]:
    meta = obj["metadata"]
    return (meta.get("annotations") or {}).get(NOTE), (meta.get("labels") or {}).get(TEAM)


def test_force_replaces_what_others_set_where_a_plain_upgrade_keeps_it_as_helm(
        cluster: ClusterInfo, hc: live.LiveClient, api: k8s.ApiClient, namespace: str, tmp_path: Path,
        helm: str) -> None:
    kit.chart(tmp_path / "demo", {"cm.yaml": CONFIGMAP, "svc.yaml": SERVICE}, values="greeting: one\nextra: false\n")
    chart = str(tmp_path / "demo")
    other = live.connect(live.LiveOptions(kubeconfig=str(cluster.kubeconfig), field_manager="other-controller"))
    for who, run in _tools(helm, cluster, namespace, tmp_path):
        cm = f"{who}-cm"
        # --install --force of a new release: created as without --force (helm's install ignores it)
        run("upgrade", "--install", "--force", who, chart)
        uid = kit.get(hc, "ConfigMap", cm, namespace)["metadata"]["uid"]
        _edit_by_others(api, other, namespace, cm)
        run("upgrade", who, chart, "--set", "greeting=two")
        kept = kit.get(hc, "ConfigMap", cm, namespace)
        assert (_others(kept), kept["data"]["greeting"]) == (("by hand", "a"), "two"), who
        run("upgrade", who, chart, "--force", "--set", "greeting=three,extra=true")
        forced = kit.get(hc, "ConfigMap", cm, namespace)
        assert _others(forced) == (None, None), who
        assert forced["data"] == {"greeting": "three", "extra": "yes"}, who
        assert forced["metadata"]["uid"] == uid, who  # in place, not deleted and created
        assert kit.get(hc, "Service", f"{who}-svc", namespace)["spec"]["clusterIP"], who  # kept by the server
        # what the forced upgrade added goes when the chart drops it (helm: three-way patch)
        run("upgrade", who, chart, "--set", "greeting=four,extra=false")
        assert kit.get(hc, "ConfigMap", cm, namespace)["data"] == {"greeting": "four"}, who
        _edit_by_others(api, other, namespace, cm)
        run("rollback", who)  # to the forced version: applied over what the others set
        back = kit.get(hc, "ConfigMap", cm, namespace)
        assert (_others(back), back["data"]) == (("by hand", "a"), {"greeting": "three", "extra": "yes"}), who
        run("rollback", who, "--force")  # to the version before: greeting four
        rolled = kit.get(hc, "ConfigMap", cm, namespace)
        assert (_others(rolled), rolled["data"]) == ((None, None), {"greeting": "four"}), who


def test_a_change_refused_in_place_fails_in_helms_words(
        cluster: ClusterInfo, hc: live.LiveClient, namespace: str, tmp_path: Path, helm: str) -> None:
    kit.chart(tmp_path / "demo", {"frozen.yaml": FROZEN}, values="greeting: one\n")
    chart = str(tmp_path / "demo")
    said = {}
    for who, run in _tools(helm, cluster, namespace, tmp_path):
        run("install", who, chart)
        forced = run("upgrade", who, chart, "--force", "--set", "greeting=two", ok=False).stderr
        atomic = run("upgrade", who, chart, "--force", "--atomic", "--set", "greeting=two", ok=False).stderr
        said[who] = (forced.replace(who, "NAME"), atomic.replace(who, "NAME"))
        assert kit.get(hc, "ConfigMap", f"{who}-frozen", namespace)["data"] == {"greeting": "one"}
        history = run("history", who, "-o", "json").stdout
        assert history.count('"failed"') == 2 and history.count('"deployed"') == 1, history
    refusal = ('failed to replace object: ConfigMap "NAME-frozen" is invalid: data: Forbidden: '
               "field is immutable when `immutable` is set")
    assert said["core"][0] == f"Error: UPGRADE FAILED: {refusal}\n"
    assert said["core"][1] == ("Error: UPGRADE FAILED: release NAME failed, and has been rolled back due to "
                               f"atomic being set: {refusal}\n")
    assert said["core"] == said["stock"]
