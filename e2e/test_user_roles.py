"""The user roles of deploy/ and of the chart on the API server: a namespace user bound, by a
RoleBinding, to one of them alone gets what its name says (kubectl apply reads before it writes,
so the edit role must read too), and nothing else."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import helm_core
from e2e.conftest import Kubectl
from e2e.operator_kit import ROOT

pytestmark = pytest.mark.e2e

REQUEST = """apiVersion: helm.sh/v1alpha1
kind: HelmRequest
metadata: {{name: web, namespace: {namespace}}}
spec:
  serviceAccountName: deployer
  chart: {{configMapRef: {{name: web-chart}}}}
"""


def chart_user_roles() -> str:
    return helm_core.template(str(ROOT / "charts" / "helm-operator"), {}, release_name="roles",
                              namespace="helm-operator-system",
                              show_only=["templates/user-roles.yaml"])


@pytest.fixture(params=["deploy", "chart"])
def roles(request: pytest.FixtureRequest, kubectl: Kubectl) -> dict[str, str]:
    """The three roles applied from one source: their names by level."""
    kubectl("apply", "-f", str(ROOT / "manifests" / "crds" / "helmrequest.yaml"),
            "-f", str(ROOT / "manifests" / "crds" / "helmrepository.yaml"),
            "-f", str(ROOT / "manifests" / "crds" / "release.yaml"))
    kubectl("wait", "--for=condition=Established", "crd/helmrequests.helm.sh", "--timeout=60s")
    if request.param == "deploy":
        kubectl("apply", "-f", str(Path(ROOT / "deploy" / "user-roles.yaml")))
        return {level: f"helmrequest-{level}" for level in ("view", "edit", "admin")}
    kubectl("apply", "-f", "-", stdin=chart_user_roles())
    return {level: f"roles-helm-operator-{level}" for level in ("view", "edit", "admin")}


def bind(kubectl: Kubectl, namespace: str, user: str, role: str) -> None:
    kubectl("create", "rolebinding", user, "-n", namespace, f"--clusterrole={role}", f"--user={user}")


def can(kubectl: Kubectl, namespace: str, user: str, verb: str, resource: str) -> bool:
    out = kubectl("auth", "can-i", verb, resource, "-n", namespace, f"--as={user}", check=False)
    return out.stdout.strip() == "yes"


def test_edit_alone_applies_and_reads_requests_and_nothing_else(
        kubectl: Kubectl, namespace: str, roles: dict[str, str]) -> None:
    bind(kubectl, namespace, "editor", roles["edit"])
    applied = kubectl("apply", "-f", "-", "--as=editor", stdin=REQUEST.format(namespace=namespace),
                      check=False)
    assert applied.returncode == 0, applied.stderr
    listed = kubectl("get", "hreq", "-n", namespace, "-o", "json", "--as=editor")
    assert [i["metadata"]["name"] for i in json.loads(listed.stdout)["items"]] == ["web"]
    assert kubectl("delete", "hreq", "web", "-n", namespace, "--as=editor", "--wait=false").returncode == 0
    assert can(kubectl, namespace, "editor", "list", "releases.helm.sh")
    assert not can(kubectl, namespace, "editor", "delete", "releases.helm.sh")
    assert not can(kubectl, namespace, "editor", "get", "secrets")
    assert not can(kubectl, namespace, "editor", "create", "configmaps")


def test_view_reads_and_admin_also_cleans_up_releases(
        kubectl: Kubectl, namespace: str, roles: dict[str, str]) -> None:
    bind(kubectl, namespace, "viewer", roles["view"])
    bind(kubectl, namespace, "owner", roles["admin"])
    assert can(kubectl, namespace, "viewer", "list", "helmrequests.helm.sh")
    refused = kubectl("apply", "-f", "-", "--as=viewer", stdin=REQUEST.format(namespace=namespace),
                      check=False)
    assert refused.returncode != 0 and "cannot create resource" in refused.stderr, refused.stderr
    assert kubectl("apply", "-f", "-", "--as=owner", stdin=REQUEST.format(namespace=namespace),
                   check=False).returncode == 0
    assert can(kubectl, namespace, "owner", "delete", "releases.helm.sh")
    assert can(kubectl, namespace, "owner", "watch", "helmrepositories.helm.sh")
    assert not can(kubectl, namespace, "owner", "get", "secrets")
