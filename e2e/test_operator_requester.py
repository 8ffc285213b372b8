"""Requester mode on the local control plane: releases run with the RBAC of the person who
applied the HelmRequest (docs/requester.md).

The module installs deploy/requester/policy.yaml (the admission stamp) and runs the controller
as a ServiceAccount holding exactly deploy/rbac.yaml + deploy/requester/rbac.yaml, with
``--act-as requester``; namespace ``other`` is labelled ``helm.sh/act-as=serviceaccount`` (the
admin's per-namespace override). Users are real: client certificates signed through the CSR
API (alice in group ``devs``, which alone holds her rights in ``team``; bob, with fewer rights,
by name).
"""
from __future__ import annotations

import base64
import copy
import secrets
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubernetes import client as k8s
from kubernetes import config as k8s_config
from kubernetes.client.rest import ApiException

from e2e import requester_kit
from e2e.conftest import ClusterInfo, Kubectl, create_namespace
from e2e.operator_kit import (
    FULL_RULES,
    GROUP,
    PLURAL,
    ROOT,
    VERSION,
    Controller,
    chart_tgz,
    condition,
    setup_namespace,
    wait_for,
)

pytestmark = pytest.mark.e2e

POLICY = ROOT / "deploy" / "requester" / "policy.yaml"
TIMEOUT_S = 90.0

CHART = {
    "Chart.yaml": "apiVersion: v2\nname: team-app\nversion: 0.1.0\n",
    "values.yaml": "greeting: hello\n",
    "templates/cm.yaml": ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\n"
                          "data:\n  greeting: {{ .Values.greeting | quote }}\n"),
    "templates/svc.yaml": ("apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}-svc\n"
                           "spec:\n  ports:\n    - port: 80\n"),
}
CLUSTER_CHART = dict(CHART, **{"templates/role.yaml": (
    "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n"
    "  name: {{ .Release.Name }}-{{ .Release.Namespace }}-reader\nrules:\n"
    "  - apiGroups: [\"\"]\n    resources: [pods]\n    verbs: [get]\n")})

#: What a team member may do in their namespace: the release's objects, its records (Release,
#: version Secrets) and HelmRequests. Nothing cluster-wide.
TEAM_RULES = copy.deepcopy(FULL_RULES)
TEAM_RULES[0]["resources"] += ["helmrequests"]
#: bob: the same without Services.
NO_SERVICES = [dict(TEAM_RULES[0], resources=[r for r in TEAM_RULES[0]["resources"] if r != "services"])]


def _rules(path: Path, kind: str = "ClusterRole") -> list[dict[str, Any]]:
    return next(d for d in yaml.safe_load_all(path.read_text()) if d and d["kind"] == kind)["rules"]


def _dry_run_stamp(objects: k8s.CustomObjectsApi, namespace: str) -> Any:
    """The stamp admission puts on a request now (a server-side dry run goes through it)."""
    body = {"apiVersion": f"{GROUP}/{VERSION}", "kind": "HelmRequest",
            "metadata": {"name": f"probe-{secrets.token_hex(3)}", "namespace": namespace},
            "spec": {"chart": {"configMapRef": {"name": "chart"}}}}
    return objects.create_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, body,
                                                   dry_run="All").get("requester")


def _wait_policy(objects: k8s.CustomObjectsApi, namespace: str, active: bool) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            if (_dry_run_stamp(objects, namespace) is not None) == active:
                return
        except ApiException as exc:  # a CRD just Established may not be served for a moment
            if exc.status not in (404, 503):
                raise
        if time.monotonic() > deadline:
            raise AssertionError(f"the admission policy did not become {'active' if active else 'inactive'}")
        time.sleep(0.3)


class Env:
    """The module's cluster state: namespaces, users' API clients, the controller."""

    def __init__(self, team: str, other: str, alice: k8s.ApiClient, alice_name: str,
                 bob: k8s.ApiClient, bob_name: str, controller_user: str) -> None:
        self.team, self.other = team, other
        self.alice, self.alice_name = k8s.CustomObjectsApi(alice), alice_name
        self.bob, self.bob_name = k8s.CustomObjectsApi(bob), bob_name
        self.controller_user = controller_user


def _request(name: str, *, chart: str = "chart", **extra: Any) -> dict[str, Any]:
    return {"apiVersion": f"{GROUP}/{VERSION}", "kind": "HelmRequest",
            "metadata": {"name": name},
            "spec": {"chart": {"configMapRef": {"name": chart}}, "interval": "3s",
                     "install": {"timeout": "60s"}, "upgrade": {"timeout": "60s"}},
            **extra}


@pytest.fixture(scope="module")
def env(cluster: ClusterInfo, api: k8s.ApiClient, kubectl: Kubectl,
        tmp_path_factory: pytest.TempPathFactory) -> Iterator[Env]:
    tmp = tmp_path_factory.mktemp("requester")
    suffix = secrets.token_hex(3)
    for crd in ("helmrequest.yaml", "release.yaml"):
        kubectl("apply", "-f", str(ROOT / "manifests" / "crds" / crd))
    kubectl("wait", "--for=condition=Established", "crd/helmrequests.helm.sh", "crd/releases.helm.sh",
            "--timeout=60s")
    core, rbac = k8s.CoreV1Api(api), k8s.RbacAuthorizationV1Api(api)
    objects = k8s.CustomObjectsApi(api)
    team = create_namespace(api, "requester-team")
    other = create_namespace(api, "requester-sa")
    for namespace, chart in ((team, CHART), (other, CHART)):
        core.create_namespaced_config_map(namespace, {"metadata": {"name": "chart"}, "binaryData": {
            "chart.tgz": base64.b64encode(chart_tgz(chart, "team-app")).decode()}})
    core.create_namespaced_config_map(team, {"metadata": {"name": "cluster-chart"}, "binaryData": {
        "chart.tgz": base64.b64encode(chart_tgz(CLUSTER_CHART, "team-app")).decode()}})
    # A request made before the policy exists carries no stamp.
    kubectl("delete", "-f", str(POLICY), "--ignore-not-found")
    _wait_policy(objects, team, active=False)
    objects.create_namespaced_custom_object(GROUP, VERSION, team, PLURAL,
                                            dict(_request("legacy"), metadata={"name": "legacy"}))
    kubectl("apply", "-f", str(POLICY))
    _wait_policy(objects, team, active=True)

    # Users: alice's rights come from her group only (so the groups must be impersonated too).
    devs = f"devs-{suffix}"
    alice_name, bob_name = f"alice-{suffix}", f"bob-{suffix}"
    for name, rules in (("team", TEAM_RULES), ("no-services", NO_SERVICES)):
        rbac.create_namespaced_role(team, {"metadata": {"name": name}, "rules": rules})
    for binding, role, subject in (("devs", "team", {"kind": "Group", "name": devs}),
                                   ("bob", "no-services", {"kind": "User", "name": bob_name})):
        rbac.create_namespaced_role_binding(team, {
            "metadata": {"name": binding},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": role},
            "subjects": [dict(subject, apiGroup="rbac.authorization.k8s.io")]})
    alice_cfg = requester_kit.mint_user(api, cluster.kubeconfig, tmp, alice_name, (devs,))
    bob_cfg = requester_kit.mint_user(api, cluster.kubeconfig, tmp, bob_name)

    # The controller: a ServiceAccount bound to what deploy/ grants, nothing else.
    ops = create_namespace(api, "requester-ops")
    core.create_namespaced_service_account(ops, {"metadata": {"name": "helm-operator"}})
    roles = {f"helm-operator-{suffix}": _rules(ROOT / "deploy" / "rbac.yaml"),
             f"helm-operator-act-as-requester-{suffix}": _rules(ROOT / "deploy" / "requester" / "rbac.yaml")}
    for name, rules in roles.items():
        rbac.create_cluster_role({"metadata": {"name": name}, "rules": rules})
        rbac.create_cluster_role_binding({
            "metadata": {"name": name},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
            "subjects": [{"kind": "ServiceAccount", "name": "helm-operator", "namespace": ops}]})
    setup_namespace(api, other, chart=None)  # the "deployer" ServiceAccount of SA mode
    core.patch_namespace(other, {"metadata": {"labels": {"helm.sh/act-as": "serviceaccount"}}})
    controller_cfg = requester_kit.service_account_kubeconfig(
        api, cluster.kubeconfig, tmp / "controller.kubeconfig", ops, "helm-operator")
    ctl = Controller(ClusterInfo(kubeconfig=controller_cfg, server=cluster.server, bin_dir=cluster.bin_dir),
                     tmp / "controller.log", args=("--namespace", f"{team},{other}", "--act-as", "requester"))
    ctl.start()
    try:
        yield Env(team, other, k8s_config.new_client_from_config(config_file=str(alice_cfg)), alice_name,
                  k8s_config.new_client_from_config(config_file=str(bob_cfg)), bob_name,
                  f"system:serviceaccount:{ops}:helm-operator")
    finally:
        ctl.stop()
        print(ctl.log.read_text()[-4000:], file=sys.stderr)
        for namespace in (team, other):  # the controller is gone: nothing removes its finalizers
            for item in objects.list_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL)["items"]:
                objects.patch_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL,
                                                       item["metadata"]["name"], {"metadata": {"finalizers": None}})
        for namespace in (team, other, ops):
            core.delete_namespace(namespace)
        for name in roles:
            rbac.delete_cluster_role_binding(name)
            rbac.delete_cluster_role(name)
        for name in (alice_name, bob_name):
            k8s.CertificatesV1Api(api).delete_certificate_signing_request(name)
        kubectl("delete", "-f", str(POLICY), "--ignore-not-found")


def _create(client: k8s.CustomObjectsApi, namespace: str, body: dict[str, Any]) -> dict[str, Any]:
    return requester_kit.retry_forbidden(  # type: ignore[no-any-return]
        lambda: client.create_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, body))


def _ready(obj: dict[str, Any]) -> bool:
    ready = condition(obj, "Ready")
    return bool(ready and ready["status"] == "True"
                and obj["status"].get("observedGeneration") == obj["metadata"]["generation"])


def _release_status(api: k8s.ApiClient, namespace: str, name: str) -> dict[str, Any]:
    return k8s.CustomObjectsApi(api).get_namespaced_custom_object(  # type: ignore[no-any-return]
        GROUP, VERSION, namespace, "releases", name)["status"]


def test_a_request_is_installed_as_its_requester(env: Env, api: k8s.ApiClient) -> None:
    stored = _create(env.alice, env.team, _request("app"))
    assert stored["requester"]["username"] == env.alice_name
    assert f"devs-{env.alice_name.split('-')[1]}" in stored["requester"]["groups"]
    obj = wait_for(env.alice, env.team, _ready, name="app", timeout=TIMEOUT_S)
    assert obj["status"]["lastAppliedBy"] == env.alice_name
    # the Release's record names her
    release = _release_status(api, env.team, "app")
    assert release["description"] == (f'Install by HelmRequest {env.team}/app as user "{env.alice_name}"')
    core = k8s.CoreV1Api(api)
    assert core.read_namespaced_config_map("app-cm", env.team).data == {"greeting": "hello"}
    deadline = time.monotonic() + 30
    while True:  # the Event follows the status write
        events = core.list_namespaced_event(env.team, field_selector="involvedObject.name=app").items
        acted = [e.message for e in events if e.reason == "ActedAsRequester"]
        if acted or time.monotonic() > deadline:
            break
        time.sleep(0.3)
    assert acted and acted[0].startswith(f'install ran as user "{env.alice_name}" (groups: ')


def test_a_chart_beyond_the_requesters_rights_is_forbidden_naming_her(env: Env, api: k8s.ApiClient) -> None:
    _create(env.alice, env.team, _request("wide", chart="cluster-chart"))
    obj = wait_for(env.alice, env.team, lambda o: condition(o, "Stalled") is not None, name="wide",
                   timeout=TIMEOUT_S)
    stalled = condition(obj, "Stalled")
    # refused by the ownership read of the ClusterRole, before any version is stored (as helm's
    # install checks existing objects before it records the release): Flux's failed install,
    # not counted, and Forbidden stalls at once
    assert (stalled["reason"], condition(obj, "Ready")["reason"]) == ("Forbidden", "InstallFailed")
    assert "installFailures" not in obj["status"]
    assert f'User "{env.alice_name}" cannot' in stalled["message"]
    assert "clusterroles" in stalled["message"]
    with pytest.raises(ApiException) as gone:
        k8s.RbacAuthorizationV1Api(api).read_cluster_role(f"wide-{env.team}-reader")
    assert gone.value.status == 404


def test_a_forged_identity_is_replaced_by_the_writers_own(env: Env) -> None:
    forged = {"username": "system:admin", "groups": ["system:masters"], "uid": "0"}
    stored = _create(env.alice, env.team, _request("forged", requester=forged))
    assert stored["requester"]["username"] == env.alice_name
    assert "system:masters" not in stored["requester"]["groups"] and "uid" not in stored["requester"]
    # rewriting it later is stamped over too
    patched = env.alice.patch_namespaced_custom_object(GROUP, VERSION, env.team, PLURAL, "forged",
                                                       {"requester": forged})
    assert patched["requester"]["username"] == env.alice_name
    assert patched["requester"]["groups"] == stored["requester"]["groups"]
    obj = wait_for(env.alice, env.team, _ready, name="forged", timeout=TIMEOUT_S)
    assert obj["status"]["lastAppliedBy"] == env.alice_name


def test_an_edit_by_a_user_with_fewer_rights_runs_with_their_rights(env: Env, api: k8s.ApiClient) -> None:
    _create(env.alice, env.team, _request("shared"))
    wait_for(env.alice, env.team, _ready, name="shared", timeout=TIMEOUT_S)
    edited = requester_kit.retry_forbidden(lambda: env.bob.patch_namespaced_custom_object(
        GROUP, VERSION, env.team, PLURAL, "shared", {"spec": {"values": {"greeting": "from bob"}}}))
    assert edited["requester"]["username"] == env.bob_name
    obj = wait_for(env.alice, env.team, lambda o: condition(o, "Stalled") is not None
                   and o["status"].get("observedGeneration") == o["metadata"]["generation"],
                   name="shared", timeout=TIMEOUT_S)
    stalled = condition(obj, "Stalled")
    assert (stalled["reason"], condition(obj, "Ready")["reason"]) == ("RetriesExceeded", "UpgradeFailed")
    assert stalled["message"] == "Failed to upgrade after 1 attempt(s)"  # Flux's; the failure is Ready's
    failure = condition(obj, "Ready")["message"]
    assert failure.startswith(f"Helm upgrade failed for release {env.team}/shared with chart ")
    assert ": Forbidden: " in failure
    assert f'User "{env.bob_name}" cannot patch resource "services"' in failure
    assert obj["status"]["lastAppliedBy"] == env.alice_name  # bob's upgrade did not happen
    # the admin grants bob Services: a failed upgrade out of retries is tried again only when
    # asked (Flux's rule), here by `flux reconcile hr --reset`; it then upgrades, as bob
    rbac = k8s.RbacAuthorizationV1Api(api)
    rbac.create_namespaced_role_binding(env.team, {
        "metadata": {"name": "bob-team"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "team"},
        "subjects": [{"kind": "User", "name": env.bob_name, "apiGroup": "rbac.authorization.k8s.io"}]})
    k8s.CustomObjectsApi(api).patch_namespaced_custom_object(GROUP, VERSION, env.team, PLURAL, "shared", {
        "metadata": {"annotations": {"reconcile.fluxcd.io/requestedAt": "t1", "reconcile.fluxcd.io/resetAt": "t1"}}})
    obj = wait_for(env.alice, env.team, _ready, name="shared", timeout=TIMEOUT_S)
    assert obj["status"]["lastAppliedBy"] == env.bob_name
    assert k8s.CoreV1Api(api).read_namespaced_config_map("shared-cm", env.team).data == {"greeting": "from bob"}
    assert _release_status(api, env.team, "shared")["description"] == (
        f'Upgrade by HelmRequest {env.team}/shared as user "{env.bob_name}"')


def test_a_request_without_a_stamp_is_refused(env: Env, api: k8s.ApiClient) -> None:
    obj = wait_for(env.alice, env.team, lambda o: condition(o, "Stalled") is not None, name="legacy",
                   timeout=TIMEOUT_S)
    assert "requester" not in obj
    stalled = condition(obj, "Stalled")
    assert stalled["reason"] == "RequesterUnknown"
    assert "has no requester stamp" in stalled["message"]
    releases = k8s.CustomObjectsApi(api).list_namespaced_custom_object(GROUP, VERSION, env.team, "releases")
    assert "legacy" not in [r["metadata"]["name"] for r in releases["items"]]


def test_a_namespace_labelled_serviceaccount_keeps_that_mode(env: Env, api: k8s.ApiClient) -> None:
    objects = k8s.CustomObjectsApi(api)
    body = _request("app")
    body["spec"]["serviceAccountName"] = "deployer"
    objects.create_namespaced_custom_object(GROUP, VERSION, env.other, PLURAL, body)
    obj = wait_for(objects, env.other, _ready, name="app", timeout=TIMEOUT_S)
    assert obj["requester"]["username"] != ""  # stamped, but not used in this namespace
    assert "lastAppliedBy" not in obj["status"]
    assert _release_status(api, env.other, "app")["description"] == f"Install by HelmRequest {env.other}/app"


def test_deleting_a_request_uninstalls_as_the_requester(env: Env, api: k8s.ApiClient) -> None:
    _create(env.alice, env.team, _request("gone"))
    wait_for(env.alice, env.team, _ready, name="gone", timeout=TIMEOUT_S)
    env.alice.delete_namespaced_custom_object(GROUP, VERSION, env.team, PLURAL, "gone")
    core = k8s.CoreV1Api(api)
    deadline = time.monotonic() + TIMEOUT_S
    def events() -> list[str]:
        return [e.reason for e in core.list_namespaced_event(env.team, field_selector="involvedObject.name=gone").items]

    while "UninstallSucceeded" not in events():  # posted once the uninstall returned
        assert time.monotonic() < deadline, f"the release was not uninstalled: {events()}"
        time.sleep(0.3)
    assert "gone-cm" not in [c.metadata.name for c in core.list_namespaced_config_map(env.team).items]
