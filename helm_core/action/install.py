"""The ``install`` action: render a chart against the cluster and create its first version.

Steps (Helm's ``Install.Run`` as the seeds' lifecycle events): lock → load → chart-loaded →
pre-render → render (``lookup`` and ``.Capabilities`` from the real cluster) → post-render →
size check (a release too big for 1 MiB stops here, before anything is applied) → CRDs from
``crds/`` created, waited Established → validate (every object's type is served) → record
``pending-install`` → Lua ``pre-install`` → ``pre-install`` hooks → server-side apply in kind order → Lua
``post-install`` → Lua ``wait`` → wait (``--wait``) → Lua ``ready`` → ``post-install`` hooks →
record ``deployed``.

Rules:
- A name with any stored history is refused ("cannot re-use a name that is still in use")
  unless ``replace`` and its newest version is uninstalled or failed (Helm's ``--replace``); an
  uninstalled one is then marked ``superseded`` ("superseded by new release") just before the
  new version is stored, a failed one stays ``failed``. The new version's number follows the
  newest stored one, but its templates see ``.Release.Revision`` 1, as helm's install renders.
- An existing object not owned by this release is refused with Helm's ownership error naming
  it, unless ``take_ownership``; as in Helm, before anything is stored.
- A failure records the version ``failed`` with the reason; ``atomic`` then removes every
  object and hook the install applied and its history, and says so.
- ``dry_run`` renders and validates against the cluster and returns the pending version:
  nothing is locked, stored or applied.
"""
from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Protocol

from helm_core import lua
from helm_core.action import config, events, hooks, uninstall
from helm_core.action import crds as crd_policy
from helm_core.action import template as template_action
from helm_core.chart import model
from helm_core.engine import capabilities as caps_mod
from helm_core.engine import manifests as mf
from helm_core.engine import postrender
from helm_core.engine import render as render_mod
from helm_core.errors import HelmError, ReleaseExistsError, UndoneError
from helm_core.kube import client as kclient
from helm_core.kube import lookup as klookup
from helm_core.kube import resources
from helm_core.kube import wait as kwait
from helm_core.lua import kept
from helm_core.storage import driver as drv
from helm_core.storage import labels as release_labels
from helm_core.storage import release as rel
from helm_core.support.records import field, record

NAME_IN_USE = "cannot re-use a name that is still in use"
ATOMIC_INSTALL = "release {name} failed, and has been uninstalled due to atomic being set: {error}"


@record(frozen=True)
class InstallOptions:
    """What ``helm-core install`` can be asked (Helm's flags)."""

    name: str
    namespace: str = "default"
    chart_source: str = ""
    """Where the chart came from, stored with every version (``chartSource``)."""
    dry_run: bool = False
    wait: bool = False
    wait_for_jobs: bool = False
    """While waiting, Jobs count only once complete (``--wait-for-jobs``; Flux's
    ``install.disableWaitForJobs`` inverted); otherwise once started."""
    timeout_s: float = kwait.DEFAULT_TIMEOUT_S
    atomic: bool = False
    """On failure remove everything the install created (implies waiting)."""
    create_namespace: bool = False
    take_ownership: bool = False
    """Adopt existing objects even when another release (or nobody) owns them."""
    replace: bool = False
    no_hooks: bool = False
    description: str = ""
    lua: template_action.LuaOptions = field(default_factory=template_action.LuaOptions)
    post_render: postrender.PostRenderOptions = postrender.NONE
    """Kustomize patches, images and common metadata applied after chart Lua's post-render."""
    crds: str = crd_policy.INSTALL_DEFAULT
    """What to do with the chart's ``crds/`` (Flux's ``install.crds``): ``Create`` the missing
    ones, ``CreateReplace`` also replace existing ones, ``Skip`` leave them all."""
    skip_schema_validation: bool = False
    """Values are not checked against the charts' schemas (``--skip-schema-validation``,
    Flux's ``install.disableSchemaValidation``)."""
    subchart_notes: bool = False
    """Subcharts' NOTES.txt are kept with the chart's (``--render-subchart-notes``)."""
    labels: Mapping[str, str] = field(default_factory=dict)
    """Custom labels of the release's storage record (``--labels``; ``storage/labels.py``)."""
    force: bool = False
    """Objects that exist already (taken over) are replaced (a PUT of the rendered object)
    instead of applied (``--force``; new objects are created either way, as in helm)."""


@record
class Rendered:
    """A chart rendered for a release, with its Lua runtime still open for later events."""

    chart: model.Chart
    values: dict[str, Any]
    manifests: list[mf.Manifest]
    hooks: list[mf.Hook]
    crds: list[tuple[str, model.File]]
    notes: str
    fire: Callable[[str], None]
    """Emit one optional lifecycle event (its handlers cannot change objects any more)."""
    revision: int
    """The version's revision (helm's number of it); the templates saw it as ``.Release.Revision``
    on upgrade, 1 on install (:func:`rendering`)."""


class RenderChoices(Protocol):
    """What the options of install and upgrade say about rendering."""

    @property
    def lua(self) -> template_action.LuaOptions: ...
    @property
    def post_render(self) -> postrender.PostRenderOptions: ...
    @property
    def skip_schema_validation(self) -> bool: ...
    @property
    def subchart_notes(self) -> bool: ...


@contextlib.contextmanager
def rendering(cfg: config.Configuration, chart: model.Chart, user_values: Mapping[str, Any], *,
              name: str, namespace: str, action: str, revision: int,
              choices: RenderChoices) -> Iterator[Rendered]:
    """Render ``chart`` for an install or upgrade: chart-loaded, pre-render, render, post-render
    and the action's ``pre-*`` event (whose handlers may still change objects), then the
    ``post_render`` patches and common metadata on the release's objects (not its hooks).
    ``choices``: the chart Lua's permissions, post-renderers, whether values schemas are
    checked and whether subcharts' NOTES.txt count. ``revision`` is the new version's: chart
    Lua sees it, and so do the templates of an upgrade; an install's see 1, whatever history it
    replaces, as helm's install renders them."""
    renderer = config.renderer_of(cfg)
    prepared = renderer.prepare(chart, user_values, validate_schema=not choices.skip_schema_validation)
    capabilities = config.cluster_capabilities(cfg)
    is_upgrade = action == "upgrade"
    release = caps_mod.ReleaseInfo(name=name, namespace=namespace, revision=revision if is_upgrade else 1,
                                   is_install=not is_upgrade, is_upgrade=is_upgrade)
    step = template_action.RenderStep(prepared.chart, render_mod.RenderOptions(
        release=release, capabilities=capabilities, lookup=klookup.make_lookup(cfg.client),
        subchart_notes=choices.subchart_notes), renderer)
    lua_options, post_render = choices.lua, choices.post_render
    with lua.load_chart_scripts(prepared.chart, accepted_permissions=lua_options.accepted_for(prepared.chart),
                                limits=lua_options.limits, log=lua_options.log or cfg.log,
                                session_factory=lua_options.session_factory) as scripts:
        emitter: events.Emitter[lua.EventContext] = events.Emitter()
        events.attach_chart_scripts(emitter, scripts, lua.ACTIONS[action])
        emitter.set_core("render", step)
        ctx = lua.new_context(
            prepared.chart,
            release=lua.ReleaseInfo(name=name, namespace=namespace, revision=revision,
                                    is_install=not is_upgrade, is_upgrade=is_upgrade),
            capabilities=lua.CapabilitiesInfo(kube_version=capabilities.KubeVersion.Version,
                                              api_versions=tuple(capabilities.APIVersions)),
            values=prepared.values)
        for event in ("chart-loaded", "pre-render", "render", "post-render", f"pre-{action}"):
            ctx = emitter.emit(event, ctx)
        ordered = mf.sort_manifests(step.documents_after(ctx.objects))
        manifests = ordered.manifests
        if post_render:
            manifests = mf.sort_by_kind(postrender.run_manifests(manifests, post_render, namespace=namespace),
                                        mf.INSTALL_ORDER)
        final = ctx

        def fire(event: str) -> None:
            emitter.emit(event, final)

        yield Rendered(chart=prepared.chart, values=dict(ctx.values), manifests=manifests,
                       hooks=ordered.hooks, crds=model.all_crd_files(prepared.chart),
                       notes=step.notes, fire=fire, revision=revision)


def post_render_options(post_renderers: Any, common_metadata: Any) -> postrender.PostRenderOptions:
    """Flux's ``spec.postRenderers`` and ``spec.commonMetadata`` as the ``post_render`` of
    install and upgrade (:mod:`helm_core.engine.postrender` has the rules); a wrong shape is
    a ``PatchError`` naming its path."""
    return postrender.from_spec(post_renderers, common_metadata)


def new_record(rendered: Rendered, *, name: str, namespace: str, status: rel.Status,
               user_values: Mapping[str, Any], chart_source: str, description: str,
               after: rel.ReleaseVersion | None = None, first_deployed: Any = None,
               driver: Any = None, labels: Mapping[str, str] | None = None) -> rel.ReleaseVersion:
    """The version storing a rendered chart (its id after the newest stored one, as
    ``driver`` numbers them), with the custom ``labels``."""
    now = rel.now()
    md = rendered.chart.metadata
    return rel.ReleaseVersion(
        name=name, namespace=namespace, version=drv.next_version(driver, after.version if after else None),
        status=status, chart_name=md.name, chart_version=md.version, app_version=md.app_version,
        chart_source=chart_source, user_values=dict(user_values), chart_values=rendered.values,
        manifest=mf.format_documents(rendered.manifests), hooks=hooks.format_hooks(rendered.hooks),
        notes=rendered.notes, description=description, first_deployed=first_deployed or now,
        last_deployed=now, extensions=kept.pack(rendered.chart), labels=dict(labels or {}),
        revision=rendered.revision, made_of=rendered.chart)


def ensure_namespace(cfg: config.Configuration, namespace: str) -> None:
    """``--create-namespace``: create the release namespace unless it exists."""
    resources.create_missing(cfg.client, [{"apiVersion": "v1", "kind": "Namespace",
                                           "metadata": {"name": namespace}}])


def run(cfg: config.Configuration, chart: model.Chart, user_values: Mapping[str, Any],
        options: InstallOptions) -> rel.ReleaseVersion:
    """Install ``chart`` as release ``options.name``; returns the stored (or dry-run) version."""
    rel.check_name(options.name)
    release_labels.check(options.labels)
    if options.dry_run:
        return _dry_run(cfg, chart, user_values, options)
    if options.create_namespace:
        ensure_namespace(cfg, options.namespace)
    with config.locked(cfg, namespace=options.namespace, name=options.name,
                       operation="install") as history:
        return _install(cfg, chart, user_values, options, history)


def run_locked(cfg: config.Configuration, chart: model.Chart, user_values: Mapping[str, Any],
               options: InstallOptions, history: list[rel.ReleaseVersion]) -> rel.ReleaseVersion:
    """:func:`run` for a caller that holds the release's lock (and made the namespace) already,
    with the ``history`` it read under that lock."""
    rel.check_name(options.name)
    release_labels.check(options.labels)
    return _install(cfg, chart, user_values, options, history)


def _dry_run(cfg: config.Configuration, chart: model.Chart, user_values: Mapping[str, Any],
             options: InstallOptions) -> rel.ReleaseVersion:
    with rendering(cfg, chart, user_values, name=options.name, namespace=options.namespace,
                   action="install", revision=1, choices=options) as rendered:
        if not options.create_namespace:
            config.resolve_all(cfg, [m.obj for m in rendered.manifests if m.obj], options.namespace)
        record = new_record(rendered, driver=cfg.driver, name=options.name, namespace=options.namespace,
                            status=rel.Status.PENDING_INSTALL, user_values=user_values,
                            chart_source=options.chart_source, description="Dry run complete",
                            labels=options.labels)
        # helm's dry run stores nothing, so labels only the store would refuse pass (size is ours)
        cfg.driver.check(record.replace(labels={}))
        return record


def _check_name_free(history: list[rel.ReleaseVersion], options: InstallOptions) -> None:
    newest = rel.latest(history)
    if newest is None:
        return
    if options.replace and newest.status in (rel.Status.UNINSTALLED, rel.Status.FAILED):
        return
    raise ReleaseExistsError(NAME_IN_USE)


def _supersede_replaced(cfg: config.Configuration, history: list[rel.ReleaseVersion],
                        options: InstallOptions) -> None:
    """``replace``: the newest version, uninstalled, is marked superseded by the new release
    (helm's ``replaceRelease``; a failed one is left failed)."""
    newest = rel.latest(history)
    if options.replace and newest is not None and newest.status is rel.Status.UNINSTALLED:
        cfg.driver.update(newest.with_status(rel.Status.SUPERSEDED, rel.SUPERSEDED_BY_NEW_RELEASE))


def _install(cfg: config.Configuration, chart: model.Chart, user_values: Mapping[str, Any],
             options: InstallOptions, history: list[rel.ReleaseVersion]) -> rel.ReleaseVersion:
    _check_name_free(history, options)
    with rendering(cfg, chart, user_values, name=options.name, namespace=options.namespace,
                   action="install", revision=rel.next_revision(history), choices=options) as rendered:
        record = new_record(rendered, driver=cfg.driver, name=options.name, namespace=options.namespace,
                            status=rel.Status.PENDING_INSTALL, user_values=user_values,
                            chart_source=options.chart_source, after=rel.latest(history),
                            description="Initial install underway", labels=options.labels)
        cfg.driver.check(record)  # too big, labels refused: before anything is applied
        crd_policy.apply(cfg, rendered.crds, policy=options.crds, timeout_s=options.timeout_s)
        objects = config.resolve_all(cfg, [m.obj for m in rendered.manifests if m.obj], options.namespace)
        # before the version is stored, as helm: a refusal leaves no failed version behind to
        # block the next install ("cannot re-use a name that is still in use")
        config.check_adoption(cfg, objects, resources.Owner(name=options.name, namespace=options.namespace),
                              adopt=options.take_ownership, operation="install")
        _supersede_replaced(cfg, history, options)
        cfg.driver.create(record)
        runs = hooks.RunLog(cfg, record)
        try:
            _perform(cfg, rendered, objects, options, runs)
        except HelmError as exc:
            exc.failed_version, exc.failed_action = str(record.version), "install"
            cfg.driver.update(runs.onto(record.with_status(rel.Status.FAILED,
                                                           f'Release "{options.name}" failed: {exc}')))
            if options.atomic:
                _undo(*config.for_undo(cfg, exc), rendered, objects, options)
                raise UndoneError(ATOMIC_INSTALL.format(name=options.name, error=exc),
                                  cause=exc, undo="uninstall") from exc
            raise
    deployed = runs.onto(record.with_status(rel.Status.DEPLOYED, options.description or "Install complete"))
    cfg.driver.update(deployed)
    return deployed


def _perform(cfg: config.Configuration, rendered: Rendered, objects: list[dict[str, Any]],
             options: InstallOptions, runs: hooks.RunLog) -> None:
    owner = config.owner(cfg, namespace=options.namespace, name=options.name)  # the stored Release's
    if not options.no_hooks:
        hooks.run(cfg, rendered.hooks, "pre-install", owner=owner, timeout_s=options.timeout_s,
                  observe=runs.observe)
    applied = config.apply_batched(cfg, objects, owner, replace=options.force)
    rendered.fire("post-install")
    if options.wait or options.atomic:
        rendered.fire("wait")
        kwait.wait_ready(cfg.client, kclient.refs(objects), seen=applied, options=config.wait_options(
            cfg, options.timeout_s, wait_for_jobs=options.wait_for_jobs))
        rendered.fire("ready")
    if not options.no_hooks:
        hooks.run(cfg, rendered.hooks, "post-install", owner=owner, timeout_s=options.timeout_s,
                  observe=runs.observe)


def _undo(cfg: config.Configuration, wait: bool, rendered: Rendered,
          objects: list[dict[str, Any]], options: InstallOptions) -> None:
    """``--atomic``: remove what the install applied (never CRDs) and its history."""
    cfg.log(f"install of {options.name} failed: uninstalling it (atomic)")
    uninstall.remove_objects(cfg, objects, owner=config.owner(cfg, namespace=options.namespace,
                                                               name=options.name),
                             wait=wait, timeout_s=options.timeout_s)
    hooks.delete_all(cfg, rendered.hooks, options.namespace)
    for version in cfg.driver.history(options.namespace, options.name):
        cfg.driver.delete(options.namespace, options.name, version.version)
