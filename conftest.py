"""Session-wide test settings: CLI runs in tests keep their disk caches (chart cache and
memo) in a temporary folder, never in the user's ~/.cache."""
from __future__ import annotations

import os
import tempfile

if "HELM_CORE_CACHE" not in os.environ:
    os.environ["HELM_CORE_CACHE"] = tempfile.mkdtemp(prefix="helm-core-test-cache-")


import pytest  # noqa: E402


@pytest.fixture
def local_tz(monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201
    """``set(zone)``: the process's ``TZ`` (Go's ``time.Local``, ``gotime.local_zone``) for this
    test; the zone read from it is forgotten before and after."""
    from helm_core.golib import gotime

    def set_zone(zone: str) -> None:
        monkeypatch.setenv("TZ", zone)
        gotime.local_zone.cache_clear()
    yield set_zone
    gotime.local_zone.cache_clear()
