"""Kubeconfig files for the local control plane.

Rule: credentials are embedded (``*-data`` fields), so a kubeconfig keeps working when copied
and needs nothing but itself; the context is named after the cluster, ``e2e`` by default.
"""
from __future__ import annotations

import base64
from pathlib import Path

import yaml

from e2e.cluster import pki as pki_module


def render(*, server: str, pki: pki_module.Pki, user: str, name: str = "e2e") -> str:
    """A kubeconfig for ``server`` using the client certificate ``pki.cert(user)``."""
    def data(path: Path) -> str:
        return base64.b64encode(path.read_bytes()).decode()

    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": name, "cluster": {
            "server": server, "certificate-authority-data": data(pki.ca_cert)}}],
        "users": [{"name": f"{name}-{user}", "user": {
            "client-certificate-data": data(pki.cert(user)),
            "client-key-data": data(pki.key(user))}}],
        "contexts": [{"name": name, "context": {"cluster": name, "user": f"{name}-{user}"}}],
        "current-context": name,
        "preferences": {},
    }
    return yaml.safe_dump(config, sort_keys=False)


def write(path: Path, *, server: str, pki: pki_module.Pki, user: str, name: str = "e2e") -> Path:
    """Write ``render(...)`` to ``path`` readable by the owner only."""
    path.write_text(render(server=server, pki=pki, user=user, name=name))
    path.chmod(0o600)
    return path


def write_token(path: Path, *, admin: Path, user: str, token: str) -> Path:
    """A kubeconfig at ``path`` for ``admin``'s cluster (its current context's) that
    authenticates with a bearer ``token`` (a ServiceAccount's, as a controller in a cluster
    does), readable by the owner only."""
    config = yaml.safe_load(admin.read_text())
    context = next(c for c in config["contexts"] if c["name"] == config["current-context"])["context"]
    cluster = next(c for c in config["clusters"] if c["name"] == context["cluster"])
    path.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "clusters": [cluster],
        "users": [{"name": user, "user": {"token": token}}],
        "contexts": [{"name": user, "context": {"cluster": cluster["name"], "user": user}}],
        "current-context": user}))
    path.chmod(0o600)
    return path
