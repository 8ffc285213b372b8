"""Crypto: ``bcrypt``/``htpasswd``, ``derivePassword``, ``randBytes``, keys and
certificates (``genPrivateKey``, ``genCA``..., ``buildCustomCert``), ``encryptAES``/``decryptAES``.

Why: charts generate secrets and TLS material at render time. Outputs use the
formats Go writes: PEM blocks ``RSA PRIVATE KEY`` (PKCS#1), ``EC PRIVATE KEY``
(SEC 1), ``DSA PRIVATE KEY``, ``PRIVATE KEY`` (PKCS#8, ed25519); bcrypt ``$2a$10$``;
AES-256-CBC with the IV prepended and PKCS#7 padding, base64 (Sprig's format,
so values round-trip with real Helm). Certificates follow Sprig's x509 template
(serial < 2^128, CN only, server+client auth, SKI/AKI as Go adds them), encoded by
``golib.x509encode`` (``cryptography.x509`` is imported only to read a CA given as text).
"""
from __future__ import annotations

import datetime
import os

from helm_core.golib import gojson
from helm_core.golib.gotypes import FuncError, GoObject, go_type_name, signature
from helm_core.gotemplate import budget
from helm_core.gotemplate.funcs import encoding, gohelpers, keypool
from helm_core.gotemplate.funcs import random as rand

# bcrypt, cryptography and hashlib (which loads OpenSSL; sha256sum & co. are in funcs.digests,
# with helm_core.support.hashes) are imported by the functions that use them: their import is the
# largest start-up cost (bench/deferred.py), and most charts never generate keys, certificates
# or bcrypt hashes.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar

    from helm_core.golib.x509encode import Issuer

#: Sizes Sprig uses: genPrivateKey's RSA key, the certificate functions' RSA keys.
RSA_KEY_BITS = 4096
CERT_RSA_KEY_BITS = 2048
BCRYPT_COST = 10
SERIAL_BITS = 128
AES_BLOCK = 16
AES_KEY_BYTES = 32
#: scrypt parameters of the Master Password algorithm (derivePassword).
SCRYPT_N, SCRYPT_R, SCRYPT_P, SCRYPT_KEYLEN = 32768, 8, 2, 64
_SCRYPT_MAXMEM = 2 * 128 * SCRYPT_R * SCRYPT_N * SCRYPT_P

_MP_SEED = b"com.lyndir.masterpassword"
_MP_TEMPLATES = {
    "maximum": ["anoxxxxxxxxxxxxxxxxx", "axxxxxxxxxxxxxxxxxno"],
    "long": ["CvcvnoCvcvCvcv", "CvcvCvcvnoCvcv", "CvcvCvcvCvcvno", "CvccnoCvcvCvcv", "CvccCvcvnoCvcv",
             "CvccCvcvCvcvno", "CvcvnoCvccCvcv", "CvcvCvccnoCvcv", "CvcvCvccCvcvno", "CvcvnoCvcvCvcc",
             "CvcvCvcvnoCvcc", "CvcvCvcvCvccno", "CvccnoCvccCvcv", "CvccCvccnoCvcv", "CvccCvccCvcvno",
             "CvcvnoCvccCvcc", "CvcvCvccnoCvcc", "CvcvCvccCvccno", "CvccnoCvcvCvcc", "CvccCvcvnoCvcc",
             "CvccCvcvCvccno"],
    "medium": ["CvcnoCvc", "CvcCvcno"],
    "short": ["Cvcn"],
    "basic": ["aaanaaan", "aannaaan", "aaannaaa"],
    "pin": ["nnnn"],
}
_MP_CHARS = {
    "V": "AEIOU", "C": "BCDFGHJKLMNPQRSTVWXYZ", "v": "aeiou", "c": "bcdfghjklmnpqrstvwxyz",
    "A": "AEIOUBCDFGHJKLMNPQRSTVWXYZ", "a": "AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz",
    "n": "0123456789", "o": "@&%?,=[]_:-+*$#!'^~;()/.",
    "x": "AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz0123456789!@#$%^&*()",
}


@signature("string")
def bcrypt(s: str) -> str:
    """``bcrypt``: ``$2a$10$`` hash; over-long input gives Go's error text as the result."""
    import bcrypt as bcrypt_lib
    try:
        return bcrypt_lib.hashpw(gohelpers.to_bytes(s), bcrypt_lib.gensalt(BCRYPT_COST, b"2a")).decode()
    except ValueError:
        return "failed to encrypt string with bcrypt: bcrypt: password length exceeds 72 bytes"


@signature("string", "string")
def htpasswd(username: str, password: str) -> str:
    """``htpasswd``: ``user:bcrypt``; a ':' in the name gives an error text."""
    if ":" in username:
        return f"invalid username: {username}"
    return f"{username}:{bcrypt(password)}"


@signature("int")
def rand_bytes(count: int) -> str:
    """``randBytes``: base64 of ``count`` random bytes."""
    if count < 0:
        raise FuncError("runtime error: makeslice: len out of range")
    budget.check_size(count * 4 // 3, what=f"{count} random bytes in base64")
    # What secrets.token_bytes returns, without importing secrets (hmac, OpenSSL).
    return gojson.base64_text(os.urandom(count))


@signature("int", "string", "string", "string", "string")
def derive_password(counter: int, ptype: str, password: str, user: str, site: str) -> str:
    """``derivePassword``: the Master Password algorithm (scrypt + HMAC-SHA256 + templates)."""
    templates = _MP_TEMPLATES.get(ptype)
    if templates is None:
        return f"cannot find password template {ptype}"
    ub, sb = gohelpers.to_bytes(user), gohelpers.to_bytes(site)
    salt = _MP_SEED + len(ub).to_bytes(4, "big") + ub
    import hashlib
    import hmac

    key = hashlib.scrypt(gohelpers.to_bytes(password), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P,
                         dklen=SCRYPT_KEYLEN, maxmem=_SCRYPT_MAXMEM)
    msg = _MP_SEED + len(sb).to_bytes(4, "big") + sb + (counter & 0xFFFFFFFF).to_bytes(4, "big")
    seed = hmac.new(key, msg, hashlib.sha256).digest()
    temp = templates[seed[0] % len(templates)]
    return "".join(_MP_CHARS[ch][seed[i + 1] % len(_MP_CHARS[ch])] for i, ch in enumerate(temp))


def _pem_for_key(key: Any) -> str:
    """The PEM Go writes for a private key: PKCS#1 for RSA (encoded here, the common case),
    SEC 1 for ECDSA, OpenSSL's DSA form, PKCS#8 for the others."""
    from cryptography.hazmat.primitives.asymmetric import rsa

    from helm_core.golib import gopem, x509encode
    if isinstance(key, rsa.RSAPrivateKey):
        return gopem.encode("RSA PRIVATE KEY", x509encode.pkcs1_private_key(key))
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import dsa, ec
    if isinstance(key, (ec.EllipticCurvePrivateKey, dsa.DSAPrivateKey)):
        fmt = serialization.PrivateFormat.TraditionalOpenSSL
    else:
        fmt = serialization.PrivateFormat.PKCS8
    pem: bytes = key.private_bytes(serialization.Encoding.PEM, fmt, serialization.NoEncryption())
    return pem.decode()


@signature("string")
def gen_private_key(typ: str) -> str:
    """``genPrivateKey rsa|dsa|ecdsa|ed25519`` ("" means rsa)."""
    key: Any
    if typ in ("", "rsa"):
        key = keypool.new_rsa(RSA_KEY_BITS)
    elif typ == "dsa":
        from cryptography.hazmat.primitives.asymmetric import dsa
        key = dsa.generate_private_key(2048)
    elif typ == "ecdsa":
        from cryptography.hazmat.primitives.asymmetric import ec
        key = ec.generate_private_key(ec.SECP256R1())
    elif typ == "ed25519":
        from cryptography.hazmat.primitives.asymmetric import ed25519
        key = ed25519.Ed25519PrivateKey.generate()
    else:
        return "Unknown type " + typ
    return _pem_for_key(key)


def parse_private_key_pem(text: str) -> Any:
    """Sprig's ``parsePrivateKeyPEM`` with its error texts."""
    from cryptography.hazmat.primitives import serialization
    data = gohelpers.to_bytes(text)
    begin = data.find(b"-----BEGIN ")
    if begin < 0:
        raise FuncError("no PEM data in input")
    header_end = data.find(b"-----", begin + 11)
    block_type = data[begin + 11:header_end].decode(errors="replace")
    if block_type != "PRIVATE KEY" and not block_type.endswith(" PRIVATE KEY"):
        raise FuncError(f"no private key data in PEM block of type {block_type}")
    kind = block_type[:-12] if block_type != "PRIVATE KEY" else "PKCS8"
    if kind not in ("PKCS8", "RSA", "EC", "DSA"):
        raise FuncError(f"invalid private key type {block_type}")
    try:
        return serialization.load_pem_private_key(data[begin:], password=None)
    except (ValueError, TypeError) as e:
        what = {"PKCS8": "decoding PEM as PKCS#8", "RSA": "parsing RSA private key from PEM",
                "EC": "parsing EC private key from PEM", "DSA": "parsing DSA private key from PEM"}[kind]
        raise FuncError(f"{what}: {e}") from None


class Certificate(GoObject):
    """Sprig's ``certificate`` struct: ``.Cert`` and ``.Key`` PEM strings."""

    go_type: ClassVar[str] = "sprig.certificate"
    go_members: ClassVar[frozenset[str]] = frozenset({"Cert", "Key"})

    def __init__(self, cert: str, key: str, as_issuer: Issuer | None = None) -> None:
        self.Cert = cert
        self.Key = key
        # What signing with this certificate needs, when we made it: signing then skips parsing
        # the certificate (cryptography.x509's import) and its key (OpenSSL validates RSA keys, slowly).
        self._as_issuer = ((cert, key), as_issuer) if as_issuer is not None else None

    def __str__(self) -> str:
        return "{" + self.Cert + " " + self.Key + "}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Certificate) and (self.Cert, self.Key) == (other.Cert, other.Key)

    def __hash__(self) -> int:
        return hash((self.Cert, self.Key))

    def go_json_value(self) -> dict[str, str]:
        """JSON of the struct: its exported fields."""
        return {"Cert": self.Cert, "Key": self.Key}


def _ips(values: list[Any] | None) -> list[bytes]:
    """The packed addresses of Sprig's IP list."""
    if not values:
        return []
    import ipaddress

    out = []
    for v in values:
        if not isinstance(v, str):
            raise FuncError(f"error parsing ip: {gohelpers.strval(v)} is not a string")
        try:
            out.append(ipaddress.ip_address(v).packed)
        except ValueError:
            raise FuncError(f"error parsing ip: {v}") from None
    return out


def _dns(values: list[Any] | None) -> list[str]:
    out = []
    for v in values or []:
        if not isinstance(v, str):
            raise FuncError(f"error processing alternate dns name: {gohelpers.strval(v)} is not a string")
        out.append(v)
    return out


def _create(cn: str, ips: list[Any] | None, dns: list[Any] | None, days: int, key: Any, *, is_ca: bool,
            issuer: Issuer | None = None, serial: int | None = None,
            now: datetime.datetime | None = None) -> Certificate:
    """Sprig's certificate for ``key``, signed by ``issuer`` (self-signed without one). ``serial``
    and ``now`` (UTC) are random and the clock's but for tests, which compare exact encodings."""
    from helm_core.golib import gopem, x509encode
    ip_list, dns_list = _ips(ips), _dns(dns)
    if serial is None:
        serial = rand.below(1 << SERIAL_BITS) or 1  # uniform below 2^128, as Go's rand.Int
    if now is None:
        now = datetime.datetime.now(datetime.UTC)
    try:
        subject = x509encode.name_with_common_name(gohelpers.to_bytes(cn))
        der, key_id = x509encode.create_certificate(
            serial=serial, subject=subject, not_before=now, not_after=now + _validity(days),
            public_key=key.public_key(), is_ca=is_ca, dns_names=dns_list, ip_addresses=ip_list,
            issuer=issuer if issuer is not None else x509encode.Issuer(subject, None, key))
    except (ValueError, TypeError) as e:
        raise FuncError(f"error creating certificate: {e}") from None
    return Certificate(gopem.encode("CERTIFICATE", der), _pem_for_key(key), x509encode.Issuer(subject, key_id, key))


def _validity(days: int) -> datetime.timedelta:
    """Sprig's ``time.Hour * 24 * time.Duration(days)``: int64 nanoseconds, wrapping around
    as Go's do: any ``days`` gives Helm's dates (2147483647 days end 166 years on)."""
    return datetime.timedelta(microseconds=gohelpers.wrap_int64(days * 86_400 * 10**9) // 1000)


def _new_rsa() -> Any:
    return keypool.new_rsa(CERT_RSA_KEY_BITS)


def _key_from_pem(pem: str) -> Any:
    try:
        return parse_private_key_pem(pem)
    except FuncError as e:
        raise FuncError(f"parsing private key: {e}") from None


@signature("string", "int")
def gen_ca(cn: str, days: int) -> Certificate:
    """``genCA CN DAYS``: a self-signed CA with a new 2048-bit RSA key."""
    return _create(cn, None, None, days, _new_rsa(), is_ca=True)


@signature("string", "int", "string")
def gen_ca_with_key(cn: str, days: int, key_pem: str) -> Certificate:
    """``genCAWithKey``."""
    return _create(cn, None, None, days, _key_from_pem(key_pem), is_ca=True)


@signature("string", "[]interface {}", "[]interface {}", "int")
def gen_self_signed_cert(cn: str, ips: list[Any] | None, dns: list[Any] | None, days: int) -> Certificate:
    """``genSelfSignedCert CN IPS DNS DAYS``."""
    return _create(cn, ips, dns, days, _new_rsa(), is_ca=False)


@signature("string", "[]interface {}", "[]interface {}", "int", "string")
def gen_self_signed_cert_with_key(cn: str, ips: list[Any] | None, dns: list[Any] | None, days: int,
                                  key_pem: str) -> Certificate:
    """``genSelfSignedCertWithKey``."""
    return _create(cn, ips, dns, days, _key_from_pem(key_pem), is_ca=False)


def _signer(ca: Any) -> Issuer:
    if not isinstance(ca, Certificate):
        raise FuncError(f"wrong type for value; expected sprig.certificate; got {go_type_name(ca)}")
    if ca._as_issuer is not None and ca._as_issuer[0] == (ca.Cert, ca.Key):
        return ca._as_issuer[1]
    # A CA known only by its texts (buildCustomCert, or fields set by hand): rare enough to parse with cryptography.
    from cryptography import x509

    from helm_core.golib import x509encode
    data = gohelpers.to_bytes(ca.Cert)
    if b"-----BEGIN " not in data:
        raise FuncError("unable to decode certificate")
    try:
        cert = x509.load_pem_x509_certificate(data)
    except ValueError as e:
        raise FuncError(f"error parsing certificate: decodedSignerCert.Bytes: {e}") from None
    try:
        key = parse_private_key_pem(ca.Key)
    except FuncError as e:
        raise FuncError(f"error parsing private key: {e}") from None
    try:
        key_id: bytes | None = cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value.digest
    except x509.ExtensionNotFound:
        key_id = None
    return x509encode.Issuer(cert.subject.public_bytes(), key_id, key)


@signature("string", "[]interface {}", "[]interface {}", "int", "sprig.certificate")
def gen_signed_cert(cn: str, ips: list[Any] | None, dns: list[Any] | None, days: int, ca: Any) -> Certificate:
    """``genSignedCert CN IPS DNS DAYS CA``."""
    key = _new_rsa()
    return _create(cn, ips, dns, days, key, is_ca=False, issuer=_signer(ca))


@signature("string", "[]interface {}", "[]interface {}", "int", "sprig.certificate", "string")
def gen_signed_cert_with_key(cn: str, ips: list[Any] | None, dns: list[Any] | None, days: int, ca: Any,
                             key_pem: str) -> Certificate:
    """``genSignedCertWithKey``."""
    key = _key_from_pem(key_pem)
    return _create(cn, ips, dns, days, key, is_ca=False, issuer=_signer(ca))


@signature("string", "string")
def build_custom_cert(b64cert: str, b64key: str) -> Certificate:
    """``buildCustomCert B64CERT B64KEY``: validate and wrap existing PEM material."""
    from cryptography import x509
    try:
        cert = encoding.go_b64decode(b64cert)
    except FuncError:
        raise FuncError("unable to decode base64 certificate") from None
    try:
        key = encoding.go_b64decode(b64key)
    except FuncError:
        raise FuncError("unable to decode base64 private key") from None
    if b"-----BEGIN " not in cert:
        raise FuncError("unable to decode certificate")
    try:
        x509.load_pem_x509_certificate(cert)
    except ValueError as e:
        raise FuncError(f"error parsing certificate: decodedCert.Bytes: {e}") from None
    try:
        parse_private_key_pem(gohelpers.from_bytes(key))
    except FuncError as e:
        raise FuncError(f"error parsing private key: {e}") from None
    return Certificate(gohelpers.from_bytes(cert), gohelpers.from_bytes(key))


def _aes_key(password: str) -> bytes:
    return gohelpers.to_bytes(password)[:AES_KEY_BYTES].ljust(AES_KEY_BYTES, b"\0")


@signature("string", "string")
def encrypt_aes(password: str, plaintext: str) -> str:
    """``encryptAES``: base64(IV + AES-256-CBC(PKCS#7(plaintext))); "" stays ""."""
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    if plaintext == "":
        return ""
    content = gohelpers.to_bytes(plaintext)
    pad = AES_BLOCK - len(content) % AES_BLOCK
    content += bytes([pad]) * pad
    iv = os.urandom(AES_BLOCK)
    enc = Cipher(algorithms.AES(_aes_key(password)), modes.CBC(iv)).encryptor()
    return gojson.base64_text(iv + enc.update(content) + enc.finalize())


@signature("string", "string")
def decrypt_aes(password: str, crypt64: str) -> str:
    """``decryptAES``: the inverse of ``encryptAES``; malformed input fails as Go panics."""
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    if crypt64 == "":
        return ""
    data = encoding.go_b64decode(crypt64)
    if len(data) < AES_BLOCK:
        raise FuncError(f"runtime error: slice bounds out of range [:{AES_BLOCK}] with capacity {len(data)}")
    iv, body = data[:AES_BLOCK], data[AES_BLOCK:]
    if len(body) % AES_BLOCK:
        raise FuncError("crypto/cipher: input not full blocks")
    dec = Cipher(algorithms.AES(_aes_key(password)), modes.CBC(iv)).decryptor()
    plain = dec.update(body) + dec.finalize()
    if not plain:
        raise FuncError("runtime error: index out of range [-1]")
    cut = len(plain) - plain[-1]
    if cut < 0:
        raise FuncError(f"runtime error: slice bounds out of range [:{cut}]")
    return gohelpers.from_bytes(plain[:cut])


FUNCS = {
    "bcrypt": bcrypt,
    "htpasswd": htpasswd,
    "genPrivateKey": gen_private_key,
    "derivePassword": derive_password,
    "buildCustomCert": build_custom_cert,
    "genCA": gen_ca,
    "genCAWithKey": gen_ca_with_key,
    "genSelfSignedCert": gen_self_signed_cert,
    "genSelfSignedCertWithKey": gen_self_signed_cert_with_key,
    "genSignedCert": gen_signed_cert,
    "genSignedCertWithKey": gen_signed_cert_with_key,
    "encryptAES": encrypt_aes,
    "decryptAES": decrypt_aes,
    "randBytes": rand_bytes,
}
