"""Requester mode on the fake cluster seam: which mode a request gets, who it runs as, what is
refused, and what status, Events and release records say. RBAC itself is the API server's:
e2e/test_operator_requester.py shows it on the local control plane."""
from __future__ import annotations

import base64
from typing import Any

import kopf
import pytest
from helm_operator import errors, main, reconcile, requester, runner, settings
from helm_operator import metrics as metrics_mod

from helm_core import errors as core_errors
from helm_core.kube import client as kclient
from helm_core.kube import fake
from helm_core.sources import cache as cache_mod
from helm_core.sources import package

NS = "team"
CONTROLLER = "system:serviceaccount:ops:helm-operator"
RESOURCES = fake.FAKE_RESOURCES + (
    kclient.ApiResource("helm.sh/v1alpha1", "HelmRequest", "helmrequests", True),
    kclient.ApiResource("v1", "ServiceAccount", "serviceaccounts", True),
    kclient.ApiResource("authentication.k8s.io/v1", "SelfSubjectReview", "selfsubjectreviews", False),
)
CHART = package.archive_bytes("demo", [
    ("Chart.yaml", b"apiVersion: v2\nname: demo\nversion: 1.0.0\n"),
    ("templates/cm.yaml", (b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n"
                           b"data:\n  n: {{ .Values.n | default 0 | quote }}\n")),
])
ALICE = {"username": "alice", "uid": "u-1", "groups": ["devs", "system:authenticated"],
         "extra": {"scopes": ["read", "write"]}}


class World:
    def __init__(self, tmp_path, *, act_as: str = "serviceaccount", label: str | None = None) -> None:
        self.cluster = fake.FakeCluster(RESOURCES)
        self.admin = self.cluster.client("helm-operator")
        requester._own_names[self.admin] = CONTROLLER  # what a SelfSubjectReview answers
        self.events: list[tuple[str, str, str]] = []
        self.rt = reconcile.Runtime(
            settings=settings.OperatorSettings(security=settings.SecuritySettings(act_as=act_as)),
            admin=self.admin,
            impersonate=lambda sa, ns: self.admin.impersonate(service_account=sa, namespace=ns),
            cache=cache_mod.Cache(tmp_path / "cache"),
            post_event=lambda body, type_, *, reason, message: self.events.append((type_, reason, message)))
        self.metrics = metrics_mod.Metrics()
        labels = {requester.NAMESPACE_LABEL: label} if label is not None else {}
        self.admin.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS, "labels": labels}})
        self.admin.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "chart", "namespace": NS},
                           "binaryData": {"demo.tgz": base64.b64encode(CHART).decode()}})
        self.admin.create({"apiVersion": "v1", "kind": "ServiceAccount",
                           "metadata": {"name": "deployer", "namespace": NS}})

    def request(self, stamp: dict[str, Any] | None = ALICE, **spec: Any) -> dict[str, Any]:
        body: dict[str, Any] = {
            "apiVersion": "helm.sh/v1alpha1", "kind": "HelmRequest",
            "metadata": {"name": "app", "namespace": NS, "generation": 1, "uid": "uid-app"},
            "spec": {"chart": {"configMapRef": {"name": "chart"}}, "serviceAccountName": "deployer",
                     "install": {"wait": False}, "upgrade": {"wait": False}, **spec}}
        if stamp is not None:
            body["requester"] = stamp
        return self.admin.create(body)

    def current(self) -> dict[str, Any]:
        return self.admin.get(kclient.ObjectRef("helm.sh/v1alpha1", "HelmRequest", "app", NS))

    def run(self) -> dict[str, Any]:
        runner.apply(self.rt, self.current(), retry=0, metrics=self.metrics)
        return self.current()

    def release_description(self) -> str:
        release = self.admin.get(kclient.ObjectRef("helm.sh/v1alpha1", "Release", "app", NS))
        return str(release["status"]["description"])


def test_requester_mode_runs_as_the_stamped_user_and_says_so(tmp_path):
    w = World(tmp_path, act_as="requester")
    w.request()
    obj = w.run()
    assert obj["status"]["lastAppliedBy"] == "alice"
    assert w.release_description() == 'Install by HelmRequest team/app as user "alice"'
    message = ('install ran as user "alice" (groups: devs, system:authenticated), who last applied '
               "the request")
    assert ("Normal", requester.ACTED_AS, message) in w.events
    client = reconcile.client_for(w.rt, obj["metadata"], obj["spec"], obj)
    assert client.identity == kclient.Identity(  # type: ignore[attr-defined]
        username="alice", groups=("devs", "system:authenticated"), uid="u-1",
        extra=(("scopes", ("read", "write")),))


def test_service_account_mode_is_the_default_and_ignores_the_stamp(tmp_path):
    w = World(tmp_path)
    w.request()
    obj = w.run()
    assert "lastAppliedBy" not in obj["status"]
    assert w.release_description() == "Install by HelmRequest team/app"
    assert requester.ACTED_AS not in [e[1] for e in w.events]
    client = reconcile.client_for(w.rt, obj["metadata"], obj["spec"], obj)
    assert client.identity == kclient.Identity("system:serviceaccount:team:deployer")  # type: ignore[attr-defined]


@pytest.mark.parametrize("act_as,label,expected", [
    ("serviceaccount", "requester", "requester"),
    ("requester", "serviceaccount", "serviceaccount"),
    ("requester", None, "requester"),
    ("serviceaccount", None, "serviceaccount"),
])
def test_the_namespace_label_overrides_the_flag(tmp_path, act_as, label, expected):
    w = World(tmp_path, act_as=act_as, label=label)
    assert requester.mode(w.admin, NS, act_as) == expected


def test_a_namespace_label_that_is_no_mode_stalls(tmp_path):
    w = World(tmp_path, label="admin")
    w.request()
    with pytest.raises(kopf.PermanentError) as info:
        w.run()
    assert str(info.value) == ("label helm.sh/act-as of Namespace team must be one of "
                               "serviceaccount, requester, not 'admin'")
    assert {c["type"]: c["reason"] for c in w.current()["status"]["conditions"]}["Stalled"] == "ActAsInvalid"


def test_a_request_without_a_stamp_is_refused_and_nothing_is_made(tmp_path):
    w = World(tmp_path, act_as="requester")
    w.request(stamp=None)
    with pytest.raises(kopf.PermanentError) as info:
        w.run()
    assert str(info.value).startswith("HelmRequest team/app has no requester stamp (field 'requester')")
    stalled = [c for c in w.current()["status"]["conditions"] if c["type"] == "Stalled"]
    assert stalled[0]["reason"] == requester.REQUESTER_UNKNOWN
    with pytest.raises(core_errors.NotFoundError):
        w.admin.get(kclient.ObjectRef("v1", "ConfigMap", "app", NS))


def test_a_stamp_naming_the_controller_itself_is_refused(tmp_path):
    w = World(tmp_path, act_as="requester")
    w.request(stamp={"username": CONTROLLER, "groups": ["system:serviceaccounts"]})
    with pytest.raises(kopf.PermanentError) as info:
        w.run()
    assert str(info.value) == (f"HelmRequest team/app was last written by the controller itself "
                               f"({CONTROLLER}); the controller will not act with its own rights: "
                               "a user must apply the request")


def test_delete_without_a_stamp_in_requester_mode_is_refused_not_run_as_the_controller(tmp_path):
    w = World(tmp_path, act_as="requester")
    body = w.request(stamp=None)
    with pytest.raises(errors.RequestError) as info:
        reconcile.delete(w.rt, body)
    assert info.value.reason == requester.REQUESTER_UNKNOWN


def test_a_client_for_without_the_body_fails_closed(tmp_path):
    w = World(tmp_path, act_as="requester")
    body = w.request()
    with pytest.raises(errors.RequestError):
        reconcile.client_for(w.rt, body["metadata"], body["spec"])


@pytest.mark.parametrize("stamp", [None, {}, {"username": ""}, "alice", {"groups": ["devs"]}])
def test_no_usable_stamp(stamp):
    assert requester.stamped({"metadata": {}, **({} if stamp is None else {"requester": stamp})}) is None


def test_the_act_as_flag_and_variable():
    assert main.parse(["run"], {}).settings.security.act_as == "serviceaccount"
    assert main.parse(["run", "--act-as", "requester"], {}).settings.security.act_as == "requester"
    assert main.parse(["run"], {"HELM_OPERATOR_ACT_AS": "Requester"}).settings.security.act_as == "requester"
    with pytest.raises(ValueError) as info:
        main.parse(["run", "--act-as", "root"], {})
    assert str(info.value) == "act as must be one of serviceaccount, requester, not 'root'"


def test_deleting_an_unstamped_request_releases_the_finalizer_and_says_why(tmp_path):
    w = World(tmp_path, act_as="requester")
    body = w.request(stamp=None)
    runner.delete(w.rt, body, retry=0, metrics=w.metrics)
    assert w.events[-1][:2] == ("Warning", "FinalizerReleased")
    assert "has no requester stamp" in w.events[-1][2]


def test_uninstall_runs_as_the_requester(tmp_path):
    w = World(tmp_path, act_as="requester")
    w.request()
    version = w.run()["status"]["version"]
    assert reconcile.delete(w.rt, w.current()) == (
        f"Helm uninstall succeeded for release team/app.v{version} with chart demo@1.0.0")
    with pytest.raises(core_errors.NotFoundError):
        w.admin.get(kclient.ObjectRef("v1", "ConfigMap", "app", NS))


def test_the_label_is_remembered_for_a_while(tmp_path, monkeypatch):
    w = World(tmp_path, label="requester")
    assert requester.mode(w.admin, NS, "serviceaccount") == "requester"
    ns = w.admin.get(kclient.ObjectRef("v1", "Namespace", NS))
    ns["metadata"]["labels"] = {}
    w.admin.replace(ns)
    assert requester.mode(w.admin, NS, "serviceaccount") == "requester"  # within the TTL
    later = requester.time.monotonic() + requester.LABEL_TTL_S + 1
    monkeypatch.setattr(requester.time, "monotonic", lambda: later)
    assert requester.mode(w.admin, NS, "serviceaccount") == "serviceaccount"
