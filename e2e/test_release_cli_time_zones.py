"""A release helm made in another time zone (``TZ=Asia/Kolkata``: its record's times carry
+05:30 and nanoseconds) prints in helm-core as in helm, byte for byte, whatever zone each reader
runs in (``TZ`` unset, the record's zone, a third one): ``status``, ``history``, ``list`` (Go's
``Time.String()``, and ``--time-format``), ``get all``, ``get metadata``'s time and the times of
``-o json|yaml``; helm-core writing the record again (``--storage helm``) keeps helm's times.
The zone rules themselves against Go: tests/test_gotime_local.py."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from e2e import release_kit as kit
from e2e.conftest import ClusterInfo
from e2e.test_helm_interop import ROOT, helm  # noqa: F401  (helm: a fixture)
from helm_core.kube import live

pytestmark = pytest.mark.e2e

WRITER_TZ = "Asia/Kolkata"
READER_TZS = (None, WRITER_TZ, "America/New_York")  # None: TZ unset
_TIME_LINE = re.compile(r"^\s*-?\s*(\w+): (.*\d\d:\d\d:\d\d.*)$", re.MULTILINE)


@pytest.fixture
def chart(tmp_path: Path) -> str:
    kit.chart(tmp_path / "demo", {"cm.yaml": kit.configmap("{{ .Release.Name }}-cm"),
                                  "setup.yaml": kit.hook_job("{{ .Release.Name }}-setup", "pre-install,pre-upgrade"),
                                  "NOTES.txt": "hi"})
    return str(tmp_path / "demo")


def _run(command: list[str], cluster: ClusterInfo, namespace: str, tz: str | None) -> str:
    env = {key: value for key, value in os.environ.items() if key != "TZ"}
    if tz is not None:
        env["TZ"] = tz
    result = subprocess.run([*command, "--kubeconfig", str(cluster.kubeconfig), "-n", namespace],
                            capture_output=True, text=True, cwd=ROOT, timeout=300, env=env)
    assert result.returncode == 0, result.stderr
    return result.stdout


def time_lines(text: str) -> list[tuple[str, str]]:
    """The ``key: value`` lines of a YAML text whose value holds a time."""
    return _TIME_LINE.findall(text)


def json_times(text: str, *paths: tuple[str, ...]) -> list[object]:
    """The values at ``paths`` (keys; "*" for every item of a list) of a JSON text."""
    found: list[object] = []

    def walk(node: object, path: tuple[str, ...]) -> None:
        if not path:
            found.append(node)
        elif path[0] == "*":
            for item in node:  # type: ignore[attr-defined]
                walk(item, path[1:])
        else:
            walk(node[path[0]], path[1:])  # type: ignore[index]
    for path in paths:
        walk(json.loads(text), path)
    return found


STATUS_TIMES = (("info", "first_deployed"), ("info", "last_deployed"), ("info", "deleted"),
                ("hooks", "*", "last_run", "started_at"), ("hooks", "*", "last_run", "completed_at"))


def test_a_record_made_in_another_zone_prints_as_helm_prints_it(
        cluster: ClusterInfo, hc: live.LiveClient, namespace: str, helm: str, chart: str) -> None:  # noqa: F811
    def theirs(tz: str | None, *args: str) -> str:
        return _run([helm, *args], cluster, namespace, tz)

    def ours(tz: str | None, *args: str) -> str:
        return _run([sys.executable, "-m", "helm_core", *args], cluster, namespace, tz)

    theirs(WRITER_TZ, "install", "web", chart, "--timeout", "120s", "--set", "greeting=hey")
    theirs(WRITER_TZ, "upgrade", "web", chart, "--timeout", "120s", "--reuse-values")
    written = json.loads(theirs(None, "status", "web", "-o", "json"))["info"]["last_deployed"]
    assert written.endswith("+05:30") and "." in written  # what this test is about

    for tz in READER_TZS:
        for args in (("status", "web"), ("history", "web"), ("list",), ("get", "all", "web"),
                     ("list", "--time-format", "2006-01-02 15:04:05.000 Z0700 MST Mon")):
            assert ours(tz, *args) == theirs(tz, *args), (tz, args)
        assert [line for line in ours(tz, "get", "metadata", "web").splitlines() if line.startswith("DEPLOYED_AT")] \
            == [line for line in theirs(tz, "get", "metadata", "web").splitlines() if line.startswith("DEPLOYED_AT")]
        assert json_times(ours(tz, "status", "web", "-o", "json"), *STATUS_TIMES) == json_times(
            theirs(tz, "status", "web", "-o", "json"), *STATUS_TIMES)
        assert time_lines(ours(tz, "status", "web", "-o", "yaml")) == time_lines(
            theirs(tz, "status", "web", "-o", "yaml"))
        assert json_times(ours(tz, "history", "web", "-o", "json"), ("*", "updated")) == json_times(
            theirs(tz, "history", "web", "-o", "json"), ("*", "updated"))
        assert json_times(ours(tz, "list", "-o", "json"), ("*", "updated")) == json_times(
            theirs(tz, "list", "-o", "json"), ("*", "updated"))
        assert json.loads(ours(tz, "get", "metadata", "web", "-o", "json"))["deployedAt"] == json.loads(
            theirs(tz, "get", "metadata", "web", "-o", "json"))["deployedAt"]

    # helm-core writes helm's record again (the superseded revision, the first deployment's
    # time carried over): helm's times stay as helm wrote them
    before = theirs(WRITER_TZ, "history", "web").splitlines()
    ours(None, "upgrade", "web", chart, "--timeout", "120s", "--reuse-values", "--storage", "helm")
    after = theirs(WRITER_TZ, "history", "web").splitlines()
    assert [line.split("\t")[1] for line in after[1:3]] == [line.split("\t")[1] for line in before[1:3]]
    assert json.loads(theirs(None, "status", "web", "-o", "json"))["info"]["first_deployed"] == json.loads(
        theirs(None, "status", "web", "--revision", "1", "-o", "json"))["info"]["first_deployed"]
    for tz in READER_TZS:
        assert ours(tz, "history", "web", "--storage", "helm") == theirs(tz, "history", "web")
        assert ours(tz, "list", "--storage", "helm") == theirs(tz, "list")
