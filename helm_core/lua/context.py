"""What goes into a lifecycle event and what comes back: the Python side of ``_``.

An :class:`EventContext` describes the whole chart tree; each chart's handlers see a
scoped view of it (rules below), and their changes are merged back into a new
context (inputs are never mutated).

Scoping rules for the chart at ``parent/charts/sub``:

- ``_.values`` is ``values["sub"]`` (the subchart's coalesced values, with its copy of
  ``global``); changes replace that subtree of the parent's values (``global`` of the
  parent is never touched: it flows down, never up). Subcharts are addressed by name,
  which after Helm's alias processing is the alias.
- ``_.templates`` are the chart's own templates (``templates/x.yaml``).
- ``_.objects`` are the rendered objects whose source lies in the chart's directory
  (``parent/charts/sub/...``), its subcharts' included; the top chart sees all. The
  handler's list replaces them, at the position of the first one. A new object gets
  the source ``<chart path>/ext/lua/chart.lua``.
- ``_.chart``, ``_.release``, ``_.capabilities``, ``_.files`` (the chart's files outside
  ``templates/`` and ``ext/``) and ``_.dependencies`` are read-only.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from helm_core.chart import model
from helm_core.lua.layout import EXT_DIR
from helm_core.support.records import field, record, replace

TEMPLATES_DIR = "templates/"
#: Source given to objects a chart's Lua adds, under the chart's path.
NEW_OBJECT_SOURCE = "ext/lua/chart.lua"


@record(frozen=True)
class ReleaseInfo:
    """``_.release`` (and Helm's ``.Release``)."""

    name: str
    namespace: str = "default"
    revision: int = 1
    is_install: bool = True
    is_upgrade: bool = False
    service: str = "Helm"

    def to_lua(self) -> dict[str, Any]:
        return {"name": self.name, "namespace": self.namespace, "revision": self.revision,
                "isInstall": self.is_install, "isUpgrade": self.is_upgrade, "service": self.service}


@record(frozen=True)
class CapabilitiesInfo:
    """``_.capabilities``: ``kubeVersion.{version,major,minor}``, ``apiVersions``, ``helmVersion.version``."""

    kube_version: str = "v1.37.0"
    api_versions: tuple[str, ...] = ()
    helm_version: str = "v3.22.0"

    def to_lua(self) -> dict[str, Any]:
        parts = self.kube_version.lstrip("v").split(".")
        return {
            "kubeVersion": {"version": self.kube_version,
                            "major": parts[0] if parts else "", "minor": parts[1] if len(parts) > 1 else ""},
            "apiVersions": list(self.api_versions),
            "helmVersion": {"version": self.helm_version},
        }


@record(frozen=True)
class TemplateSource:
    """A template before rendering; ``engine`` is empty (Go templates) unless a
    pre-render handler chose another one (e.g. ``"jinja2"``)."""

    name: str
    data: bytes
    engine: str = ""


@record(frozen=True)
class RenderedObject:
    """One parsed object of the rendered manifest and the template it came from
    (``chart/templates/x.yaml``, as in Helm's ``# Source:`` lines)."""

    source: str
    object: Mapping[str, Any]


@record(frozen=True)
class EventContext:
    """The whole tree's context; ``templates`` are keyed by chart path."""

    release: ReleaseInfo
    capabilities: CapabilitiesInfo = field(default_factory=CapabilitiesInfo)
    values: Mapping[str, Any] = field(default_factory=dict)
    templates: Mapping[str, tuple[TemplateSource, ...]] = field(default_factory=dict)
    objects: tuple[RenderedObject, ...] = ()


def new_context(chart: model.Chart, *, release: ReleaseInfo, values: Mapping[str, Any],
                capabilities: CapabilitiesInfo | None = None,
                objects: tuple[RenderedObject, ...] = ()) -> EventContext:
    """A context holding every chart's own templates from the model."""
    return EventContext(release=release, capabilities=capabilities or CapabilitiesInfo(),
                        values=values, templates=templates_of(chart), objects=objects)


def templates_of(chart: model.Chart) -> dict[str, tuple[TemplateSource, ...]]:
    found = {chart.chart_path(): tuple(TemplateSource(f.name, f.data) for f in chart.templates)}
    for sub in chart.dependencies:
        found.update(templates_of(sub))
    return found


# -- static parts (read-only, built once per chart) ------------------------------------
def static_parts(chart: model.Chart) -> dict[str, Any]:
    """``_.chart``, ``_.dependencies`` and ``_.files`` of one chart, as plain data."""
    md = chart.metadata
    meta = {
        "apiVersion": md.api_version, "name": md.name, "version": md.version,
        "kubeVersion": md.kube_version, "description": md.description, "type": md.type,
        "keywords": list(md.keywords), "home": md.home, "sources": list(md.sources),
        "maintainers": [{"name": m.name, "email": m.email, "url": m.url} for m in md.maintainers],
        "icon": md.icon, "appVersion": md.app_version, "deprecated": md.deprecated,
        "annotations": dict(md.annotations), "path": chart.chart_path(),
    }
    deps = [{"name": d.name, "version": d.version, "repository": d.repository,
             "condition": d.condition, "tags": list(d.tags), "enabled": d.enabled, "alias": d.alias}
            for d in md.dependencies]
    files = [{"name": f.name, "data": f.data} for f in chart.files
             if not f.name.startswith(EXT_DIR) and not f.name.startswith(TEMPLATES_DIR)]
    return {"chart": meta, "dependencies": deps, "files": files}


def all_files(chart: model.Chart) -> dict[str, bytes]:
    """Every file of one chart (templates included), what ``io`` may read."""
    return {f.name: f.data for f in [*chart.templates, *chart.files]}


# -- scoping -------------------------------------------------------------------------
def scope_path(chart: model.Chart) -> tuple[str, ...]:
    """Keys from the top chart's values down to this chart's: ``("sub", "subsub")``."""
    names: list[str] = []
    c = chart
    while c.parent is not None:
        names.append(c.name)
        c = c.parent
    return tuple(reversed(names))


def scoped_values(values: Mapping[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    cur: Any = values
    for key in path:
        cur = cur.get(key) if isinstance(cur, Mapping) else None
    return dict(cur) if isinstance(cur, Mapping) else {}


def with_scoped_values(values: Mapping[str, Any], path: tuple[str, ...], new: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``values`` with the subtree at ``path`` replaced (copies along the path)."""
    if not path:
        return dict(new)
    head, rest = path[0], path[1:]
    child = values.get(head)
    out = dict(values)
    out[head] = with_scoped_values(child if isinstance(child, Mapping) else {}, rest, new)
    return out


def in_scope(source: str, chart: model.Chart) -> bool:
    return chart.is_root() or source.startswith(chart.chart_path() + "/")


def objects_part(ctx: EventContext, chart: model.Chart) -> list[dict[str, Any]]:
    return [{"source": o.source, "object": o.object} for o in ctx.objects if in_scope(o.source, chart)]


def merge_objects(objects: tuple[RenderedObject, ...], chart: model.Chart,
                  returned: list[Mapping[str, Any]]) -> tuple[RenderedObject, ...]:
    """Replace the chart's objects by ``returned`` at the position of the first one."""
    default_source = f"{chart.chart_path()}/{NEW_OBJECT_SOURCE}"
    new = [RenderedObject(source=r.get("source") or default_source, object=r["object"]) for r in returned]
    out: list[RenderedObject] = []
    placed = False
    for o in objects:
        if in_scope(o.source, chart):
            if not placed:
                out.extend(new)
                placed = True
            continue
        out.append(o)
    if not placed:
        out.extend(new)
    return tuple(out)


def chart_parts(ctx: EventContext, chart: model.Chart, *, before_render: bool) -> dict[str, Any]:
    """The per-event parts of one chart's ``_`` (see module rules)."""
    parts: dict[str, Any] = {
        "release": ctx.release.to_lua(),
        "capabilities": ctx.capabilities.to_lua(),
        "values": scoped_values(ctx.values, scope_path(chart)),
    }
    if before_render:
        parts["templates"] = [{"name": t.name, "data": t.data, "engine": t.engine}
                              for t in ctx.templates.get(chart.chart_path(), ())]
    else:
        parts["objects"] = objects_part(ctx, chart)
    return parts


def merge_parts(ctx: EventContext, chart: model.Chart, returned: Mapping[str, Any]) -> EventContext:
    """A new context with one chart's returned mutable parts merged in."""
    changes: dict[str, Any] = {}
    if "values" in returned:
        changes["values"] = with_scoped_values(ctx.values, scope_path(chart), returned["values"])
    if "templates" in returned:
        templates = dict(ctx.templates)
        templates[chart.chart_path()] = tuple(
            TemplateSource(t["name"], t["data"], t.get("engine", "")) for t in returned["templates"])
        changes["templates"] = templates
    if "objects" in returned:
        changes["objects"] = merge_objects(ctx.objects, chart, returned["objects"])
    return replace(ctx, **changes) if changes else ctx
