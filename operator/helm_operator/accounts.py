"""Service accounts a request acts as: checked to exist, with the answer kept for a while.

Why a cache: every reconcile (install, upgrade, each interval check) acts as the request's
``spec.serviceAccountName`` and first checks that the account exists, so a missing one is a
clear "service account ns/name not found" instead of a Forbidden from deep inside an
operation. Requests of a namespace mostly share one account: reading it on every reconcile
was one API request in 18 of an install and one in 5 of an idle check.

Rules:
- Only "exists" is remembered, for ``ttl_s`` seconds; "not found" is never cached, so a
  request stalled on a missing account proceeds as soon as the account is created.
- The check is a courtesy, not a security boundary: the API server's RBAC decides what the
  account may do, on every request. An account deleted within ``ttl_s`` of a check fails
  later, with Forbidden.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable

from helm_core import errors as core_errors
from helm_core.kube import client as kclient

DEFAULT_TTL_S = 60.0


class Accounts:
    """Which service accounts exist, as last read (thread-safe)."""

    def __init__(self, *, ttl_s: float = DEFAULT_TTL_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._ttl_s = ttl_s
        self._clock = clock
        self._seen: dict[tuple[str, str], float] = {}
        self._lock = threading.Lock()

    def exists(self, client: kclient.ClusterClient, namespace: str, name: str) -> bool:
        """True when the account exists (read through ``client`` unless seen in the last
        ``ttl_s``); ``ClusterError`` other than not-found propagates."""
        key = (namespace, name)
        now = self._clock()
        with self._lock:
            seen = self._seen.get(key)
        if seen is not None and now - seen < self._ttl_s:
            return True
        try:
            client.get(kclient.ObjectRef("v1", "ServiceAccount", name, namespace))
        except core_errors.NotFoundError:
            with self._lock:
                self._seen.pop(key, None)
            return False
        with self._lock:
            self._seen[key] = now
        return True
