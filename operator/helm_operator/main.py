"""``helm-operator run`` (also ``python -m helm_operator run``): the controller process.

The only module that reads flags and the environment. Every flag has an environment variable
(``HELM_OPERATOR_<FLAG>``, what ``deploy/config.yaml`` sets); a flag wins over its variable.
The process serves ``/healthz``, ``/readyz`` and ``/metrics`` on the probe port and
``/metrics`` on the metrics port, then runs Kopf until SIGINT/SIGTERM.
"""
from __future__ import annotations

import argparse
import asyncio
import copy
import datetime
import json
import logging
import os
import socket
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from helm_core.support.limits import DEFAULT_LIMITS, RenderLimits, describe_bytes, parse_bytes
from helm_core.support.records import record
from helm_operator import identity
from helm_operator import settings as settings_mod

ENV_PREFIX = "HELM_OPERATOR_"
#: Finalizer Kopf puts on each HelmRequest (the uninstall runs before it is removed).
FINALIZER = identity.FINALIZER
#: Where the webhook's TLS Secret is mounted (deploy/requester/webhook/).
DEFAULT_ADMISSION_CERT_DIR = "/etc/helm-operator/admission"
#: Prefix of Kopf's bookkeeping annotations on HelmRequests.
ANNOTATIONS_PREFIX = "helm-operator.helm.sh"
TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off"})


@record(frozen=True)
class Invocation:
    """A parsed command line: the settings plus how to reach the cluster."""

    settings: settings_mod.OperatorSettings
    kubeconfig: str = ""
    in_cluster: bool = False
    cache_dir: str = ""
    verbose: bool = False
    admission_port: int = 0
    """Port of the requester-stamp admission webhook (0: not served; docs/requester.md)."""
    admission_cert_dir: str = ""
    """Folder holding the webhook's ``tls.crt`` and ``tls.key`` (a mounted TLS Secret)."""


def _csv(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="helm-operator",
                                  description="The HelmRequest controller (docs/controller.md).")
    sub = top.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="watch HelmRequests and reconcile them")
    run.add_argument("--namespace", "-n", action="append", default=None,
                     help="namespace to watch (repeat or comma-separate); default: all")
    run.add_argument("--watch-values-from", default=None, metavar="true|false",
                     help="upgrade at once when a valuesFrom ConfigMap/Secret changes "
                          "(needs list/watch on them; default true)")
    run.add_argument("--lua-allow", default=None,
                     help="Lua permissions requests may accept, comma-separated (io,network,os)")
    run.add_argument("--default-service-account", default=None, metavar="NAME",
                     help="ServiceAccount (in the request's namespace) for requests naming none")
    run.add_argument("--require-service-account", action="store_true", default=None,
                     help="refuse requests naming no ServiceAccount when there is no default")
    run.add_argument("--no-cross-namespace-refs", action="store_true", default=None,
                     help="a HelmRequest may only name a HelmRepository of its own namespace "
                          "(default: other namespaces allowed, as Flux)")
    run.add_argument("--act-as", default=None, metavar="serviceaccount|requester",
                     help="who releases run as: the request's ServiceAccount (default) or the "
                          "user who last applied it (docs/requester.md); a Namespace label "
                          "helm.sh/act-as overrides it")
    run.add_argument("--workers", type=int, default=None,
                     help=f"requests reconciled at once (default {settings_mod.DEFAULT_WORKERS})")
    run.add_argument("--log-format", choices=settings_mod.LOG_FORMATS, default=None,
                     help="log lines as text (default) or one JSON object each")
    run.add_argument("--probe-port", type=int, default=None,
                     help=f"port of /healthz and /readyz (default {settings_mod.DEFAULT_PROBE_PORT}; 0: none)")
    run.add_argument("--metrics-port", type=int, default=None,
                     help=f"port of /metrics (default {settings_mod.DEFAULT_METRICS_PORT}; 0: none)")
    run.add_argument("--announce-after", default=None, metavar="DURATION",
                     help="how long an operation runs before Reconciling and the Release's "
                          "pending status are written (default 5s; 0s at once)")
    run.add_argument("--requeue-dependency", default=None, metavar="DURATION",
                     help="the interval at which dependencies (spec.dependsOn) not Ready are "
                          "looked at again (default 30s, as Flux)")
    run.add_argument("--kubeconfig", default=None,
                     help="kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)")
    run.add_argument("--in-cluster", action="store_true", default=None,
                     help="use the pod's ServiceAccount instead of a kubeconfig")
    run.add_argument("--cache-dir", default=None, help="chart cache folder")
    run.add_argument("--verbose", "-v", action="store_true", default=None, help="log debug lines too")
    limits = run.add_argument_group("render limits (every chart is run in a worker process "
                                    "under them; a request may lower them, never raise them)")
    limits.add_argument("--render-timeout", default=None, metavar="DURATION",
                        help=f"wall time of one render (default {DEFAULT_LIMITS.timeout_s:g}s)")
    limits.add_argument("--render-cpu", default=None, metavar="DURATION",
                        help=f"CPU time of one render (default {DEFAULT_LIMITS.cpu_s:g}s)")
    limits.add_argument("--render-memory", default=None, metavar="SIZE",
                        help=f"memory of one render (default {describe_bytes(DEFAULT_LIMITS.memory_bytes)})")
    limits.add_argument("--render-output", default=None, metavar="SIZE",
                        help=f"rendered text of one chart (default {describe_bytes(DEFAULT_LIMITS.output_bytes)})")
    limits.add_argument("--render-workers", type=int, default=None,
                        help="render worker processes kept, and as many more for namespaces that hold none "
                             "while others hold them all (default: 2-4 by CPU count)")
    webhook = run.add_argument_group("requester stamp webhook (only for API servers without "
                                     "MutatingAdmissionPolicy; docs/requester.md)")
    webhook.add_argument("--admission-port", type=int, default=None,
                         help="serve the webhook over HTTPS on this port (default 0: off)")
    webhook.add_argument("--admission-cert-dir", default=None,
                         help=f"folder with tls.crt and tls.key (default {DEFAULT_ADMISSION_CERT_DIR})")
    add_scale_flags(run)
    return top


def parse(argv: Sequence[str], env: Mapping[str, str]) -> Invocation:
    """Flags over ``HELM_OPERATOR_*`` variables over defaults; raises SystemExit (usage) or
    ValueError (a setting out of range) on bad input."""
    args = parser().parse_args(list(argv))

    def pick(flag: object, name: str, default: str = "") -> str:
        if flag is not None:
            return str(flag)
        return env.get(ENV_PREFIX + name, default)

    namespaces = (tuple(n for item in args.namespace for n in _csv(item)) if args.namespace
                  else _csv(env.get(ENV_PREFIX + "NAMESPACES", "")))
    allow = frozenset(_csv(pick(args.lua_allow, "LUA_ALLOWLIST")))
    from helm_core.lua import permissions  # deferred: keeps `--help` fast

    unknown = sorted(allow - permissions.ALL_PERMISSIONS)
    if unknown:
        raise ValueError(f"unknown Lua permission(s) in the allowlist: {', '.join(unknown)} "
                         f"(known: {', '.join(sorted(permissions.ALL_PERMISSIONS))})")
    security = settings_mod.SecuritySettings(
        lua_allowlist=allow,
        default_service_account=pick(args.default_service_account, "DEFAULT_SERVICE_ACCOUNT"),
        require_service_account=_bool(pick(args.require_service_account, "REQUIRE_SERVICE_ACCOUNT",
                                           "false"), "require service account"),
        no_cross_namespace_refs=_bool(pick(args.no_cross_namespace_refs, "NO_CROSS_NAMESPACE_REFS",
                                           "false"), "no cross namespace refs"),
        act_as=_act_as(pick(args.act_as, "ACT_AS", "serviceaccount")))
    runtime = settings_mod.RuntimeSettings(
        workers=_int(pick(args.workers, "WORKERS", str(settings_mod.DEFAULT_WORKERS)), "workers"),
        log_format=pick(args.log_format, "LOG_FORMAT", "text"),
        probe_port=_int(pick(args.probe_port, "PROBE_PORT", str(settings_mod.DEFAULT_PROBE_PORT)),
                        "probe port"),
        metrics_port=_int(pick(args.metrics_port, "METRICS_PORT",
                               str(settings_mod.DEFAULT_METRICS_PORT)), "metrics port"),
        announce_after_s=_seconds(pick(args.announce_after, "ANNOUNCE_AFTER"),
                                  settings_mod.DEFAULT_ANNOUNCE_AFTER_S, "announce after", zero=True),
        requeue_dependency_s=_seconds(pick(args.requeue_dependency, "REQUEUE_DEPENDENCY"),
                                      settings_mod.DEFAULT_REQUEUE_DEPENDENCY_S, "requeue dependency"))
    render = settings_mod.RenderSettings(
        limits=RenderLimits(
            timeout_s=_seconds(pick(args.render_timeout, "RENDER_TIMEOUT"), DEFAULT_LIMITS.timeout_s,
                               "render timeout"),
            cpu_s=_seconds(pick(args.render_cpu, "RENDER_CPU"), DEFAULT_LIMITS.cpu_s, "render cpu"),
            memory_bytes=_size(pick(args.render_memory, "RENDER_MEMORY"), DEFAULT_LIMITS.memory_bytes,
                               "render memory"),
            output_bytes=_size(pick(args.render_output, "RENDER_OUTPUT"), DEFAULT_LIMITS.output_bytes,
                               "render output")),
        workers=_int(pick(args.render_workers, "RENDER_WORKERS", "0"), "render workers"))
    selector, election = parse_scale_flags(args, pick, env)
    return Invocation(
        settings=settings_mod.OperatorSettings(render=render,
            watch=settings_mod.WatchSettings(
                namespaces=namespaces,
                values_from=_bool(pick(args.watch_values_from, "WATCH_VALUES_FROM", "true"),
                                  "watch values from"),
                selector=selector),
            security=security, runtime=runtime, leader_election=election),
        kubeconfig=pick(args.kubeconfig, "KUBECONFIG", env.get("KUBECONFIG", "")),
        in_cluster=_bool(pick(args.in_cluster, "IN_CLUSTER", "false"), "in cluster"),
        cache_dir=pick(args.cache_dir, "CACHE_DIR"),
        admission_port=_port(pick(args.admission_port, "ADMISSION_PORT", "0"), "admission port"),
        admission_cert_dir=pick(args.admission_cert_dir, "ADMISSION_CERT_DIR", DEFAULT_ADMISSION_CERT_DIR),
        verbose=_bool(pick(args.verbose, "VERBOSE", "false"), "verbose"))


# --- scaling out: leader election and sharding (issue 17) ------------------------------------

#: Where a pod finds its own namespace (the Lease's default namespace in a cluster).
POD_NAMESPACE_FILE = Path("/var/run/secrets/kubernetes.io/serviceaccount/namespace")


def add_scale_flags(run: argparse.ArgumentParser) -> None:
    run.add_argument("--leader-elect", action="store_true", default=None,
                     help="elect one replica (a coordination.k8s.io Lease) to reconcile")
    run.add_argument("--leader-election-namespace", default=None,
                     help="namespace of the Lease (default: the pod's namespace)")
    run.add_argument("--identity", default=None,
                     help="this replica's name in the Lease (default: $POD_NAME, else the host name)")
    run.add_argument("--selector", default=None, metavar="LABEL_SELECTOR",
                     help="reconcile only HelmRequests with matching labels (this replica's shard)")


def parse_scale_flags(args: argparse.Namespace, pick: Callable[..., str], env: Mapping[str, str]
                      ) -> tuple[str, settings_mod.LeaderElectionSettings]:
    """The shard's selector and the leader election settings (ValueError when unusable)."""
    from helm_core.golib import labels as selectors
    from helm_operator import leader

    selector = selectors.validate(pick(args.selector, "SELECTOR"))
    enabled = _bool(pick(args.leader_elect, "LEADER_ELECT", "false"), "leader elect")
    namespace = pick(args.leader_election_namespace, "LEADER_ELECTION_NAMESPACE",
                     env.get("POD_NAMESPACE", ""))
    if enabled and not namespace:
        try:
            namespace = POD_NAMESPACE_FILE.read_text().strip()
        except OSError:
            raise ValueError("--leader-election-namespace is required outside a cluster") from None
    identity = pick(args.identity, "IDENTITY", env.get("POD_NAME", "")) or socket.gethostname()
    return selector, settings_mod.LeaderElectionSettings(
        enabled=enabled, namespace=namespace, identity=identity,
        lease_name=leader.lease_name(selector))


def await_leadership(inv: Invocation, client: Any, health: Any, log: logging.Logger,
                     stop: Any) -> None:
    """Without ``--leader-elect``, return at once. With it, stand by (ready but idle, no
    render workers, no watches) until this replica holds the Lease, then renew it from a
    thread; losing it exits the process with 1 at once, as controller-runtime's managers do
    (a deposed leader must stop writing; the new process stands by again). Releasing the Lease
    becomes the first step of ``stop`` (a :class:`shutdown.Shutdown` already taking the
    signals), so a standby takes over without waiting out its duration, even when the signal
    came while the Lease was being won. SIGTERM/SIGINT while standing by exits 0."""
    from helm_operator import leader

    election = inv.settings.leader_election
    if not election.enabled:
        return
    elector = leader.Elector(client, election, log=lambda line: log.info("%s", line),
                             tick=health.beat)
    health.standby, health.ready = True, True
    log.info("standing by for Lease %s/%s as %s", election.namespace, election.lease_name,
             election.identity)
    won = elector.acquire(stop.flag)
    # from here the Lease may be ours: whatever the signal's timing, the stop sequence gives
    # it back (at once if the signal already came)
    stop.on_stop(elector.release)
    if not won or stop.stopping():
        raise SystemExit(0)
    health.standby = False

    def lost() -> None:
        log.error("leader election lost: exiting")
        logging.shutdown()
        os._exit(1)

    elector.start_keeping(threading.Event(), lost)


# --- end of scaling out -----------------------------------------------------------------------


def _port(text: str, what: str) -> int:
    port = _int(text, what)
    if not 0 <= port <= 65535:
        raise ValueError(f"{what} must be between 0 and 65535, not {port}")
    return port


def _act_as(text: str) -> str:
    from helm_operator import requester

    return requester.check_mode(text.strip().lower(), "act as")


def _bool(text: str, what: str) -> bool:
    word = text.strip().lower()
    if word not in TRUE_WORDS | FALSE_WORDS:
        raise ValueError(f"{what} must be true or false, not {text!r}")
    return word in TRUE_WORDS


def _seconds(text: str, default: float, what: str, *, zero: bool = False) -> float:
    if not text:
        return default
    from helm_core.errors import HelmError
    from helm_operator.reconcile import parse_duration  # deferred: keeps `--help` fast

    try:
        seconds = parse_duration(text, default)
    except HelmError as exc:
        raise ValueError(f"{what}: {exc}") from None
    if seconds <= 0 and not (zero and seconds == 0):
        raise ValueError(f"{what} must be positive, not {text!r}")
    return seconds


def _size(text: str, default: int, what: str) -> int:
    try:
        return parse_bytes(text) if text else default
    except ValueError as exc:
        raise ValueError(f"{what}: {exc}") from None


def _int(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{what} must be an integer, not {text!r}") from None


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message (and the object when Kopf names one)."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {"time": datetime.datetime.fromtimestamp(record.created, datetime.UTC)
                 .isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                 "level": record.levelname.lower(), "logger": record.name,
                 "message": record.getMessage()}
        k8s = getattr(record, "k8s_ref", None)
        if k8s:
            entry["object"] = k8s
        if record.exc_info:
            entry["error"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


class TextFormatter(logging.Formatter):
    """One plain line: time, level, logger, then ``[namespace/name]`` when Kopf names the object
    (its own lines, "Handler 'apply' succeeded", say nothing of which request otherwise)."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)-7s %(name)s %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        k8s = getattr(record, "k8s_ref", None)
        if k8s:
            where = "/".join(part for part in (k8s.get("namespace"), k8s.get("name")) if part)
            record = copy.copy(record)
            record.msg, record.args = f"[{where}] {record.getMessage()}", None
        return super().format(record)


def setup_logging(fmt: str, *, verbose: bool) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    for noisy in ("kubernetes", "urllib3", "httpx", "aiohttp.access"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    # Kopf runs in a thread and warns that OS signals are ignored; they are not: ours stop it
    # (shutdown.Shutdown sets its stop flag), so the warning only alarmed readers of the log
    logging.getLogger("kopf._core.reactor.running").addFilter(_not_the_signal_warning)


def _not_the_signal_warning(record: logging.LogRecord) -> bool:
    return not record.getMessage().startswith("OS signals are ignored: running not in the main thread")


def run(inv: Invocation) -> int:
    """Run the operator until stopped; returns the exit code."""
    import kopf

    from helm_core import isolation
    from helm_core.action import config as action_config
    from helm_core.kube import live
    from helm_core.sources import cache as cache_mod
    from helm_operator import (
        diffbase,
        handlers,
        probes,
        progress,
        reconcile,
        remote,
        repositories,
        repository_handlers,
        runner,
        shutdown,
        watches,
    )
    from helm_operator import metrics as metrics_mod

    setup_logging(inv.settings.runtime.log_format, verbose=inv.verbose)
    log = logging.getLogger("helm_operator")
    if inv.kubeconfig:
        os.environ["KUBECONFIG"] = inv.kubeconfig  # what Kopf's client login reads
    # a connection per worker, plus the parallel applies of one action
    admin = live.connect(live.LiveOptions(kubeconfig=inv.kubeconfig or None,
                                          in_cluster=inv.in_cluster,
                                          field_manager=identity.COMPONENT,
                                          max_connections=inv.settings.runtime.workers
                                          + action_config.APPLY_WORKERS))
    _check_reachable(admin)
    metrics = metrics_mod.Metrics()
    health = probes.Health()
    ports = {inv.settings.runtime.probe_port, inv.settings.runtime.metrics_port} - {0}
    for port in sorted(ports):
        probes.serve(port, health=health, metrics=metrics.exposition)
    if inv.admission_port:  # every replica answers admission, standby or not
        from helm_operator import admission

        admission.serve(inv.admission_port, cert_dir=Path(inv.admission_cert_dir),
                        log=lambda line: log.warning("%s", line))
    # signals are ours from here on: each part that must be undone joins the stop sequence as
    # it starts (the Lease first, so a standby takes over while this replica winds down)
    stop = shutdown.Shutdown(busy=lambda: metrics.operations_in_flight() > 0)
    stop.install()
    await_leadership(inv, admin, health, log, stop)
    cache_root = Path(inv.cache_dir) if inv.cache_dir else cache_mod.default_root(os.environ)
    requests = watches.Requests()
    pool = isolation.RenderPool(workers=inv.settings.render.workers or None,
                                limits=inv.settings.render.limits)
    stop.on_stop(pool.close)
    if stop.stopping():
        return 0  # stopped while starting: the stop sequence has run
    pool.warm()
    shared_repositories = repositories.Store()
    runtime = reconcile.Runtime(
        settings=inv.settings, admin=admin, superseded=stop.superseded(requests.superseded),
        render_pool=pool, stopping=stop.stopping, repositories=shared_repositories,
        impersonate=lambda sa, ns: admin.impersonate(service_account=sa, namespace=ns),
        connect=remote.connector(field_manager=identity.COMPONENT),
        cache=cache_mod.Cache(cache_root), log=lambda line: log.info("%s", line),
        post_event=runner.unless_terminating(admin, lambda body, type_, *, reason, message: kopf.event(
            dict(body), type=type_, reason=reason, message=message), lambda line: log.info("%s", line)))

    registry = kopf.OperatorRegistry()
    handlers.register(registry)
    repository_handlers.register(registry)
    attempts = progress.GenerationAwareProgressStorage(prefix=ANNOTATIONS_PREFIX)
    memo = kopf.Memo(runtime=runtime, metrics=metrics, last_check={}, wakeups={}, woken=set(),
                     index_woken={}, retrying={}, progress=attempts, requests=requests, repository_wakeups={})

    @kopf.on.login(registry=registry)
    def login(**kwargs: object) -> kopf.ConnectionInfo | None:
        return kopf.login_via_client(**kwargs)  # type: ignore[arg-type]

    @kopf.on.startup(registry=registry)
    async def configure(settings: kopf.OperatorSettings, **_: object) -> None:
        settings.execution.max_workers = inv.settings.runtime.workers
        settings.persistence.finalizer = FINALIZER
        settings.persistence.progress_storage = attempts
        # what was handled is read from status.observedGeneration: no annotation, no PATCH
        settings.persistence.diffbase_storage = diffbase.GenerationDiffBaseStorage(
            prefix=ANNOTATIONS_PREFIX, progress=attempts, handlers=handlers.APPLY_IDS)
        settings.posting.level = logging.WARNING
        settings.posting.reporting_component = identity.COMPONENT
        settings.posting.reporting_instance = inv.settings.leader_election.identity
        settings.watching.server_timeout = 300
        if not watch.cluster_wide:
            # Named namespaces: Kopf's scans of all namespaces and CRDs are cluster-wide reads that
            # namespaced RBAC does not grant; refused, Kopf retried them for ~55 s before serving.
            settings.scanning.disabled = True
        if watch.selector:  # the API server filters: other shards' requests never arrive
            settings.watching.label_selectors[handlers.GROUP, handlers.PLURAL] = watch.selector

        async def heartbeat() -> None:
            while True:
                health.beat()
                await asyncio.sleep(probes.HEARTBEAT_S)

        loop = asyncio.get_running_loop()
        memo.loop = loop  # handlers in worker threads schedule rechecks on it
        loop.create_task(heartbeat())
        shared_repositories.loader = repository_handlers.loader(memo, loop)
        # Own connection pool: long-lived watches must not hold the workers' connections.
        watch_client = live.connect(live.LiveOptions(kubeconfig=inv.kubeconfig or None,
                                                     in_cluster=inv.in_cluster))
        values = watches.ValuesObjects(
            requests, lambda uids: loop.call_soon_threadsafe(handlers.wake, memo, uids))
        watches.start(watch_client, namespaces=watch.namespaces, selector=watch.selector,
                      requests=requests,
                      values=values if watch.values_from else None,
                      log=lambda line: log.warning("%s", line))
        health.ready = True

    watch = inv.settings.watch
    log.info("helm-operator starting: namespaces=%s selector=%s workers=%d act-as=%s "
             "lua-allowlist=%s", ",".join(watch.namespaces) or "<all>", watch.selector or "<all>",
             inv.settings.runtime.workers, inv.settings.security.act_as,
             ",".join(sorted(inv.settings.security.lua_allowlist)) or "<none>")
    stop.run(lambda: kopf.run(registry=registry, standalone=True, clusterwide=watch.cluster_wide,
                              namespaces=watch.namespaces, stop_flag=stop.flag, memo=memo))
    pool.close()
    return 0


def _check_reachable(admin: Any) -> None:
    """Fail at start, in one line, when the API server cannot be reached (the pod restarts;
    a shell user sees why) rather than retrying watches for ever."""
    quiet = logging.getLogger("urllib3")
    level = quiet.level
    quiet.setLevel(logging.ERROR)  # its retry warnings would bury the one line that matters
    try:
        admin.discover()
    finally:
        quiet.setLevel(level)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        inv = parse(sys.argv[1:] if argv is None else argv, os.environ)
    except ValueError as exc:
        print(f"helm-operator: {exc}", file=sys.stderr)
        return 2
    from helm_core.errors import HelmError
    try:
        return run(inv)
    except HelmError as exc:  # no cluster, no kubeconfig, refused credentials: one line, no traceback
        print(f"helm-operator: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
