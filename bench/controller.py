"""Controller scale: N HelmRequests of a one-ConfigMap chart applied at once on the local control
plane; prints time until all Ready, apply→Ready p50/p95, controller peak RSS and CPU, idle CPU.

    python bench/controller.py --count 100 [--count 500 ...] [--workers 16]

Goal (issue 8): 1000 Ready within 120 s on a 2-core machine, RSS <= 250 MB.
Uses ``HELM_CONTROLLER_E2E_KUBECONFIG`` when set, else starts its own cluster.
"""
from __future__ import annotations

import argparse
import base64
import concurrent.futures
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kubernetes import client as k8s  # noqa: E402
from kubernetes import config as k8s_config  # noqa: E402
from kubernetes import watch as k8s_watch  # noqa: E402

from helm_core.sources import package  # noqa: E402
from helm_operator import settings  # noqa: E402

CREATE_THREADS = 8
IDLE_WINDOW_S = 30.0
TIMEOUT_S = 600.0
CLK_TCK = os.sysconf("SC_CLK_TCK")
RULES = [{"apiGroups": ["", "helm.sh", "coordination.k8s.io"],
          "resources": ["configmaps", "secrets", "releases", "releases/status", "leases"],
          "verbs": ["get", "list", "watch", "create", "update", "patch", "delete"]}]


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def children(pid: int) -> list[int]:
    """The processes the controller started: its render workers (and Lua workers)."""
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def chart() -> bytes:
    return package.archive_bytes("bench", [
        ("Chart.yaml", b"apiVersion: v2\nname: bench\nversion: 1.0.0\n"),
        ("templates/cm.yaml", b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n"
                              b"data:\n  v: {{ .Values.v | default \"x\" | quote }}\n")])


def setup_namespace(api: k8s.ApiClient, prefix: str) -> str:
    """A fresh namespace with the ``deployer`` ServiceAccount (RULES) and the chart ConfigMap."""
    core, rbac = k8s.CoreV1Api(api), k8s.RbacAuthorizationV1Api(api)
    ns = f"{prefix}-{int(time.time())}"
    core.create_namespace({"metadata": {"name": ns}})
    while True:
        try:
            core.read_namespaced_service_account("default", ns)
            break
        except k8s.ApiException:
            time.sleep(0.1)
    core.create_namespaced_service_account(ns, {"metadata": {"name": "deployer"}})
    rbac.create_namespaced_role(ns, {"metadata": {"name": "deployer"}, "rules": RULES})
    rbac.create_namespaced_role_binding(ns, {
        "metadata": {"name": "deployer"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "deployer"},
        "subjects": [{"kind": "ServiceAccount", "name": "deployer", "namespace": ns}]})
    core.create_namespaced_config_map(ns, {"metadata": {"name": "chart"},
                                           "binaryData": {"c.tgz": base64.b64encode(chart()).decode()}})
    return ns


AUTHS = ("serviceaccount", "admin")
#: What the replicas run as, from deploy/: the controller's ServiceAccount, bound to its ClusterRole.
CONTROLLER_OBJECTS = ("namespace.yaml", "serviceaccount.yaml", "rbac.yaml")
CONTROLLER_ACCOUNT = ("helm-operator-system", "helm-operator")
TOKEN_SECONDS = 3 * 3600


def replica_kubeconfig(api: k8s.ApiClient, kubeconfig: Path, auth: str) -> Path:
    """The kubeconfig the replicas use. ``serviceaccount`` (as in a cluster): the controller's
    ServiceAccount and ClusterRole from deploy/, a token from the TokenRequest API (the API
    server caches the authentication of a token, whereas it verifies a client certificate on
    every request); ``admin``: the cluster's admin kubeconfig (its client certificate)."""
    if auth == "admin":
        return kubeconfig
    subprocess.run(["kubectl", f"--kubeconfig={kubeconfig}", "apply",
                    *(f"--filename={ROOT / 'deploy' / name}" for name in CONTROLLER_OBJECTS)],
                   check=True, capture_output=True)
    namespace, account = CONTROLLER_ACCOUNT
    token = k8s.CoreV1Api(api).create_namespaced_service_account_token(
        account, namespace, {"spec": {"expirationSeconds": TOKEN_SECONDS}}).status.token
    from e2e.cluster import kubeconfig as kubeconfigs
    return kubeconfigs.write_token(Path(tempfile.mkdtemp(prefix="bench-sa-")) / "kubeconfig",
                                   admin=kubeconfig, user=account, token=token)


def add_auth_flag(args: argparse.ArgumentParser) -> None:
    args.add_argument("--auth", choices=AUTHS, default="serviceaccount",
                      help="how the replicas authenticate (default: a ServiceAccount token, as in "
                           "a cluster; admin: the admin kubeconfig's client certificate)")


def describe_auth(auth: str) -> str:
    namespace, account = CONTROLLER_ACCOUNT
    return (f"replicas authenticate with a ServiceAccount token ({namespace}/{account}, ClusterRole "
            f"{account} from deploy/)" if auth == "serviceaccount"
            else "replicas authenticate with the admin kubeconfig's client certificate")


class Replica:
    """One ``helm-operator run`` process with its peak RSS, and its workers', sampled every
    half second."""

    def __init__(self, kubeconfig: Path, args: list[str]) -> None:
        self.log = Path(tempfile.mkdtemp(prefix="bench-controller-")) / "controller.log"
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "helm_operator", "run", *args, "--probe-port", "0",
                 "--metrics-port", "0", "--cache-dir", str(self.log.parent / "cache")],
                stdout=out, stderr=subprocess.STDOUT, env=dict(os.environ, KUBECONFIG=str(kubeconfig)))
        self.peak_rss_mb = 0.0
        self.peak_workers_mb = 0.0
        self._workers_cpu: dict[int, float] = {}  # pid -> CPU seconds when last seen
        self._stop = threading.Event()
        threading.Thread(target=self._sample, daemon=True).start()

    def _sample(self) -> None:
        while not self._stop.is_set() and self.proc.poll() is None:
            self.peak_rss_mb = max(self.peak_rss_mb, rss_mb(self.proc.pid))
            workers_rss = 0.0
            for child in children(self.proc.pid):
                try:
                    workers_rss += rss_mb(child)
                    self._workers_cpu[child] = cpu_seconds(child)
                except OSError:
                    pass
            self.peak_workers_mb = max(self.peak_workers_mb, workers_rss)
            time.sleep(0.5)

    def cpu(self) -> float:
        return cpu_seconds(self.proc.pid)

    def workers_cpu(self) -> float:
        """CPU seconds of its render workers, as last sampled (a worker that died counts
        what it had used half a second before)."""
        return sum(self._workers_cpu.values())

    def stop(self) -> None:
        self._stop.set()
        self.proc.terminate()
        self.proc.wait(timeout=30)


def create_requests(objects: k8s.CustomObjectsApi, ns: str, count: int,
                    labels: Callable[[int], dict[str, str]] = lambda i: {},
                    spec: dict[str, Any] | None = None) -> dict[str, float]:
    """Create ``count`` HelmRequests at once ("like `kubectl apply` of one big list, with a
    few connections"); returns name -> creation time."""
    created: dict[str, float] = {}

    def create(i: int) -> None:
        name = f"r{i}"
        objects.create_namespaced_custom_object("helm.sh", "v1alpha1", ns, "helmrequests", {
            "apiVersion": "helm.sh/v1alpha1", "kind": "HelmRequest",
            "metadata": {"name": name, "labels": labels(i)},
            "spec": {"chart": {"configMapRef": {"name": "chart"}}, "serviceAccountName": "deployer",
                     "install": {"wait": False}, **(spec or {})}})
        created[name] = time.monotonic()

    with concurrent.futures.ThreadPoolExecutor(CREATE_THREADS) as pool:
        list(pool.map(create, range(count)))
    return created


def wait_ready(objects: k8s.CustomObjectsApi, ns: str, count: int, start: float) -> dict[str, float]:
    """Watch until ``count`` requests are Ready (or TIMEOUT_S); returns name -> Ready time.

    A watch, not a poll: listing N requests every half second costs the API server (on the
    same 2 cores as the controller) more than the controller's own work at N=1000."""
    ready: dict[str, float] = {}

    def note(item: dict[str, Any]) -> None:
        name = item["metadata"]["name"]
        conds = {c["type"]: c for c in (item.get("status") or {}).get("conditions") or []}
        if name not in ready and conds.get("Ready", {}).get("status") == "True":
            ready[name] = time.monotonic()

    while len(ready) < count and time.monotonic() - start < TIMEOUT_S:
        try:
            listing = objects.list_namespaced_custom_object("helm.sh", "v1alpha1", ns, "helmrequests")
        except k8s.ApiException as exc:
            if exc.status != 429:
                raise
            time.sleep(1)
            continue
        for item in listing["items"]:
            note(item)
        version = listing["metadata"]["resourceVersion"]
        stream = k8s_watch.Watch()
        try:
            for event in stream.stream(objects.list_namespaced_custom_object, "helm.sh", "v1alpha1", ns,
                                       "helmrequests", resource_version=version,
                                       timeout_seconds=max(1, int(TIMEOUT_S - (time.monotonic() - start)))):
                if event["type"] in ("ADDED", "MODIFIED"):
                    note(event["object"])
                if len(ready) >= count:
                    break
        except k8s.ApiException as exc:
            if exc.status not in (410, 429):  # expired resourceVersion, server busy: list again
                raise
            time.sleep(1)
        finally:
            stream.stop()
    return ready


def percentiles(created: dict[str, float], ready: dict[str, float]) -> str:
    latencies = sorted(ready[n] - created[n] for n in ready)
    if not latencies:
        return "no request Ready"
    p = statistics.quantiles(latencies, n=20) if len(latencies) >= 2 else latencies * 19
    return f"apply->Ready p50 {statistics.median(latencies):.1f}s p95 {p[18]:.1f}s"


def delete_namespace(core: k8s.CoreV1Api, ns: str) -> float:
    """Delete while the controllers run, so the finalizers are handled; returns the seconds taken."""
    start = time.monotonic()
    core.delete_namespace(ns)
    while time.monotonic() - start < TIMEOUT_S:
        try:
            core.read_namespace(ns)
        except k8s.ApiException:
            break
        time.sleep(1)
    return time.monotonic() - start


def run(api: k8s.ApiClient, kubeconfig: Path, count: int, workers: int, auth: str) -> None:
    objects = k8s.CustomObjectsApi(api)
    ns = setup_namespace(api, f"bench-{count}")
    print(describe_auth(auth), flush=True)
    replica = Replica(replica_kubeconfig(api, kubeconfig, auth), ["-n", ns, "--workers", str(workers)])
    time.sleep(3)
    cpu0, workers_cpu0 = replica.cpu(), replica.workers_cpu()
    start = time.monotonic()
    created = create_requests(objects, ns, count)
    applied = time.monotonic() - start
    ready = wait_ready(objects, ns, count, start)
    total = time.monotonic() - start
    busy_cpu = replica.cpu() - cpu0
    time.sleep(1)  # the sampler's last look at the workers
    workers_cpu = replica.workers_cpu() - workers_cpu0
    cpu1 = replica.cpu()
    time.sleep(IDLE_WINDOW_S)
    idle_cpu = (replica.cpu() - cpu1) / IDLE_WINDOW_S * 100
    print(f"N={count} workers={workers}: applied in {applied:.1f}s; {len(ready)}/{count} Ready in {total:.1f}s; "
          f"{percentiles(created, ready)}; "
          f"controller peak RSS {replica.peak_rss_mb:.0f} MB (its workers {replica.peak_workers_mb:.0f} MB), "
          f"CPU {busy_cpu:.1f}s busy (its workers {workers_cpu:.1f}s), idle {idle_cpu:.1f}% of a core "
          f"over {IDLE_WINDOW_S:.0f}s", flush=True)
    print(f"    cleanup (uninstall of {count}) took {delete_namespace(k8s.CoreV1Api(api), ns):.1f}s", flush=True)
    replica.stop()


def install_crds(kubeconfig: Path) -> None:
    subprocess.run(["kubectl", f"--kubeconfig={kubeconfig}", "apply", "-f", str(ROOT / "manifests" / "crds")],
                   check=True, capture_output=True)


def add_finalizer_flag(args: argparse.ArgumentParser) -> None:
    args.add_argument("--finalizer-policy", choices=("on", "off"), default="on",
                      help="deploy/finalizer/ (the API server adds the controller's finalizer to each "
                           "new HelmRequest; default) or not (the controller PATCHes it in)")


def apply_finalizer_policy(api: k8s.ApiClient, kubeconfig: Path) -> None:
    """deploy/finalizer/ applied, and waited for until admission uses it (a dry-run create)."""
    subprocess.run(["kubectl", f"--kubeconfig={kubeconfig}", "apply", "-k", str(ROOT / "deploy" / "finalizer")],
                   check=True, capture_output=True)
    objects = k8s.CustomObjectsApi(api)
    probe = {"apiVersion": "helm.sh/v1alpha1", "kind": "HelmRequest", "metadata": {"name": "probe"},
             "spec": {"chart": {"configMapRef": {"name": "chart"}}}}
    deadline = time.monotonic() + 60

    def in_use() -> bool:
        try:
            return bool(objects.create_namespaced_custom_object(
                "helm.sh", "v1alpha1", "default", "helmrequests", probe, dry_run="All")["metadata"].get("finalizers"))
        except k8s.ApiException:  # the CRD just applied is not served yet
            return False
    while not in_use():
        if time.monotonic() > deadline:
            raise RuntimeError("deploy/finalizer/ not in use after 60 s")
        time.sleep(0.5)
    print("the API server adds the controller's finalizer to new HelmRequests (deploy/finalizer/)", flush=True)


def on_cluster(work: Callable[[k8s.ApiClient, Path], None], *, finalizer_policy: str = "off") -> None:
    """``work(admin client, kubeconfig)`` on ``HELM_CONTROLLER_E2E_KUBECONFIG``'s cluster when
    set, else on one started (and stopped) here; the CRDs are applied first (and
    deploy/finalizer/ with ``finalizer_policy`` "on")."""
    external = os.environ.get("HELM_CONTROLLER_E2E_KUBECONFIG")
    cluster: Any = None
    if external:
        kubeconfig = Path(external)
    else:
        from e2e.cluster import harness
        cluster = harness.LocalCluster.start()
        kubeconfig = cluster.kubeconfig
    try:
        install_crds(kubeconfig)
        api = k8s_config.new_client_from_config(config_file=str(kubeconfig))
        if finalizer_policy == "on":
            apply_finalizer_policy(api, kubeconfig)
        work(api, kubeconfig)
    finally:
        if cluster is not None:
            cluster.stop()


def main() -> int:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--count", type=int, action="append")
    args.add_argument("--workers", type=int, default=settings.DEFAULT_WORKERS)
    add_auth_flag(args)
    add_finalizer_flag(args)
    opts = args.parse_args()

    def work(api: k8s.ApiClient, kubeconfig: Path) -> None:
        for count in opts.count or [100]:
            run(api, kubeconfig, count, opts.workers, opts.auth)

    on_cluster(work, finalizer_policy=opts.finalizer_policy)
    return 0


if __name__ == "__main__":
    sys.exit(main())
