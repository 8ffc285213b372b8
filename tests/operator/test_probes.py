"""Probe and metrics endpoints (helm_operator.probes, helm_operator.metrics)."""
from __future__ import annotations

import urllib.error
import urllib.request

import pytest

from helm_operator import metrics, probes


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def get(port: int, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as rsp:
            return rsp.status, rsp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


@pytest.fixture
def served():
    clock = Clock()
    health = probes.Health(clock)
    m = metrics.Metrics()
    server = probes.serve(0, health=health, metrics=m.exposition, host="127.0.0.1")
    yield server.server_address[1], health, clock, m
    server.shutdown()


def test_readyz_turns_ready_after_start(served):
    port, health, _, _ = served
    assert get(port, "/readyz") == (503, "starting\n")
    health.ready = True
    assert get(port, "/readyz") == (200, "ok\n")


def test_a_standby_replica_is_ready_but_says_it_is_idle(served):
    port, health, _, _ = served
    health.ready, health.standby = True, True
    assert get(port, "/readyz") == (200, "ok (standby)\n")
    health.standby = False
    assert get(port, "/readyz") == (200, "ok\n")


def test_healthz_fails_when_the_loop_stops_beating(served):
    port, health, clock, _ = served
    assert get(port, "/healthz") == (200, "ok\n")
    clock.now += probes.HEARTBEAT_STALE_S + 1
    assert get(port, "/healthz") == (503, "event loop stuck\n")
    health.beat()
    assert get(port, "/healthz")[0] == 200


def test_metrics_expose_reconciles_and_states(served):
    port, _, _, m = served
    m.observe(action="install", result="success", seconds=0.3)
    m.set_state("uid-1", "ready")
    m.set_state("uid-2", "stalled")
    m.set_state("uid-2", None)
    code, text = get(port, "/metrics")
    assert code == 200
    assert 'helm_operator_reconciles_total{action="install",result="success"} 1.0' in text
    assert 'helm_operator_requests{state="ready"} 1.0' in text
    assert 'helm_operator_requests{state="stalled"} 0.0' in text
    assert 'helm_operator_reconcile_duration_seconds_count{action="install"} 1.0' in text


def test_unknown_state_is_refused():
    with pytest.raises(ValueError, match="unknown state 'happy'"):
        metrics.Metrics().set_state("u", "happy")


def test_unknown_path_is_404(served):
    assert get(served[0], "/nope") == (404, "not found\n")
