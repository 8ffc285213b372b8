"""Kubeconfigs from users' Secrets: the key rules and the self-contained check."""
from __future__ import annotations

import base64

import pytest

from helm_core.errors import ClusterError
from helm_core.kube import kubeconfig

GOOD = """apiVersion: v1
kind: Config
clusters:
- name: far
  cluster: {server: "https://far.example:6443", certificate-authority-data: Zm9v}
users:
- name: me
  user: {token: abc}
contexts:
- name: far
  context: {cluster: far, user: me}
"""


def secret(**data: str) -> dict:
    return {"metadata": {"name": "remote"},
            "data": {k: base64.b64encode(v.encode()).decode() for k, v in data.items()}}


def test_default_keys_value_then_value_yaml_and_explicit_key():
    assert kubeconfig.from_secret(secret(**{"value.yaml": "b"})) == b"b"
    assert kubeconfig.from_secret(secret(value="a", **{"value.yaml": "b"})) == b"a"
    assert kubeconfig.from_secret(secret(value="a", mine="c"), key="mine") == b"c"


def test_missing_key_names_the_keys_there():
    with pytest.raises(ClusterError, match=r"Secret remote has no key 'value' or 'value.yaml' \(it has: other\)"):
        kubeconfig.from_secret(secret(other="x"))


def test_single_context_becomes_current():
    config = kubeconfig.parse(GOOD.encode())
    assert config["current-context"] == "far"


@pytest.mark.parametrize(("section", "field", "text"), [
    ("user", "exec", "exec: {command: sh, apiVersion: client.authentication.k8s.io/v1}"),
    ("user", "auth-provider", "auth-provider: {name: gcp}"),
    ("user", "tokenFile", "tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token"),
    ("user", "client-key", "client-key: /etc/key.pem"),
    ("cluster", "certificate-authority", "certificate-authority: /etc/ca.pem"),
])
def test_files_and_plugins_are_refused(section, field, text):
    if section == "user":
        config = GOOD.replace("user: {token: abc}", f"user: {{{text}}}")
    else:
        config = GOOD.replace("certificate-authority-data: Zm9v", text)
    with pytest.raises(ClusterError, match=f"uses '{field}'.*self-contained"):
        kubeconfig.parse(config.encode())


def test_not_a_kubeconfig():
    with pytest.raises(ClusterError, match="no clusters"):
        kubeconfig.parse(b"a: b\n")
    with pytest.raises(ClusterError, match="2 contexts"):
        kubeconfig.parse(GOOD.replace("contexts:\n", "contexts:\n- name: other\n  context: {cluster: far, user: me}\n").encode())


def test_clients_are_cached_by_content():
    clients = kubeconfig.Clients()
    one = clients.get(GOOD.encode())
    assert clients.get(GOOD.encode()) is one
    assert clients.get(GOOD.replace("abc", "rotated").encode()) is not one
    assert one.server == "https://far.example:6443"
