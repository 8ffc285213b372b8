"""The history helm 3.22 leaves around uninstalled and failed versions, helm-core beside stock
helm against the real API server (releases kept in helm's format): ``install --replace`` and
``upgrade --install`` over an uninstalled release, over a failed one, an upgrade of a release
that never deployed, ``uninstall --keep-history`` after a failed upgrade, a rollback to an
uninstalled or replaced version, and what ``history``, ``list --uninstalled``/``--superseded``
print after each. Each tool works in a namespace of its own, its releases named alike, so
their tables line up to the byte (the times aside)."""
from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from kubernetes import client as k8s

from e2e import release_kit as kit
from e2e.conftest import ClusterInfo, scratch_namespace
from e2e.test_release_cli_helm_flags import _core, _helm, helm
from helm_core.kube import live

pytestmark = pytest.mark.e2e

__all__ = ["helm"]  # the fixture used by the tests below

Run = Callable[..., subprocess.CompletedProcess[str]]
#: A ConfigMap saying which ``.Release.Revision`` the templates saw, and kit's failing hooks.
SEEN = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-seen\n"
        "data:\n  revision: \"{{ .Release.Revision }}\"\n")
#: helm's times: ``history``'s (time.ANSIC, one width) and ``list``'s (Go's String(), whose
#: nanoseconds lose their trailing zeros: the column's padding, its header's too, goes with it).
TIMES = re.compile(r"[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}|"
                   r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)? [+-]\d{4} \w+ *|UPDATED *")


@pytest.fixture
def elsewhere(api: k8s.ApiClient, request: pytest.FixtureRequest) -> Iterator[str]:
    """A second namespace (stock helm's), named as long as ``namespace`` (same prefix)."""
    with scratch_namespace(api, request) as name:
        yield name


def _tools(helm: str, cluster: ClusterInfo, tmp_path: Path, namespace: str,
           elsewhere: str) -> dict[str, tuple[Run, str]]:
    """Each tool as ``run(*args, ok=True)`` in its namespace, and that namespace."""
    return {"core": (lambda *args, ok=True: _core(tmp_path, cluster, namespace, *args, ok=ok), namespace),
            "stock": (lambda *args, ok=True: _helm(helm, tmp_path, cluster, elsewhere, *args, ok=ok), elsewhere)}


def _shown(done: subprocess.CompletedProcess[str], namespace: str) -> tuple[int, str, str]:
    """Exit code, stdout and stderr, times and the namespace aside."""
    return (done.returncode, *(TIMES.sub("TIME", text).replace(namespace, "NS") for text in (done.stdout, done.stderr)))


def _versions(run: Run, name: str) -> list[tuple[int, str, str]]:
    """Each stored revision's number, status and description."""
    return [(h["revision"], h["status"], h["description"])
            for h in json.loads(run("history", name, "-o", "json").stdout)]


def _chart(tmp_path: Path) -> str:
    kit.chart(tmp_path / "demo", {"seen.yaml": SEEN, "hooks.yaml": kit.FAILING_HOOKS},
              values="greeting: hello\nfail: \"\"\nhang: \"\"\n")
    return str(tmp_path / "demo")


def test_installs_over_uninstalled_and_failed_versions_leave_helms_history(
        cluster: ClusterInfo, hc: live.LiveClient, namespace: str, elsewhere: str, tmp_path: Path,
        helm: str) -> None:
    """An uninstalled version an install replaces (``--replace``, or ``upgrade --install``) is
    marked "superseded by new release", a failed one stays failed; the new version's number
    follows, while its templates saw ``.Release.Revision`` 1; a rollback may go back to the
    replaced version; ``history`` cuts a failure's several lines as helm's table does."""
    chart = _chart(tmp_path)
    said: dict[str, list[object]] = {}
    for who, (run, ns) in _tools(helm, cluster, tmp_path, namespace, elsewhere).items():
        said[who] = out = []
        run("install", "again", chart)
        run("uninstall", "again", "--keep-history")
        out.append(_shown(run("list", "--uninstalled"), ns))
        out.append(_shown(run("upgrade", "--install", "again", chart), ns))
        out.append(_versions(run, "again"))
        out.append(kit.get(hc, "ConfigMap", "again-seen", ns)["data"])
        run("install", "replaced", chart)
        run("uninstall", "replaced", "--keep-history")
        out.append(_shown(run("install", "replaced", chart, "--replace"), ns))
        out.append(_shown(run("rollback", "replaced", "1"), ns))  # to the version it replaced
        # first deployed: the newest version's when the rollback began (the install's), as helm's
        times = [json.loads(run("status", "replaced", "--revision", n, "-o", "json").stdout)["info"]["first_deployed"]
                 for n in ("1", "2", "3")]
        out.append(times[2] == times[1] != times[0])
        out.append(_shown(run("history", "replaced"), ns))
        run("install", "failing", chart, "--set", "fail=pre-install", "--timeout", "30s", ok=False)
        out.append(_shown(run("install", "failing", chart, "--replace"), ns))
        out.append(_shown(run("history", "failing"), ns))
        run("uninstall", "failing", "--keep-history")
        out.append(_shown(run("list", "--uninstalled"), ns))
        out.append(_shown(run("list", "--superseded"), ns))
    assert said["core"] == said["stock"]
    core = said["core"]
    assert core[0][1].splitlines()[1].split() == ["again", "NS", "1", "TIME", "uninstalled", "demo-0.1.0"]
    assert core[1][1].startswith('Release "again" does not exist. Installing it now.\nNAME: again\n')
    assert core[2] == [(1, "superseded", "superseded by new release"), (2, "deployed", "Install complete")]
    assert core[3] == {"revision": "1"}
    assert core[6] is True
    assert [line.split("\t")[2:] for line in core[7][1].splitlines()[1:]] == [
        ["superseded", "demo-0.1.0", "           ", "superseded by new release"],
        ["superseded", "demo-0.1.0", "           ", "Install complete         "],
        ["deployed  ", "demo-0.1.0", "           ", "Rollback to 1            "]]
    failing = core[9][1].splitlines()
    assert failing[1].endswith('\tRelease "failing" failed: failed pre-install: 1 error occurr...')
    assert failing[2].split("\t")[2].rstrip() == "deployed" and len(failing) == 3
    assert [line.split()[:3] for line in core[11][1].splitlines()[1:]] == [
        ["again", "NS", "1"], ["replaced", "NS", "1"], ["replaced", "NS", "2"]]


def test_an_upgrade_over_a_failed_version_and_an_uninstall_after_a_failed_upgrade_as_helm(
        cluster: ClusterInfo, hc: live.LiveClient, namespace: str, elsewhere: str, tmp_path: Path,
        helm: str) -> None:
    """helm's upgrade supersedes the version it upgraded whatever its status (a release whose
    install failed: the failed version); ``uninstall --keep-history`` of a failed upgrade marks
    the version still deployed before it superseded; a release with a replaced version and a
    failed one is upgraded by ``upgrade --install``, as helm (its newest is not uninstalled);
    ``--atomic`` rolls back to the newest superseded or deployed version, or says it found none."""
    chart = _chart(tmp_path)
    said: dict[str, list[object]] = {}
    for who, (run, ns) in _tools(helm, cluster, tmp_path, namespace, elsewhere).items():
        said[who] = out = []
        failing = ("--set", "fail=pre-install", "--timeout", "30s")
        run("install", "never", chart, *failing, ok=False)
        out.append(_shown(run("upgrade", "--install", "never", chart, "--set", "fail="), ns))
        out.append(_versions(run, "never"))
        run("install", "kept", chart)
        run("upgrade", "kept", chart, "--set", "fail=pre-upgrade", "--timeout", "30s", ok=False)
        out.append(_shown(run("uninstall", "kept", "--keep-history"), ns))
        out.append(_versions(run, "kept"))
        out.append(_shown(run("upgrade", "--install", "kept", chart, *failing, ok=False), ns))
        out.append(_shown(run("upgrade", "--install", "kept", chart, "--set", "fail="), ns))
        out.append(_versions(run, "kept"))
        out.append(_shown(run("history", "kept", "--max", "2"), ns))
        # --atomic rolls back to helm's "last successful release": none when every version
        # failed ("stuck"); the version an install replaced, over the failed install ("back")
        run("install", "stuck", chart, *failing, ok=False)
        run("install", "back", chart)
        run("uninstall", "back", "--keep-history")
        run("install", "back", chart, "--replace", *failing, ok=False)
        for name in ("stuck", "back"):
            out.append(_shown(run("upgrade", name, chart, "--atomic", "--set", "fail=pre-upgrade",
                                  "--timeout", "30s", ok=False), ns))
            out.append(_shown(run("history", name), ns))
    assert said["core"] == said["stock"]
    core = said["core"]
    assert core[0][1].startswith('Release "never" has been upgraded. Happy Helming!\n')
    assert [(n, status) for n, status, _ in core[1]] == [(1, "superseded"), (2, "deployed")]
    assert core[1][0][2].startswith('Release "never" failed: failed pre-install: ')
    assert [(n, status, words[:20]) for n, status, words in core[3]] == [
        (1, "superseded", "Install complete"), (2, "uninstalled", "Uninstallation compl")]
    assert [(n, status, words[:25]) for n, status, words in core[6]] == [
        (1, "superseded", "Install complete"), (2, "superseded", "superseded by new release"),
        (3, "superseded", 'Release "kept" failed: fa'), (4, "deployed", "Upgrade complete")]
    assert core[8][2].startswith("Error: UPGRADE FAILED: unable to find a previously successful release when "
                                 "attempting to rollback. original upgrade error: pre-upgrade hooks failed: ")
    assert core[10][2].startswith("Error: UPGRADE FAILED: release back failed, and has been rolled back due to "
                                  "atomic being set: pre-upgrade hooks failed: ")
    assert core[11][1].splitlines()[-1].split("\t")[-1].rstrip() == "Rollback to 1"
