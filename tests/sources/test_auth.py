"""Credentials from Secrets and the same-origin rule."""
from __future__ import annotations

import base64
import json

import httpx
import pytest

from helm_core.sources import auth


@pytest.mark.parametrize("data, expected", [
    ({"username": b"u\n", "password": b"p"}, auth.Credentials(username="u", password="p")),
    ({"bearerToken": b"t"}, auth.Credentials(token="t")),
    ({"ca.crt": b"CA", "tls.crt": b"C", "tls.key": b"K"}, auth.Credentials(ca_pem=b"CA", cert_pem=b"C", key_pem=b"K")),
    ({"caFile": b"CA", "certFile": b"C", "keyFile": b"K"}, auth.Credentials(ca_pem=b"CA", cert_pem=b"C", key_pem=b"K")),
], ids=["basic", "bearer", "flux-tls", "flux-legacy-tls"])
def test_from_secret(data: dict[str, bytes], expected: auth.Credentials) -> None:
    assert auth.from_secret(data) == expected


@pytest.mark.parametrize("entry, expected", [
    ({"username": "a", "password": "b"}, ("a", "b")),
    ({"auth": base64.b64encode(b"c:d:e").decode()}, ("c", "d:e")),
], ids=["fields", "auth-field"])
def test_docker_config_secret(entry: dict[str, str], expected: tuple[str, str]) -> None:
    raw = json.dumps({"auths": {"other:5000": {"username": "x", "password": "y"},
                                "https://reg.example:5000/v2/": entry}}).encode()
    creds = auth.from_secret({".dockerconfigjson": raw}, registry="reg.example:5000")
    assert (creds.username, creds.password) == expected


@pytest.mark.parametrize("a, b, same", [
    ("https://h/x", "https://h:443/y", True),
    ("https://h/x", "http://h/x", False),
    ("https://h:8443/", "https://h/", False),
    ("https://h/", "https://g/", False),
], ids=["default-port", "scheme", "port", "host"])
def test_same_origin(a: str, b: str, same: bool) -> None:
    assert auth.same_origin(httpx.URL(a), httpx.URL(b)) is same


def test_public_names() -> None:
    from helm_core import sources
    assert sorted(sources.__all__) == ["Cache", "ChartRef", "Credentials", "KINDS", "ResolvedChart", "resolve"]
    assert all(hasattr(sources, name) for name in sources.__all__)
