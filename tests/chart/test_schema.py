"""Schemas validate final values of the chart and of each enabled subchart, listing every violation."""
from __future__ import annotations

import sys
from typing import Any

import pytest

from helm_core.chart import model, schema
from helm_core.errors import SchemaError

PARENT_SCHEMA = {
    "type": "object",
    "properties": {
        "replicas": {"type": "integer", "minimum": 1},
        "image": {"type": "object", "properties": {"tag": {"type": "string"}}, "required": ["tag"]},
        "ports": {"type": "array", "items": {"type": "integer"}},
    },
    "additionalProperties": True,
}
SUB_SCHEMA = {"type": "object", "properties": {"enabled": {"type": "boolean"}}, "additionalProperties": False}


def _charts() -> model.Chart:
    parent = model.Chart(metadata=model.Metadata(api_version="v2", name="app", version="1.0.0"),
                         schema=PARENT_SCHEMA, schema_file="values.schema.json")
    sub = model.Chart(metadata=model.Metadata(api_version="v2", name="db", version="1.0.0"),
                      schema=SUB_SCHEMA, schema_file="values.schema.yaml")
    parent.add_dependency(sub)
    return parent


def test_valid_values_pass_and_float64_integers_count_as_integers():
    schema.validate(_charts(), {"replicas": 2.0, "image": {"tag": "1"}, "ports": [80.0], "db": {"enabled": True}})


def test_a_remembered_pass_counts_for_that_schema_and_those_values_only():
    """Passes are remembered in the process (a controller validates the same values again and
    again): by the schema's text and the values, so that a schema or values changed by one
    word are checked again."""
    values = {"replicas": 2.0, "image": {"tag": "1"}, "ports": [80.0], "db": {"enabled": True}}
    for _ in range(2):
        schema.validate(_charts(), values)
    stricter = _charts()
    stricter.schema = {**PARENT_SCHEMA, "properties": {**PARENT_SCHEMA["properties"],
                                                         "replicas": {"type": "integer", "minimum": 3}}}
    with pytest.raises(SchemaError, match="minimum: got 2, want 3"):
        schema.validate(stricter, values)
    with pytest.raises(SchemaError, match="got string, want integer"):
        schema.validate(_charts(), {**values, "ports": ["80"]})
    schema.validate(_charts(), values)


def test_every_violation_is_listed_with_its_path():
    values = {"replicas": 0.0, "image": {}, "ports": [80.0, "http"], "db": {"enabled": "yes", "extra": 1.0}}
    with pytest.raises(SchemaError) as err:
        schema.validate(_charts(), values)
    text = str(err.value)
    assert text.startswith("values don't meet the specifications of the schema(s) in the following chart(s):\napp:\n")
    # helm's wording (jsonschema v6); Go visits properties in random order, we in sorted order
    assert text.endswith("app:\n"
                         "- at '/image': missing property 'tag'\n"
                         "- at '/ports/1': got string, want integer\n"
                         "- at '/replicas': minimum: got 0, want 1\n"
                         "db:\n"
                         "- at '/enabled': got string, want boolean\n"
                         "- at '': additional properties 'extra' not allowed\n")
    assert len(err.value.violations) == 5


def test_subchart_values_of_wrong_type():
    # helm's line: Go's type name, no "- " before it
    with pytest.raises(SchemaError, match=r"db:\ninvalid type for values: expected object \(map\), got string\n$"):
        schema.validate(_charts(), {"replicas": 1.0, "image": {"tag": "x"}, "db": "oops"})


def test_invalid_schema_is_a_clear_error():
    chart = model.Chart(metadata=model.Metadata(api_version="v2", name="app", version="1.0.0"),
                        schema={"type": "nonsense"}, schema_file="values.schema.json")
    # helm's explanation: the schema's failures against its draft's metaschema
    with pytest.raises(SchemaError, match=r"\"file:///values.schema.json#\" is not valid against metaschema: "
                                          r"jsonschema validation failed with 'https://json-schema.org/draft/2020-12/"
                                          r"schema#'\n- at '': 'allOf' failed\n  - at '/type': 'anyOf' failed\n"):
        schema.validate(chart, {})


def test_a_schema_whose_dollar_schema_is_not_a_string_is_a_clear_error():
    chart = model.Chart(metadata=model.Metadata(api_version="v2", name="app", version="1.0.0"),
                        schema={"$schema": 7, "type": "object"}, schema_file="values.schema.json")
    # Under helm's header and the chart's name, as helm reports a schema it cannot compile.
    with pytest.raises(SchemaError, match=r"^values don't meet the specifications of the schema\(s\) in the following "
                                          r"chart\(s\):\napp:\n\"file:///values.schema.json#\" is not valid against "
                                          r"metaschema: .*\n- at '': 'allOf' failed\n  - at '/\$schema': got number, "
                                          r"want string$"):
        schema.validate(chart, {})


def test_remote_refs_are_not_fetched():
    chart = model.Chart(metadata=model.Metadata(api_version="v2", name="app", version="1.0.0"),
                        schema={"$ref": "https://example.invalid/schema.json"}, schema_file="values.schema.json")
    with pytest.raises(SchemaError, match=r"cannot resolve schema reference"):
        schema.validate(chart, {})


HEADER = "values don't meet the specifications of the schema(s) in the following chart(s):\napp:\n"


def _chart_with(schema_doc: dict) -> model.Chart:
    return model.Chart(metadata=model.Metadata(api_version="v2", name="app", version="1.0.0"),
                       schema=schema_doc, schema_file="values.schema.json")


def _failure(schema_doc: dict, values: dict) -> str:
    with pytest.raises(SchemaError) as caught:
        schema.validate(_chart_with(schema_doc), values)
    return str(caught.value)


def test_ref_to_itself_is_helms_reference_cycle():
    # helm 3.22: - at '': both /$ref and  resolve to "file:///values.schema.json#" causing reference cycle
    assert _failure({"$ref": "#"}, {"a": 1.0}) == HEADER + (
        "- at '': both /$ref and  resolve to \"file:///values.schema.json#\" causing reference cycle\n")


def test_mutual_refs_fail_only_where_values_reach_them_as_helm():
    doc = {"definitions": {"a": {"$ref": "#/definitions/b"}, "b": {"$ref": "#/definitions/a"}},
           "properties": {"x": {"$ref": "#/definitions/a"}}}
    schema.validate(_chart_with(doc), {"y": 1.0})
    # helm 3.22: - at '/x': both /properties/x/$ref/$ref/$ref and /properties/x/$ref resolve to
    # "file:///values.schema.json#/definitions/a" causing reference cycle
    assert _failure(doc, {"x": 1.0}) == HEADER + (
        "- at '/x': both /properties/x/$ref/$ref/$ref and /properties/x/$ref resolve to "
        "\"file:///values.schema.json#/definitions/a\" causing reference cycle\n")


def test_cycle_through_all_of_is_found():
    # helm 3.22 reports the cycle under the allOf that met it
    assert _failure({"allOf": [{"$ref": "#"}]}, {}) == HEADER + (
        "- at '': 'allOf' failed\n"
        "  - at '': both /allOf/0/$ref and  resolve to \"file:///values.schema.json#\" causing reference cycle\n")


def test_stack_deep_schema_outside_the_cli_is_one_line():
    # Python's default limit, as in a process that executed no template (an execution raises
    # the limit for the rest of the process, and an earlier test may have run one)
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        nested: dict = {"type": "string"}
        values: Any = 1.0
        for _ in range(3000):
            nested, values = {"properties": {"a": nested}}, {"a": values}
        assert _failure(nested, values) == (
            "app/values.schema.json: cannot validate: the schema recursed deeper than the stack allows "
            "(a $ref cycle, or schema and values nested too deeply)")
    finally:
        sys.setrecursionlimit(before)


def test_recursive_schema_descending_into_values_is_no_cycle():
    tree = {"type": "object", "properties": {"name": {"type": "string"}, "child": {"$ref": "#"}}}
    values = {"name": "a", "child": {"name": "b", "child": {"name": "c"}}}
    schema.validate(_chart_with(tree), values)
    values["child"]["child"]["name"] = 1.0
    with pytest.raises(SchemaError, match=r"- at '/child/child/name': got number, want string"):
        schema.validate(_chart_with(tree), values)


def test_the_report_is_v6s_tree_without_helm_at_hand():
    # helm 3.22 printed this tree for these values (tests/test_schema_errors_helm.py compares
    # with the binary where it is installed); Go's map order put /p first there, sorted here.
    doc = {"$defs": {"port": {"type": "integer", "minimum": 1}},
           "properties": {"list": {"items": {"anyOf": [
               {"type": "string"},
               {"properties": {"n": {"type": "integer", "minimum": 0}}, "required": ["n"]}]}},
               "p": {"$ref": "#/$defs/port"}}}
    values = {"list": ["ok", {"false": -1.0}, {"m": 1.0}, 3.0], "p": 0.5}
    assert _failure(doc, values) == HEADER + (
        "- at '/list': validation failed\n"
        "  - at '/list/1': 'anyOf' failed\n"
        "    - at '/list/1': got object, want string\n"
        "    - at '/list/1': missing property 'n'\n"
        "  - at '/list/2': 'anyOf' failed\n"
        "    - at '/list/2': got object, want string\n"
        "    - at '/list/2': missing property 'n'\n"
        "- at '/p': got number, want integer\n")
