"""Real servers for the chart-source tests: a threaded HTTP chart repository (basic auth,
bearer, TLS, client certificates, ETag/Last-Modified) and the distribution registry process.

No mocks: every test talks HTTP over loopback sockets to these servers.
"""
from __future__ import annotations

import base64
import datetime
import hashlib
import http.server
import os
import shutil
import socket
import ssl
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import bcrypt
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

REGISTRY_START_TIMEOUT_S = 20.0


@dataclass
class Pki:
    """A CA and leaf certificates for 127.0.0.1, all PEM bytes."""

    ca_pem: bytes
    server_cert: bytes
    server_key: bytes
    client_cert: bytes
    client_key: bytes


def _key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def make_pki() -> Pki:
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = _key()
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "helm-core test CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name)
          .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
          .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
          .sign(ca_key, hashes.SHA256()))

    def leaf(cn: str, usage: x509.ObjectIdentifier, sans: bool) -> tuple[bytes, bytes]:
        key = _key()
        builder = (x509.CertificateBuilder()
                   .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)]))
                   .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
                   .add_extension(x509.ExtendedKeyUsage([usage]), critical=False))
        if sans:
            import ipaddress
            builder = builder.add_extension(x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]), critical=False)
        cert = builder.sign(ca_key, hashes.SHA256())
        return cert.public_bytes(serialization.Encoding.PEM), _pem_key(key)

    server_cert, server_key = leaf("127.0.0.1", ExtendedKeyUsageOID.SERVER_AUTH, True)
    client_cert, client_key = leaf("test-client", ExtendedKeyUsageOID.CLIENT_AUTH, False)
    return Pki(ca.public_bytes(serialization.Encoding.PEM), server_cert, server_key, client_cert, client_key)


@dataclass
class RepoServer:
    """A chart repository served from ``root`` on 127.0.0.1 (a real socket, a real HTTP server)."""

    root: Path
    username: str = ""
    password: str = ""
    token: str = ""
    tls: Pki | None = None
    require_client_cert: bool = False
    requests: list[tuple[str, str, str]] = field(default_factory=list)
    """(method, path, Authorization header) of every request served."""
    statuses: list[int] = field(default_factory=list)
    _server: http.server.ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        scheme = "https" if self.tls else "http"
        return f"{scheme}://127.0.0.1:{self._server.server_address[1]}"

    def start(self, port: int = 0) -> RepoServer:
        repo = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802
                header = self.headers.get("Authorization", "")
                repo.requests.append(("GET", self.path, header))
                if not repo._authorized(header):
                    self._send(401, b"unauthorized", {"WWW-Authenticate": 'Basic realm="charts"'})
                    return
                target = (repo.root / self.path.lstrip("/").split("?")[0]).resolve()
                if repo.root.resolve() not in target.parents or not target.is_file():
                    self._send(404, b"not found")
                    return
                data = target.read_bytes()
                etag = '"' + hashlib.sha256(data).hexdigest()[:16] + '"'
                if self.headers.get("If-None-Match") == etag:
                    self._send(304, b"", {"ETag": etag})
                    return
                self._send(200, data, {"ETag": etag, "Last-Modified": "Mon, 23 Nov 2026 10:00:00 GMT"})

            def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
                repo.statuses.append(status)
                self.send_response(status)
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if status != 304:
                    self.wfile.write(body)

        server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        if self.tls:
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            folder = self.root.parent / f".tls-{id(self)}"
            folder.mkdir(exist_ok=True)
            (folder / "c.pem").write_bytes(self.tls.server_cert)
            (folder / "k.pem").write_bytes(self.tls.server_key)
            context.load_cert_chain(folder / "c.pem", folder / "k.pem")
            if self.require_client_cert:
                context.load_verify_locations(cadata=self.tls.ca_pem.decode())
                context.verify_mode = ssl.CERT_REQUIRED
            server.socket = context.wrap_socket(server.socket, server_side=True)
        self._server = server
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def _authorized(self, header: str) -> bool:
        if self.token:
            return header == f"Bearer {self.token}"
        if self.username:
            expected = base64.b64encode(f"{self.username}:{self.password}".encode()).decode()
            return header == f"Basic {expected}"
        return True

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def find_registry_binary() -> str | None:
    explicit = os.environ.get("REGISTRY_BIN")
    if explicit and os.access(explicit, os.X_OK):
        return explicit
    from e2e.cluster import tools
    candidate = tools.bin_dir() / "registry"
    if os.access(candidate, os.X_OK):
        return str(candidate)
    return shutil.which("registry")


def find_helm() -> str | None:
    for candidate in (os.environ.get("HELM_BIN"), shutil.which("helm"), "/root/.cache/hc-bootstrap/bin/helm"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


@dataclass
class Registry:
    """A ``registry serve`` process (distribution v3) on loopback, optionally htpasswd + TLS."""

    binary: str
    folder: Path
    username: str = ""
    password: str = ""
    tls: Pki | None = None
    token: TokenServer | None = None
    port: int = 0
    process: subprocess.Popen[bytes] | None = None

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> Registry:
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = self.port or free_port()
        lines = ["version: 0.1", "log:", "  level: error", "storage:", "  filesystem:",
                 f"    rootdirectory: {self.folder / 'data'}", "http:", f"  addr: 127.0.0.1:{self.port}"]
        if self.tls:
            (self.folder / "server.crt").write_bytes(self.tls.server_cert)
            (self.folder / "server.key").write_bytes(self.tls.server_key)
            lines += ["  tls:", f"    certificate: {self.folder / 'server.crt'}", f"    key: {self.folder / 'server.key'}"]
        if self.username:
            hashed = bcrypt.hashpw(self.password.encode(), bcrypt.gensalt(rounds=4)).decode()
            (self.folder / "htpasswd").write_text(f"{self.username}:{hashed}\n")
            lines += ["auth:", "  htpasswd:", "    realm: test-registry", f"    path: {self.folder / 'htpasswd'}"]
        if self.token:
            (self.folder / "token-ca.pem").write_bytes(self.token.pki.ca_pem)
            lines += ["auth:", "  token:", f"    realm: {self.token.realm}", f"    service: {self.token.service}",
                      f"    issuer: {self.token.issuer}", f"    rootcertbundle: {self.folder / 'token-ca.pem'}"]
        (self.folder / "config.yml").write_text("\n".join(lines) + "\n")
        log = open(self.folder / "registry.log", "ab")
        self.process = subprocess.Popen([self.binary, "serve", str(self.folder / "config.yml")],
                                        stdout=log, stderr=subprocess.STDOUT,
                                        env={**os.environ, "OTEL_TRACES_EXPORTER": "none"})
        deadline = time.monotonic() + REGISTRY_START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"registry exited: {(self.folder / 'registry.log').read_text()[-2000:]}")
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return self
            time.sleep(0.05)
        raise RuntimeError("registry did not start")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@dataclass
class TokenServer:
    """A Docker token service (``GET /token?service=..&scope=..``) issuing ES256 JWTs with an
    ``x5c`` chain the registry verifies against ``rootcertbundle``; basic auth decides access."""

    pki: Pki
    username: str
    password: str
    service: str = "test-registry"
    issuer: str = "test-issuer"
    issued: list[str] = field(default_factory=list)
    """Scopes a token was issued for."""
    _server: http.server.ThreadingHTTPServer | None = None

    @property
    def realm(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/token"

    def start(self) -> TokenServer:
        from urllib.parse import parse_qs, urlparse
        from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

        owner = self
        key = serialization.load_pem_private_key(self.pki.client_key, password=None)
        cert_der = x509.load_pem_x509_certificate(self.pki.client_cert).public_bytes(serialization.Encoding.DER)

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802
                query = parse_qs(urlparse(self.path).query)
                expected = "Basic " + base64.b64encode(f"{owner.username}:{owner.password}".encode()).decode()
                given = self.headers.get("Authorization", "")
                if given and given != expected:
                    self._reply(401, b'{"errors":[{"code":"UNAUTHORIZED"}]}')
                    return
                access = []
                for scope in query.get("scope", []):
                    kind, name, actions = scope.split(":")
                    owner.issued.append(scope)
                    if given:  # anonymous callers get a token without access
                        access.append({"type": kind, "name": name, "actions": actions.split(",")})
                now = int(time.time())
                header = {"alg": "ES256", "typ": "JWT", "x5c": [base64.b64encode(cert_der).decode()]}
                claims = {"iss": owner.issuer, "sub": owner.username, "aud": query.get("service", [""])[0],
                          "exp": now + 300, "nbf": now - 10, "iat": now, "jti": str(now), "access": access}
                import json as _json
                signing_input = (_b64url(_json.dumps(header).encode()) + "." +
                                 _b64url(_json.dumps(claims).encode())).encode()
                r, s = decode_dss_signature(key.sign(signing_input, ec.ECDSA(hashes.SHA256())))  # type: ignore[union-attr,call-arg]
                token = signing_input.decode() + "." + _b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))
                self._reply(200, _json.dumps({"token": token, "expires_in": 300}).encode())

            def _reply(self, status: int, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
