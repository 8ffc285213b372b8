"""From "a chart and some user values" to "the charts and final values to render".

This is the part of Helm's install/template path before the engine runs:
dependencies are resolved (conditions, tags, aliases, import-values), values are
coalesced (chart defaults under user values, subchart scoping, globals) and the
result is validated against every enabled chart's schema.
"""
from __future__ import annotations

from helm_core.chart import model
from helm_core.errors import ChartError
from helm_core.support.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@record(frozen=True)
class Prepared:
    """A chart copy with only its enabled subcharts, and the values to render it with.

    ``values`` are the caller's own (nothing else holds a part of them); the charts' values in
    ``chart`` may be the loaded chart's own maps, to be read only.
    """

    chart: model.Chart
    values: dict[str, Any]


def prepare_chart(chart: model.Chart, user_values: dict[str, Any], *,
                  allow_library: bool = False, validate_schema: bool = True) -> Prepared:
    """Resolve dependencies, coalesce and validate values. ``chart`` is not modified.

    Library charts cannot be rendered on their own (Helm: "library charts are not
    installable") unless ``allow_library`` (lint checks them).
    """
    # Imported here: a render from the CLI's memo unpickles a Prepared without preparing.
    from helm_core.chart import dependencies, schema
    from helm_core.chart import values as chart_values

    if chart.metadata.is_library and not allow_library:
        raise ChartError(f"{chart.metadata.type} charts are not installable")  # helm's checkIfInstallable
    prepared = dependencies.process(chart, user_values)
    final = chart_values.coalesce_values(prepared, user_values)
    if validate_schema:
        schema.validate(prepared, final)
    return Prepared(chart=prepared, values=final)
