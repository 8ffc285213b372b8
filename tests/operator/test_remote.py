"""``spec.kubeConfig``: which client a release is applied with."""
from __future__ import annotations

import base64

import pytest

from helm_core.kube import fake
from helm_operator import errors, remote, settings

META = {"name": "app", "namespace": "apps"}
KUBECONFIG = b"apiVersion: v1\nclusters: [{name: c, cluster: {server: 'https://far'}}]\n"


@pytest.fixture
def local() -> fake.FakeClient:
    client = fake.FakeCluster().client()
    client.create({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "far", "namespace": "apps"},
                   "data": {"value": base64.b64encode(KUBECONFIG).decode()}})
    return client


def test_without_kubeconfig_the_local_client_acts(local):
    def never(_text: bytes):
        raise AssertionError("no remote client wanted")

    assert remote.target(local, META, {}, connect=never, security=settings.SecuritySettings()) is local


def test_the_remote_client_impersonates_the_request_service_account(local):
    far = fake.FakeCluster().client()
    seen: list[bytes] = []

    def connect(text: bytes):
        seen.append(text)
        return far

    spec = {"kubeConfig": {"secretRef": {"name": "far"}}, "serviceAccountName": "deployer"}
    client = remote.target(local, META, spec, connect=connect, security=settings.SecuritySettings())
    assert seen == [KUBECONFIG]
    assert client.cluster is far.cluster and client.user == "system:serviceaccount:apps:deployer"
    own = remote.target(local, META, {"kubeConfig": {"secretRef": {"name": "far"}}}, connect=connect,
                        security=settings.SecuritySettings())
    assert own is far


@pytest.mark.parametrize(("ref", "reason", "message"), [
    ({"name": "missing"}, "KubeConfigNotFound", "Secret apps/missing not found"),
    ({"name": "far", "key": "other"}, "InvalidKubeConfig", "has no key 'other' (it has: value)"),
])
def test_bad_references_are_request_errors(local, ref, reason, message):
    with pytest.raises(errors.RequestError, match=message.replace("(", r"\(").replace(")", r"\)")) as caught:
        remote.target(local, META, {"kubeConfig": {"secretRef": ref}}, connect=lambda _t: local,
                      security=settings.SecuritySettings())
    assert caught.value.reason == reason
