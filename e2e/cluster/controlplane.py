"""Start and stop etcd, the API server, controller-manager, scheduler and kwok on loopback.

Rules:
- Everything listens on 127.0.0.1 on ports free at start, so clusters can run side by side.
- etcd speaks plain HTTP on loopback only, with fsync off: it is a throw-away test store.
- The API server authorises with ``Node,RBAC``, trusts the generated CA for client certificates
  and signs service-account tokens with the generated key; the controller-manager runs every
  default controller (garbage collector, namespaces, service accounts, PV binder, ...) with
  per-controller service-account credentials, as kubeadm runs it.
- Start order is etcd, API server (waits for ``/readyz``), then controller-manager, scheduler and
  kwok together; stop order is the reverse. A component that exits early or misses its deadline
  raises ``ComponentError`` naming it, with the end of its log.
- The API server writes an audit log (``logs/audit.log``, JSON lines, metadata level) of the
  requests of one user only, ``AUDITED_USER`` (the controller's ServiceAccount from
  ``deploy/``): tests and benches running the controller as that account list every request it
  makes (``e2e/test_operator_requests.py``); nobody else's requests cost an audit event.
"""
from __future__ import annotations

import json
import ssl
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from e2e.cluster import errors, kubeconfig, pki, processes

READY_TIMEOUT_S = 60.0
"""Deadline for one component to answer its health endpoint (cold disk caches are slow)."""
POLL_S = 0.1
KWOK_NODE_SELECTOR = "kwok.x-k8s.io/node=fake"
"""Annotation that marks the nodes kwok manages (set on every fake node)."""
KWOK_NODE_LEASE_S = 40
"""Node lease duration kwok renews, the value ``kwokctl`` uses."""
ETCD_QUOTA_BYTES = 2 * 1024**3
POD_CIDR = "10.244.0.0/16"
AUDITED_USER = "system:serviceaccount:helm-operator-system:helm-operator"
"""The one user whose requests the API server's audit log records."""
AUDIT_LOG = Path("logs") / "audit.log"
"""The audit log, relative to the cluster's directory (its kubeconfig's folder)."""


@dataclass(frozen=True)
class Ports:
    """The loopback ports one cluster uses."""

    etcd_client: int
    etcd_peer: int
    apiserver: int
    controller_manager: int
    scheduler: int
    kwok: int

    @classmethod
    def allocate(cls) -> Ports:
        return cls(*processes.free_ports(6))


@dataclass
class ControlPlane:
    """The processes of one cluster rooted at ``directory`` (pki/, etcd/, logs/, kubeconfig)."""

    directory: Path
    bin_dir: Path
    ports: Ports
    components: list[processes.Component] = field(default_factory=list)
    die_with_parent: bool = True
    timings: dict[str, float] = field(default_factory=dict)
    """Seconds from ``start`` until each component answered its health check."""

    @property
    def kubeconfig(self) -> Path:
        return self.directory / "kubeconfig"

    @property
    def server(self) -> str:
        return f"https://127.0.0.1:{self.ports.apiserver}"

    @property
    def pki(self) -> pki.Pki:
        return pki.Pki(self.directory / "pki")

    def start(self) -> None:
        """Generate credentials, start every component in order and wait until each is ready."""
        began = time.monotonic()
        credentials = pki.write(self.directory / "pki")
        for stem in ("admin", "controller-manager", "scheduler"):
            kubeconfig.write(self._kubeconfig_for(stem), server=self.server, pki=credentials,
                             user=stem)
        self._spawn("etcd", self._etcd_argv())
        (self.directory / "audit-policy.yaml").write_text(json.dumps(_audit_policy()))
        self._spawn("kube-apiserver", self._apiserver_argv(credentials))
        self._wait_https("kube-apiserver", f"{self.server}/readyz", self._admin_tls())
        self.timings["kube-apiserver"] = time.monotonic() - began
        self._spawn("kube-controller-manager", self._controller_manager_argv(credentials))
        self._spawn("kube-scheduler", self._scheduler_argv())
        self._spawn("kwok", self._kwok_argv())
        insecure = ssl.create_default_context()
        insecure.check_hostname = False
        insecure.verify_mode = ssl.CERT_NONE
        self._wait_https("kube-controller-manager",
                         f"https://127.0.0.1:{self.ports.controller_manager}/healthz", insecure)
        self._wait_https("kube-scheduler",
                         f"https://127.0.0.1:{self.ports.scheduler}/healthz", insecure)
        self._wait_http("kwok", f"http://127.0.0.1:{self.ports.kwok}/healthz")
        self.timings["controllers"] = time.monotonic() - began

    def stop(self) -> None:
        """Stop every component, newest first; safe to call twice."""
        while self.components:
            processes.stop(self.components.pop())

    def check_alive(self) -> None:
        """Raise ``ComponentError`` for the first component that has exited."""
        for component in self.components:
            if not component.alive():
                raise errors.ComponentError(
                    component.name, f"exited with status {component.process.returncode}",
                    component.log_tail())

    def pids(self) -> dict[str, int]:
        return {component.name: component.pid for component in self.components}

    def _kubeconfig_for(self, stem: str) -> Path:
        return self.kubeconfig if stem == "admin" else self.directory / f"{stem}.kubeconfig"

    def _spawn(self, name: str, argv: list[str]) -> None:
        self.components.append(processes.spawn(
            name, argv, log_path=self.directory / "logs" / f"{name}.log", cwd=self.directory,
            die_with_parent=self.die_with_parent))

    def _component(self, name: str) -> processes.Component:
        return next(c for c in self.components if c.name == name)

    def _admin_tls(self) -> ssl.SSLContext:
        context = ssl.create_default_context(cafile=str(self.pki.ca_cert))
        context.load_cert_chain(str(self.pki.cert("admin")), str(self.pki.key("admin")))
        return context

    def _wait_https(self, name: str, url: str, context: ssl.SSLContext) -> None:
        self._wait(name, url, context)

    def _wait_http(self, name: str, url: str) -> None:
        self._wait(name, url, None)

    def _wait(self, name: str, url: str, context: ssl.SSLContext | None) -> None:
        component = self._component(name)
        deadline = time.monotonic() + READY_TIMEOUT_S
        last_error = "no answer"
        while time.monotonic() < deadline:
            if not component.alive():
                raise errors.ComponentError(
                    name, f"exited with status {component.process.returncode} before ready",
                    component.log_tail())
            try:
                with urllib.request.urlopen(url, timeout=2, context=context) as response:
                    if response.status == 200:
                        return
                    last_error = f"HTTP {response.status}"
            except urllib.error.HTTPError as exc:
                last_error = f"HTTP {exc.code}: {exc.read()[:300].decode(errors='replace')}"
            except (urllib.error.URLError, OSError) as exc:
                last_error = str(exc)
            time.sleep(POLL_S)
        raise errors.ComponentError(
            name, f"not ready after {READY_TIMEOUT_S:.0f}s at {url} ({last_error})",
            component.log_tail())

    def _etcd_argv(self) -> list[str]:
        peer = f"http://127.0.0.1:{self.ports.etcd_peer}"
        client = f"http://127.0.0.1:{self.ports.etcd_client}"
        return [
            str(self.bin_dir / "etcd"),
            "--name=e2e",
            f"--data-dir={self.directory / 'etcd'}",
            f"--listen-client-urls={client}",
            f"--advertise-client-urls={client}",
            f"--listen-peer-urls={peer}",
            f"--initial-advertise-peer-urls={peer}",
            f"--initial-cluster=e2e={peer}",
            "--initial-cluster-state=new",
            "--unsafe-no-fsync=true",
            f"--quota-backend-bytes={ETCD_QUOTA_BYTES}",
            "--log-level=warn",
        ]

    def _apiserver_argv(self, credentials: pki.Pki) -> list[str]:
        return [
            str(self.bin_dir / "kube-apiserver"),
            f"--etcd-servers=http://127.0.0.1:{self.ports.etcd_client}",
            "--bind-address=127.0.0.1",
            "--advertise-address=127.0.0.1",
            "--endpoint-reconciler-type=none",
            f"--secure-port={self.ports.apiserver}",
            f"--cert-dir={self.directory / 'pki'}",
            f"--tls-cert-file={credentials.cert('apiserver')}",
            f"--tls-private-key-file={credentials.key('apiserver')}",
            f"--client-ca-file={credentials.ca_cert}",
            f"--requestheader-client-ca-file={credentials.cert('front-proxy-ca')}",
            f"--requestheader-allowed-names={pki.FRONT_PROXY_CLIENT}",
            "--requestheader-username-headers=X-Remote-User",
            "--requestheader-group-headers=X-Remote-Group",
            "--requestheader-extra-headers-prefix=X-Remote-Extra-",
            f"--proxy-client-cert-file={credentials.cert(pki.FRONT_PROXY_CLIENT)}",
            f"--proxy-client-key-file={credentials.key(pki.FRONT_PROXY_CLIENT)}",
            f"--service-account-key-file={credentials.service_account_public_key}",
            f"--service-account-signing-key-file={credentials.service_account_key}",
            "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
            "--api-audiences=https://kubernetes.default.svc.cluster.local",
            f"--service-cluster-ip-range={pki.SERVICE_CLUSTER_IP_RANGE}",
            "--authorization-mode=Node,RBAC",
            "--allow-privileged=true",
            "--profiling=false",
            f"--audit-policy-file={self.directory / 'audit-policy.yaml'}",
            f"--audit-log-path={self.directory / AUDIT_LOG}",
            "--audit-log-format=json",
            "--v=1",
        ]

    def _controller_manager_argv(self, credentials: pki.Pki) -> list[str]:
        config = self._kubeconfig_for("controller-manager")
        return [
            str(self.bin_dir / "kube-controller-manager"),
            f"--kubeconfig={config}",
            f"--authentication-kubeconfig={config}",
            f"--authorization-kubeconfig={config}",
            "--bind-address=127.0.0.1",
            f"--secure-port={self.ports.controller_manager}",
            f"--root-ca-file={credentials.ca_cert}",
            f"--service-account-private-key-file={credentials.service_account_key}",
            f"--cluster-signing-cert-file={credentials.ca_cert}",
            f"--cluster-signing-key-file={credentials.key('ca')}",
            "--use-service-account-credentials=true",
            f"--service-cluster-ip-range={pki.SERVICE_CLUSTER_IP_RANGE}",
            f"--cluster-cidr={POD_CIDR}",
            "--allocate-node-cidrs=false",
            "--leader-elect=false",
            "--controllers=*,-nodeipam",
            "--profiling=false",
            "--v=1",
        ]

    def _scheduler_argv(self) -> list[str]:
        config = self._kubeconfig_for("scheduler")
        return [
            str(self.bin_dir / "kube-scheduler"),
            f"--kubeconfig={config}",
            f"--authentication-kubeconfig={config}",
            f"--authorization-kubeconfig={config}",
            "--bind-address=127.0.0.1",
            f"--secure-port={self.ports.scheduler}",
            "--leader-elect=false",
            "--profiling=false",
            "--v=1",
        ]

    def _kwok_argv(self) -> list[str]:
        return [
            str(self.bin_dir / "kwok"),
            f"--kubeconfig={self.kubeconfig}",
            f"--config={self.bin_dir / 'kwok-stages.yaml'}",
            "--manage-all-nodes=false",
            f"--manage-nodes-with-annotation-selector={KWOK_NODE_SELECTOR}",
            f"--server-address=127.0.0.1:{self.ports.kwok}",
            f"--node-lease-duration-seconds={KWOK_NODE_LEASE_S}",
            f"--cidr={POD_CIDR}",
            "--node-ip=127.0.0.1",
        ]


def state_json(plane: ControlPlane) -> str:
    """What ``status`` shows and ``down`` needs: ports, server, kubeconfig and process ids."""
    return json.dumps({
        "server": plane.server,
        "kubeconfig": str(plane.kubeconfig),
        "ports": plane.ports.__dict__,
        "pids": plane.pids(),
        "timings": {name: round(seconds, 2) for name, seconds in plane.timings.items()},
    }, indent=2)


def _audit_policy() -> dict[str, object]:
    """Metadata (verb, resource, name, namespace, code; no bodies) of ``AUDITED_USER``'s
    requests, once each (at their end), and nothing of anybody else's."""
    return {"apiVersion": "audit.k8s.io/v1", "kind": "Policy",
            "omitStages": ["RequestReceived", "ResponseStarted"],
            "rules": [{"level": "Metadata", "users": [AUDITED_USER]}, {"level": "None"}]}
