"""Repository errors in the runner: Reconciling with retry, never Stalled, and Ready again once
the repository is back, against a real HTTP chart repository on loopback (the cluster is the
fake seam of test_runner)."""
from __future__ import annotations

from pathlib import Path

import kopf
import pytest

from helm_core.sources import index as index_mod
from helm_operator import runner
from tests.operator.test_runner import CHART, World, conditions
from tests.sources import servers


@pytest.fixture
def repo(tmp_path: Path):  # type: ignore[no-untyped-def]
    root = tmp_path / "repo"
    root.mkdir()
    (root / "demo-1.0.0.tgz").write_bytes(CHART)
    index_mod.write_index(root)
    server = servers.RepoServer(root=root).start()
    yield server
    server.stop()


def repository(url: str) -> dict[str, object]:
    return {"repository": {"url": url, "name": "demo", "version": "^1.0.0"}}


def test_repository_down_retries_with_backoff_then_on_interval_never_stalled(tmp_path: Path) -> None:
    w = World(tmp_path)
    url = f"http://127.0.0.1:{servers.free_port()}"  # nothing listens there
    w.request(chart=repository(url))
    with pytest.raises(kopf.TemporaryError) as first:
        w.run(retry=0)
    assert first.value.delay == 5.0
    assert conditions(w.current())["Reconciling"] == ("True", "ProgressingWithRetry")
    assert not runner._due_on_interval(w.current()["status"], 1)  # Kopf's retry comes first
    with pytest.raises(kopf.PermanentError) as last:
        w.run(retry=runner.MAX_TRANSIENT_RETRIES)
    assert "gave up" not in str(last.value)
    obj = w.current()
    assert conditions(obj)["Reconciling"] == ("True", "RetryingOnInterval")
    assert conditions(obj)["Ready"] == ("False", "ChartSourceUnavailable")
    assert "Stalled" not in conditions(obj)
    assert f"cannot reach the repository ({url}/index.yaml)" in obj["status"]["lastError"]
    assert runner._due_on_interval(obj["status"], 1)  # the interval daemon takes over


def test_interval_check_failure_is_retried_on_interval_and_recovers_to_ready(
        tmp_path: Path, repo: servers.RepoServer) -> None:
    w = World(tmp_path)
    w.request(chart=repository(repo.url))
    ready = w.run()
    assert conditions(ready)["Ready"] == ("True", "InstallSucceeded")
    port = int(repo.url.rsplit(":", 1)[1])
    repo.stop()
    with pytest.raises(kopf.PermanentError):  # the daemon swallows it; no Kopf retry follows
        runner.apply(w.rt, w.current(), retry=0, metrics=w.metrics, interval_check=True)
    down = w.current()
    assert conditions(down)["Reconciling"] == ("True", "RetryingOnInterval")
    assert conditions(down)["Ready"] == ("False", "ChartSourceUnavailable")
    assert runner._due_on_interval(down["status"], 1)
    repo.start(port=port)
    runner.apply(w.rt, w.current(), retry=0, metrics=w.metrics, interval_check=True)
    back = w.current()
    # Flux's summary: Ready says Released's success
    assert conditions(back) == {"Ready": ("True", "InstallSucceeded"),
                                "Released": ("True", "InstallSucceeded")}
    assert back["status"]["version"] == ready["status"]["version"]  # nothing was upgraded
    # Flux's summary: Ready tells the release deployed, as Released does
    released = next(c["message"] for c in back["status"]["conditions"] if c["type"] == "Released")
    assert released.startswith("Helm install succeeded for release ")
    assert next(c["message"] for c in back["status"]["conditions"] if c["type"] == "Ready") == released
    assert back["status"]["failures"] == 0
