"""The compiled metaschema check gives ``cls.check_schema``'s verdicts and error messages.

Every case is decided twice in the same process — by jsonschema's own ``cls.check_schema``
(the reference) and by :mod:`helm_core.chart.metaschema` — and both the verdict of the
compiled closures alone (when they decide) and what ``metaschema.check_schema`` raises must
agree with it. The tests also count how many cases the closures decide: a fast path that
always said "undecided" would agree trivially.
"""
from __future__ import annotations

import copy
import json
import random
from typing import Any

import jsonschema
import pytest

from helm_core.chart import loader, metaschema, verdict
from tests.chartkit import SHARED_CHARTS, shared_chart_names

DRAFTS = {
    "2020-12": "https://json-schema.org/draft/2020-12/schema",
    "2019-09": "https://json-schema.org/draft/2019-09/schema",
    "7": "http://json-schema.org/draft-07/schema#",
    "6": "http://json-schema.org/draft-06/schema#",
    "4": "http://json-schema.org/draft-04/schema#",
    "3": "http://json-schema.org/draft-03/schema#",
    # What bitnami charts declare: not a known dialect, so Helm's default (2020-12) applies.
    "unknown": "http://json-schema.org/schema#",
}

#: Schemas written to break one metaschema rule each (plus a few valid ones), checked under
#: every draft: what is wrong in one draft may be fine in another, and that must agree too.
CASES: list[Any] = [
    {}, True, False,
    {"type": "nonsense"}, {"type": 5}, {"type": []}, {"type": ["string", "string"]}, {"type": ["string", 1]},
    {"type": ["string", "null"]}, {"type": "integer", "minimum": 1, "maximum": "10"},
    {"properties": []}, {"properties": {"a": 5}}, {"properties": {"a": {"type": "bogus"}}},
    {"properties": {"a": {"items": {"properties": {"b": {"minimum": "x"}}}}}},
    {"required": "a"}, {"required": [1]}, {"required": ["a", "a"]}, {"required": []},
    {"minLength": -1}, {"minLength": 1.5}, {"minLength": 2.0}, {"maxItems": "3"}, {"minProperties": True},
    {"enum": "x"}, {"enum": []}, {"enum": [1, 1]}, {"const": {"any": ["thing"]}},
    {"pattern": "["}, {"pattern": 5}, {"pattern": "^[a-z]+$"},
    {"patternProperties": {"[": {}}}, {"patternProperties": {"^x-": {"type": 1}}},
    {"$ref": 5}, {"$ref": "#/$defs/a", "$defs": {"a": 5}}, {"$defs": {"a": {"type": "string"}}},
    {"definitions": {"x": "str"}}, {"definitions": {"x": {"$ref": "#"}}},
    {"items": 5}, {"items": [5]}, {"items": [{}]}, {"items": {"type": "wrong"}}, {"items": True},
    {"additionalItems": 5}, {"prefixItems": []}, {"prefixItems": [{"type": 3}]},
    {"additionalProperties": "no"}, {"additionalProperties": {"type": "x"}}, {"additionalProperties": False},
    {"allOf": []}, {"allOf": {}}, {"anyOf": [5]}, {"oneOf": [{}, {"type": "x"}]}, {"not": 5}, {"not": {"type": "x"}},
    {"if": 5}, {"if": {}, "then": {"type": "x"}}, {"else": []},
    {"uniqueItems": "yes"}, {"multipleOf": 0}, {"multipleOf": -1}, {"multipleOf": 0.5},
    {"exclusiveMinimum": True, "minimum": 1}, {"exclusiveMaximum": 5}, {"exclusiveMinimum": "1"},
    {"$id": 5}, {"$id": "http://example.com/root.json"}, {"id": 5}, {"$anchor": "1bad"}, {"$anchor": "good"},
    {"$dynamicAnchor": 5}, {"$dynamicRef": 5}, {"$schema": 5}, {"$comment": 5}, {"$vocabulary": {"x": 5}},
    {"$recursiveRef": 5}, {"$recursiveAnchor": "yes"},
    {"dependencies": {"a": 5}}, {"dependencies": {"a": ["b", "b"]}}, {"dependencies": {"a": {"type": "x"}}},
    {"dependentRequired": {"a": [1]}}, {"dependentSchemas": {"a": 5}},
    {"contains": 5}, {"minContains": -1}, {"maxContains": "2"}, {"propertyNames": {"pattern": "("}},
    {"unevaluatedProperties": 5}, {"unevaluatedItems": {"type": "x"}}, {"contentSchema": 5},
    {"contentMediaType": 5}, {"format": 5}, {"format": "no-such-format"},
    {"examples": "notarray"}, {"deprecated": "x"}, {"readOnly": 1}, {"writeOnly": True}, {"default": None},
    {"title": 5}, {"description": ["x"]}, {"extends": 5}, {"disallow": 5}, {"divisibleBy": 0},
    {"type": "object", "properties": {"image": {"type": "object", "properties": {"tag": {"type": ["string", "number"]}},
                                                 "required": ["tag"], "additionalProperties": False}}},
]


def _reference(cls: Any, schema: Any) -> str | None:
    """jsonschema's own answer, with helm's validator's formats: None when valid, else the full
    text of its SchemaError."""
    from helm_core.chart import jsonschema_go

    try:
        cls.check_schema(schema, format_checker=jsonschema_go.v6_format_checker())
    except jsonschema.SchemaError as exc:
        return f"{exc.message}\n{exc}"
    return None


def _ours(cls: Any, schema: Any) -> str | None:
    try:
        metaschema.check_schema(cls, schema)
    except jsonschema.SchemaError as exc:
        return f"{exc.message}\n{exc}"
    return None


#: Drafts whose metaschema is compiled; the others always take jsonschema's path.
FAST = {"2020-12", "7", "unknown"}


def _assert_same(schema: Any, label: str, decided: list[bool] | None = None) -> bool:
    """Both paths agree on ``schema``; returns jsonschema's verdict (True: valid)."""
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    expected = _reference(cls, schema)
    try:
        fast = metaschema.valid(schema)
    except verdict.Undecided:
        fast = None
    if fast is not None:
        assert fast is (expected is None), f"{label}: compiled verdict differs from check_schema"
    if decided is not None:
        decided.append(fast is not None)
    assert _ours(cls, schema) == expected, f"{label}: error differs"
    return expected is None


def _with_draft(case: Any, draft: str) -> Any:
    return {**case, "$schema": DRAFTS[draft]} if isinstance(case, dict) else case


def test_the_drafts_helm_charts_use_are_compiled():
    # Only these go fast; the others are left to jsonschema.
    for draft in ("2020-12", "7"):
        check, why = metaschema.compiled(draft)
        assert check is not None, why
    for draft in ("2019-09", "6", "4", "3"):
        assert metaschema.compiled(draft)[0] is None


def test_dialects_are_jsonschemas():
    import jsonschema.validators as validators
    from urllib.parse import urlsplit

    known = {urlsplit(uri).geturl() for uri in validators._META_SCHEMAS}  # what validator_for looks up
    assert set(metaschema.DIALECTS) == known
    names = {jsonschema.Draft202012Validator: "2020-12", jsonschema.Draft201909Validator: "2019-09",
             jsonschema.Draft7Validator: "7", jsonschema.Draft6Validator: "6",
             jsonschema.Draft4Validator: "4", jsonschema.Draft3Validator: "3"}
    variants = [uri + tail for uri in DRAFTS.values() for tail in ("", "#")] + [
        "https://json-schema.org/draft-07/schema#", "urn:x", "", "HTTP://json-schema.org/draft-07/schema#"]
    for schema in [{}, True, {"type": "string"}] + [{"$schema": v} for v in variants]:
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        assert metaschema.dialect(schema) == names[cls], schema


def test_keywords_are_jsonschemas():
    assert verdict.KEYWORDS["2020-12"] == set(jsonschema.Draft202012Validator.VALIDATORS)
    assert verdict.KEYWORDS["7"] == set(jsonschema.Draft7Validator.VALIDATORS)


@pytest.mark.parametrize("draft", sorted(DRAFTS))
def test_written_cases_get_the_same_verdict_and_message(draft):
    decided: list[bool] = []
    verdicts = [_assert_same(_with_draft(case, draft), f"{draft} {json.dumps(case)}", decided) for case in CASES]
    # The cases do what they are for: most are invalid, some valid, in every draft.
    assert verdicts.count(False) >= 20 and verdicts.count(True) >= 5
    if draft in FAST:
        assert decided.count(True) >= len(CASES) - 5, "the compiled check decides nearly every case"


def _shared_schemas() -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = []

    def walk(chart: Any) -> None:
        if chart.schema is not None:
            found.append((f"{chart.chart_path()}/{chart.schema_file}", chart.schema))
        for sub in chart.dependencies:
            walk(sub)

    for name in shared_chart_names():
        walk(loader.load(SHARED_CHARTS / name))
    return found


SHARED = _shared_schemas()


def test_shared_chart_schemas_get_the_same_verdict():
    if not SHARED:
        pytest.skip(f"{SHARED_CHARTS} not present: no real chart schemas to compare")
    assert len(SHARED) >= 7  # prometheus, alertmanager, redis, cert-manager, nginx, external-secrets, postgresql
    decided: list[bool] = []
    for label, schema in SHARED:
        assert _assert_same(schema, label, decided), f"{label} is a valid schema today"
    assert all(decided), "every shared chart schema is decided by the compiled check"


#: What a mutation may put in place of a keyword's value: right and wrong types, bad patterns.
MUTANTS: dict[str, list[Any]] = {
    "type": ["string", "strin", ["object", "null"], [], 3, ["array", "array"]],
    "properties": [{}, [], {"x": 1}, {"x": {"type": "no"}}],
    "required": [["a"], "a", [1], ["a", "a"]],
    "pattern": ["^a", "(", 1],
    "patternProperties": [{"^a": {}}, {"(": {}}],
    "minimum": [0, "0", None],
    "minLength": [0, -1, 1.5],
    "enum": [["a"], [], "a", [1, 1]],
    "items": [{}, [], 5, {"type": 5}],
    "additionalProperties": [True, False, "no", {"type": "nope"}],
    "anyOf": [[{}], [], [1]],
    "$ref": ["#", 7],
    "default": [None, {"a": 1}],
    "description": ["text", 5],
    "uniqueItems": [True, 1],
    "format": ["uri", 5],
    "$defs": [{}, {"a": 1}],
    "$schema": ["http://json-schema.org/draft-07/schema#", "urn:not-a-dialect"],
}


def _dict_nodes(node: Any, out: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if isinstance(node, dict):
        out.append(node)
        for value in node.values():
            _dict_nodes(value, out)
    elif isinstance(node, list):
        for value in node:
            _dict_nodes(value, out)
    return out


BASES: list[Any] = [CASES[-1], {"$schema": DRAFTS["7"], **CASES[-1]}, {"$schema": DRAFTS["4"], **CASES[-1]}]


def _mutate(rng: random.Random, base: Any) -> tuple[Any, list[Any]]:
    """``base`` with one to three random keyword changes anywhere in it."""
    schema = copy.deepcopy(base)
    changes = []
    for _ in range(rng.randint(1, 3)):
        node = rng.choice(_dict_nodes(schema, []))
        keyword = rng.choice(sorted(MUTANTS))
        node[keyword] = copy.deepcopy(rng.choice(MUTANTS[keyword]))
        changes.append((keyword, node[keyword]))
    return schema, changes


def test_mutated_schemas_get_the_same_verdict_and_message():
    # Property-style, with a fixed seed: many mutations of our bases and the small real
    # schemas, a few of each large one (jsonschema's own check costs ~0.1-0.3 s on those).
    small = BASES + [schema for _, schema in SHARED if len(json.dumps(schema)) < 6_000]
    large = [schema for _, schema in SHARED if len(json.dumps(schema)) >= 6_000]
    rng = random.Random(3)
    verdicts, decided = [], []
    for n, base in enumerate([rng.choice(small) for _ in range(300)] + large * 3):
        schema, changes = _mutate(rng, base)
        fast = metaschema.dialect(schema) in ("2020-12", "7")
        verdicts.append(_assert_same(schema, f"mutation {n}: {changes}", decided if fast else None))
    assert verdicts.count(True) >= 40 and verdicts.count(False) >= 40
    assert decided.count(True) >= 0.95 * len(decided) and len(decided) >= 200


def test_uri_formats_answer_as_v6s_checkers():
    # Plain URIs ("http://json-schema.org/schema#") and fragment references ("#/$defs/a") are
    # answered with string methods: as v6's checkers (Go's url.Parse) answer.
    from helm_core.chart import schema_formats

    rng = random.Random(5)
    alphabet = "ab:/#?.%2F-_~$@ A!é[]\\"
    samples = ["http://json-schema.org/schema#", "http://json-schema.org/draft-07/schema#", "#/$defs/a.b-c", "#",
               "", "#a#b", "urn:x", "HTTP://X/", "http://x/a/../b#f?x", "http://x:80/", "http:/x", "http://x/a b",
               "#/definitions/x%20y", "#é", "https://a/b/#/x?y", "http://x:y/", "a\\b", "#%zz", "http://[::1"]
    for _ in range(3000):
        samples.append("".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))))
        samples.append(rng.choice(["http://", "https://a.b/", "#", "#/", "urn:"])
                       + "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8))))
    for text in samples:
        for name in ("uri", "uri-reference"):
            assert metaschema._FORMATS[name](text) is (schema_formats.reason(name, text) is None), (name, text)


def test_mutated_parts_of_shared_schemas_get_the_same_verdict_and_message():
    # Real schemas' own shapes, small enough for jsonschema's check to stay cheap: subtrees of
    # every shared chart schema, under the draft their chart declares, mutated or not. The
    # 2020-12 metaschema is checked through its inlined vocabularies: every node once.
    if not SHARED:
        pytest.skip(f"{SHARED_CHARTS} not present: no real chart schemas to compare")
    rng = random.Random(7)
    verdicts, decided = [], []
    for label, whole in SHARED:
        nodes = [node for node in _dict_nodes(whole, []) if node is not whole]
        for n in range(30):
            part = copy.deepcopy(rng.choice(nodes))
            if "$schema" in whole:
                part["$schema"] = whole["$schema"]
            if n % 3:
                part, _ = _mutate(rng, part)
            verdicts.append(_assert_same(part, f"{label} part {n}: {json.dumps(part)[:300]}", decided))
    assert verdicts.count(True) >= 40 and verdicts.count(False) >= 40
    assert decided.count(True) >= 0.95 * len(decided)


def test_dialect_uris_are_normalized_as_urllib_normalizes_them():
    # Known dialects and what charts declare skip urllib's import: with urllib's answer.
    from urllib.parse import urlsplit

    uris = [*metaschema.DIALECTS, "http://json-schema.org/schema", "https://json-schema.org/schema",
            "http://json-schema.org/draft-07/schema#x", "HTTP://json-schema.org/draft-07/schema", "urn:x", "", "a#b"]
    for uri in (u + tail for u in uris for tail in ("", "#", "##")):
        assert metaschema._normalized(uri) == urlsplit(uri).geturl(), uri
