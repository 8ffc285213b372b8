"""What the requester stamp costs a HelmRequest write: create latency with no stamp, with the
MutatingAdmissionPolicy, and with the controller's webhook (served in this process over TLS).

Usage: ``python bench/requester.py --kubeconfig PATH [--writes N]`` against a running cluster
(``python -m e2e.cluster up``). Creates are server-side dry runs (they pass admission, store
nothing). Prints the median and 95th percentile per way, in milliseconds. Leaves the cluster
as it found it, except that deploy/requester/policy.yaml is removed at the end.
"""
from __future__ import annotations

import argparse
import base64
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "operator"))

from kubernetes import client as k8s  # noqa: E402
from kubernetes import config as k8s_config  # noqa: E402

from e2e import requester_kit  # noqa: E402
from e2e.operator_kit import free_port  # noqa: E402
from helm_operator import admission  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
POLICY = ROOT / "deploy" / "requester" / "policy.yaml"


def timings(objects: k8s.CustomObjectsApi, namespace: str, writes: int, stamped: bool) -> list[float]:
    out = []
    for i in range(writes + 5):
        body = {"apiVersion": "helm.sh/v1alpha1", "kind": "HelmRequest",
                "metadata": {"name": f"bench-{i}", "namespace": namespace},
                "spec": {"chart": {"configMapRef": {"name": "chart"}}}}
        start = time.perf_counter()
        stored = objects.create_namespaced_custom_object("helm.sh", "v1alpha1", namespace, "helmrequests",
                                                         body, dry_run="All")
        elapsed = (time.perf_counter() - start) * 1000
        if ("requester" in stored) != stamped:
            raise SystemExit(f"stamp {'missing' if stamped else 'present'}: admission not as expected yet")
        if i >= 5:  # warm-up
            out.append(elapsed)
    return out


def settle(objects: k8s.CustomObjectsApi, namespace: str, stamped: bool) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            timings(objects, namespace, 1, stamped)
            return
        except SystemExit:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--kubeconfig", required=True)
    parser.add_argument("--writes", type=int, default=200)
    args = parser.parse_args()
    kubectl = ["kubectl", f"--kubeconfig={args.kubeconfig}"]
    api = k8s_config.new_client_from_config(config_file=args.kubeconfig)
    objects = k8s.CustomObjectsApi(api)
    subprocess.run([*kubectl, "apply", "-f", str(ROOT / "manifests" / "crds" / "helmrequest.yaml")], check=True,
                   capture_output=True)
    namespace = f"bench-requester-{secrets.token_hex(3)}"
    k8s.CoreV1Api(api).create_namespace({"metadata": {"name": namespace}})
    results: dict[str, list[float]] = {}
    try:
        subprocess.run([*kubectl, "delete", "-f", str(POLICY), "--ignore-not-found"], check=True, capture_output=True)
        settle(objects, namespace, stamped=False)
        results["no stamp"] = timings(objects, namespace, args.writes, stamped=False)
        subprocess.run([*kubectl, "apply", "-f", str(POLICY)], check=True, capture_output=True)
        settle(objects, namespace, stamped=True)
        results["MutatingAdmissionPolicy"] = timings(objects, namespace, args.writes, stamped=True)
        subprocess.run([*kubectl, "delete", "-f", str(POLICY)], check=True, capture_output=True)
        with tempfile.TemporaryDirectory() as tmp:
            ca = requester_kit.serving_certificate(Path(tmp))
            port = free_port()
            server = admission.serve(port, cert_dir=Path(tmp), host="127.0.0.1")
            name = f"bench-requester-{secrets.token_hex(3)}"
            hooks = k8s.AdmissionregistrationV1Api(api)
            hooks.create_mutating_webhook_configuration({"metadata": {"name": name}, "webhooks": [{
                "name": "requester.helm.sh",
                "clientConfig": {"url": f"https://127.0.0.1:{port}{admission.PATH}",
                                 "caBundle": base64.b64encode(ca).decode()},
                "rules": [{"apiGroups": ["helm.sh"], "apiVersions": ["*"], "operations": ["CREATE", "UPDATE"],
                           "resources": ["helmrequests"]}],
                "failurePolicy": "Fail", "sideEffects": "None", "admissionReviewVersions": ["v1"]}]})
            try:
                settle(objects, namespace, stamped=True)
                results["webhook (this process)"] = timings(objects, namespace, args.writes, stamped=True)
            finally:
                hooks.delete_mutating_webhook_configuration(name)
                server.shutdown()
    finally:
        k8s.CoreV1Api(api).delete_namespace(namespace)
    print(f"HelmRequest create (server-side dry run), {args.writes} writes each:")
    for way, values in results.items():
        values.sort()
        print(f"  {way:26s} median {statistics.median(values):6.2f} ms   "
              f"p95 {values[int(len(values) * 0.95) - 1]:6.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
