"""Certificates and keys encoded without cryptography.x509 (issue 20): byte for byte what
``x509.CertificateBuilder`` and ``private_bytes`` write, and a render that makes TLS material
imports neither ``cryptography.x509`` nor ``serialization``."""
from __future__ import annotations

import datetime
import ipaddress
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import dsa, ec, ed25519, padding, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from helm_core.golib import asn1der, x509encode
from helm_core.golib.gotypes import FuncError
from helm_core.gotemplate.funcs import crypto
from tests.chartkit import chart_yaml, write_chart

NOW = datetime.datetime(2026, 11, 26, 9, 47, 30, 123456, tzinfo=datetime.UTC)
SERIAL = 0x8C3A_11F0_2B9D_4E55_0A1B_2C3D_4E5F_6071  # high bit set: DER needs a leading zero


@pytest.fixture(scope="module")
def keys() -> dict[str, Any]:
    return {"leaf": rsa.generate_private_key(65537, 2048), "ca": rsa.generate_private_key(65537, 2048),
            "ed25519": ed25519.Ed25519PrivateKey.generate()}


def builder_certificate(cn: str, ips: list[str], dns: list[str], days: int, key: Any, *, is_ca: bool,
                        issuer: x509.Certificate | None, issuer_key: Any, serial: int,
                        now: datetime.datetime) -> bytes:
    """The certificate as crypto.py built it with x509.CertificateBuilder (the reference)."""
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)] if cn else [])
    pub = key.public_key()
    builder = (
        x509.CertificateBuilder().serial_number(serial).subject_name(name)
        .issuer_name(issuer.subject if issuer is not None else name)
        .not_valid_before(now).not_valid_after(now + datetime.timedelta(days=days)).public_key(pub)
        .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=True,
                                     data_encipherment=False, key_agreement=False, key_cert_sign=is_ca,
                                     crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]),
                       critical=False)
        .add_extension(x509.BasicConstraints(ca=is_ca, path_length=None), critical=True)
    )
    if is_ca:
        builder = builder.add_extension(x509.SubjectKeyIdentifier.from_public_key(pub), critical=False)
    if issuer is not None:
        try:
            ski = issuer.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value
            builder = builder.add_extension(x509.AuthorityKeyIdentifier(ski.digest, None, None), critical=False)
        except x509.ExtensionNotFound:
            pass
    if ips or dns:
        names: list[x509.GeneralName] = [x509.DNSName(d) for d in dns]
        names += [x509.IPAddress(ipaddress.ip_address(ip)) for ip in ips]
        builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
    signer = issuer_key if issuer_key is not None else key
    algorithm = None if isinstance(signer, ed25519.Ed25519PrivateKey) else hashes.SHA256()
    return builder.sign(signer, algorithm).public_bytes(serialization.Encoding.DER)


def ours(cn: str, ips: list[str], dns: list[str], days: int, key: Any, *, is_ca: bool,
         ca: crypto.Certificate | None = None, now: datetime.datetime = NOW,
         serial: int = SERIAL) -> crypto.Certificate:
    issuer = crypto._signer(ca) if ca is not None else None
    return crypto._create(cn, list(ips), list(dns), days, key, is_ca=is_ca, issuer=issuer, serial=serial, now=now)


def der_of(cert: crypto.Certificate) -> bytes:
    return x509.load_pem_x509_certificate(cert.Cert.encode()).public_bytes(serialization.Encoding.DER)


SELF_SIGNED = [
    ("ca", "my-ca", [], [], 365, True),
    ("ca_empty_cn", "", [], [], 1, True),
    ("ca_utf8_cn", "caf\u00e9 \u00fcber-ca", [], [], 3650, True),
    ("ca_longest_cn_cryptography_takes", "n" * 64, [], [], 10, True),
    ("leaf_no_names", "svc", [], [], 30, False),
    ("leaf_dns_and_ips", "svc", ["10.0.0.1", "::1", "2001:db8::7"], ["svc", "svc.ns.svc.cluster.local"], 30, False),
    ("leaf_ips_only_empty_cn", "", ["192.168.1.20"], [], 1, False),
    ("leaf_dns_only", "x", [], ["a.example"] * 40, 0, False),
]


@pytest.mark.parametrize(("cn", "ips", "dns", "days", "is_ca"), [c[1:] for c in SELF_SIGNED],
                         ids=[c[0] for c in SELF_SIGNED])
def test_a_self_signed_certificate_is_the_builders(keys: dict[str, Any], cn: str, ips: list[str], dns: list[str],
                                                   days: int, is_ca: bool) -> None:
    made = ours(cn, ips, dns, days, keys["leaf"], is_ca=is_ca)
    assert der_of(made) == builder_certificate(cn, ips, dns, days, keys["leaf"], is_ca=is_ca, issuer=None,
                                               issuer_key=None, serial=SERIAL, now=NOW)


SIGNED = [
    ("plain", "svc", [], []),
    ("names", "my-release-nginx", ["10.1.2.3"], ["my-release-nginx", "my-release-nginx.default.svc"]),
    ("empty_cn", "", [], ["only.example"]),
]


@pytest.mark.parametrize(("cn", "ips", "dns"), [c[1:] for c in SIGNED], ids=[c[0] for c in SIGNED])
@pytest.mark.parametrize("ca_known_by", ["object", "text"])
def test_a_signed_certificate_is_the_builders(keys: dict[str, Any], cn: str, ips: list[str], dns: list[str],
                                              ca_known_by: str) -> None:
    ca = ours("the-ca", [], [], 365, keys["ca"], is_ca=True, serial=7)
    if ca_known_by == "text":
        ca = crypto.Certificate(ca.Cert, ca.Key)  # as buildCustomCert gives it: parsed with cryptography.x509
    made = ours(cn, ips, dns, 90, keys["leaf"], is_ca=False, ca=ca)
    assert der_of(made) == builder_certificate(
        cn, ips, dns, 90, keys["leaf"], is_ca=False, issuer=x509.load_pem_x509_certificate(ca.Cert.encode()),
        issuer_key=keys["ca"], serial=SERIAL, now=NOW)


def test_an_issuer_without_key_identifier_gives_no_authority_key_identifier(keys: dict[str, Any]) -> None:
    issuer = crypto.Certificate(ours("not-a-ca", [], [], 5, keys["ca"], is_ca=False).Cert,
                                crypto._pem_for_key(keys["ca"]))
    made = ours("svc", [], ["a"], 5, keys["leaf"], is_ca=False, ca=issuer)
    reference = builder_certificate("svc", [], ["a"], 5, keys["leaf"], is_ca=False, issuer_key=keys["ca"],
                                    issuer=x509.load_pem_x509_certificate(issuer.Cert.encode()), serial=SERIAL,
                                    now=NOW)
    assert der_of(made) == reference and b"\x55\x1d\x23" not in reference  # 2.5.29.35


@pytest.mark.parametrize(("now", "days"), [
    (datetime.datetime(2049, 12, 31, 23, 59, 59, tzinfo=datetime.UTC), 1),  # UTCTime, then GeneralizedTime
    (datetime.datetime(2050, 1, 1, tzinfo=datetime.UTC), 36500),  # GeneralizedTime both
    (datetime.datetime(1950, 1, 1, tzinfo=datetime.UTC), 10),  # UTCTime's first year
], ids=["utc_to_generalized", "generalized", "1950"])
def test_validity_times_follow_rfc_5280_as_the_builder(keys: dict[str, Any], now: datetime.datetime,
                                                       days: int) -> None:
    made = ours("t", [], [], days, keys["leaf"], is_ca=True, now=now, serial=1)
    assert der_of(made) == builder_certificate("t", [], [], days, keys["leaf"], is_ca=True, issuer=None,
                                               issuer_key=None, serial=1, now=now)


def test_serials_of_every_size_are_the_builders(keys: dict[str, Any]) -> None:
    for serial in (1, 127, 128, 255, 256, (1 << 128) - 1):
        made = ours("s", [], [], 1, keys["leaf"], is_ca=False, serial=serial)
        assert der_of(made) == builder_certificate("s", [], [], 1, keys["leaf"], is_ca=False, issuer=None,
                                                   issuer_key=None, serial=serial, now=NOW), serial


def test_ed25519_keys_sign_as_the_builder(keys: dict[str, Any]) -> None:
    """Ed25519 signatures are deterministic too: a self-signed Ed25519 CA, and an RSA leaf it signs."""
    ca = ours("ed-ca", [], [], 10, keys["ed25519"], is_ca=True)
    assert der_of(ca) == builder_certificate("ed-ca", [], [], 10, keys["ed25519"], is_ca=True, issuer=None,
                                             issuer_key=None, serial=SERIAL, now=NOW)
    leaf = ours("leaf", ["10.0.0.9"], ["leaf"], 10, keys["leaf"], is_ca=False, ca=ca)
    assert der_of(leaf) == builder_certificate(
        "leaf", ["10.0.0.9"], ["leaf"], 10, keys["leaf"], is_ca=False, issuer_key=keys["ed25519"],
        issuer=x509.load_pem_x509_certificate(ca.Cert.encode()), serial=SERIAL, now=NOW)


@pytest.mark.parametrize("make_key", [lambda: ec.generate_private_key(ec.SECP256R1()),
                                      lambda: ec.generate_private_key(ec.SECP384R1()),
                                      lambda: dsa.generate_private_key(2048)], ids=["p256", "p384", "dsa"])
def test_randomized_signers_sign_the_builders_tbs_certificate(keys: dict[str, Any], make_key: Any) -> None:
    """ECDSA and DSA signatures are random: the signed part must be the builder's, the signature valid."""
    key = make_key()
    ca = ours("k-ca", [], [], 10, key, is_ca=True)
    leaf = x509.load_pem_x509_certificate(ours("leaf", [], ["leaf"], 10, keys["leaf"], is_ca=False, ca=ca)
                                          .Cert.encode())
    reference = x509.load_der_x509_certificate(builder_certificate(
        "leaf", [], ["leaf"], 10, keys["leaf"], is_ca=False, issuer_key=key,
        issuer=x509.load_pem_x509_certificate(ca.Cert.encode()), serial=SERIAL, now=NOW))
    assert leaf.tbs_certificate_bytes == reference.tbs_certificate_bytes
    assert leaf.signature_algorithm_oid == reference.signature_algorithm_oid
    args = (ec.ECDSA(hashes.SHA256()),) if isinstance(key, ec.EllipticCurvePrivateKey) else (hashes.SHA256(),)
    key.public_key().verify(leaf.signature, leaf.tbs_certificate_bytes, *args)
    assert x509.load_pem_x509_certificate(ca.Cert.encode()).tbs_certificate_bytes == x509.load_der_x509_certificate(
        builder_certificate("k-ca", [], [], 10, key, is_ca=True, issuer=None, issuer_key=None, serial=SERIAL,
                            now=NOW)).tbs_certificate_bytes


@pytest.mark.parametrize("bits", [1024, 2048, 3072])
def test_the_pkcs1_key_pem_is_openssls(bits: int) -> None:
    key = rsa.generate_private_key(65537, bits)
    assert crypto._pem_for_key(key) == key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption()).decode()


def test_a_made_certificate_verifies_and_its_pem_is_cryptographys(keys: dict[str, Any]) -> None:
    ca = crypto.gen_ca("ca", 1)
    cert = x509.load_pem_x509_certificate(ca.Cert.encode())
    assert ca.Cert == cert.public_bytes(serialization.Encoding.PEM).decode()
    cert.public_key().verify(cert.signature, cert.tbs_certificate_bytes, padding.PKCS1v15(), hashes.SHA256())


def test_go_errors_of_names_der_cannot_hold(keys: dict[str, Any]) -> None:
    with pytest.raises(FuncError) as err:
        ours("x", [], ["b\u00fccher.example"], 1, keys["leaf"], is_ca=False)
    assert str(err.value) == 'error creating certificate: x509: "b\u00fccher.example" cannot be encoded as an IA5String'
    with pytest.raises(FuncError) as err:
        ours("bad \udcff", [], [], 1, keys["leaf"], is_ca=False)
    assert str(err.value) == "error creating certificate: asn1: string not valid UTF-8"


@pytest.mark.filterwarnings("ignore:Attribute's length must be")  # cryptography parsing it
def test_common_names_longer_than_64_bytes_are_kept_as_go_does(keys: dict[str, Any]) -> None:
    """RFC 5280's upper bound, which cryptography's builder enforces and Go's CreateCertificate does not."""
    cert = x509.load_pem_x509_certificate(ours("n" * 300, [], [], 1, keys["leaf"], is_ca=True).Cert.encode())
    assert cert.subject.rfc4514_string() == cert.issuer.rfc4514_string() == "CN=" + "n" * 300


def test_negative_days_give_a_certificate_that_ended_as_go_does(keys: dict[str, Any]) -> None:
    cert = x509.load_pem_x509_certificate(ours("x", [], [], -1, keys["leaf"], is_ca=False).Cert.encode())
    assert cert.not_valid_after_utc - cert.not_valid_before_utc == datetime.timedelta(days=-1)


DER_VECTORS = [
    ("integer_zero", asn1der.integer(0), "020100"),
    ("integer_127", asn1der.integer(127), "02017f"),
    ("integer_128", asn1der.integer(128), "02020080"),
    ("integer_minus_128", asn1der.integer(-128), "020180"),
    ("integer_minus_129", asn1der.integer(-129), "0202ff7f"),
    ("length_127", asn1der.octet_string(b"\0" * 127)[:2], "047f"),
    ("length_128", asn1der.octet_string(b"\0" * 128)[:3], "048180"),
    ("length_256", asn1der.octet_string(b"\0" * 256)[:4], "04820100"),
    ("oid_rsa", asn1der.object_identifier("1.2.840.113549.1.1.1"), "06092a864886f70d010101"),
    ("no_bits", asn1der.named_bits([]), "030100"),
    ("bit_0", asn1der.named_bits([0]), "03020780"),
    ("bits_0_2_5", asn1der.named_bits([0, 2, 5]), "030202a4"),
    ("bit_8", asn1der.named_bits([8]), "0303070080"),
    ("set_sorted", asn1der.set_of(b"\x02\x01\x05", b"\x01\x01\xff"), "31060101ff020105"),
    ("time_1949", asn1der.time(datetime.datetime(1949, 12, 31, 23, 59, 59)), "180f31393439313233313233353935395a"),
    ("time_0999", asn1der.time(datetime.datetime(999, 1, 2, 3, 4, 5)), "180f30393939303130323033303430355a"),
]


@pytest.mark.parametrize(("encoded", "expected"), [v[1:] for v in DER_VECTORS], ids=[v[0] for v in DER_VECTORS])
def test_der_encodings(encoded: bytes, expected: str) -> None:
    assert encoded.hex() == expected


def test_the_der_reader_splits_what_the_encoders_join() -> None:
    parts = [asn1der.integer(1 << 2000), asn1der.null(), asn1der.sequence(asn1der.boolean(True))]
    whole = asn1der.sequence(*parts)
    assert asn1der.children(whole) == parts and asn1der.content(whole) == b"".join(parts)
    assert x509encode.name_with_common_name(b"") == b"\x30\x00"


def test_a_render_making_tls_material_imports_no_x509(tmp_path: Path) -> None:
    chart = write_chart(tmp_path / "src", {
        "Chart.yaml": chart_yaml("c"),
        "templates/tls.yaml": (
            '{{- $ca := genCA "c-ca" 365 }}{{- $cert := genSignedCert "c" (list "10.0.0.1") (list "c.svc") 365 $ca }}'
            '{{- $self := genSelfSignedCert "s" nil nil 1 }}\n'
            "kind: Secret\ndata:\n  tls.crt: {{ $cert.Cert | b64enc }}\n  tls.key: {{ $cert.Key | b64enc }}\n"
            "  ca.crt: {{ $ca.Cert | b64enc }}\n  self.crt: {{ $self.Cert | b64enc }}\n"
            '  key.pem: {{ genPrivateKey "rsa" | b64enc }}\n')})
    script = ("import sys; from helm_core import cli; code = cli.main(['template', 'x', sys.argv[1]]); "
              "print([m for m in ('cryptography.x509', 'cryptography.hazmat.primitives.serialization') "
              "if m in sys.modules], file=sys.stderr); sys.exit(code)")
    run = subprocess.run([sys.executable, "-c", script, str(chart)], capture_output=True, text=True, check=False,
                         env=dict(os.environ, HELM_CORE_CACHE=str(tmp_path / "cache")), timeout=120)
    assert run.returncode == 0, run.stderr
    assert "tls.crt: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t" in run.stdout
    assert run.stderr.strip().splitlines()[-1] == "[]"
