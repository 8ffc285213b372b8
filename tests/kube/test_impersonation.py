"""Impersonation headers: a ServiceAccount is one user name; a user goes with all of its
identity (groups on repeated lines, uid, extra with percent-encoded keys). The API server's
answer to them is shown in e2e/test_kube_impersonation.py and e2e/test_operator_requester.py."""
from __future__ import annotations

import types

import pytest
from kubernetes import client as k8s_client

from helm_core.kube import client as kclient
from helm_core.kube import fake, live


def _headers(client: live.LiveClient) -> list[tuple[str, str]]:
    _method, _url, headers, *_ = client._serialize("GET", "/api/v1/namespaces", query=[],
                                                   headers={"Accept": "application/json"})
    return [(k, v) for k, v in headers.items() if k.lower().startswith("impersonate-")]


@pytest.fixture
def admin() -> live.LiveClient:
    configuration = k8s_client.Configuration()
    configuration.host = "https://127.0.0.1:1"
    return live.LiveClient(k8s_client.ApiClient(configuration))


def test_the_controller_itself_sends_no_impersonation(admin: live.LiveClient) -> None:
    assert _headers(admin) == [] and admin.identity is None


def test_a_service_account_is_its_user_name(admin: live.LiveClient) -> None:
    deployer = admin.impersonate(service_account="deployer", namespace="team")
    assert _headers(deployer) == [("Impersonate-User", "system:serviceaccount:team:deployer")]


def test_a_user_is_sent_with_groups_uid_and_extra(admin: live.LiveClient) -> None:
    alice = admin.impersonate(identity=kclient.Identity.of({
        "username": "alice", "uid": "42", "groups": ["devs", "system:authenticated"],
        "extra": {"authentication.kubernetes.io/credential-id": ["X509SHA256=ab"],
                  "scopes": ["read", "write"]}}))
    assert _headers(alice) == [
        ("Impersonate-User", "alice"), ("Impersonate-Group", "devs"),
        ("Impersonate-Group", "system:authenticated"), ("Impersonate-Uid", "42"),
        ("Impersonate-Extra-authentication.kubernetes.io%2Fcredential-id", "X509SHA256=ab"),
        ("Impersonate-Extra-scopes", "read"), ("Impersonate-Extra-scopes", "write")]


def test_identity_of_a_user_info() -> None:
    assert kclient.Identity.of({"username": "bob", "extra": {"b": ["2"], "a": ["1"]}}) == kclient.Identity(
        username="bob", extra=(("a", ("1",)), ("b", ("2",))))
    assert str(kclient.Identity("bob")) == 'user "bob"'


def test_acting_as_needs_someone() -> None:
    with pytest.raises(ValueError, match="a service account and its namespace, or an identity"):
        kclient.acting_as(service_account="deployer")
    with pytest.raises(ValueError, match="without a username"):
        kclient.acting_as(identity=kclient.Identity(""))


def test_the_fake_records_who_it_acts_as() -> None:
    admin = fake.FakeCluster().client()
    assert admin.impersonate(identity=kclient.Identity("alice", ("devs",))).identity == \
        kclient.Identity("alice", ("devs",))
    assert admin.impersonate(service_account="d", namespace="n").user == "system:serviceaccount:n:d"


TOKEN_KUBECONFIG = {
    "apiVersion": "v1", "kind": "Config", "current-context": "c",
    "clusters": [{"name": "c", "cluster": {"server": "https://127.0.0.1:1"}}],
    "users": [{"name": "u", "user": {"token": "abc"}}],
    "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}]}


def test_the_credential_refresh_runs_once_a_second_not_per_request(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The kubernetes package re-applies a token kubeconfig before every request, reading the
    proxy variables each time (~5 % of the controller's CPU); the client runs it at most once
    every ``CREDENTIALS_REFRESH_S``, and the token still goes with every request."""
    from kubernetes.client import configuration as k8s_configuration

    reads: list[int] = []
    real = k8s_configuration.getproxies
    monkeypatch.setattr(k8s_configuration, "getproxies", lambda: reads.append(1) or real())
    now = [1000.0]
    monkeypatch.setattr(live, "time", types.SimpleNamespace(monotonic=lambda: now[0]), raising=False)
    client = live.connect(live.LiveOptions(config=TOKEN_KUBECONFIG))
    reads.clear()

    def authorization() -> str:
        _method, _url, headers, *_ = client._serialize("GET", "/api/v1/namespaces", query=[],
                                                       headers={"Accept": "application/json"})
        return str(headers["authorization"])

    assert [authorization() for _ in range(50)] == ["Bearer abc"] * 50
    assert len(reads) == 1
    now[0] += live.CREDENTIALS_REFRESH_S
    assert authorization() == "Bearer abc" and len(reads) == 2
