"""The ``upgrade`` action: render a chart over a deployed release as a new version.

Steps (Helm's ``Upgrade.Run`` as the seeds' lifecycle events): lock → the current version (the
last ``deployed``, else the newest) → values (below) → chart-loaded → pre-render → render
(``lookup``/``.Capabilities`` from the cluster) → post-render → Lua ``pre-upgrade`` → record
``pending-upgrade`` (too big: refused before anything is applied) → ownership check of objects
new to the release → ``pre-upgrade`` hooks → apply (``force``: existing objects replaced) →
objects the new manifest lacks deleted (``helm.sh/resource-policy: keep`` respected) → Lua
``post-upgrade``/``wait``/``ready`` around ``--wait`` → ``post-upgrade`` hooks → the current
version ``superseded`` whatever its status (a failed one too, as helm), and any other
``deployed`` one; the new ``deployed``.

Values (Helm's ``reuseValues``):
- ``reset_values``: only the values given now.
- ``reuse_values``: the values given now coalesced over the current version's user values
  (``CoalesceTables``: a ``null`` given drops the old key), and the new chart's defaults are the
  current version's computed values, not its own values.yaml (helm's ``chart.Values = oldVals``:
  a key the new chart adds to its defaults is not there, as with helm).
- ``reset_then_reuse_values``: the same coalesce, over the new chart's own defaults.
- none of them: the values given now, or the current version's user values when none is given.

After a successful upgrade only the newest ``max_history`` versions are kept (Helm's
``--history-max``, default 10). A failure marks the new version ``failed`` with the reason;
``atomic`` then rolls back (a new version) to helm's choice (``_atomic_target``), and says so;
with none (the release never deployed) it rolls nothing back and says that, as helm.

``install`` (Helm's ``upgrade --install``) installs instead when :func:`plan` says so: no
stored version, or the newest one uninstalled (then with ``replace``, as Helm does, which marks
it superseded "superseded by new release"); with ``reinstall_failed`` also when every version
but the uninstalled ones failed (none ever deployed: a failed first install is installed again,
as Flux's helm-controller does), a version an install replaced counting as the uninstalled one
it was (``rel.uninstalled``). An install this way keeps ``max_history`` versions too (Helm's
storage prunes on every create when ``--history-max`` is set).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from helm_core.action import config, get, hooks, install, rollback
from helm_core.action import crds as crd_policy
from helm_core.action import template as template_action
from helm_core.chart import model
from helm_core.chart import values as chart_values
from helm_core.engine import postrender
from helm_core.errors import HelmError, ReleaseNotFoundError, UndoneError
from helm_core.kube import wait as kwait
from helm_core.storage import driver as drv
from helm_core.storage import labels as release_labels
from helm_core.storage import release as rel
from helm_core.support.records import field, record, replace

DEFAULT_MAX_HISTORY = 10
"""Helm's ``--history-max`` default for upgrades."""
ATOMIC_UPGRADE = "release {name} failed, and has been rolled back due to atomic being set: {error}"
NO_ROLLBACK_TARGET = ("unable to find a previously successful release when attempting to rollback. "
                      "original upgrade error: {error}")


@record(frozen=True)
class UpgradeOptions:
    """What ``helm-core upgrade`` can be asked (Helm's flags)."""

    name: str
    namespace: str = "default"
    chart_source: str = ""
    install: bool = False
    """Install when the release does not exist (``--install``; :func:`plan`)."""
    reinstall_failed: bool = False
    """With ``install``: install again when every stored version failed (:func:`plan`)."""
    dry_run: bool = False
    wait: bool = False
    wait_for_jobs: bool = False
    """While waiting, Jobs count only once complete (``--wait-for-jobs``, Flux's
    ``upgrade.disableWaitForJobs`` inverted); passed on to the ``atomic`` rollback and, when
    ``install`` installs, to the install."""
    timeout_s: float = kwait.DEFAULT_TIMEOUT_S
    atomic: bool = False
    reuse_values: bool = False
    reset_values: bool = False
    reset_then_reuse_values: bool = False
    create_namespace: bool = False
    take_ownership: bool = False
    no_hooks: bool = False
    description: str = ""
    max_history: int = DEFAULT_MAX_HISTORY
    """Versions kept after a successful upgrade (``--history-max``; 0 keeps all; the last
    deployed one is never pruned)."""
    lua: template_action.LuaOptions = field(default_factory=template_action.LuaOptions)
    post_render: postrender.PostRenderOptions = postrender.NONE
    """Kustomize patches, images and common metadata applied after chart Lua's post-render."""
    crds: str = crd_policy.UPGRADE_DEFAULT
    """The chart's ``crds/`` on upgrade (Flux's ``upgrade.crds``): ``Skip`` (Helm's behaviour),
    ``Create`` the missing ones, ``CreateReplace`` also replace the existing ones."""
    skip_schema_validation: bool = False
    """Values are not checked against the charts' schemas (``--skip-schema-validation``,
    Flux's ``upgrade.disableSchemaValidation``)."""
    subchart_notes: bool = False
    """Subcharts' NOTES.txt are kept with the chart's (``--render-subchart-notes``)."""
    cleanup_on_fail: bool = False
    """A failed upgrade deletes the objects it created (``--cleanup-on-fail``, Flux's
    ``upgrade.cleanupOnFail``); with ``atomic`` the rollback then runs as well."""
    install_crds: str = crd_policy.INSTALL_DEFAULT
    """The chart's ``crds/`` when ``install`` installs (``--skip-crds`` makes it ``Skip``)."""
    labels: Mapping[str, str] = field(default_factory=dict)
    """Custom labels merged over the newest version's (``--labels``; a value ``null`` removes
    one; ``storage/labels.py``); as given when ``install`` installs."""
    force: bool = False
    """Objects that exist are replaced (a PUT of the rendered object) instead of applied, so
    fields other managers set are gone (``--force``, Flux's ``upgrade.force``); passed on to the
    ``atomic`` rollback, and to the install when ``install`` installs, as helm does."""


def effective_values(current: rel.ReleaseVersion, given: Mapping[str, Any],
                     options: UpgradeOptions) -> dict[str, Any]:
    """The user values of the new version (module rules)."""
    if options.reset_values:
        return dict(given)
    if options.reuse_values or options.reset_then_reuse_values:
        return chart_values.coalesce_tables(given, current.user_values)
    return dict(given) if given else dict(current.user_values)


def effective_chart(current: rel.ReleaseVersion, chart: model.Chart, options: UpgradeOptions) -> model.Chart:
    """The chart the new version renders (module rules): with ``reuse_values``, its defaults
    are the current version's computed values (rebuilt as helm rebuilds them, with its warnings:
    before :func:`effective_values`, as helm's ``reuseValues``)."""
    if options.reuse_values and not options.reset_values:
        return replace(chart, values=get.computed_values(current))  # read only, as every chart's values
    return chart


def plan(history: list[rel.ReleaseVersion], *, reinstall_failed: bool = False) -> str:
    """``"install"`` or ``"upgrade"``: what ``upgrade --install`` does with a release whose
    stored versions are ``history`` (module rules). The one place that decides it."""
    newest = rel.latest(history)
    if newest is None or newest.status is rel.Status.UNINSTALLED:
        return "install"
    # a version an install replaced was uninstalled: it deployed nothing that is still there
    live = [v for v in history if not rel.uninstalled(v)]
    if reinstall_failed and all(v.status is rel.Status.FAILED for v in live):
        return "install"
    return "upgrade"


def _atomic_target(history: list[rel.ReleaseVersion]) -> rel.ReleaseVersion | None:
    """What a failed ``atomic`` upgrade rolls back to: helm's "last successful release", the
    newest version ``superseded`` or ``deployed`` (one an install replaced too, as helm's
    filter takes it); None when every version failed or was uninstalled."""
    return rel.latest([v for v in history if v.status in (rel.Status.SUPERSEDED, rel.Status.DEPLOYED)])


def run(cfg: config.Configuration, chart: model.Chart, user_values: Mapping[str, Any],
        options: UpgradeOptions) -> rel.ReleaseVersion:
    """Upgrade release ``options.name`` to ``chart``; returns the new (or dry-run) version."""
    return upgrade_or_install(cfg, chart, user_values, options)[1]


def upgrade_or_install(cfg: config.Configuration, chart: model.Chart, user_values: Mapping[str, Any],
                       options: UpgradeOptions, install_options: install.InstallOptions | None = None,
                       *, history: list[rel.ReleaseVersion] | None = None,
                       ) -> tuple[str, rel.ReleaseVersion]:
    """:func:`run`, saying which action ran (``"install"`` or ``"upgrade"``). With
    ``options.install``, ``install_options`` (name and namespace aside) are the install's own
    (wait, timeout, hooks, namespace creation); by default they follow ``options``.

    With ``install`` the decision is made under the release's lock, from the history read there
    (the one read the operation needs); ``history``, when the caller has read it, only names the
    operation the lock announces to others."""
    rel.check_name(options.name)
    release_labels.check(options.labels)
    if options.install and not options.dry_run:
        base = _install_options(options, install_options)
        if base.create_namespace:
            install.ensure_namespace(cfg, options.namespace)  # the lock's Lease lives there
        announced = "install" if history is None else plan(history, reinstall_failed=options.reinstall_failed)
        with config.locked(cfg, namespace=options.namespace, name=options.name,
                           operation=announced) as stored:
            if plan(stored, reinstall_failed=options.reinstall_failed) == "upgrade":
                return "upgrade", _upgrade(cfg, chart, user_values, options, stored)
            done = install.run_locked(cfg, chart, user_values, replace(
                base, name=options.name, namespace=options.namespace, chart_source=options.chart_source,
                replace=base.replace or bool(stored)), stored)
            if stored:
                drv.prune_history(cfg.driver, options.namespace, options.name, options.max_history)
            return "install", done
    if options.install:  # a dry run
        history = cfg.driver.history(options.namespace, options.name)
        if plan(history, reinstall_failed=options.reinstall_failed) == "install":
            return "install", _install(cfg, chart, user_values, options, install_options, history)
    if options.dry_run:
        history = cfg.driver.history(options.namespace, options.name)
        current = _current(history, options.name)
        rendered_chart = effective_chart(current, chart, options)
        values = effective_values(current, user_values, options)
        with install.rendering(cfg, rendered_chart, values, name=options.name,
                               namespace=options.namespace, action="upgrade", revision=rel.next_revision(history),
                               choices=options) as rendered:
            config.resolve_all(cfg, [m.obj for m in rendered.manifests if m.obj], options.namespace)
            return "upgrade", install.new_record(
                rendered, driver=cfg.driver, name=options.name, namespace=options.namespace,
                status=rel.Status.PENDING_UPGRADE, user_values=values,
                chart_source=options.chart_source, description="Dry run complete",
                after=rel.latest(history), first_deployed=current.first_deployed,
                labels=_labels(history, options))
    with config.locked(cfg, namespace=options.namespace, name=options.name,
                       operation="upgrade") as history:
        return "upgrade", _upgrade(cfg, chart, user_values, options, history)


def _install_options(options: UpgradeOptions,
                     install_options: install.InstallOptions | None) -> install.InstallOptions:
    """The install's own options (module rules): given, or following ``options``."""
    return install_options or install.InstallOptions(
        name=options.name, wait=options.wait, wait_for_jobs=options.wait_for_jobs,
        timeout_s=options.timeout_s, atomic=options.atomic,
        create_namespace=options.create_namespace, take_ownership=options.take_ownership,
        no_hooks=options.no_hooks, description=options.description, lua=options.lua,
        post_render=options.post_render, skip_schema_validation=options.skip_schema_validation,
        subchart_notes=options.subchart_notes, crds=options.install_crds, labels=options.labels,
        force=options.force)


def _install(cfg: config.Configuration, chart: model.Chart, user_values: Mapping[str, Any],
             options: UpgradeOptions, install_options: install.InstallOptions | None,
             history: list[rel.ReleaseVersion]) -> rel.ReleaseVersion:
    base = _install_options(options, install_options)
    done = install.run(cfg, chart, user_values, replace(
        base, name=options.name, namespace=options.namespace, chart_source=options.chart_source,
        dry_run=options.dry_run, replace=base.replace or bool(history)))
    if history and not options.dry_run:
        drv.prune_history(cfg.driver, options.namespace, options.name, options.max_history)
    return done


def _labels(history: list[rel.ReleaseVersion], options: UpgradeOptions) -> dict[str, str]:
    """The new version's custom labels: the given ones over the newest version's (helm merges
    over its ``lastRelease``, whatever its status)."""
    newest = rel.latest(history)
    return release_labels.merged(newest.labels if newest else {}, options.labels)


def _current(history: list[rel.ReleaseVersion], name: str) -> rel.ReleaseVersion:
    newest = rel.latest(history)
    if newest is None or newest.status is rel.Status.UNINSTALLED:
        raise ReleaseNotFoundError(f'"{name}" has no deployed releases')
    return rel.last_deployed(history) or newest


def _upgrade(cfg: config.Configuration, chart: model.Chart, user_values: Mapping[str, Any],
             options: UpgradeOptions, history: list[rel.ReleaseVersion]) -> rel.ReleaseVersion:
    current = _current(history, options.name)
    rendered_chart = effective_chart(current, chart, options)
    values = effective_values(current, user_values, options)
    with install.rendering(cfg, rendered_chart, values, name=options.name,
                           namespace=options.namespace, action="upgrade", revision=rel.next_revision(history),
                           choices=options) as rendered:
        record = install.new_record(rendered, driver=cfg.driver, name=options.name, namespace=options.namespace,
                                    status=rel.Status.PENDING_UPGRADE, user_values=values,
                                    chart_source=options.chart_source,
                                    after=rel.latest(history),
                                    first_deployed=current.first_deployed,
                                    description="Preparing upgrade", labels=_labels(history, options))
        cfg.driver.check(record)  # too big, labels refused: before anything is applied
        crd_policy.apply(cfg, rendered.crds,
                         policy=crd_policy.check_policy(options.crds, default=crd_policy.UPGRADE_DEFAULT),
                         timeout_s=options.timeout_s)
        new = config.resolve_all(cfg, [m.obj for m in rendered.manifests if m.obj], options.namespace)
        old = config.resolve_stored(cfg, config.parse_manifest(current.manifest), options.namespace)
        # before the version is stored, as helm: a refused takeover leaves no failed version
        existing = rollback.taken_over(cfg, old=old, new=new, namespace=options.namespace,
                                       name=options.name, adopt=options.take_ownership)
        cfg.driver.create(record)
        runs = hooks.RunLog(cfg, record)
        try:
            rollback.switch(cfg, old=old, new=new, stored_hooks=rendered.hooks, action="upgrade",
                            namespace=options.namespace, name=options.name,
                            wait=options.wait or options.atomic, wait_for_jobs=options.wait_for_jobs,
                            timeout_s=options.timeout_s, no_hooks=options.no_hooks, fire=rendered.fire,
                            adopt=options.take_ownership, force=options.force,
                            cleanup_on_fail=options.cleanup_on_fail, observe=runs.observe,
                            existing=existing)
        except HelmError as exc:
            exc.failed_version, exc.failed_action = str(record.version), "upgrade"
            cfg.driver.update(runs.onto(record.with_status(rel.Status.FAILED,
                                                           f'Upgrade "{options.name}" failed: {exc}')))
            if options.atomic:
                target = _atomic_target(history)
                if target is None:
                    lost = HelmError(NO_ROLLBACK_TARGET.format(error=exc))
                    lost.failed_version, lost.failed_action = exc.failed_version, exc.failed_action
                    raise lost from exc
                cfg.log(f"upgrade of {options.name} failed: rolling back to {target.version}")
                undo_cfg, wait = config.for_undo(cfg, exc)
                rollback.roll_back(undo_cfg, options.name, options.namespace, target.version,
                                   rollback.RollbackOptions(wait=wait, wait_for_jobs=options.wait_for_jobs,
                                                            timeout_s=options.timeout_s,
                                                            no_hooks=options.no_hooks, lua=options.lua,
                                                            force=options.force,
                                                            cleanup_on_fail=options.cleanup_on_fail))
                raise UndoneError(ATOMIC_UPGRADE.format(name=options.name, error=exc),
                                  cause=exc, undo="rollback") from exc
            raise
    # under the lock, what is stored is what the lock's read found and this upgrade wrote
    stored = rollback.supersede(cfg, [*history, record], record.version, also=current.version)
    deployed = runs.onto(record.with_status(rel.Status.DEPLOYED, options.description or "Upgrade complete"))
    cfg.driver.update(deployed)
    drv.prune_history(cfg.driver, options.namespace, options.name, options.max_history,
                      history=[deployed if v.version == deployed.version else v for v in stored])
    return deployed
