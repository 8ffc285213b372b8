"""The ``rollback`` action: re-apply an earlier version as a new version (roll forward).

Steps (Helm's ``Rollback.Run``: prepare, record, perform, update): lock → pick the target (a
ULID, or the version before the newest) → record a ``pending-rollback`` version carrying the
target's chart, values, manifest, hooks and notes (the target's chart Lua answers
``pre-rollback`` first and may change those objects: :mod:`helm_core.action.version_events`) →
``pre-rollback`` hooks → apply the target's objects, delete what the newest version has and the
target lacks (keep policy respected) → wait (``--wait``) → ``post-rollback`` hooks → previous
``deployed`` versions ``superseded``, the new one ``deployed``. A failure leaves the versions as
helm's ``performRollback`` leaves them: a failed hook (``pre-`` or ``post-rollback``), or a
failure before anything is applied, leaves the new version ``pending-rollback``, as its last
hook run stored it (helm returns without writing it again; helm-core's next operation on the
release marks it failed, ``driver.recover``); objects that
could not be applied mark the newest version before ``superseded`` and the new one ``failed``
("Rollback ... failed: ...", and ``--cleanup-on-fail`` deletes what was created); a wait that
fails marks the new one ``failed`` ("Release ... failed: ...").

``switch`` is the shared "move the cluster from one manifest to another" step; upgrade uses it.
"""
from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

import ulid

from helm_core.action import config, hooks, version_events
from helm_core.action import template as template_action
from helm_core.engine import manifests as mf
from helm_core.errors import HelmError, ReleaseNotFoundError
from helm_core.kube import client as kclient
from helm_core.kube import resources
from helm_core.kube import wait as kwait
from helm_core.storage import driver as drv
from helm_core.storage import release as rel
from helm_core.support.records import field, record


@record(frozen=True)
class RollbackOptions:
    """What ``helm-core rollback`` can be asked."""

    wait: bool = False
    wait_for_jobs: bool = False
    """While waiting, Jobs count only once complete (``--wait-for-jobs``)."""
    timeout_s: float = kwait.DEFAULT_TIMEOUT_S
    no_hooks: bool = False
    dry_run: bool = False
    force: bool = False
    """Objects that exist are replaced (a PUT of the target's object) instead of applied, so
    fields other managers set are gone (``--force``; ``kube.resources.replace``)."""
    cleanup_on_fail: bool = False
    """A failed rollback deletes the objects it created (``--cleanup-on-fail``)."""
    lua: template_action.LuaOptions = field(default_factory=template_action.LuaOptions)
    """How the target version's chart Lua may run (its ``pre-rollback``... handlers)."""


def _noop(_event: str) -> None:
    return None


PRE_HOOKS, APPLY, WAIT, POST_HOOKS = "pre-hooks", "apply", "wait", "post-hooks"
"""The steps of :func:`switch`, in order."""


@record
class Progress:
    """The step of :func:`switch` running, or the one that failed once it raised."""

    step: str = ""


def switch(cfg: config.Configuration, *, old: Sequence[Mapping[str, Any]],
           new: Sequence[Mapping[str, Any]], stored_hooks: Sequence[mf.Hook], action: str,
           namespace: str, name: str, wait: bool, wait_for_jobs: bool, timeout_s: float, no_hooks: bool,
           fire: Callable[[str], None] = _noop, adopt: bool = False, force: bool = False,
           cleanup_on_fail: bool = False, observe: hooks.Observer = hooks._unobserved,
           progress: Progress | None = None,
           existing: Collection[kclient.ObjectRef] | None = None) -> resources.Deletion:
    """Move the cluster from resolved ``old`` objects to resolved ``new`` ones for ``action``
    (``upgrade`` or ``rollback``): ownership check of objects new to the release, ``pre``-
    hooks, apply in kind order, delete the stale ones, wait (Jobs until complete with
    ``wait_for_jobs``), ``post-`` hooks (each hook's phases to ``observe``: a ``hooks.RunLog``;
    the step running to ``progress``). With ``cleanup_on_fail`` a failure deletes the objects
    this switch created (helm's ``--cleanup-on-fail``) before it is raised: any failure of an
    upgrade, only a failed apply of a rollback (helm's rollback cleans up after its ``Update``
    alone). With ``force`` (helm's ``--force``) objects that exist are replaced rather than applied.
    ``existing``: what :func:`taken_over` found already, when it was called before."""
    owner = config.owner(cfg, namespace=namespace, name=name)
    if existing is None:
        existing = taken_over(cfg, old=old, new=new, namespace=namespace, name=name, adopt=adopt)
    old_keys = {_key(o) for o in old}
    created = [o for o in new if _key(o) not in old_keys and kclient.ObjectRef.of(o) not in existing]
    progress = Progress() if progress is None else progress
    try:
        return _switch(cfg, old=old, new=new, stored_hooks=stored_hooks, action=action, owner=owner,
                       wait=wait, wait_for_jobs=wait_for_jobs, timeout_s=timeout_s, no_hooks=no_hooks,
                       fire=fire, force=force, observe=observe, progress=progress)
    except HelmError as exc:
        if cleanup_on_fail and created and (action != "rollback" or progress.step == APPLY):
            _clean_up(cfg, created, action, exc)
        raise


def _clean_up(cfg: config.Configuration, created: Sequence[Mapping[str, Any]], action: str,
              failure: HelmError) -> None:
    """helm's clean-up of a failed upgrade or rollback: what it created is deleted."""
    cfg.log(f"Cleanup on fail set, cleaning up {len(created)} resources")
    try:
        config.delete_batched(cfg, config.by_kind(created, mf.UNINSTALL_ORDER))
    except HelmError as exc:
        raise HelmError(f"an error occurred while cleaning up resources. original {action} error: {failure}: "
                        f"unable to cleanup resources: {exc}") from exc
    cfg.log("Resource cleanup complete")


def _switch(cfg: config.Configuration, *, old: Sequence[Mapping[str, Any]], new: Sequence[Mapping[str, Any]],
            stored_hooks: Sequence[mf.Hook], action: str, owner: resources.Owner, wait: bool,
            wait_for_jobs: bool, timeout_s: float, no_hooks: bool, fire: Callable[[str], None], force: bool,
            observe: hooks.Observer, progress: Progress) -> resources.Deletion:
    progress.step = PRE_HOOKS
    if not no_hooks:
        hooks.run(cfg, stored_hooks, f"pre-{action}", owner=owner, timeout_s=timeout_s, observe=observe)
    progress.step = APPLY
    applied = config.apply_batched(cfg, new, owner, replace=force)
    doomed = set(resources.stale(old, new))
    leaving = [o for o in config.by_kind(old, mf.UNINSTALL_ORDER)
               if kclient.ObjectRef.of(o) in doomed and o.get("kind") != "CustomResourceDefinition"]
    deletion = config.delete_batched(cfg, leaving)
    fire(f"post-{action}")
    if wait:
        progress.step = WAIT
        fire("wait")
        kwait.wait_ready(cfg.client, kclient.refs(new), seen=applied,
                         options=config.wait_options(cfg, timeout_s, wait_for_jobs=wait_for_jobs))
        fire("ready")
    progress.step = POST_HOOKS
    if not no_hooks:
        hooks.run(cfg, stored_hooks, f"post-{action}", owner=owner, timeout_s=timeout_s, observe=observe)
    return deletion


def taken_over(cfg: config.Configuration, *, old: Sequence[Mapping[str, Any]],
               new: Sequence[Mapping[str, Any]], namespace: str, name: str,
               adopt: bool) -> set[kclient.ObjectRef]:
    """The objects new to the release that exist already; helm's ownership check (``Unable to
    continue with update``, a ``ConflictError`` naming the first one owned elsewhere)."""
    old_keys = {_key(o) for o in old}
    return set(config.check_adoption(cfg, [o for o in new if _key(o) not in old_keys],
                                     resources.Owner(name=name, namespace=namespace),
                                     adopt=adopt, operation="update"))


def _key(obj: Mapping[str, Any]) -> tuple[str, str, str, str]:
    ref = kclient.ObjectRef.of(obj)
    return ref.group, ref.kind, ref.namespace, ref.name


def supersede(cfg: config.Configuration, history: Sequence[rel.ReleaseVersion],
              keep: ulid.ULID, *, also: ulid.ULID | None = None) -> list[rel.ReleaseVersion]:
    """Mark every ``deployed`` version but ``keep`` as ``superseded``, and version ``also``
    whatever its status (an upgrade's current version: helm supersedes it, a failed one too);
    returns ``history`` as it is stored then."""
    now = []
    for version in history:
        if version.version != keep and version.status is not rel.Status.SUPERSEDED and (
                version.status is rel.Status.DEPLOYED or version.version == also):
            version = version.with_status(rel.Status.SUPERSEDED)
            cfg.driver.update(version)
        now.append(version)
    return now


def target_of(history: Sequence[rel.ReleaseVersion], name: str,
              version: ulid.ULID | None) -> rel.ReleaseVersion:
    """The version to roll back to: ``version``, or the one before the newest."""
    if not history:
        raise ReleaseNotFoundError("release: not found")
    if version is None:
        if len(history) < 2:
            raise ReleaseNotFoundError(f'release "{name}" has no previous version to roll back to')
        return history[-2]
    for stored in history:
        if stored.version == version:
            return stored
    raise ReleaseNotFoundError(f'release "{name}" has no version {version}')


def _record_failure(cfg: config.Configuration, step: str, newest: rel.ReleaseVersion,
                    record: rel.ReleaseVersion, exc: HelmError) -> None:
    """What a failed rollback stores (module rules): nothing more after a hook failed."""
    if step == APPLY:
        cfg.driver.update(newest.with_status(rel.Status.SUPERSEDED))  # whatever it was, as helm
        cfg.driver.update(record.with_status(rel.Status.FAILED, f'Rollback "{record.name}" failed: {exc}'))
    elif step == WAIT:
        cfg.driver.update(record.with_status(rel.Status.FAILED, f'Release "{record.name}" failed: {exc}'))


def run(cfg: config.Configuration, name: str, namespace: str, version: ulid.ULID | None = None,
        options: RollbackOptions = RollbackOptions()) -> rel.ReleaseVersion:
    """Roll release ``name`` back to ``version`` (or the previous one) as a new version."""
    if options.dry_run:
        target = target_of(cfg.driver.history(namespace, name), name, version)
        return target.with_status(rel.Status.PENDING_ROLLBACK, f"Rollback to {rel.version_text(target.version)}")
    with config.locked(cfg, namespace=namespace, name=name, operation="rollback"):
        return roll_back(cfg, name, namespace, version, options)


def roll_back(cfg: config.Configuration, name: str, namespace: str, version: ulid.ULID | None,
              options: RollbackOptions) -> rel.ReleaseVersion:
    """The rollback itself, for callers already holding the lock (``upgrade --atomic``)."""
    history = cfg.driver.history(namespace, name)
    target = target_of(history, name, version)
    newest = history[-1]
    revision = rel.next_revision(history)
    with version_events.of_version(cfg, target, action="rollback", revision=revision,
                                   text=target.manifest, lua_options=options.lua) as lua_events:
        lua_events.fire("pre-rollback")
        now = rel.now()
        # first deployed: the newest version's, as helm's (not the target's: an install over an
        # uninstalled release started the release's time again)
        record = target.replace(version=drv.next_version(cfg.driver, newest.version),
                                revision=revision, first_deployed=newest.first_deployed,
                                status=rel.Status.PENDING_ROLLBACK, last_deployed=now, deleted=None,
                                manifest=lua_events.text,
                                description=f"Rollback to {rel.version_text(target.version)}")
        cfg.driver.check(record)  # labels refused: before anything is applied (its write may be deferred)
        cfg.driver.create(record)
        runs = hooks.RunLog(cfg, record)  # over the runs the target's hooks carry, as helm's copy of them
        progress = Progress()
        try:
            switch(cfg, old=config.resolve_stored(cfg, config.parse_manifest(newest.manifest), namespace),
                   new=config.resolve_all(cfg, config.parse_manifest(record.manifest), namespace),
                   stored_hooks=hooks.parse(target.hooks), action="rollback", namespace=namespace,
                   name=name, wait=options.wait, wait_for_jobs=options.wait_for_jobs,
                   timeout_s=options.timeout_s, fire=lua_events.fire,
                   no_hooks=options.no_hooks, force=options.force,
                   cleanup_on_fail=options.cleanup_on_fail, observe=runs.observe, progress=progress)
        except HelmError as exc:
            _record_failure(cfg, progress.step, newest, runs.onto(record), exc)
            raise
    supersede(cfg, history, record.version)
    deployed = runs.onto(record.with_status(rel.Status.DEPLOYED))
    cfg.driver.update(deployed)
    return deployed
