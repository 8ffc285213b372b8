"""The local control plane is a real API server: validation, RBAC, impersonation, GC, apply."""
from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException

from e2e.conftest import ClusterInfo

pytestmark = pytest.mark.e2e

EVENTUALLY_S = 30.0
"""How long an asynchronous effect (RBAC cache, garbage collector) may take."""


def eventually(check: Callable[[], Any], timeout_s: float = EVENTUALLY_S) -> Any:
    """Retry ``check`` until it returns a truthy value without raising; re-raise on timeout."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            result = check()
            if result:
                return result
        except (ApiException, AssertionError):
            if time.monotonic() > deadline:
                raise
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met after {timeout_s:.0f}s: {check}")
        time.sleep(0.2)


def status_message(exc: ApiException) -> str:
    return str(json.loads(exc.body)["message"])


# --- CRD: structural schema validation and pruning --------------------------------------------

def widget_crd(group: str) -> dict[str, Any]:
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"widgets.{group}"},
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
            "versions": [{
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {"openAPIV3Schema": {
                    "type": "object",
                    "properties": {"spec": {
                        "type": "object",
                        "required": ["size"],
                        "properties": {
                            "size": {"type": "integer", "minimum": 1, "maximum": 10},
                            "color": {"type": "string", "enum": ["red", "blue"]},
                        },
                    }},
                }},
            }],
        },
    }


@pytest.fixture
def widgets(api: k8s.ApiClient, namespace: str) -> Any:
    """A Widget CRD in a group unique to this test, established; deleted afterwards."""
    group = f"{namespace}.e2e.example.com"
    extensions = k8s.ApiextensionsV1Api(api)
    extensions.create_custom_resource_definition(widget_crd(group))

    def established() -> bool:
        crd = extensions.read_custom_resource_definition(f"widgets.{group}")
        return any(c.type == "Established" and c.status == "True"
                   for c in (crd.status.conditions or []))

    eventually(established)
    objects = k8s.CustomObjectsApi(api)

    def create(spec: dict[str, Any], name: str = "w") -> Any:
        body = {"apiVersion": f"{group}/v1", "kind": "Widget",
                "metadata": {"name": name}, "spec": spec}
        deadline = time.monotonic() + EVENTUALLY_S
        while True:
            try:
                return objects.create_namespaced_custom_object(
                    group, "v1", namespace, "widgets", body, field_validation="Ignore")
            except ApiException as exc:
                # A brand-new resource may be served a moment after it is Established.
                if exc.status != 404 or time.monotonic() > deadline:
                    raise
            time.sleep(0.2)

    yield create
    extensions.delete_custom_resource_definition(f"widgets.{group}")


def test_crd_object_with_unknown_fields_is_pruned(widgets: Any) -> None:
    created = widgets({"size": 3, "color": "red", "extra": "dropped", "nested": {"x": 1}})
    assert created["spec"] == {"size": 3, "color": "red"}


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        pytest.param({"size": 0}, 'Widget.{group}.e2e.example.com "w" is invalid: spec.size: '
                     "Invalid value: 0: spec.size in body should be greater than or equal to 1",
                     id="below-minimum"),
        pytest.param({"size": 2, "color": "green"},
                     'Widget.{group}.e2e.example.com "w" is invalid: spec.color: Unsupported '
                     'value: "green": supported values: "red", "blue"', id="not-in-enum"),
        pytest.param({"color": "red"}, 'Widget.{group}.e2e.example.com "w" is invalid: '
                     'spec.size: Required value', id="missing-required"),
        pytest.param({"size": "three"}, 'Widget.{group}.e2e.example.com "w" is invalid: '
                     'spec.size: Invalid value: "string": spec.size in body must be of type '
                     'integer: "string"', id="wrong-type"),
    ],
)
def test_crd_object_violating_schema_is_rejected(widgets: Any, namespace: str,
                                                 spec: dict[str, Any], message: str) -> None:
    with pytest.raises(ApiException) as caught:
        widgets(spec)
    assert caught.value.status == 422
    assert status_message(caught.value) == message.format(group=namespace)


# --- RBAC and impersonation -------------------------------------------------------------------

def service_account_client(cluster: ClusterInfo, api: k8s.ApiClient, namespace: str,
                           name: str) -> k8s.ApiClient:
    """A client authenticated with a real bound token of ServiceAccount ``name``."""
    core = k8s.CoreV1Api(api)
    core.create_namespaced_service_account(namespace, {"metadata": {"name": name}})
    token = core.create_namespaced_service_account_token(
        name, namespace, {"spec": {"expirationSeconds": 3600}}).status.token
    configuration = k8s.Configuration(host=cluster.server)
    configuration.ssl_ca_cert = api.configuration.ssl_ca_cert
    configuration.api_key = {"BearerToken": f"Bearer {token}"}
    configuration.api_key_prefix = {}
    return k8s.ApiClient(configuration)


def grant_configmap_reader(api: k8s.ApiClient, namespace: str, account: str) -> None:
    rbac = k8s.RbacAuthorizationV1Api(api)
    rbac.create_namespaced_role(namespace, {
        "metadata": {"name": "configmap-reader"},
        "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list"]}],
    })
    rbac.create_namespaced_role_binding(namespace, {
        "metadata": {"name": f"{account}-reads-configmaps"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                    "name": "configmap-reader"},
        "subjects": [{"kind": "ServiceAccount", "name": account, "namespace": namespace}],
    })


def test_service_account_is_denied_until_a_role_binding_grants_access(
        cluster: ClusterInfo, api: k8s.ApiClient, namespace: str) -> None:
    robot = k8s.CoreV1Api(service_account_client(cluster, api, namespace, "robot"))
    with pytest.raises(ApiException) as caught:
        robot.list_namespaced_config_map(namespace)
    assert caught.value.status == 403
    assert status_message(caught.value) == (
        f'configmaps is forbidden: User "system:serviceaccount:{namespace}:robot" cannot list '
        f'resource "configmaps" in API group "" in the namespace "{namespace}"')

    grant_configmap_reader(api, namespace, "robot")
    listed = eventually(lambda: robot.list_namespaced_config_map(namespace))
    assert "kube-root-ca.crt" in [item.metadata.name for item in listed.items]
    with pytest.raises(ApiException) as denied:
        robot.list_namespaced_secret(namespace)
    assert denied.value.status == 403


def test_admin_impersonating_a_service_account_gets_only_its_rights(
        api: k8s.ApiClient, namespace: str, cluster: ClusterInfo) -> None:
    k8s.CoreV1Api(api).create_namespaced_service_account(namespace, {"metadata": {"name": "bot"}})
    user = f"system:serviceaccount:{namespace}:bot"
    impersonating = cluster.api_client()
    impersonating.set_default_header("Impersonate-User", user)
    as_bot = k8s.CoreV1Api(impersonating)
    with pytest.raises(ApiException) as caught:
        as_bot.list_namespaced_config_map(namespace)
    assert status_message(caught.value) == (
        f'configmaps is forbidden: User "{user}" cannot list resource "configmaps" in API '
        f'group "" in the namespace "{namespace}"')

    grant_configmap_reader(api, namespace, "bot")
    assert eventually(lambda: as_bot.list_namespaced_config_map(namespace)).items
    review = k8s.AuthenticationV1Api(impersonating).create_self_subject_review(
        {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"})
    assert review.status.user_info.username == user


def test_service_account_cannot_impersonate_without_rbac(
        cluster: ClusterInfo, api: k8s.ApiClient, namespace: str) -> None:
    robot_client = service_account_client(cluster, api, namespace, "robot")
    robot_client.set_default_header("Impersonate-User", "kubernetes-admin")
    with pytest.raises(ApiException) as caught:
        k8s.CoreV1Api(robot_client).list_namespaced_config_map(namespace)
    assert caught.value.status == 403
    # Kubernetes 1.37 checks constrained impersonation (impersonate-on:<mode>:<verb>) first.
    assert status_message(caught.value) == (
        f'configmaps is forbidden: User "system:serviceaccount:{namespace}:robot" cannot '
        f'impersonate-on:user-info:list resource "configmaps" in API group "" in the namespace '
        f'"{namespace}"')


# --- garbage collection of owner references ---------------------------------------------------

def make_owned_pair(api: k8s.ApiClient, namespace: str) -> None:
    core = k8s.CoreV1Api(api)
    owner = core.create_namespaced_config_map(namespace, {"metadata": {"name": "owner"}})
    core.create_namespaced_config_map(namespace, {"metadata": {
        "name": "child",
        "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "owner",
                             "uid": owner.metadata.uid, "blockOwnerDeletion": True}],
    }})


@pytest.mark.parametrize("policy", ["Background", "Foreground"])
def test_garbage_collector_deletes_dependents_of_a_deleted_owner(
        api: k8s.ApiClient, namespace: str, policy: str) -> None:
    make_owned_pair(api, namespace)
    core = k8s.CoreV1Api(api)
    core.delete_namespaced_config_map("owner", namespace,
                                      body={"propagationPolicy": policy})

    def both_gone() -> bool:
        names = {item.metadata.name for item in core.list_namespaced_config_map(namespace).items}
        return not names & {"owner", "child"}

    eventually(both_gone)


def test_orphan_deletion_keeps_dependents_and_drops_their_owner_reference(
        api: k8s.ApiClient, namespace: str) -> None:
    make_owned_pair(api, namespace)
    core = k8s.CoreV1Api(api)
    core.delete_namespaced_config_map("owner", namespace, body={"propagationPolicy": "Orphan"})

    def orphaned() -> bool:
        names = {item.metadata.name for item in core.list_namespaced_config_map(namespace).items}
        child = core.read_namespaced_config_map("child", namespace)
        return "owner" not in names and not child.metadata.owner_references

    eventually(orphaned)


# --- server-side apply ------------------------------------------------------------------------

def apply(api: k8s.ApiClient, namespace: str, manager: str, data: dict[str, str],
          force: bool = False) -> Any:
    body = {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "shared", "namespace": namespace}, "data": data}
    return k8s.CoreV1Api(api).patch_namespaced_config_map(
        "shared", namespace, body, field_manager=manager, force=force,
        _content_type="application/apply-patch+yaml")


def test_server_side_apply_reports_a_conflict_between_two_managers(
        api: k8s.ApiClient, namespace: str) -> None:
    apply(api, namespace, "alice", {"colour": "red", "size": "1"})
    with pytest.raises(ApiException) as caught:
        apply(api, namespace, "bob", {"colour": "blue"})
    assert caught.value.status == 409
    assert status_message(caught.value) == (
        'Apply failed with 1 conflict: conflict with "alice": .data.colour')

    forced = apply(api, namespace, "bob", {"colour": "blue"}, force=True)
    assert forced.data == {"colour": "blue", "size": "1"}
    owners = {entry.manager: sorted(json.loads(json.dumps(entry.fields_v1))["f:data"])
              for entry in forced.metadata.managed_fields}
    assert owners == {"alice": ["f:size"], "bob": ["f:colour"]}


def test_apply_by_the_same_manager_without_a_field_removes_it(
        api: k8s.ApiClient, namespace: str) -> None:
    apply(api, namespace, "alice", {"colour": "red", "size": "1"})
    assert apply(api, namespace, "alice", {"colour": "red"}).data == {"colour": "red"}


# --- optimistic concurrency -------------------------------------------------------------------

def test_update_with_a_stale_resource_version_is_a_conflict(
        api: k8s.ApiClient, namespace: str) -> None:
    core = k8s.CoreV1Api(api)
    created = core.create_namespaced_config_map(
        namespace, {"metadata": {"name": "cas"}, "data": {"n": "1"}})
    core.replace_namespaced_config_map("cas", namespace, {
        "metadata": {"name": "cas", "resourceVersion": created.metadata.resource_version},
        "data": {"n": "2"}})
    with pytest.raises(ApiException) as caught:
        core.replace_namespaced_config_map("cas", namespace, {
            "metadata": {"name": "cas", "resourceVersion": created.metadata.resource_version},
            "data": {"n": "3"}})
    assert caught.value.status == 409
    assert status_message(caught.value) == (
        'Operation cannot be fulfilled on configmaps "cas": the object has been modified; '
        "please apply your changes to the latest version and try again")
