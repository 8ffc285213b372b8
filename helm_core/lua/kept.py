"""A chart's Lua kept with each release version, for the events of actions that never load the chart.

``rollback``, ``uninstall`` and ``test`` work from what a stored version holds (manifest, hooks,
values), as Helm's do; the chart they came from may be gone by then. So that the chart's
``pre-rollback``, ``pre-delete``, ``pre-test``... handlers can still answer, install and upgrade
keep the part of the chart tree its Lua needs with the version (``ReleaseVersion.extensions``):

- every chart of the tree (as rendered: disabled subcharts are not in it), by its Chart.yaml,
  rebuilt from the loaded metadata (aliases applied) so that chart paths, value scopes,
  ``_.chart`` and ``_.dependencies`` come back as they were;
- the files outside ``templates/`` of each chart that has an ``ext/`` folder (its Lua, its
  permissions, and what ``_.files`` and ``io`` show it), none of the others.

A chart tree without ``ext/`` keeps nothing (an empty text). The text is a JSON object
``{path: base64 bytes}`` of an archive's layout, read back with the chart loader.
"""
from __future__ import annotations

import base64
import json
from typing import Any

from helm_core.chart import loader, model
from helm_core.lua import context, layout

#: Values and templates come from the version itself, never from the kept files.
_LEFT_OUT = ("values.yaml", "values.schema.json", "values.schema.yaml")


def pack(chart: model.Chart) -> str:
    """The text kept with a version of ``chart`` ("" when its tree has no extensions)."""
    if not layout.has_extensions(chart):
        return ""
    files: dict[str, bytes] = {}
    _add(chart, "", files)
    return json.dumps({path: base64.b64encode(data).decode("ascii") for path, data in files.items()},
                      sort_keys=True, separators=(",", ":"))


def unpack(text: str, *, source: str) -> model.Chart | None:
    """The chart tree :func:`pack` kept (None for ""); ``source`` names the version in errors."""
    if not text:
        return None
    try:
        kept = json.loads(text)
        files = [(str(path), base64.b64decode(data, validate=True)) for path, data in kept.items()]
    except (ValueError, AttributeError) as exc:
        raise ValueError(f"{source}: the chart's kept Lua is not readable: {exc}") from None
    return loader.load_files(files, source=source)


def _add(chart: model.Chart, prefix: str, files: dict[str, bytes]) -> None:
    files[prefix + "Chart.yaml"] = json.dumps(_chart_yaml(chart)).encode()
    if any(f.name.startswith(layout.EXT_DIR) for f in chart.files):
        for f in chart.files:
            if f.name not in _LEFT_OUT:
                files[prefix + f.name] = f.data
    for sub in chart.dependencies:
        _add(sub, f"{prefix}charts/{sub.name}/", files)


def _chart_yaml(chart: model.Chart) -> dict[str, Any]:
    """Chart.yaml as JSON (YAML's subset) from the loaded metadata: what ``_.chart`` and
    ``_.dependencies`` show, under Chart.yaml's own keys."""
    static = context.static_parts(chart)
    doc: dict[str, Any] = {key: value for key, value in static["chart"].items()
                           if key != "path" and value not in ("", [], {}, False)}
    deps = [{key: value for key, value in dep.items() if value not in ("", [], None)}
            for dep in static["dependencies"]]
    if deps:
        doc["dependencies"] = deps
    return doc
