"""The HelmRequest CRD on a real API server: kubectl explain, printer columns, and bad specs
refused by the structural schema and CEL rules before any controller sees them."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from e2e.conftest import Kubectl
from e2e.operator_kit import explain

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[1]
CRDS = [ROOT / "manifests/crds/helmrequest.yaml", ROOT / "manifests/crds/helmrepository.yaml",
        ROOT / "manifests/crds/release.yaml"]


@pytest.fixture(scope="module")
def crd(kubectl: Kubectl) -> Kubectl:
    for path in CRDS:
        kubectl("apply", "-f", str(path))
    kubectl("wait", "--for=condition=Established", "crd/helmrequests.helm.sh",
            "crd/helmrepositories.helm.sh", "--timeout=60s")
    return kubectl


def request(namespace: str, name: str, spec: dict) -> str:
    return yaml.safe_dump({"apiVersion": "helm.sh/v1alpha1", "kind": "HelmRequest",
                           "metadata": {"name": name, "namespace": namespace}, "spec": spec})


def test_kubectl_explain_describes_the_spec(crd: Kubectl) -> None:
    out = explain(crd, "hreq.spec.valuesFrom")
    assert "A change in a referenced object triggers an upgrade." in out
    assert "targetPath" in out


def test_helmrepository_is_explained_and_checked(crd: Kubectl, namespace: str) -> None:
    assert "One fetch per interval serves every request naming this repository" in \
        explain(crd, "hrepo.spec.interval")
    bad = yaml.safe_dump({"apiVersion": "helm.sh/v1alpha1", "kind": "HelmRepository",
                          "metadata": {"name": "bad", "namespace": namespace},
                          "spec": {"url": "ftp://charts.example"}})
    result = crd("apply", "-f", "-", stdin=bad, check=False)
    assert result.returncode != 0 and "spec.url: Invalid value" in result.stderr
    good = bad.replace("ftp://", "https://").replace("name: bad", "name: good")
    crd("apply", "-f", "-", stdin=good)
    header = crd("get", "hrepo", "-n", namespace).stdout.splitlines()[0].split()
    assert header == ["NAME", "URL", "READY", "STATUS", "AGE"]


def test_valid_request_is_accepted_with_printer_columns(crd: Kubectl, namespace: str) -> None:
    spec = {"chart": {"configMapRef": {"name": "c"}}, "values": {"a": {"b": [1, {"c": None}]}},
            "install": {"timeout": "5m", "remediation": {"retries": 3}},
            "upgrade": {"remediation": {"retries": -1}},  # Flux's "without end"
            "driftDetection": {"mode": "warn"}, "lua": {"acceptPermissions": ["io"]}}
    crd("apply", "-f", "-", stdin=request(namespace, "web", spec))
    header = crd("get", "hreq", "-n", namespace).stdout.splitlines()[0].split()
    assert header == ["NAME", "READY", "STATUS", "CHART", "VERSION", "AGE"]
    stored = yaml.safe_load(crd("get", "hreq", "web", "-n", namespace, "-o", "yaml").stdout)
    # The API server drops null map entries under preserve-unknown-fields (documented in the
    # CRD: nulls that delete chart defaults belong in a valuesFrom ConfigMap).
    assert stored["spec"]["values"] == {"a": {"b": [1, {}]}}


@pytest.mark.parametrize(("spec", "message"), [
    ({"chart": {"configMapRef": {"name": "a"}, "oci": {"url": "oci://r/c"}}},
     "spec.chart: Invalid value: exactly one chart source: configMapRef, secretRef, repository, repositoryRef or oci"),
    ({"chart": {}},
     "spec.chart: Invalid value: exactly one chart source: configMapRef, secretRef, repository, repositoryRef or oci"),
    ({"chart": {"configMapRef": {"name": "a"}}, "driftDetection": {"mode": "sometimes"}},
     'spec.driftDetection.mode: Unsupported value: "sometimes"'),
    ({"chart": {"configMapRef": {"name": "a"}}, "lua": {"acceptPermissions": ["exec"]}},
     'spec.lua.acceptPermissions[0]: Unsupported value: "exec"'),
    ({"chart": {"repository": {"url": "ftp://x", "name": "c"}}},
     "spec.chart.repository.url: Invalid value"),
    ({"chart": {"configMapRef": {"name": "a"}}, "rollbackTo": "not-a-ulid"},
     "spec.rollbackTo: Invalid value"),
    ({"chart": {"configMapRef": {"name": "a"}}, "install": {"timeout": "five minutes"}},
     "spec.install.timeout: Invalid value"),
    ({"chart": {"configMapRef": {"name": "a"}}, "releaseName": "Bad_Name"},
     "spec.releaseName: Invalid value"),
    ({"values": {}},
     "spec.chart: Required value"),
    ({"chart": {"repositoryRef": {"name": "charts", "chart": "web"},
                "repository": {"url": "https://x", "name": "web"}}},
     "exactly one chart source: configMapRef, secretRef, repository, repositoryRef or oci"),
    ({"chart": {"repositoryRef": {"name": "charts"}}},
     "spec.chart.repositoryRef.chart: Required value"),
    ({"chart": {"configMapRef": {"name": "a"}}, "install": {"remediation": {"retries": -2}}},
     "spec.install.remediation.retries: Invalid value: -2: spec.install.remediation.retries in body should be greater than or equal to -1"),
], ids=["two-sources", "no-source", "drift-mode", "lua-permission", "repo-scheme", "rollback-ulid",
        "duration", "release-name", "chart-required", "ref-and-repository", "ref-without-chart",
        "retries-below-minus-one"])
def test_wrong_spec_is_refused_by_the_api_server(crd: Kubectl, namespace: str, spec: dict,
                                                 message: str) -> None:
    result = crd("apply", "-f", "-", stdin=request(namespace, "bad", spec), check=False)
    assert result.returncode != 0
    assert message in result.stderr


@pytest.mark.parametrize("field", ["releaseName", "targetNamespace"])
def test_release_identity_is_immutable(crd: Kubectl, namespace: str, field: str) -> None:
    crd("apply", "-f", "-", stdin=request(namespace, "web", {"chart": {"configMapRef": {"name": "c"}}}))
    changed = {"chart": {"configMapRef": {"name": "c"}}, field: "other"}
    result = crd("apply", "-f", "-", stdin=request(namespace, "web", changed), check=False)
    assert result.returncode != 0
    assert f"{field} is immutable (delete and recreate the HelmRequest)" in result.stderr


@pytest.mark.parametrize("path", sorted((ROOT / "examples" / "quickstart").rglob("*.yaml")),
                         ids=lambda p: str(p.relative_to(ROOT / "examples" / "quickstart")))
def test_example_requests_pass_the_schema(crd: Kubectl, namespace: str, path: Path) -> None:
    requests = [d for d in yaml.safe_load_all(path.read_text()) if d and d["kind"] == "HelmRequest"]
    for doc in requests:
        doc["metadata"]["namespace"] = namespace
        crd("apply", "--dry-run=server", "-f", "-", stdin=yaml.safe_dump(doc))
