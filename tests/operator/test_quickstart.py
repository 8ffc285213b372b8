"""examples/quickstart/: the packaged chart in its ConfigMap is the examples/charts/hello source,
and the manifests are what the controller expects."""
from __future__ import annotations

import base64
import importlib.util
import io
import tarfile
from pathlib import Path

import yaml

from helm_core.sources import package

QUICKSTART = Path(__file__).resolve().parents[2] / "examples" / "quickstart"
HELLO = QUICKSTART.parent / "charts" / "hello"


def docs():
    out = []
    for path in sorted(QUICKSTART.glob("*.yaml")):
        out.extend(d for d in yaml.safe_load_all(path.read_text()) if d)
    return out


def archive_files(data: bytes) -> dict[str, bytes]:
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}


def test_configmap_chart_matches_its_source():
    cm = next(d for d in docs() if d["kind"] == "ConfigMap")
    (key, blob), = cm["binaryData"].items()
    name, expected = package.package(HELLO)
    assert key == name
    assert archive_files(base64.b64decode(blob)) == archive_files(expected), (
        "examples/quickstart is stale: run python examples/quickstart/generate.py")


def test_generator_output_is_the_committed_file():
    spec = importlib.util.spec_from_file_location("generate", QUICKSTART / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert yaml.safe_load(module.render())["metadata"] == yaml.safe_load(module.OUT.read_text())["metadata"]


def test_request_uses_the_configmap_and_the_service_account_with_a_role():
    by_kind = {}
    for d in docs():
        by_kind.setdefault(d["kind"], []).append(d)
    req = by_kind["HelmRequest"][0]
    assert req["spec"]["chart"]["configMapRef"]["name"] == by_kind["ConfigMap"][0]["metadata"]["name"]
    account = req["spec"]["serviceAccountName"]
    assert by_kind["ServiceAccount"][0]["metadata"]["name"] == account
    binding = by_kind["RoleBinding"][0]
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": account, "namespace": "quickstart"}]
    assert {d["metadata"]["namespace"] for k, ds in by_kind.items() if k != "Namespace" for d in ds} == {"quickstart"}
