"""Validating final values against ``values.schema.json`` / ``values.schema.yaml``.

Like Helm's ``ValidateAgainstSchema``: the chart's schema checks the chart's final
values, each enabled subchart's schema checks ``values[<subchart name>]``, and every
violation of every chart is reported at once, each with the path of the value that
failed. Schemas may not fetch anything over the network (``$ref`` to http(s) URLs
is refused): rendering must not depend on a third-party server being up.
"""
from __future__ import annotations

import functools
import hashlib
import json
from typing import Any

from helm_core.chart import model
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


@functools.lru_cache(maxsize=VALIDATOR_CACHE_SIZE)
def _compiled(digest: str, text: str) -> Any:
    # Imported here: most charts have no schema, and jsonschema costs ~0.1 s to import.
    import jsonschema
    import referencing

    schema = json.loads(text)
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    cls.check_schema(schema)
    return cls(schema, registry=referencing.Registry(retrieve=_no_remote))


def _validator(schema: dict[str, Any]) -> Any:
    text = json.dumps(schema, sort_keys=True)
    return _compiled(hashlib.sha256(text.encode()).hexdigest(), text)


def violations(schema: dict[str, Any], values: dict[str, Any], *, source: str) -> list[str]:
    """Every violation of one schema, as ``- at '/a/b' (a.b): message`` lines, sorted by path."""
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
