"""Hashes, passwords, keys, certificates and AES in the formats Go/Sprig produce."""
from __future__ import annotations

import base64
import ipaddress
import json

import bcrypt as bcrypt_lib
import pytest
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import padding
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from helm_core.gotemplate.funcs import crypto, digests
from helm_core.golib.gotypes import FuncError
from tests.gotemplate.funcs import helm_oracle

HASHES = [
    ("sha1", digests.sha1sum, "a9993e364706816aba3e25717850c26c9cd0d89d"),
    ("sha256", digests.sha256sum, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    ("sha512", digests.sha512sum, "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
                                 "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"),
    ("adler32", digests.adler32sum, "38600999"),
]


@pytest.mark.parametrize(("fn", "expected"), [c[1:] for c in HASHES], ids=[c[0] for c in HASHES])
def test_hashes_of_abc(fn, expected: str) -> None:
    assert fn("abc") == expected


def test_derive_password_matches_master_password_algorithm() -> None:
    assert crypto.derive_password(1, "long", "password", "user", "example.com") == "ZedaFaxcZaso9*"
    assert crypto.derive_password(1, "nope", "p", "u", "s") == "cannot find password template nope"


def test_bcrypt_and_htpasswd_use_2a_cost_10() -> None:
    hashed = crypto.bcrypt("pw")
    assert hashed.startswith("$2a$10$") and bcrypt_lib.checkpw(b"pw", hashed.encode())
    assert crypto.htpasswd("a:b", "x") == "invalid username: a:b"
    assert crypto.bcrypt("a" * 73) == "failed to encrypt string with bcrypt: bcrypt: password length exceeds 72 bytes"


def test_rand_bytes_is_base64_of_count_bytes() -> None:
    assert len(base64.b64decode(crypto.rand_bytes(5))) == 5 and crypto.rand_bytes(0) == ""
    with pytest.raises(FuncError) as err:
        crypto.rand_bytes(-1)
    assert str(err.value) == "runtime error: makeslice: len out of range"


KEYS = [
    ("ecdsa", "-----BEGIN EC PRIVATE KEY-----\n"),
    ("ed25519", "-----BEGIN PRIVATE KEY-----\n"),
    ("dsa", "-----BEGIN DSA PRIVATE KEY-----\n"),
]


@pytest.mark.parametrize(("typ", "header"), KEYS, ids=[k[0] for k in KEYS])
def test_gen_private_key_pem_types(typ: str, header: str) -> None:
    pem = crypto.gen_private_key(typ)
    assert pem.startswith(header)
    crypto.parse_private_key_pem(pem)


def test_gen_private_key_unknown_type() -> None:
    assert crypto.gen_private_key("bad") == "Unknown type bad"


def test_ca_and_signed_certificate_follow_sprig_template() -> None:
    ca = crypto.gen_ca("my-ca", 365)
    leaf = crypto.gen_signed_cert("svc", ["10.0.0.1"], ["svc.example"], 30, ca)
    ca_cert = x509.load_pem_x509_certificate(ca.Cert.encode())
    cert = x509.load_pem_x509_certificate(leaf.Cert.encode())
    assert ca.Key.startswith("-----BEGIN RSA PRIVATE KEY-----") and leaf.go_type == "sprig.certificate"
    assert ca_cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    assert cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value == "svc"
    assert cert.issuer == ca_cert.subject
    san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert san.get_values_for_type(x509.DNSName) == ["svc.example"]
    assert san.get_values_for_type(x509.IPAddress) == [ipaddress.ip_address("10.0.0.1")]
    eku = cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    assert list(eku) == [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]
    ca_cert.public_key().verify(cert.signature, cert.tbs_certificate_bytes, padding.PKCS1v15(),
                                cert.signature_hash_algorithm)
    assert (cert.not_valid_after_utc - cert.not_valid_before_utc).days == 30


def test_a_ca_known_only_by_its_pem_texts_signs_the_same_way() -> None:
    made = crypto.gen_ca("my-ca", 365)
    rebuilt = crypto.Certificate(made.Cert, made.Key)  # as buildCustomCert gives: PEM texts only
    for ca in (made, rebuilt):
        cert = x509.load_pem_x509_certificate(crypto.gen_signed_cert("svc", None, None, 1, ca).Cert.encode())
        ca_cert = x509.load_pem_x509_certificate(ca.Cert.encode())
        ca_cert.public_key().verify(cert.signature, cert.tbs_certificate_bytes, padding.PKCS1v15(),
                                    cert.signature_hash_algorithm)


def test_self_signed_with_given_ecdsa_key() -> None:
    key = crypto.gen_private_key("ecdsa")
    cert = crypto.gen_self_signed_cert_with_key("me", None, None, 1, key)
    assert cert.Key == key and "BEGIN CERTIFICATE" in cert.Cert


CERT_ERRORS = [
    ("ip_not_string", lambda: crypto.gen_self_signed_cert("x", [1], None, 1), "error parsing ip: 1 is not a string"),
    ("bad_ip", lambda: crypto.gen_self_signed_cert("x", ["1.2.3"], None, 1), "error parsing ip: 1.2.3"),
    ("dns_not_string", lambda: crypto.gen_self_signed_cert("x", None, [1.5], 1),
     "error processing alternate dns name: 1.5 is not a string"),
    ("key_not_pem", lambda: crypto.gen_ca_with_key("x", 1, "junk"), "parsing private key: no PEM data in input"),
    ("key_is_certificate", lambda: crypto.gen_ca_with_key("x", 1, "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"),
     "parsing private key: no private key data in PEM block of type CERTIFICATE"),
    ("custom_bad_base64", lambda: crypto.build_custom_cert("!", "YWJj"), "unable to decode base64 certificate"),
    ("custom_not_pem", lambda: crypto.build_custom_cert("YWJj", "YWJj"), "unable to decode certificate"),
    ("signer_wrong_type", lambda: crypto.gen_signed_cert("x", None, None, 1, {}),
     "wrong type for value; expected sprig.certificate; got map[string]interface {}"),
]


@pytest.mark.parametrize(("call", "message"), [c[1:] for c in CERT_ERRORS], ids=[c[0] for c in CERT_ERRORS])
def test_certificate_errors(call, message: str) -> None:
    with pytest.raises(FuncError) as err:
        call()
    assert str(err.value) == message


def test_aes_round_trip_and_format() -> None:
    secret = crypto.encrypt_aes("a password longer than thirty-two bytes!", "héllo")
    raw = base64.b64decode(secret)
    assert len(raw) == 32 and crypto.decrypt_aes("a password longer than thirty-two bytes!", secret) == "héllo"
    assert (crypto.encrypt_aes("k", ""), crypto.decrypt_aes("k", "")) == ("", "")


AES_ERRORS = [
    ("bad_base64", "!!", "illegal base64 data at input byte 0"),
    ("short", "YWJj", "runtime error: slice bounds out of range [:16] with capacity 3"),
    ("partial_block", "YWJjZGVmZ2hpamtsbW5vcHFy", "crypto/cipher: input not full blocks"),
]


@pytest.mark.parametrize(("text", "message"), [c[1:] for c in AES_ERRORS], ids=[c[0] for c in AES_ERRORS])
def test_decrypt_aes_errors(text: str, message: str) -> None:
    with pytest.raises(FuncError) as err:
        crypto.decrypt_aes("k", text)
    assert str(err.value) == message


@pytest.mark.conformance
def test_helm_signs_with_our_ca_and_we_accept_helm_ca() -> None:
    ca = crypto.gen_ca("py-ca", 10)
    b64c, b64k = base64.b64encode(ca.Cert.encode()).decode(), base64.b64encode(ca.Key.encode()).decode()
    helm_leaf, helm_ca_json = helm_oracle.render_many([
        f'(genSignedCert "leaf" nil nil 5 (buildCustomCert "{b64c}" "{b64k}")).Cert',
        'genCA "helm-ca" 5 | toPrettyJson',
    ])
    cert = x509.load_pem_x509_certificate(helm_leaf.encode())
    ca_cert = x509.load_pem_x509_certificate(ca.Cert.encode())
    ca_cert.public_key().verify(cert.signature, cert.tbs_certificate_bytes, padding.PKCS1v15(),
                                cert.signature_hash_algorithm)
    helm_ca = json.loads(helm_ca_json)
    ours = crypto.build_custom_cert(base64.b64encode(helm_ca["Cert"].encode()).decode(),
                                    base64.b64encode(helm_ca["Key"].encode()).decode())
    leaf = crypto.gen_signed_cert("x", None, None, 1, ours)
    assert x509.load_pem_x509_certificate(leaf.Cert.encode()).issuer.rfc4514_string() == "CN=helm-ca"


@pytest.mark.parametrize("days", [2147483647, -100000000, 106752, 999999999999])
def test_days_past_go_durations_wrap_as_in_helm(days: int) -> None:
    # Sprig multiplies days into an int64 of nanoseconds, which wraps: helm makes these
    # certificates (2147483647 days end in 2192); timedelta refused them ("days=...; must have
    # magnitude <= 999999999", "date value out of range").
    helm_pem, = helm_oracle.render_many([f'(genCA "x" {days}).Cert'])
    helm_cert = x509.load_pem_x509_certificate(helm_pem.encode())
    ours = x509.load_pem_x509_certificate(crypto.gen_ca("x", days).Cert.encode())
    spans = [(c.not_valid_after_utc - c.not_valid_before_utc).total_seconds() for c in (helm_cert, ours)]
    # Both truncate their own clock's fraction of a second to whole seconds.
    assert abs(spans[0] - spans[1]) <= 1, spans
