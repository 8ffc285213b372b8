"""Go's ``crypto/x509`` encoders as Sprig uses them: ``CreateCertificate`` for its one
certificate template, and ``MarshalPKCS1PrivateKey``.

Why: ``cryptography.x509`` and ``serialization`` cost a chart that makes TLS material more
to import than generating its keys (issue 20). Keys and signatures stay with ``cryptography``'s
primitives; the certificate around them (RFC 5280) is encoded here, byte for byte as
``x509.CertificateBuilder`` wrote it before (tests/golib/test_x509encode.py compares them):
the common name as a UTF8String, extensions in Go's order (keyUsage, extKeyUsage, basicConstraints,
subjectKeyIdentifier for a CA, authorityKeyIdentifier from the issuer's, subjectAltName), the
key identifier the SHA-1 of the public key's bits (RFC 5280 4.2.1.2, method 1).
Other keys than RSA get their public key encoding from ``serialization`` (rare: only keys given as text).
"""
from __future__ import annotations

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from helm_core.golib import asn1der, gostrconv

TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime
    from collections.abc import Callable
    from typing import Any

X509_V3 = 2
OID_COMMON_NAME = "2.5.4.3"
OID_RSA_ENCRYPTION = "1.2.840.113549.1.1.1"
OID_SHA256_WITH_RSA = "1.2.840.113549.1.1.11"
OID_ECDSA_WITH_SHA256 = "1.2.840.10045.4.3.2"
OID_DSA_WITH_SHA256 = "2.16.840.1.101.3.4.3.2"
OID_ED25519, OID_ED448 = "1.3.101.112", "1.3.101.113"
OID_KEY_USAGE, OID_EXT_KEY_USAGE, OID_BASIC_CONSTRAINTS = "2.5.29.15", "2.5.29.37", "2.5.29.19"
OID_SUBJECT_KEY_ID, OID_AUTHORITY_KEY_ID, OID_SUBJECT_ALT_NAME = "2.5.29.14", "2.5.29.35", "2.5.29.17"
OID_SERVER_AUTH, OID_CLIENT_AUTH = "1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2"
#: keyUsage bits (RFC 5280 4.2.1.3).
DIGITAL_SIGNATURE, KEY_ENCIPHERMENT, KEY_CERT_SIGN = 0, 2, 5
#: GeneralName choices (RFC 5280 4.2.1.6).
SAN_DNS_NAME, SAN_IP_ADDRESS = 2, 7


class Issuer:
    """What signing a certificate needs of its issuer: its subject name (DER), its subject
    key identifier (``None`` when it has none) and its private key."""

    __slots__ = ("key", "key_id", "name")

    def __init__(self, name: bytes, key_id: bytes | None, key: Any) -> None:
        self.name = name
        self.key_id = key_id
        self.key = key


def name_with_common_name(common_name: bytes) -> bytes:
    """A Name holding just this CN (UTF-8 bytes); the empty Name for ``b""``."""
    if not common_name:
        return asn1der.sequence()
    try:
        common_name.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("asn1: string not valid UTF-8") from None
    attribute = asn1der.sequence(asn1der.object_identifier(OID_COMMON_NAME), asn1der.utf8_string(common_name))
    return asn1der.sequence(asn1der.set_of(attribute))


def create_certificate(*, serial: int, subject: bytes, not_before: datetime.datetime,
                       not_after: datetime.datetime, public_key: Any, is_ca: bool, dns_names: list[str],
                       ip_addresses: list[bytes], issuer: Issuer) -> tuple[bytes, bytes | None]:
    """The DER of Sprig's certificate, signed with SHA-256 by ``issuer.key``, and its subject
    key identifier (a CA's; ``None`` otherwise). Times are UTC; ``ip_addresses`` packed (4 or 16 bytes).
    Errors (a name IA5String cannot hold, a key that cannot sign) raise ``ValueError`` with Go's text."""
    algorithm, sign = _signature_scheme(issuer.key)
    spki = _subject_public_key_info(public_key)
    key_id = _key_identifier(spki) if is_ca else None
    usage = [DIGITAL_SIGNATURE, KEY_ENCIPHERMENT] + ([KEY_CERT_SIGN] if is_ca else [])
    extensions = [
        _extension(OID_KEY_USAGE, asn1der.named_bits(usage), critical=True),
        _extension(OID_EXT_KEY_USAGE, asn1der.sequence(asn1der.object_identifier(OID_SERVER_AUTH),
                                                        asn1der.object_identifier(OID_CLIENT_AUTH))),
        _extension(OID_BASIC_CONSTRAINTS, asn1der.sequence(asn1der.boolean(True)) if is_ca else asn1der.sequence(),
                   critical=True),
    ]
    if key_id is not None:
        extensions.append(_extension(OID_SUBJECT_KEY_ID, asn1der.octet_string(key_id)))
    if issuer.key_id is not None:
        key_identifier = asn1der.context_specific(0, issuer.key_id)  # AuthorityKeyIdentifier's [0]
        extensions.append(_extension(OID_AUTHORITY_KEY_ID, asn1der.sequence(key_identifier)))
    if dns_names or ip_addresses:
        names = [asn1der.context_specific(SAN_DNS_NAME, _ia5(d)) for d in dns_names]
        names += [asn1der.context_specific(SAN_IP_ADDRESS, ip) for ip in ip_addresses]
        extensions.append(_extension(OID_SUBJECT_ALT_NAME, asn1der.sequence(*names)))
    tbs = asn1der.sequence(
        asn1der.context_specific(0, asn1der.integer(X509_V3), constructed=True),
        asn1der.integer(serial),
        algorithm,
        issuer.name,
        asn1der.sequence(asn1der.time(not_before), asn1der.time(not_after)),
        subject,
        spki,
        asn1der.context_specific(3, asn1der.sequence(*extensions), constructed=True),
    )
    return asn1der.sequence(tbs, algorithm, asn1der.bit_string(sign(tbs))), key_id


def pkcs1_private_key(key: rsa.RSAPrivateKey) -> bytes:
    """The PKCS#1 ``RSAPrivateKey`` DER (version 0, two primes) of an RSA key."""
    numbers = key.private_numbers()
    public = numbers.public_numbers
    return asn1der.sequence(*(asn1der.integer(v) for v in (
        0, public.n, public.e, numbers.d, numbers.p, numbers.q, numbers.dmp1, numbers.dmq1, numbers.iqmp)))


def _extension(oid: str, value: bytes, *, critical: bool = False) -> bytes:
    # DER leaves out a BOOLEAN equal to its DEFAULT (critical FALSE).
    flag = asn1der.boolean(True) if critical else b""
    return asn1der.sequence(asn1der.object_identifier(oid), flag, asn1der.octet_string(value))


def _ia5(name: str) -> bytes:
    try:
        return name.encode("ascii")
    except UnicodeEncodeError:
        raise ValueError(f"x509: {gostrconv.quote(name)} cannot be encoded as an IA5String") from None


def _subject_public_key_info(public_key: Any) -> bytes:
    if isinstance(public_key, rsa.RSAPublicKey):
        numbers = public_key.public_numbers()
        return asn1der.sequence(
            asn1der.sequence(asn1der.object_identifier(OID_RSA_ENCRYPTION), asn1der.null()),
            asn1der.bit_string(asn1der.sequence(asn1der.integer(numbers.n), asn1der.integer(numbers.e))))
    from cryptography.hazmat.primitives import serialization
    der: bytes = public_key.public_bytes(serialization.Encoding.DER,
                                         serialization.PublicFormat.SubjectPublicKeyInfo)
    return der


def _key_identifier(spki: bytes) -> bytes:
    """SHA-1 of the subjectPublicKey bits (after the BIT STRING's unused-bits octet)."""
    bits = asn1der.content(asn1der.children(spki)[1])[1:]
    digest = hashes.Hash(hashes.SHA1())
    digest.update(bits)
    return digest.finalize()


def _signature_scheme(key: Any) -> tuple[bytes, Callable[[bytes], bytes]]:
    """The signatureAlgorithm a key signs with (SHA-256 but for EdDSA) and how it signs."""
    if isinstance(key, rsa.RSAPrivateKey):
        return (asn1der.sequence(asn1der.object_identifier(OID_SHA256_WITH_RSA), asn1der.null()),
                lambda data: key.sign(data, padding.PKCS1v15(), hashes.SHA256()))
    from cryptography.hazmat.primitives.asymmetric import dsa, ec, ed448, ed25519
    if isinstance(key, ec.EllipticCurvePrivateKey):
        return (asn1der.sequence(asn1der.object_identifier(OID_ECDSA_WITH_SHA256)),
                lambda data: key.sign(data, ec.ECDSA(hashes.SHA256())))
    if isinstance(key, dsa.DSAPrivateKey):
        return (asn1der.sequence(asn1der.object_identifier(OID_DSA_WITH_SHA256)),
                lambda data: key.sign(data, hashes.SHA256()))
    if isinstance(key, (ed25519.Ed25519PrivateKey, ed448.Ed448PrivateKey)):
        oid = OID_ED25519 if isinstance(key, ed25519.Ed25519PrivateKey) else OID_ED448
        return asn1der.sequence(asn1der.object_identifier(oid)), key.sign
    raise ValueError("x509: certificate private key does not implement crypto.Signer")
