"""Generated credentials: one CA signs a serving cert valid for every API server name and the
client certs carry the identities RBAC's bootstrap policy expects."""
from __future__ import annotations

import ipaddress
from pathlib import Path

import pytest
import yaml
from cryptography import x509
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from e2e.cluster import kubeconfig, pki


@pytest.fixture(scope="module")
def credentials(tmp_path_factory: pytest.TempPathFactory) -> pki.Pki:
    return pki.write(tmp_path_factory.mktemp("pki"))


def load(path: Path) -> x509.Certificate:
    return x509.load_pem_x509_certificate(path.read_bytes())


@pytest.mark.parametrize("stem", ["apiserver", "admin", "controller-manager", "scheduler"])
def test_every_certificate_is_signed_by_the_ca(credentials: pki.Pki, stem: str) -> None:
    load(credentials.cert(stem)).verify_directly_issued_by(load(credentials.ca_cert))


def test_front_proxy_client_is_signed_by_its_own_ca(credentials: pki.Pki) -> None:
    client = load(credentials.cert(pki.FRONT_PROXY_CLIENT))
    client.verify_directly_issued_by(load(credentials.cert("front-proxy-ca")))
    assert client.subject.rfc4514_string() == "CN=front-proxy-client"
    with pytest.raises(ValueError):
        client.verify_directly_issued_by(load(credentials.ca_cert))


def test_serving_certificate_covers_every_api_server_name(credentials: pki.Pki) -> None:
    names = load(credentials.cert("apiserver")).extensions.get_extension_for_class(
        x509.SubjectAlternativeName).value
    assert names.get_values_for_type(x509.DNSName) == list(pki.API_SERVER_DNS_NAMES)
    assert names.get_values_for_type(x509.IPAddress) == [
        ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("10.96.0.1")]


@pytest.mark.parametrize(
    ("stem", "user", "groups"),
    [
        pytest.param("admin", "kubernetes-admin", ["system:masters"], id="admin"),
        pytest.param("controller-manager", "system:kube-controller-manager", [], id="kcm"),
        pytest.param("scheduler", "system:kube-scheduler", [], id="scheduler"),
    ],
)
def test_client_certificates_carry_kubeadm_identities(credentials: pki.Pki, stem: str,
                                                      user: str, groups: list[str]) -> None:
    cert = load(credentials.cert(stem))
    assert [a.value for a in cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)] == [user]
    assert [a.value for a in cert.subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)] \
        == groups
    usage = cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    assert list(usage) == [ExtendedKeyUsageOID.CLIENT_AUTH]


def test_private_keys_are_readable_by_the_owner_only(credentials: pki.Pki) -> None:
    assert credentials.key("ca").stat().st_mode & 0o777 == 0o600


def test_kubeconfig_embeds_the_admin_credentials(credentials: pki.Pki, tmp_path: Path) -> None:
    path = kubeconfig.write(tmp_path / "kubeconfig", server="https://127.0.0.1:6443",
                            pki=credentials, user="admin")
    config = yaml.safe_load(path.read_text())
    assert config["current-context"] == "e2e"
    assert config["clusters"][0]["cluster"]["server"] == "https://127.0.0.1:6443"
    assert set(config["users"][0]["user"]) == {"client-certificate-data", "client-key-data"}
    assert path.stat().st_mode & 0o777 == 0o600
