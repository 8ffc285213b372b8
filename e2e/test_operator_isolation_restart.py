"""A restart with hostile charts Stalled: the controller renders every request again, Stalled
ones too (a limit the admin raised meanwhile may now let them through), so hostile charts in
more namespaces than there are render workers hold every kept worker until the render timeout.
A new namespace's request is served meanwhile by a burst worker (``helm_core/isolation/pool.py``):
it is Ready while every hostile render still runs."""
from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from kubernetes import client as k8s

from e2e.conftest import ClusterInfo, Kubectl, create_namespace
from e2e.operator_kit import (ROOT, Controller, condition, get, hello_tgz, ready_at, request, setup_namespace,
                              stalled, wait_for)
# spaces: namespaces a test makes, deleted while this module's controller still runs
from e2e.test_operator_isolation import SLOW, hostile_chart, spaces  # noqa: F401 - a fixture

pytestmark = pytest.mark.e2e

WORKERS = 2
#: Long enough that a good request, started once every hostile render is announced, is served
#: well inside it even on a loaded machine; short enough for two rounds of hostile renders.
RENDER_TIMEOUT_S = 20


@pytest.fixture(scope="module")
def ctl(cluster: ClusterInfo, kubectl: Kubectl, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Controller]:
    for crd in ("helmrequest.yaml", "release.yaml"):
        kubectl("apply", "-f", str(ROOT / "manifests" / "crds" / crd))
    kubectl("wait", "--for=condition=Established", "crd/helmrequests.helm.sh", "--timeout=60s")
    timeout = f"{RENDER_TIMEOUT_S}s"
    controller = Controller(cluster, tmp_path_factory.mktemp("isolation-restart") / "controller.log",
                            args=("--render-timeout", timeout, "--render-cpu", timeout,
                                  "--render-memory", "512Mi", "--render-workers", str(WORKERS),
                                  "--announce-after", "1s"))
    controller.start()
    yield controller
    controller.stop()


def announced(obj: dict[str, Any]) -> bool:
    return condition(obj, "Reconciling") is not None


def test_after_a_restart_stalled_hostile_charts_do_not_hold_up_others(ctl: Controller, api: k8s.ApiClient,
                                                                        spaces: list[str]) -> None:
    objects = k8s.CustomObjectsApi(api)
    # one namespace more than the kept workers: the third takes a burst worker
    hostile = [create_namespace(api, f"hostile-restart-{i}") for i in range(WORKERS + 1)]
    spaces.extend(hostile)
    for ns in hostile:
        setup_namespace(api, ns, chart=hostile_chart("slow", SLOW))
        request(objects, ns)
    failures = {ns: wait_for(objects, ns, stalled, timeout=120)["status"]["failures"] for ns in hostile}

    ctl.stop()
    ctl.start()
    for ns in hostile:  # resumed: rendering again, announced 1 s into the operation
        wait_for(objects, ns, announced, timeout=60)
    good = create_namespace(api, "good-after-restart")
    spaces.append(good)
    setup_namespace(api, good, chart=hello_tgz())
    started = time.monotonic()
    request(objects, good)
    wait_for(objects, good, ready_at(1), timeout=3 * RENDER_TIMEOUT_S)
    good_ready_s = time.monotonic() - started
    # Without a burst worker the good request waits for a hostile render's timeout, which
    # ends that request's Reconciling (Stalled again) before the good one is served.
    rendering = [ns for ns in hostile if announced(get(objects, ns))]
    assert rendering == hostile, f"hostile renders ended before the good request was Ready: {rendering}"

    for ns in hostile:
        obj = wait_for(objects, ns, lambda o: not announced(o) and stalled(o), timeout=3 * RENDER_TIMEOUT_S)
        assert condition(obj, "Stalled")["reason"] == "RenderLimitExceeded"
        assert obj["status"]["failures"] == failures[ns] + 1
    print(f"after the restart, a good request was Ready {good_ready_s:.1f}s after it was applied, "
          f"with {len(hostile)} hostile renders running")
