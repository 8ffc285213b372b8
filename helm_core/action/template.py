"""The ``template`` action: render a chart locally, as ``helm template`` does.

Steps (the lifecycle of the seeds, client-side only): load → chart-loaded →
values → pre-render → render → post-render → split and sort → post-template.
Nothing touches a cluster; ``lookup`` returns empty maps.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from helm_core import lua
from helm_core.chart import ignore, model, prepare
from helm_core.engine import capabilities as caps_mod
from helm_core.engine import manifests as mf
from helm_core.engine import postrender
from helm_core.engine import render as render_mod
from helm_core.engine import renderer as renderer_mod
from helm_core.errors import ChartError, HelmError, ManifestError, TemplateError
from helm_core.golib import goyaml
from helm_core.lua import layout
from helm_core.storage import names as release_names
from helm_core.support.records import field, record, replace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from helm_core.engine import purity

DEFAULT_RELEASE_NAME = release_names.DEFAULT_TEMPLATE_NAME


@record(frozen=True)
class LuaOptions:
    """How chart Lua may run in this operation."""

    #: Permissions the caller accepts (CLI ``--accept-perms``; the controller's allowlist ∩ request).
    accepted_permissions: frozenset[str] = frozenset()
    #: None: the defaults of :class:`~helm_core.lua.LuaLimits`.
    limits: lua.LuaLimits | None = None
    #: Where runtimes live; None: a fresh worker process per operation (killable on time-out).
    session_factory: Callable[[], Any] | None = None
    #: Accept whatever the chart tree asks for (the CLI's ``-y``).
    accept_all: bool = False
    #: Where a release action sends the Lua's ``print`` lines; None: the operation's log (``cfg.log``).
    log: Callable[[str], None] | None = None

    def accepted_for(self, chart: model.Chart) -> frozenset[str]:
        """The permissions accepted for ``chart``'s tree."""
        if not self.accept_all:
            return self.accepted_permissions
        return self.accepted_permissions.union(*lua.requested_permissions(chart).values())


@record(frozen=True)
class TemplateOptions:
    """What ``helm-core template`` can be asked."""

    release_name: str = DEFAULT_RELEASE_NAME
    namespace: str = "default"
    #: ``--kube-version``: the Kubernetes version templates see (``.Capabilities.KubeVersion``).
    kube_version: str | None = None
    #: ``--api-versions``: extra API versions for ``.Capabilities.APIVersions``.
    api_versions: tuple[str, ...] = ()
    include_crds: bool = False
    skip_tests: bool = False
    no_hooks: bool = False
    #: ``--show-only``: template paths (``templates/x.yaml``, globs allowed) to print.
    show_only: tuple[str, ...] = ()
    #: ``--strict`` / lint: a missing value is an error instead of ``<no value>``.
    strict: bool = False
    is_upgrade: bool = False
    #: ``--skip-schema-validation``: values are not checked against the charts' schemas.
    skip_schema_validation: bool = False
    lua: LuaOptions = field(default_factory=LuaOptions)
    #: ``--post-renderers``: kustomize patches, images and common metadata after post-render.
    post_render: postrender.PostRenderOptions = postrender.NONE
    #: Kept by the render (see :class:`helm_core.engine.purity.Ledger`): the CLI's memo of
    #: template outputs; None: every template is rendered and nothing is recorded.
    ledger: purity.Ledger | None = None


@record
class TemplateResult:
    chart: model.Chart
    values: dict[str, Any]
    manifests: list[mf.Manifest]
    hooks: list[mf.Hook]
    crds: list[tuple[str, model.File]] = field(default_factory=list)
    notes: str = ""
    info: list[str] = field(default_factory=list)


def run(chart: model.Chart, user_values: dict[str, Any], options: TemplateOptions = TemplateOptions(),
        *, log: Callable[[str], None] = lambda _line: None, prepared: prepare.Prepared | None = None,
        ) -> TemplateResult:
    """Render ``chart`` with ``user_values`` into sorted manifests and hooks.

    The steps are the lifecycle events of the ``template`` action: chart-loaded →
    pre-render → render (core) → post-render → post-template. Chart Lua (if any)
    answers the optional ones; ``log`` receives what its ``print`` says. ``prepared``: what
    :func:`~helm_core.chart.prepare.prepare_chart` made of this chart and these values with
    these options before (the CLI's memo: :mod:`helm_core.cli.rendered`), not made again.
    """
    release_names.check_name(options.release_name)
    if prepared is None:
        prepared = prepare.prepare_chart(chart, user_values, validate_schema=not options.skip_schema_validation)
    capabilities = caps_mod.make_capabilities(
        kube_version=options.kube_version or caps_mod.DEFAULT_KUBE_VERSION,
        extra_api_versions=options.api_versions,
    )
    release = caps_mod.ReleaseInfo(
        name=options.release_name,
        namespace=options.namespace,
        revision=1,
        is_install=not options.is_upgrade,
        is_upgrade=options.is_upgrade,
    )
    step = RenderStep(prepared.chart, render_mod.RenderOptions(
        release=release, capabilities=capabilities, strict=options.strict, ledger=options.ledger))
    if layout.has_extensions(prepared.chart):
        ctx = run_events("template", step, prepared, release, capabilities, options.lua, log)
        values, documents = dict(ctx.values), step.documents_after(ctx.objects)
    else:
        # No chart Lua and no permissions file anywhere in the tree: every lifecycle event but
        # the core render would be empty, and the Lua machinery is not even imported.
        values, documents = dict(prepared.values), step.render(prepared.chart, prepared.values)
    ordered = mf.sort_manifests(documents)
    manifests = ordered.manifests
    if options.post_render:
        manifests = mf.sort_by_kind(postrender.run_manifests(
            manifests, options.post_render, namespace=options.namespace), mf.INSTALL_ORDER)
    return TemplateResult(
        chart=prepared.chart,
        values=values,
        manifests=manifests,
        hooks=ordered.hooks,
        crds=model.all_crd_files(prepared.chart),
        notes=step.notes,
        info=ordered.skipped,
    )


def run_events(action: str, step: RenderStep, prepared: prepare.Prepared, release: caps_mod.ReleaseInfo,
               capabilities: Any, lua_options: LuaOptions, log: Callable[[str], None]) -> lua.EventContext:
    """The events of a local ``action`` (``template``, ``lint``: :data:`helm_core.lua.ACTIONS`)
    with the chart's Lua handlers, the core render (``step``) right after ``pre-render``;
    returns the context the last handler left."""
    from helm_core.action import events
    order = list(lua.ACTIONS[action])
    order.insert(order.index("pre-render") + 1, "render")
    with lua.load_chart_scripts(prepared.chart, accepted_permissions=lua_options.accepted_for(prepared.chart),
                                limits=lua_options.limits, log=log,
                                session_factory=lua_options.session_factory) as scripts:
        emitter: events.Emitter[lua.EventContext] = events.Emitter()
        events.attach_chart_scripts(emitter, scripts, lua.ACTIONS[action])
        emitter.set_core("render", step)
        ctx = lua.new_context(
            prepared.chart,
            release=lua.ReleaseInfo(name=release.name, namespace=release.namespace, revision=release.revision,
                                    is_install=release.is_install, is_upgrade=release.is_upgrade),
            capabilities=lua.CapabilitiesInfo(kube_version=capabilities.KubeVersion.Version,
                                              api_versions=tuple(capabilities.APIVersions)),
            values=prepared.values,
        )
        for event in order:
            ctx = emitter.emit(event, ctx)
    return ctx


def check_kube_version(chart: model.Chart, capabilities: caps_mod.Capabilities) -> None:
    """Helm renders no chart whose ``kubeVersion`` range excludes the cluster's version (a
    range that does not parse excludes every version)."""
    wanted = chart.metadata.kube_version
    if not wanted:
        return
    from helm_core.golib import versions  # only charts that name a range (dependencies import it too)

    have = capabilities.KubeVersion.String()
    if not versions.is_compatible_range(wanted, have):
        raise ChartError(f"chart requires kubeVersion: {wanted} which is incompatible with Kubernetes {have}")


class RenderStep:
    """The core ``render`` event: templates and values of the context → rendered objects.

    It keeps the rendered documents so that objects post-render handlers leave as they
    were print exactly as rendered; only changed or added ones are serialised anew.
    """

    def __init__(self, chart: model.Chart, options: render_mod.RenderOptions,
                 renderer: renderer_mod.Renderer = renderer_mod.LOCAL) -> None:
        self.chart = chart
        self.options = options
        self.renderer = renderer
        self.documents: list[mf.Manifest] = []
        self.objects: tuple[lua.RenderedObject, ...] = ()
        self.notes = ""

    def render(self, chart: model.Chart, values: Mapping[str, Any],
               options: render_mod.RenderOptions | None = None) -> list[mf.Manifest]:
        """Templates → documents (NOTES.txt kept apart in ``notes``); ``values`` may be any mapping."""
        options = options or self.options
        try:
            check_kube_version(chart, options.capabilities or caps_mod.make_capabilities())
            rendered = self.renderer.render(chart, values, options)
        except (TemplateError, ManifestError, ChartError) as exc:  # a render limit is ours, not helm's
            if exc.rendered is None:
                exc.rendered = ""  # failed in the templates: helm's partial release is empty
            raise
        self.notes = rendered.notes
        self.documents = rendered.documents
        return self.documents

    def __call__(self, ctx: lua.EventContext) -> lua.EventContext:
        from helm_core.lua import context as lua_context

        templates = lua_context.templates_of(self.chart)
        chart = self.chart if ctx.templates == templates else _with_templates(self.chart, ctx.templates)
        # The engine a pre-render handler chose per template (TemplateSource.engine) reaches render.
        engines = {f"{path}/{t.name}": t.engine for path, items in ctx.templates.items() for t in items if t.engine}
        options = replace(self.options, template_engines=engines) if engines else self.options
        self.render(chart, ctx.values, options)
        self.objects = tuple(lua.RenderedObject(d.source, d.obj) for d in self.documents)
        return replace(ctx, objects=self.objects)

    def documents_after(self, objects: tuple[lua.RenderedObject, ...]) -> list[mf.Manifest]:
        """The documents matching ``objects`` as handlers left them."""
        if objects is self.objects:
            return self.documents
        return documents_after(self.documents, objects)


def documents_after(documents: Sequence[mf.Manifest], objects: Sequence[lua.RenderedObject]) -> list[mf.Manifest]:
    """``documents`` as Lua handlers left their objects: an object left as it was keeps its
    document's text; a changed or added one is written anew."""
    unused = list(documents)
    out = []
    for item in objects:
        found = next((d for d in unused if d.source == item.source and d.obj == item.object), None)
        if found is not None:
            unused.remove(found)
            out.append(found)
        else:
            obj = dict(item.object)
            out.append(mf.Manifest(source=item.source, content=goyaml.dump(obj).rstrip("\n"), obj=obj))
    return out


def _with_templates(chart: model.Chart, templates: Mapping[str, tuple[lua.TemplateSource, ...]]) -> model.Chart:
    """A copy of the chart tree whose templates are those a pre-render handler left."""
    copy = replace(
        chart, templates=[model.File(t.name, t.data) for t in templates.get(chart.chart_path(), ())],
        dependencies=[])
    for sub in chart.dependencies:
        copy.add_dependency(_with_templates(sub, templates))
    return copy


def _is_test_hook(hook: mf.Hook) -> bool:
    return "test" in hook.events


@record(frozen=True)
class OutputPart:
    """One document ``helm template`` emits: where it comes from, and what it is (hooks and
    CRDs go to ``--output-dir`` by their own rules)."""

    kind: str
    """``crd``, ``manifest`` or ``hook``."""
    source: str
    content: str


def output_parts(result: TemplateResult, options: TemplateOptions) -> list[OutputPart]:
    """What ``helm template`` emits, in its order: CRDs (if asked), resources, then hooks
    (``--show-only`` not applied)."""
    parts: list[OutputPart] = []
    if options.include_crds:
        for chart_path, crd in result.crds:
            parts.append(OutputPart("crd", f"{chart_path}/{crd.name}", crd.data.decode("utf-8", "replace")))
    parts.extend(OutputPart("manifest", m.source, m.content) for m in result.manifests)
    if not options.no_hooks:
        parts.extend(
            OutputPart("hook", h.manifest.source, h.manifest.content)
            for h in result.hooks
            if not (options.skip_tests and _is_test_hook(h))
        )
    return parts


def output_text(result: TemplateResult, options: TemplateOptions,
                parts: list[OutputPart] | None = None) -> str:
    """The text ``helm template`` prints: CRDs (if asked), resources, then hooks (``parts``:
    :func:`output_parts`, when the caller has them already)."""
    listed = output_parts(result, options) if parts is None else parts
    shown = [(part.source, part.content) for part in listed]
    if options.show_only:
        shown = filter_show_only(shown, result.chart.name, options.show_only)
        return "".join(document(source, content) for source, content in shown)
    text = "".join(document(source, content) for source, content in shown)
    # helm prints the release manifest with Println: an empty one is still a line
    return text if any(part.kind != "hook" for part in listed) else "\n" + text


def document(source: str, content: str) -> str:
    """One document as ``helm template`` prints it, and writes it to ``--output-dir``."""
    return f"---\n# Source: {source}\n{content}\n"


def filter_show_only(parts: list[tuple[str, str]], chart_name: str,
                     wanted: tuple[str, ...]) -> list[tuple[str, str]]:
    """``--show-only``: the (source, content) parts whose template path matches, pattern by
    pattern; ``HelmError`` for a pattern that matches none."""
    kept: list[tuple[str, str]] = []
    for pattern in wanted:
        pattern = pattern.replace("\\", "/")
        found = False
        for source, content in parts:
            relative = source[len(chart_name) + 1:] if source.startswith(chart_name + "/") else source
            if ignore.go_match(pattern, relative) or ignore.go_match(pattern, source):
                kept.append((source, content))
                found = True
        if not found:
            raise HelmError(f"could not find template {pattern} in chart")
    return kept
