"""Scale-out: N HelmRequests spread over R shards (``sharding.helm.sh/key=shardK``), one
``helm-operator run --selector`` replica per shard, on the local control plane. Prints the time
until all are Ready, apply->Ready p50/p95, peak RSS and CPU per replica, and what one request
costs the API server: requests by verb (``apiserver_request_total``) and the bytes it stores
(live objects in the namespace, and the growth of etcd's database).

    python bench/scale.py --count 3000 --shards 3 [--workers 16] [--interval 60]

With ``--interval S`` the requests get ``spec.interval: Ss`` and, once all are Ready, the API
requests of 2 intervals of idle checks are counted too (the steady-state cost).

``--auth serviceaccount`` (the default) runs the replicas as the controller's ServiceAccount
with a token, as in a cluster; ``--auth admin`` with the admin kubeconfig's client certificate
(which the API server verifies on every request: 8-9% of its CPU in a profile).

Goal (issue 17): 3000 requests over 3 shards Ready within 120 s on a 2-core machine, <= 200 MB
RSS per replica. Uses ``HELM_CONTROLLER_E2E_KUBECONFIG`` when set, else starts its own cluster.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import controller as bench  # noqa: E402  (bench/controller.py: namespace, replicas, polling)
from kubernetes import client as k8s  # noqa: E402

from helm_operator import settings  # noqa: E402

SHARD_KEY = "sharding.helm.sh/key"
REQUESTS_LINE = re.compile(r'^apiserver_request_total\{(?P<labels>[^}]*)\} (?P<value>\S+)$', re.M)
STORAGE_LINE = re.compile(r'^apiserver_storage_size_bytes(?:\{[^}]*\})? (?P<value>\S+)$', re.M)
#: Kinds whose objects a request leaves in its namespace (stored in etcd).
STORED = [("v1", "secrets"), ("v1", "configmaps"), ("v1", "events"), ("helm.sh/v1alpha1", "releases"),
          ("helm.sh/v1alpha1", "helmrequests"), ("coordination.k8s.io/v1", "leases")]


def server_metrics(api: k8s.ApiClient) -> str:
    response = api.call_api(*api.param_serialize("GET", "/metrics", auth_settings=["BearerToken"]))
    return response.read().decode()


def requests_by_verb(text: str, *, by_resource: bool = False) -> Counter[str]:
    """``apiserver_request_total`` summed by verb (``by_resource``: by verb, resource and
    subresource, e.g. ``APPLY helmrequests/status``)."""
    counts: Counter[str] = Counter()
    for match in REQUESTS_LINE.finditer(text):
        labels = dict(re.findall(r'(\w+)="([^"]*)"', match["labels"]))
        key = labels.get("verb", "?")
        if by_resource:
            sub = labels.get("subresource", "")
            key += f" {labels.get('resource', '?')}" + (f"/{sub}" if sub else "")
        counts[key] += int(float(match["value"]))
    return counts


def storage_bytes(text: str) -> int:
    return sum(int(float(m["value"])) for m in STORAGE_LINE.finditer(text))


def stored_bytes(api: k8s.ApiClient, ns: str) -> int:
    """JSON size of every object the requests left in ``ns`` (what etcd keeps, protobuf aside)."""
    total = 0
    for api_version, plural in STORED:
        prefix = "/api/v1" if api_version == "v1" else f"/apis/{api_version}"
        response = api.call_api(*api.param_serialize("GET", f"{prefix}/namespaces/{ns}/{plural}",
                                                     auth_settings=["BearerToken"]))
        total += sum(len(json.dumps(item)) for item in json.loads(response.read())["items"])
    return total


def control_plane(kubeconfig: Path) -> dict[str, int]:
    """The pids of the cluster's API server and etcd (their command lines name the cluster's
    directory, the kubeconfig's)."""
    found: dict[str, int] = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        name = Path(argv[0].decode(errors="replace")).name
        if name in ("kube-apiserver", "etcd") and str(kubeconfig.parent).encode() in b" ".join(argv):
            found[name] = int(proc.name)
    return found


def run(api: k8s.ApiClient, kubeconfig: Path, count: int, shards: int, workers: int,
        interval_s: int, auth: str) -> None:
    objects = k8s.CustomObjectsApi(api)
    ns = bench.setup_namespace(api, f"scale-{count}")
    print(bench.describe_auth(auth), flush=True)
    replica_config = bench.replica_kubeconfig(api, kubeconfig, auth)
    replicas = [bench.Replica(replica_config, ["-n", ns, "--workers", str(workers),
                                           "--selector", f"{SHARD_KEY}=shard{k}"]) for k in range(shards)]
    time.sleep(3)
    cpu0 = [r.cpu() for r in replicas]
    workers_cpu0 = [r.workers_cpu() for r in replicas]
    servers = control_plane(kubeconfig)
    server_cpu0 = {name: bench.cpu_seconds(pid) for name, pid in servers.items()}
    load0 = Path("/proc/loadavg").read_text().split()[0]
    before = server_metrics(api)
    start = time.monotonic()
    created = bench.create_requests(objects, ns, count, lambda i: {SHARD_KEY: f"shard{i % shards}"},
                                    {"interval": f"{interval_s}s"} if interval_s else None)
    applied = time.monotonic() - start
    ready = bench.wait_ready(objects, ns, count, start)
    total = time.monotonic() - start
    server_cpu = {name: bench.cpu_seconds(pid) - server_cpu0[name] for name, pid in servers.items()}
    load1 = Path("/proc/loadavg").read_text().split()[0]
    after = server_metrics(api)
    print(f"N={count} shards={shards} workers={workers}: applied in {applied:.1f}s; "
          f"{len(ready)}/{count} Ready in {total:.1f}s; {bench.percentiles(created, ready)}", flush=True)
    for k, (replica, cpu, workers_cpu) in enumerate(zip(replicas, cpu0, workers_cpu0, strict=True)):
        print(f"    shard{k}: peak RSS {replica.peak_rss_mb:.0f} MB "
              f"(its render workers {replica.peak_workers_mb:.0f} MB), "
              f"CPU {replica.cpu() - cpu:.1f}s (its render workers {replica.workers_cpu() - workers_cpu:.1f}s); "
              f"per request {(replica.cpu() - cpu) / count * shards * 1000:.0f} ms", flush=True)
    print("    control plane CPU: " + ", ".join(f"{name} {cpu:.1f}s" for name, cpu in sorted(server_cpu.items()))
          + f" ({server_cpu.get('kube-apiserver', 0.0) / count * 1000:.0f} ms of API server per request)"
          + f"; load average {load0} at the start, {load1} at the end", flush=True)
    calls = requests_by_verb(after) - requests_by_verb(before)
    per = ", ".join(f"{verb} {n / count:.1f}" for verb, n in calls.most_common())
    print(f"    API requests per HelmRequest: {sum(calls.values()) / count:.1f} ({per})", flush=True)
    detail = requests_by_verb(after, by_resource=True) - requests_by_verb(before, by_resource=True)
    print("    by resource: " + ", ".join(f"{key} {n / count:.2f}" for key, n in detail.most_common()
                                          if n / count >= 0.05), flush=True)
    print(f"    stored per HelmRequest: {stored_bytes(api, ns) / count / 1024:.1f} KiB of objects; "
          f"etcd database grew {(storage_bytes(after) - storage_bytes(before)) / count / 1024:.1f} KiB",
          flush=True)
    if interval_s:
        steady = server_metrics(api)
        cpu1 = [r.cpu() for r in replicas]
        time.sleep(2 * interval_s)
        checks = requests_by_verb(server_metrics(api)) - requests_by_verb(steady)
        per = ", ".join(f"{verb} {n / count / 2:.1f}" for verb, n in checks.most_common())
        print(f"    idle, spec.interval {interval_s}s: API requests per interval check "
              f"{sum(checks.values()) / count / 2:.1f} ({per}); replica CPU "
              + ", ".join(f"{(r.cpu() - c) / (2 * interval_s) * 100:.0f}%"
                          for r, c in zip(replicas, cpu1, strict=True)),
              flush=True)
    print(f"    cleanup (uninstall of {count}) took {bench.delete_namespace(k8s.CoreV1Api(api), ns):.1f}s",
          flush=True)
    for replica in replicas:
        replica.stop()


def main() -> int:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--count", type=int, action="append")
    args.add_argument("--shards", type=int, default=3)
    args.add_argument("--workers", type=int, default=settings.DEFAULT_WORKERS)
    args.add_argument("--interval", type=int, default=0, help="spec.interval in seconds (0: default)")
    bench.add_auth_flag(args)
    bench.add_finalizer_flag(args)
    opts = args.parse_args()

    def work(api: k8s.ApiClient, kubeconfig: Path) -> None:
        for count in opts.count or [300]:
            run(api, kubeconfig, count, opts.shards, opts.workers, opts.interval, opts.auth)

    bench.on_cluster(work, finalizer_policy=opts.finalizer_policy)
    return 0


if __name__ == "__main__":
    sys.exit(main())
