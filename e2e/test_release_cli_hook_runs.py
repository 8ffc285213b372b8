"""A hook that runs is stored ``Running`` from its start, as helm's ``execHook`` records it,
next to stock helm on the real API server: while the pre- hook of an install, upgrade,
rollback or uninstall waits (a suspended Job, let go by the test), ``helm status`` and
``helm-core status`` print the same of helm's record, of helm-core's record in helm's format
and of helm-core's own storage (hooks in ``-o json`` with each one's ``last_run``).
Fake-cluster tests of the write order: tests/action/test_hook_run_records.py."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

from e2e import release_kit as kit
from e2e.conftest import ClusterInfo
from e2e.test_helm_interop import ROOT, helm, run_core, run_helm  # noqa: F401  (helm: a fixture)
from e2e.test_release_cli_test_suite import hooks_json, normalised
from helm_core.errors import ConflictError, NotFoundError
from helm_core.kube import client as kclient
from helm_core.kube import live

pytestmark = pytest.mark.e2e

WAIT_S = 120.0


def gate(name: str, event: str) -> str:
    """A hook Job created suspended: it runs (and kwok completes it) once :func:`let_go`."""
    return kit.hook_job(name, event).replace("spec:\n", "spec:\n  suspend: true\n", 1)


@pytest.fixture
def chart(tmp_path: Path) -> str:
    """``setup`` (pre-install, done at once), then a gate for each operation."""
    kit.chart(tmp_path / "demo", {
        "cm.yaml": kit.configmap("{{ .Release.Name }}-cm"),
        "setup.yaml": kit.hook_job("{{ .Release.Name }}-setup", "pre-install", weight=-1),
        **{f"gate-{event}.yaml": gate(f"{{{{ .Release.Name }}}}-gate-{event}", f"pre-{event}")
           for event in ("install", "upgrade", "rollback", "delete")},
        "NOTES.txt": "hi"})
    return str(tmp_path / "demo")


def let_go(client: live.LiveClient, namespace: str, name: str) -> None:
    """Unsuspend a gate Job once it exists (its Job controller writes it too: retried)."""
    ref = kclient.ObjectRef("batch/v1", "Job", name, namespace)
    deadline = time.monotonic() + WAIT_S
    while True:
        try:
            job = client.get(ref)
            job["spec"]["suspend"] = False
            client.replace(job)
            return
        except (ConflictError, NotFoundError):
            pass
        assert time.monotonic() < deadline, f"{name} never let go"
        time.sleep(0.2)


def polled(read: Callable[[], str], done: Callable[[str], bool]) -> str:
    """``read()`` again until ``done`` holds for what it returned (a read that fails, the
    release not stored yet, is read again)."""
    deadline = time.monotonic() + WAIT_S
    while True:
        try:
            found = read()
        except AssertionError as exc:
            found = str(exc)
        if done(found):
            return found
        assert time.monotonic() < deadline, f"never reached; last read:\n{found}"
        time.sleep(0.3)


@contextmanager
def running(command: Sequence[str], cluster: ClusterInfo, namespace: str) -> Iterator[None]:
    """``command`` (helm's or helm-core's) running in the background; it must succeed."""
    process = subprocess.Popen([*command, "--kubeconfig", str(cluster.kubeconfig), "-n", namespace],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                               env=os.environ.copy())
    try:
        yield
        _, err = process.communicate(timeout=WAIT_S)
        assert process.returncode == 0, err
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


def phases(status_json: str) -> dict[str, str]:
    found = json.loads(status_json) if status_json.startswith("{") else {}
    return {hook["name"]: hook["last_run"]["phase"] for hook in found.get("hooks") or []}


def deleted(status_json: str) -> bool:
    """Whether the release shown has a deletion time (helm's uninstalling one has, from its start)."""
    return bool(json.loads(status_json)["info"]["deleted"])


def gate_running(name: str) -> Callable[[str], bool]:
    return lambda status_json: phases(status_json).get(name) == "Running"


CORE = (sys.executable, "-m", "helm_core")
#: (the command after the binary, the gate it waits at, the status meanwhile)
STEPS = ((("install", "web", "{chart}"), "web-gate-install", "pending-install"),
         (("upgrade", "web", "{chart}"), "web-gate-upgrade", "pending-upgrade"),
         (("rollback", "web"), "web-gate-rollback", "pending-rollback"),
         (("uninstall", "web"), "web-gate-delete", "uninstalling"))


def test_a_waiting_hook_shows_running_in_status_as_helm_shows_it(
        cluster: ClusterInfo, hc: live.LiveClient, namespace: str, helm: str, chart: str) -> None:  # noqa: F811
    def helm_status(*args: str) -> str:
        return run_helm(helm, cluster, namespace, "status", "web", *args)

    def core_status(*args: str) -> str:
        return run_core(cluster, namespace, "status", "web", *args)

    @contextmanager
    def step(tool: Sequence[str], args: Sequence[str], gate_name: str, *extra: str) -> Iterator[None]:
        """The operation running until the body is done, then let through its gate."""
        command = [*tool, *(arg.format(chart=chart) for arg in args), "--timeout", "120s", *extra]
        with running(command, cluster, namespace):
            yield
            let_go(hc, namespace, gate_name)

    # helm's own record while each operation waits at its gate: the reference
    reference: list[tuple[str, str]] = []
    for args, gate_name, status in STEPS:
        with step((helm,), args, gate_name):
            theirs_json = polled(lambda: helm_status("-o", "json"), gate_running(gate_name))
            theirs = helm_status()
            assert f"STATUS: {status}\n" in theirs
            assert core_status() == theirs
            assert hooks_json(core_status("-o", "json")) == hooks_json(theirs_json)
            reference.append((theirs, theirs_json))
    assert [deleted(theirs_json) for _, theirs_json in reference] == [False, False, False, True]
    assert phases(reference[0][1]) == {"web-setup": "Succeeded", "web-gate-install": "Running",
                                       "web-gate-upgrade": "", "web-gate-rollback": "", "web-gate-delete": ""}
    # a rollback copies the target's runs (the install's), then runs its own
    assert phases(reference[2][1]) == {"web-setup": "Succeeded", "web-gate-install": "Succeeded",
                                       "web-gate-upgrade": "", "web-gate-rollback": "Running", "web-gate-delete": ""}

    # helm-core keeping the release in helm's format: helm reads the same from our record
    for (args, gate_name, _), (theirs, theirs_json) in zip(STEPS, reference, strict=True):
        with step(CORE, args, gate_name, "--storage", "helm"):
            ours_json = polled(lambda: helm_status("-o", "json"), gate_running(gate_name))
            assert hooks_json(ours_json) == hooks_json(theirs_json)
            assert deleted(ours_json) == deleted(theirs_json)
            assert normalised(helm_status()) == normalised(theirs)
            assert core_status("--storage", "helm") == helm_status()

    # and in helm-core's own storage (REVISION is a ULID there)
    def without_revision(text: str) -> str:
        return "\n".join(line for line in normalised(text).splitlines() if not line.startswith("REVISION: "))

    for (args, gate_name, _), (theirs, theirs_json) in zip(STEPS, reference, strict=True):
        with step(CORE, args, gate_name):
            own_json = polled(lambda: core_status("-o", "json"), gate_running(gate_name))
            assert hooks_json(own_json) == hooks_json(theirs_json)
            assert deleted(own_json) == deleted(theirs_json)
            assert without_revision(core_status()) == without_revision(theirs)
