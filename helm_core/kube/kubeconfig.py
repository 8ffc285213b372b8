"""Kubeconfigs handed in by users (Flux's ``spec.kubeConfig.secretRef``): read and checked
before anything connects with them.

Rules:
- The Secret's key is the one asked for, else ``value``, else ``value.yaml`` (Flux's
  defaults); a missing key names the keys the Secret has.
- The kubeconfig must be self-contained: certificates, keys and tokens inline
  (``certificate-authority-data``, ``client-certificate-data``, ``client-key-data``,
  ``token``, ``username``/``password``). References to files (``certificate-authority``,
  ``client-certificate``, ``client-key``, ``tokenFile``) and credential plugins (``exec``,
  ``auth-provider``) are refused: they would read the controller's own files (its service
  account token among them) or run commands inside the controller.
- The current context (else the only one) names the cluster and user.
"""
from __future__ import annotations

import base64
import hashlib
import threading
from collections.abc import Mapping
from typing import Any

from helm_core.errors import ClusterError
from helm_core.golib import goyaml
from helm_core.kube import client as kclient

DEFAULT_KEYS = ("value", "value.yaml")
FORBIDDEN_USER_FIELDS = ("exec", "auth-provider", "client-certificate", "client-key", "tokenFile")
FORBIDDEN_CLUSTER_FIELDS = ("certificate-authority",)


def from_secret(secret: Mapping[str, Any], *, key: str = "", where: str = "kubeConfig.secretRef"
                ) -> bytes:
    """The kubeconfig bytes a Secret holds under ``key`` (Flux's default keys when empty)."""
    data = secret.get("data") or {}
    name = (secret.get("metadata") or {}).get("name", "?")
    keys = (key,) if key else DEFAULT_KEYS
    for k in keys:
        if k in data:
            try:
                return base64.b64decode(data[k])
            except ValueError as exc:
                raise ClusterError(f"{where}: Secret {name} key {k!r} is not base64: {exc}") from None
    raise ClusterError(f"{where}: Secret {name} has no key {' or '.join(repr(k) for k in keys)} "
                       f"(it has: {', '.join(sorted(data)) or 'none'})")


def parse(text: bytes, *, where: str = "kubeConfig") -> dict[str, Any]:
    """The kubeconfig as a dict, checked (module rules); ``ClusterError`` names what is wrong."""
    try:
        config = goyaml.load(text.decode("utf-8"), source=where)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ClusterError(f"{where}: not a valid kubeconfig: {exc}") from None
    if not isinstance(config, dict) or not config.get("clusters"):
        raise ClusterError(f"{where}: not a valid kubeconfig: no clusters")
    for section, forbidden in (("users", FORBIDDEN_USER_FIELDS), ("clusters", FORBIDDEN_CLUSTER_FIELDS)):
        inner_key = section[:-1]
        for entry in config.get(section) or []:
            body = (entry or {}).get(inner_key) or {}
            for field in forbidden:
                if body.get(field):
                    raise ClusterError(
                        f"{where}: {section[:-1]} {entry.get('name', '?')!r} uses {field!r}: a "
                        f"kubeconfig for the controller must be self-contained (inline "
                        f"certificates and tokens, no files or credential plugins)")
    contexts = config.get("contexts") or []
    if not config.get("current-context"):
        if len(contexts) != 1:
            raise ClusterError(f"{where}: no current-context and {len(contexts)} contexts")
        config = dict(config, **{"current-context": contexts[0].get("name")})
    return dict(config)


def digest(text: bytes) -> str:
    """Identity of a kubeconfig's content (clients are cached by it)."""
    return hashlib.sha256(text).hexdigest()


MAX_CLIENTS = 64
"""Remote clients kept (one connection pool each); the oldest is dropped past it."""


class Clients:
    """Clients of remote clusters by kubeconfig content: one connection pool per distinct
    kubeconfig, a rotated one (new content) gets a new client. Thread-safe."""

    def __init__(self, *, field_manager: str = kclient.FIELD_MANAGER,
                 max_clients: int = MAX_CLIENTS) -> None:
        self._field_manager = field_manager
        self._max = max_clients
        self._clients: dict[str, kclient.ClusterClient] = {}
        self._lock = threading.Lock()

    def get(self, text: bytes, *, where: str = "kubeConfig") -> kclient.ClusterClient:
        key = digest(text)
        with self._lock:
            found = self._clients.get(key)
        if found is not None:
            return found
        from helm_core.kube import live

        made = live.connect(live.LiveOptions(config=parse(text, where=where),
                                             field_manager=self._field_manager))
        with self._lock:
            self._clients[key] = made
            while len(self._clients) > self._max:
                self._clients.pop(next(iter(self._clients)))
        return made
