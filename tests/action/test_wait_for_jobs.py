"""``wait_for_jobs`` (helm's ``--wait-for-jobs``; the controller's ``waitForJobs``, Flux's
``disableWaitForJobs`` inverted) in install, upgrade (with ``install``, and its ``atomic``
rollback) and rollback: without it a wait ends once the release's Jobs started, with it once
they completed."""
from __future__ import annotations

from pathlib import Path

import pytest

from helm_core.action import config, install, rollback, upgrade
from helm_core.chart import model
from helm_core.errors import HelmError
from helm_core.kube import client as kclient
from helm_core.kube import fake
from helm_core.storage import release as rel
from helm_core.storage import secrets
from helm_core.support import records
from tests.action.conftest import make_chart

NS = "apps"
JOB = ("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate-{{ .Values.n }}\nspec:\n"
       "  template:\n    spec:\n      restartPolicy: Never\n"
       "      containers:\n      - name: m\n        image: busybox\n")
#: A Deployment the fake cluster never makes ready (nothing writes its status).
STUCK = "{{- if .Values.stuck }}\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n{{- end }}\n"
#: Polls the job controller below lets pass before it completes a Job it started.
COMPLETES_AFTER = 2


class JobController:
    """Plays the cluster's job controller from the wait's cancellation hook, asked once per
    poll that leaves objects pending: each Job starts at the first poll that sees it and
    completes at the ``COMPLETES_AFTER``-th."""

    def __init__(self, client: kclient.ClusterClient) -> None:
        self.client = client
        self.polls = 0
        self.seen: dict[str, int] = {}

    def __call__(self) -> str:
        self.polls += 1
        for job in self.client.list("batch/v1", "Job", namespace=NS):
            uid = job["metadata"]["uid"]
            self.seen[uid] = self.seen.get(uid, 0) + 1
            status = {"startTime": "2026-01-01T00:00:00Z", "active": 1}
            if self.seen[uid] >= COMPLETES_AFTER:
                status = {**status, "active": 0, "succeeded": 1,
                          "conditions": [{"type": "Complete", "status": "True"}]}
            self.client.replace({**job, "status": status}, subresource="status")
        return ""

    def counted(self) -> int:
        """Polls since the last call."""
        polls, self.polls = self.polls, 0
        return polls


@pytest.fixture
def jobs() -> JobController:
    cluster = fake.FakeCluster(fake.FAKE_RESOURCES + (kclient.ApiResource("batch/v1", "Job", "jobs", True),))
    return JobController(cluster.client())


@pytest.fixture
def cfg(jobs: JobController) -> config.Configuration:
    return config.Configuration(client=jobs.client, driver=secrets.SecretsDriver(jobs.client),
                                cancelled=jobs)


@pytest.fixture
def chart(tmp_path: Path) -> model.Chart:
    return make_chart(tmp_path, {"job.yaml": JOB, "stuck.yaml": STUCK}, values="n: 1\nstuck: false\n")


def _complete(cfg: config.Configuration, n: int) -> bool:
    job = cfg.client.get(kclient.ObjectRef("batch/v1", "Job", f"migrate-{n}", NS))
    return any(c.get("type") == "Complete" for c in (job.get("status") or {}).get("conditions") or ())


CASES = pytest.mark.parametrize(("wait_for_jobs", "polls"), [(False, 1), (True, COMPLETES_AFTER)],
                                ids=["started", "completed"])


@CASES
def test_install_upgrade_and_rollback_wait_for_jobs_only_when_asked(
        cfg: config.Configuration, jobs: JobController, chart: model.Chart,
        wait_for_jobs: bool, polls: int) -> None:
    first = install.run(cfg, chart, {"n": 1}, install.InstallOptions(
        name="web", namespace=NS, wait=True, wait_for_jobs=wait_for_jobs))
    assert (first.status, jobs.counted(), _complete(cfg, 1)) == (rel.Status.DEPLOYED, polls, wait_for_jobs)
    second = upgrade.run(cfg, chart, {"n": 2}, upgrade.UpgradeOptions(
        name="web", namespace=NS, wait=True, wait_for_jobs=wait_for_jobs))
    assert (second.status, jobs.counted(), _complete(cfg, 2)) == (rel.Status.DEPLOYED, polls, wait_for_jobs)
    # the upgrade deleted migrate-1: the rollback creates it again
    back = rollback.run(cfg, "web", NS, first.version, rollback.RollbackOptions(
        wait=True, wait_for_jobs=wait_for_jobs))
    assert (back.status, jobs.counted(), _complete(cfg, 1)) == (rel.Status.DEPLOYED, polls, wait_for_jobs)


@CASES
def test_upgrade_passes_wait_for_jobs_to_its_install_and_its_atomic_rollback(
        cfg: config.Configuration, jobs: JobController, chart: model.Chart,
        wait_for_jobs: bool, polls: int) -> None:
    options = upgrade.UpgradeOptions(name="web", namespace=NS, install=True, wait=True,
                                     wait_for_jobs=wait_for_jobs)
    first = upgrade.run(cfg, chart, {"n": 1}, options)
    assert (first.description, jobs.counted(), _complete(cfg, 1)) == ("Install complete", polls, wait_for_jobs)
    with pytest.raises(HelmError, match="has been rolled back due to atomic being set"):
        upgrade.run(cfg, chart, {"n": 2, "stuck": True}, records.replace(options, atomic=True, timeout_s=2))
    # the failed upgrade deleted migrate-1; the rollback made it again and waited for it as asked
    assert _complete(cfg, 1) is wait_for_jobs
