"""Credentials and the HTTP client every source shares.

Rules (Helm's, see ``pkg/getter/httpgetter.go``):
- Basic auth and bearer tokens go only to the repository's own origin (scheme, host and port);
  a chart URL on another host gets them only with ``pass_credentials`` (Helm's
  ``--pass-credentials``). httpx drops ``Authorization`` on cross-origin redirects itself.
- A custom CA is added to the system roots' place (it replaces them, as Helm's ``--ca-file``
  does); a client certificate and key are PEM bytes, never paths, so a Secret can feed them.
- ``insecure_skip_verify`` turns off TLS verification; plain HTTP for OCI is a separate,
  explicit switch on the reference, never a fallback.
"""
from __future__ import annotations

import base64
import json
import os
import ssl
import tempfile
from collections.abc import Generator, Mapping

import httpx

from helm_core.errors import SourceError
from helm_core.support.records import record

DEFAULT_TIMEOUT_S = 60.0
"""Seconds for connect/read of one request; Helm's getter uses 120 s for whole downloads."""
USER_AGENT = "helm-core/0.1"


@record(frozen=True)
class Credentials:
    """How to authenticate to a repository or registry; every field is optional."""

    username: str = ""
    password: str = ""
    token: str = ""
    """A bearer token sent as ``Authorization: Bearer``; wins over username/password."""
    ca_pem: bytes = b""
    """PEM CA bundle trusted instead of the system roots."""
    cert_pem: bytes = b""
    """PEM client certificate (mutual TLS); needs ``key_pem``."""
    key_pem: bytes = b""
    insecure_skip_verify: bool = False
    pass_credentials: bool = False
    """Send credentials to chart URLs on other hosts too (Helm's ``--pass-credentials``)."""

    @property
    def has_secret(self) -> bool:
        return bool(self.token or (self.username and self.password))


NO_CREDENTIALS = Credentials()


def same_origin(a: httpx.URL, b: httpx.URL) -> bool:
    """Scheme, host and port equal (ports defaulted per scheme)."""
    return (a.scheme, a.host, a.port or _default_port(a.scheme)) == (
        b.scheme, b.host, b.port or _default_port(b.scheme))


def _default_port(scheme: str) -> int:
    return 443 if scheme == "https" else 80


class OriginAuth(httpx.Auth):
    """Adds the credentials only to requests for ``origin`` unless ``pass_credentials``."""

    def __init__(self, credentials: Credentials, origin: str) -> None:
        self._credentials = credentials
        self._origin = httpx.URL(origin)

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        creds = self._credentials
        if creds.pass_credentials or same_origin(request.url, self._origin):
            header = authorization_header(creds)
            if header:
                request.headers["Authorization"] = header
        yield request


def authorization_header(credentials: Credentials) -> str:
    """The ``Authorization`` value for static credentials, or "" when there are none."""
    if credentials.token:
        return f"Bearer {credentials.token}"
    if credentials.username and credentials.password:
        pair = f"{credentials.username}:{credentials.password}".encode()
        return "Basic " + base64.b64encode(pair).decode("ascii")
    return ""


def ssl_context(credentials: Credentials) -> ssl.SSLContext | bool:
    """The TLS settings for a client: custom CA, client certificate, or no verification."""
    if credentials.insecure_skip_verify:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    elif credentials.ca_pem:
        context = ssl.create_default_context(cadata=credentials.ca_pem.decode("ascii"))
    else:
        context = ssl.create_default_context()
    if credentials.cert_pem:
        _load_client_cert(context, credentials.cert_pem, credentials.key_pem)
    return context


def _load_client_cert(context: ssl.SSLContext, cert_pem: bytes, key_pem: bytes) -> None:
    # ssl only loads certificates from files: write them to a private folder and remove it.
    with tempfile.TemporaryDirectory(prefix="helm-core-cert-") as folder:
        cert_path = os.path.join(folder, "tls.crt")
        key_path = os.path.join(folder, "tls.key")
        with open(os.open(cert_path, os.O_WRONLY | os.O_CREAT, 0o600), "wb") as fh:
            fh.write(cert_pem)
        with open(os.open(key_path, os.O_WRONLY | os.O_CREAT, 0o600), "wb") as fh:
            fh.write(key_pem or cert_pem)
        context.load_cert_chain(cert_path, key_path)


def client(credentials: Credentials, *, transport: httpx.BaseTransport | None = None,
           timeout: float = DEFAULT_TIMEOUT_S) -> httpx.Client:
    """An httpx client with the TLS settings of ``credentials`` (auth is added per request)."""
    return httpx.Client(
        verify=ssl_context(credentials),
        transport=transport,
        timeout=timeout,
        follow_redirects=True,
        headers={"User-Agent": USER_AGENT},
    )


SECRET_KEYS = {
    "username": ("username",),
    "password": ("password",),
    "token": ("token", "bearerToken"),
    "ca_pem": ("ca.crt", "caFile"),
    "cert_pem": ("tls.crt", "certFile"),
    "key_pem": ("tls.key", "keyFile"),
}
"""Secret keys read by :func:`from_secret`, first found wins: Flux's names (``tls.crt``,
``tls.key``, ``ca.crt``, and the older ``certFile``/``keyFile``/``caFile``) plus ``token``."""
DOCKER_CONFIG_KEY = ".dockerconfigjson"


def from_secret(data: Mapping[str, bytes], *, registry: str = "") -> Credentials:
    """Credentials from a Secret's decoded data (the controller reads the Secret).

    A ``kubernetes.io/dockerconfigjson`` Secret (key ``.dockerconfigjson``) gives the
    username/password of its ``auths`` entry for ``registry`` (host[:port]); other keys as
    listed in ``SECRET_KEYS``. Flags such as ``pass_credentials`` come from the request spec:
    set them with ``records.replace``.
    """
    fields: dict[str, object] = {}
    for field_name, keys in SECRET_KEYS.items():
        for key in keys:
            if key in data:
                value = data[key]
                fields[field_name] = value if field_name.endswith("_pem") else value.decode("utf-8").strip()
                break
    if DOCKER_CONFIG_KEY in data and registry:
        fields.update(_docker_config_auth(data[DOCKER_CONFIG_KEY], registry))
    return Credentials(**fields)  # type: ignore[arg-type]


def _docker_config_auth(raw: bytes, registry: str) -> dict[str, str]:
    try:
        auths = json.loads(raw).get("auths") or {}
    except (ValueError, AttributeError):
        raise SourceError(f"{DOCKER_CONFIG_KEY}: not valid JSON") from None
    for server, entry in auths.items():
        host = server.split("://", 1)[-1].split("/", 1)[0]
        if host != registry or not isinstance(entry, dict):
            continue
        if entry.get("username"):
            return {"username": str(entry["username"]), "password": str(entry.get("password", ""))}
        if entry.get("auth"):
            user, _, password = base64.b64decode(entry["auth"]).decode("utf-8").partition(":")
            return {"username": user, "password": password}
    return {}
