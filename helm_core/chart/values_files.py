"""Flux's ``valuesFiles``: a chart whose default values are other values files it carries.

Flux users keep per-environment defaults in the chart (``values-production.yaml``) and name
them in ``spec.chart.spec.valuesFiles``; source-controller then packages the chart with its
values.yaml replaced by those files merged in order, the last one winning. Rules kept here:

- a path is cleaned (``./a.yaml`` is ``a.yaml``); ``values.yaml`` names the chart's own defaults,
  which are otherwise left out;
- maps merge key by key, anything else (lists, null) replaces what came before (helm's
  ``mergeMaps``, which source-controller's ``MergeMaps`` repeats);
- a path the chart does not carry (a subchart's file is not the chart's) is an error unless
  ``ignore_missing``; the messages are source-controller's.
"""
from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence
from typing import Any

from helm_core.chart import model
from helm_core.chart.values import merge_maps  # helm's mergeMaps, the rule source-controller's is too
from helm_core.errors import ValuesError
from helm_core.golib import goyaml
from helm_core.support.records import record, replace

VALUES_FILE = "values.yaml"


@record(frozen=True)
class ValuesFiles:
    """The files to merge, in order, and whether a missing one is skipped."""

    paths: tuple[str, ...] = ()
    ignore_missing: bool = False


def merged_values(chart: model.Chart, wanted: ValuesFiles) -> dict[str, Any]:
    """The merge of ``wanted.paths`` as ``chart`` carries them; raises :class:`ValuesError`."""
    by_name = {f.name: f.data for f in chart.files}
    merged: dict[str, Any] = {}
    for path in wanted.paths:
        name = posixpath.normpath(path)
        if name == VALUES_FILE:
            merged = merge_maps(merged, dict(chart.values))
            continue
        data = by_name.get(name)
        if data is None:
            if wanted.ignore_missing:
                continue
            raise ValuesError(f"failed to merge chart values: no values file found at path '{path}'")
        values = goyaml.load_values(data, context=f"failed to merge chart values: unmarshaling values "
                                                  f"from '{path}' failed")
        merged = merge_maps(merged, values)
    return merged


def with_values_files(chart: model.Chart, wanted: ValuesFiles | None) -> model.Chart:
    """``chart`` with the merge of ``wanted`` as its default values (``chart`` itself when no
    file is named); the chart passed in is not changed."""
    if wanted is None or not wanted.paths:
        return chart
    values = merged_values(chart, wanted)
    return replace(chart, values=values, raw_values=goyaml.dump(values).encode() if values else b"")


def from_spec(chart_spec: Mapping[str, Any] | None) -> ValuesFiles | None:
    """``valuesFiles`` and ``ignoreMissingValuesFiles`` of a request's chart section (None when
    it names no file)."""
    spec = chart_spec or {}
    paths: Sequence[Any] = spec.get("valuesFiles") or ()
    if not paths:
        return None
    if any(not isinstance(p, str) or not p for p in paths):
        raise ValuesError("spec.chart.valuesFiles: every entry must be a non-empty path")
    return ValuesFiles(paths=tuple(paths), ignore_missing=bool(spec.get("ignoreMissingValuesFiles")))
