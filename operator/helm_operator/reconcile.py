"""One HelmRequest brought to its desired state through helm_core actions.

The handlers call :func:`apply` (create, update, resume, interval) and :func:`delete` (finalizer);
both are synchronous (Kopf runs them in its worker threads) and return the new status.

Steps of :func:`apply`: suspend? → service account (policy) or requester (:mod:`requester`) →
values (valuesFrom + values, digest) → chart (source, verify) → claim the release (helm_core's
claim action) → rollbackTo, or nothing changed (helm_core's drift action), or upgrade with
install (helm_core decides install or upgrade and prunes history) as the service account or
requester → status. Every cluster access for the release goes through the impersonated client.

Rules:
- Nothing changes when the generation was handled and the values digest and chart digest
  equal what the last success recorded (an idle check costs a few reads, no writes).
- Nothing is tried either, as in Flux, while the failure counts say the action's retries are
  used up or its rollback remediation has no version to go to (:func:`hold`), until they start
  from zero: a new generation, chart or values (:func:`status.attempted`), Flux's resetAt; or
  a forceAt upgrade.
- One operation per release in this process (a lock per release key); helm_core's release
  lock guards against other processes.
- A release is claimed through helm_core's claim action (the owner annotation on its
  ``Release``, :mod:`helm_operator.identity`); a request finding another owner is refused
  (Stalled, reason ReleaseClaimed).
"""
from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Protocol

from helm_core import errors as core_errors
from helm_core import isolation
from helm_core import sources as core_sources
from helm_core.action import claim as claim_action
from helm_core.action import config as action_config
from helm_core.action import crds as crd_policy
from helm_core.action import install, rollback, template, uninstall, upgrade
from helm_core.action import test as test_action
from helm_core.chart import model, values_files
from helm_core.kube import client as kclient
from helm_core.lua import permissions as lua_permissions
from helm_core.storage import release as rel
from helm_core.support import limits as limits_mod
from helm_core.support.records import field, record, replace
from helm_operator import accounts as accounts_mod
from helm_operator import drift, errors, policy, remote, requester, sources, status
from helm_operator import repositories as repositories_mod
from helm_operator import settings as settings_mod

DEFAULT_TIMEOUT_S = 300.0
DEFAULT_MAX_HISTORY = 10
DEFAULT_INTERVAL_S = 600.0


def parse_duration(text: str | None, default: float) -> float:
    """Seconds of a Go duration as the CRD allows it (``1h30m``, ``90s``, ``500ms``)."""
    if not text:
        return default
    try:
        return limits_mod.parse_duration(text)
    except ValueError as exc:
        raise core_errors.ValuesError(str(exc)) from None


def render_limits(spec: Mapping[str, Any], *, ceiling: limits_mod.RenderLimits) -> limits_mod.RenderLimits:
    """``spec.renderLimits`` ({timeout, cpu, memory, output}) applied under ``ceiling``: a
    request may lower a limit, never raise it."""
    asked = spec.get("renderLimits") or {}
    try:
        return ceiling.lowered(
            timeout_s=parse_duration(asked.get("timeout"), ceiling.timeout_s),
            cpu_s=parse_duration(asked.get("cpu"), ceiling.cpu_s),
            memory_bytes=limits_mod.parse_bytes(str(asked["memory"])) if asked.get("memory") else None,
            output_bytes=limits_mod.parse_bytes(str(asked["output"])) if asked.get("output") else None)
    except (ValueError, core_errors.ValuesError) as exc:
        raise errors.RequestError(f"spec.renderLimits: {exc}", reason="InvalidRenderLimits") from None


class EventPoster(Protocol):
    """Posts a Kubernetes Event (``Normal`` or ``Warning``) about a HelmRequest."""

    def __call__(self, body: Mapping[str, Any], type_: str, *, reason: str, message: str) -> None: ...


@record
class Runtime:
    """What every reconcile shares: the controller's client, the chart cache, the settings."""

    settings: settings_mod.OperatorSettings
    admin: kclient.ClusterClient
    impersonate: Callable[[str, str], kclient.ClusterClient]
    """``impersonate(service_account, namespace)`` -> a client acting as that account."""
    cache: core_sources.Cache
    post_event: EventPoster
    """``post_event(body, type, reason=, message=)``: a Kubernetes Event on the request."""
    log: Callable[[str], None] = lambda _line: None
    superseded: Callable[[Mapping[str, Any]], str] = lambda _meta: ""
    """``superseded(metadata)``: why waits for this generation should stop ("" to go on)."""
    stopping: Callable[[], bool] = lambda: False
    """True once the controller is shutting down: failures are then not reported."""
    connect: remote.Connect | None = None
    """Clients of remote clusters (``spec.kubeConfig``) by kubeconfig content; None makes one
    per use."""
    repositories: repositories_mod.Store | None = None
    """The indexes the HelmRepository reconciler fetched (None: repositoryRef not served)."""
    render_pool: isolation.RenderPool | None = None
    """Worker processes that load, check and render charts; None renders in this process
    (tests of the reconcile logic only: a controller always isolates chart code)."""
    accounts: accounts_mod.Accounts = field(default_factory=accounts_mod.Accounts)
    """Service accounts known to exist (read at most once a minute)."""
    _locks: dict[policy.ReleaseKey, threading.Lock] = field(default_factory=dict)
    _guard: threading.Lock = field(default_factory=threading.Lock)

    def renderer_for(self, meta: Mapping[str, Any], spec: Mapping[str, Any]) -> action_config.Renderer:
        """Where this request's chart code runs: the pool, its namespace as the tenant, under
        the admin's limits lowered by ``spec.renderLimits``."""
        if self.render_pool is None:
            return action_config.local_renderer()
        return self.render_pool.renderer(tenant=meta["namespace"], limits=render_limits(
            spec, ceiling=self.render_pool.limits))

    def release_lock(self, key: policy.ReleaseKey) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(key, threading.Lock())


@record(frozen=True)
class Outcome:
    """What happened: ``action`` is install, upgrade, rollback, drift-correction,
    drift-correction-failed, none, suspended or held (nothing tried until something changes,
    :func:`hold`)."""

    action: str
    status: dict[str, Any]
    drift: tuple[str, ...] = ()
    """Drifted objects found (reported in warn mode, corrected in enabled mode)."""
    error: str = ""
    """Why the action failed without failing the request (a drift correction)."""


#: The action of an :class:`Outcome` whose drift correction failed (tried again, not a failure
#: of the release).
DRIFT_CORRECTION_FAILED = "drift-correction-failed"


def client_for(rt: Runtime, meta: Mapping[str, Any], spec: Mapping[str, Any],
               body: Mapping[str, Any] | None = None) -> kclient.ClusterClient:
    """The client acting as the request's requester (requester mode: the identity admission
    stamped on ``body``) or its service account (checked to exist)."""
    if requester.mode(rt.admin, meta["namespace"], rt.settings.security.act_as,
                      rt.log) == requester.REQUESTER:
        return rt.admin.impersonate(identity=requester.identity_for(rt.admin, body or {"metadata": meta}))
    account = policy.service_account(meta, spec, security=rt.settings.security)
    if not account:
        return rt.admin
    if not rt.accounts.exists(rt.admin, meta["namespace"], account):
        raise errors.RequestError(
            f"service account {meta['namespace']}/{account} not found", reason="ServiceAccountNotFound")
    return rt.impersonate(account, meta["namespace"])


def target_for(rt: Runtime, meta: Mapping[str, Any], spec: Mapping[str, Any],
               local: kclient.ClusterClient) -> kclient.ClusterClient:
    """Where the release lives: ``local`` or the cluster of ``spec.kubeConfig``."""
    return remote.target(local, meta, spec, security=rt.settings.security,
                         connect=rt.connect or remote.connector(field_manager=local.field_manager))


def reader(client: kclient.ClusterClient, namespace: str) -> sources.Reader:
    """A :data:`sources.Reader` reading ConfigMaps/Secrets of ``namespace`` through ``client``."""

    def read(kind: str, name: str) -> Mapping[str, Any] | None:
        try:
            return client.get(kclient.ObjectRef("v1", kind, name, namespace))
        except core_errors.NotFoundError:
            return None

    return read


def claim(cfg: action_config.Configuration, key: policy.ReleaseKey, requester: str, *,
          new: bool = False) -> None:
    """Make this request the release's owner, or refuse when another request owns it
    (``new``: no version recorded in status yet, so the release most likely does not exist;
    only under the release's lock, ``Configuration.on_locked``)."""
    claimed_by = claim_action.run(cfg, namespace=key.namespace, name=key.name,
                                  annotation=policy.OWNER_ANNOTATION, claimant=requester, new=new)
    policy.check_owner(key, claimed_by=claimed_by, requester=requester)


def configuration(rt: Runtime, client: kclient.ClusterClient, meta: Mapping[str, Any],
                  spec: Mapping[str, Any], *, cancellable: bool = True,
                  **options: Any) -> action_config.Configuration:
    """The actions' configuration for one request: its client, releases stored as ``spec.storage``
    says (``spec.adopt.helmSecrets`` when it adopts a release stock helm made)."""
    try:
        return action_config.on_cluster(
            client, storage=spec.get("storage") or "release",
            helm_secrets=(spec.get("adopt") or {}).get("helmSecrets") or "keep",
            log=rt.log, announce_after_s=rt.settings.runtime.announce_after_s, **options,
            **({"cancelled": functools.partial(rt.superseded, meta)} if cancellable else {}))
    except ValueError as exc:
        raise errors.RequestError(f"spec: {exc}", reason="InvalidSpec") from None


def planned_action(rt: Runtime, body: Mapping[str, Any]) -> str:
    """``install`` or ``upgrade``: what the request's next operation is (or the one that failed
    before storing anything), by helm_core's rule (:func:`helm_core.action.upgrade.plan`) over
    the stored history."""
    meta, spec = body["metadata"], body.get("spec") or {}
    key = policy.release_key(meta, spec)
    cfg = configuration(rt, target_for(rt, meta, spec, client_for(rt, meta, spec, body)), meta, spec)
    return upgrade.plan(cfg.driver.history(key.namespace, key.name), reinstall_failed=True)


def apply(rt: Runtime, body: Mapping[str, Any], *, force: bool = False) -> Outcome:
    """Reconcile one request; raises helm_core or :class:`errors.RequestError` on failure.
    ``force``: upgrade even when nothing changed or the retries are used up (Flux's
    ``reconcile.fluxcd.io/forceAt``). Once the chart and values are known, the attempt is
    recorded in ``body["status"]`` in place (the caller's working copy: a failure is reported
    from it), the failure counts reset when they changed (:func:`status.attempted`)."""
    meta, spec = body["metadata"], body.get("spec") or {}
    old = body.get("status") or {}
    generation = int(meta.get("generation") or 1)
    now = status.now_rfc3339()
    if spec.get("suspend"):
        return Outcome("suspended", status.suspended(old, generation=generation, now=now))
    key = policy.release_key(meta, spec)
    client = client_for(rt, meta, spec, body)
    read = reader(client, meta["namespace"])
    values = sources.resolve_values(spec, read=read)
    shared = None if rt.repositories is None else repositories_mod.resolver(
        rt.repositories, namespace=meta["namespace"], security=rt.settings.security)
    ref, credentials = sources.chart_ref(spec, namespace=meta["namespace"], read=read, shared=shared)
    with _naming(ref.description or ref.url):  # a packaged chart is loaded here first
        chart_info = core_sources.resolve(ref, credentials, rt.cache)
    old.update(status.attempted(old, revision=chart_info.version, config_digest=values.digest,
                                chart_digest=chart_info.digest))
    renderer = rt.renderer_for(meta, spec)
    client = target_for(rt, meta, spec, client)
    cfg = configuration(rt, client, meta, spec, renderer=renderer)
    rollback_to = spec.get("rollbackTo") or ""
    with rt.release_lock(key):
        if old.get("version") or rollback_to:
            claim(cfg, key, policy.owner_id(meta))
        else:  # a first install claims under the release's lock: its history needs no read then
            claiming, owner = cfg, policy.owner_id(meta)
            cfg = replace(cfg, on_locked=lambda _namespace, _name: claim(claiming, key, owner, new=True))
        # without a version in status nothing can be unchanged: the history is read once,
        # under the release's lock (a first install lists no Secrets before it, unless failures
        # are counted: what failed decides whether to try again, :func:`hold`)
        history = cfg.driver.history(key.namespace, key.name) \
            if old.get("version") or rollback_to or status.counts_failures(old) else None
        latest = history[-1] if history else None
        if rollback_to:
            if old.get("rolledBackTo") == rollback_to and latest is not None \
                    and latest.status is rel.Status.DEPLOYED:
                return Outcome("none", _observed(old, generation, spec))
            done = _rollback(cfg, key, spec, rollback_to, lua_options(rt, spec))
            out = _success(old, generation, done, values.digest, chart_info, "rollback", now)
            out["rolledBackTo"] = rollback_to
            # The release now runs older values: clearing rollbackTo must upgrade again.
            out.pop("valuesDigest", None)
            out.pop("chartDigest", None)
            return Outcome("rollback", out)
        unchanged = (not force and latest is not None and latest.status is rel.Status.DEPLOYED
                     and old.get("lastAttemptedGeneration") == generation
                     and old.get("valuesDigest") == values.digest
                     and old.get("chartDigest") == chart_info.digest
                     and str(latest.version) == old.get("version"))
        if unchanged:
            drift_mode = drift.mode(spec)
            found = drift.detect(cfg, latest, drift.ignore(spec)) if drift_mode != "disabled" and latest else []
            quiet = _observed(old, generation, spec)
            quiet.pop("drift", None)
            if not found:
                return Outcome("none", quiet)
            lines = drift.describe(found)
            if drift_mode == "enabled" and latest:
                try:
                    corrected = drift.correct(cfg, latest, found)
                except core_errors.HelmError as exc:
                    # Flux keeps the release as it is (no failure counted, nothing remediated)
                    # and tries the correction again: status.drift_uncorrected
                    tries = 1 + (int(old.get("failures") or 0) if status.correcting_drift(old) else 0)
                    return Outcome(DRIFT_CORRECTION_FAILED, status.drift_uncorrected(
                        quiet, generation=generation, drift=lines, tries=tries, now=now), drift=tuple(lines),
                        error=drift.failure_message(_named(latest)[0], exc))
                if corrected:
                    return Outcome("drift-correction", quiet, drift=tuple(lines))
            return Outcome("none", dict(quiet, drift=lines), drift=tuple(lines))
        held = None if force else hold(spec, old, history or [])
        if held is not None:
            return Outcome("held", status.held(old, generation=generation, reason=held[0],
                                               message=held[1], now=now))
        with _naming(chart_info.source):
            chart = renderer.load_archive(chart_info.data, source=chart_info.source,
                                          values_files=values_files.from_spec(spec.get("chart")))
        refusal = policy.lua_refusal(lua_permissions.requested_permissions(chart),
                                     accepted=(spec.get("lua") or {}).get("acceptPermissions") or (),
                                     allowlist=rt.settings.security.lua_allowlist)
        if refusal:
            raise errors.RequestError(refusal, reason="LuaPermissionDenied")
        lua = lua_options(rt, spec)
        post_render = install.post_render_options(spec.get("postRenderers"), spec.get("commonMetadata"))
        description = f"by HelmRequest {policy.owner_id(meta)}{requester.acting(client, body)}"
        first, then = spec.get("install") or {}, spec.get("upgrade") or {}
        with _attempting(key, chart), _told_as_action():
            action, done = upgrade.upgrade_or_install(cfg, chart, values.values, upgrade.UpgradeOptions(
                name=key.name, namespace=key.namespace, chart_source=chart_info.source,
                install=True, reinstall_failed=True,
                wait=then.get("wait", True), wait_for_jobs=then.get("waitForJobs", True),
                timeout_s=parse_duration(then.get("timeout"), DEFAULT_TIMEOUT_S),
                atomic=bool(then.get("atomic")),
                # Flux's preserveValues is helm's --reuse-values; otherwise only the request's values count
                reuse_values=bool(then.get("preserveValues")), reset_values=not then.get("preserveValues"),
                no_hooks=bool(then.get("disableHooks")), lua=lua, post_render=post_render,
                skip_schema_validation=bool(then.get("disableSchemaValidation")),
                cleanup_on_fail=bool(then.get("cleanupOnFail")), force=bool(then.get("force")),
                crds=crd_policy.check_policy(then.get("crds") or "", default=crd_policy.UPGRADE_DEFAULT),
                max_history=int(spec.get("maxHistory", DEFAULT_MAX_HISTORY)),
                description=f"Upgrade {description}"), install.InstallOptions(
                name=key.name, wait=first.get("wait", True), wait_for_jobs=first.get("waitForJobs", True),
                timeout_s=parse_duration(first.get("timeout"), DEFAULT_TIMEOUT_S),
                create_namespace=bool(first.get("createNamespace")),
                no_hooks=bool(first.get("disableHooks")), lua=lua, post_render=post_render,
                skip_schema_validation=bool(first.get("disableSchemaValidation")),
                crds=crd_policy.check_policy(first.get("crds") or "", default=crd_policy.INSTALL_DEFAULT),
                description=f"Install {description}"), history=history)
        tested = _test(cfg, spec, done, lua, action=action)
        out = _success(old, generation, done, values.digest, chart_info, action, now,
                       test_hooks=None if tested is None else tested.test_hooks,
                       tested=None if tested is None else _tested(done, tested), tests_count=tests_count(spec))
        out.pop("rolledBackTo", None)
        out.pop("drift", None)
        if tested is not None:
            out["lastTest"] = tested.summary()
        return Outcome(action, out)


@contextlib.contextmanager
def _attempting(key: policy.ReleaseKey, chart: model.Chart) -> Iterator[None]:
    """A failed install or upgrade tells what it tried, for Flux's messages
    (:func:`errors.release_message`): the release and the chart's name and version (failed
    tests tell the version they ran on themselves, :func:`_test`)."""
    try:
        yield
    except Exception as exc:
        errors.tell_attempt(exc, errors.Attempt(str(key), f"{chart.metadata.name}@{chart.metadata.version}"))
        raise


def _named(version: rel.ReleaseVersion) -> tuple[str, str]:
    """A stored version as Flux's messages name it: ``NS/NAME.vVERSION`` (the ULID that
    ``status.version`` shows, where Flux numbers them) and ``CHART@VERSION``."""
    return (f"{version.namespace}/{version.name}.v{version.version}",
            f"{version.chart_name}@{version.chart_version}")


@contextlib.contextmanager
def _told_as_action() -> Iterator[None]:
    """An install or upgrade that fails before storing its version (helm's checks, the render,
    a post-renderer, an object it may not take or read) is Flux's failed action:
    :class:`errors.ActionError`. A lock held by another operation is no failure of it."""
    try:
        yield
    except core_errors.HelmError as exc:
        if exc.failed_version is None and not isinstance(exc, core_errors.LockedError):
            raise errors.ActionError(exc) from exc
        raise


@contextlib.contextmanager
def _naming(source: str) -> Iterator[None]:
    """Load errors that say which chart: helm's words (``cannot load values.yaml: ...``) name
    none, as the command line names it; one controller serves many requests' charts."""
    try:
        yield
    except (core_errors.ChartError, core_errors.ValuesError) as exc:
        # (Flux's words for spec.chart.valuesFiles name the request's file: kept as they are)
        if str(exc).startswith((source, "failed to merge chart values")) \
                or type(exc).__init__ is not core_errors.HelmError.__init__:
            raise
        raise type(exc)(f"{source}: {exc}") from exc


def lua_options(rt: Runtime, spec: Mapping[str, Any]) -> template.LuaOptions:
    """How the chart's Lua may run for this request: the admin's allowlist ∩ what it accepts."""
    return template.LuaOptions(accepted_permissions=policy.granted_lua_permissions(
        spec, security=rt.settings.security))


def _test(cfg: action_config.Configuration, spec: Mapping[str, Any],
          done: rel.ReleaseVersion, lua: template.LuaOptions, *,
          action: str) -> test_action.TestReport | None:
    """``spec.test``: the release's test hooks after ``action`` (install or upgrade) made
    ``done``; a failure raises ``TestFailedError`` (remediated as a failed ``action``) unless
    the action's remediation ignores test failures."""
    asked = spec.get("test") or {}
    if not asked.get("enable"):
        return None
    timeout = parse_duration(asked.get("timeout"), DEFAULT_TIMEOUT_S)
    try:
        return test_action.after_release(cfg, done, test_action.TestOptions(
            timeout_s=timeout, ignore_failures=ignores_test_failures(spec, action),
            filters=test_action.filters_from_spec(asked.get("filters") or ()), lua=lua))
    except core_errors.TestFailedError as exc:
        exc.failed_action = action
        errors.tell_attempt(exc, errors.Attempt(*_named(done)))
        raise


def _tested(done: rel.ReleaseVersion, report: test_action.TestReport) -> status.Tested:
    """Flux's TestSuccess of the tests ``report`` says ran on ``done`` (a failure ignored: the
    words of the failure not ignored, :func:`errors.release_message`)."""
    release, chart = _named(done)
    if report.error:
        return status.Tested(False, f"Helm test failed for release {release} with chart {chart}: "
                                    f"{report.failure(done.name)}")
    hooks = len(report.results)  # Flux counts the test hooks its filters select: those run
    ran = f"{hooks} test hook{'s' if hooks > 1 else ''} completed successfully" if hooks else "no test hooks"
    return status.Tested(True, f"Helm test succeeded for release {release} with chart {chart}: {ran}")


def tests_count(spec: Mapping[str, Any]) -> bool:
    """Whether Ready summarizes the tests (Flux's summary): ``spec.test`` enabled and its
    failures not ignored (``test.ignoreFailures``; the action's ``ignoreTestFailures`` only
    keeps a failure from counting against the action)."""
    asked = spec.get("test") or {}
    return bool(asked.get("enable")) and not asked.get("ignoreFailures")


def remediation(spec: Mapping[str, Any], action: str) -> Mapping[str, Any]:
    """``spec.<action>.remediation`` (install or upgrade), ``{}`` when not given."""
    return (spec.get(action) or {}).get("remediation") or {}


def ignores_test_failures(spec: Mapping[str, Any], action: str) -> bool:
    """Flux's ``<action>.remediation.ignoreTestFailures``, by default ``test.ignoreFailures``."""
    asked = remediation(spec, action).get("ignoreTestFailures")
    return bool((spec.get("test") or {}).get("ignoreFailures") if asked is None else asked)


def remediates_last_failure(spec: Mapping[str, Any], action: str) -> bool:
    """Flux's ``<action>.remediation.remediateLastFailure``: whether the failure that uses up the
    retries is remediated too. Flux's defaults: false for an install (the failed release is
    left for debugging); for an upgrade, true when ``retries`` > 0."""
    asked = remediation(spec, action)
    if asked.get("remediateLastFailure") is not None:
        return bool(asked["remediateLastFailure"])
    return action == "upgrade" and int(asked.get("retries") or 0) > 0


def remediation_strategy(spec: Mapping[str, Any], action: str) -> str:
    """``spec.<action>.remediation.strategy``; by default rollback for an upgrade, uninstall for
    an install (Flux's)."""
    return str(remediation(spec, action).get("strategy", "rollback" if action == "upgrade" else "uninstall"))


def rollback_target(spec: Mapping[str, Any], history: list[rel.ReleaseVersion]) -> rel.ReleaseVersion | None:
    """Flux's rollback target (``History.Previous``) after the failed newest version of
    ``history``: the newest version before it that was released (a failed upgrade leaves it
    deployed, as helm does; superseded once anything succeeded) and whose tests did not fail,
    unless the upgrade ignores test failures; never one an install replaced (superseded by new
    release: it was uninstalled)."""
    ignored = ignores_test_failures(spec, "upgrade")
    return next((v for v in reversed(history[:-1])
                 if v.status in (rel.Status.DEPLOYED, rel.Status.SUPERSEDED) and not rel.uninstalled(v)
                 and (ignored or not test_action.failed_tests(v))), None)


class MissingRollbackTarget(Exception):
    """An upgrade's rollback remediation found no version to roll back to (Flux stalls:
    :data:`status.MISSING_ROLLBACK_TARGET`)."""


def hold(spec: Mapping[str, Any], st: Mapping[str, Any],
         history: list[rel.ReleaseVersion]) -> tuple[str, str] | None:
    """Why Flux would not try the next install or upgrade (the one helm_core's rule picks from
    ``history``), as (Stalled reason, message), or None: the failure counts in ``st`` say
    its ``remediation.retries`` are used up (Flux's ``RetriesExceeded``: more failures than
    retries; -1 never), or the failed upgrade it follows was to be rolled back (retries left,
    or ``remediateLastFailure``) and has no version to roll back to. Counts reset by a new
    generation, chart or values, or a resetAt token, hold nothing."""
    action = upgrade.plan(history, reinstall_failed=True)
    failures = int(st.get(f"{action}Failures") or 0)
    if not failures:
        return None
    retries = int(remediation(spec, action).get("retries") or 0)
    exhausted = 0 <= retries < failures
    latest = history[-1] if history else None
    # failed as Flux sees it: its status, or its tests unless the upgrade ignores them
    failed = latest is not None and (latest.status is rel.Status.FAILED or (
        not ignores_test_failures(spec, action) and test_action.failed_tests(latest)))
    if (action == "upgrade" and failed and remediation_strategy(spec, action) == "rollback"
            and (not exhausted or remediates_last_failure(spec, action))
            and rollback_target(spec, history) is None):
        return status.MISSING_ROLLBACK_TARGET, status.MISSING_ROLLBACK_TARGET_MESSAGE
    if exhausted:
        return status.RETRIES_EXCEEDED, status.retries_exceeded(action, failures)
    return None


def reinstalls_after(remedy: status.Remedy, *, action: str) -> bool:
    """True when ``remedy`` uninstalled a failed upgrade: Flux then installs the release again
    (its ``IsUninstallAfterUpgrade``), whatever retries are left."""
    return action == "upgrade" and remedy.strategy == "uninstall" and not remedy.failed


def remediate(rt: Runtime, body: Mapping[str, Any], *, action: str) -> status.Remedy | None:
    """After a failed install/upgrade: the spec's remediation strategy (uninstall a failed
    install, Flux's only one; rollback or uninstall a failed upgrade). None when nothing was
    to be done (strategy ``none``); a remediation that fails is a :class:`status.Remedy` too
    (``failed``); a rollback without a version to go to raises :class:`MissingRollbackTarget`."""
    meta, spec = body["metadata"], body.get("spec") or {}
    strategy = remediation_strategy(spec, action)
    if strategy == "none" or action not in ("install", "upgrade"):
        return None
    try:
        return _remediate(rt, body, action=action, strategy=strategy)
    except MissingRollbackTarget:
        raise
    except Exception as exc:  # noqa: BLE001 - reported with the failure it remediated
        # failed before its version was known (the cluster unreachable): the release alone
        said = f"Helm {strategy} remediation for release {policy.release_key(meta, spec)}"
        return status.Remedy(strategy, f"{said} failed: {errors.message(exc)}", failed=True)


def _remediate(rt: Runtime, body: Mapping[str, Any], *, action: str, strategy: str) -> status.Remedy:
    meta, spec = body["metadata"], body.get("spec") or {}
    key = policy.release_key(meta, spec)
    client = target_for(rt, meta, spec, client_for(rt, meta, spec, body))
    cfg = configuration(rt, client, meta, spec)
    with rt.release_lock(key):
        history = cfg.driver.history(key.namespace, key.name)
        # Flux's words: the version rolled back to, or the failed one uninstalled
        if strategy == "rollback" and action == "upgrade":
            target = rollback_target(spec, history)
            if target is None:
                raise MissingRollbackTarget(status.MISSING_ROLLBACK_TARGET_MESSAGE)
            said = "Helm rollback to previous release {} with chart {}".format(*_named(target))
            run: Callable[[], object] = functools.partial(
                rollback.run, cfg, key.name, key.namespace, target.version,
                rollback_options(spec, lua_options(rt, spec)))
        else:
            said = ("Helm uninstall remediation for release {} with chart {}".format(*_named(history[-1]))
                    if history else f"Helm uninstall remediation for release {key}")
            # kept history: the next install may go on from it (spec.install.replace's note)
            run = functools.partial(uninstall.run, cfg, key.name, key.namespace, uninstall_options(
                rt, spec, keep_history=True, description="Remediation after failure"))
        try:
            run()
        except Exception as exc:  # noqa: BLE001 - reported with the failure it remediated
            return status.Remedy(strategy, f"{said} failed: {errors.message(exc)}", failed=True)
        return status.Remedy(strategy, f"{said} succeeded")


def delete(rt: Runtime, body: Mapping[str, Any]) -> str:
    """Uninstall the request's release (finalizer); returns a sentence for the Event.
    A release owned by another request, or already gone, is left alone and said so."""
    meta, spec = body["metadata"], body.get("spec") or {}
    key = policy.release_key(meta, spec)
    client = target_for(rt, meta, spec, client_for(rt, meta, spec, body))
    cfg = configuration(rt, client, meta, spec, cancellable=False)  # an uninstall is never superseded
    owner = claim_action.holder(cfg, namespace=key.namespace, name=key.name,
                                annotation=policy.OWNER_ANNOTATION)
    if owner is None:
        return f"release {key} was already gone"
    if owner and owner != policy.owner_id(meta):
        return f"release {key} belongs to HelmRequest {owner}; left in place"
    with rt.release_lock(key):
        result = uninstall.run(cfg, key.name, key.namespace, uninstall_options(
            rt, spec, keep_history=bool((spec.get("uninstall") or {}).get("keepHistory")),
            description=f"Uninstall by HelmRequest {policy.owner_id(meta)}{requester.acting(client, body)}"))
    if result.release is None:
        return f"Helm uninstall succeeded for release {key}"
    return "Helm uninstall succeeded for release {} with chart {}".format(*_named(result.release))


def uninstall_options(rt: Runtime, spec: Mapping[str, Any], *, keep_history: bool,
                      description: str) -> uninstall.UninstallOptions:
    """How the request uninstalls, for its deletion and for a remediation alike (as Flux's
    uninstall remediation follows ``spec.uninstall``): wait until every object is gone unless
    ``wait: false`` (Flux's default, ``disableWait: false``), ``timeout``, ``disableHooks``,
    ``deletionPropagation``."""
    asked = spec.get("uninstall") or {}
    return uninstall.UninstallOptions(
        keep_history=keep_history, wait=bool(asked.get("wait", True)),
        timeout_s=parse_duration(asked.get("timeout"), DEFAULT_TIMEOUT_S),
        no_hooks=bool(asked.get("disableHooks")), ignore_not_found=True, lua=lua_options(rt, spec),
        cascade=uninstall.cascade(str(asked.get("deletionPropagation") or "background")),
        description=description)


def _rollback(cfg: action_config.Configuration, key: policy.ReleaseKey, spec: Mapping[str, Any],
              target: str, lua: template.LuaOptions) -> rel.ReleaseVersion:
    try:
        version = rel.parse_version(target)
    except ValueError:
        raise errors.RequestError(f"spec.rollbackTo: {target!r} is not a ULID or a revision number",
                                  reason="RollbackInvalid") from None
    return rollback.run(cfg, key.name, key.namespace, version, rollback_options(spec, lua))


def rollback_options(spec: Mapping[str, Any], lua: template.LuaOptions) -> rollback.RollbackOptions:
    """How the request rolls back (upgrade remediation, ``spec.rollbackTo``): Flux's
    ``spec.rollback`` (wait, waitForJobs, timeout, disableHooks, force, cleanupOnFail);
    ``wait``, ``waitForJobs``, ``timeout`` and ``cleanupOnFail`` left out there are the upgrade's."""
    then, asked = spec.get("upgrade") or {}, spec.get("rollback") or {}
    return rollback.RollbackOptions(
        wait=asked.get("wait", then.get("wait", True)), lua=lua,
        wait_for_jobs=asked.get("waitForJobs", then.get("waitForJobs", True)),
        timeout_s=parse_duration(asked.get("timeout") or then.get("timeout"), DEFAULT_TIMEOUT_S),
        no_hooks=bool(asked.get("disableHooks")), force=bool(asked.get("force")),
        cleanup_on_fail=bool(asked.get("cleanupOnFail", then.get("cleanupOnFail"))))


def _observed(old: Mapping[str, Any], generation: int, spec: Mapping[str, Any]) -> dict[str, Any]:
    """Nothing to do: the same status, acknowledged for this generation (Ready again when an
    earlier failure, such as a repository down, left it otherwise)."""
    if not status.is_ready(old, generation) or status.get_condition(old, status.RECONCILING) \
            or status.get_condition(old, status.STALLED):
        return status.recovered(old, generation=generation, now=status.now_rfc3339(),
                                tests_count=tests_count(spec))
    out = dict(old)
    if out.get("observedGeneration") != generation:
        conds = [dict(c, observedGeneration=generation) for c in out.get("conditions") or []]
        out.update(observedGeneration=generation, conditions=conds)
    return out


_REASONS = {"install": status.INSTALL_SUCCEEDED, "upgrade": status.UPGRADE_SUCCEEDED,
            "rollback": status.ROLLBACK_SUCCEEDED}


def _success(old: Mapping[str, Any], generation: int, done: rel.ReleaseVersion, digest: str,
             chart_info: core_sources.ResolvedChart, action: str, now: str, *,
             test_hooks: Mapping[str, Any] | None = None, tested: status.Tested | None = None,
             tests_count: bool = False) -> dict[str, Any]:
    message = "Helm {} succeeded for release {} with chart {}".format(action, *_named(done))
    release = {"releaseName": done.name, "releaseNamespace": done.namespace,
               "version": str(done.version), "chartName": done.chart_name,
               "chartVersion": done.chart_version, "appVersion": done.app_version,
               "valuesDigest": digest, "chartDigest": chart_info.digest, "notes": done.notes,
               "lastAttemptedGeneration": generation}
    return status.succeeded(old, generation=generation, reason=_REASONS[action], message=message,
                            release=release, now=now, test_hooks=test_hooks, tested=tested,
                            tests_count=tests_count)
