"""The controller's values are typed as helm types them: valuesFrom text as ``helm -f`` reads a
file, ``spec.values`` as Go decodes its JSON (Flux), both compared with ``helm template``."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from helm_core import errors as core

from helm_core.golib import gojson, goyaml
from helm_core.action import values_options
from helm_core.chart import loader, prepare
from helm_core.engine import render
from helm_operator import sources
from tests.engine import helmbin

CHARTS = Path(__file__).parent / "charts"
KINDS_CHART = CHARTS / "kinds"
KINDS_VALUES = CHARTS / "kinds-values.yaml"


def kinds_data(values: dict[str, Any]) -> dict[str, str]:
    """The ConfigMap data the kinds chart renders (``kindOf`` and ``%v`` of each value)."""
    prepared = prepare.prepare_chart(loader.load(KINDS_CHART), values)
    rendered = render.render(prepared.chart, prepared.values)
    return yaml.safe_load(rendered["kinds/templates/kinds.yaml"])["data"]


def helm_kinds_data() -> dict[str, str]:
    out = helmbin.helm_template(KINDS_CHART, "-f", str(KINDS_VALUES))
    return yaml.safe_load(out.split("\n", 2)[2])["data"]


def as_spec_values(text: str) -> Any:
    """``spec.values`` as the controller receives it: kubectl turns the YAML into Go's JSON,
    the controller's client decodes it with Python's json (integral numbers become ints)."""
    return json.loads(gojson.dumps(goyaml.decode(text)))


def from_config_map(text: str) -> sources.ResolvedValues:
    objects = {("ConfigMap", "vals"): {"data": {"values.yaml": text}}}
    return sources.resolve_values({"valuesFrom": [{"kind": "ConfigMap", "name": "vals"}]},
                                  read=lambda kind, name: objects.get((kind, name)))


def typed(values: Any) -> Any:
    """Values with each scalar's Python type spelled out (``3 == 3.0`` would hide a difference)."""
    if isinstance(values, dict):
        return {key: typed(item) for key, item in values.items()}
    if isinstance(values, list):
        return [typed(item) for item in values]
    return (type(values).__name__, values)


EXPECTED_TYPES = {
    "int": ("float", 12345678.0), "big-int": ("float", 1.2345678901234567e19),
    "negative": ("float", -42.0), "float": ("float", 1.5), "exponent": ("float", 1000.0),
    "hex": ("float", 31.0), "octal": ("float", 15.0),
    "date": ("str", "2024-01-01"), "timestamp": ("str", "2024-01-01T10:00:00Z"),
    "word-yes": ("bool", True), "word-on": ("bool", True), "word-off": ("bool", False),
    "quoted-yes": ("str", "yes"), "boolean": ("bool", True),
    "null-word": ("NoneType", None), "tilde": ("NoneType", None), "empty": ("NoneType", None),
    "text": ("str", "hello"),
    "list": [("float", 1.0), ("str", "two"), ("float", 3.0)],
    "map": {"a": ("float", 1.0), "b": ("str", "2024-01-01")},
}


def test_values_from_and_spec_values_get_go_types():
    text = KINDS_VALUES.read_text()
    assert typed(from_config_map(text).values) == EXPECTED_TYPES
    inline = sources.resolve_values({"values": as_spec_values(text)}, read=lambda kind, name: None)
    assert typed(inline.values) == EXPECTED_TYPES
    assert inline.digest == from_config_map(text).digest


@pytest.mark.conformance
def test_values_from_renders_what_helm_renders_from_the_file():
    assert kinds_data(from_config_map(KINDS_VALUES.read_text()).values) == helm_kinds_data()


@pytest.mark.conformance
def test_spec_values_render_what_helm_renders_from_the_file():
    spec = {"values": as_spec_values(KINDS_VALUES.read_text())}
    values = sources.resolve_values(spec, read=lambda kind, name: None).values
    assert kinds_data(values) == helm_kinds_data()


@pytest.mark.conformance
def test_cli_values_file_renders_what_helm_renders():
    values = values_options.merge(values_options.ValuesOptions(value_files=(str(KINDS_VALUES),)))
    assert kinds_data(values) == helm_kinds_data()


def test_target_path_keeps_the_text_a_string():
    objects = {("ConfigMap", "vals"): {"data": {"replicas": "12345678"}}}
    spec = {"valuesFrom": [{"kind": "ConfigMap", "name": "vals", "valuesKey": "replicas",
                            "targetPath": "app.replicas"}]}
    out = sources.resolve_values(spec, read=lambda kind, name: objects.get((kind, name)))
    assert typed(out.values) == {"app": {"replicas": ("str", "12345678")}}


@pytest.mark.parametrize(("text", "message"), [
    ("a: [1\n", "valuesFrom[0] (ConfigMap vals, key values.yaml): failed to parse values.yaml: "
                "error converting YAML to JSON: yaml: line 1: did not find expected ',' or ']'"),
    ("- a\n", "valuesFrom[0] (ConfigMap vals, key values.yaml): failed to parse values.yaml: "
              "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go "
              "value of type map[string]interface {}"),
], ids=["bad-yaml", "not-a-map"])
def test_bad_values_document_names_the_object_and_key_with_helms_words(text, message):
    with pytest.raises(core.ValuesError) as info:
        from_config_map(text)
    assert str(info.value) == message


@pytest.mark.parametrize(("values", "message"), [
    (["a"], "spec.values: json: cannot unmarshal array into Go value of type map[string]interface {}"),
    ({"huge": 10**400}, "spec.values: json: cannot unmarshal number " + "1" + "0" * 400
                        + " into Go value of type float64"),
], ids=["not-a-map", "number-out-of-range"])
def test_bad_spec_values_are_go_decoding_errors(values, message):
    with pytest.raises(core.ValuesError) as info:
        sources.resolve_values({"values": values}, read=lambda kind, name: None)
    assert str(info.value) == message


def test_json_object_values_are_new_containers_with_float_numbers():
    given = {"a": {"b": [1, True, None]}, "c": 2.5}
    out = gojson.load_values(given, context="values")
    assert typed(out) == {"a": {"b": [("float", 1.0), ("bool", True), ("NoneType", None)]},
                          "c": ("float", 2.5)}
    out["a"]["b"].append(9)
    assert given == {"a": {"b": [1, True, None]}, "c": 2.5}
    assert gojson.load_values(None, context="values") == {}


def test_library_inline_values_are_typed_like_spec_values():
    merged = values_options.merge(values_options.ValuesOptions(inline={"replicas": 3}))
    assert typed(merged) == {"replicas": ("float", 3.0)}
