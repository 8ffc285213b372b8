"""Validating final values against ``values.schema.json`` / ``values.schema.yaml``.

Like Helm's ``ValidateAgainstSchema``: the chart's schema checks the chart's final
values, each enabled subchart's schema checks ``values[<subchart name>]``, and every
violation of every chart is reported at once, each with the path of the value that
failed. Schemas may not fetch anything over the network (``$ref`` to http(s) URLs
is refused): rendering must not depend on a third-party server being up.

With a memo installed (:mod:`helm_core.memo`, the CLI's), a pass — these values meet this
schema — is remembered by a digest of both and of the validating code, so the next process
neither imports jsonschema nor checks the schema against its metaschema again (about 0.3 s
for bitnami's redis). Failures are never remembered: they are computed and reported anew.
"""
from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path
from typing import Any

from helm_core import memo
from helm_core.chart import metaschema, model
from helm_core.errors import SchemaError

HEADER = "values don't meet the specifications of the schema(s) in the following chart(s):"
#: Compiled validators kept per process: checking a schema against its metaschema costs
#: far more than validating values (about 1.5 s for bitnami's redis schema).
VALIDATOR_CACHE_SIZE = 128


def _no_remote(uri: str) -> Any:
    import referencing.exceptions

    raise referencing.exceptions.NoSuchResource(ref=uri)


def _pointer(path: Any) -> str:
    return "/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in path)


def _dotted(path: Any) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(root)"


PASS_MEMO = "schema-pass"
#: Schemas found valid against their metaschema: changed values skip that check.
VALID_SCHEMA_MEMO = "schema-valid"
@functools.cache
def _code_digest() -> str:
    """This module's code, the metaschema check's and the installed jsonschema's validating code."""
    import importlib.util

    spec = importlib.util.find_spec("jsonschema")
    folder = Path(spec.origin).parent if spec and spec.origin else Path(__file__)
    return memo.code_digest(__file__, metaschema.__file__, folder / "validators.py", folder / "_keywords.py")


@functools.lru_cache(maxsize=VALIDATOR_CACHE_SIZE)
def _compiled(digest: str, text: str) -> Any:
    # Imported here: most charts have no schema, and jsonschema costs ~0.1 s to import.
    import jsonschema
    import referencing

    schema = json.loads(text)
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    disk = memo.active()
    key = hashlib.sha256(f"{_code_digest()}\0{digest}".encode()).hexdigest()
    if disk is None or disk.get(VALID_SCHEMA_MEMO, key) is None:
        metaschema.check_schema(cls, schema)
        if disk is not None:
            disk.put(VALID_SCHEMA_MEMO, key, b"")
    return cls(schema, registry=referencing.Registry(retrieve=_no_remote))


def _validator(schema: dict[str, Any]) -> Any:
    text = json.dumps(schema, sort_keys=True)
    return _compiled(hashlib.sha256(text.encode()).hexdigest(), text)


def _pass_key(schema: dict[str, Any], values: dict[str, Any]) -> str:
    # repr for what JSON cannot hold, typed so no two different values share a text.
    text = json.dumps([schema, values], sort_keys=True, default=lambda v: f"{type(v).__qualname__}:{v!r}")
    return hashlib.sha256(f"{_code_digest()}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()


def violations(schema: dict[str, Any], values: dict[str, Any], *, source: str) -> list[str]:
    """Every violation of one schema, as ``- at '/a/b' (a.b): message`` lines, sorted by path."""
    disk = memo.active()
    key = _pass_key(schema, values) if disk is not None else ""
    if disk is not None and disk.get(PASS_MEMO, key) is not None:
        return []
    found = _violations(schema, values, source=source)
    if disk is not None and not found:
        disk.put(PASS_MEMO, key, b"")
    return found


def _violations(schema: dict[str, Any], values: dict[str, Any], *, source: str) -> list[str]:
    import jsonschema
    import referencing.exceptions

    try:
        validator = _validator(schema)
        errors = sorted(validator.iter_errors(values), key=lambda e: (list(map(str, e.absolute_path)), e.message))
        return [f"- at '{_pointer(e.absolute_path)}' ({_dotted(e.absolute_path)}): {e.message}" for e in errors]
    except jsonschema.SchemaError as exc:
        raise SchemaError(f"{source}: invalid schema: {exc.message}") from None
    except (referencing.exceptions.Unresolvable, referencing.exceptions.NoSuchResource) as exc:
        raise SchemaError(f"{source}: cannot resolve schema reference: {exc}") from None


def validate(chart: model.Chart, values: dict[str, Any]) -> None:
    """Validate ``values`` (final, coalesced) against the chart's and enabled subcharts' schemas."""
    report: list[str] = []
    _collect(chart, values, report)
    if report:
        raise SchemaError(HEADER + "\n" + "\n".join(report), violations=[l for l in report if l.startswith("- ")])


def _collect(chart: model.Chart, values: dict[str, Any], report: list[str]) -> None:
    if chart.schema is not None:
        found = violations(chart.schema, values, source=f"{chart.chart_path()}/{chart.schema_file}")
        if found:
            report.append(f"{chart.name}:")
            report.extend(found)
    for sub in chart.dependencies:
        raw = values.get(sub.name)
        if raw is None:
            continue
        if not isinstance(raw, dict):
            report.append(f"{sub.name}:")
            report.append(f"- invalid type for values: expected object (map), got {type(raw).__name__}")
            continue
        _collect(sub, raw, report)
