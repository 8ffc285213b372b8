"""``helm test``'s record of each test's last run, next to stock helm on the real API server:
``helm status`` of a release helm-core tested prints the TEST SUITE helm-core's own ``status``
prints, and ``helm-core status`` of a release helm tested prints what ``helm status`` prints
(times normalised); filtered runs store the hooks in helm's order (``get hooks``)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from e2e import release_kit as kit
from e2e.conftest import ClusterInfo
from e2e.test_helm_interop import helm, run_core, run_helm  # noqa: F401  (helm: a fixture)
from helm_core.kube import live

pytestmark = pytest.mark.e2e

_ANSIC = re.compile(r"[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}")


@pytest.fixture
def chart(tmp_path: Path) -> str:
    """Two passing tests (``beta`` runs first: lower weight; ``alpha``'s template comes first in
    the stored hooks), a failing one when ``fail`` is set, and a pre-install hook."""
    kit.chart(tmp_path / "demo", {
        "cm.yaml": kit.configmap("{{ .Release.Name }}-cm"),
        "setup.yaml": kit.hook_job("setup", "pre-install"),
        "tests/alpha.yaml": kit.hook_job("alpha", "test", weight=2),
        "tests/beta.yaml": kit.hook_job("beta", "test", weight=1),
        "tests/gamma.yaml": "{{- if .Values.fail }}\n" + kit.hook_job("gamma", "test", fail=True, weight=3)
                            + "{{- end }}\n",
        "NOTES.txt": "hi {{ .Values.greeting }}"}, values="greeting: hello\nfail: false\n")
    return str(tmp_path / "demo")


def normalised(status: str) -> str:
    """A status text with its times (ANSIC) replaced."""
    return _ANSIC.sub("<time>", status)


def hooks_json(status: str) -> list[dict[str, object]]:
    """The hooks of ``status -o json``, their run times replaced."""
    found: list[dict[str, object]] = json.loads(status)["hooks"]
    for hook in found:
        last = hook["last_run"]
        assert isinstance(last, dict)
        last.update({key: "<time>" for key in ("started_at", "completed_at") if last[key]})
    return found


def suite_of(status: str) -> str:
    """The TEST SUITE part of a status text (its lines up to NOTES)."""
    start = status.index("TEST SUITE:")
    return normalised(status[start:status.find("NOTES:", start)])


def test_status_of_a_release_helm_tested_prints_helms_test_suite(
        cluster: ClusterInfo, hc: live.LiveClient, namespace: str, helm: str, chart: str) -> None:  # noqa: F811
    run_helm(helm, cluster, namespace, "install", "web", chart)
    before = run_helm(helm, cluster, namespace, "status", "web")
    assert "TEST SUITE" not in before  # tests never run: helm prints no TEST SUITE line at all
    assert normalised(run_core(cluster, namespace, "status", "web")) == normalised(before)

    run_helm(helm, cluster, namespace, "test", "web", "--timeout", "120s")
    theirs = run_helm(helm, cluster, namespace, "status", "web")
    assert suite_of(theirs) == (
        "TEST SUITE:     alpha\nLast Started:   <time>\nLast Completed: <time>\nPhase:          Succeeded\n"
        "TEST SUITE:     beta\nLast Started:   <time>\nLast Completed: <time>\nPhase:          Succeeded\n")
    assert normalised(run_core(cluster, namespace, "status", "web")) == normalised(theirs)
    # the same times, not just the same layout
    assert _ANSIC.findall(run_core(cluster, namespace, "status", "web")) == _ANSIC.findall(theirs)
    assert hooks_json(run_core(cluster, namespace, "status", "web", "-o", "json")) == hooks_json(
        run_helm(helm, cluster, namespace, "status", "web", "-o", "json"))

    # a filtered run: helm stores the hooks it skipped first, and so reads helm-core
    run_helm(helm, cluster, namespace, "test", "web", "--filter", "name=alpha", "--timeout", "120s")
    theirs = run_helm(helm, cluster, namespace, "status", "web")
    assert suite_of(theirs).index("beta") < suite_of(theirs).index("alpha")
    assert run_core(cluster, namespace, "status", "web") == theirs
    assert run_core(cluster, namespace, "get", "hooks", "web") == run_helm(helm, cluster, namespace,
                                                                           "get", "hooks", "web")


def test_helm_status_of_a_release_helm_core_tested_prints_the_same_test_suite(
        cluster: ClusterInfo, hc: live.LiveClient, namespace: str, helm: str, chart: str) -> None:  # noqa: F811
    # helm's record of its own run, as the reference
    run_helm(helm, cluster, namespace, "install", "web", chart, "--set", "fail=true")
    run_helm(helm, cluster, namespace, "test", "web", "--timeout", "120s", ok=False)
    reference = run_helm(helm, cluster, namespace, "status", "web")
    assert "TEST SUITE:     gamma\n" in reference and "Phase:          Failed\n" in reference
    reference_hooks = hooks_json(run_helm(helm, cluster, namespace, "status", "web", "-o", "json"))
    run_helm(helm, cluster, namespace, "uninstall", "web", "--wait")

    # the same release installed and tested by helm-core in helm's format: helm reads our record
    run_core(cluster, namespace, "install", "web", chart, "--set", "fail=true", "--storage", "helm")
    tested = run_core(cluster, namespace, "test", "web", "--timeout", "120s", "--storage", "helm", ok=False)
    ours = run_helm(helm, cluster, namespace, "status", "web")
    assert normalised(ours) == normalised(reference)
    assert suite_of(tested) == suite_of(ours)
    # helm's JSON of the hooks: each one's last run (the install's hook too), default policies
    assert hooks_json(run_helm(helm, cluster, namespace, "status", "web", "-o", "json")) == reference_hooks
    assert run_core(cluster, namespace, "status", "web", "--storage", "helm") == ours
    run_core(cluster, namespace, "test", "web", "--filter", "!name=gamma", "--storage", "helm")
    assert run_core(cluster, namespace, "get", "hooks", "web", "--storage", "helm") == run_helm(
        helm, cluster, namespace, "get", "hooks", "web")
    assert run_core(cluster, namespace, "status", "web", "--storage", "helm") == run_helm(
        helm, cluster, namespace, "status", "web")
    # get all: helm's debug layout (chart, TEST SUITE, values, hooks in their stored order, manifest)
    assert run_core(cluster, namespace, "get", "all", "web", "--storage", "helm") == run_helm(
        helm, cluster, namespace, "get", "all", "web")
    run_core(cluster, namespace, "uninstall", "web", "--storage", "helm", "--wait")

    # and in helm-core's own storage: the same TEST SUITE (REVISION is a ULID there)
    run_core(cluster, namespace, "install", "web", chart, "--set", "fail=true")
    run_core(cluster, namespace, "test", "web", "--timeout", "120s", ok=False)
    assert suite_of(run_core(cluster, namespace, "status", "web")) == suite_of(reference)
