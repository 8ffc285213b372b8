"""Real users and a least-privilege controller for the requester-mode e2e tests.

- :func:`mint_user`: a user of the cluster the way Kubernetes makes them: a key, a
  CertificateSigningRequest for the ``kubernetes.io/kube-apiserver-client`` signer (subject CN =
  user name, O = groups), approved by the admin and signed by the controller-manager; the
  result is a kubeconfig with that client certificate (no impersonation involved).
- :func:`service_account_kubeconfig`: a kubeconfig holding a ServiceAccount token (TokenRequest),
  so the controller runs with exactly the RBAC deploy/ grants it, not as an admin.
"""
from __future__ import annotations

import base64
import time
from pathlib import Path
from typing import Any

import yaml
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException

SIGN_TIMEOUT_S = 60.0
CLIENT_SIGNER = "kubernetes.io/kube-apiserver-client"


def _admin_cluster(admin_kubeconfig: Path) -> dict[str, Any]:
    config = yaml.safe_load(admin_kubeconfig.read_text())
    current = next(c for c in config["contexts"] if c["name"] == config["current-context"])
    return next(c for c in config["clusters"] if c["name"] == current["context"]["cluster"])


def _kubeconfig(admin_kubeconfig: Path, path: Path, user: dict[str, Any]) -> Path:
    cluster = _admin_cluster(admin_kubeconfig)
    config = {"apiVersion": "v1", "kind": "Config",
              "clusters": [{"name": "e2e", "cluster": cluster["cluster"]}],
              "users": [{"name": "user", "user": user}],
              "contexts": [{"name": "e2e", "context": {"cluster": "e2e", "user": "user"}}],
              "current-context": "e2e"}
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    path.chmod(0o600)
    return path


def mint_user(api: k8s.ApiClient, admin_kubeconfig: Path, directory: Path, name: str,
              groups: tuple[str, ...] = ()) -> Path:
    """A kubeconfig authenticating as user ``name`` in ``groups`` by a client certificate."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = [x509.NameAttribute(NameOID.COMMON_NAME, name)]
    subject += [x509.NameAttribute(NameOID.ORGANIZATION_NAME, group) for group in groups]
    csr = (x509.CertificateSigningRequestBuilder().subject_name(x509.Name(subject))
           .sign(key, hashes.SHA256()))
    certificates = k8s.CertificatesV1Api(api)
    certificates.create_certificate_signing_request({
        "metadata": {"name": name},
        "spec": {"request": base64.b64encode(csr.public_bytes(serialization.Encoding.PEM)).decode(),
                 "signerName": CLIENT_SIGNER, "usages": ["client auth"],
                 "expirationSeconds": 3600}})
    current = certificates.read_certificate_signing_request(name)
    current.status.conditions = [k8s.V1CertificateSigningRequestCondition(
        type="Approved", status="True", reason="E2E", message="e2e test user")]
    certificates.replace_certificate_signing_request_approval(name, current)
    deadline = time.monotonic() + SIGN_TIMEOUT_S
    while True:
        signed = certificates.read_certificate_signing_request(name).status.certificate
        if signed:
            break
        if time.monotonic() > deadline:
            raise AssertionError(f"CSR {name} was not signed (is the controller-manager's "
                                 "csrsigning controller running?)")
        time.sleep(0.2)
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    return _kubeconfig(admin_kubeconfig, directory / f"{name}.kubeconfig", {
        "client-certificate-data": signed,
        "client-key-data": base64.b64encode(key_pem).decode()})


def service_account_kubeconfig(api: k8s.ApiClient, admin_kubeconfig: Path, path: Path,
                               namespace: str, name: str) -> Path:
    """A kubeconfig holding a one-hour token of ServiceAccount ``namespace/name``."""
    token = k8s.CoreV1Api(api).create_namespaced_service_account_token(
        name, namespace, {"spec": {"expirationSeconds": 3600}}).status.token
    return _kubeconfig(admin_kubeconfig, path, {"token": token})


def retry_forbidden(call: Any, timeout: float = 15.0) -> Any:
    """``call()``, retried while RBAC granted a moment ago has not reached the authorizer."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return call()
        except ApiException as exc:
            if exc.status != 403 or time.monotonic() > deadline:
                raise
            time.sleep(0.3)


def serving_certificate(directory: Path, ip: str = "127.0.0.1") -> bytes:
    """A self-signed serving certificate for ``ip`` written as ``tls.crt``/``tls.key`` in
    ``directory`` (what a ``kubernetes.io/tls`` Secret mounts); returns its PEM, the caBundle."""
    import datetime
    import ipaddress

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "helm-operator-admission")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(hours=2))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(ip))]),
                           critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    pem = cert.public_bytes(serialization.Encoding.PEM)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "tls.crt").write_bytes(pem)
    (directory / "tls.key").write_bytes(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    return pem
