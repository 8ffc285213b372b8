"""The ``uninstall`` action: remove a release's objects, then its history (or mark it).

Steps (Helm's ``Uninstall.Run``): lock → the version's chart Lua answers ``pre-delete``
(:mod:`helm_core.action.version_events`) → newest version marked ``uninstalling`` (its
deletion time set then, and kept) →
``pre-delete`` hooks → the manifest's objects deleted in reverse kind order → wait until gone
(``--wait``) → Lua ``post-delete`` → ``post-delete`` hooks → history deleted (the ``Release`` with its last version),
or with ``keep_history`` the version marked ``uninstalled`` and any older one still ``deployed``
(the newest had failed) marked ``superseded``, as helm does. A wait that fails (``context deadline
exceeded``) or a failed ``post-delete`` hook does not stop it: helm finishes, then says
``uninstallation completed with N error(s): ...``.

Rules:
- ``no_hooks`` skips the chart's Lua as well as its hooks (the way past a failing handler).
- CustomResourceDefinitions are never deleted (neither from ``crds/`` nor templated ones).
- Objects annotated ``helm.sh/resource-policy: keep`` stay; they are re-applied without the
  owner reference to the ``Release`` first, so garbage collection does not take them either.
- A release whose newest version is already ``uninstalled`` is refused with ``keep_history``
  ("... is already deleted"); without it, its history is purged.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from helm_core.action import config, hooks, rollback, version_events
from helm_core.action import template as template_action
from helm_core.engine import manifests as mf
from helm_core.errors import HelmError, ReleaseNotFoundError, StorageError, WaitCancelled, WaitError
from helm_core.kube import client as kclient
from helm_core.kube import resources
from helm_core.kube import wait as kwait
from helm_core.storage import release as rel
from helm_core.support.records import field, record

CRD_KIND = "CustomResourceDefinition"
#: Go's ``context.DeadlineExceeded``: helm's words for a deletion wait past ``--timeout``.
DEADLINE_EXCEEDED = "context deadline exceeded"


@record(frozen=True)
class UninstallOptions:
    """What ``helm-core uninstall`` can be asked."""

    keep_history: bool = False
    wait: bool = False
    timeout_s: float = kwait.DEFAULT_TIMEOUT_S
    no_hooks: bool = False
    dry_run: bool = False
    ignore_not_found: bool = False
    description: str = ""
    lua: template_action.LuaOptions = field(default_factory=template_action.LuaOptions)
    """How the version's chart Lua may run (its ``pre-delete``/``post-delete`` handlers)."""
    cascade: kclient.Propagation = kclient.Propagation.BACKGROUND
    """What deleting an object does to its dependents (helm's ``--cascade``, Flux's
    ``uninstall.deletionPropagation``)."""


@record(frozen=True)
class UninstallResult:
    """What was removed; ``kept`` lists objects the keep policy left in place."""

    release: rel.ReleaseVersion | None
    kept: tuple[kclient.ObjectRef, ...] = ()
    deleted: tuple[kclient.ObjectRef, ...] = field(default=())

    @property
    def info(self) -> str:
        """Helm's closing line(s)."""
        if self.release is None:
            return ""
        lines = []
        if self.kept:
            lines.append("These resources were kept due to the resource policy:")
            lines += [f"[{ref.kind}] {ref.name}" for ref in self.kept]
            lines.append("")
        lines.append(f'release "{self.release.name}" uninstalled')
        return "\n".join(lines)


#: helm's ``--cascade`` words (Flux's ``deletionPropagation``), Kubernetes' policies in lower case.
CASCADES = ("background", "orphan", "foreground")


def cascade(word: str) -> kclient.Propagation:
    """The propagation policy a ``--cascade`` word names (see :data:`CASCADES`)."""
    if word not in CASCADES:
        raise HelmError(f'invalid cascade value ({word}). Must be "background", "foreground", or "orphan"')
    return kclient.Propagation(word.capitalize())


def not_found(name: str) -> ReleaseNotFoundError:
    return ReleaseNotFoundError(f"uninstall: Release not loaded: {name}: release: not found")


def remove_objects(cfg: config.Configuration, objects: Sequence[Mapping[str, Any]], *,
                   owner: resources.Owner, wait: bool, timeout_s: float,
                   cascade: kclient.Propagation = kclient.Propagation.BACKGROUND) -> resources.Deletion:
    """Delete resolved ``objects`` in reverse kind order (CRDs never), honouring the keep
    policy (kept objects lose their owner reference); wait until gone when asked."""
    doomed = [o for o in config.by_kind(objects, mf.UNINSTALL_ORDER) if o.get("kind") != CRD_KIND]
    deletion = config.delete_batched(cfg, doomed, propagation=cascade)
    kept = set(deletion.kept)
    for obj in doomed:
        if kclient.ObjectRef.of(obj) in kept:
            cfg.client.apply(resources.mark(obj, resources.Owner(owner.name, owner.namespace)),
                             force=True)
    if wait and deletion.deleted:
        kwait.wait_deleted(cfg.client, deletion.deleted,
                           options=config.wait_options(cfg, timeout_s))
    return deletion


def run(cfg: config.Configuration, name: str, namespace: str,
        options: UninstallOptions = UninstallOptions()) -> UninstallResult:
    """Uninstall release ``name``; see the module rules."""
    if options.dry_run:
        history = cfg.driver.history(namespace, name)
        if not history:
            raise not_found(name)
        return UninstallResult(release=history[-1])
    with config.locked(cfg, namespace=namespace, name=name, operation="uninstall"):
        return _uninstall(cfg, name, namespace, options)


def _uninstall(cfg: config.Configuration, name: str, namespace: str,
               options: UninstallOptions) -> UninstallResult:
    history = cfg.driver.history(namespace, name)
    if not history:
        if options.ignore_not_found:
            return UninstallResult(release=None)
        raise not_found(name)
    newest = history[-1]
    if newest.status is rel.Status.UNINSTALLED:
        if options.keep_history:
            raise StorageError(f'"{name}" is already deleted')
        _purge(cfg, history)
        return UninstallResult(release=newest)
    # --no-hooks leaves the chart's Lua out too: the way past a failing handler, as past a failing hook
    with version_events.of_version(cfg, newest, action="uninstall", lua_options=options.lua,
                                   revision=version_events.revision_of(history, newest),
                                   text=newest.manifest, enabled=not options.no_hooks) as lua_events:
        lua_events.fire("pre-delete")
        current = newest.with_status(rel.Status.UNINSTALLING, "Deletion in progress (or silently failed)"
                                     ).replace(deleted=rel.now())  # helm's deletion time: its start
        cfg.driver.update(current)
        owner = config.owner(cfg, namespace=namespace, name=name)
        stored_hooks = hooks.parse(newest.hooks)
        runs = hooks.RunLog(cfg, current)
        if not options.no_hooks:
            hooks.run(cfg, stored_hooks, "pre-delete", owner=owner, timeout_s=options.timeout_s,
                      observe=runs.observe)
        objects = config.resolve_stored(cfg, config.parse_manifest(newest.manifest), namespace)
        deletion = remove_objects(cfg, objects, owner=owner, wait=False,
                                  timeout_s=options.timeout_s, cascade=options.cascade)
        # helm finishes the uninstall past a wait or post-delete hook that failed, then reports them
        errs: list[HelmError] = []
        if options.wait and deletion.deleted:
            try:
                kwait.wait_deleted(cfg.client, deletion.deleted,
                                   options=config.wait_options(cfg, options.timeout_s))
            except WaitCancelled:
                raise
            except WaitError as exc:
                errs.append(exc)
        lua_events.fire("post-delete")
        if not options.no_hooks:
            try:
                hooks.run(cfg, stored_hooks, "post-delete", owner=owner, timeout_s=options.timeout_s,
                          observe=runs.observe)
            except hooks.HookError as exc:
                errs.append(exc)
    done = runs.onto(current.replace(status=rel.Status.UNINSTALLED,
                                     description=options.description or "Uninstallation complete"))
    if options.keep_history:
        cfg.driver.update(done)
        # an older version still deployed (the newest had failed) is superseded, as helm's #12556
        rollback.supersede(cfg, history, done.version)
    else:
        _purge(cfg, history)
    if errs:
        raise _completed_with(errs) from errs[-1]
    return UninstallResult(release=done, kept=deletion.kept, deleted=deletion.deleted)


def _completed_with(errs: Sequence[HelmError]) -> HelmError:
    """helm's error for an uninstall done despite ``errs``: each in its words, joined by "; ".
    A wait that timed out says what Go's context says (helm's ``WaitForDelete`` polls until
    its deadline)."""
    words = "; ".join(DEADLINE_EXCEEDED if isinstance(e, WaitError) and e.timed_out else str(e) for e in errs)
    text = f"uninstallation completed with {len(errs)} error(s): {words}"
    hook = next((e for e in errs if isinstance(e, hooks.HookError)), None)
    return hooks.HookError(text, event=hook.event) if hook is not None else WaitError(text, timed_out=True)


def _purge(cfg: config.Configuration, history: Sequence[rel.ReleaseVersion]) -> None:
    """Delete every stored version (the last one takes the ``Release`` with it)."""
    for version in history:
        cfg.driver.delete(version.namespace, version.name, version.version)
