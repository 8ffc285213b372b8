"""Release safety on the real API server: concurrent operations, a SIGKILLed install, RBAC."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from e2e import release_kit as kit
from e2e.conftest import ClusterInfo
from helm_core.action import config, get, history, install, upgrade
from helm_core.errors import ForbiddenError, LockedError
from helm_core.kube import live
from helm_core.storage import driver as drv
from helm_core.storage import release as rel
from helm_core.storage import secrets

pytestmark = pytest.mark.e2e

LOCK_S = 3
"""Lease duration for the crash test: a dead holder blocks the release this long at most."""
CRASH_WAIT_S = 60.0
RBAC_PROPAGATION_S = 10.0
ROOT = Path(__file__).resolve().parents[1]


def test_two_concurrent_upgrades_one_wins_the_other_gets_the_lock_error(
        hc: live.LiveClient, namespace: str, tmp_path: Path) -> None:
    cfg = kit.configuration(hc)
    chart = kit.chart(tmp_path, {"a.yaml": kit.configmap("a"), "b.yaml": kit.configmap("b"),
                                 "c.yaml": kit.configmap("c")})
    install.run(cfg, chart, {}, install.InstallOptions(name="web", namespace=namespace))
    barrier = threading.Barrier(2)
    outcomes: dict[str, object] = {}

    def attempt(greeting: str) -> None:
        barrier.wait()
        try:
            outcomes[greeting] = upgrade.run(kit.configuration(hc), chart, {"greeting": greeting},
                                             upgrade.UpgradeOptions(name="web", namespace=namespace))
        except LockedError as exc:
            outcomes[greeting] = exc

    threads = [threading.Thread(target=attempt, args=(g,)) for g in ("one", "two")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    errors = [o for o in outcomes.values() if isinstance(o, LockedError)]
    won = [o for o in outcomes.values() if isinstance(o, rel.ReleaseVersion)]
    assert len(errors) == 1 and len(won) == 1, outcomes
    assert str(errors[0]).startswith(
        f'another operation (upgrade) is in progress on release "web" in namespace "{namespace}"')
    assert [v.status for v in history.run(cfg, "web", namespace)] == [rel.Status.SUPERSEDED,
                                                                      rel.Status.DEPLOYED]


CRASHING_INSTALL = """
import sys
from e2e import release_kit as kit
from helm_core.action import install
client = kit.connect(sys.argv[1])
cfg = kit.configuration(client, lock_s={lock_s})
chart = kit.chart(__import__("pathlib").Path(sys.argv[3]), {{
    "a.yaml": kit.configmap("a"),
    "hook.yaml": kit.hook_job("forever", "pre-install", fail=False).replace(
        "      restartPolicy", "      nodeSelector:\\n        no-such-node: \\"true\\"\\n      restartPolicy")}})
install.run(cfg, chart, {{}}, install.InstallOptions(name="web", namespace=sys.argv[2], timeout_s=600))
"""


def test_a_sigkilled_install_is_recovered_by_the_next_operation(
        hc: live.LiveClient, namespace: str, tmp_path: Path, cluster: ClusterInfo) -> None:
    cfg = kit.configuration(hc, lock_s=LOCK_S)
    process = subprocess.Popen(
        [sys.executable, "-c", CRASHING_INSTALL.format(lock_s=LOCK_S), str(cluster.kubeconfig),
         namespace, str(tmp_path / "crash")], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        deadline = time.monotonic() + CRASH_WAIT_S
        while not kit.exists(hc, "Job", "forever", namespace, "batch/v1"):
            assert process.poll() is None, "the install ended before it could be killed"
            assert time.monotonic() < deadline, "the install never reached its hook"
            time.sleep(0.2)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    [pending] = cfg.driver.history(namespace, "web")
    assert pending.status is rel.Status.PENDING_INSTALL
    chart = kit.chart(tmp_path / "next", {"a.yaml": kit.configmap("a")})
    with pytest.raises(LockedError, match=r"^another operation \(install\) is in progress"):
        upgrade.run(cfg, chart, {}, upgrade.UpgradeOptions(name="web", namespace=namespace))
    time.sleep(LOCK_S + 2)
    done = upgrade.run(cfg, chart, {}, upgrade.UpgradeOptions(name="web", namespace=namespace))
    versions = history.run(cfg, "web", namespace)
    assert [v.version for v in versions] == [pending.version, done.version]
    # marked failed, then superseded by the upgrade over it, as helm's upgrade of a failed release
    assert versions[0].status is rel.Status.SUPERSEDED
    assert versions[0].description == drv.INTERRUPTED.format(status="pending-install")
    assert versions[1].status is rel.Status.DEPLOYED
    assert kit.get(hc, "ConfigMap", "a", namespace)["data"] == {"greeting": "hello"}


def test_values_holding_secrets_are_not_readable_by_a_release_reader(
        hc: live.LiveClient, namespace: str, tmp_path: Path) -> None:
    cfg = kit.configuration(hc)
    chart = kit.chart(tmp_path, {"a.yaml": kit.configmap("a")})
    install.run(cfg, chart, {"password": "hunter2"},
                install.InstallOptions(name="web", namespace=namespace))
    hc.apply({"apiVersion": "v1", "kind": "ServiceAccount",
              "metadata": {"name": "viewer", "namespace": namespace}})
    hc.apply({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
              "metadata": {"name": "release-viewer", "namespace": namespace},
              "rules": [{"apiGroups": ["helm.sh"], "resources": ["releases"],
                         "verbs": ["get", "list", "watch"]}]})
    hc.apply({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
              "metadata": {"name": "viewer", "namespace": namespace},
              "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                          "name": "release-viewer"},
              "subjects": [{"kind": "ServiceAccount", "name": "viewer", "namespace": namespace}]})
    viewer = hc.impersonate(service_account="viewer", namespace=namespace)
    deadline = time.monotonic() + RBAC_PROPAGATION_S
    while True:
        try:
            release = kit.get(viewer, "Release", "web", namespace, secrets.RELEASE_API_VERSION)
            break
        except ForbiddenError:
            assert time.monotonic() < deadline
            time.sleep(0.2)
    assert release["status"]["status"] == "deployed"
    assert "hunter2" not in str(release)
    reader = config.Configuration(client=viewer, driver=secrets.SecretsDriver(viewer))
    with pytest.raises(ForbiddenError):
        get.run(reader, "web", namespace)
    assert get.values(get.run(cfg, "web", namespace)) == {"password": "hunter2"}
