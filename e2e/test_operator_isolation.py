"""Hostile charts on a real cluster: requests whose charts hang, eat memory or recurse without
end, in their own namespaces, next to good ones. The good ones become Ready in normal time, the
controller process lives on (same PID), each hostile one is Stalled with its reason, and SIGTERM
stops the controller within 5 s while a hostile render runs."""
from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Iterator

import pytest
from kubernetes import client as k8s

from e2e.conftest import ClusterInfo, Kubectl, create_namespace
from e2e.operator_kit import (ROOT, Controller, chart_tgz, condition, get, hello_tgz, ready_at, request,
                              setup_namespace, stalled, wait_for)

pytestmark = pytest.mark.e2e

CHART = "apiVersion: v2\nname: {name}\nversion: 1.0.0\n"
#: Seconds of RSA key generation: past any render limit.
SLOW = '{{- range until 100000 }}{{ $k := genPrivateKey "rsa" }}{{- end }}\na: 1\n'
#: A string doubled until memory runs out.
GROW = ('{{- $s := "abcdefghij" }}{{- range until 40 }}{{- $s = printf "%s%s" $s $s }}{{- end }}\n'
        'a: {{ len $s }}\n')
#: Named templates including each other in a ring of 300 (helm itself dies of a Go stack
#: overflow on it; the engine bounds include nesting and says so).
RING = "".join('{{- define "r%d" -}}{{ include "r%d" . }}{{- end -}}\n' % (i, (i + 1) % 300) for i in range(300))
#: How long a good request may take to be Ready while hostile ones run (the render timeout is 6 s).
GOOD_READY_S = 45.0
STOP_WITHIN_S = 5.0


@pytest.fixture
def spaces(api: k8s.ApiClient) -> Iterator[list[str]]:
    """Namespaces a test makes, deleted while this module's controller still runs (it handles
    their finalizers): hostile requests left behind would be resumed by the next module's
    controller and hold its render workers."""
    made: list[str] = []
    yield made
    core = k8s.CoreV1Api(api)
    for ns in made:
        core.delete_namespace(ns)
    deadline = time.monotonic() + 90
    while made and time.monotonic() < deadline:
        made = [ns for ns in made if ns in {n.metadata.name for n in core.list_namespace().items}]
        time.sleep(0.5)


def hostile_chart(name: str, template: str, extra: dict[str, str] | None = None) -> bytes:
    files = {"Chart.yaml": CHART.format(name=name), "templates/cm.yaml": template, **(extra or {})}
    return chart_tgz(files, name=name)


@pytest.fixture(scope="module")
def ctl(cluster: ClusterInfo, kubectl: Kubectl, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Controller]:
    for crd in ("helmrequest.yaml", "release.yaml"):
        kubectl("apply", "-f", str(ROOT / "manifests" / "crds" / crd))
    kubectl("wait", "--for=condition=Established", "crd/helmrequests.helm.sh", "--timeout=60s")
    controller = Controller(cluster, tmp_path_factory.mktemp("isolation") / "controller.log",
                            args=("--render-timeout", "6s", "--render-cpu", "6s",
                                  "--render-memory", "512Mi", "--render-workers", "3",
                                  # Reconciling well inside the render timeout (below)
                                  "--announce-after", "1s"))
    controller.start()
    yield controller
    controller.stop()


def test_hostile_charts_do_not_hold_up_good_ones(ctl: Controller, api: k8s.ApiClient,
                                                 spaces: list[str]) -> None:
    objects = k8s.CustomObjectsApi(api)
    pid = ctl.proc.pid
    hostile = {"slow": hostile_chart("slow", SLOW), "grow": hostile_chart("grow", GROW),
               "ring": hostile_chart("ring", "a: {{ include \"r0\" . }}\n", {"templates/_ring.tpl": RING})}
    hostile_spaces: dict[str, str] = {}
    for name, chart in hostile.items():
        hostile_spaces[name] = create_namespace(api, f"hostile-{name}")
        spaces.append(hostile_spaces[name])
        setup_namespace(api, hostile_spaces[name], chart=chart)
        request(objects, hostile_spaces[name])
        # a second request of the same namespace: one namespace may not take every worker
        request(objects, hostile_spaces[name], name="again")
    time.sleep(1.0)  # the hostile renders are running
    started = time.monotonic()
    good = [create_namespace(api, f"good-{i}") for i in range(3)]
    spaces.extend(good)
    for ns in good:
        setup_namespace(api, ns, chart=hello_tgz())
        request(objects, ns)
    for ns in good:
        wait_for(objects, ns, ready_at(1), timeout=GOOD_READY_S)
    good_ready_s = time.monotonic() - started
    assert ctl.proc.poll() is None and ctl.proc.pid == pid

    reasons = {}
    for name, ns in hostile_spaces.items():
        for req in ("app", "again"):
            obj = wait_for(objects, ns, stalled, name=req, timeout=90)
            cond = condition(obj, "Stalled")
            reasons[(name, req)] = cond["reason"]
            # the message names the chart (a limit) or its template (a render error)
            assert f"chart {name}" in cond["message"] or f"{name}/templates/" in cond["message"], cond["message"]
            ready = condition(obj, "Ready")
            # a limit passed loading the chart comes before the install; a render is the
            # install's own failure (Flux's InstallFailed)
            assert ready["status"] == "False" and ready["reason"] in (cond["reason"], "InstallFailed")
    assert {reasons[("slow", r)] for r in ("app", "again")} == {"RenderLimitExceeded"}
    assert {reasons[("grow", r)] for r in ("app", "again")} == {"RenderLimitExceeded"}
    assert {reasons[("ring", r)] for r in ("app", "again")} == {"RenderFailed"}
    assert ctl.proc.poll() is None and ctl.proc.pid == pid
    print(f"good requests Ready {good_ready_s:.1f}s after they were applied; hostile: {reasons}")


def test_sigterm_stops_within_seconds_while_a_render_runs(ctl: Controller, api: k8s.ApiClient,
                                                          spaces: list[str]) -> None:
    objects = k8s.CustomObjectsApi(api)
    ns = create_namespace(api, "hostile-at-stop")
    spaces.append(ns)
    setup_namespace(api, ns, chart=hostile_chart("slow", SLOW))
    request(objects, ns)
    # Reconciling is written 1 s (--announce-after) into the operation, whose render in a
    # worker runs for the 6 s of the render timeout: the signal comes in the middle of it
    wait_for(objects, ns, lambda o: condition(o, "Reconciling") is not None, timeout=30)
    assert condition(get(objects, ns), "Stalled") is None
    started = time.monotonic()
    ctl.proc.send_signal(signal.SIGTERM)
    try:
        code = ctl.proc.wait(timeout=STOP_WITHIN_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the controller was still running {STOP_WITHIN_S}s after SIGTERM")
    took = time.monotonic() - started
    assert code == 0
    assert took < STOP_WITHIN_S
    # the render was cut short: no verdict was written on the interrupted request
    assert condition(get(objects, ns), "Stalled") is None
    assert "SIGTERM received: stopping" in ctl.log.read_text()
    ctl.start()  # the request is resumed by the next start: Stalled for its own reason
    obj = wait_for(objects, ns, stalled, timeout=60)
    assert condition(obj, "Stalled")["reason"] == "RenderLimitExceeded"
