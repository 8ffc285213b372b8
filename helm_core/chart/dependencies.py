"""Which subcharts take part in a render, and what they import (Helm's ``ProcessDependencies``).

Rules, in Helm's order:

1. Each declared dependency is matched to a chart in ``charts/`` by name and version
   range; an ``alias`` makes a copy of that chart under the alias name (so one chart
   can be used twice). Charts in ``charts/`` that no declaration matches stay enabled.
2. ``tags``: a dependency is disabled when at least one of its tags is false and none
   is true in the values' ``tags`` table.
3. ``condition``: a comma-separated list of value paths; the first path that resolves
   to a boolean decides (conditions win over tags).
4. Disabled dependencies are removed, then the rules apply again inside each
   remaining subchart (with paths prefixed by the subchart's name).
5. ``import-values`` are applied bottom-up (see :func:`values.import_values`).

A declared dependency with no matching chart in ``charts/`` is an error naming it.
Everything works on a copy: the loaded chart is never changed, so it can be cached.
"""
from __future__ import annotations

from helm_core.chart import model
from helm_core.chart import values as chart_values
from helm_core.errors import DependencyError, ValuesError
from helm_core.support import helmlog, pickling
from helm_core.support.records import shallow_copy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def copy_chart(chart: model.Chart) -> model.Chart:
    """A copy whose metadata and dependency lists may be changed freely (files shared).

    Its ``values`` are the chart's own, shared, not copied: nothing changes a chart's values
    in place (coalescing only reads them and copies what it takes; import-values give a chart
    a new map), so a copy here would be one more copy of every default per prepare.
    """
    dup = shallow_copy(chart)
    dup.metadata = _copy_metadata(chart.metadata)
    dup.dependencies = []
    for sub in chart.dependencies:
        dup.add_dependency(copy_chart(sub))
    return dup


def _copy_metadata(metadata: model.Metadata) -> model.Metadata:
    """A deep copy. Pickle's round trip gives the same records as ``copy.deepcopy`` (both go
    through ``__reduce_ex__``) at about half the cost, run once per chart per prepare; what a
    caller put there that pickle refuses is deep-copied."""
    try:
        copied: model.Metadata = pickling.loads(pickling.dumps(metadata, protocol=pickling.HIGHEST_PROTOCOL))
    except Exception:  # noqa: BLE001 - anything pickle refuses
        import copy  # only here: copy (with weakref) is start-up time a usual run does without

        return copy.deepcopy(metadata)
    return copied


#: Helm's wrapping of a missing dependency, naming the command that fetches it.
MISSING_DEPENDENCIES_HINT = ("An error occurred while checking for chart dependencies. You may need to run "
                             "`helm dependency build` to fetch missing dependencies")


def check_present(chart: model.Chart) -> None:
    """Every dependency the chart declares has a chart in ``charts/`` (Helm's ``CheckDependencies``,
    which helm runs on the chart it installs; a subchart's own missing ones are left out)."""
    missing = []
    for dep in chart.metadata.dependencies:
        if not any(sub.name == dep.name for sub in chart.dependencies):
            missing.append(dep.name)
    if missing:
        raise DependencyError(f"{MISSING_DEPENDENCIES_HINT}: found in Chart.yaml, but missing in charts/ "
                              f"directory: {', '.join(missing)}")


def _alias_copy(charts: list[model.Chart], dep: model.Dependency) -> model.Chart | None:
    for sub in charts:
        if sub.name != dep.name:
            continue
        if not _compatible(dep.version, sub.metadata.version):
            continue
        dup = shallow_copy(sub)
        dup.metadata = shallow_copy(sub.metadata)
        if dep.alias:
            dup.metadata.name = dep.alias
        return dup
    return None


def _apply_tags(deps: list[model.Dependency], cvals: dict[str, Any]) -> None:
    tags = cvals.get("tags")
    if not isinstance(tags, dict):
        return
    for dep in deps:
        has_true = has_false = False
        for tag in dep.tags:
            if tag not in tags:
                continue
            value = tags[tag]
            if value is True:
                has_true = True
            elif value is False:
                has_false = True
            else:
                helmlog.warn(__name__, "dependencies.go:95",
                             f"Warning: Tag '{tag}' for chart {dep.name} returned non-bool value")
        dep.enabled = not (has_false and not has_true)


def _apply_conditions(deps: list[model.Dependency], cvals: dict[str, Any], prefix: str) -> None:
    for dep in deps:
        # Helm trims the whole list, not each path: "a, b" looks up " b" (and misses).
        for cond in dep.condition.strip().split(","):
            if not cond:
                continue
            try:
                value = chart_values.path_get(cvals, prefix + cond)
            except ValuesError:
                continue
            if isinstance(value, bool):
                dep.enabled = value
                break
            helmlog.warn(__name__, "dependencies.go:64",
                         f"Warning: Condition path '{cond}' for chart {dep.name} returned non-bool value")


def _compatible(constraint: str, version: str) -> bool:
    """``versions.is_compatible_range``, imported by charts with dependencies only."""
    from helm_core.golib import versions

    return versions.is_compatible_range(constraint, version)


def process_enabled(chart: model.Chart, user_values: dict[str, Any], prefix: str = "") -> None:
    """Resolve aliases and remove disabled subcharts, recursively (changes ``chart``)."""
    if not chart.metadata.dependencies:
        return
    declared = chart.metadata.dependencies
    kept = [
        sub for sub in chart.dependencies
        if not any(sub.name == d.name and _compatible(d.version, sub.metadata.version)
                   for d in declared)
    ]
    originals = list(chart.dependencies)
    for dep in declared:
        found = _alias_copy(originals, dep)
        if found is not None:
            kept.append(found)
        if dep.alias:
            dep.name = dep.alias
    chart.dependencies = []
    for sub in kept:
        chart.add_dependency(sub)
    for dep in declared:
        dep.enabled = True

    cvals = chart_values.coalesce_values(chart, user_values)
    _apply_tags(declared, cvals)
    _apply_conditions(declared, cvals, prefix)

    disabled = {d.name for d in declared if not d.enabled}
    enabled_subs = [s for s in chart.dependencies if s.name not in disabled]
    for sub in enabled_subs:
        process_enabled(sub, cvals, f"{prefix}{sub.name}.")
    chart.metadata.dependencies = [d for d in declared if d.name not in disabled]
    chart.dependencies = []
    for sub in enabled_subs:
        chart.add_dependency(sub)


def process(chart: model.Chart, user_values: dict[str, Any]) -> model.Chart:
    """A copy of ``chart`` with only enabled subcharts and import-values applied."""
    check_present(chart)
    prepared = copy_chart(chart)
    process_enabled(prepared, user_values)
    _import_bottom_up(prepared)
    return prepared


def _import_bottom_up(chart: model.Chart) -> None:
    for sub in chart.dependencies:
        _import_bottom_up(sub)
    if chart.metadata.dependencies:
        chart.values = chart_values.import_values(chart)
