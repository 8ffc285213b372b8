"""The requester stamp written by the controller's admission webhook (operator/helm_operator/
admission.py, for API servers without MutatingAdmissionPolicy) on the local control plane: the
API server calls it over TLS for every HelmRequest write, as it would in a cluster. The policy
of deploy/requester/ is removed for the module, so the webhook alone stamps."""
from __future__ import annotations

import base64
import secrets
import time
from collections.abc import Iterator
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes import config as k8s_config
from kubernetes.client.rest import ApiException

from e2e import requester_kit
from e2e.conftest import ClusterInfo, Kubectl, create_namespace
from e2e.operator_kit import GROUP, PLURAL, ROOT, VERSION, free_port
from helm_operator import admission

pytestmark = pytest.mark.e2e

POLICY = ROOT / "deploy" / "requester" / "policy.yaml"


def _body(name: str, **extra: Any) -> dict[str, Any]:
    return {"apiVersion": f"{GROUP}/{VERSION}", "kind": "HelmRequest", "metadata": {"name": name},
            "spec": {"chart": {"configMapRef": {"name": "chart"}}}, **extra}


@pytest.fixture(scope="module")
def setup(cluster: ClusterInfo, api: k8s.ApiClient, kubectl: Kubectl,
          tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, k8s.CustomObjectsApi, str]]:
    tmp = tmp_path_factory.mktemp("webhook")
    suffix = secrets.token_hex(3)
    for crd in ("helmrequest.yaml", "release.yaml"):
        kubectl("apply", "-f", str(ROOT / "manifests" / "crds" / crd))
    kubectl("wait", "--for=condition=Established", "crd/helmrequests.helm.sh", "--timeout=60s")
    kubectl("delete", "-f", str(POLICY), "--ignore-not-found")
    namespace = create_namespace(api, "requester-webhook")
    ca = requester_kit.serving_certificate(tmp / "tls")
    port = free_port()
    server = admission.serve(port, cert_dir=tmp / "tls", host="127.0.0.1")
    name = f"helm-operator-requester-{suffix}"
    registration = k8s.AdmissionregistrationV1Api(api)
    registration.create_mutating_webhook_configuration({
        "metadata": {"name": name},
        "webhooks": [{
            "name": "requester.helm.sh",
            "clientConfig": {"url": f"https://127.0.0.1:{port}{admission.PATH}",
                             "caBundle": base64.b64encode(ca).decode()},
            "rules": [{"apiGroups": ["helm.sh"], "apiVersions": ["*"], "operations": ["CREATE", "UPDATE"],
                       "resources": ["helmrequests"], "scope": "Namespaced"}],
            "failurePolicy": "Fail", "sideEffects": "None", "admissionReviewVersions": ["v1"],
            "timeoutSeconds": 5, "reinvocationPolicy": "Never"}]})
    admin = k8s.CustomObjectsApi(api)
    deadline = time.monotonic() + 30
    while True:  # the API server sees new webhooks (and a new CRD) within seconds
        try:
            if admin.create_namespaced_custom_object(
                    GROUP, VERSION, namespace, PLURAL, _body(f"probe-{secrets.token_hex(3)}"),
                    dry_run="All").get("requester") is not None:
                break
        except ApiException as exc:
            if exc.status not in (404, 503):
                raise
        assert time.monotonic() < deadline, "the webhook was never called"
        time.sleep(0.3)
    rbac = k8s.RbacAuthorizationV1Api(api)
    rbac.create_namespaced_role(namespace, {"metadata": {"name": "requests"}, "rules": [
        {"apiGroups": ["helm.sh"], "resources": ["helmrequests"], "verbs": ["get", "create", "patch", "update"]}]})
    carol = f"carol-{suffix}"
    rbac.create_namespaced_role_binding(namespace, {
        "metadata": {"name": "carol"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "requests"},
        "subjects": [{"kind": "User", "name": carol, "apiGroup": "rbac.authorization.k8s.io"}]})
    config = requester_kit.mint_user(api, cluster.kubeconfig, tmp, carol, (f"team-{suffix}",))
    try:
        yield namespace, k8s.CustomObjectsApi(k8s_config.new_client_from_config(config_file=str(config))), carol
    finally:
        registration.delete_mutating_webhook_configuration(name)
        k8s.CertificatesV1Api(api).delete_certificate_signing_request(carol)
        k8s.CoreV1Api(api).delete_namespace(namespace)
        server.shutdown()
        server.server_close()


def test_the_webhook_stamps_the_writer_over_a_forged_identity(setup, api: k8s.ApiClient) -> None:
    namespace, carol, carol_name = setup
    forged = {"username": "system:admin", "groups": ["system:masters"]}
    stored = requester_kit.retry_forbidden(lambda: carol.create_namespaced_custom_object(
        GROUP, VERSION, namespace, PLURAL, _body("app", requester=forged)))
    assert stored["requester"]["username"] == carol_name
    assert stored["requester"]["groups"] == [f"team-{carol_name.split('-')[1]}", "system:authenticated"]
    assert stored["requester"]["extra"]["authentication.kubernetes.io/credential-id"][0].startswith("X509SHA256=")
    admin = k8s.CustomObjectsApi(api)
    # metadata only: the stamp stays carol's
    labelled = admin.patch_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, "app",
                                                    {"metadata": {"labels": {"team": "a"}}})
    assert labelled["requester"] == stored["requester"]
    # a spec change by the admin: now the admin's
    edited = admin.patch_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, "app",
                                                  {"spec": {"interval": "5m"}})
    assert edited["requester"]["username"] != carol_name
    assert "system:masters" in edited["requester"]["groups"]
