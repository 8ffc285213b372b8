"""Prometheus metrics of the controller (served by ``main`` on the metrics port).

- ``helm_operator_reconciles_total{action,result}``: every reconcile, by what it did
  (install, upgrade, rollback, uninstall, none, suspended, held) and result (success, retry, stalled,
  superseded: a newer generation cancelled its wait); ``dependencies``/``not-ready`` for each
  look that found a ``spec.dependsOn`` request not Ready;
- ``helm_operator_reconcile_duration_seconds{action}``: how long each took;
- ``helm_operator_requests{state}``: HelmRequests by state (ready, reconciling, stalled,
  suspended), as last seen by this process;
- ``helm_operator_operations_in_flight``: reconciles started and not finished (the queue
  behind the worker limit included).
Metrics live in their own registry (never the global default), so tests build as many as they like.
"""
from __future__ import annotations

import threading

import prometheus_client

STATES = ("ready", "reconciling", "stalled", "suspended")
DURATION_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600)


class Metrics:
    """The controller's metrics in one registry; thread-safe."""

    def __init__(self) -> None:
        self.registry = prometheus_client.CollectorRegistry()
        self.reconciles = prometheus_client.Counter(
            "helm_operator_reconciles", "Reconciles by action and result",
            ["action", "result"], registry=self.registry)
        self.duration = prometheus_client.Histogram(
            "helm_operator_reconcile_duration_seconds", "Reconcile duration",
            ["action"], buckets=DURATION_BUCKETS, registry=self.registry)
        self.requests = prometheus_client.Gauge(
            "helm_operator_requests", "HelmRequests by state", ["state"], registry=self.registry)
        self.in_flight = prometheus_client.Gauge(
            "helm_operator_operations_in_flight", "Reconciles started and not finished",
            registry=self.registry)
        self._states: dict[str, str] = {}
        self._lock = threading.Lock()
        for state in STATES:
            self.requests.labels(state=state).set(0)

    def observe(self, *, action: str, result: str, seconds: float) -> None:
        self.reconciles.labels(action=action, result=result).inc()
        self.duration.labels(action=action).observe(seconds)

    def set_state(self, uid: str, state: str | None) -> None:
        """Record a request's state (None when it is gone)."""
        if state is not None and state not in STATES:
            raise ValueError(f"unknown state {state!r}")
        with self._lock:
            if state is None:
                self._states.pop(uid, None)
            else:
                self._states[uid] = state
            counts = {s: 0 for s in STATES}
            for value in self._states.values():
                counts[value] += 1
        for name, count in counts.items():
            self.requests.labels(state=name).set(count)

    def operations_in_flight(self) -> int:
        """Reconciles running now."""
        return int(self.registry.get_sample_value("helm_operator_operations_in_flight") or 0)

    def exposition(self) -> bytes:
        """The text format Prometheus scrapes."""
        return prometheus_client.generate_latest(self.registry)
