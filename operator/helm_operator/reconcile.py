"""One HelmRequest brought to its desired state through helm_core actions.

The handlers call :func:`apply` (create, update, resume, interval) and :func:`delete` (finalizer);
both are synchronous (Kopf runs them in its worker threads) and return the new status.

Steps of :func:`apply`: suspend? → service account (policy) → claim the release → values
(valuesFrom + values, digest) → chart (source, verify, load) → Lua permissions → decide
(rollbackTo / install / upgrade / nothing) → run the action as the service account → prune
history → status. Every cluster access for the release goes through the impersonated client.

Rules:
- Nothing changes when the generation was handled and the values digest and chart digest
  equal what the last success recorded (an idle check costs a few reads, no writes).
- One operation per release in this process (a lock per release key); helm_core's release
  lock guards against other processes.
- A release is claimed by creating its ``Release`` with the owner annotation; a request finding
  another owner is refused (Stalled, reason ReleaseClaimed).
"""
from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Mapping
from typing import Any, Protocol

import ulid

from helm_core import errors as core_errors
from helm_core import isolation
from helm_core.support import limits as limits_mod
from helm_core import sources as core_sources
from helm_core.action import config as action_config
from helm_core.action import install, rollback, template, uninstall, upgrade
from helm_core.engine import renderer as renderer_mod
from helm_core.kube import client as kclient
from helm_core.lua import permissions as lua_permissions
from helm_core.support.records import field, record
from helm_core.storage import driver as drv
from helm_core.storage import release as rel
from helm_core.storage import secrets
from helm_operator import accounts as accounts_mod
from helm_operator import drift, errors, policy, settings as settings_mod, sources, status

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
    render_pool: isolation.RenderPool | None = None
    """Worker processes that load, check and render charts; None renders in this process
    (tests of the reconcile logic only: a controller always isolates chart code)."""
    accounts: accounts_mod.Accounts = field(default_factory=accounts_mod.Accounts)
    """Service accounts known to exist (read at most once a minute)."""
    _locks: dict[policy.ReleaseKey, threading.Lock] = field(default_factory=dict)
    _guard: threading.Lock = field(default_factory=threading.Lock)

    def renderer_for(self, meta: Mapping[str, Any], spec: Mapping[str, Any]) -> renderer_mod.Renderer:
        """Where this request's chart code runs: the pool, its namespace as the tenant, under
        the admin's limits lowered by ``spec.renderLimits``."""
        if self.render_pool is None:
            return renderer_mod.LOCAL
        return self.render_pool.renderer(tenant=meta["namespace"], limits=render_limits(
            spec, ceiling=self.render_pool.limits))

    def release_lock(self, key: policy.ReleaseKey) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(key, threading.Lock())


@record(frozen=True)
class Outcome:
    """What happened: ``action`` is install, upgrade, rollback, drift-correction, none or suspended."""

    action: str
    status: dict[str, Any]
    drift: tuple[str, ...] = ()
    """Drifted objects found (reported in warn mode, corrected in enabled mode)."""


def client_for(rt: Runtime, meta: Mapping[str, Any], spec: Mapping[str, Any]) -> kclient.ClusterClient:
    """The client acting as the request's service account (checked to exist)."""
    account = policy.service_account(meta, spec, security=rt.settings.security)
    if not account:
        return rt.admin
    if not rt.accounts.exists(rt.admin, meta["namespace"], account):
        raise errors.RequestError(
            f"service account {meta['namespace']}/{account} not found", reason="ServiceAccountNotFound")
    return rt.impersonate(account, meta["namespace"])


def reader(client: kclient.ClusterClient, namespace: str) -> sources.Reader:
    """A :data:`sources.Reader` reading ConfigMaps/Secrets of ``namespace`` through ``client``."""

    def read(kind: str, name: str) -> Mapping[str, Any] | None:
        try:
            return client.get(kclient.ObjectRef("v1", kind, name, namespace))
        except core_errors.NotFoundError:
            return None

    return read


def claim(client: kclient.ClusterClient, key: policy.ReleaseKey, requester: str, *,
          new: bool = False) -> dict[str, Any]:
    """Make this request the release's owner, or refuse when another request owns it; returns
    the ``Release`` object (the storage driver reuses it instead of reading it again).
    ``new``: the request never installed (no ``status.version``): try creating the Release
    first, one request instead of a read that finds nothing and a create."""
    ref = kclient.ObjectRef(secrets.RELEASE_API_VERSION, secrets.RELEASE_KIND, key.name, key.namespace)
    fresh = {"apiVersion": secrets.RELEASE_API_VERSION, "kind": secrets.RELEASE_KIND,
             "metadata": {"name": key.name, "namespace": key.namespace,
                          "labels": {secrets.OWNER_LABEL: secrets.OWNER},
                          "annotations": {policy.OWNER_ANNOTATION: requester}},
             "spec": {}}
    if new:
        try:
            return client.create(fresh)
        except core_errors.ConflictError:
            pass  # it exists: whose is it?
    try:
        current = client.get(ref)
    except core_errors.NotFoundError:
        return client.create(fresh)
    claimed_by = ((current.get("metadata") or {}).get("annotations") or {}).get(policy.OWNER_ANNOTATION, "")
    policy.check_owner(key, claimed_by=claimed_by, requester=requester)
    if not claimed_by:
        return client.apply({"apiVersion": secrets.RELEASE_API_VERSION, "kind": secrets.RELEASE_KIND,
                             "metadata": {"name": key.name, "namespace": key.namespace,
                                          "annotations": {policy.OWNER_ANNOTATION: requester}}},
                            force=True)
    return current


def apply(rt: Runtime, body: Mapping[str, Any]) -> Outcome:
    """Reconcile one request; raises helm_core or :class:`errors.RequestError` on failure."""
    meta, spec = body["metadata"], body.get("spec") or {}
    old = body.get("status") or {}
    generation = int(meta.get("generation") or 1)
    now = status.now_rfc3339()
    if spec.get("suspend"):
        return Outcome("suspended", status.suspended(old, generation=generation, now=now))
    key = policy.release_key(meta, spec)
    client = client_for(rt, meta, spec)
    read = reader(client, meta["namespace"])
    values = sources.resolve_values(spec, read=read)
    ref, credentials = sources.chart_ref(spec, namespace=meta["namespace"], read=read)
    chart_info = core_sources.resolve(ref, credentials, rt.cache)
    renderer = rt.renderer_for(meta, spec)
    driver = secrets.SecretsDriver(client)
    cfg = action_config.Configuration(client=client, driver=driver, log=rt.log,
                                      cancelled=functools.partial(rt.superseded, meta),
                                      renderer=renderer)
    with rt.release_lock(key):
        driver.remember_release(claim(client, key, policy.owner_id(meta), new=not old.get("version")))
        history = cfg.driver.history(key.namespace, key.name)
        latest = history[-1] if history else None
        rollback_to = spec.get("rollbackTo") or ""
        if rollback_to:
            if old.get("rolledBackTo") == rollback_to and latest is not None \
                    and latest.status is rel.Status.DEPLOYED:
                return Outcome("none", _observed(old, generation))
            done = _rollback(cfg, key, spec, rollback_to)
            out = _success(old, generation, done, values.digest, chart_info, "rollback", now)
            out["rolledBackTo"] = rollback_to
            # The release now runs older values: clearing rollbackTo must upgrade again.
            out.pop("valuesDigest", None)
            out.pop("chartDigest", None)
            return Outcome("rollback", out)
        unchanged = (latest is not None and latest.status is rel.Status.DEPLOYED
                     and old.get("lastAttemptedGeneration") == generation
                     and old.get("valuesDigest") == values.digest
                     and old.get("chartDigest") == chart_info.digest
                     and str(latest.version) == old.get("version"))
        if unchanged:
            drift_mode = drift.mode(spec)
            found = drift.detect(cfg, latest) if drift_mode != "disabled" and latest else []
            quiet = _observed(old, generation)
            quiet.pop("drift", None)
            if not found:
                return Outcome("none", quiet)
            lines = drift.describe(found)
            if drift_mode == "enabled" and latest and drift.correct(cfg, latest, found):
                return Outcome("drift-correction", quiet, drift=tuple(lines))
            return Outcome("none", dict(quiet, drift=lines), drift=tuple(lines))
        chart = renderer.load_archive(chart_info.data, source=chart_info.source)
        granted = policy.granted_lua_permissions(spec, security=rt.settings.security)
        refusal = policy.lua_refusal(lua_permissions.requested_permissions(chart),
                                     accepted=(spec.get("lua") or {}).get("acceptPermissions") or (),
                                     allowlist=rt.settings.security.lua_allowlist)
        if refusal:
            raise errors.RequestError(refusal, reason="LuaPermissionDenied")
        lua = template.LuaOptions(accepted_permissions=granted)
        max_history = int(spec.get("maxHistory", DEFAULT_MAX_HISTORY))
        live = [v for v in history if v.status is not rel.Status.UNINSTALLED]
        if not live or all(v.status is rel.Status.FAILED for v in live) and not any(
                v.status is rel.Status.SUPERSEDED for v in live):
            action = "install"
            opts = spec.get("install") or {}
            done = install.run(cfg, chart, values.values, install.InstallOptions(
                name=key.name, namespace=key.namespace, chart_source=chart_info.source,
                wait=opts.get("wait", True), timeout_s=parse_duration(opts.get("timeout"), DEFAULT_TIMEOUT_S),
                create_namespace=bool(opts.get("createNamespace")), replace=bool(history),
                no_hooks=bool(opts.get("disableHooks")), lua=lua,
                description=f"Install by HelmRequest {policy.owner_id(meta)}"))
        else:
            action = "upgrade"
            opts = spec.get("upgrade") or {}
            done = upgrade.run(cfg, chart, values.values, upgrade.UpgradeOptions(
                name=key.name, namespace=key.namespace, chart_source=chart_info.source,
                wait=opts.get("wait", True), timeout_s=parse_duration(opts.get("timeout"), DEFAULT_TIMEOUT_S),
                atomic=bool(opts.get("atomic")), reset_values=True,
                no_hooks=bool(opts.get("disableHooks")), lua=lua, max_history=max_history,
                description=f"Upgrade by HelmRequest {policy.owner_id(meta)}"))
        if action == "install" and 0 < max_history <= len(history):  # upgrade prunes itself
            drv.prune_history(cfg.driver, key.namespace, key.name, max_history)
        out = _success(old, generation, done, values.digest, chart_info, action, now)
        out.pop("rolledBackTo", None)
        out.pop("drift", None)
        return Outcome(action, out)


def remediate(rt: Runtime, body: Mapping[str, Any], *, action: str) -> str:
    """After a failed install/upgrade: the spec's remediation strategy (uninstall a failed
    install; rollback or uninstall a failed upgrade). Returns what was done ("" for nothing)."""
    meta, spec = body["metadata"], body.get("spec") or {}
    section = spec.get(action) or {}
    default = "rollback" if action == "upgrade" else "none"
    strategy = (section.get("remediation") or {}).get("strategy", default)
    if strategy == "none" or action not in ("install", "upgrade"):
        return ""
    key = policy.release_key(meta, spec)
    client = client_for(rt, meta, spec)
    cfg = action_config.Configuration(client=client, driver=secrets.SecretsDriver(client), log=rt.log,
                                      cancelled=functools.partial(rt.superseded, meta))
    with rt.release_lock(key):
        history = cfg.driver.history(key.namespace, key.name)
        if strategy == "rollback" and any(v.status is rel.Status.SUPERSEDED for v in history):
            rollback.run(cfg, key.name, key.namespace, None, rollback.RollbackOptions(
                wait=section.get("wait", True),
                timeout_s=parse_duration(section.get("timeout"), DEFAULT_TIMEOUT_S)))
            return "rollback"
        if strategy == "uninstall" or action == "install":
            uninstall.run(cfg, key.name, key.namespace, uninstall.UninstallOptions(
                keep_history=True, ignore_not_found=True, description="Remediation after failure"))
            return "uninstall"
    return ""


def delete(rt: Runtime, body: Mapping[str, Any]) -> str:
    """Uninstall the request's release (finalizer); returns a sentence for the Event.
    A release owned by another request, or already gone, is left alone and said so."""
    meta, spec = body["metadata"], body.get("spec") or {}
    key = policy.release_key(meta, spec)
    client = client_for(rt, meta, spec)
    ref = kclient.ObjectRef(secrets.RELEASE_API_VERSION, secrets.RELEASE_KIND, key.name, key.namespace)
    try:
        current = client.get(ref)
    except core_errors.NotFoundError:
        return f"release {key} was already gone"
    owner = ((current.get("metadata") or {}).get("annotations") or {}).get(policy.OWNER_ANNOTATION, "")
    if owner and owner != policy.owner_id(meta):
        return f"release {key} belongs to HelmRequest {owner}; left in place"
    opts = spec.get("uninstall") or {}
    cfg = action_config.Configuration(client=client, driver=secrets.SecretsDriver(client), log=rt.log)
    with rt.release_lock(key):
        uninstall.run(cfg, key.name, key.namespace, uninstall.UninstallOptions(
            keep_history=bool(opts.get("keepHistory")), wait=bool(opts.get("wait", False)),
            timeout_s=parse_duration(opts.get("timeout"), DEFAULT_TIMEOUT_S),
            no_hooks=bool(opts.get("disableHooks")), ignore_not_found=True,
            description=f"Uninstall by HelmRequest {policy.owner_id(meta)}"))
    return f"release {key} uninstalled"


def _rollback(cfg: action_config.Configuration, key: policy.ReleaseKey, spec: Mapping[str, Any],
              target: str) -> rel.ReleaseVersion:
    try:
        version = ulid.ULID.from_str(target.upper())
    except ValueError:
        raise errors.RequestError(f"spec.rollbackTo: {target!r} is not a ULID", reason="RollbackInvalid") from None
    opts = spec.get("upgrade") or {}
    return rollback.run(cfg, key.name, key.namespace, version, rollback.RollbackOptions(
        wait=opts.get("wait", True), timeout_s=parse_duration(opts.get("timeout"), DEFAULT_TIMEOUT_S)))


def _observed(old: Mapping[str, Any], generation: int) -> dict[str, Any]:
    """Nothing to do: the same status, acknowledged for this generation (Ready again when an
    earlier failure, such as a repository down, left it otherwise)."""
    if not status.is_ready(old, generation) or status.get_condition(old, status.RECONCILING) \
            or status.get_condition(old, status.STALLED):
        return status.recovered(old, generation=generation, now=status.now_rfc3339())
    out = dict(old)
    if out.get("observedGeneration") != generation:
        conds = [dict(c, observedGeneration=generation) for c in out.get("conditions") or []]
        out.update(observedGeneration=generation, conditions=conds)
    return out


_REASONS = {"install": status.INSTALL_SUCCEEDED, "upgrade": status.UPGRADE_SUCCEEDED,
            "rollback": status.ROLLBACK_SUCCEEDED}


def _success(old: Mapping[str, Any], generation: int, done: rel.ReleaseVersion, digest: str,
             chart_info: core_sources.ResolvedChart, action: str, now: str) -> dict[str, Any]:
    message = (f"{action.capitalize()} of {done.chart_name}-{done.chart_version} succeeded: "
               f"version {done.version}")
    release = {"releaseName": done.name, "releaseNamespace": done.namespace,
               "version": str(done.version), "chartName": done.chart_name,
               "chartVersion": done.chart_version, "appVersion": done.app_version,
               "valuesDigest": digest, "chartDigest": chart_info.digest, "notes": done.notes,
               "lastAttemptedGeneration": generation}
    return status.succeeded(old, generation=generation, reason=_REASONS[action], message=message,
                            release=release, now=now)
