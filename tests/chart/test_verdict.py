"""Compiled value checks answer as jsonschema does, and spare the jsonschema import when values pass.

The reference is always jsonschema itself, run in the same test on the same schema and
instance, the way helm_core.chart.schema builds its validator. Where the compiled closures
decide, they must agree; the tests also count what they decide, so a check that always
said "undecided" could not pass.
"""
from __future__ import annotations

import copy
import itertools
import json
import random
import re
import subprocess
import sys
import textwrap
from typing import Any

import jsonschema
import pytest
import referencing

from helm_core.chart import jsonschema_go, loader, metaschema, prepare, schema, schema_formats, verdict
from helm_core.golib.gotypes import Int64
from tests.chartkit import SHARED_CHARTS, shared_chart_names

D7 = "http://json-schema.org/draft-07/schema#"

#: (schema, instances): each keyword this module compiles, with the corners where Python's
#: own rules and JSON Schema's differ (bool vs int, 1 vs 1.0, float multiples...).
CASES: list[tuple[Any, list[Any]]] = [
    ({"type": "integer"}, [1, 1.0, 1.5, True, "1", None]),
    ({"type": "number"}, [1, 2.5, True, False, "2"]),
    ({"type": ["string", "null"]}, ["x", None, 0, []]),
    ({"type": "object"}, [{}, [], "x"]), ({"type": "array"}, [[], {}, "x"]), ({"type": "boolean"}, [True, 0]),
    ({"enum": [1, "a", None, [1, 2], {"k": True}]}, [1, 1.0, True, "a", None, [1, 2], [1.0, 2.0], [True, 2],
                                                     {"k": True}, {"k": 1}, "b"]),
    ({"enum": [True, False]}, [True, 0, 1, False]),
    ({"const": 0}, [0, 0.0, False, None]), ({"const": {"a": [1]}}, [{"a": [1]}, {"a": [True]}, {"a": [1], "b": 2}]),
    ({"uniqueItems": True}, [[1, 2], [1, 1.0], ["a", "a"], ["a", "b"], [], "not a list", [[1], [1]], [1, True],
                             [[1], [True]], [{"a": 1}, {"a": 1.0}], [{"a": [None]}, {"a": [False]}], [None, None]]),
    ({"uniqueItems": False}, [[1, 1]]),
    ({"multipleOf": 0.1}, [0.3, 0.2, 1, 7.5, "x"]), ({"multipleOf": 2}, [4, 5, 4.0, 4.5, True]),
    ({"minimum": 1, "maximum": 3}, [0, 1, 3, 3.5, "9", True]),
    ({"exclusiveMinimum": 1, "exclusiveMaximum": 3}, [1, 2, 3, 1.0001]),
    ({"minLength": 2, "maxLength": 3}, ["a", "ab", "abcd", "é€", 12]),
    ({"minItems": 1, "maxItems": 2}, [[], [1], [1, 2, 3], "abc"]),
    ({"minProperties": 1, "maxProperties": 1}, [{}, {"a": 1}, {"a": 1, "b": 2}, []]),
    ({"pattern": "^a.c$"}, ["abc", "xabc", "a\nc", 5]), ({"pattern": "b"}, ["abc", "xyz"]),
    ({"required": ["a", "b"]}, [{"a": 1, "b": None}, {"a": 1}, [], "a"]),
    ({"properties": {"a": {"type": "string"}, "b": False}}, [{"a": "x"}, {"a": 1}, {"b": 1}, {}, 3]),
    ({"patternProperties": {"^x-": {"type": "integer"}}, "additionalProperties": False},
     [{"x-a": 1}, {"x-a": "1"}, {"y": 1}, {}]),
    ({"properties": {"a": {}}, "patternProperties": {"^b": {}, "^c": {}}, "additionalProperties": {"type": "string"}},
     [{"a": 1, "b1": 1, "c": 2, "d": "x"}, {"d": 1}]),
    ({"propertyNames": {"pattern": "^[a-z]+$"}}, [{"abc": 1}, {"aB": 1}, {}]),
    ({"items": {"type": "integer"}}, [[1, 2], [1, "2"], [], {"0": "x"}]),
    ({"items": False}, [[], [1]]), ({"items": True}, [[1]]),
    ({"prefixItems": [{"type": "string"}], "items": {"type": "integer"}}, [["a", 1], [1, 1], ["a", "b"], ["a"]]),
    ({"prefixItems": [{"type": "string"}], "items": False}, [["a"], ["a", 1]]),
    ({"allOf": [{"minimum": 1}, {"maximum": 2}]}, [1, 3, 0]),
    ({"anyOf": [{"type": "string"}, {"minimum": 5}]}, ["x", 6, 1, True]),
    ({"oneOf": [{"type": "integer"}, {"minimum": 2}]}, [1, 3, 2.5, "x"]),
    ({"not": {"type": "string"}}, ["x", 1]), ({"not": True}, [1]), ({"not": False}, [1]),
    ({"if": {"properties": {"kind": {"const": "a"}}}, "then": {"required": ["x"]}, "else": {"required": ["y"]}},
     [{"kind": "a", "x": 1}, {"kind": "a"}, {"kind": "b", "y": 1}, {"kind": "b"}, {}]),
    ({"then": {"required": ["x"]}}, [{}]),
    ({"dependentRequired": {"a": ["b"]}}, [{"a": 1}, {"a": 1, "b": 1}, {"b": 1}]),
    ({"dependentSchemas": {"a": {"required": ["b"]}}}, [{"a": 1}, {"a": 1, "b": 1}, {}]),
    ({"$defs": {"pos": {"type": "integer", "minimum": 1}}, "properties": {"n": {"$ref": "#/$defs/pos"}}},
     [{"n": 1}, {"n": 0}, {"n": "1"}]),
    ({"$ref": "#/$defs/a", "type": "integer", "$defs": {"a": {"minimum": 5}}}, [6, 4, 6.5]),
    ({"$schema": D7, "$ref": "#/definitions/a", "type": "integer", "definitions": {"a": {"minimum": 5}}}, [6, 6.5, 4]),
    ({"properties": {"child": {"$ref": "#"}}, "required": ["name"]},
     [{"name": 1, "child": {"name": 2}}, {"name": 1, "child": {}}]),
    ({"$defs": {"a~b/c": {"type": "string"}, "d%25": {"type": "integer"}},
      "properties": {"x": {"$ref": "#/$defs/a~0b~1c"}, "y": {"$ref": "#/$defs/d%2525"}}},
     [{"x": "s", "y": 1}, {"x": 1}, {"y": "s"}]),
    ({"properties": {"l": {"prefixItems": [{}, {"$ref": "#/properties/l/prefixItems/0"}]}}}, [{"l": [1, 2]}]),
    ({"$schema": D7, "items": [{"type": "string"}], "additionalItems": {"type": "integer"}}, [["a", 1], ["a", "b"], [1]]),
    ({"$schema": D7, "items": [{"type": "string"}], "additionalItems": False}, [["a"], ["a", 1]]),
    ({"$schema": D7, "items": {"type": "string"}, "additionalItems": False}, [["a", "b"]]),
    ({"$schema": D7, "dependencies": {"a": ["b"], "c": {"required": ["d"]}}}, [{"a": 1}, {"c": 1}, {"c": 1, "d": 1}]),
    ({"$schema": D7, "exclusiveMinimum": 1}, [1, 2]),
    ({"$schema": D7, "prefixItems": [{"type": "string"}]}, [[1]]),  # not a draft 7 keyword: ignored
    ({"format": "ipv4", "title": "t", "x-anything": {"type": "string"}}, ["not an ip", 3]),
    ({"$schema": D7, "format": "ipv4"}, ["not an ip", "1.2.3.4", 3, None]),
    ({"$schema": D7, "format": "no-such-format"}, ["x", 3]),
    ({"$schema": D7, "properties": {"a": {"format": "email"}}},
     [{"a": "x@y.z"}, {"a": "x"}, {"a": 1}]),
    ({"multipleOf": 0.01}, [0.29, 1.15, 0.123, 12, -0.07]), ({"multipleOf": 0.3}, [0.9, 1, 0.6000000000000001]),
    (True, [1]), (False, [1]), ({}, [None]),
    # --set gives Int64 (an int subclass): the same answers as for int.
    ({"type": "integer", "minimum": 2, "multipleOf": 3, "enum": [3, 6.0]}, [Int64(3), Int64(6), Int64(9), Int64(1)]),
    ({"type": "array", "uniqueItems": True, "items": {"type": "number"}}, [[Int64(1), 1], [Int64(1), 2.0]]),
]
#: What the compiled closures refuse: jsonschema answers these.
UNDECIDED: list[tuple[Any, Any]] = [
    ({"contains": {"type": "string"}}, ["a"]),
    ({"unevaluatedProperties": False}, {"a": 1}),
    ({"$ref": "#foo", "$defs": {"a": {"$anchor": "foo"}}}, 1),
    ({"$ref": "https://example.invalid/x.json"}, 1),
    ({"$ref": "#/$defs/missing"}, 1),
    ({"$defs": {"a": {"$id": "urn:a", "type": "string"}}, "$ref": "#/$defs/a"}, 1),
    ({"type": "integer"}, float("nan")),
    ({"type": "object"}, {1: "int key"}),
    ({"type": "string"}, ("a", "tuple")),
]


def _reference(tree: Any, instance: Any) -> bool:
    """jsonschema as schema.py runs it: with v6's multipleOf, and v6's formats in older drafts."""
    cls = jsonschema.validators.validator_for(tree, default=jsonschema.Draft202012Validator)
    formats = jsonschema_go.v6_format_checker() if schema_formats.asserted(metaschema.v6_draft(tree)) else None
    registry = referencing.Registry(retrieve=schema.no_remote)
    return jsonschema_go.values_validator(cls)(tree, registry=registry, format_checker=formats).is_valid(instance)


def _ours(tree: Any, instance: Any) -> bool:
    formats = schema_formats.check if schema_formats.asserted(metaschema.v6_draft(tree)) else None
    check = verdict.Compiler(metaschema.dialect(tree), {"": tree}, formats=formats).compile("")
    verdict.plain(instance)
    return check(instance)


def test_written_cases_get_jsonschemas_verdict():
    seen = {True: 0, False: 0}
    for tree, instances in CASES:
        assert metaschema.valid(tree), tree  # only valid schemas get here in production
        for instance in instances:
            expected = _reference(tree, instance)
            assert _ours(tree, instance) is expected, f"{json.dumps(tree)} on {instance!r}"
            seen[expected] += 1
    assert seen[True] >= 60 and seen[False] >= 60


@pytest.mark.parametrize(("tree", "instance"), UNDECIDED, ids=range(len(UNDECIDED)))
def test_what_is_not_modelled_is_left_to_jsonschema(tree, instance):
    with pytest.raises(verdict.Undecided):
        _ours(tree, instance)


def _mutate_values(rng: random.Random, values: Any) -> tuple[Any, list[str]]:
    """``values`` with one to four random changes: other types, removed or added keys."""
    out = copy.deepcopy(values)
    changes = []
    replacements = [None, True, 0, 1, -1, 1.5, 3.0, "", "x", "yes", [], ["a"], {}, {"k": "v"}, 65536]
    for _ in range(rng.randint(1, 4)):
        containers = []
        stack = [out]
        while stack:
            node = stack.pop()
            if isinstance(node, dict) and node:
                containers.append(node)
                stack.extend(node.values())
            elif isinstance(node, list) and node:
                containers.append(node)
                stack.extend(node)
        if not containers:
            break
        node = rng.choice(containers)
        key = rng.choice(list(node) if isinstance(node, dict) else range(len(node)))
        action = rng.random()
        if action < 0.15 and isinstance(node, dict):
            del node[key]
            changes.append(f"del {key}")
        elif action < 0.25 and isinstance(node, dict):
            node[f"extra{rng.randint(0, 9)}"] = rng.choice(replacements)
            changes.append("add key")
        else:
            node[key] = copy.deepcopy(rng.choice(replacements))
            changes.append(f"{key} = {node[key]!r}")
    return out, changes


def _shared_pairs() -> list[tuple[str, Any, dict[str, Any]]]:
    """(chart name, schema, values it validates) for every schema of the shared charts."""
    pairs = []
    for name in shared_chart_names():
        prepared = prepare.prepare_chart(loader.load(SHARED_CHARTS / name), {}, validate_schema=False)

        def walk(chart: Any, values: dict[str, Any]) -> None:
            if chart.schema is not None:
                pairs.append((chart.name, json.loads(json.dumps(chart.schema)), values))
            for sub in chart.dependencies:
                if isinstance(values.get(sub.name), dict):
                    walk(sub, values[sub.name])

        walk(prepared.chart, prepared.values)
    return pairs


SHARED = _shared_pairs()


def test_shared_charts_default_values_pass_both_ways():
    if not SHARED:
        pytest.skip(f"{SHARED_CHARTS} not present: no real chart schemas to compare")
    for name, tree, values in SHARED:
        assert _reference(tree, values), name
        assert _ours(tree, values), name


def test_mutated_values_of_shared_charts_get_jsonschemas_verdict_and_messages():
    # Property-style, fixed seed: random changes to real charts' default values; the compiled
    # verdict agrees with jsonschema, and schema.violations (fast path first) reports exactly
    # what the jsonschema path alone reports.
    if not SHARED:
        pytest.skip(f"{SHARED_CHARTS} not present: no real chart schemas to compare")
    rng = random.Random(11)
    seen = {True: 0, False: 0}
    undecided = 0
    for n in range(400):
        name, tree, base = rng.choice(SHARED)
        values, changes = _mutate_values(rng, base)
        expected = _reference(tree, values)
        try:
            got = _ours(tree, values)
        except verdict.Undecided:
            got = None
            undecided += 1
        assert got is None or got is expected, f"{name} #{n} {changes}"
        seen[expected] += 1
        text, digest = schema._schema_text(tree)
        exact = schema._violations(digest, text, values, source=name)
        assert schema.violations(tree, values, source=name) == exact, f"{name} #{n} {changes}"
    assert seen[True] >= 40 and seen[False] >= 100
    assert undecided <= 20


def test_a_passing_chart_never_imports_jsonschema(tmp_path):
    # The point of the fast path: a first run whose values pass does not pay for jsonschema.
    script = textwrap.dedent(f"""
        import sys
        from helm_core.support import memo
        from helm_core.chart import model, schema
        memo.use(memo.DiskMemo({str(tmp_path)!r}))
        chart = model.Chart(metadata=model.Metadata(api_version="v2", name="app", version="1.0.0"),
                            schema={{"$schema": "http://json-schema.org/schema#", "type": "object",
                                    "properties": {{"replicas": {{"type": "integer", "minimum": 1}}}}}},
                            schema_file="values.schema.json")
        schema.validate(chart, {{"replicas": 2.0}})
        print("jsonschema" in sys.modules)
        try:
            schema.validate(chart, {{"replicas": 0}})
        except Exception as exc:
            print(exc)
        print("jsonschema" in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == [
        "False",
        "values don't meet the specifications of the schema(s) in the following chart(s):",
        "app:",
        "- at '/replicas': minimum: got 0, want 1",  # helm's wording (jsonschema v6)
        "",  # the report ends with a newline, as helm's
        "True",
    ]


# -- compiled at first use, allOf and references inlined ------------------------------------

#: allOf members and reference targets are inlined into their node (properties merged by
#: name, equal type lists once); each case is decided against jsonschema.
INLINED: list[tuple[Any, list[Any]]] = [
    ({"allOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/a"}],
      "$defs": {"a": {"properties": {"x": {"type": "string"}}}}},
     [{"x": 1}, {"x": "s"}, {}]),
    ({"allOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/b"}],
      "$defs": {"a": {"properties": {"x": {"type": "string"}}, "additionalProperties": False},
                "b": {"properties": {"y": {"minimum": 2}}}}},
     [{"x": "s"}, {"x": "s", "y": 3}, {"y": 1}, {"y": 3}]),
    ({"properties": {"x": {"type": "integer"}},
      "allOf": [{"properties": {"x": {"minimum": 3}}}, {"properties": {"x": {"maximum": 5}, "y": {"type": "string"}}}]},
     [{"x": 4}, {"x": 2}, {"x": 6}, {"x": 4.5}, {"y": 1}, {"y": "a", "x": 4}, {"x": 4, "a": 1, "b": 2, "c": 3}]),
    ({"$schema": D7, "allOf": [{"$ref": "#/definitions/a", "type": "string"}], "definitions": {"a": {"minimum": 1}}},
     [0, 2, "s"]),
    ({"$schema": D7, "$ref": "#/definitions/a", "allOf": [False], "definitions": {"a": {"minimum": 1}}}, [0, 2]),
    ({"type": ["object", "null"], "allOf": [{"type": ["object", "null"]}, {"type": "object"}]}, [None, {}, 1]),
    ({"allOf": [True, {"allOf": [True, {"type": "string"}]}]}, ["s", 1]),
    ({"allOf": [False]}, [1]),
    ({"not": {"allOf": [{"$ref": "#/$defs/a"}]}, "$defs": {"a": {"type": "string"}}}, ["s", 1]),
    ({"$defs": {"n": {"type": "object", "properties": {"c": {"$ref": "#/$defs/n"}, "v": {"type": "integer"}}}},
      "allOf": [{"$ref": "#/$defs/n"}]},
     [{"c": {"c": {"v": 1}}}, {"c": {"c": {"v": "x"}}}]),
    ({"anyOf": [{"allOf": [{"$ref": "#/$defs/s"}, {"minLength": 2}]}, {"type": "integer"}],
      "$defs": {"s": {"type": "string"}}},
     ["ab", "a", 1, 1.5]),
]


def test_inlined_allof_and_references_get_jsonschemas_verdict():
    seen = {True: 0, False: 0}
    for tree, instances in INLINED:
        assert metaschema.valid(tree), tree
        for instance in instances:
            expected = _reference(tree, instance)
            assert _ours(tree, instance) is expected, f"{json.dumps(tree)} on {instance!r}"
            seen[expected] += 1
    assert seen[True] >= 10 and seen[False] >= 10


def test_a_reference_cycle_through_allof_recurses_as_in_jsonschema():
    tree = {"allOf": [{"$ref": "#"}]}
    with pytest.raises(RecursionError):
        _reference(tree, 1)
    with pytest.raises(RecursionError):
        _ours(tree, 1)


def test_subschemas_are_compiled_when_an_instance_reaches_them():
    # "contains" is not modelled: Undecided where the instance reaches it, and only there —
    # as jsonschema looks only where the instance leads.
    tree = {"properties": {"list": {"contains": {"type": "string"}}, "n": {"type": "integer"}}}
    assert _ours(tree, {"n": 1}) is _reference(tree, {"n": 1}) is True
    assert _ours(tree, {"n": "x"}) is _reference(tree, {"n": "x"}) is False
    with pytest.raises(verdict.Undecided):
        _ours(tree, {"list": ["a"]})
    with pytest.raises(verdict.Undecided):  # a subschema with its own $schema, reached
        _ours({"properties": {"a": {"$schema": D7, "type": "string"}}}, {"a": 1})


def test_references_are_joined_as_urllib_joins_them():
    # verdict.resolve merges plain relative references itself (the metaschemas' "meta/core")
    # and leaves the rest to urllib: both must give urllib's answer.
    from urllib.parse import urldefrag, urljoin

    bases = ["https://json-schema.org/draft/2020-12/schema", "https://json-schema.org/draft/2020-12/meta/core",
             "http://x", "http://x/", "http://x/a/", "HTTP://x/a", "http://x/a?q", "urn:x", "", "http://x:80/a",
             "http://user@x/a", "file:///a/b", "http://x/a/../b", "http://x/./b", "http://x/a/.", "http://x/a/..",
             "http://x//a", "http://x/.a/b", "http://x/a..", "http://x/a/...", "http://json-schema.org/draft-07/schema#",
             "http://x/a#", "http://x/a#b#c", "http://x/a%20b"]
    refs = ["meta/core", "core", "a/b#frag", "a#", "./a", "../a", ".", "..", "a/./b", "a/../b", "/abs", "//h/p",
            "http://o/p", "a?q", "a#/x/y", "#x", "", ".a", "a..b", "...", "a/.b", "%41", "a b", "a#..", "a/..",
            "a/.", "~x", "a:b", "a/b:c", "a//b", "a/"]
    for base in bases:
        assert verdict.defragment(base) == tuple(urldefrag(base)), base
        for ref in refs:
            assert verdict.resolve(base, ref) == tuple(urldefrag(urljoin(base, ref))), (base, ref)


def test_a_passing_first_run_imports_no_url_parser_nor_regexp_engine(tmp_path):
    # pathlib, urllib.parse (with ipaddress) and re2 cost a first run ms each: a schema with
    # no pattern, checked against the 2020-12 metaschema and passed, needs none of them.
    script = textwrap.dedent(f"""
        import sys
        from helm_core.support import memo
        from helm_core.chart import model, schema
        memo.use(memo.DiskMemo({str(tmp_path)!r}))
        chart = model.Chart(metadata=model.Metadata(api_version="v2", name="app", version="1.0.0"),
                            schema={{"$schema": "http://json-schema.org/schema#", "type": "object",
                                    "properties": {{"replicas": {{"type": "integer", "minimum": 1}},
                                                   "tags": {{"type": "array", "items": {{"type": "string"}}}}}}}},
                            schema_file="values.schema.json")
        schema.validate(chart, {{"replicas": 2, "tags": ["a"]}})
        print(sorted(m for m in ("pathlib", "urllib.parse", "re2", "jsonschema") if m in sys.modules))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["[]"]


#: The patterns verdict's string checks stand in for (a plain base URI, a plain relative reference).
_OLD_PLAIN_BASE = re.compile(r"[a-z][a-z0-9+.-]*://[A-Za-z0-9.-]+(?:/(?!\.\.?(?:/|$))[A-Za-z0-9._~-]+)*/?")
_OLD_PLAIN_RELATIVE = re.compile(r"(?!\.\.?(?:/|#|$))[A-Za-z0-9_~-][A-Za-z0-9._~-]*"
                                 r"(?:/(?!\.\.?(?:/|#|$))[A-Za-z0-9._~-]+)*(?:#.*)?", re.DOTALL)


def test_plain_uri_checks_agree_with_the_patterns():
    chars = "aZ9.-_~/:#+\n%"
    texts = ["".join(t) for n in range(6) for t in itertools.product(chars, repeat=n)]
    pick = random.Random(7).choice
    pieces = ["http", "x", "://", "/", ".", "..", "...", "a.b", "-", "~", "_", "#", "A", "+", ":", "\n", "", "%", "//"]
    texts += ["".join(pick(pieces) for _ in range(pick(range(1, 9)))) for _ in range(50000)]
    texts += ["http:" + t for t in texts[:20000]] + ["https://json-schema.org/" + t for t in texts[:20000]]
    accepted = [0, 0]
    for text in texts:
        base, relative = _OLD_PLAIN_BASE.fullmatch(text) is not None, _OLD_PLAIN_RELATIVE.fullmatch(text) is not None
        assert (verdict.plain_absolute(text), verdict._plain_relative(text)) == (base, relative), repr(text)
        accepted[0] += base
        accepted[1] += relative
    assert min(accepted) > 1000


def test_multiple_of_is_v6s_rational_quotient():
    """verdict.multiple_of (scaled decimal digits) against big.Rat's answer, the quotient of the
    numbers' decimal texts as fractions, over generated numbers; and a schema number's own text."""
    from fractions import Fraction

    from helm_core.chart.schema_errors import JsonNumber

    def rat(number: float) -> Fraction:
        return Fraction(number) if isinstance(number, int) else Fraction(getattr(number, "literal", repr(number)))

    draw = random.Random(11)
    for _ in range(5000):
        number = draw.choice([draw.randint(-10**6, 10**6) / 10 ** draw.randint(0, 5),
                              draw.random() * 10 ** draw.randint(-10, 25), draw.randint(-10**20, 10**20)])
        step = draw.choice([draw.randint(1, 1000) / 10 ** draw.randint(0, 4), draw.random() * 10 ** draw.randint(-5, 5),
                            draw.randint(1, 100)])
        assert verdict.multiple_of(number, step) is ((rat(number) / rat(step)).denominator == 1), (number, step)
    assert verdict.multiple_of(0.3, 0.1) and verdict.multiple_of(1e20, 0.1) and not verdict.multiple_of(0.35, 0.1)
    assert not verdict.multiple_of(0.1, JsonNumber("0.10000000000000000001"))  # as written, not as a float
    assert not verdict.multiple_of(float("inf"), 0.1)
