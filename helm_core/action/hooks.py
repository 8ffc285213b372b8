"""Helm hooks: resources annotated ``helm.sh/hook`` run around an operation's main step.

Why here: install, upgrade, rollback, uninstall and test all run hooks the same way (Helm's
``pkg/action/hooks.go``), so the rules live in one place.

Rules:
- A hook runs for each event named in ``helm.sh/hook`` (pre/post install, upgrade, delete,
  rollback, and test). Hooks of one event run in ``helm.sh/hook-weight`` order (lower first),
  equal weights by name (Helm's ``hookByWeight``), each finished before the next starts.
- ``helm.sh/hook-delete-policy``: ``before-hook-creation`` (the default when none is given)
  deletes a previous copy of the hook and waits until it is gone before creating it anew;
  ``hook-succeeded`` deletes it once every hook of the event succeeded (or, when one fails, the
  ones that succeeded before it), newest first; ``hook-failed`` deletes the hook that failed.
  CRD hooks are never deleted.
- Jobs and Pods are waited for (complete / succeeded, or deleted meanwhile as a Job with
  ``ttlSecondsAfterFinished: 0`` is; a running Pod is not done, Ready or not, as in helm);
  other kinds are done once applied.
  A failed Job or Pod, or one not done within the timeout, fails the operation with
  ``HookError`` in helm's words: its ``WatchUntilReady`` error, a go-multierror list of one
  (``1 error occurred:\n\t* job NAME failed: <the Job's Failed reason>\n\n``, ``pod NAME
  failed``, or client-go's ``timed out waiting for the condition``), wrapped as the action
  wraps it (``failed pre-install: ...``, ``pre-upgrade hooks failed: ...``; rollback,
  uninstall and test say it bare). A hook the API server refuses to create fails it the same
  way, in helm's ``execHook`` words: ``warning: Hook EVENT PATH failed:`` and the list of the
  server's answer.
- Hooks are managed objects: they carry the release's ownership metadata and, in the release's
  namespace, an owner reference to its ``Release`` (garbage-collected with it) when the storage
  keeps one (helm-core's; under helm's there is none, as in helm). They are not
  part of the manifest: upgrades never prune them.
- Stored hooks (a version's ``hooks`` text) are ``---\\n# Source: <path>\\n<doc>`` documents,
  as ``helm get hooks`` prints them; ``parse`` reads them back. Each hook's last run goes with
  the version its action stores (:class:`RunLog`), as helm keeps it: stored ``Running`` when the
  hook starts (so ``status`` shows it while it runs), its phase and end with the next write.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from helm_core.action import config
from helm_core.engine import manifests as mf
from helm_core.errors import ClusterError, HelmError, NotFoundError, WaitError
from helm_core.errors import HookError as HookError  # raised here; callers catch it as hooks.HookError
from helm_core.kube import client as kclient
from helm_core.kube import readiness as kready
from helm_core.kube import resources
from helm_core.kube import wait as kwait
from helm_core.storage import release as rel

BEFORE_HOOK_CREATION = mf.BEFORE_HOOK_CREATION
HOOK_SUCCEEDED = "hook-succeeded"
HOOK_FAILED = "hook-failed"
DEFAULT_DELETE_POLICIES = (BEFORE_HOOK_CREATION,)
WAITED_KINDS = frozenset({"Job", "Pod"})
CRD_KIND = "CustomResourceDefinition"


#: client-go's words for a watch whose time ran out (``wait.ErrorInterrupted``), as helm's
#: ``WatchUntilReady`` returns them.
TIMED_OUT = "timed out waiting for the condition"

#: How helm's actions wrap ``execHook``'s error, by event (install.go, upgrade.go); the other
#: events' errors are returned as they are.
_ACTION_WORDS = {"pre-install": "failed pre-install: {}", "post-install": "failed post-install: {}",
                 "pre-upgrade": "pre-upgrade hooks failed: {}", "post-upgrade": "post-upgrade hooks failed: {}"}


def _one_error(text: str) -> str:
    """go-multierror's list of one error: helm's ``WatchUntilReady`` collects each object's."""
    return f"1 error occurred:\n\t* {text}\n\n"


def refused_words(event: str, hook: mf.Hook, answer: str) -> str:
    """helm's ``execHook`` words for a hook the API server refused to create: its ``Create``
    error (go-multierror's list of the server's answer) after the event and the hook's path."""
    return f"warning: Hook {event} {hook.manifest.source} failed: {_one_error(answer)}"


def _failed_words(obj: Mapping[str, Any]) -> str:
    """helm's ``waitForJob`` / ``waitForPodSuccess`` words for a failed hook: a Job's first
    finished condition (Complete or Failed, True) gives the reason."""
    name = (obj.get("metadata") or {}).get("name", "")
    if obj.get("kind") != "Job":
        return f"pod {name} failed"
    for condition in (obj.get("status") or {}).get("conditions") or ():
        if condition.get("type") in ("Complete", "Failed") and condition.get("status") == "True":
            return f"job {name} failed: {condition.get('reason', '')}"
    return f"job {name} failed: "


def format_hooks(hooks: Iterable[mf.Hook]) -> str:
    """The stored form of hooks (``helm get hooks``)."""
    return mf.format_documents(h.manifest for h in hooks)


def parse(text: str) -> list[mf.Hook]:
    """Hooks stored by ``format_hooks``, in stored order."""
    return mf.parse_stored_hooks(text)


def for_event(hooks: Sequence[mf.Hook], event: str) -> list[mf.Hook]:
    """The hooks of one event in the order they run (weight, then name)."""
    return sorted((h for h in hooks if event in h.events), key=lambda h: (h.weight, h.name))


def _policies(hook: mf.Hook) -> tuple[str, ...]:
    return tuple(hook.delete_policies) or DEFAULT_DELETE_POLICIES


#: ``observe(ref, phase, message)``: a hook's phase as it runs (``Running``, ``Succeeded``,
#: ``Failed``), for callers that report per-hook results (``helm test``).
Observer = Callable[[kclient.ObjectRef, str, str], None]


def _unobserved(_ref: kclient.ObjectRef, _phase: str, _message: str) -> None:
    return None


class RunLog:
    """Each hook's last run as :func:`run` reports it (an :data:`Observer`), for ``version``, the
    version the hooks run for: helm records every hook it runs in its release (the hook's
    ``last_run``). A hook about to be created is stored ``Running`` at once, with the phases and
    ends of the hooks before it (helm's ``recordRelease`` in ``execHook``: one write per hook, a
    failed one only logged); its own end goes with the action's next write of ``version``."""

    def __init__(self, cfg: config.Configuration, version: rel.ReleaseVersion) -> None:
        self._cfg, self._version = cfg, version
        self.runs: dict[tuple[str, str], rel.HookRun] = {}

    def observe(self, ref: kclient.ObjectRef, phase: str, _message: str) -> None:
        now = rel.now()
        before = self.runs.get((ref.kind, ref.name))
        running = phase == rel.HookPhase.RUNNING.value
        self.runs[(ref.kind, ref.name)] = (
            rel.HookRun(kind=ref.kind, name=ref.name, phase=rel.HookPhase.RUNNING, started=now)
            if running else
            rel.HookRun(kind=ref.kind, name=ref.name, phase=rel.HookPhase(phase),
                        started=before.started if before else now, completed=now))
        if running:
            try:
                self._cfg.driver.update(self.onto(self._version))
            except HelmError as exc:  # helm logs a failed record and runs the hook
                self._cfg.log(f"warning: Failed to update release {self._version.name}: {exc}")

    def onto(self, version: rel.ReleaseVersion) -> rel.ReleaseVersion:
        """``version`` with the runs logged so far as its hooks' last runs."""
        for found in self.runs.values():
            version = version.with_hook_run(found)
        return version


def run(cfg: config.Configuration, hooks: Sequence[mf.Hook], event: str, *,
        owner: resources.Owner, timeout_s: float,
        observe: Observer = _unobserved) -> list[kclient.ObjectRef]:
    """Run the hooks of ``event`` one by one; returns the hooks applied (``HookError`` stops)."""
    done: list[tuple[mf.Hook, kclient.ObjectRef]] = []
    for hook in for_event(hooks, event):
        obj = resources.resolve(cfg.client, hook.manifest.obj, owner.namespace)
        ref = kclient.ObjectRef.of(obj)
        if BEFORE_HOOK_CREATION in _policies(hook):
            _delete(cfg, hook, ref, timeout_s=timeout_s)
        cfg.log(f"running {event} hook {ref}")
        observe(ref, "Running", "")
        try:
            cfg.client.apply(resources.mark(obj, owner), force=True)
        except ClusterError as exc:  # helm's hook Create failing: the hook's run failed
            observe(ref, "Failed", str(exc))
            raise HookError(_ACTION_WORDS.get(event, "{}").format(refused_words(event, hook, exc.answer)),
                            event=event, refusal=exc) from exc
        except HelmError as exc:
            observe(ref, "Failed", str(exc))
            raise
        if hook.kind in WAITED_KINDS:
            try:
                wait_done(cfg, ref, options=config.wait_options(cfg, timeout_s))
            except WaitError as exc:
                observe(ref, "Failed", str(exc))
                if HOOK_FAILED in _policies(hook):
                    _delete(cfg, hook, ref, timeout_s=timeout_s, wait=False)
                _delete_succeeded(cfg, done, timeout_s=timeout_s)
                words = _ACTION_WORDS.get(event, "{}").format(_one_error(str(exc)))
                raise HookError(words, event=event) from exc
        observe(ref, "Succeeded", "")
        done.append((hook, ref))
    _delete_succeeded(cfg, done, timeout_s=timeout_s)
    return [ref for _, ref in done]


def wait_done(cfg: config.Configuration, ref: kclient.ObjectRef, *,
              options: kwait.WaitOptions) -> None:
    """Wait until a hook Job or Pod completed; one deleted meanwhile (a Job's
    ``ttlSecondsAfterFinished: 0``) counts as done, as Helm's watch does. A failure or the
    timeout raises ``WaitError`` in helm's words (``job NAME failed: REASON``, :data:`TIMED_OUT`)."""
    deadline = options.clock() + options.timeout_s
    while True:
        try:
            obj = cfg.client.get(ref)
        except NotFoundError:
            return
        state = kready.completion(obj)  # finished, not merely ready
        if state.ready:
            return
        if state.state is kready.State.FAILED:
            raise WaitError(_failed_words(obj), timed_out=False)
        kwait.stop_if_cancelled(options, str(ref))
        if options.clock() >= deadline:
            raise WaitError(TIMED_OUT, timed_out=True)
        options.sleep(options.poll_s)


def _delete_succeeded(cfg: config.Configuration, done: Sequence[tuple[mf.Hook, kclient.ObjectRef]],
                      *, timeout_s: float) -> None:
    """``hook-succeeded``: once every hook of the event succeeded (or one failed), newest first."""
    for hook, ref in reversed(done):
        if HOOK_SUCCEEDED in _policies(hook):
            _delete(cfg, hook, ref, timeout_s=timeout_s, wait=False)


def _delete(cfg: config.Configuration, hook: mf.Hook, ref: kclient.ObjectRef, *,
            timeout_s: float, wait: bool = True) -> None:
    """Delete a hook object (its Pods with it; never a CRD) and, when asked, wait until gone."""
    if hook.kind == CRD_KIND:
        return
    if cfg.client.delete(ref, propagation=kclient.Propagation.BACKGROUND) and wait:
        kwait.wait_deleted(cfg.client, [ref], options=config.wait_options(cfg, timeout_s))


def delete_all(cfg: config.Configuration, hooks: Sequence[mf.Hook], namespace: str) -> None:
    """Remove every hook object of a release (atomic clean-up, uninstall)."""
    for hook in hooks:
        ref = kclient.ObjectRef.of(resources.resolve(cfg.client, hook.manifest.obj, namespace))
        cfg.client.delete(ref, propagation=kclient.Propagation.BACKGROUND)
