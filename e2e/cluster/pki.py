"""Certificates and keys for one local control plane, made with ``cryptography``.

Rules:
- One self-signed CA signs everything: the API server's serving certificate and the client
  certificates of the admin, the controller-manager and the scheduler. The API server trusts
  that CA for client certificates (``--client-ca-file``) and the controller-manager signs CSRs
  with it, as kubeadm sets things up.
- Keys are ECDSA P-256: the API server accepts them everywhere (serving, client, service-account
  tokens signed ES256) and they are generated in microseconds, which keeps start-up fast.
- Identities follow kubeadm's: the admin is ``kubernetes-admin`` in ``system:masters``; the
  controllers use ``system:kube-controller-manager`` and ``system:kube-scheduler``, which the
  API server's bootstrap RBAC policy already binds.
- A second CA, ``front-proxy-ca``, signs the ``front-proxy-client`` certificate the API server
  presents to aggregated API servers (the aggregation layer); components read it to trust
  request-header authentication, as in kubeadm.
- Certificates are valid for ``VALIDITY`` from one hour in the past (clock skew).
"""
from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

VALIDITY = datetime.timedelta(days=365)
BACKDATE = datetime.timedelta(hours=1)
SERVICE_CLUSTER_IP_RANGE = "10.96.0.0/12"
KUBERNETES_SERVICE_IP = "10.96.0.1"
"""The first address of the service range: the ``kubernetes`` Service's ClusterIP."""
API_SERVER_DNS_NAMES = (
    "localhost",
    "kubernetes",
    "kubernetes.default",
    "kubernetes.default.svc",
    "kubernetes.default.svc.cluster.local",
)
API_SERVER_IPS = ("127.0.0.1", KUBERNETES_SERVICE_IP)
ADMIN_USER = "kubernetes-admin"
ADMIN_GROUP = "system:masters"
CLIENTS = {
    "admin": (ADMIN_USER, (ADMIN_GROUP,)),
    "controller-manager": ("system:kube-controller-manager", ()),
    "scheduler": ("system:kube-scheduler", ()),
}
"""Client certificate file stem -> (common name, organisations)."""


@dataclass(frozen=True)
class Pki:
    """Paths of the PEM files ``write`` produced; keys and certs are named ``<stem>.key/.crt``."""

    directory: Path

    def cert(self, stem: str) -> Path:
        return self.directory / f"{stem}.crt"

    def key(self, stem: str) -> Path:
        return self.directory / f"{stem}.key"

    @property
    def ca_cert(self) -> Path:
        return self.cert("ca")

    @property
    def service_account_key(self) -> Path:
        """Private key signing service-account tokens (``--service-account-signing-key-file``)."""
        return self.key("sa")

    @property
    def service_account_public_key(self) -> Path:
        return self.directory / "sa.pub"


FRONT_PROXY_CLIENT = "front-proxy-client"


def write(directory: Path) -> Pki:
    """Generate the CAs, the API server, client and service-account keys into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    pki = Pki(directory)
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key, ca_cert = _authority(pki, "ca", "helm-controller-e2e-ca", now)
    server_names: list[x509.GeneralName] = [x509.DNSName(name) for name in API_SERVER_DNS_NAMES]
    server_names += [x509.IPAddress(ipaddress.ip_address(ip)) for ip in API_SERVER_IPS]
    _issue(pki, "apiserver", "kube-apiserver", (), ca_key, ca_cert, now,
           usage=ExtendedKeyUsageOID.SERVER_AUTH, names=server_names)
    for stem, (common_name, organisations) in CLIENTS.items():
        _issue(pki, stem, common_name, organisations, ca_key, ca_cert, now,
               usage=ExtendedKeyUsageOID.CLIENT_AUTH, names=[])
    proxy_key, proxy_cert = _authority(pki, "front-proxy-ca", "helm-controller-e2e-front-proxy",
                                       now)
    _issue(pki, FRONT_PROXY_CLIENT, FRONT_PROXY_CLIENT, (), proxy_key, proxy_cert, now,
           usage=ExtendedKeyUsageOID.CLIENT_AUTH, names=[])

    sa_key = ec.generate_private_key(ec.SECP256R1())
    pki.service_account_key.write_bytes(_private_pem(sa_key))
    pki.service_account_public_key.write_bytes(sa_key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    return pki


def _authority(pki: Pki, stem: str, common_name: str, now: datetime.datetime
               ) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    ca_cert = (
        _builder(ca_name, ca_name, ca_key.public_key(), now)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                          content_commitment=False, key_encipherment=False,
                          data_encipherment=False, key_agreement=False,
                          encipher_only=False, decipher_only=False),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()),
                       critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    _write_pair(pki, stem, ca_key, ca_cert)
    return ca_key, ca_cert


def _builder(subject: x509.Name, issuer: x509.Name, public_key: ec.EllipticCurvePublicKey,
             now: datetime.datetime) -> x509.CertificateBuilder:
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - BACKDATE)
        .not_valid_after(now + VALIDITY)
    )


def _issue(pki: Pki, stem: str, common_name: str, organisations: tuple[str, ...],
           ca_key: ec.EllipticCurvePrivateKey, ca_cert: x509.Certificate,
           now: datetime.datetime, *, usage: x509.ObjectIdentifier,
           names: list[x509.GeneralName]) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    attributes = [x509.NameAttribute(NameOID.ORGANIZATION_NAME, org) for org in organisations]
    attributes.append(x509.NameAttribute(NameOID.COMMON_NAME, common_name))
    builder = (
        _builder(x509.Name(attributes), ca_cert.subject, key.public_key(), now)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(digital_signature=True, key_encipherment=False, key_cert_sign=False,
                          crl_sign=False, content_commitment=False, data_encipherment=False,
                          key_agreement=False, encipher_only=False, decipher_only=False),
            critical=True,
        )
        .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
                       critical=False)
    )
    if names:
        builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
    _write_pair(pki, stem, key, builder.sign(ca_key, hashes.SHA256()))


def _private_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _write_pair(pki: Pki, stem: str, key: ec.EllipticCurvePrivateKey,
                cert: x509.Certificate) -> None:
    pki.key(stem).write_bytes(_private_pem(key))
    pki.key(stem).chmod(0o600)
    pki.cert(stem).write_bytes(cert.public_bytes(serialization.Encoding.PEM))
