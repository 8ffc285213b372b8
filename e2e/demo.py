"""The README's main command: everything running locally, end to end (``python -m e2e.demo``,
run from the checkout's root by ``scripts/demo``).

Steps: build or reuse the local control plane (``e2e.cluster``), start it, install the CRDs and
the controller's namespace, ServiceAccount and RBAC from ``deploy/``, start ``helm-operator run``
as a real process acting as that ServiceAccount (a token kubeconfig: the controller gets only what
``deploy/rbac.yaml`` grants), apply ``examples/quickstart/``, wait for Ready and print
``kubectl get hreq,releases -A`` and the release's objects. Ctrl-C stops everything.

Lives in ``e2e/``, not in the installed package: it needs the source checkout (``e2e/cluster``,
``deploy/``, ``examples/``), which ``python -m`` from the root puts on ``sys.path``.
"""
from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from e2e.cluster import harness, tools

ROOT = Path(__file__).resolve().parents[1]
DEPLOY_FILES = ("namespace.yaml", "serviceaccount.yaml", "rbac.yaml", "user-roles.yaml")
CONTROLLER_NS, CONTROLLER_SA = "helm-operator-system", "helm-operator"
READY_TIMEOUT_S = 120
TOKEN_DURATION = "24h"


def step(text: str) -> None:
    print(f"==> {text}", file=sys.stderr, flush=True)


def kubectl(kubeconfig: Path, *args: str, capture: bool = False) -> str:
    result = subprocess.run(["kubectl", f"--kubeconfig={kubeconfig}", *args], text=True,
                            capture_output=capture, check=False)
    if result.returncode != 0:
        raise SystemExit(f"kubectl {' '.join(args)} failed:\n{result.stderr if capture else ''}")
    return result.stdout if capture else ""


def controller_kubeconfig(admin: Path, folder: Path) -> Path:
    """A kubeconfig authenticating as the controller's ServiceAccount (a bound token)."""
    token = kubectl(admin, "create", "token", CONTROLLER_SA, "-n", CONTROLLER_NS,
                    f"--duration={TOKEN_DURATION}", capture=True).strip()
    config = yaml.safe_load(admin.read_text())
    cluster = config["clusters"][0]
    out = {"apiVersion": "v1", "kind": "Config", "clusters": [cluster],
           "users": [{"name": CONTROLLER_SA, "user": {"token": token}}],
           "contexts": [{"name": "controller", "context": {"cluster": cluster["name"], "user": CONTROLLER_SA}}],
           "current-context": "controller"}
    path = folder / "controller.kubeconfig"
    path.write_text(yaml.safe_dump(out))
    path.chmod(0o600)
    return path


def main(argv: list[str] | None = None) -> int:
    args = argparse.ArgumentParser(prog="python -m e2e.demo", description=__doc__.splitlines()[0])
    args.add_argument("--exit", action="store_true", help="stop everything once Ready instead of waiting for Ctrl-C")
    opts = args.parse_args(argv)
    if not shutil.which("kubectl"):
        print("the demo needs kubectl on PATH", file=sys.stderr)
        return 2

    step("building or reusing the control plane binaries (first run: several minutes)")
    if tools.missing_binaries(tools.bin_dir()):
        tools.build(out=lambda line: print(f"    {line}", file=sys.stderr, flush=True))
    step("starting the local control plane (etcd, kube-apiserver, controllers, kwok nodes)")
    cluster = harness.LocalCluster.start()
    work = Path(tempfile.mkdtemp(prefix="helm-operator-demo-"))
    controller: subprocess.Popen[bytes] | None = None
    try:
        admin = cluster.kubeconfig
        print(f"    API server {cluster.server}; export KUBECONFIG={admin}", file=sys.stderr)
        step("installing the CRDs (manifests/crds/) and the controller's RBAC (deploy/)")
        kubectl(admin, "apply", "-f", str(ROOT / "manifests" / "crds"))
        for name in DEPLOY_FILES:
            kubectl(admin, "apply", "-f", str(ROOT / "deploy" / name))
        kubectl(admin, "wait", "--for=condition=Established", "crd/helmrequests.helm.sh", "--timeout=60s")
        step(f"starting the controller as ServiceAccount {CONTROLLER_NS}/{CONTROLLER_SA} "
             f"(log: {work / 'controller.log'})")
        env = dict(os.environ, KUBECONFIG=str(controller_kubeconfig(admin, work)))
        with open(work / "controller.log", "wb") as log:
            controller = subprocess.Popen(
                [sys.executable, "-m", "helm_operator", "run", "--probe-port", "0", "--metrics-port", "0",
                 "--cache-dir", str(work / "cache")], stdout=log, stderr=subprocess.STDOUT, env=env)
        step("applying examples/quickstart/ (namespace, deployer ServiceAccount + Role, chart ConfigMap, HelmRequest)")
        kubectl(admin, "apply", "-f", str(ROOT / "examples" / "quickstart" / "00-namespace.yaml"))
        kubectl(admin, "apply", "-f", str(ROOT / "examples" / "quickstart"))
        step("waiting for the HelmRequest to be Ready")
        started = time.monotonic()
        result = subprocess.run(["kubectl", f"--kubeconfig={admin}", "wait", "--for=condition=Ready",
                                 "hreq/hello", "-n", "quickstart", f"--timeout={READY_TIMEOUT_S}s"],
                                text=True, capture_output=True)
        if result.returncode != 0:
            print(result.stderr, file=sys.stderr)
            print((work / "controller.log").read_text()[-4000:], file=sys.stderr)
            return 1
        step(f"Ready in {time.monotonic() - started:.1f}s")
        print(kubectl(admin, "get", "hreq,releases", "-A", capture=True))
        print(kubectl(admin, "get", "deployments,services,configmaps,secrets", "-n", "quickstart", capture=True))
        if opts.exit:
            return 0
        step("running; try: kubectl edit hreq hello -n quickstart   (Ctrl-C stops everything)")
        signal.signal(signal.SIGTERM, signal.default_int_handler)
        while controller.poll() is None:
            time.sleep(1)
        print((work / "controller.log").read_text()[-4000:], file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    finally:
        step("stopping the controller and the control plane")
        if controller is not None and controller.poll() is None:
            controller.terminate()
            try:
                controller.wait(timeout=15)
            except subprocess.TimeoutExpired:
                controller.kill()
        cluster.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
