"""helm-core next to stock helm (issue 18): releases helm made are listed and adopted in place,
and ``--storage helm`` releases are read and rolled back by helm itself."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from e2e import release_kit as kit
from e2e.conftest import ClusterInfo
from e2e.test_release_cli import helm_binary
from helm_core.kube import client as kclient
from helm_core.kube import live
from helm_core.storage import helmsecrets

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def helm() -> str:
    found = helm_binary()
    if found is None:
        pytest.fail("the stock helm built for the tests is missing (set HELM_BIN)", pytrace=False)
    return found


@pytest.fixture
def chart(tmp_path: Path) -> str:
    service = ("apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}-svc\n"
               "spec:\n  ports:\n  - port: 80\n")
    kit.chart(tmp_path / "demo", {"cm.yaml": kit.configmap("{{ .Release.Name }}-cm"),
                                  "svc.yaml": service,
                                  "hook.yaml": kit.hook_job("{{ .Release.Name }}-pre", "pre-rollback"),
                                  "NOTES.txt": "hi {{ .Values.greeting }}"})
    return str(tmp_path / "demo")


def run_helm(helm: str, cluster: ClusterInfo, namespace: str, *args: str, ok: bool = True) -> str:
    result = subprocess.run([helm, *args, "--kubeconfig", str(cluster.kubeconfig), "-n", namespace],
                            capture_output=True, text=True, timeout=300)
    assert (result.returncode == 0) == ok, result.stderr
    return result.stdout


def run_core(cluster: ClusterInfo, namespace: str, *args: str, ok: bool = True) -> str:
    result = subprocess.run([sys.executable, "-m", "helm_core", *args, "--kubeconfig",
                             str(cluster.kubeconfig), "-n", namespace],
                            capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert (result.returncode == 0) == ok, result.stderr
    return result.stdout


def uids(client: live.LiveClient, namespace: str, name: str) -> dict[str, str]:
    return {kind: kit.get(client, kind, f"{name}-{suffix}", namespace)["metadata"]["uid"]
            for kind, suffix in (("ConfigMap", "cm"), ("Service", "svc"))}


def greeting(client: live.LiveClient, namespace: str, name: str) -> str:
    return kit.get(client, "ConfigMap", f"{name}-cm", namespace)["data"]["greeting"]


def helm_secrets(client: live.LiveClient, namespace: str, name: str) -> list[dict]:
    return [s for s in client.list("v1", "Secret", namespace=namespace,
                                   label_selector=helmsecrets.selector(name))]


def history_rows(text: str) -> list[list[str]]:
    return [[cell.strip() for cell in row.split("\t")] for row in text.splitlines()[1:]]


def test_helm_release_is_listed_upgraded_in_place_and_rolled_back_to_helms_revision(
        cluster: ClusterInfo, hc: live.LiveClient, namespace: str, helm: str, chart: str) -> None:
    run_helm(helm, cluster, namespace, "install", "web", chart, "--set", "greeting=one")
    run_helm(helm, cluster, namespace, "upgrade", "web", chart, "--set", "greeting=two")
    before = uids(hc, namespace, "web")

    # Reads: helm's releases are helm-core's too, with helm's integer revisions.
    listed = json.loads(run_core(cluster, namespace, "list", "-o", "json"))
    assert [(e["name"], e["revision"], e["status"], e["chart"]) for e in listed] == [
        ("web", "2", "deployed", "demo-0.1.0")]
    rows = history_rows(run_core(cluster, namespace, "history", "web"))
    assert [(r[0], r[2]) for r in rows] == [("1", "superseded"), ("2", "deployed")]
    assert run_core(cluster, namespace, "get", "values", "web") == "USER-SUPPLIED VALUES:\ngreeting: two\n"
    assert run_core(cluster, namespace, "get", "values", "web", "--revision", "1") == (
        "USER-SUPPLIED VALUES:\ngreeting: one\n")
    assert "name: web-cm" in run_core(cluster, namespace, "get", "manifest", "web")
    assert "name: web-pre" in run_core(cluster, namespace, "get", "hooks", "web")
    status = run_core(cluster, namespace, "status", "web")
    assert "REVISION: 2\n" in status and "STATUS: deployed\n" in status and status.endswith("hi two\n")

    # Upgrade takes the release over in place: same objects, helm's revisions become versions.
    out = run_core(cluster, namespace, "upgrade", "web", chart, "--set", "greeting=three")
    assert out.startswith('Release "web" has been upgraded. Happy Helming!\n')
    assert uids(hc, namespace, "web") == before
    assert greeting(hc, namespace, "web") == "three"
    rows = history_rows(run_core(cluster, namespace, "history", "web"))
    assert [r[2] for r in rows] == ["superseded", "superseded", "deployed"]
    assert [r[0] for r in rows[:2]] == ["1", "2"] and len(rows[2][0]) == 26  # then a ULID
    release = hc.get(kclient.ObjectRef("helm.sh/v1alpha1", "Release", "web", namespace))
    assert release["status"]["status"] == "deployed"
    # Helm's Secrets are kept by default, marked adopted; stock helm still sees its old record.
    kept = helm_secrets(hc, namespace, "web")
    assert len(kept) == 2 and all(s["metadata"]["labels"][helmsecrets.ADOPTED_LABEL] == "true" for s in kept)

    # Rollback to one of helm's revisions, still in place.
    assert run_core(cluster, namespace, "rollback", "web", "1") == "Rollback was a success! Happy Helming!\n"
    assert greeting(hc, namespace, "web") == "one"
    assert uids(hc, namespace, "web") == before
    rows = history_rows(run_core(cluster, namespace, "history", "web"))
    assert rows[-1][2] == "deployed" and rows[-1][5] == "Rollback to 1"
    assert run_core(cluster, namespace, "get", "values", "web") == "USER-SUPPLIED VALUES:\ngreeting: one\n"

    # Uninstalling the adopted release does not bring helm's kept copies back into view.
    run_core(cluster, namespace, "uninstall", "web")
    assert run_core(cluster, namespace, "list", "-q") == ""
    assert not kit.exists(hc, "ConfigMap", "web-cm", namespace)


def test_adoption_can_delete_helms_secrets(cluster: ClusterInfo, hc: live.LiveClient, namespace: str,
                                           helm: str, chart: str) -> None:
    run_helm(helm, cluster, namespace, "install", "api", chart)
    before = uids(hc, namespace, "api")
    run_core(cluster, namespace, "upgrade", "api", chart, "--set", "greeting=x",
             "--helm-secrets", "delete")
    assert helm_secrets(hc, namespace, "api") == []
    assert run_helm(helm, cluster, namespace, "list", "-q") == ""
    assert uids(hc, namespace, "api") == before
    rows = history_rows(run_core(cluster, namespace, "history", "api"))
    assert [(r[0], r[2]) for r in rows[:1]] == [("1", "superseded")] and rows[1][2] == "deployed"


def test_storage_helm_releases_are_helms_to_read_and_roll_back(
        cluster: ClusterInfo, hc: live.LiveClient, namespace: str, helm: str, chart: str) -> None:
    run_core(cluster, namespace, "install", "db", chart, "--storage", "helm", "--set", "greeting=one")
    run_core(cluster, namespace, "upgrade", "db", chart, "--storage", "helm", "--set", "greeting=two")
    before = uids(hc, namespace, "db")

    listed = json.loads(run_helm(helm, cluster, namespace, "list", "-o", "json"))
    assert [(e["name"], e["revision"], e["status"], e["chart"]) for e in listed] == [
        ("db", "2", "deployed", "demo-0.1.0")]
    history = json.loads(run_helm(helm, cluster, namespace, "history", "db", "-o", "json"))
    assert [(h["revision"], h["status"]) for h in history] == [(1, "superseded"), (2, "deployed")]
    assert run_helm(helm, cluster, namespace, "get", "values", "db") == "USER-SUPPLIED VALUES:\ngreeting: two\n"
    assert json.loads(run_helm(helm, cluster, namespace, "get", "values", "db", "--all", "-o", "json")) == {
        "greeting": "two"}
    assert "name: db-cm" in run_helm(helm, cluster, namespace, "get", "manifest", "db")
    assert "hi two" in run_helm(helm, cluster, namespace, "get", "notes", "db")
    assert not hc.list("helm.sh/v1alpha1", "Release", namespace=namespace)  # helm's format only

    # Stock helm rolls it back (running our stored pre-rollback hook), in place.
    run_helm(helm, cluster, namespace, "rollback", "db", "1")
    assert greeting(hc, namespace, "db") == "one"
    assert uids(hc, namespace, "db") == before
    rows = history_rows(run_core(cluster, namespace, "history", "db", "--storage", "helm"))
    assert [(r[0], r[2], r[5]) for r in rows] == [
        ("1", "superseded", "Install complete"), ("2", "superseded", "Upgrade complete"),
        ("3", "deployed", "Rollback to 1")]

    # And helm-core keeps working on what helm wrote.
    run_core(cluster, namespace, "rollback", "db", "2", "--storage", "helm")
    assert greeting(hc, namespace, "db") == "two"
    history = json.loads(run_helm(helm, cluster, namespace, "history", "db", "-o", "json"))
    assert [(h["revision"], h["status"], h["description"]) for h in history][-1] == (
        4, "deployed", "Rollback to 2")
    run_core(cluster, namespace, "uninstall", "db", "--storage", "helm")
    assert run_helm(helm, cluster, namespace, "list", "-a", "-q") == ""
    assert not kit.exists(hc, "ConfigMap", "db-cm", namespace)


def test_skip_schema_validation_on_install_and_upgrade_as_helm(
        cluster: ClusterInfo, hc: live.LiveClient, namespace: str, helm: str, chart: str) -> None:
    """``--skip-schema-validation`` lets values the chart's schema refuses through, on install
    and on upgrade, for helm and helm-core alike; without it both refuse before applying."""
    Path(chart, "values.schema.json").write_text('{"properties": {"greeting": {"type": "integer"}}}')
    for run, name in ((lambda *a, ok=True: run_core(cluster, namespace, *a, ok=ok), "core"),
                      (lambda *a, ok=True: run_helm(helm, cluster, namespace, *a, ok=ok), "stock")):
        run("install", name, chart, "--set", "greeting=one", ok=False)
        assert not kit.exists(hc, "ConfigMap", f"{name}-cm", namespace)
        run("install", name, chart, "--set", "greeting=one", "--skip-schema-validation")
        assert greeting(hc, namespace, name) == "one"
        run("upgrade", name, chart, "--set", "greeting=two", ok=False)
        assert greeting(hc, namespace, name) == "one"
        run("upgrade", name, chart, "--set", "greeting=two", "--skip-schema-validation")
        assert greeting(hc, namespace, name) == "two"



def test_notes_and_crd_flags_on_install_and_upgrade_as_helm(
        cluster: ClusterInfo, hc: live.LiveClient, namespace: str, helm: str, tmp_path: Path) -> None:
    """``--render-subchart-notes`` keeps the subcharts' NOTES.txt with the chart's, ``--hide-notes``
    leaves them out of the output but stored, ``--skip-crds`` installs no CRD from crds/ (also
    through ``upgrade --install``), for helm and helm-core alike."""
    group = f"{namespace}.example.com"
    crd = (f"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n"
           f"  name: widgets.{group}\nspec:\n  group: {group}\n  scope: Namespaced\n"
           "  names: {plural: widgets, singular: widget, kind: Widget}\n  versions:\n"
           "  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}\n")
    kit.chart(tmp_path / "notes", {"cm.yaml": kit.configmap("{{ .Release.Name }}-cm"), "NOTES.txt": ""},
              extra={"crds/widget.yaml": crd,
                     "charts/sub/Chart.yaml": "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
                     "charts/sub/templates/NOTES.txt": "sub says {{ .Release.Name }}\n"})
    chart = str(tmp_path / "notes")
    crd_ref = kclient.ObjectRef("apiextensions.k8s.io/v1", "CustomResourceDefinition", f"widgets.{group}")

    def notes_section(out: str) -> str:
        return out.partition("NOTES:\n")[2]

    for run, name in ((lambda *a: run_core(cluster, namespace, *a), "core"),
                      (lambda *a: run_helm(helm, cluster, namespace, *a), "stock")):
        out = run("install", name, chart, "--render-subchart-notes", "--skip-crds")
        assert notes_section(out) == f"sub says {name}\n", name
        assert not kit.exists(hc, crd_ref.kind, crd_ref.name, "", crd_ref.api_version)
        out = run("upgrade", name, chart, "--render-subchart-notes", "--hide-notes")
        assert "NOTES:" not in out
        # helm joins the charts' notes in random order: the empty one before or after
        assert run("get", "notes", name).rstrip("\n") == f"NOTES:\nsub says {name}", name
        assert "NOTES:" not in run("upgrade", name, chart)  # the chart's own NOTES.txt is empty
        run("upgrade", f"{name}-new", chart, "--install", "--skip-crds")
        assert not kit.exists(hc, crd_ref.kind, crd_ref.name, "", crd_ref.api_version)


def test_list_paging_and_time_format_as_helm(
        cluster: ClusterInfo, hc: live.LiveClient, namespace: str, helm: str, chart: str) -> None:
    """``list --max/--offset`` page through the sorted releases and ``--time-format`` lays out
    UPDATED with a Go layout, as helm's list does (over the same releases: helm's storage)."""
    for name in ("c", "a", "d", "b"):  # helm sorts by whole seconds: no two in the same second
        run_helm(helm, cluster, namespace, "install", name, chart)
        time.sleep(1.1)
    for flags in ((), ("--max", "2"), ("--max", "2", "--offset", "1"), ("--offset", "3"), ("--offset", "4"),
                  ("--max", "0", "--offset", "1", "-r"), ("-m", "-1"), ("--max", "3", "--date", "-r")):
        assert run_core(cluster, namespace, "list", "--storage", "helm", "-q", *flags) == \
            run_helm(helm, cluster, namespace, "list", "-q", *flags), flags
    layout = ("--time-format", "2006-01-02 Mon Jan _2 15h")
    ours = [row.split("\t")[3].strip() for row in run_core(
        cluster, namespace, "list", "--storage", "helm", *layout).splitlines()[1:]]
    theirs = [row.split("\t")[3].strip() for row in run_helm(helm, cluster, namespace, "list", *layout).splitlines()[1:]]
    assert ours == theirs and len(ours) == 4
    run_core(cluster, namespace, "list", "--offset", "-1", ok=False)


def test_uninstall_cascade_as_helm(
        cluster: ClusterInfo, hc: live.LiveClient, namespace: str, helm: str, tmp_path: Path) -> None:
    """``uninstall --cascade orphan`` deletes the release's objects but leaves their dependents
    (a Deployment's ReplicaSet), as helm's does; a word that is not a policy is helm's error."""
    deployment = ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}-app\nspec:\n"
                  "  selector:\n    matchLabels: {app: '{{ .Release.Name }}'}\n  template:\n"
                  "    metadata:\n      labels: {app: '{{ .Release.Name }}'}\n    spec:\n"
                  "      containers: [{name: main, image: busybox}]\n")
    kit.chart(tmp_path / "apps", {"deploy.yaml": deployment})
    chart = str(tmp_path / "apps")

    def replica_sets(name: str) -> list[dict]:
        return hc.list("apps/v1", "ReplicaSet", namespace=namespace, label_selector=f"app={name}")

    for run, name in ((lambda *a, ok=True: run_core(cluster, namespace, *a, ok=ok), "core"),
                      (lambda *a, ok=True: run_helm(helm, cluster, namespace, *a, ok=ok), "stock")):
        run("install", name, chart)
        deadline = time.monotonic() + 90
        while not replica_sets(name) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert replica_sets(name), f"{name}: the controller made no ReplicaSet"
        run("uninstall", name, "--cascade", "sideways", ok=False)
        run("uninstall", name, "--cascade", "orphan")
        assert not kit.exists(hc, "Deployment", f"{name}-app", namespace, "apps/v1")
        # the control: the default (background) lets the garbage collector take the ReplicaSet
        run("install", f"{name}-bg", chart)
        while not replica_sets(f"{name}-bg") and time.monotonic() < deadline:
            time.sleep(0.5)
        run("uninstall", f"{name}-bg")
        while replica_sets(f"{name}-bg") and time.monotonic() < deadline:
            time.sleep(0.5)
        assert not replica_sets(f"{name}-bg"), f"{name}: the garbage collector left the ReplicaSet"
        assert replica_sets(name), f"{name}: orphan deleted the dependents"
    core = subprocess.run([sys.executable, "-m", "helm_core", "uninstall", "x", "--cascade", "sideways"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    stock = subprocess.run([helm, "uninstall", "x", "--cascade", "sideways"], capture_output=True, text=True,
                           timeout=60)
    assert (core.returncode, core.stderr) == (stock.returncode, stock.stderr)


def test_upgrade_cleanup_on_fail_as_helm(
        cluster: ClusterInfo, hc: live.LiveClient, namespace: str, helm: str, tmp_path: Path) -> None:
    """``upgrade --cleanup-on-fail``: an upgrade that fails (its post-upgrade hook) deletes the
    objects it created and keeps the ones it found; without the flag they stay; as helm's."""
    kit.chart(tmp_path / "v1", {"a.yaml": kit.configmap("{{ .Release.Name }}-a")})
    kit.chart(tmp_path / "v2", {"a.yaml": kit.configmap("{{ .Release.Name }}-a"),
                                "b.yaml": kit.configmap("{{ .Release.Name }}-b"),
                                "hook.yaml": kit.hook_job("{{ .Release.Name }}-post", "post-upgrade", fail=True)})
    for run, who in ((lambda *a, ok=True: run_core(cluster, namespace, *a, ok=ok), "core"),
                     (lambda *a, ok=True: run_helm(helm, cluster, namespace, *a, ok=ok), "stock")):
        for name, flags in ((f"{who}-clean", ("--cleanup-on-fail",)), (f"{who}-keep", ())):
            run("install", name, str(tmp_path / "v1"))
            run("upgrade", name, str(tmp_path / "v2"), "--timeout", "60s", *flags, ok=False)
            assert kit.exists(hc, "ConfigMap", f"{name}-a", namespace), name
            assert kit.exists(hc, "ConfigMap", f"{name}-b", namespace) == (not flags), name
