"""Values-schema failures worded as helm words them: the same charts through helm and helm-core.

Helm 3.22 validates with santhosh-tekuri/jsonschema v6 and prints its error tree; helm-core
rebuilds that tree (helm_core.chart.schema_tree) and words it (helm_core.chart.schema_errors).
Each case is one chart with a schema and failing values, through both programs; exit code and
stderr must be the same. Go visits a map's keys in random order, so helm prints the failures of
an object's properties in an order that changes from run to run: where the texts differ, the
trees are compared with siblings sorted (their lines and nesting must still be the same).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helm_core.chart import schema, schema_errors, schema_tree
from tests.test_cli_helm import Both, _shared_charts

D7 = "http://json-schema.org/draft-07/schema#"
D4 = "http://json-schema.org/draft-04/schema#"


@pytest.fixture
def both(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Both:
    from tests.engine import helmbin

    helmbin.require_helm()
    return Both(tmp_path, capsys, monkeypatch)


def _tree(text: str) -> list[tuple[str, list]]:
    """The report's lines as a tree (by their "- " indentation), siblings sorted."""
    root: list[tuple[str, list]] = []
    stack: list[tuple[int, list]] = [(-1, root)]
    for line in text.split("\n"):
        body = line.lstrip(" ")
        depth = (len(line) - len(body)) // 2 if body.startswith("- ") else -1
        while depth >= 0 and stack[-1][0] >= depth:
            stack.pop()
        children: list[tuple[str, list]] = []
        (stack[-1][1] if depth >= 0 else root).append((line, children))
        if depth >= 0:
            stack.append((depth, children))
    return _sorted(root)


def _sorted(nodes: list[tuple[str, list]]) -> list[tuple[str, list]]:
    return sorted((line, _sorted(kids)) for line, kids in nodes)


def _same_report(both: Both, *argv: str) -> str:
    code, out, err = both.helm(*argv)
    got = both.core(*argv)
    assert code == 1 and got[0] == 1, err
    assert got[1] == out
    if got[2] != err:  # the same failures in another of Go's map orders
        assert _tree(got[2]) == _tree(err), f"helm:\n{err}\nhelm-core:\n{got[2]}"
    return err


def _chart(root: Path, name: str, schema_doc: object, values: str) -> Path:
    chart = root / name
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text(f"apiVersion: v2\nname: {name}\nversion: 0.1.0\n")
    (chart / "values.schema.json").write_text(schema_doc if isinstance(schema_doc, str) else json.dumps(schema_doc))
    (chart / "values.yaml").write_text(values + "\n")
    return chart


CASES = [
    # (id, schema, values yaml, extra args)
    pytest.param({"properties": {"a": {"type": "string"}}}, "a: 1", (), id="type-string"),
    pytest.param({"properties": {"a": {"type": ["string", "null", "integer"]}}}, "a: 1.5", (), id="type-list"),
    pytest.param(
        {"properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}},
        "a: 1.0\nb: true",
        (),
        id="type-integer-ok-float",
    ),
    pytest.param({"properties": {"a": {"type": "boolean"}}}, "", ("--set", "a=12"), id="type-set-int"),
    pytest.param(
        {"properties": {"a": {"type": "array"}, "b": {"type": "object"}}}, "a: {}\nb: []", (), id="type-array-object"
    ),
    pytest.param({"properties": {"a": {"type": "string", "enum": [1], "minimum": 3}}}, "a: 1", (), id="type-stops"),
    pytest.param({"properties": {"a": {"enum": ["x"]}}}, "a: y", (), id="enum-one"),
    pytest.param({"properties": {"a": {"enum": ["x", 1, 2.5, None, True]}}}, "a: z", (), id="enum-many"),
    pytest.param({"properties": {"a": {"enum": [[1], "x"]}}}, "a: y", (), id="enum-complex"),
    pytest.param(
        {"properties": {"a": {"enum": [1, 2]}, "b": {"enum": [1]}}}, "a: 2.0\nb: true", (), id="enum-number-equal"
    ),
    pytest.param(
        {"properties": {"a": {"const": "it's"}, "b": {"const": {"x": 1}}, "c": {"const": 3}}},
        "a: x\nb: 1\nc: 4",
        (),
        id="const",
    ),
    pytest.param({"required": ["a", "b", "c"]}, "b: 1", (), id="required"),
    pytest.param({"properties": {"o": {"required": ["x"]}}}, "o: {y: 1}", (), id="required-one"),
    pytest.param(
        {"properties": {"o": {"minProperties": 3}, "p": {"maxProperties": 1}}},
        "o: {a: 1}\np: {a: 1, b: 2}",
        (),
        id="min-max-props",
    ),
    pytest.param({"properties": {"a": {}}, "additionalProperties": False}, "a: 1\nzz: 2", (), id="additional-false"),
    pytest.param(
        {"properties": {"a": {}}, "additionalProperties": {"type": "string"}}, "a: 1\nzz: 2", (), id="additional-schema"
    ),
    pytest.param(
        {"patternProperties": {"^x": {"type": "integer"}, "y$": {"minimum": 5}}},
        "xy: 1.5\nay: 2",
        (),
        id="pattern-props",
    ),
    pytest.param({"propertyNames": {"maxLength": 3, "pattern": "^[a-z]+$"}}, "abcd: 1\nAB: 2", (), id="property-names"),
    pytest.param(
        {"properties": {"s": {"minLength": 5, "maxLength": 1, "pattern": "^\\d+$"}}}, 's: "a\'b\\"c"', (), id="string"
    ),
    pytest.param(
        {"properties": {"s": {"maxLength": 2, "pattern": "^x"}}}, 's: "héllo\\t\\u0001"', (), id="string-unicode"
    ),
    pytest.param(
        {
            "properties": {
                "a": {"minimum": 10},
                "b": {"maximum": 1.5},
                "c": {"exclusiveMinimum": 0},
                "d": {"exclusiveMaximum": 100},
                "e": {"multipleOf": 0.1},
            }
        },
        "a: 2\nb: 1234.5\nc: 0\nd: 100\ne: 0.25",
        (),
        id="numbers",
    ),
    pytest.param(
        {"properties": {"a": {"maximum": 1e6}, "b": {"minimum": 0.5}}},
        "a: 12345678901\nb: -0.000012",
        (),
        id="numbers-big",
    ),
    pytest.param(
        {"properties": {"a": {"maximum": 1000}, "b": {"multipleOf": 7}}},
        "",
        ("--set", "a=123456,b=50"),
        id="numbers-set",
    ),
    pytest.param(
        {"properties": {"a": {"minItems": 3}, "b": {"maxItems": 1}}}, "a: [1]\nb: [1, 2]", (), id="array-size"
    ),
    pytest.param({"properties": {"a": {"uniqueItems": True}}}, "a: [1, 2, {x: 1}, 2.0, {x: 1}]", (), id="unique"),
    pytest.param({"properties": {"a": {"uniqueItems": True}}}, "a: [[1], [true], {x: [1.0]}, 1, true, {x: [1]}, [1]]",
                 (), id="unique-nested"),
    pytest.param({"properties": {"a": {"uniqueItems": True}}}, "a: [[1, {y: null}], 0.1, '1', [1.0, {y: null}]]",
                 (), id="unique-nested-later"),
    pytest.param({"properties": {"a": {"items": {"type": "string"}}}}, "a: [x, 1, y, true]", (), id="items"),
    pytest.param(
        {"properties": {"a": {"prefixItems": [{"type": "string"}, {"type": "integer"}], "items": False}}},
        "a: [1, x, 3]",
        (),
        id="prefix-items",
    ),
    pytest.param({"properties": {"a": {"contains": {"type": "string"}}}}, "a: [1, 2]", (), id="contains"),
    pytest.param(
        {"properties": {"a": {"contains": {"type": "string"}, "minContains": 2, "maxContains": 0}}},
        "a: [1, x, 2]",
        (),
        id="min-contains",
    ),
    pytest.param(
        {"properties": {"a": {"contains": {"type": "integer"}, "maxContains": 1}}},
        "a: [1, x, 2]",
        (),
        id="max-contains",
    ),
    pytest.param(
        {"properties": {"a": {"allOf": [{"type": "string"}, {"minimum": 5}, {"maximum": 0}]}}}, "a: 3", (), id="allof"
    ),
    pytest.param(
        {"properties": {"a": {"anyOf": [{"type": "string"}, {"type": "object", "required": ["x"]}]}}},
        "a: 3",
        (),
        id="anyof",
    ),
    pytest.param(
        {
            "properties": {
                "a": {
                    "anyOf": [
                        {"type": "object", "properties": {"x": {"type": "string"}}},
                        {"type": "object", "required": ["y"]},
                    ]
                }
            }
        },
        "a: {x: 1}",
        (),
        id="anyof-nested",
    ),
    pytest.param({"properties": {"a": {"oneOf": [{"type": "string"}, {"minimum": 5}]}}}, "a: 3", (), id="oneof-none"),
    pytest.param(
        {"properties": {"a": {"oneOf": [{"type": "number"}, {"minimum": 1}, {"maximum": 9}]}}},
        "a: 3",
        (),
        id="oneof-two",
    ),
    pytest.param({"properties": {"a": {"not": {"type": "string"}}}}, "a: x", (), id="not"),
    pytest.param(
        {
            "properties": {
                "a": {
                    "if": {"properties": {"k": {"const": "x"}}},
                    "then": {"required": ["t"]},
                    "else": {"required": ["e"]},
                },
                "b": {
                    "if": {"properties": {"k": {"const": "x"}}},
                    "then": {"required": ["t"]},
                    "else": {"required": ["e"]},
                },
            }
        },
        "a: {k: x}\nb: {k: y}",
        (),
        id="if-then-else",
    ),
    pytest.param(
        {
            "properties": {
                "a": {
                    "dependentRequired": {"x": ["y", "z"]},
                    "dependentSchemas": {"x": {"properties": {"x": {"type": "string"}}}},
                }
            }
        },
        "a: {x: 1}",
        (),
        id="dependent",
    ),
    pytest.param(
        {"$schema": D7, "properties": {"a": {"dependencies": {"x": ["y"], "w": {"required": ["q"]}}}}},
        "a: {x: 1, w: 2}",
        (),
        id="dependencies-7",
    ),
    # v6 applies draft 7's dependencies in 2020-12 too (jsonschema does not): helm fails these
    pytest.param(
        {"properties": {"a": {"dependencies": {"x": ["y"], "w": {"required": ["q"]}}}}},
        "a: {x: 1, w: 2}",
        (),
        id="dependencies-2020",
    ),
    pytest.param(
        {
            "$defs": {"port": {"type": "integer", "minimum": 1}},
            "properties": {"p": {"$ref": "#/$defs/port"}, "q": {"$ref": "#/$defs/port"}},
        },
        "p: x\nq: 0",
        (),
        id="ref-defs",
    ),
    pytest.param(
        {
            "$defs": {"s": {"type": "string"}},
            "properties": {"p": {"$ref": "#/$defs/s", "minLength": 3, "maxLength": 0}},
        },
        "p: ab",
        (),
        id="ref-siblings-2020",
    ),
    pytest.param(
        {
            "$schema": D7,
            "definitions": {"s": {"type": "string"}},
            "properties": {
                "p": {"$ref": "#/definitions/s", "minLength": 3},
                "q": {"$ref": "#/definitions/s", "const": "x"},
            },
        },
        "p: ab\nq: 5",
        (),
        id="ref-siblings-7",
    ),
    pytest.param(
        {"$defs": {"s": {"minLength": 3, "pattern": "^x"}}, "properties": {"p": {"$ref": "#/$defs/s"}}},
        "p: ab",
        (),
        id="ref-multi-cause",
    ),
    pytest.param(
        {
            "$defs": {
                "a": {"$ref": "#/$defs/b"},
                "b": {"properties": {"x": {"$ref": "#/$defs/c"}}},
                "c": {"type": "integer"},
            },
            "properties": {"r": {"$ref": "#/$defs/a"}},
        },
        "r: {x: y}",
        (),
        id="ref-nested-chain",
    ),
    pytest.param(
        {"$defs": {"s": {"$anchor": "str", "type": "string"}}, "properties": {"p": {"$ref": "#str"}}},
        "p: 1",
        (),
        id="ref-anchor",
    ),
    pytest.param(
        {
            "$defs": {
                "s": {
                    "$id": "http://example.com/s.json",
                    "$defs": {"i": {"type": "integer"}},
                    "properties": {"i": {"$ref": "#/$defs/i"}},
                }
            },
            "properties": {"p": {"$ref": "http://example.com/s.json"}},
        },
        "p: {i: x}",
        (),
        id="ref-id",
    ),
    pytest.param(
        {
            "$schema": D7,
            "properties": {
                "a": {"items": [{"type": "string"}], "additionalItems": False},
                "b": {"items": [{"type": "string"}], "additionalItems": {"type": "integer"}},
            },
        },
        "a: [1, 2, 3]\nb: [x, y, z]",
        (),
        id="draft7-items-array",
    ),
    pytest.param(
        {"$schema": D7, "properties": {"a": {"if": {"minimum": 5}, "then": {"multipleOf": 2}, "else": {"const": 0}}}},
        "a: 3",
        (),
        id="draft7-if",
    ),
    pytest.param(
        {
            "$schema": "http://json-schema.org/draft-04/schema#",
            "properties": {
                "a": {"maximum": 5, "exclusiveMaximum": True},
                "b": {"minimum": 5, "exclusiveMinimum": True},
            },
        },
        "a: 5\nb: 5",
        (),
        id="draft4",
    ),
    pytest.param(
        {
            "properties": {
                "list": {
                    "items": {
                        "anyOf": [
                            {"type": "string"},
                            {"properties": {"n": {"type": "integer", "minimum": 0}}, "required": ["n"]},
                        ]
                    }
                }
            }
        },
        "list: [ok, {n: -1}, {m: 1}, 3]",
        (),
        id="nesting",
    ),
    pytest.param(
        {
            "properties": {
                "a": {
                    "properties": {
                        "b": {"items": {"properties": {"c": {"oneOf": [{"type": "string"}, {"type": "boolean"}]}}}}
                    }
                }
            }
        },
        "a: {b: [{c: 1}, {c: x}, {c: [1]}]}",
        (),
        id="nesting-deep",
    ),
    pytest.param(
        {
            "type": "object",
            "required": ["name"],
            "properties": {
                "replicas": {"type": "integer", "minimum": 1},
                "image": {
                    "type": "object",
                    "properties": {
                        "tag": {"type": "string"},
                        "pullPolicy": {"enum": ["Always", "IfNotPresent", "Never"]},
                    },
                },
            },
            "additionalProperties": False,
        },
        "replicas: 0\nimage: {tag: 1.2, pullPolicy: sometimes}\nextra: 1",
        (),
        id="many-at-once",
    ),
    pytest.param({"properties": {"a": False}}, "a: 1", (), id="false-schema"),
    pytest.param(
        {
            "properties": {
                "a": {"properties": {"x": {}}, "allOf": [{"properties": {"y": {}}}], "unevaluatedProperties": False}
            }
        },
        "a: {x: 1, y: 2, z: 3}",
        (),
        id="unevaluated",
    ),
    pytest.param(
        {"properties": {"a": {"prefixItems": [{}], "unevaluatedItems": {"type": "string"}}}},
        "a: [1, 2, x]",
        (),
        id="unevaluated-items",
    ),
    pytest.param({"type": "array"}, "a: 1", (), id="root-type"),
    pytest.param(
        {"properties": {"a/b": {"properties": {"c~d": {"type": "string"}}}}},
        '"a/b": {"c~d": 1}',
        (),
        id="escaped-pointer",
    ),
    pytest.param({"properties": {"a": {"type": "string"}}}, "a: null\nb: 1", (), id="null-value"),
    # more shapes: unevaluated* through in-place applicators, quoting, numbers, flags' values
    pytest.param(
        {
            "properties": {
                "a": {
                    "anyOf": [
                        {"properties": {"x": {"type": "integer"}}, "required": ["x"]},
                        {"properties": {"y": {}}, "required": ["y"]},
                    ],
                    "unevaluatedProperties": False,
                }
            }
        },
        "a: {x: 1, y: 2, z: 3}",
        (),
        id="uneval-anyof",
    ),
    pytest.param(
        {
            "properties": {
                "a": {
                    "if": {"properties": {"k": {"const": 1}}, "required": ["k"]},
                    "then": {"properties": {"t": {}}},
                    "unevaluatedProperties": {"type": "string"},
                }
            }
        },
        "a: {k: 1, t: 2, u: 3, v: s}",
        (),
        id="uneval-ifthen",
    ),
    pytest.param(
        {
            "$defs": {"b": {"properties": {"x": {}}}},
            "properties": {"a": {"$ref": "#/$defs/b", "unevaluatedProperties": False}},
        },
        "a: {x: 1, q: 2}",
        (),
        id="uneval-ref",
    ),
    pytest.param(
        {"properties": {"a": {"allOf": [{"properties": {"x": {"type": "string"}}}], "unevaluatedProperties": False}}},
        "a: {x: 1, q: 2}",
        (),
        id="uneval-nested-fail",
    ),
    pytest.param(
        {"properties": {"a": {"contains": {"type": "string"}, "unevaluatedItems": False}}},
        "a: [x, 1, y, 2]",
        (),
        id="uneval-items-contains",
    ),
    pytest.param(
        {
            "properties": {
                "a": {
                    "patternProperties": {"^p": {}},
                    "additionalProperties": {"type": "integer"},
                    "unevaluatedProperties": False,
                }
            }
        },
        "a: {p1: 1, o: x}",
        (),
        id="uneval-pattern-additional",
    ),
    pytest.param(
        {"properties": {"a": {"oneOf": [{"required": ["x"]}, {"required": ["y"]}], "minProperties": 5}}},
        "a: {z: 1}",
        (),
        id="oneof-then-others",
    ),
    pytest.param(
        {"properties": {"a": {"not": {"properties": {"x": {"type": "string"}}}}}}, "a: {x: s}", (), id="not-nested"
    ),
    pytest.param({"properties": {"a": {"type": ["null", "boolean"]}}}, "a: 1", (), id="type-null-want"),
    pytest.param({"properties": {"a": {"type": "integer"}}}, "a: 1.5", (), id="integer-fraction"),
    pytest.param(
        {"properties": {"a": {"enum": [None]}, "b": {"const": True}, "c": {"const": None}}},
        "a: 1\nb: 1\nc: x",
        (),
        id="enum-null-bool",
    ),
    pytest.param({"properties": {"a": {"enum": [1.5, 2.0, -3, 100000000000]}}}, "a: 7", (), id="enum-float-literals"),
    pytest.param(
        {"properties": {"a": {"uniqueItems": True}}},
        f"a: [{', '.join(map(str, range(30)))}, 5]",  # past 20 items v6 looks for duplicates by hash
        (),
        id="unique-big",
    ),
    pytest.param(
        {"properties": {"a": {"pattern": "^'\"\\\\$"}}},
        'a: "it\'s \\"q\\" \\\\ \\u00e9 \\u2028 \\U0001F600"',
        (),
        id="string-quote",
    ),
    pytest.param({"required": ["it's", 'a"b', "c\nd"]}, "x: 1", (), id="required-quote"),
    pytest.param({"additionalProperties": False, "properties": {"a": {}}}, "b: 1", (), id="additional-multi"),
    pytest.param({"minProperties": 3, "properties": {"a": {"type": "string"}}}, "a: 1", (), id="min-props-root"),
    pytest.param(
        {"properties": {"a": {"prefixItems": [{}], "items": False}}}, "a: [1, 2, 3]", (), id="items-false-2020"
    ),
    pytest.param({"properties": {"a": {"maxLength": 2}}}, 'a: "\\u00e9\\u00e9\\u00e9"', (), id="max-length-unicode"),
    pytest.param(
        {"properties": {"a": {"multipleOf": 3}, "b": {"multipleOf": 0.5}}}, "a: 10\nb: 1.25", (), id="multipleof-int"
    ),
    pytest.param({"properties": {"a": {"propertyNames": False}}}, "a: {x: 1}", (), id="propnames-false"),
    pytest.param(
        {"properties": {"a": {"propertyNames": {"minLength": 3, "pattern": "^z"}}}},
        "a: {x: 1}",
        (),
        id="propnames-group",
    ),
    # v6 keeps a propertyNames failure's location without copying it: helm prints, at each
    # depth, the last value descended into there (the walk's descents must be v6's)
    pytest.param(
        {"properties": {"list": {"items": {"propertyNames": {"pattern": "^[a-z]+$"}}}}},
        "list: [{B: 1}, {ok: 1}, {ok: 2}]",
        (),
        id="propnames-location-last-item",
    ),
    pytest.param(
        {"properties": {"list": {"items": {"additionalProperties": {"propertyNames": {"pattern": "^[a-z]+$"}}}}}},
        "list: [{x: {B: 1}}, {y: {ok: 1}}]",
        (),
        id="propnames-location-other-branch",
    ),
    pytest.param(
        {"properties": {"list": {"prefixItems": [{"propertyNames": {"pattern": "^[a-z]+$"}}],
                                 "not": {"allOf": [{"maxItems": 0}, {"items": {}}]}}}},
        "list: [{B: 1}, {ok: 1}]",
        (),
        id="propnames-location-not-stops",
    ),
    pytest.param(
        {"properties": {"list": {"prefixItems": [{"propertyNames": {"pattern": "^[a-z]+$"}}],
                                 "anyOf": [{}, {"items": {}}],
                                 "oneOf": [{}, {"allOf": [{"maxItems": 0}, {"items": {}}]}],
                                 "if": {"allOf": [{"maxItems": 0}, {"items": {}}]}}}},
        "list: [{B: 1}, {ok: 1}]",
        (),
        id="propnames-location-anyof-oneof-if-stop",
    ),
    pytest.param(  # past 8 names v6's slices grow into arrays of their own, aliased in turn
        {"$defs": {"n": {"items": {"$ref": "#/$defs/n"}, "additionalProperties": {"$ref": "#/$defs/n"},
                         "propertyNames": {"pattern": "^[a-z]+$"}}},
         "properties": {"a": {"$ref": "#/$defs/n"}}},
        '{"a": [[0], [[[0], [[[0], [[[0], [[{"B": 1}, {"c": [{"Q": 2}, 3]}], [{"d": 1}, 5, 6]]], [1]]], [1]]], [1]]]}',
        (),
        id="propnames-location-deeper-than-8",
    ),
    pytest.param(
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "properties": {"a": {"contains": {"type": "string"}, "minContains": 3}},
        },
        "a: [1]",
        (),
        id="contains-draft7",
    ),
    pytest.param(
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "definitions": {"s": {"type": "string"}},
            "properties": {"a": {"$ref": "#/definitions/s", "const": "x"}},
        },
        "a: y",
        (),
        id="ref-draft7-const",
    ),
    pytest.param(
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "properties": {"a": {"exclusiveMinimum": 5, "exclusiveMaximum": 5}},
        },
        "a: 5",
        (),
        id="exclusive-draft7",
    ),
    pytest.param({"properties": {"a": {"if": True, "then": False}}}, "a: 1", (), id="if-false-schema"),
    pytest.param(
        {
            "$defs": {"n": {"type": "integer", "minimum": 10}},
            "properties": {"a": {"allOf": [{"$ref": "#/$defs/n"}, {"multipleOf": 7, "maximum": 1}]}},
        },
        "a: 5",
        (),
        id="allof-with-ref-group",
    ),
    pytest.param(
        {"properties": {"a": {"maximum": 1}, "b": {"minimum": 1e20}, "c": {"maximum": -1}}},
        "a: 1e21\nb: 123456789012\nc: 0.5",
        (),
        id="big-numbers",
    ),
    pytest.param({"properties": {"a": {"type": "string"}}}, "", ("--set-json", 'a=[1,{"b":2}]'), id="set-json"),
    pytest.param({"properties": {"a": {"type": "integer"}}}, "", ("--set", "a=1.5"), id="set-float"),
    # the draft v6 picks: its $schema names over http or https
    pytest.param(
        {
            "$schema": "https://json-schema.org/draft-07/schema#",
            "definitions": {"s": {"type": "string"}},
            "properties": {
                "a": {"$ref": "#/definitions/s", "minLength": 5},
                "b": {"items": [{"type": "string"}], "additionalItems": False},
            },
        },
        "a: ab\nb: [x, 1]",
        (),
        id="https-draft7",
    ),
    pytest.param(
        {"$schema": "https://json-schema.org/draft/2019-09/schema", "properties": {"a": {"minimum": 5}}},
        "a: 1",
        (),
        id="https-2019-09",
    ),
    pytest.param(
        {
            "$schema": "http://json-schema.org/draft-04/schema",
            "properties": {"a": {"maximum": 5, "exclusiveMaximum": True}},
        },
        "a: 5",
        (),
        id="draft4-no-fragment",
    ),
    # reference cycles: v6 reports each where it meets it, under the keywords that led there
    pytest.param({"$ref": "#"}, "a: 1", (), id="cycle-root"),
    pytest.param({"allOf": [{"$ref": "#"}]}, "a: 1", (), id="cycle-allof"),
    pytest.param(
        {
            "definitions": {"a": {"$ref": "#/definitions/b"}, "b": {"$ref": "#/definitions/a"}},
            "properties": {"x": {"$ref": "#/definitions/a"}, "z": {"type": "string"}},
        },
        "x: 1\nz: 1",
        (),
        id="cycle-mutual-and-another-failure",
    ),
    pytest.param(
        {"properties": {"x": {"anyOf": [{"type": "string"}, {"$ref": "#/properties/x"}]}}},
        "x: 1",
        (),
        id="cycle-in-anyof",
    ),
]


@pytest.mark.parametrize(("schema_doc", "values", "flags"), CASES)
def test_violations_are_worded_as_helm(both, schema_doc, values, flags):
    chart = _chart(both.tmp, "c", schema_doc, values)
    _same_report(both, "template", str(chart), *flags)


@pytest.mark.parametrize(("schema_doc", "values", "flags"), [case for case in CASES if not case.values[2]])
def test_the_tree_explains_every_failure_without_falling_back(schema_doc, values, flags):
    """Every corpus case whose values are a file (those from flags are covered through the CLI
    above) fails, and v6's walk finds the failures itself (the fallback to jsonschema's messages
    is for a disagreement, never for these)."""
    from helm_core.golib import goyaml

    given = goyaml.load_values(values, context="values")
    assert schema_tree.Walker(schema_doc, schema.no_remote).failures(given)


# --------------------------------------------------------------------------- invalid schemas


@pytest.mark.parametrize(
    "schema_doc",
    [
        pytest.param({"type": 5}, id="type-not-a-name"),
        pytest.param({"properties": {"a": {"pattern": "(["}}}, id="pattern-not-go-regex"),
        pytest.param({"minLength": -1}, id="negative-length"),
        pytest.param({"$schema": 5}, id="dollar-schema-not-a-string"),
        pytest.param({"required": "a", "properties": {"a": {"enum": {}}}}, id="several"),
        pytest.param({"$schema": D7, "properties": {"a": {"type": "strin", "items": [{"minimum": "x"}]}}}, id="draft7"),
        pytest.param({"$schema": D7, "definitions": {"d": {"additionalProperties": 1}}}, id="draft7-definitions"),
    ],
)
def test_invalid_schemas_are_explained_as_helm(both, schema_doc):
    """helm checks the schema against its draft's metaschema first and prints that tree, under
    one line naming both, without the newline that ends a values report."""
    chart = _chart(both.tmp, "c", schema_doc, "a: x")
    assert "is not valid against metaschema" in _same_report(both, "template", str(chart))


@pytest.mark.parametrize(
    ("schema_doc", "values"),
    [
        pytest.param({"properties": {"a": {"$ref": "#/definitions/x~1y"}}}, "a: 1", id="pointer"),
        pytest.param({"properties": {"a": {"$ref": "#/definitions/x"}}}, "b: 1", id="pointer-no-value-reaches"),
        pytest.param({"properties": {"a": {"$ref": "#nope"}}}, "a: 1", id="anchor"),
        pytest.param(
            {
                "$schema": D7,
                "definitions": {"s": {"$id": "#str", "type": "string"}},
                "properties": {"a": {"$ref": "#str"}, "b": {"$ref": "#/definitions/t"}},
            },
            "a: 1",
            id="draft7",
        ),
    ],
)
def test_references_that_lead_nowhere_fail_as_in_helm(both, schema_doc, values):
    """helm compiles every reference first: one into the document that leads nowhere fails the
    chart whatever the values, with the compiler's error."""
    _same_report(both, "template", str(_chart(both.tmp, "c", schema_doc, values)))


@pytest.mark.parametrize(
    ("schema_doc", "values"),
    [
        pytest.param({"$id": "http://a b/"}, "a: 1", id="root"),
        pytest.param({"$schema": D7, "properties": {"a": {"$id": "%zz"}}}, "a: 1", id="nested"),
        pytest.param({"$schema": D4, "definitions": {"a b/c": {"id": "http://[::1/"}}}, "a: 1", id="draft4-escaped-at"),
        pytest.param({"properties": {"a": {"$id": "http://x:y/", "$ref": "#/$defs/s"}}, "$defs": {"s": {}}}, "a: 1",
                     id="beside-ref-2020"),
        pytest.param({"$id": "http://a b/", "type": 5}, "a: 1", id="before-the-metaschema"),
        pytest.param({"$schema": D7, "items": [{"$id": "http://[fe80::1%25en0]:80/"}, {"$id": "http://x/%zz"}]}, "a: 1",
                     id="in-a-list"),
    ],
)
def test_ids_that_are_no_url_fail_as_in_helm(both, schema_doc, values):
    """helm reads every subschema's id as a URL before anything else: one Go refuses fails."""
    assert "error in parsing id at" in _same_report(both, "template", str(_chart(both.tmp, "c", schema_doc, values)))


@pytest.mark.parametrize(
    "schema_doc",
    [
        pytest.param({"$schema": D7, "properties": {"a": {"id": "http://a b/"}}}, id="id-is-draft4s"),
        pytest.param({"$schema": D7, "$id": "http://x/#%41", "properties": {"a": {"$ref": "#/definitions/s"}},
                      "definitions": {"s": {"$comment": "http://a b/"}}}, id="escaped-fragment"),
    ],
)
def test_ids_helm_does_not_read_as_in_helm(both, schema_doc):
    chart = _chart(both.tmp, "c", schema_doc, "a: {}")
    assert both.same("template", str(chart))[0] == 0


@pytest.mark.parametrize(
    "schema_doc",
    [
        pytest.param({"$schema": D7, "properties": {"a": {"$id": "http://x:y/", "$ref": "#/definitions/s"}},
                      "definitions": {"s": {}}}, id="id-beside-ref-draft7"),
        pytest.param({"$id": "http://x/a#%zz", "properties": {"id": {"type": "string"}}}, id="id-fragment-2020"),
        pytest.param({"$schema": D7, "properties": {"a": {"$ref": "#/definitions/a b\\c"}},
                      "definitions": {"a b\\c": {}}}, id="ref-with-backslash"),
        # one key at the root: with "$schema" beside it, Go's map order decides which of the
        # two v6 names as the location of the invalid property name (see schema_tree._Locations)
        pytest.param({"patternProperties": {"a(": {}}}, id="pattern-properties-regex"),
    ],
)
def test_schema_formats_are_asserted_against_the_metaschema_as_in_helm(both, schema_doc):
    """helm checks a schema against its metaschema with formats asserted (uri, uri-reference, regex)."""
    _same_report(both, "template", str(_chart(both.tmp, "c", schema_doc, "a: {}")))


def test_well_placed_references_resolve_as_in_helm(both):
    doc = {
        "$schema": D7,
        "definitions": {"s": {"$id": "#str", "type": "string"}, "a b": {"minimum": 3}},
        "properties": {"a": {"$ref": "#str"}, "b": {"$ref": "#/definitions/a%20b"}},
    }
    _same_report(both, "template", str(_chart(both.tmp, "c", doc, "a: 1\nb: 2")))


@pytest.mark.parametrize(
    "text",
    [
        pytest.param('{"type": "object",}', id="syntax"),
        pytest.param('{"a": 1} x', id="after-the-value"),
        pytest.param("{} {}", id="two-values"),
        pytest.param("", id="empty"),
        pytest.param("[1", id="truncated"),
        pytest.param("false", id="false"),
        pytest.param("[]", id="array"),
        pytest.param("null", id="null"),
        pytest.param(' "a"', id="string"),
    ],
)
def test_schema_files_that_are_no_schema_as_helm(both, text):
    _same_report(both, "template", str(_chart(both.tmp, "c", text, "a: 1")))


def test_schema_numbers_are_quoted_as_written_as_in_helm(both):
    """v6 keeps a schema's numbers as JSON text: enum and const values print as the file has them."""
    text = '{"properties": {"a": {"enum": [1e3, 2.50, 1.0, 100000000000000000000000, 0.1e-2]}, "b": {"const": 1E+2}}}'
    _same_report(both, "template", str(_chart(both.tmp, "c", text, "a: 7\nb: 3")))


def test_a_true_schema_lets_every_value_pass_as_in_helm(both):
    chart = _chart(both.tmp, "c", "true", "a: 1")
    (chart / "templates" / "a.yaml").write_text("a: {{ .Values.a }}\n")
    assert both.same("template", str(chart))[:2] == (0, "---\n# Source: c/templates/a.yaml\na: 1\n")


# --------------------------------------------------------------------------- subcharts

_SUB_SCHEMA = {"properties": {"port": {"type": "integer"}}}


def _parent(root: Path, parent_values: str, sub_values: str = "port: 80") -> Path:
    parent = _chart(root, "parent", {"properties": {"name": {"type": "string"}}}, parent_values)
    (parent / "Chart.yaml").write_text(
        "apiVersion: v2\nname: parent\nversion: 0.1.0\ndependencies:\n- name: sub\n  version: 0.1.0\n"
    )
    _chart(parent / "charts", "sub", _SUB_SCHEMA, sub_values)
    return parent


@pytest.mark.parametrize(
    ("parent_values", "flags"),
    [
        pytest.param("name: 1\nsub: {port: x}", (), id="both-schemas"),
        pytest.param("name: ok\nsub: {port: x}", (), id="subchart-only"),
        pytest.param("name: 1", ("--set", "sub=1"), id="values-int64"),
        pytest.param("name: 1", ("--set", "sub=x"), id="values-string"),
        pytest.param("sub: [1, 2]", (), id="values-list"),
        pytest.param("sub: true", (), id="values-bool"),
        pytest.param("sub: 1.5", (), id="values-float64"),
        pytest.param("name: 1\nsub: 2", (), id="values-and-parent"),
    ],
)
def test_subchart_failures_as_helm(both, parent_values, flags):
    _same_report(both, "template", str(_parent(both.tmp, parent_values)), *flags)


def test_an_invalid_schema_then_a_subchart_failure_as_helm(both):
    """helm prints a schema it cannot use without a newline after it: the next chart's name
    follows on the same line."""
    parent = _parent(both.tmp, "sub: {port: x}")
    (parent / "values.schema.json").write_text(json.dumps({"type": 5}))
    assert "string, want integer" in _same_report(both, "template", str(parent))


# --------------------------------------------------------------------------- lint


@pytest.mark.parametrize(
    ("values", "flags"),
    [
        pytest.param("a: 1", (), id="values-yaml"),
        pytest.param("a: ok", ("--set", "a=1"), id="overrides"),
        pytest.param("a: ok\nb: {c: [1, x]}", (), id="nested"),
        pytest.param("a: ok", (), id="passes"),
    ],
)
def test_lint_reports_schema_failures_as_helm(both, values, flags):
    """helm lint checks values.yaml (under the lint's values) against the chart's schema itself,
    then reports the render's failure with the report's closing newline."""
    doc = {"properties": {"a": {"type": "string"}, "b": {"properties": {"c": {"items": {"type": "integer"}}}}}}
    chart = _chart(both.tmp, "c", doc, values)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\nicon: https://example.com/i.png\n")
    (chart / "templates" / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
    both.same("lint", str(chart), *flags)


# --------------------------------------------------------------------------- real charts

#: Flags that break each shared chart's values.schema.json (its subcharts' too, for prometheus).
_BREAKING = {
    "prometheus": [
        "--set",
        "alertmanager.baseURL=1",
        "--set-string",
        "alertmanager.replicaCount=x",
        "--set",
        "alertRelabelConfigs=1",
    ],
    "redis": ["--set", "global.imageRegistry=1", "--set", "architecture=5"],
    "cert-manager": ["--set", "bogus=1", "--set", "replicaCount=x", "--set", "webhook.timeoutSeconds=abc"],
    "nginx": ["--set", "ingress.enabled=maybe", "--set", "ingress.hostname=7"],
    "external-secrets": ["--set", "affinity=x", "--set", "replicaCount=many"],
    "postgresql": ["--set", "architecture=5", "--set", "auth.enablePostgresUser=x"],
}


def test_shared_charts_schema_failures_as_helm(both):
    charts = [c for c in _shared_charts() if (c / "values.schema.json").is_file()]
    if not charts:
        pytest.skip("no shared charts (../shared/charts or $HELM_CONTROLLER_SHARED_CHARTS)")
    assert {c.name for c in charts} <= set(_BREAKING), "a shared chart with a schema has no breaking values here"
    for chart in charts:
        assert "- at '" in _same_report(both, "template", str(chart), *_BREAKING[chart.name])


# --------------------------------------------------------------------------- wording


@pytest.mark.parametrize(
    ("number", "printed"),
    [
        (0.0, "0"),
        (1.0, "1"),
        (-1234.5, "-1,234.5"),
        (99999.99, "99,999.99"),
        (100000.0, "100,000"),
        (1e6, "1×10⁰⁶"),
        (1234567.5, "1.2345675×10⁰⁶"),
        (0.0001, "0.0001"),
        (1.234e-05, "1.234×10⁻⁰⁵"),
        (-1e-300, "-1×10⁻³⁰⁰"),
        (1e100, "1×10¹⁰⁰"),
    ],
)
def test_numbers_printed_as_x_text_prints_them(number, printed):
    assert schema_errors.printed_float(number) == printed


def test_quoting_is_v6s():
    assert schema_errors.quote('it\'s "x"\t\u0001é') == "'it\\'s \"x\"\\t\\x01é'"


def test_a_walk_that_finds_nothing_falls_back_to_jsonschemas_message(monkeypatch):
    """Should v6's walk find nothing where jsonschema found failures (a keyword whose meaning we
    model differently from v6: none known), the values still fail, in jsonschema's words, rather
    than pass silently."""
    doc = {"properties": {"a": {"minimum": 5}}}
    monkeypatch.setattr(schema_tree.Walker, "failures", lambda self, values: [])
    found = schema.violations(doc, {"a": 3}, source="c/values.schema.json")
    assert found == ["- at '/a': 3 is less than the minimum of 5"]


def test_decimal_multiples_are_v6s():
    """multipleOf 0.1 and 0.3: v6 divides decimal rationals (a multiple, helm passes), where
    floats' quotient is not an integer; the fast check, jsonschema's and the walk agree with v6."""
    doc = {"properties": {"a": {"multipleOf": 0.1}}}
    assert schema_tree.Walker(doc, schema.no_remote).failures({"a": 0.3}) == []
    assert schema.violations(doc, {"a": 0.3}, source="c/values.schema.json") == []
    # another failure: jsonschema validates, and finds nothing to say of a
    both_keys = {"properties": {"a": {"multipleOf": 0.1}, "b": {"type": "string"}}}
    assert schema.violations(both_keys, {"a": 0.3, "b": 1}, source="c/values.schema.json") == [
        "- at '/b': got number, want string"
    ]
    assert schema.violations(doc, {"a": 0.35}, source="c/values.schema.json") == [
        "- at '/a': multipleOf: got 0.35, want 0.1"
    ]
