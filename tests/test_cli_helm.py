"""helm-core beside stock helm: the same command line through ``$HELM_BIN`` and ``helm-core``,
in the same environment (helm's config and cache folders, a kubeconfig), compared on stdout,
stderr and exit code. ``helm`` in helm's text stands for ``helm-core`` in ours.

Repositories are real: a chart repository served over HTTP from a temporary folder, and the
distribution registry for ``oci://``. Without helm the comparisons skip, visibly.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from helm_core import cli
from helm_core.cli import lint as lint_mod
from helm_core.sources import index as index_mod, package as package_mod
from tests import chartkit
from tests.engine import helmbin
from tests.sources import servers

KUBECONFIG = """apiVersion: v1
kind: Config
current-context: one
contexts:
- name: one
  context: {cluster: c, user: u, namespace: team-one}
- name: two
  context: {cluster: c, user: u, namespace: team-two}
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:1"}
users:
- name: u
  user: {token: x}
"""
NS_CHART = {"Chart.yaml": "apiVersion: v2\nname: ns\nversion: 0.1.0\n",
            "templates/a.yaml": "ns: {{ .Release.Namespace }}\nname: {{ .Release.Name }}\n"}


class Both:
    """Runs a command line through helm (a process) and helm-core (in this process)."""

    def __init__(self, tmp: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
        self.tmp = tmp
        self.capsys = capsys
        self.monkeypatch = monkeypatch
        self.helm_cwd = tmp
        self.core_side = ""
        self.env = {"HOME": str(tmp / "home"), "HELM_CONFIG_HOME": str(tmp / "config"),
                    "HELM_CACHE_HOME": str(tmp / "cache"), "HELM_DATA_HOME": str(tmp / "data"),
                    "KUBECONFIG": str(tmp / "kubeconfig"), "HELM_CORE_CACHE": str(tmp / "core-cache")}
        (tmp / "kubeconfig").write_text(KUBECONFIG)
        for key in ("HELM_NAMESPACE", "HELM_KUBECONTEXT", "HELM_DEBUG", "HELM_REPOSITORY_CONFIG",
                    "HELM_REPOSITORY_CACHE", "HELM_REGISTRY_CONFIG", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
            monkeypatch.delenv(key, raising=False)
        for key, value in self.env.items():
            monkeypatch.setenv(key, value)
        monkeypatch.chdir(tmp)

    def helm(self, *argv: str, stdin: str = "") -> tuple[int, str, str]:
        helm = helmbin.require_helm()
        env = {k: v for k, v in os.environ.items() if not k.startswith("HELM_") or k in self.env}
        proc = subprocess.run([helm, *argv], capture_output=True, text=True, env={**env, **self.env},
                              input=stdin, timeout=helmbin.HELM_TIMEOUT, check=False, cwd=self.helm_cwd)
        return proc.returncode, proc.stdout, proc.stderr

    def core(self, *argv: str, stdin: str = "", monkeypatch: pytest.MonkeyPatch | None = None) -> tuple[int, str, str]:
        import io
        import logging
        import sys
        self.capsys.readouterr()
        old = sys.stdin
        sys.stdin = io.StringIO(stdin)
        # Helm's log warnings (helmlog) on stderr as the console script prints them (pytest's
        # logging handlers would take them from logging's last resort here).
        said = logging.StreamHandler(sys.stderr)
        logger = logging.getLogger("helm_core")
        logger.addHandler(said)
        logger.propagate = False
        try:
            code = cli.main(list(argv))
        finally:
            sys.stdin = old
            logger.removeHandler(said)
            logger.propagate = True
        out, err = self.capsys.readouterr()
        if self.core_side:  # our side's folders are named as helm's in the comparison
            out, err = (t.replace(self.core_side, str(self.helm_cwd)) for t in (out, err))
        return code, out.replace("helm-core", "helm"), err.replace("helm-core", "helm")

    def separate(self) -> None:
        """Give helm and helm-core their own config, cache and working folders, for commands
        that change state (each must find the state it left itself)."""
        for side in ("helm", "core"):
            (self.tmp / side).mkdir()
        self.helm_cwd = self.tmp / "helm"
        self.core_side = str(self.tmp / "core")
        for key, name in (("HELM_CONFIG_HOME", "config"), ("HELM_CACHE_HOME", "cache"),
                          ("HELM_DATA_HOME", "data"), ("HELM_CORE_CACHE", "core-cache")):
            self.env[key] = str(self.tmp / "helm" / name)
            self.monkeypatch.setenv(key, str(self.tmp / "core" / name))
        self.monkeypatch.chdir(self.tmp / "core")

    def same(self, *argv: str, stdin: str = "") -> tuple[int, str, str]:
        code, out, err = self.helm(*argv, stdin=stdin)
        got = self.core(*argv, stdin=stdin)
        assert got == (code, out, err), f"helm {' '.join(argv)}"
        return got


@pytest.fixture
def both(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Both:
    helmbin.require_helm()
    return Both(tmp_path, capsys, monkeypatch)


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[servers.RepoServer]:
    """A chart repository: demo 0.1.0, 0.2.0, 1.0.0-rc.1 and other 2.0.0 (with keywords)."""
    root = tmp_path / "served"
    root.mkdir()
    charts = [("demo", "0.1.0", {"description": "the demo chart", "appVersion": "1.0"}),
              ("demo", "0.2.0", {"description": "the demo chart", "appVersion": "1.1"}),
              ("demo", "1.0.0-rc.1", {"description": "the demo chart", "appVersion": "2.0"}),
              ("other", "2.0.0", {"description": "another one, for searching"})]
    for name, version, extra in charts:
        text = chartkit.chart_yaml(name, version, **extra)
        if name == "other":
            text += "keywords:\n- web\n- demo-like\n"
        files = [("Chart.yaml", text.encode()), ("values.yaml", b"who: world\n"),
                 ("templates/cm.yaml", b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n"
                                       b"data:\n  chart: {{ .Chart.Name }}-{{ .Chart.Version }}\n  who: {{ .Values.who }}\n")]
        (root / f"{name}-{version}.tgz").write_bytes(package_mod.archive_bytes(name, files))
    index_mod.write_index(root)
    server = servers.RepoServer(root=root).start()
    yield server
    server.stop()


# --------------------------------------------------------------------------- the command line

@pytest.mark.parametrize("argv", [
    ["foo"], ["install"], ["template"], ["upgrade", "x"], ["status"], ["history"], ["get", "values"],
    ["get", "manifest", "a", "b"], ["rollback"], ["uninstall"], ["repo", "add", "x"], ["create"],
    ["search", "repo", "a", "b"], ["version", "extra"], ["list", "extra"],
    ["template", "x", "./c", "--bogus"], ["template", "a", "b", "c"],
    ["template", "./nope"], ["template", "nope"], ["template", "nope/chart"],
    ["template", "/abs/nope"], ["show", "chart", "./nope"],
    ["repo", "list"], ["repo", "remove", "x"], ["repo", "update"], ["search", "repo", "x"],
    ["dependency", "list", "./nope"],
    ["install", "x", "./c", "-l", "foo"], ["upgrade", "x", "./c", "--labels", "a=1,b,c=2"],
    ["install", "x", "./c", "-l", "a=1", "--labels", "b"],
], ids=lambda a: " ".join(a) or "empty")
def test_refusals_are_helms(both, argv):
    code, _, err = both.same(*argv)
    assert code == 1 and err.startswith("Error: ")


def _ns_chart(both: Both) -> Path:
    return chartkit.write_chart(both.tmp / "ns", NS_CHART)


@pytest.mark.parametrize("argv", [
    ["template", "ns"],                                     # the kubeconfig context's namespace
    ["template", "ns", "--kube-context", "two"],
    ["--kube-context=two", "template", "ns"],               # a global flag before the command
    ["-n", "x", "template", "ns"],
    ["template", "ns", "-nfoo"],
    ["template", "--namespace=bar", "ns"],
    ["template", "ns", "--generate-name"],
    ["template", "ns", "--name-template", 'x-{{ "abc" | lower }}'],
    ["template", "ns", "--name-template", 'X_{{ "abc" }}'],
    ["template", "R_BAD", "ns"],
    ["template", "x", "ns", "--generate-name"],
    ["template", "x", "ns", "--kube-version", "abc"],
    ["template", "x", "ns", "--kube-version", "1.29"],
])
def test_names_namespaces_and_flags_as_helm(both, argv):
    _ns_chart(both)
    both.same(*argv)


def test_helm_namespace_variable_beats_the_kubeconfig(both, monkeypatch):
    _ns_chart(both)
    both.env["HELM_NAMESPACE"] = "from-env"
    monkeypatch.setenv("HELM_NAMESPACE", "from-env")
    _, out, _ = both.same("template", "ns")
    assert "ns: from-env" in out


def test_install_refuses_bad_names_before_reaching_a_cluster(both):
    _ns_chart(both)
    # (helm asks the cluster first: its answer here would be "cluster unreachable")
    code, _, err = both.core("install", "R_BAD", "ns")
    assert code == 1 and err.startswith('Error: INSTALLATION FAILED: release name "R_BAD": invalid release name')
    assert both.same("install", "ns")[2] == "Error: INSTALLATION FAILED: must either provide a name or specify --generate-name\n"
    both.same("install", "x", "ns", "--generate-name")


@pytest.mark.parametrize("argv", [
    ["install", "x", "./nope"], ["install", "x", "ns"], ["upgrade", "x", "./nope"], ["upgrade", "x", "ns"],
    ["upgrade", "x", "ns", "--install"], ["install", "x", "ns", "--set", "a[b]=1"], ["upgrade", "x", "ns", "--set", "a[b]=1"],
], ids=" ".join)
def test_install_and_upgrade_fail_in_helms_words(both, argv):
    """INSTALLATION FAILED wraps whatever an install ran into, UPGRADE FAILED only what the upgrade
    itself did (not the chart's or values' errors before it, nor an --install of a new release);
    an API server that refuses connections (this kubeconfig's) is 'Kubernetes cluster unreachable'."""
    _ns_chart(both)
    code, _, err = both.same(*argv)
    assert code == 1 and err.startswith("Error: ")


# --------------------------------------------------------------------------- repositories

def test_repo_add_list_search_remove_as_helm(both, repo):
    both.separate()
    url = repo.url
    both.same("repo", "add", "charts", url)
    both.same("repo", "add", "charts", url)                      # same configuration: skipped
    both.same("repo", "add", "charts", url + "/other")           # a different one: refused
    both.same("repo", "add", "a/b", url)
    both.same("repo", "add", "broken", url + "/missing")
    # servers that do not answer: Go's words for the dial (a closed port, a name nobody knows)
    both.same("repo", "add", "closed", "http://127.0.0.1:1/charts")
    both.same("repo", "add", "unknown", "https://charts.example.invalid")
    both.same("repo", "list")
    both.same("repo", "list", "-o", "json")
    both.same("repo", "list", "-o", "yaml")
    for query in ([], ["demo"], ["DEMO"], ["web"], ["searching"], ["-l"], ["demo", "--versions"],
                  ["--version", "^0.1"], ["--devel"], ["-r", "de.o"], ["-o", "json"], ["-o", "yaml"],
                  ["nothing-matches"], ["nothing-matches", "--fail-on-no-result"], ["--version", "abc"],
                  ["--max-col-width", "5"], ["charts/other"]):
        both.same("search", "repo", *query)
    both.same("repo", "update")
    both.same("repo", "update", "charts")
    both.same("repo", "update", "nope")
    both.same("repo", "remove", "nope")
    both.same("repo", "remove", "charts")
    assert not (both.tmp / "core" / "cache" / "repository" / "charts-index.yaml").exists()
    both.same("repo", "list")


def test_a_repository_added_by_one_is_seen_by_the_other(both, repo):
    code, out, _ = both.core("repo", "add", "mine", repo.url)
    assert (code, out) == (0, '"mine" has been added to your repositories\n')
    code, out, _ = both.helm("search", "repo", "mine/demo")
    assert code == 0 and "mine/demo\t0.2.0" in out
    code, _, _ = both.helm("repo", "add", "theirs", repo.url)
    assert code == 0
    code, out, _ = both.core("repo", "list")
    assert code == 0 and out.splitlines()[1:] == [f"mine  \t{repo.url}", f"theirs\t{repo.url}"]
    config = yaml.safe_load((both.tmp / "config" / "repositories.yaml").read_text())
    assert [r["name"] for r in config["repositories"]] == ["mine", "theirs"]
    assert oct((both.tmp / "config" / "repositories.yaml").stat().st_mode & 0o777) == "0o600"


@pytest.mark.parametrize("argv", [
    ["template", "r", "charts/demo"],
    ["template", "r", "charts/demo", "--version", "0.1.0"],
    ["template", "r", "charts/demo", "--version", "~0.1"],
    ["template", "r", "charts/demo", "--devel"],
    ["template", "r", "charts/demo", "--version", "9.9.9"],
    ["template", "r", "charts/nope"],
    ["template", "r", "nope/demo"],
    ["show", "chart", "charts/demo"],
    ["show", "values", "charts/other"],
    ["show", "all", "charts/demo", "--version", "0.1.0"],
])
def test_repo_slash_chart_resolves_as_helm(both, repo, argv):
    assert both.helm("repo", "add", "charts", repo.url)[0] == 0
    both.same(*argv)


def test_pull_repo_slash_chart_as_helm(both, repo):
    assert both.helm("repo", "add", "charts", repo.url)[0] == 0
    for side in ("helm", "core"):
        (both.tmp / side).mkdir()
    expected = both.helm("pull", "charts/demo", "--version", "~0.1", "-d", str(both.tmp / "helm"))
    got = both.core("pull", "charts/demo", "--version", "~0.1", "-d", str(both.tmp / "core"))
    assert got == expected
    theirs = (both.tmp / "helm" / "demo-0.1.0.tgz").read_bytes()
    assert (both.tmp / "core" / "demo-0.1.0.tgz").read_bytes() == theirs


def test_pull_to_a_missing_destination_fails_as_helm(both, repo):
    """helm writes the archive into ``-d`` as it is: a folder that does not exist is an error
    (only ``--untar`` makes the folders it expands into), and nothing is created."""
    assert both.helm("repo", "add", "charts", repo.url)[0] == 0
    results = []
    for side, run in (("helm", both.helm), ("core", both.core)):
        dest = both.tmp / side / "missing"
        code, out, err = run("pull", "charts/demo", "-d", str(dest))
        # Go's os.CreateTemp: the archive's name and a random number
        results.append((code, out, re.sub(r"\.tgz\d+: ", ".tgzN: ", err.replace(str(dest), "DEST"))))
        assert not dest.exists()
    assert results[1] == results[0]
    assert results[0][0] != 0


def test_pull_untar_as_helm(both, repo):
    """``--untar``/``--untardir``: the chart expanded under the destination, no archive left, and
    refused when the folder named after the reference exists; file for file as helm's."""
    assert both.helm("repo", "add", "charts", repo.url)[0] == 0
    for case, flags in enumerate((["--untar"], ["--untar", "--untardir", "sub/dir"], ["--untar", "--untardir", "."])):
        trees = []
        for side, run in (("helm", both.helm), ("core", both.core)):
            dest = both.tmp / f"{side}-{case}"
            dest.mkdir()
            first = run("pull", "charts/demo", "-d", str(dest), *flags)
            again = run("pull", "charts/demo", "-d", str(dest), *flags)
            trees.append((first[:2], again[0], again[2].replace(str(dest), "DEST"),
                          sorted((str(p.relative_to(dest)), p.read_bytes() if p.is_file() else b"", p.stat().st_mode)
                                 for p in dest.rglob("*"))))
        assert trees[0] == trees[1], flags


def test_repo_slash_chart_needs_the_cached_index(both, repo):
    assert both.helm("repo", "add", "charts", repo.url)[0] == 0
    (both.tmp / "cache" / "repository" / "charts-index.yaml").unlink()
    code, _, err = both.core("template", "r", "charts/demo")
    expected = both.helm("template", "r", "charts/demo")
    assert (code, err) == (expected[0], expected[2])


@pytest.mark.parametrize("extra", [[], ["--version", "0.1.0"], ["--version", ">0.1.0 <1"], ["--devel"]])
def test_repo_url_flag_as_helm(both, repo, extra):
    both.same("template", "r", "demo", "--repo", repo.url, *extra)
    both.same("show", "chart", "demo", "--repo", repo.url, *extra)


# --------------------------------------------------------------------------- OCI

@pytest.fixture
def registry(tmp_path: Path) -> Iterator[servers.Registry]:
    binary = servers.find_registry_binary()
    if binary is None:
        pytest.skip("SKIPPED: no distribution `registry` binary ($REGISTRY_BIN)")
    reg = servers.Registry(binary=binary, folder=tmp_path / "registry", username="me", password="secret").start()
    yield reg
    reg.stop()


def test_oci_with_helms_registry_login(both, registry):
    host = registry.host
    # a wrong password is refused by both, and nothing is stored
    code, _, _ = both.core("registry", "login", host, "-u", "me", "-p", "wrong", "--plain-http")
    assert code == 1 and not (both.tmp / "config" / "registry" / "config.json").exists()
    code, _, err = both.core("registry", "login", host, "-u", "me", "--password-stdin", "--plain-http",
                             stdin="secret\n")
    assert (code, err) == (0, "Login Succeeded\n")
    stored = json.loads((both.tmp / "config" / "registry" / "config.json").read_text())
    assert list(stored["auths"]) == [host]
    # helm uses our login to push; helm-core uses helm's registry config to pull
    chart = chartkit.write_chart(both.tmp / "pushed", {
        "Chart.yaml": chartkit.chart_yaml("pushed", "1.2.3"),
        "templates/cm.yaml": "kind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n"})
    assert both.helm("package", str(chart), "-d", str(both.tmp))[0] == 0
    code, _, err = both.helm("push", str(both.tmp / "pushed-1.2.3.tgz"), f"oci://{host}/charts", "--plain-http")
    assert code == 0, err
    for argv in (["template", "r", f"oci://{host}/charts/pushed", "--version", "1.2.3"],
                 ["template", "r", f"oci://{host}/charts/pushed", "--version", "^1"],
                 ["show", "chart", f"oci://{host}/charts/pushed:1.2.3"]):
        expected = both.helm(*argv, "--plain-http")
        got = both.core(*argv, "--plain-http")
        assert got[0] == expected[0] == 0 and got[1] == expected[1]
    (both.tmp / "pulled").mkdir()  # helm's pull writes into a folder that exists
    code, out, err = both.core("pull", f"oci://{host}/charts/pushed", "--version", "1.2.3", "--plain-http",
                               "-d", str(both.tmp / "pulled"))
    assert code == 0, err
    assert out.startswith(f"Pulled: {host}/charts/pushed:1.2.3\nDigest: sha256:")
    assert (both.tmp / "pulled" / "pushed-1.2.3.tgz").read_bytes() == (both.tmp / "pushed-1.2.3.tgz").read_bytes()
    code, _, err = both.core("registry", "logout", host)
    assert (code, err) == (0, f"Removing login credentials for {host}\n")
    code, _, err = both.core("template", "r", f"oci://{host}/charts/pushed", "--version", "1.2.3", "--plain-http")
    assert code == 1 and "refused" in err


# --------------------------------------------------------------------------- create, version, completion

OUTPUT_CHART = {
    "Chart.yaml": "apiVersion: v2\nname: out\nversion: 0.1.0\n",
    "crds/crd.yaml": "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: x\n",
    "templates/one.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n",
    "templates/two.yaml": ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n"
                           "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n"),
    # hooks and a resource in one file: helm appends the hooks to the file the resource began
    "templates/hooks.yaml": ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: h\n  annotations:\n"
                             "    helm.sh/hook: pre-install\n---\napiVersion: v1\nkind: ConfigMap\n"
                             "metadata:\n  name: plain\n"),
    "templates/tests/t.yaml": ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: t\n  annotations:\n"
                               "    helm.sh/hook: test\n"),
}


def _tree(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("flags", [
    [], ["--release-name"], ["--include-crds", "--release-name"], ["--skip-tests", "--include-crds"],
    ["--no-hooks"], ["--show-only", "templates/one.yaml"],
], ids=lambda f: " ".join(f) or "plain")
def test_output_dir_as_helm(both, flags):
    """The files, the ``wrote`` lines and the exit, twice into the same folder (a hook is
    appended to the file an earlier run left, as helm does): the second time from the memo
    (its render is not called), but for --show-only's error (never kept)."""
    from helm_core import cli

    chartkit.write_chart(both.tmp / "out-chart", OUTPUT_CHART)
    both.separate()
    for run in range(2):
        if run and "--show-only" not in flags:
            both.monkeypatch.setattr(cli, "_render_template", lambda *a, **k: pytest.fail("rendered again"))
        both.same("template", "x", "../out-chart", "--output-dir", "o/", *flags)
        assert _tree(both.tmp / "core" / "o") == _tree(both.tmp / "helm" / "o")
    assert _tree(both.tmp / "helm" / "o")


CONTROL_CHARS_CHART = {
    "Chart.yaml": "apiVersion: v2\nname: ctl\nversion: 0.1.0\n",
    # Go's separator pattern and TrimSpace leave U+001C-U+001F where Python's \s and strip() take them
    "templates/a.yaml": 'a: 1\n---{{ printf "%c" 28 }}\n',
}


def test_control_characters_as_helm(both):
    """A rendered file or a values file with control characters: split, trimmed and refused
    as helm does (yaml.v2's reader message, no line)."""
    chartkit.write_chart(both.tmp / "ctl", CONTROL_CHARS_CHART)
    code, _, err = both.same("template", "x", "ctl")
    assert (code, err.splitlines()[0]) == (
        1, "Error: YAML parse error on ctl/templates/a.yaml: error converting YAML to JSON: "
           "yaml: control characters are not allowed")
    (both.tmp / "v.yaml").write_text('a: "x\x01"\n')
    chartkit.write_chart(both.tmp / "plain", {"Chart.yaml": "apiVersion: v2\nname: plain\nversion: 0.1.0\n"})
    code, _, err = both.same("template", "x", "plain", "-f", "v.yaml")
    assert code == 1 and "control characters are not allowed" in err


def test_a_helmignore_rule_that_fails_on_a_name_is_no_match_as_helm(both):
    """Helm checks a rule on "abc" only: "x*[" fails on xy.yaml, which Helm logs and keeps."""
    chartkit.write_chart(both.tmp / "ign", {"Chart.yaml": "apiVersion: v2\nname: ign\nversion: 0.1.0\n",
                                            ".helmignore": "x*[\n*.bak\n", "templates/old.bak": "kind: Old\n",
                                            "templates/xy.yaml": "kind: ConfigMap\n"})
    code, out, err = both.helm("template", "x", "ign")
    # Our side as a process: its warning goes to stderr as the console script's logging sends it.
    ours = subprocess.run([sys.executable, "-m", "helm_core", "template", "x", "ign"], capture_output=True, text=True,
                          timeout=60, check=False, cwd=both.tmp)
    assert (ours.returncode, ours.stdout, ours.stderr) == (code, out, err)
    assert code == 0 and "kind: ConfigMap" in out and "kind: Old" not in out
    assert ours.stderr == 'rules.go:202: Failed to compile "x*[": syntax error in pattern\n'


def test_created_chart_lints_and_renders_the_same(both):
    both.separate()
    code, out, _ = both.same("create", "made")      # the same message (our scaffold is our own)
    assert (code, out) == (0, "Creating made\n")
    code, out, err = both.helm("lint", str(both.tmp / "core" / "made"))
    assert code == 0, out + err
    for argv in (["template", "r", "made"], ["show", "chart", "made"]):
        expected = both.helm(*(a.replace("made", str(both.tmp / "core" / "made")) for a in argv))
        assert both.core(*argv) == expected


def test_create_from_a_starter(both):
    starter = chartkit.write_chart(both.tmp / "data" / "starters" / "mine", {
        "Chart.yaml": "apiVersion: v2\nname: <CHARTNAME>\nversion: 0.1.0\n",
        "templates/cm.yaml": "kind: ConfigMap\nmetadata:\n  name: <CHARTNAME>-{{ .Release.Name }}\n"})
    assert starter.is_dir()
    both.core("create", "fromstarter", "--starter", "mine")
    both.helm("create", "helmstarter", "--starter", "mine")
    ours = (both.tmp / "fromstarter" / "templates" / "cm.yaml").read_text()
    theirs = (both.tmp / "helmstarter" / "templates" / "cm.yaml").read_text()
    assert ours == theirs.replace("helmstarter", "fromstarter")
    both.same("template", "r", "fromstarter")


def test_version(both):
    code, out, _ = both.core("version", "--short")
    assert code == 0 and re.fullmatch(r"v\d+\.\d+\.\d+\S*\n", out)
    code, out, _ = both.core("version", "--template", "{{ .HelmVersion }}")
    assert (code, out) == (0, "v3.22.0")
    code, out, _ = both.core("version")
    assert out.startswith('version.BuildInfo{Version:"v')


def cli_script() -> str:
    from helm_core.cli import completion
    return completion.script("bash", cli.build_parser())


def test_bash_completion_completes_commands_and_flags(both):
    code, script, _ = both.core("completion", "bash")
    assert code == 0
    path = both.tmp / "completion.bash"
    code, script, _ = both.core("completion", "bash")  # unrewritten: the script names helm-core
    path.write_text(cli_script())

    def complete(*words: str) -> list[str]:
        line = " ".join(["helm-core", *words])
        program = (f"source {path}\nCOMP_WORDS=({line})\nCOMP_CWORD={len(words)}\n"
                   "_helm_core\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n")
        proc = subprocess.run(["bash", "-c", program], capture_output=True, text=True, timeout=30, check=True)
        return proc.stdout.split()

    assert {"template", "install", "repo", "search"} <= set(complete(""))
    assert complete("tem") == ["template"]
    assert set(complete("repo", "")) >= {"add", "list", "remove", "update", "index"}
    assert "--generate-name" in complete("install", "--gen")
    assert complete("get", "met") == ["metadata"]
    assert "--kube-context" in complete("list", "--kube-c")


# --------------------------------------------------------------------------- dependencies

def test_template_dependency_update_as_helm(both, repo):
    """``--dependency-update`` runs ``dependency update`` first when a declared dependency is
    missing from charts/ (its lines before the manifests), and not when all are there."""
    assert both.helm("repo", "add", "charts", repo.url)[0] == 0
    deps = f"dependencies:\n- name: demo\n  version: ~0.1.0\n  repository: {repo.url}\n"
    for who in ("helm", "core"):
        chartkit.write_chart(both.tmp / who / "app", {"Chart.yaml": chartkit.chart_yaml("app", "1.0.0") + deps,
                                                      "templates/cm.yaml": _CM})
    for _ in range(2):  # missing, then present
        expected = both.helm("template", str(both.tmp / "helm" / "app"), "--dependency-update")
        got = both.core("template", str(both.tmp / "core" / "app"), "--dependency-update")
        assert got == expected
        assert sorted(p.name for p in (both.tmp / "core" / "app" / "charts").iterdir()) == ["demo-0.1.0.tgz"]


def test_dependency_list_and_update_as_helm(both, repo):
    assert both.helm("repo", "add", "charts", repo.url)[0] == 0
    deps = ("dependencies:\n"
            f"- name: demo\n  version: ~0.1.0\n  repository: {repo.url}\n"
            "- name: other\n  version: 2.0.0\n  repository: '@charts'\n"
            "- name: local\n  version: 0.1.0\n  repository: file://../local\n")
    chartkit.write_chart(both.tmp / "local", {"Chart.yaml": chartkit.chart_yaml("local", "0.1.0")})
    for who in ("helm", "core"):
        chartkit.write_chart(both.tmp / who / "app", {"Chart.yaml": chartkit.chart_yaml("app", "1.0.0") + deps})
        (both.tmp / who / "local").symlink_to(both.tmp / "local")
    expected = both.helm("dependency", "list", str(both.tmp / "helm" / "app"))
    got = both.core("dependency", "list", str(both.tmp / "core" / "app"))
    assert got == (expected[0], expected[1].replace("/helm/", "/core/"), expected[2])
    assert both.helm("dependency", "update", str(both.tmp / "helm" / "app"))[0] == 0
    code, _, err = both.core("dependency", "update", str(both.tmp / "core" / "app"))
    assert code == 0, err
    assert sorted(p.name for p in (both.tmp / "core" / "app" / "charts").iterdir()) == \
        sorted(p.name for p in (both.tmp / "helm" / "app" / "charts").iterdir())
    ours = yaml.safe_load((both.tmp / "core" / "app" / "Chart.lock").read_text())
    theirs = yaml.safe_load((both.tmp / "helm" / "app" / "Chart.lock").read_text())
    assert ours["dependencies"] == theirs["dependencies"] and ours["digest"] == theirs["digest"]
    expected = both.helm("dependency", "list", str(both.tmp / "helm" / "app"))
    got = both.core("dependency", "list", str(both.tmp / "core" / "app"))
    assert got == (expected[0], expected[1].replace("/helm/", "/core/"), expected[2])
    both.same("template", "r", str(both.tmp / "core" / "app"))


# --------------------------------------------------------------------------- show on real charts

def _shared_charts() -> list[Path]:
    from tests.chartkit import SHARED_CHARTS  # ../shared/charts beside the repository, or the env's

    root = SHARED_CHARTS
    return sorted(p for p in root.iterdir() if (p / "Chart.yaml").is_file()) if root.is_dir() else []


@pytest.mark.parametrize("what", ["all", "chart", "values", "readme", "crds"])
def test_show_on_real_charts_as_helm(both, what):
    charts = _shared_charts()
    if not charts:
        pytest.skip("no shared charts (../shared/charts or $HELM_CONTROLLER_SHARED_CHARTS)")
    for chart in charts:
        both.same("show", what, str(chart))


# --------------------------------------------------------------------------- lint

_CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n"
_V2 = "apiVersion: v2\nname: c\nversion: 0.1.0\nicon: https://example.com/i.png\n"


def _objects(*types: str) -> str:
    """One object per ``apiVersion kind`` (named after its position), as one YAML stream."""
    return "---\n".join(f"apiVersion: {t.split()[0]}\nkind: {t.split()[1]}\nmetadata:\n  name: o{i}\n"
                         for i, t in enumerate(types))


LINT_CASES = {
    "clean": {"Chart.yaml": _V2, "values.yaml": "a: 1\n", "templates/cm.yaml": _CM},
    "no-icon-no-values": {"Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n", "templates/cm.yaml": _CM},
    "version-number": {"Chart.yaml": "apiVersion: v2\nname: c\nversion: 1.0\nappVersion: 2\nicon: https://x.io/i\n",
                       "templates/cm.yaml": _CM},
    "bad-semver": {"Chart.yaml": "apiVersion: v2\nname: c\nversion: one\n", "templates/cm.yaml": _CM},
    "no-name": {"Chart.yaml": "apiVersion: v2\nversion: 0.1.0\n", "templates/cm.yaml": _CM},
    "bad-api": {"Chart.yaml": "apiVersion: v9\nname: c\nversion: 0.1.0\n", "templates/cm.yaml": _CM},
    "v1-type": {"Chart.yaml": "apiVersion: v1\nname: c\nversion: 0.1.0\ntype: application\n", "templates/cm.yaml": _CM},
    "maintainers": {"Chart.yaml": _V2 + "maintainers:\n- email: a@b.io\n", "templates/cm.yaml": _CM},
    "maintainer-email": {"Chart.yaml": _V2 + "maintainers:\n- name: a\n  email: nope\n", "templates/cm.yaml": _CM},
    "sources-icon": {"Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\nicon: nope\nsources: [x]\n",
                     "templates/cm.yaml": _CM},
    "extension-hooks-time": {"Chart.yaml": _V2, "templates/cm.yaml": _CM, "templates/notes.md": "x",
                             "templates/crd.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  annotations:\n"
                                                   "    helm.sh/hook: crd-install\n",
                             "templates/t.yaml": "# {{ .Release.Time }}\n"},
    "indent-and-names": {"Chart.yaml": _V2, "templates/a.yaml": "  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n",
                         "templates/b.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: Bad_Svc\n---\n"
                                             "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x.y\n---\n"
                                             "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: a/b\n"},
    "render-error": {"Chart.yaml": _V2, "templates/x.yaml": "{{ fail \"boom\" }}"},
    "missing-dependency": {"Chart.yaml": _V2 + "dependencies:\n- name: sub\n  version: 1.0.0\n", "templates/cm.yaml": _CM},
    "no-chart-yaml": {"templates/cm.yaml": _CM},
    # Rendered files are decoded document by document into helm's K8sYamlStruct: the objects
    # before a document that fails are linted, field names match case-insensitively (the last
    # in sorted order wins), numbers and booleans become text, empty documents are skipped.
    "documents-one-by-one": {"Chart.yaml": _V2, "templates/a.yaml": (
        "---\n# only a comment\n--- # a comment\n\n---\nKind: CronJob\nApiVersion: batch/v1beta1\nmetadata:\n"
        "  NAME: 123456789\n---\nKIND: CronJob\napiVersion: batch/v1beta1\nkind: Ingress\nmetadata: {name: 1e3}\n"
        "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: 1e3\n---\n{}\n"),
        "templates/b.yaml": "apiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: b\n---\na: [\n"},
    "document-not-an-object": {"Chart.yaml": _V2, "templates/a.yaml": _objects("batch/v1beta1 CronJob") + "---\n- 1\n"},
    "document-separator-with-text": {"Chart.yaml": _V2,
                                     "templates/a.yaml": _objects("batch/v1beta1 CronJob") + "--- x\nb: 1\n"},
    # Workloads need a selector (the words anywhere in the file will do); Lists' items may not
    # carry helm's resource policy (read from the file's first document, whichever is the List).
    "selectors": {"Chart.yaml": _V2, "templates/a.yaml": _objects("apps/v1 Deployment", "apps/v1 ReplicaSet"),
                  "templates/b.yaml": _objects("apps/v1 StatefulSet") + "# matchLabels\n",
                  "templates/c.yaml": 'apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: "d\\u00e9\\"x"\n'},
    "list-annotations": {"Chart.yaml": _V2, "templates/a.yaml": (
        "apiVersion: v1\nkind: List\nitems:\n- null\n- metadata:\n    Annotations:\n      helm.sh/resource-policy: 5\n"),
        "templates/b.yaml": "a: 1\n---\napiVersion: v1\nkind: List\nitems:\n- metadata:\n    annotations:\n"
                            "      helm.sh/resource-policy: keep\n"},
    "list-items-mistyped": {"Chart.yaml": _V2, "templates/a.yaml": "apiVersion: v1\nkind: List\nitems:\n- metadata: 1\n"
                            "---\n" + _objects("apps/v1 Deployment")},
    # helm's values rule reads values.yaml and values.schema.json itself (an empty schema file is
    # no schema there, but an unreadable one at render: Go's io.EOF)
    "values-unparsable": {"Chart.yaml": _V2, "values.yaml": "a: [\n", "templates/cm.yaml": _CM},
    "schema-empty": {"Chart.yaml": _V2, "values.yaml": "a: 1\n", "values.schema.json": "",
                     "templates/cm.yaml": _CM},
    "schema-blank": {"Chart.yaml": _V2, "values.yaml": "a: 1\n", "values.schema.json": " \n\t",
                     "templates/cm.yaml": _CM},
    "schema-truncated": {"Chart.yaml": _V2, "values.yaml": "a: 1\n", "values.schema.json": '{"type":',
                         "templates/cm.yaml": _CM},
    "document-field-type": {"Chart.yaml": _V2, "templates/a.yaml": _objects("batch/v1beta1 CronJob") +
                            "---\nkind: Service\nmetadata:\n  name: a\n  namespace: [x]\n"},
}


@pytest.mark.parametrize("case", sorted(LINT_CASES))
def test_lint_as_helm(both, case):
    chart = chartkit.write_chart(both.tmp / "c", LINT_CASES[case])
    both.same("lint", str(chart))
    both.same("lint", str(chart), "--quiet")
    both.same("lint", str(chart), "--strict")


#: Deprecated, removed and current API types (and unknown or malformed ones, never deprecated),
#: each judged at helm's default Kubernetes release and at ``--kube-version``s around their
#: deprecation releases.
DEPRECATED_APIS = {
    "Chart.yaml": _V2, "values.yaml": "a: 1\n",
    "templates/workloads.yaml": _objects(
        "extensions/v1beta1 Ingress", "extensions/v1beta1 IngressList", "networking.k8s.io/v1 Ingress",
        "batch/v1beta1 CronJob", "batch/v1 CronJob", "policy/v1beta1 PodSecurityPolicy",
        "policy/v1beta1 PodDisruptionBudget", "autoscaling/v2beta2 HorizontalPodAutoscaler",
        "autoscaling/v2 HorizontalPodAutoscaler", "v1 Endpoints", "v1 ComponentStatus", "v1 ConfigMap"),
    "templates/cluster.yaml": _objects(
        "flowcontrol.apiserver.k8s.io/v1beta1 FlowSchema", "flowcontrol.apiserver.k8s.io/v1beta2 FlowSchema",
        "flowcontrol.apiserver.k8s.io/v1beta3 PriorityLevelConfiguration",
        "admissionregistration.k8s.io/v1beta1 MutatingAdmissionPolicy",
        "certificates.k8s.io/v1beta1 ClusterTrustBundle", "example.com/v1beta1 Widget",
        "extensions/v1beta1 ingress", "/extensions/v1beta1 Ingress", "extensions/v1beta1/x Ingress"),
    "templates/named.yaml": "apiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: Bad_Name\n",
}


@pytest.mark.parametrize("kube_version", [None, "1.13", "1.14", "v1.21.0", "1.25", "1.29.3", "1.33",
                                          "1.36", "0.0.0", "2.0", "v1.19.0-rc.1", "1.18+"])
def test_lint_deprecated_apis_as_helm(both, kube_version):
    chart = chartkit.write_chart(both.tmp / "c", DEPRECATED_APIS)
    given = ("--kube-version", kube_version) if kube_version else ()
    both.same("lint", str(chart), *given)
    both.same("lint", str(chart), "--strict", *given)


@pytest.mark.parametrize("kube_version", [None, "1.16"])
def test_lint_on_real_charts_as_helm(both, kube_version):
    charts = _shared_charts()
    if not charts:
        pytest.skip("no shared charts (../shared/charts or $HELM_CONTROLLER_SHARED_CHARTS)")
    given = ("--kube-version", kube_version) if kube_version else ()
    for chart in charts:
        both.same("lint", str(chart), *given)


def test_lint_with_subcharts_as_helm(both):
    """``--with-subcharts`` lints every chart folder and archive under each given chart's charts/
    (nested ones too, in Go's walk order, symbolic links not followed), with the same values;
    ``--skip-schema-validation`` skips the render's schema check, not the values rule's."""
    sub = {"Chart.yaml": _V2.replace("name: c", "name: sub"), "templates/cm.yaml": _CM}
    parent = chartkit.write_chart(both.tmp / "parent", {
        "Chart.yaml": _V2, "values.yaml": "a: 1\n", "templates/cm.yaml": _CM,
        **{f"charts/b-sub/{k}": v for k, v in sub.items()},
        **{f"charts/b-sub/charts/deep/{k}": v for k, v in LINT_CASES["render-error"].items()},
        **{f"charts/a-values/{k}": v for k, v in LINT_CASES["values-unparsable"].items()}})
    packaged = chartkit.write_chart(both.tmp / "packaged", {**sub, "Chart.yaml": _V2.replace("name: c", "name: pkg")})
    assert both.helm("package", str(packaged), "-d", str(parent / "charts"))[0] == 0
    both.helm_cwd = both.tmp
    both.monkeypatch.chdir(both.tmp)
    for flags in ((), ("--quiet",), ("--set", "a=x"), ("--skip-schema-validation",)):
        both.same("lint", "parent", "--with-subcharts", *flags)
        both.same("lint", str(parent), "./parent/", "--with-subcharts", *flags)
    # Go's filepath.Walk does not follow a symbolic link (the chart loader does: not compared)
    (parent / "charts" / "b-sub" / "charts" / "link").symlink_to(parent / "charts" / "a-values")
    assert lint_mod.subchart_paths("parent") == [
        "parent/charts/a-values", "parent/charts/b-sub", "parent/charts/b-sub/charts/deep",
        "parent/charts/pkg-0.1.0.tgz"]


def test_template_skip_schema_validation_as_helm(both):
    """``--skip-schema-validation`` renders values every schema refuses (the chart's and a
    subchart's), and an unreadable schema file is not read at all."""
    chart = chartkit.write_chart(both.tmp / "c", {
        **LINT_CASES["schema-truncated"], "values.yaml": "a: 1\nsub:\n  b: 2\n",
        "charts/sub/Chart.yaml": _V2.replace("name: c", "name: sub"), "charts/sub/templates/cm.yaml": _CM,
        "charts/sub/values.schema.json": '{"properties": {"b": {"type": "string"}}}'})
    both.same("template", str(chart), "--skip-schema-validation")
    both.same("template", str(chart), "--skip-schema-validation", "--set", "sub=1")


@pytest.mark.parametrize("templates", [
    {}, {"templates/x.yaml": "{{/* renders nothing */}}"},
    {"templates/h.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: h\n  annotations:\n"
                         "    helm.sh/hook: pre-install\n"}], ids=["no-templates", "empty", "hook-only"])
def test_template_without_manifests_prints_as_helm(both, templates):
    """helm prints the release manifest with Println: with none, an empty line before any hook."""
    chart = chartkit.write_chart(both.tmp / "c", {"Chart.yaml": _V2, **templates})
    both.same("template", str(chart))
    both.same("template", str(chart), "--no-hooks")


@pytest.mark.parametrize("zone", ["Asia/Kolkata", ":Europe/Berlin", ""])
def test_template_dates_are_in_tzs_zone_as_helm(both, local_tz, zone):
    """Go's ``time.Local`` is ``$TZ``'s zone: ``date`` prints a time there and ``toDate`` reads
    one there (helm-core read /etc/localtime only)."""
    local_tz(zone)
    chart = chartkit.write_chart(both.tmp / "c", {"Chart.yaml": _V2, "templates/cm.yaml": (
        'epoch: {{ date "2006-01-02 15:04:05 -0700 MST" 0 }}\n'
        'read: {{ toDate "2006-01-02 15:04" "2026-11-27 10:00" | date "2006-01-02 15:04 -0700 MST" }}\n'
        'summer: {{ toDate "2006-01-02 15:04" "2026-07-27 10:00" | date "Z07:00 MST" }}\n')})
    both.same("template", str(chart))


def test_non_boolean_condition_warns_as_helm(both):
    """A dependency condition that is not a boolean: helm's warning on stderr (through logging,
    so the console script runs in a child process here), the subchart left enabled."""
    chart = chartkit.write_chart(both.tmp / "p", {
        "Chart.yaml": _V2.replace("name: c", "name: p") + "dependencies:\n- name: sub\n  version: 0.1.0\n"
                      "  condition: sub.enabled,sub.missing\n",
        "values.yaml": 'sub:\n  enabled: "yes"\n', "charts/sub/Chart.yaml": _V2.replace("name: c", "name: sub"),
        "charts/sub/templates/cm.yaml": _CM})
    code, out, err = both.helm("template", str(chart))
    core = subprocess.run([sys.executable, "-m", "helm_core", "template", str(chart)], capture_output=True,
                          text=True, timeout=120, cwd=both.tmp, env={**os.environ, **both.env,
                                                                     "PYTHONPATH": str(Path(cli.__file__).parents[2])})
    assert (core.returncode, core.stdout, core.stderr) == (code, out, err)
    assert "dependencies.go:64: Warning: Condition path 'sub.enabled' for chart sub returned non-bool value" in core.stderr


def test_lint_many_and_archives_as_helm(both):
    good = chartkit.write_chart(both.tmp / "good", LINT_CASES["clean"])
    bad = chartkit.write_chart(both.tmp / "bad", {**LINT_CASES["render-error"],
                                                  "Chart.yaml": _V2.replace("name: c", "name: bad")})
    both.same("lint", str(good), str(bad))
    assert both.helm("package", str(good), "-d", str(both.tmp))[0] == 0
    both.same("lint", str(both.tmp / "c-0.1.0.tgz"))


# --------------------------------------------------------------------------- documents' heads

#: Documents whose head (releaseutil.SimpleHead: apiVersion, kind, metadata.name and
#: annotations) is not plain text under its own names: helm decodes it into its struct (keys
#: case-insensitively, numbers and booleans as text) to sort it and find hooks, or refuses it.
HEAD_DOCUMENTS = [
    "Kind: Service\nmetadata: {name: a}",
    "KIND: Namespace\nMetaData: {Name: b}",
    "kind: Service\nKind: Namespace",
    "kind: 5\nmetadata: {name: 1.5}",
    "kind: true\nmetadata: {name: 10000000000}",
    "kind: Pod\nmetadata: {name: p, annotations: {helm.sh/hook: pre-install, helm.sh/hook-weight: 5, x: null}}",
    "kind: Pod\nmetadata: {name: p, Annotations: {helm.sh/hook: test}}",
    "kind: Job\nmetadata: {annotations: {helm.sh/hook: post-install, n: 1e3}}",
    "- a",
    "just text",
    "metadata: 3",
    "metadata: {name: [1]}",
    "apiVersion: [x]",
    "kind: {a: 1}",
    "metadata: {annotations: [a]}",
    "metadata: {annotations: {a: {b: 1}}}",
    "metadata: null\nkind: null",
    "x: .nan",
]


@pytest.mark.parametrize("document", HEAD_DOCUMENTS, ids=lambda v: repr(v)[:40])
def test_documents_are_sorted_and_refused_by_their_head_as_helm(both, document):
    files = {"Chart.yaml": "apiVersion: v2\nname: heads\nversion: 0.1.0\n",
             "templates/a.yaml": f"kind: ConfigMap\nmetadata: {{name: c}}\n---\n{document}\n---\nkind: Deployment\n",
             "templates/b.yaml": "kind: Namespace\nmetadata: {name: n}\n---\nkind: Zebra\n---\nkind: Apple\n"}
    chartkit.write_chart(both.tmp / "heads", files)
    code, out, err = both.helm("template", "x", "heads")
    assert both.core("template", "x", "heads") == (code, out, err)


#: Charts failing once rendering has begun (helm's partial release): helm template adds its hint,
#: and with --debug prints what was rendered first. One non-blank file each: helm prints several
#: in its map's random order.
RENDER_FAILURES = {
    "yaml": {"templates/a.yaml": "a: b\n c: {{ .Values.x }}\n", "templates/_h.tpl": "{{ define \"h\" }}{{ end }}\n"},
    "fail": {"templates/a.yaml": '{{ fail "boom" }}\n'},
    "missing": {"templates/a.yaml": "{{ include \"nope\" . }}\n"},
    "kube-version": {"templates/a.yaml": "a: b\n", "Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n"
                                                               "kubeVersion: '>= 9.0'\n"},
    "schema": {"templates/a.yaml": "a: b\n", "values.schema.json": '{"properties": {"x": {"type": "string"}}}'},
}


@pytest.mark.parametrize("case", sorted(RENDER_FAILURES))
def test_render_failures_as_helm(both, case):
    files = {"Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n", "values.yaml": "x: 1\n",
             **RENDER_FAILURES[case]}
    chart = str(chartkit.write_chart(both.tmp / "c", files))
    code, out, err = both.same("template", chart)
    assert code == 1 and err.startswith("Error: ")
    assert err.endswith("\n\nUse --debug flag to render out invalid YAML\n") == (case != "schema")
    # --debug: helm's own debug lines go to stderr; what was rendered goes to stdout first
    helm_code, helm_out, _ = both.helm("template", chart, "--debug")
    code, out, _ = both.core("template", chart, "--debug")
    assert (code, out) == (helm_code, helm_out)
    assert ("c: 1" in out) == (case == "yaml")


@pytest.mark.parametrize("raw", [b"\xc3(", b"\xff", b"\xe2\x82", b"\xc0\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80",
                                 b"ok\xe2\x28\xa1", b"\xe2"], ids=lambda b: b.hex())
def test_invalid_utf8_in_a_rendered_file_is_named_as_helm(both, raw):
    """yaml.v2's reader words the first bad sequence (leading, trailing, incomplete, overlong,
    surrogate or out of range); the bytes reach the output through .Files.Get."""
    files = {"Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n", "files/raw": b"a: x" + raw,
             "templates/a.yaml": '{{ .Files.Get "files/raw" }}'}
    chart = str(chartkit.write_chart(both.tmp / "c", files))
    code, _, err = both.same("template", chart)
    assert code == 1 and ("UTF-8" in err or "Unicode" in err)


def _env_lines(out: str) -> dict[str, str]:
    return dict(re.fullmatch(r'(\w+)="(.*)"', line).groups() for line in out.splitlines())


def test_env_prints_what_helm_prints_for_the_variables_both_read(both, tmp_path):
    both.env.update(HELM_NAMESPACE="team", HELM_MAX_HISTORY="3", HELM_CONFIG_HOME=str(tmp_path / "cfg"),
                    KUBECONFIG=str(tmp_path / "kc"))
    for key, value in both.env.items():
        both.monkeypatch.setenv(key, value)
    argv = ("env", "--kube-context", "ctx", "--debug", "--repository-cache", str(tmp_path / "rc"),
            "--kubeconfig", str(tmp_path / "flag"))
    code, out, _ = both.core(*argv)
    helm_code, helm_out, _ = both.helm(*argv)
    ours, theirs = _env_lines(out), _env_lines(helm_out)
    assert code == helm_code == 0
    assert set(ours) - set(theirs) == {"HELM_CORE_CACHE", "HELM_CORE_STORAGE"}  # ours, and only what we read
    shared = sorted(set(ours) & set(theirs) - {"HELM_BIN"})
    assert len(shared) == 11
    assert {k: ours[k] for k in shared} == {k: theirs[k] for k in shared}
    assert ours["HELM_MAX_HISTORY"] == "3" and ours["KUBECONFIG"] == str(tmp_path / "flag")
    assert "KUBECONFIG" not in _env_lines(both.core("env")[1])  # the variable alone is not shown
    assert both.same("env", "HELM_NAMESPACE")[1] == "team\n"
    assert both.same("env", "NO_SUCH_VARIABLE")[1] == "\n"
