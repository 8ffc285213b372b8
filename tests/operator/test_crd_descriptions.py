"""Every field of every CRD has a description (``kubectl explain`` documents them all, as
Flux's do), and the Helm chart ships the same CRDs as manifests/."""
from __future__ import annotations

import importlib.util
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
CRDS = sorted((ROOT / "manifests" / "crds").glob("*.yaml"))


def undescribed(schema: Mapping[str, Any], path: str) -> Iterator[str]:
    """Paths (``spec.chart.oci.url``, ``status.history[]``) of properties without a
    non-empty description, walking properties, array items and additionalProperties."""
    for name, prop in (schema.get("properties") or {}).items():
        here = f"{path}.{name}" if path else name
        if here == "metadata":
            continue  # the API server refuses anything but its type there (kubectl explains ObjectMeta)
        if not str(prop.get("description") or "").strip():
            yield here
        yield from undescribed(prop, here)
    items = schema.get("items")
    if isinstance(items, Mapping):
        yield from undescribed(items, f"{path}[]")
    extra = schema.get("additionalProperties")
    if isinstance(extra, Mapping):
        yield from undescribed(extra, f"{path}{{}}")


def versions(crd_path: Path) -> list[tuple[str, dict[str, Any]]]:
    crd = yaml.safe_load(crd_path.read_text())
    kind = crd["spec"]["names"]["kind"]
    return [(f"{kind} {v['name']}", v["schema"]["openAPIV3Schema"]) for v in crd["spec"]["versions"]]


def test_the_walk_finds_undescribed_fields_at_every_depth() -> None:
    schema = {"properties": {
        "a": {"description": "x", "properties": {"b": {"type": "string"}}},
        "list": {"description": "x", "items": {"properties": {"c": {"description": " "}}}},
        "map": {"description": "x", "additionalProperties": {"properties": {"d": {}}}}}}
    assert list(undescribed(schema, "")) == ["a.b", "list[].c", "map{}.d"]


@pytest.mark.parametrize("crd_path", CRDS, ids=[p.name for p in CRDS])
def test_every_field_has_a_description(crd_path: Path) -> None:
    for version, schema in versions(crd_path):
        assert str(schema.get("description") or "").strip(), f"{version}: the kind has no description"
        missing = list(undescribed(schema, ""))
        assert not missing, f"{crd_path.name} {version}: fields without a description: {', '.join(missing)}"


def test_the_chart_ships_the_same_crds() -> None:
    chart = ROOT / "charts" / "helm-operator" / "crds"
    assert sorted(p.name for p in chart.glob("*.yaml")) == [p.name for p in CRDS]
    for crd in CRDS:
        assert (chart / crd.name).read_text() == crd.read_text(), crd.name


def test_docs_field_reference_is_generated_from_the_crds() -> None:
    """docs/helmrequest.md's field tables are the CRDs' descriptions: run
    ``python scripts/crd_reference.py --write`` after changing a CRD."""
    spec = importlib.util.spec_from_file_location("crd_reference", ROOT / "scripts" / "crd_reference.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    doc = (ROOT / "docs" / "helmrequest.md").read_text()
    assert module.generated_section(doc) == module.reference(), \
        "docs/helmrequest.md is stale: run python scripts/crd_reference.py --write"
    assert "`spec.chart.repositoryRef.version`" in doc
