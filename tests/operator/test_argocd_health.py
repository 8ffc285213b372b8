"""deploy/argocd/health.lua judged on status objects the controller's own status functions
produce (run in Lua through lupa, as Argo CD's gopher-lua would)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import lupa
import pytest

from helm_operator import status

SCRIPT = (Path(__file__).resolve().parents[2] / "deploy" / "argocd" / "health.lua").read_text()
T = "2026-01-01T00:00:00Z"
RELEASE = {"version": "01JABCDEFGHJKMNPQRSTVWXYZ0", "chartName": "hello", "chartVersion": "0.1.0"}


def health(obj: dict[str, Any]) -> tuple[str, str]:
    runtime = lupa.LuaRuntime(unpack_returned_tuples=True)
    lua_obj = _to_lua(runtime, obj)
    result = runtime.execute(f"return function(obj)\n{SCRIPT}\nend")(lua_obj)
    return result["status"], result["message"]


def _to_lua(runtime: lupa.LuaRuntime, value: Any) -> Any:
    if isinstance(value, dict):
        return runtime.table_from({k: _to_lua(runtime, v) for k, v in value.items()})
    if isinstance(value, list):
        return runtime.table_from([_to_lua(runtime, v) for v in value])
    return value


def hreq(generation: int, st: dict[str, Any] | None) -> dict[str, Any]:
    obj: dict[str, Any] = {"metadata": {"name": "web", "generation": generation}}
    if st is not None:
        obj["status"] = st
    return obj


READY = status.succeeded(None, generation=1, reason="InstallSucceeded", message="Install ok",
                         release=RELEASE, now=T)
CASES = [
    ("no-status", hreq(1, None), ("Progressing", "Waiting for the controller")),
    ("ready", hreq(1, READY), ("Healthy", "Install ok")),
    ("new-generation", hreq(2, READY),
     ("Progressing", "Waiting for the controller to observe generation 2")),
    ("reconciling", hreq(2, status.reconciling(READY, generation=2, message="upgrading the release", now=T)),
     ("Progressing", "upgrading the release")),
    ("retrying", hreq(2, status.failed(READY, generation=2, reason="WaitFailed", message="timed out",
                                       retrying=True, released=status.ReleaseFailure("UpgradeFailed"),
                                       now=T)),
     ("Progressing", "timed out")),
    ("stalled", hreq(2, status.failed(READY, generation=2, reason="ValuesInvalid", message="bad values",
                                      retrying=False, released=None, now=T)),
     ("Degraded", "bad values")),
    ("suspended", hreq(2, status.suspended(READY, generation=2, now=T)),
     ("Suspended", "reconciliation is suspended")),
]


@pytest.mark.parametrize(("obj", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_health_of_status(obj, expected):
    assert health(obj) == expected
