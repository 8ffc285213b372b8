"""helm-core's release commands beside stock helm 3.22 on the same releases (kept in helm's
format, so each reads what the other wrote), against the real API server: what ``get``
prints of empty values, the state a failed rollback leaves, ``--force`` going on past an
object the server refuses to replace, and helm's coalescing warnings when a release's values
are read back or reused."""
from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from kubernetes import client as k8s

from e2e import release_kit as kit
from e2e import test_release_force as force_tests
from e2e.conftest import ClusterInfo
from e2e.test_release_cli_helm_flags import SERVICE, _core, _helm, helm
from helm_core.kube import client as kclient
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


#: test_release_force's immutable ConfigMap, while ``frozen`` is set.
FROZEN = "{{- if .Values.frozen }}\n" + force_tests.FROZEN + "{{- end }}\n"


def _states(run: Run, name: str) -> list[tuple[str, str]]:
    """Each revision's status and description, the release's name as NAME."""
    return [(h["status"], h["description"].replace(name, "NAME"))
            for h in json.loads(run("history", name, "-o", "json").stdout)]


def test_a_failed_rollback_leaves_the_versions_as_helm(cluster: ClusterInfo, hc: live.LiveClient, namespace: str,
                                                       tmp_path: Path, helm: str) -> None:
    """A failed pre-rollback hook leaves the new revision ``pending-rollback`` with its hook
    stored ``Running`` (helm writes the release no more); an object the server refuses marks
    the revision before ``superseded`` and the new one ``failed``."""
    hooked = str(tmp_path / "hooked")
    kit.chart(tmp_path / "hooked", {"cm.yaml": kit.configmap("{{ .Release.Name }}-cm"),
                                    "hook.yaml": kit.hook_job("{{ .Release.Name }}-check", "pre-rollback", fail=True)})
    frozen = str(tmp_path / "frozen")
    kit.chart(tmp_path / "frozen", {"frozen.yaml": FROZEN, "cm.yaml": kit.configmap("{{ .Release.Name }}-cm")},
              values="greeting: one\nfrozen: true\n")
    said: dict[str, list[object]] = {}
    for who, run in zip(("core", "stock"), _both(helm, cluster, namespace, tmp_path), strict=True):
        hook, refused = f"{who}-hook", f"{who}-refused"
        run("install", hook, hooked)
        run("upgrade", hook, hooked, "--set", "greeting=two")
        run("rollback", hook, "1", "--timeout", "60s", ok=False)
        newest = json.loads(run("status", hook, "-o", "json").stdout)
        runs = [h["last_run"] for h in newest["hooks"]]
        # the frozen ConfigMap goes, comes back with other data, and a rollback to 1 cannot change it
        run("install", refused, frozen)
        run("upgrade", refused, frozen, "--set", "frozen=false")
        run("upgrade", refused, frozen, "--set", "greeting=two")
        failure = run("rollback", refused, "1", ok=False).stderr
        # (the refusal's words: helm's a patch's, helm-core's a server-side apply's)
        said[who] = [_states(run, hook), newest["info"]["status"], [(r["phase"], r["completed_at"]) for r in runs],
                     [(status, words.split(": ")[0]) for status, words in _states(run, refused)]]
        assert "is invalid: data: Forbidden: field is immutable" in failure, failure
    assert said["core"] == said["stock"]
    assert said["core"][:3] == [[("superseded", "Install complete"), ("deployed", "Upgrade complete"),
                                 ("pending-rollback", "Rollback to 1")], "pending-rollback", [("Running", "")]]
    assert said["core"][3][2:] == [("superseded", "Upgrade complete"), ("failed", 'Rollback "NAME" failed')]


#: A ConfigMap its finalizer keeps (deleted, it stays Terminating until the finalizer goes).
HELD = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-held\n"
        "  finalizers: [example.com/hold]\ndata:\n  a: b\n")


def test_uninstall_wait_past_its_timeout_completes_and_says_so_as_helm(
        cluster: ClusterInfo, hc: live.LiveClient, namespace: str, tmp_path: Path, helm: str) -> None:
    """helm's WaitForDelete past --timeout does not stop the uninstall: the release is gone
    (or kept ``uninstalled``), then ``uninstallation completed with 1 error(s): context deadline
    exceeded``; the same exit code, stdout and stderr, and the same history left."""
    held = str(tmp_path / "held")
    kit.chart(tmp_path / "held", {"held.yaml": HELD})
    said: dict[str, list[object]] = {}
    try:
        for who, run in zip(("core", "stock"), _both(helm, cluster, namespace, tmp_path), strict=True):
            gone, kept = f"{who}-gone", f"{who}-kept"
            said[who] = []
            for name, extra in ((gone, ()), (kept, ("--keep-history",))):
                run("install", name, held)
                done = run("uninstall", name, "--wait", "--timeout", "2s", *extra, ok=False)
                said[who].append((done.returncode, done.stdout, done.stderr.replace(name, "NAME")))
                history = run("history", name, "-o", "json", ok=bool(extra))
                said[who].append(_states(run, name) if extra else history.stderr.replace(name, "NAME"))
    finally:
        core = k8s.CoreV1Api(cluster.api_client())
        for cm in core.list_namespaced_config_map(namespace).items:
            if cm.metadata.finalizers:
                core.patch_namespaced_config_map(cm.metadata.name, namespace, {"metadata": {"finalizers": None}})
    assert said["core"] == said["stock"]
    assert said["core"][0] == (1, "", "Error: uninstallation completed with 1 error(s): context deadline exceeded\n")


def _frozen(letter: str) -> str:
    return FROZEN.replace("-frozen", f"-frozen-{letter}")


#: A Service whose cluster IP is pinned to one it cannot change to once ``pinned`` is set.
PINNED_SERVICE = SERVICE + "  {{- if .Values.pinned }}\n  clusterIP: 10.0.0.99\n  {{- end }}\n"


def test_force_goes_on_past_refused_objects_and_joins_their_errors_as_helm(
        cluster: ClusterInfo, hc: live.LiveClient, namespace: str, tmp_path: Path, helm: str) -> None:
    """``--force``: each object the server refuses to replace is an error joined with `` && ``
    in apply order, the others are replaced all the same (of any kind, before and after)."""
    chart = str(tmp_path / "demo")
    kit.chart(tmp_path / "demo", {"frozen-a.yaml": _frozen("a"), "frozen-b.yaml": _frozen("b"),
                                  "plain.yaml": kit.configmap("{{ .Release.Name }}-plain"), "svc.yaml": PINNED_SERVICE},
              values="greeting: one\nfrozen: true\npinned: false\n")
    said: dict[str, list[object]] = {}
    for who, run in zip(("core", "stock"), _both(helm, cluster, namespace, tmp_path), strict=True):
        run("install", who, chart)
        upgrade = run("upgrade", who, chart, "--force", "--set", "greeting=two,pinned=true", ok=False).stderr
        plain = kit.get(hc, "ConfigMap", f"{who}-plain", namespace)["data"]
        rollback = run("rollback", who, "2", "--force", ok=False).stderr  # to the refused objects again
        said[who] = [upgrade.replace(who, "NAME"), plain, rollback.replace(who, "NAME"),
                     [(status, words.replace(who, "NAME")) for status, words in _states(run, who)]]
        # helm 3.22's history table cuts no cell: the whole description, padded to its width
        table = run("history", who).stdout.splitlines()
        described = [h["description"] for h in json.loads(run("history", who, "-o", "json").stdout)]
        assert [line.split("\t")[-1].rstrip() for line in table] == ["DESCRIPTION", *described], who
        assert len({len(line) for line in table}) == 1, who
    assert said["core"] == said["stock"]
    refusal = 'failed to replace object: ConfigMap "NAME-frozen-{}" is invalid: data: Forbidden: ' \
              "field is immutable when `immutable` is set"
    assert said["core"][0] == (f"Error: UPGRADE FAILED: {refusal.format('a')} && {refusal.format('b')} && "
                               'failed to replace object: Service "NAME-svc" is invalid: spec.clusterIPs[0]: '
                               'Invalid value: ["10.0.0.99"]: may not change once set\n')
    assert said["core"][1] == {"greeting": "two"}
    assert said["core"][2].startswith(f"Error: {refusal.format('a')} && ")
    assert [status for status, _ in said["core"][3]] == ["deployed", "superseded", "failed"]


def test_reading_back_and_reusing_values_says_helms_coalescing_warnings(
        cluster: ClusterInfo, hc: live.LiveClient, namespace: str, tmp_path: Path, helm: str) -> None:
    """helm coalesces a release's user values over its record's chart values again for ``get
    values --all``, ``get all`` and ``upgrade --reuse-values`` (``status`` and ``get values``
    do not): a record helm wrote warns each time as helm does, numbers as Go's float64; one
    helm-core wrote keeps the final values as its chart's, so neither tool warns reading it."""
    from tests import chartkit
    from tests.test_coalesce_warnings_helm import CONFLICTS

    chart = str(chartkit.write_chart(tmp_path / "chart", CONFLICTS))
    core, stock = _both(helm, cluster, namespace, tmp_path)
    for name in ("by-stock", "reused-by-core", "reused-by-stock"):
        stock("install", name, chart, "--set", "nested.a.b=5")
    core("install", "by-core", chart, "--set", "nested.a.b=5")
    warning = ("coalesce.go:316: warning: cannot overwrite table with non table for p.nested.a.b "
               "(map[c:<nil> d:1e+06])\n")
    for args in (["get", "values", "--all"], ["get", "values", "--all", "-o", "json"], ["get", "all"],
                 ["get", "values"], ["status"]):
        theirs, ours = stock(*args, "by-stock"), core(*args, "by-stock")
        assert (ours.stdout, ours.stderr) == (theirs.stdout, theirs.stderr), args
        assert theirs.stderr == (warning if "all" in args or "--all" in args else ""), args
        assert stock(*args, "by-core").stderr == core(*args, "by-core").stderr == "", args
    theirs = stock("upgrade", "reused-by-stock", chart, "--reuse-values").stderr
    ours = core("upgrade", "reused-by-core", chart, "--reuse-values").stderr
    assert ours == theirs and theirs.startswith(warning) and theirs.count("\n") == 10
    def shown(run: Run, name: str) -> str:  # get all's values, the time and names aside
        text = run("get", "all", name).stdout.split("MANIFEST:")[0].replace(name, "NAME")
        return re.sub(r"(?m)^LAST DEPLOYED: .*\n", "", text)

    assert shown(core, "reused-by-core") == shown(stock, "reused-by-stock")


#: Values whose JSON shows Go's encoder: float64 in ``%f`` form below 1e21 and ``%e`` from it or
#: under 1e-6, integral floats without a point, ``<>&`` as ``\u003c``..., U+2028 escaped, keys sorted.
ODD_VALUES = ("ratio: 0.5\none: 1.0\nbig: 1e21\nhuge: 12345678901234567890\ntiny: 0.0000001\nneg: -2.5e-7\n"
              "html: \"<a & b>\"\nuni: \"é ✓ \\u2028\"\nzeta: {b: 1, a: [1.5, \"<\"]}\n")
ODD_CHART = 'apiVersion: v2\nname: odd\nversion: 0.1.0\nappVersion: "1.0<b>&é"\n'
ODD_HOOK = ('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "{{ .Release.Name }}-hook"\n  annotations:\n'
            '    helm.sh/hook: post-install\n    helm.sh/hook-weight: "3"\ndata:\n  html: "<&>"\n')
#: helm-core's own keys beside helm's (its versions' text, and ``get metadata``'s stored version)
OWN_KEYS = re.compile(r'(?m),"(?:version|versionId)":"[^"]*"(?=})|^(?:  )?version: "\d+"\n|^versionId: \S+\n')


def _top_level(text: str) -> dict[str, str]:
    """A JSON object's members as their raw text, in the order written."""
    decoder, members, at = json.JSONDecoder(), {}, 1
    while text[at] != "}":
        key, at = decoder.raw_decode(text, at)
        _, end = decoder.raw_decode(text, at + 1)
        members[key] = text[at + 1:end]
        at = end + 1 if text[end] == "," else end
    return members


def test_json_and_yaml_outputs_are_helms_bytes(cluster: ClusterInfo, hc: live.LiveClient, namespace: str,
                                               tmp_path: Path, helm: str) -> None:
    """``-o json|yaml`` of ``history``, ``list``, ``get metadata``, ``get values``, ``status``,
    ``install`` and ``upgrade`` (the whole chart: its metadata, templates, values, schema and
    files, bytes as base64) print helm's bytes for releases with odd numbers, ``<>&`` and
    unicode in their values, app version, description and notes: Go's numbers and escapes,
    helm's fields in helm's order (helm-core's own keys after them: its version's text in
    ``history`` and ``list``, ``get metadata``'s ``versionId``), maps sorted."""
    root = tmp_path / "odd"
    kit.chart(root, {"cm.yaml": kit.configmap("{{ .Release.Name }}-cm", data="{{ .Values.html | quote }}"),
                     "hook.yaml": ODD_HOOK, "NOTES.txt": "Thanks <{{ .Release.Name }}> & ü\n"},
              values="", extra={"Chart.yaml": ODD_CHART, "values.yaml": "html: \"<b>\"\nn: 1e3\n",
                                "values.schema.json": '{"type": "object"}\n', "files/é.txt": "<x> & ü\n",
                                "README.md": "# odd\n"})
    (tmp_path / "odd.yaml").write_text(ODD_VALUES)
    core, stock = _both(helm, cluster, namespace, tmp_path)
    installed = {}
    for run, name in ((core, "by-core"), (stock, "by-stock")):
        shown = run("install", name, str(root), "-f", str(tmp_path / "odd.yaml"), "--description", "<ok & done> é",
                    "-o", "json").stdout
        installed[name] = {key: re.sub(r'"\d{4}-\d\d-\d\dT[^"]*"', "TIME", text.replace(name, "NAME"))
                           for key, text in _top_level(shown).items()}
    assert list(installed["by-core"].items()) == list(installed["by-stock"].items())
    assert installed["by-stock"]["version"] == "1" and '{"name":"files/é.txt","data":' in installed["by-stock"]["chart"]
    upgraded = [re.sub(r'"\d{4}-\d\d-\d\dT.*"', "TIME", run("upgrade", name, str(root), "--reuse-values", "-o", "yaml")
                       .stdout.replace(name, "NAME")) for run, name in ((core, "by-core"), (stock, "by-stock"))]
    assert upgraded[0] == upgraded[1] and "\nversion: 2\n" in upgraded[1] and "templates:\n" in upgraded[1]
    for name in ("by-core", "by-stock"):
        for args in (["history", name], ["list"], ["get", "metadata", name], ["get", "values", name],
                     ["get", "values", name, "--all"]):
            for output in ("json", "yaml"):
                theirs = stock(*args, "-o", output).stdout
                assert OWN_KEYS.sub("", core(*args, "-o", output).stdout) == theirs, (args, output)
        theirs_json = stock("status", name, "-o", "json").stdout
        assert '"ratio":0.5' in theirs_json and '"big":1e+21' in theirs_json and "\\u003c" in theirs_json
        assert core("status", name, "-o", "json").stdout == theirs_json and '"version":2,' in theirs_json
        assert core("status", name, "-o", "yaml").stdout == stock("status", name, "-o", "yaml").stdout


def test_debug_prints_the_release_as_helms_printer(cluster: ClusterInfo, hc: live.LiveClient, namespace: str,
                                                  tmp_path: Path, helm: str) -> None:
    """``install``/``upgrade`` with ``--debug`` (and ``--dry-run``) print helm's status printer
    with debug on: ``USER-SUPPLIED VALUES:`` (``{}`` for none: the release the command made holds
    a map), ``COMPUTED VALUES:``, ``HOOKS:`` and ``MANIFEST:`` before the notes (``test`` too); an
    upgrade's dry run is the next revision, said upgraded as helm says it; ``upgrade --install``
    of an uninstalled release says it installs it."""
    chart = str(tmp_path / "demo")
    test_hook = kit.configmap("{{ .Release.Name }}-test").replace("metadata:\n", "metadata:\n  annotations:\n"
                                                                  "    helm.sh/hook: test\n", 1)
    kit.chart(tmp_path / "demo", {"cm.yaml": kit.configmap("{{ .Release.Name }}-cm"), "hook.yaml": ODD_HOOK,
                                  "test.yaml": test_hook, "NOTES.txt": "Hello {{ .Release.Name }}\n"},
              values="greeting: hi\nnested: {a: 1}\n")
    steps = (("install", "{r}", chart, "--dry-run"), ("install", "{r}", chart), ("upgrade", "{r}", chart, "--dry-run"),
             ("upgrade", "{r}", chart, "--set", "nested.b=2"), ("upgrade", "{r}", chart, "--reuse-values"),
             ("test", "{r}"), ("upgrade", "--install", "{r}-new", chart, "--set", "greeting=x"),
             ("uninstall", "{r}-new", "--keep-history"), ("upgrade", "--install", "{r}-new", chart))
    said: dict[str, list[str]] = {}
    for who, run in zip(("core", "stock"), _both(helm, cluster, namespace, tmp_path), strict=True):
        name = f"{who}-rel"
        said[who] = [re.sub(r"(?m)^(LAST DEPLOYED|Last Started|Last Completed): .*$", r"\1: T",
                            run(*(a.format(r=name) for a in step), "--debug").stdout.replace(name, "NAME"))
                     for step in steps]
    assert said["core"] == said["stock"]
    assert said["core"][0].count("USER-SUPPLIED VALUES:\n{}\n\nCOMPUTED VALUES:\ngreeting: hi\n") == 1
    assert 'Release "NAME" has been upgraded. Happy Helming!\n' in said["core"][2]
    assert "REVISION: 2\n" in said["core"][2] and "HOOKS:\n---\n# Source: demo/templates/hook.yaml\n" in said["core"][3]
    assert said["core"][5].startswith("NAME: NAME\n") and "TEST SUITE:     NAME-test\n" in said["core"][5]
    assert said["core"][-1].startswith('Release "NAME-new" does not exist. Installing it now.\n')


DEP_CHART = ('apiVersion: v2\nname: demo\nversion: 0.1.0\ndescription: a <demo>\nkeywords: [a, b]\n'
             'maintainers: [{name: me, email: me@example.com}, {name: you}]\nannotations: {z: "1", a: "2"}\n'
             'kubeVersion: ">=1.20.0-0"\ndependencies:\n'
             '- {name: sub, version: 0.1.0, condition: sub.enabled, import-values: [{child: exported, parent: imported}]}\n'
             '- {name: other, version: 0.1.0, repository: "", condition: other.enabled}\n')


def test_install_and_upgrade_print_the_chart_their_version_was_made_of(
        cluster: ClusterInfo, hc: live.LiveClient, namespace: str, tmp_path: Path, helm: str) -> None:
    """``-o json|yaml`` print the chart as helm's dependency processing left it: the values
    coalesced with the subcharts' and the imported ones, a disabled dependency gone; with
    ``--reuse-values``, the reused values as the chart's; its metadata and lock as Go encodes
    them (the lock's time as Go's RFC 3339 with nanoseconds)."""
    sub = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-sub\ndata: {x: "{{ .Values.x }}"}\n'
    kit.chart(tmp_path / "demo", {"cm.yaml": kit.configmap("{{ .Release.Name }}-cm")},
              values="greeting: hi\nsub: {enabled: true, x: 2}\nother: {enabled: false}\n",
              extra={"Chart.yaml": DEP_CHART, "charts/sub/Chart.yaml": "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
                     "charts/sub/values.yaml": "x: 1\nexported: {k: v}\n", "charts/sub/templates/cm.yaml": sub,
                     "charts/other/Chart.yaml": "apiVersion: v2\nname: other\nversion: 0.1.0\n",
                     "Chart.lock": "dependencies:\n- {name: sub, version: 0.1.0, repository: ''}\ndigest: sha256:0\n"
                                   "generated: \"2024-01-02T03:04:05.120+01:00\"\n"})
    chart = str(tmp_path / "demo")
    said: dict[str, list[str]] = {}
    for who, run in zip(("core", "stock"), _both(helm, cluster, namespace, tmp_path), strict=True):
        steps = (("install", who, chart, "-o", "yaml"), ("upgrade", who, chart, "--set", "sub.x=5", "-o", "json"),
                 ("upgrade", who, chart, "--reuse-values", "--set", "greeting=yo", "-o", "yaml"))
        said[who] = [re.sub(r'"20\d\d-\d\d-\d\dT[^"]*Z"', "TIME", run(*step).stdout.replace(who, "NAME"))
                     for step in steps]
    assert said["core"] == said["stock"]
    assert '"lock":{"generated":"2024-01-02T03:04:05.12+01:00","digest":"sha256:0"' in said["core"][1]
    assert "  values:\n    greeting: hi\n    imported:\n      k: v\n" in said["core"][0]
    assert "name: sub\n" in said["core"][0] and "name: other\n" not in said["core"][0]


def test_an_object_owned_elsewhere_is_refused_before_anything_is_stored_as_helm(
        cluster: ClusterInfo, hc: live.LiveClient, namespace: str, tmp_path: Path, helm: str) -> None:
    """helm checks ownership before it stores a revision: the refused install leaves no release
    (the same install says the same again, not "cannot re-use a name"), the refused upgrade no
    failed revision."""
    chart = str(tmp_path / "owned")
    kit.chart(tmp_path / "owned", {
        "cm.yaml": kit.configmap("{{ .Release.Name }}-cm"),
        "taken.yaml": "{{- if .Values.take }}\n" + kit.configmap("{{ .Release.Name }}-taken") + "{{- end }}\n"},
        values="greeting: hello\ntake: false\n")
    said: dict[str, list[object]] = {}
    for who, run in zip(("core", "stock"), _both(helm, cluster, namespace, tmp_path), strict=True):
        name = f"{who}-owned"
        hc.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"{name}-cm", "namespace": namespace}})
        refusals = [run("install", name, chart, ok=False) for _ in range(2)]
        listed = run("list", "-a", "-q", "--filter", f"^{name}$").stdout
        hc.delete(kclient.ObjectRef("v1", "ConfigMap", f"{name}-cm", namespace))
        run("install", name, chart)
        hc.create({"apiVersion": "v1", "kind": "ConfigMap",
                   "metadata": {"name": f"{name}-taken", "namespace": namespace}})
        upgrade = run("upgrade", name, chart, "--set", "take=true", ok=False)
        said[who] = [[(r.returncode, r.stderr.replace(name, "NAME")) for r in refusals], listed.replace(name, "NAME"),
                     (upgrade.returncode, upgrade.stderr.replace(name, "NAME")), _states(run, name)]
    assert said["core"] == said["stock"]
    assert said["core"][0][1][1].startswith("Error: INSTALLATION FAILED: Unable to continue with install: ConfigMap")
    assert said["core"][3] == [("deployed", "Install complete")]
