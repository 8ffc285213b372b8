"""Run a local cluster under a supervisor process: detached (``up``/``down``) or for a test session.

Rules:
- One supervisor process owns one cluster: it starts the control plane, seeds nodes and storage,
  runs the volume provisioner and load-balancer loops, and on SIGTERM/SIGINT/SIGHUP or any
  failure stops every component (their process groups) before it exits. Components die with
  it even on SIGKILL.
- The supervisor reports through ``<dir>/state.json`` (``starting`` -> ``ready`` | ``failed``,
  with pids, ports, server and kubeconfig) written atomically; callers only read that file.
- ``up`` is idempotent: a ready cluster of that name is reused; a stale one (its supervisor gone)
  is cleaned first. ``down`` stops the supervisor, kills any leftover group and removes the dir.
- ``LocalCluster`` is the same supervisor tied to the calling process (dies with it), for pytest.
- Named clusters live in ``$HELM_CONTROLLER_CLUSTERS_DIR`` or ``~/.cache/helm-controller/clusters``.
"""
from __future__ import annotations

import atexit
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from e2e.cluster import bootstrap, controlplane, errors, processes, tools

CLUSTERS_ENV = "HELM_CONTROLLER_CLUSTERS_DIR"
DEFAULT_CLUSTERS = Path("~/.cache/helm-controller/clusters")
START_TIMEOUT_S = 180.0
"""Deadline for a supervisor to report ``ready`` (a loaded 2-core machine can be slow)."""
STOP_TIMEOUT_S = 30.0
PROVISION_EVERY_S = 1.0
"""Period of the volume provisioner loop."""
START_ATTEMPTS = 3
PORT_CLASH = "address already in use"
STATE_FILE = "state.json"
SUPERVISOR_MARK = "e2e.cluster"
"""Text expected in a supervisor's command line, so a reused pid is never signalled."""
REPO_ROOT = Path(__file__).resolve().parents[2]


def clusters_root() -> Path:
    return Path(os.environ.get(CLUSTERS_ENV) or DEFAULT_CLUSTERS).expanduser()


def read_state(directory: Path) -> dict[str, Any] | None:
    """The supervisor's last report, or None when there is none (yet)."""
    try:
        return json.loads((directory / STATE_FILE).read_text())  # type: ignore[no-any-return]
    except (OSError, ValueError):
        return None


def _write_state(directory: Path, /, **fields: Any) -> None:
    temporary = directory / f".{STATE_FILE}.tmp"
    temporary.write_text(json.dumps(fields, indent=2))
    os.replace(temporary, directory / STATE_FILE)


# --- the supervisor process ------------------------------------------------------------------

def supervise(directory: Path, bin_dir: Path, node_count: int) -> int:
    """Body of the supervisor process: start, report, provision volumes until told to stop."""
    from kubernetes import config as k8s_config  # imported here: costly, only needed here
    from kubernetes.client.rest import ApiException

    processes.install_signal_handlers()
    planes: list[controlplane.ControlPlane] = []
    atexit.register(lambda: [plane.stop() for plane in planes])
    base = {"supervisor_pid": os.getpid(), "directory": str(directory)}
    _write_state(directory, status="starting", **base)
    started = time.monotonic()
    try:
        plane = _start_plane(directory, bin_dir, planes)
        api = k8s_config.new_client_from_config(config_file=str(plane.kubeconfig))
        bootstrap.seed(api, node_count)
        usable = bootstrap.wait_usable(api, node_count, alive=plane.check_alive)
        details = json.loads(controlplane.state_json(plane))
        details["timings"].update({f"after-controllers:{k}": v for k, v in usable.items()})
        _write_state(directory, status="ready", start_seconds=round(time.monotonic() - started, 2),
                     **base, **details)
        print(f"ready in {time.monotonic() - started:.1f}s", flush=True)
        loops = (bootstrap.Provisioner(api), bootstrap.LoadBalancers(api))
        while True:
            plane.check_alive()
            for loop in loops:
                try:
                    loop.sync()
                except (ApiException, OSError) as exc:
                    print(f"{type(loop).__name__}: {exc}", flush=True)
            time.sleep(PROVISION_EVERY_S)
    except SystemExit:
        return 0
    except Exception as exc:  # report every failure to the waiting caller, then clean up
        _write_state(directory, status="failed", error=f"{type(exc).__name__}: {exc}", **base)
        print(f"failed: {exc}", file=sys.stderr, flush=True)
        return 1
    finally:
        for plane in planes:
            plane.stop()


def _start_plane(directory: Path, bin_dir: Path,
                 planes: list[controlplane.ControlPlane]) -> controlplane.ControlPlane:
    """Start the control plane on fresh ports, retrying when another process took a port.

    Ports are picked free but released before the components bind them, so a cluster starting
    at the same moment can take one; that shows as "address already in use" in the log.
    """
    for attempt in range(1, START_ATTEMPTS + 1):
        plane = controlplane.ControlPlane(directory=directory, bin_dir=bin_dir,
                                          ports=controlplane.Ports.allocate())
        planes.append(plane)
        try:
            plane.start()
            return plane
        except errors.ComponentError as exc:
            plane.stop()
            if PORT_CLASH not in exc.log_tail or attempt == START_ATTEMPTS:
                raise
            print(f"{exc.component}: port taken, retrying on new ports", flush=True)
            shutil.rmtree(directory / "etcd", ignore_errors=True)
    raise AssertionError("unreachable")


def _spawn_supervisor(directory: Path, bin_dir: Path, node_count: int, *,
                      die_with_parent: bool) -> processes.Component:
    directory.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))}
    argv = [sys.executable, "-m", "e2e.cluster", "_supervise", str(directory),
            "--bin-dir", str(bin_dir), "--nodes", str(node_count)]
    return processes.spawn("supervisor", argv, log_path=directory / "logs" / "supervisor.log",
                           env=env, die_with_parent=die_with_parent)


def _wait_ready(directory: Path, supervisor: processes.Component | None,
                timeout_s: float = START_TIMEOUT_S) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        state = read_state(directory)
        if state and state.get("status") == "ready":
            return state
        if state and state.get("status") == "failed":
            raise errors.HarnessError(f"cluster failed to start: {state.get('error')}")
        if supervisor is not None and not supervisor.alive():
            raise errors.ComponentError("supervisor", "exited before the cluster was ready",
                                        supervisor.log_tail())
        time.sleep(0.1)
    raise errors.HarnessError(f"cluster not ready after {timeout_s:.0f}s (see {directory}/logs)")


# --- for tests: a cluster tied to this process ----------------------------------------------

@dataclass
class LocalCluster:
    """A running cluster owned by the current process; ``stop`` (or process exit) ends it."""

    directory: Path
    state: dict[str, Any]
    supervisor: processes.Component
    owns_directory: bool

    @property
    def kubeconfig(self) -> Path:
        return Path(self.state["kubeconfig"])

    @property
    def server(self) -> str:
        return str(self.state["server"])

    @classmethod
    def start(cls, *, bin_dir: Path | None = None, directory: Path | None = None,
              node_count: int = bootstrap.NODE_COUNT) -> LocalCluster:
        """Start a fresh cluster (in a new temp dir unless ``directory``) and wait until ready."""
        bin_dir = bin_dir or tools.bin_dir()
        missing = tools.missing_binaries(bin_dir)
        if missing:
            raise errors.ToolsMissingError(
                f"missing in {bin_dir}: {', '.join(missing)}; run `python -m e2e.cluster build`")
        owns = directory is None
        directory = directory or Path(tempfile.mkdtemp(prefix="hc-e2e-cluster-"))
        supervisor = _spawn_supervisor(directory, bin_dir, node_count, die_with_parent=True)
        cluster = cls(directory=directory, state={}, supervisor=supervisor, owns_directory=owns)
        atexit.register(cluster.stop)
        try:
            cluster.state = _wait_ready(directory, supervisor)
        except BaseException:
            cluster.stop()
            raise
        return cluster

    def stop(self) -> None:
        """Stop the supervisor (which stops every component) and remove a temp directory."""
        if self.supervisor.alive():
            processes.stop(self.supervisor, grace_s=STOP_TIMEOUT_S)
        _kill_leftovers(self.state, self.directory)
        if self.owns_directory:
            shutil.rmtree(self.directory, ignore_errors=True)


# --- detached named clusters: up / down / status ---------------------------------------------

def up(name: str, *, node_count: int = bootstrap.NODE_COUNT, bin_dir: Path | None = None) -> Path:
    """Ensure cluster ``name`` runs in the background and return its kubeconfig path."""
    directory = clusters_root() / name
    state = read_state(directory)
    if state and state.get("status") == "ready" and _supervisor_alive(state):
        return Path(state["kubeconfig"])
    if state and state.get("status") == "starting" and _supervisor_alive(state):
        return Path(_wait_ready(directory, None)["kubeconfig"])  # another `up` is starting it
    if state or directory.exists():
        down(name)
    bin_dir = bin_dir or tools.bin_dir()
    missing = tools.missing_binaries(bin_dir)
    if missing:
        raise errors.ToolsMissingError(
            f"missing in {bin_dir}: {', '.join(missing)}; run `python -m e2e.cluster build`")
    supervisor = _spawn_supervisor(directory, bin_dir, node_count, die_with_parent=False)
    try:
        state = _wait_ready(directory, supervisor)
    except BaseException:
        down(name)
        raise
    return Path(state["kubeconfig"])


def down(name: str) -> bool:
    """Stop cluster ``name`` and remove its directory; False when nothing was there."""
    directory = clusters_root() / name
    state = read_state(directory)
    if state is None and not directory.exists():
        return False
    if state:
        pid = int(state.get("supervisor_pid") or 0)
        if pid and _supervisor_alive(state):
            os.kill(pid, signal.SIGTERM)
            if not processes.wait_gone(pid, STOP_TIMEOUT_S):
                os.kill(pid, signal.SIGKILL)
                processes.wait_gone(pid, STOP_TIMEOUT_S)
        _kill_leftovers(state, directory)
    shutil.rmtree(directory, ignore_errors=True)
    return True


def status(name: str) -> dict[str, Any] | None:
    """The state of cluster ``name`` with ``running`` telling whether its supervisor lives."""
    state = read_state(clusters_root() / name)
    if state is None:
        return None
    return {**state, "running": _supervisor_alive(state)}


def _kill_leftovers(state: dict[str, Any], directory: Path) -> None:
    """SIGKILL the group of any recorded component still running from ``directory``.

    A pid is only signalled when its command line names the cluster's folder, so a pid the
    kernel reused for an unrelated process is never touched.
    """
    for pid in (state.get("pids") or {}).values():
        try:
            cmdline = Path(f"/proc/{int(pid)}/cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if str(directory) in cmdline:
            processes.signal_group(int(pid), signal.SIGKILL)


def _supervisor_alive(state: dict[str, Any]) -> bool:
    pid = int(state.get("supervisor_pid") or 0)
    if not pid or not processes.pid_alive(pid):
        return False
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return False
    return SUPERVISOR_MARK in cmdline
