"""The fast schema check (metaschema + compiled closures, ``schema._fast``) against jsonschema,
property by property, over every ``values.schema.json`` of the shared charts.

test_verdict.py changes values at random; here the changes are read off the schema itself,
so every property a schema describes is hit where it is strict: each property in turn gets a
value of every type it does not allow, one outside its enum or const, strings one character
past ``maxLength``/short of ``minLength`` or off its pattern, numbers just past its bounds or
off ``multipleOf``, arrays one item too many or too few or with a bad item, objects missing a
required key or with a key ``additionalProperties`` refuses — and the boundary values that
still pass. The generator is deterministic (no randomness: the schema's own order). Every
change is checked on the chart's values cut down to the changed path (a skeleton: cheap), and
a spread of them on the whole values (all of them with HELM_CONTROLLER_SCHEMA_CASES=all). The
keywords the charts do not use get the same treatment on one hand-written schema.

The reference is what production falls back to, on the same schema text:
``schema._compiled`` (jsonschema, the draft the schema declares — Helm's 2020-12 when it
declares none —, Go's regexp, no remote references). The fast check must give the same
verdict whenever it decides; above all it must never say "valid" when jsonschema says not.
"""
from __future__ import annotations

import copy
import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest

from helm_core.chart import loader, schema, verdict
from tests.chartkit import SHARED_CHARTS

#: A sample of each JSON type (a value that type accepts).
SAMPLES: dict[str, list[Any]] = {
    "null": [None], "boolean": [False], "integer": [7], "number": [1.5],
    "string": ["", "x"], "array": [["x"]], "object": [{"k": "v"}],
}
#: Strings that trip patterns: empty, spaces, upper case, punctuation, a trailing newline
#: (Go's ``$`` does not match before it, Python's does), non-ASCII letters and digits.
ODD_STRINGS = ["", " ", "UPPER", "a b", "!@#", "a\n", "é", "\u0661\u0662", "-1", "1.5", "http://x"]
MAX_DEPTH = 24  # $ref chains deeper than this are not followed (recursive schemas)


def _schema_files() -> list[Path]:
    return sorted(SHARED_CHARTS.rglob("values.schema.json")) if SHARED_CHARTS.is_dir() else []


def _charts_with_schemas() -> list[tuple[str, Path, dict[str, Any], dict[str, Any]]]:
    """(name, schema file, schema, the chart's own values) for every chart and subchart."""
    out = []
    for chart_dir in sorted({p.parent for p in SHARED_CHARTS.glob("*/Chart.yaml")}):
        def walk(chart: Any, folder: Path) -> None:
            if chart.schema is not None:
                out.append((chart.name, folder / chart.schema_file, json.loads(json.dumps(chart.schema)),
                            copy.deepcopy(chart.values)))
            for sub in chart.dependencies:
                walk(sub, folder / "charts" / sub.name)

        walk(loader.load(chart_dir), chart_dir)
    return out


def _resolve(root: Any, node: Any) -> Any:
    """``node`` with a local ``$ref`` (a JSON pointer into ``root``) followed, once."""
    ref = node.get("$ref") if isinstance(node, dict) else None
    if not isinstance(ref, str) or not ref.startswith("#"):
        return node
    target = root
    for part in [unquote(p).replace("~1", "/").replace("~0", "~") for p in ref[1:].split("/") if p]:
        if isinstance(target, dict) and part in target:
            target = target[part]
        elif isinstance(target, list) and part.isdigit() and int(part) < len(target):
            target = target[int(part)]
        else:
            return node
    return target


def _branches(root: Any, node: Any, depth: int = 0) -> Iterator[dict[str, Any]]:
    """``node`` and the subschemas that apply to the same instance ($ref, allOf/anyOf/oneOf,
    if/then/else), each a dict."""
    if depth > MAX_DEPTH or not isinstance(node, dict):
        return
    yield node
    target = _resolve(root, node)
    if target is not node:
        yield from _branches(root, target, depth + 1)
    for key in ("allOf", "anyOf", "oneOf"):
        for sub in node.get(key) or []:
            yield from _branches(root, sub, depth + 1)
    for key in ("if", "then", "else", "not"):
        yield from _branches(root, node.get(key), depth + 1)


def _types(node: dict[str, Any]) -> set[str]:
    declared = node.get("type")
    return {declared} if isinstance(declared, str) else set(declared) if isinstance(declared, list) else set()


def _wrong_types(node: dict[str, Any]) -> list[Any]:
    """A value of each JSON type ``node`` does not allow."""
    allowed = _types(node)
    return [sample for kind, samples in SAMPLES.items() if allowed and kind not in allowed
            and not (kind == "integer" and "number" in allowed) for sample in samples]


def _values_for(node: dict[str, Any], current: Any) -> list[Any]:
    """Values for an instance described by ``node`` read off its rules other than ``type``:
    most break one rule, some sit exactly on a bound (and pass)."""
    out: list[Any] = []
    allowed = _types(node)
    if "default" in node:
        out.append(node["default"])
    if isinstance(node.get("enum"), list):
        out += list(node["enum"]) + ["not-in-enum", 12345, None]
    if "const" in node:
        out += [node["const"], "not-the-const", 0]
    if "pattern" in node or "format" in node:
        out += ODD_STRINGS
    for key, delta in (("maxLength", 1), ("minLength", -1)):
        limit = node.get(key)
        if isinstance(limit, int) and limit + delta >= 0:
            out += ["a" * (limit + delta), "é" * limit, "a" * limit]
    for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        bound = node.get(key)
        if isinstance(bound, (int, float)) and not isinstance(bound, bool):
            out += [bound, bound - 1, bound + 1, bound - 0.5, bound + 0.5, float(bound)]
    step = node.get("multipleOf")
    if isinstance(step, (int, float)) and not isinstance(step, bool) and step > 0:
        out += [step, step * 3, step / 2, step * 2.5]
    item_schema = node.get("items") if isinstance(node.get("items"), dict) else {}
    item = (current[0] if isinstance(current, list) and current else
            next(iter(SAMPLES[sorted(_types(item_schema))[0]])) if _types(item_schema) else "x")
    for key, delta in (("maxItems", 1), ("minItems", -1)):
        limit = node.get(key)
        if isinstance(limit, int) and limit + delta >= 0:
            out += [[copy.deepcopy(item) for _ in range(limit + delta)], [copy.deepcopy(item) for _ in range(limit)]]
    if node.get("uniqueItems") is True:
        out += [[copy.deepcopy(item), copy.deepcopy(item)], ["a", "b"]]
    if item_schema:
        out += [[bad] for bad in (_wrong_types(item_schema) + _values_for(item_schema, None))[:8]]
    if isinstance(current, dict) or "object" in allowed or "properties" in node:
        base = current if isinstance(current, dict) else {}
        for name in node.get("required") or []:
            out.append({k: v for k, v in base.items() if k != name})
        if "additionalProperties" in node or "patternProperties" in node or "propertyNames" in node:
            out += [dict(base, **{"zz-extra-key": "x"}), dict(base, **{"UPPER": 1})]
        for key, delta in (("maxProperties", 1), ("minProperties", -1)):
            limit = node.get(key)
            if isinstance(limit, int) and limit + delta >= 0:
                out.append({f"k{i}": "v" for i in range(limit + delta)})
    return out


def _set(values: Any, path: tuple[Any, ...], value: Any) -> Any:
    """A copy of ``values`` with ``value`` at ``path`` (missing maps made on the way), or
    UNREACHABLE when the path goes through something that is not a map or a list. Only the
    maps and lists on the path are copied."""
    if not path:
        return copy.deepcopy(value)
    head, rest = path[0], path[1:]
    if isinstance(values, dict) and isinstance(head, str):
        out: Any = dict(values)
    elif isinstance(values, list) and isinstance(head, int) and head < len(values):
        out = list(values)
    else:
        return UNREACHABLE
    child = _set(out.get(head, {}) if isinstance(out, dict) else out[head], rest, value)
    if child is UNREACHABLE:
        return UNREACHABLE
    out[head] = child
    return out


def _delete(values: Any, path: tuple[Any, ...]) -> Any:
    head, rest = path[0], path[1:]
    if not isinstance(values, dict) or head not in values:
        return UNREACHABLE
    out = dict(values)
    if not rest:
        del out[head]
        return out
    child = _delete(out[head], rest)
    if child is UNREACHABLE:
        return UNREACHABLE
    out[head] = child
    return out


def _at(values: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        if isinstance(values, dict):
            values = values.get(part)
        elif isinstance(values, list) and isinstance(part, int) and part < len(values):
            values = values[part]
        else:
            return None
    return values


#: A change: (what it is, where, the new value — or DELETE, whether it tests a rule other
#: than ``type``: an enum, a bound, a pattern, a required key...).
Change = tuple[str, tuple[Any, ...], Any, bool]
DELETE = object()
UNREACHABLE = object()


def guided_changes(root: dict[str, Any], values: dict[str, Any]) -> list[Change]:
    """The changes the schema suggests, in the schema's order, without repeats."""
    out: list[Change] = []
    seen: set[str] = set()

    def add(path: tuple[Any, ...], value: Any, rule: bool) -> None:
        key = json.dumps([path, "<del>" if value is DELETE else value], sort_keys=True)
        if key not in seen:
            seen.add(key)
            where = ".".join(map(str, path)) or "(root)"
            out.append((f"del {where}" if value is DELETE else f"{where} = {value!r:.60}", path, value, rule))

    def visit(node: Any, path: tuple[Any, ...], depth: int) -> None:
        if depth > MAX_DEPTH:
            return
        current = _at(values, path)
        for branch in _branches(root, node):
            if path:
                for value in _wrong_types(branch):
                    add(path, value, False)
            for value in _values_for(branch, current):
                if path or isinstance(value, dict):
                    add(path, value, True)
            properties = branch.get("properties")
            required = branch.get("required") if isinstance(branch.get("required"), list) else []
            if isinstance(properties, dict):
                for name, sub in properties.items():
                    if isinstance(current, dict) and name in current:
                        add(path + (name,), DELETE, name in required)
                    visit(sub, path + (name,), depth + 1)
            extra = branch.get("additionalProperties")
            if isinstance(extra, dict) and isinstance(current, dict):
                for name in [k for k in current if not isinstance(properties, dict) or k not in properties][:3]:
                    visit(extra, path + (name,), depth + 1)
            items = branch.get("items")
            if isinstance(items, dict) and isinstance(current, list) and current:
                visit(items, path + (0,), depth + 1)
                if len(current) > 1:
                    visit(items, path + (len(current) - 1,), depth + 1)

    visit(root, (), 0)
    return out


def apply(values: dict[str, Any], change: Change) -> Any:
    """``values`` with ``change`` made, or UNREACHABLE (the path crosses a scalar)."""
    _, path, value, _ = change
    if not path and not isinstance(value, dict):
        return UNREACHABLE  # values are always a map
    return _delete(values, path) if value is DELETE else _set(values, path, value)


def skeleton(values: Any, path: tuple[Any, ...]) -> Any:
    """``values`` cut down to what lies on ``path`` and the scalars beside it (where required
    keys usually are): a document jsonschema checks in well under a millisecond."""
    if not path:
        return values
    head, rest = path[0], path[1:]
    if isinstance(values, dict):
        out = {k: v for k, v in values.items() if not isinstance(v, (dict, list))}
        if head in values:
            out[head] = skeleton(values[head], rest)
        return out
    if isinstance(values, list) and isinstance(head, int) and head < len(values):
        return [skeleton(v, rest) if i == head else v for i, v in enumerate(values)]
    return values


#: Changes also checked on the chart's whole values (every change is checked on a skeleton):
#: this many that test a rule and half as many wrong types, spread evenly over the schema's
#: order (jsonschema takes 5-40 ms to check a big chart's whole values).
#: HELM_CONTROLLER_SCHEMA_CASES=all checks every change on the whole values too (~20,000 over
#: the shared charts, ~10 minutes on a quiet machine).
CASES_PER_SCHEMA = os.environ.get("HELM_CONTROLLER_SCHEMA_CASES", "40")


def _spread(items: list[Change], count: int) -> list[Change]:
    return items if len(items) <= count else [items[int(i * len(items) / count)] for i in range(count)]


def selected(changes: list[Change]) -> list[Change]:
    if CASES_PER_SCHEMA == "all":
        return changes
    count = int(CASES_PER_SCHEMA)
    chosen = {id(c) for c in _spread([c for c in changes if c[3]], count)}
    chosen |= {id(c) for c in _spread([c for c in changes if not c[3]], count // 2)}
    return [c for c in changes if id(c) in chosen]


SCHEMAS = _charts_with_schemas() if SHARED_CHARTS.is_dir() else []


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_every_schema_file_of_the_shared_charts_is_covered():
    files = _schema_files()
    if not files:
        pytest.skip(f"{SHARED_CHARTS} not present (set HELM_CONTROLLER_SHARED_CHARTS): no real chart schemas")
    assert sorted(path for _, path, _, _ in SCHEMAS) == files


@pytest.mark.parametrize("index", [pytest.param(i, id=str(path.relative_to(SHARED_CHARTS).parent))
                                   for i, (_, path, _, _) in enumerate(SCHEMAS)] or [
    pytest.param(0, marks=pytest.mark.skip(reason=f"{SHARED_CHARTS} not present (set HELM_CONTROLLER_SHARED_CHARTS)"))])
def test_fast_check_agrees_with_jsonschema_property_by_property(index):
    name, path, tree, own_values = SCHEMAS[index]
    text = json.dumps(tree, sort_keys=True)
    digest = _digest(text)
    fast = schema._fast(digest, text)
    assert fast is not None, f"{path}: the fast check gave up on a shared chart's schema"
    reference = schema._compiled(digest, text)
    verdicts = {True: 0, False: 0}
    undecided = 0
    changes = guided_changes(tree, own_values)
    # Every change on the chart's values cut down to the changed path (cheap), then a
    # selection of them on the chart's whole values (as a user's values file would be).
    cases = [("the chart's own values", own_values)]
    cases += [(f"{label} (on a skeleton)", changed) for label, changed in
              ((c[0], apply(skeleton(own_values, c[1]), c)) for c in changes) if changed is not UNREACHABLE]
    cases += [(label, changed) for label, changed in ((c[0], apply(own_values, c)) for c in selected(changes))
              if changed is not UNREACHABLE]
    for label, values in cases:
        expected = reference.is_valid(values)
        try:
            verdict.plain(values)
            got = fast(values)
        except verdict.Undecided:
            undecided += 1
            continue
        assert got is expected, f"{path}: {label}: fast check says {got}, jsonschema says {expected}"
        verdicts[expected] += 1
        # What production does with it: a pass is final, so it must be jsonschema's pass too.
        assert schema._passes(digest, text, values) is expected, f"{path}: {label}"
    # The generator must really reach the schema: many rejected values, and some accepted
    # ones besides the defaults (bounds, enum members, other allowed types).
    assert len(changes) >= 100, (name, len(changes))
    assert verdicts[False] >= 20, (name, verdicts)
    assert verdicts[True] >= 3, (name, verdicts)
    assert undecided <= len(cases) // 20, (name, undecided, len(cases))


#: Keywords the shared charts' schemas do not use (lengths, bounds, patterns, array sizes,
#: composition...), in one schema with values that pass it, for the same generator: it runs
#: without the shared charts too. Draft 7 and 2020-12 (Helm's default) both.
KITCHEN_SINK: dict[str, Any] = {
    "type": "object",
    "required": ["name", "replicas"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "minLength": 2, "maxLength": 8, "pattern": "^[a-z][a-z0-9-]*$"},
        "replicas": {"type": "integer", "minimum": 1, "maximum": 5},
        "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1, "multipleOf": 0.25},
        "step": {"type": "integer", "multipleOf": 3},
        "mode": {"enum": ["a", "b", 3, None]},
        "kind": {"const": "fixed"},
        "tags": {"type": "array", "minItems": 1, "maxItems": 3, "uniqueItems": True,
                 "items": {"type": "string", "maxLength": 4}},
        "labels": {"type": "object", "maxProperties": 2, "propertyNames": {"pattern": "^[a-z]+$"},
                   "additionalProperties": {"type": "string"}},
        "port": {"anyOf": [{"type": "integer", "minimum": 1, "maximum": 65535},
                           {"type": "string", "pattern": "^[0-9]+$"}]},
        "image": {"oneOf": [{"type": "string"}, {"type": "object", "required": ["repository"],
                                                 "properties": {"repository": {"type": "string"}}}]},
        "limits": {"allOf": [{"$ref": "#/definitions/quantity"}, {"maxLength": 6}]},
        "tls": {"type": "object", "properties": {"enabled": {"type": "boolean"}, "secret": {"type": "string"}},
                "if": {"properties": {"enabled": {"const": True}}}, "then": {"required": ["secret"]}},
        "nothing": {"not": {"type": "null"}},
    },
    "definitions": {"quantity": {"type": "string", "pattern": "^[0-9]+(m|Mi|Gi)?$"}},
}
KITCHEN_VALUES: dict[str, Any] = {
    "name": "web", "replicas": 2, "ratio": 0.5, "step": 6, "mode": "a", "kind": "fixed", "tags": ["x", "y"],
    "labels": {"app": "web"}, "port": 80, "image": {"repository": "nginx"}, "limits": "100Mi",
    "tls": {"enabled": True, "secret": "s"}, "nothing": 0,
}


@pytest.mark.parametrize("dialect", ["http://json-schema.org/draft-07/schema#",
                                     "https://json-schema.org/draft/2020-12/schema"])
def test_fast_check_agrees_with_jsonschema_on_every_keyword(dialect):
    tree = dict(KITCHEN_SINK, **{"$schema": dialect})
    text = json.dumps(tree, sort_keys=True)
    digest = _digest(text)
    fast = schema._fast(digest, text)
    assert fast is not None
    reference = schema._compiled(digest, text)
    verdicts = {True: 0, False: 0}
    changes = guided_changes(tree, KITCHEN_VALUES)
    for change in changes:
        values = apply(KITCHEN_VALUES, change)
        if values is UNREACHABLE:
            continue
        expected = reference.is_valid(values)
        verdict.plain(values)
        assert fast(values) is expected, f"{change[0]}: jsonschema says {expected}"
        assert schema._passes(digest, text, values) is expected, change[0]
        verdicts[expected] += 1
    assert reference.is_valid(KITCHEN_VALUES) and fast(KITCHEN_VALUES)
    assert verdicts[True] >= 20 and verdicts[False] >= 100, verdicts
