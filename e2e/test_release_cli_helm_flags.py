"""helm 3.22 flags of the release commands against the real API server, beside stock helm on
the same releases (kept in Helm's format, ``--storage helm``, so both read them):
``install/upgrade --labels`` with ``list --selector``, ``status --show-resources``,
``test --logs`` and ``--wait`` with or without ``--wait-for-jobs``.

The control plane runs Pods through kwok, which serves no container logs: the API server's
answer to a log request is its failure to reach the node, and helm-core is checked to say what
helm says (the printing of logs that do come back: tests/action/test_test_logs.py)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from e2e import release_kit as kit
from e2e.conftest import ClusterInfo
from helm_core.kube import live
from tests.sources import servers

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[1]
DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-web
spec:
  replicas: 2
  selector:
    matchLabels: {app: "{{ .Release.Name }}"}
  template:
    metadata:
      labels: {app: "{{ .Release.Name }}"}
    spec:
      containers:
      - name: main
        image: busybox
"""
SERVICE = """apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}-svc
spec:
  ports: [{port: 80}]
  selector: {app: "{{ .Release.Name }}"}
"""
TEST_POD = """apiVersion: v1
kind: Pod
metadata:
  name: {{ .Release.Name }}-probe
  annotations:
    helm.sh/hook: test
spec:
  restartPolicy: Never
  containers:
  - name: main
    image: busybox
"""


@pytest.fixture(scope="module")
def helm() -> str:
    found = servers.find_helm()
    if found is None:
        pytest.skip("the reference helm binary is not available ($HELM_BIN, PATH or the tools cache)")
    return found


def _env(tmp_path: Path, cluster: ClusterInfo) -> dict[str, str]:
    env = {**os.environ, "KUBECONFIG": str(cluster.kubeconfig), "HELM_CONFIG_HOME": str(tmp_path / "config"),
           "HELM_CACHE_HOME": str(tmp_path / "cache"), "HELM_DATA_HOME": str(tmp_path / "data"),
           "HELM_CORE_CACHE": str(tmp_path / "core-cache"), "HELM_CORE_STORAGE": "helm"}
    env.pop("HELM_NAMESPACE", None)
    return env


def _core(tmp_path: Path, cluster: ClusterInfo, namespace: str, *args: str,
          ok: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-m", "helm_core", *args, "-n", namespace], capture_output=True,
                          text=True, cwd=ROOT, timeout=300, env=_env(tmp_path, cluster))
    assert (done.returncode == 0) == ok, done.stderr
    return done


def _helm(helm: str, tmp_path: Path, cluster: ClusterInfo, namespace: str, *args: str,
          ok: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([helm, *args, "-n", namespace], capture_output=True, text=True, timeout=300,
                          env=_env(tmp_path, cluster))
    assert (done.returncode == 0) == ok, done.stderr
    return done


def _chart(root: Path, templates: dict[str, str]) -> str:
    kit.chart(root, templates)
    return str(root)


def test_labels_and_selector_with_stock_helm(cluster: ClusterInfo, hc: live.LiveClient, namespace: str,
                                             tmp_path: Path, helm: str) -> None:
    chart = _chart(tmp_path / "demo", {"a.yaml": kit.configmap("{{ .Release.Name }}-a")})
    core = lambda *args, ok=True: _core(tmp_path, cluster, namespace, *args, ok=ok)  # noqa: E731
    stock = lambda *args, ok=True: _helm(helm, tmp_path, cluster, namespace, *args, ok=ok)  # noqa: E731
    core("install", "ours", chart, "--labels", "team=a,tier=web")
    stock("install", "theirs", chart, "-l", "team=a")
    core("install", "other", chart, "-l", "team=b")
    for selector, expected in (("team=a", "ours\ntheirs\n"), ("team!=a", "other\n"), ("tier", "ours\n"),
                               ("team=a,tier!=web", "theirs\n")):
        assert stock("list", "-q", "--selector", selector).stdout == expected, selector
        assert core("list", "-q", "--selector", selector).stdout == expected, selector
    for wrong in ("a b", "team in a", "-team"):  # apimachinery's words, as helm prints them
        flag = f"--selector={wrong}"
        assert core("list", flag, ok=False).stderr == stock("list", flag, ok=False).stderr, wrong
    # upgrade merges over the newest version's labels, "null" removes one (helm's rule), and
    # helm reads what helm-core wrote
    core("upgrade", "ours", chart, "--labels", "tier=null,env=prod")
    assert stock("list", "-q", "-l", "team=a,env=prod").stdout == "ours\n"
    assert stock("list", "-q", "-l", "tier").stdout == ""
    stock("upgrade", "theirs", chart, "--labels", "env=prod")
    assert core("list", "-q", "-l", "env=prod").stdout == "ours\ntheirs\n"
    # helm-core's own storage keeps them too, and adopting a helm release keeps its labels
    core("install", "mine", chart, "--storage", "release", "-l", "team=c")
    core("upgrade", "theirs", chart, "--storage", "release")
    assert core("list", "-q", "--storage", "release", "-l", "team in (a,c)").stdout == "mine\nours\ntheirs\n"
    # the reserved names: helm's message (helm-core names its own two as well)
    theirs = stock("install", "bad", chart, "-l", "owner=me", ok=False).stderr
    ours = core("install", "bad", chart, "-l", "owner=me", ok=False).stderr
    message = "user supplied labels contains system reserved label name. System labels: ["
    assert theirs.startswith(f"Error: INSTALLATION FAILED: {message}name owner status version createdAt modifiedAt]")
    assert ours == (f"Error: INSTALLATION FAILED: {message}name owner status version createdAt modifiedAt "
                    "release helm-core.io/adopted]\n")
    assert core("list", "-q", "-a", "--storage", "release").stdout == "mine\nother\nours\ntheirs\n"  # nothing installed


def _without_ages(text: str) -> str:
    """Table lines with their last cell (AGE: the server's clock at each request) blanked."""
    return re.sub(r"(?m)^(\S.*?   )\d+[smhd]\S*$", r"\1<age>", text)


def _groups(text: str) -> dict[str, str]:
    """The RESOURCES section's groups (helm prints them in Go's random map order)."""
    section = text.split("RESOURCES:\n", 1)[1].split("\nTEST SUITE:", 1)[0]
    chunks = (chunk.strip("\n") for chunk in section.split("\n\n"))
    return {chunk.split("\n", 1)[0]: chunk for chunk in chunks if chunk}


def test_status_show_resources_as_helm(cluster: ClusterInfo, hc: live.LiveClient, namespace: str,
                                       tmp_path: Path, helm: str) -> None:
    chart = _chart(tmp_path / "demo", {"a.yaml": kit.configmap("{{ .Release.Name }}-a"),
                                       "b.yaml": kit.configmap("{{ .Release.Name }}-b"),
                                       "svc.yaml": SERVICE, "web.yaml": DEPLOYMENT})
    core = lambda *args, ok=True: _core(tmp_path, cluster, namespace, *args, ok=ok)  # noqa: E731
    stock = lambda *args, ok=True: _helm(helm, tmp_path, cluster, namespace, *args, ok=ok)  # noqa: E731
    core("install", "web", chart, "--wait", "--timeout", "120s")
    theirs = stock("status", "web", "--show-resources").stdout
    ours = core("status", "web", "--show-resources").stdout
    assert ours.split("RESOURCES:\n")[0] == theirs.split("RESOURCES:\n")[0]
    assert ours.endswith("\n\nTEST SUITE: None\n") and theirs.endswith("\n\nTEST SUITE: None\n")
    assert {k: _without_ages(v) for k, v in _groups(ours).items()} == {
        k: _without_ages(v) for k, v in _groups(theirs).items()}
    assert set(_groups(ours)) == {"==> v1/ConfigMap", "==> v1/Service", "==> v1/Deployment", "==> v1/Pod(related)"}
    assert len(_groups(ours)["==> v1/Pod(related)"].splitlines()) == 4  # the header and kwok's two Pods
    # -o json: whole objects under info.resources, as helm's (Pods as their list)
    mine = json.loads(core("status", "web", "--show-resources", "-o", "json").stdout)["info"]["resources"]
    stocks = json.loads(stock("status", "web", "--show-resources", "-o", "json").stdout)["info"]["resources"]
    assert list(mine) == sorted(stocks)
    def names(objects: list[dict]) -> list[tuple[str, list[str]]]:  # versions move: kwok keeps Pods alive
        return [(o["kind"], [i["metadata"]["name"] for i in o.get("items", [o])]) for o in objects]

    for key, objects in stocks.items():
        assert names(mine[key]) == names(objects), key
    assert mine["v1/Deployment"][0]["spec"]["replicas"] == 2 and "status" in mine["v1/Deployment"][0]
    # without the flag, or with nothing left in the cluster, no RESOURCES section
    assert "RESOURCES" not in core("status", "web").stdout
    hc.delete(kit.kclient.ObjectRef("v1", "ConfigMap", "web-a", namespace))
    assert "web-a" not in core("status", "web", "--show-resources").stdout


def test_test_logs_as_helm(cluster: ClusterInfo, hc: live.LiveClient, namespace: str, tmp_path: Path,
                           helm: str) -> None:
    """A Job test (kwok completes it) has no Pod of its name; a Pod test stays Running under kwok
    (both fail on the timeout); no node serves logs: each ends on helm's log error."""
    core = lambda *args, ok=True: _core(tmp_path, cluster, namespace, *args, ok=ok)  # noqa: E731
    stock = lambda *args, ok=True: _helm(helm, tmp_path, cluster, namespace, *args, ok=ok)  # noqa: E731
    jobs = _chart(tmp_path / "jobs", {"a.yaml": kit.configmap("a"), "t.yaml": kit.hook_job("smoke", "test")})
    core("install", "jobs", jobs)
    theirs = stock("test", "jobs", "--logs", "--timeout", "60s", ok=False)
    ours = core("test", "jobs", "--logs", "--timeout", "60s", ok=False)
    assert ours.stderr == theirs.stderr == 'Error: unable to get pod logs for smoke: pods "smoke" not found\n'
    assert ours.stdout.startswith("NAME: jobs\n") and ours.stdout.endswith("\n\n")  # the status, then a blank line
    pods = _chart(tmp_path / "pods", {"a.yaml": kit.configmap("b"), "t.yaml": TEST_POD})
    core("install", "pods", pods)
    theirs = stock("test", "pods", "--logs", "--timeout", "3s", ok=False)
    ours = core("test", "pods", "--logs", "--timeout", "3s", ok=False)
    assert ours.stderr == theirs.stderr
    assert re.fullmatch(r'Error: unable to get pod logs for pods-probe: Get "https://[^"]+/containerLogs/'
                        + namespace + r'/pods-probe/main": .*\n', ours.stderr)
    # without --logs the test's own failure is the error, after the status
    failed = core("test", "pods", "--timeout", "2s", ok=False)
    assert failed.stdout.startswith("NAME: pods\n")
    assert failed.stderr == "Error: 1 error occurred:\n\t* timed out waiting for the condition\n\n\n"


def test_install_and_upgrade_say_helms_coalescing_warnings(cluster: ClusterInfo, hc: live.LiveClient, namespace: str,
                                                           tmp_path: Path, helm: str) -> None:
    """Values that do not coalesce: helm's log lines on stderr, byte for byte, as many times as
    helm logs them (dry runs and real ones; an upgrade without values reuses the last ones)."""
    from tests import chartkit
    from tests.test_coalesce_warnings_helm import CONFLICTS

    chart = str(chartkit.write_chart(tmp_path / "chart", CONFLICTS))
    core = lambda *args: _core(tmp_path, cluster, namespace, *args)  # noqa: E731
    stock = lambda *args: _helm(helm, tmp_path, cluster, namespace, *args)  # noqa: E731
    for args in (["install", "{}", chart, "--dry-run", "--set", "global=3"],
                 ["install", "{}", chart, "--set", "nested.a.b=5"],
                 ["upgrade", "{}", chart, "--dry-run", "--set", "two.cfg.a.more=1"],
                 ["upgrade", "{}", chart, "--set", "nested.a.b=5,one.cfg=null"],
                 ["upgrade", "{}", chart]):
        theirs = stock(*(arg.format("theirs") for arg in args)).stderr
        ours = core(*(arg.format("ours") for arg in args)).stderr
        assert ours == theirs, args
        assert "coalesce.go:" in theirs


def test_reuse_values_as_helm(cluster: ClusterInfo, hc: live.LiveClient, namespace: str, tmp_path: Path,
                              helm: str) -> None:
    """``upgrade --reuse-values`` to a chart with new defaults: helm renders over the current
    version's computed values (the new default is not there), a ``null`` given drops the old
    user value; ``--reset-then-reuse-values`` takes the new chart's defaults."""
    shown = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-shown\ndata:\n"
             "  all: {{ .Values | toJson | quote }}\n")
    one, two = tmp_path / "one", tmp_path / "two"
    kit.chart(one, {"cm.yaml": shown}, values="greeting: hello\nnested:\n  a: 1\n  b: 2\n")
    kit.chart(two, {"cm.yaml": shown}, values="greeting: hi\nadded: new\nnested:\n  a: 10\n")
    runs = {"ours": lambda *args: _core(tmp_path, cluster, namespace, *args),
            "theirs": lambda *args: _helm(helm, tmp_path, cluster, namespace, *args)}
    seen: dict[str, list[Any]] = {"ours": [], "theirs": []}
    for name, run in runs.items():
        run("install", name, str(one), "--set", "nested.b=3")
        run("upgrade", name, str(two), "--reuse-values", "--set", "nested.a=null,extra=x")
        seen[name].append(kit.get(hc, "ConfigMap", f"{name}-shown", namespace)["data"]["all"])
        seen[name].append(json.loads(run("get", "values", name, "-o", "json").stdout))
        run("upgrade", name, str(two), "--reset-then-reuse-values")
        seen[name].append(kit.get(hc, "ConfigMap", f"{name}-shown", namespace)["data"]["all"])
    assert seen["ours"] == seen["theirs"]
    assert json.loads(seen["ours"][0]) == {"greeting": "hello", "extra": "x", "nested": {"b": 3}}


def test_wait_for_jobs_as_helm(cluster: ClusterInfo, hc: live.LiveClient, namespace: str, tmp_path: Path,
                               helm: str) -> None:
    """``--wait`` does not wait for a Job to complete unless ``--wait-for-jobs``: a Job whose Pod
    fits no node leaves ``install --wait`` successful, and fails ``upgrade`` and ``rollback``
    with ``--wait-for-jobs`` on their timeout, as helm's do."""
    job = ("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {{ .Release.Name }}-migrate\nspec:\n"
           "  template:\n    spec:\n      restartPolicy: Never\n      nodeSelector: {no-such-node: \"true\"}\n"
           "      containers:\n      - name: m\n        image: busybox\n")
    chart = _chart(tmp_path / "jobs", {"job.yaml": job})
    runs = {"ours": lambda *args, ok=True: _core(tmp_path, cluster, namespace, *args, ok=ok),
            "theirs": lambda *args, ok=True: _helm(helm, tmp_path, cluster, namespace, *args, ok=ok)}
    seen: dict[str, list[Any]] = {"ours": [], "theirs": []}
    for name, run in runs.items():
        run("install", name, chart, "--wait", "--timeout", "60s")
        failed = run("upgrade", name, chart, "--wait", "--wait-for-jobs", "--timeout", "3s", ok=False)
        assert failed.stderr.startswith("Error: UPGRADE FAILED: ")  # then each one's words for the timeout
        run("rollback", name, "--wait", "--wait-for-jobs", "--timeout", "3s", ok=False)
        seen[name] = [(h["revision"], h["status"]) for h in json.loads(run("history", name, "-o", "json").stdout)]
        assert "Complete" not in json.dumps(kit.get(hc, "Job", f"{name}-migrate", namespace, "batch/v1"))
    assert seen["ours"] == seen["theirs"] == [(1, "deployed"), (2, "failed"), (3, "failed")]
