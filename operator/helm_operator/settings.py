"""Operator settings: what the admin decides, as frozen records per concern.

Only ``main`` reads flags and the environment and builds an :class:`OperatorSettings`; every other
module receives it. Each field's docstring gives its meaning, unit and why the default is what it is.
"""
from __future__ import annotations

from helm_core.support.limits import DEFAULT_LIMITS, RenderLimits
from helm_core.support.records import field, record

#: Lua permissions an admin may allow (``helm_core.lua.permissions.ALL_PERMISSIONS``).
LOG_FORMATS = ("text", "json")
DEFAULT_WORKERS = 16
DEFAULT_PROBE_PORT = 8080
DEFAULT_METRICS_PORT = 9090
MAX_WORKERS = 256
DEFAULT_LEASE_NAME = "helm-operator-leader"
DEFAULT_ANNOUNCE_AFTER_S = 5.0
#: Flux's ``--requeue-dependency`` default: seconds between looks at dependencies not Ready.
DEFAULT_REQUEUE_DEPENDENCY_S = 30.0


@record(frozen=True)
class WatchSettings:
    """Which HelmRequests this operator serves."""

    namespaces: tuple[str, ...] = ()
    """Namespaces to watch; empty means the whole cluster (needs cluster-wide list/watch)."""

    values_from: bool = True
    """Watch ConfigMaps/Secrets (metadata only) so a change to one a request's ``valuesFrom``
    names upgrades it at once. Needs list/watch on configmaps and secrets; false drops that
    need, and such changes are then seen at ``spec.interval``."""

    selector: str = ""
    """Label selector of the HelmRequests this replica serves (its shard, ``--selector``);
    empty serves them all. Applied by the API server to every HelmRequest watch, so requests
    of other shards never reach this process."""

    @property
    def cluster_wide(self) -> bool:
        return not self.namespaces


@record(frozen=True)
class SecuritySettings:
    """Who the controller acts as, and what chart Lua may do."""

    lua_allowlist: frozenset[str] = frozenset()
    """Lua permissions a request may accept (io, network, os). Empty by default: a chart's Lua
    gets nothing beyond the sandbox unless the admin allows it and the request accepts it."""

    default_service_account: str = ""
    """ServiceAccount (in the request's namespace) used when a request names none. Empty means
    the controller's own identity is used for such requests — only sensible on a single-tenant
    cluster, which is why :attr:`require_service_account` exists."""

    require_service_account: bool = False
    """When true, a request with no serviceAccountName (and no default) is Stalled instead of
    running with the controller's own rights."""

    no_cross_namespace_refs: bool = False
    """When true (``--no-cross-namespace-refs``), a HelmRequest may only name a HelmRepository
    of its own namespace. False by default, as Flux: a platform team shares one repository
    (and its credentials, never shown to the request) with every namespace."""
    act_as: str = "serviceaccount"
    """``serviceaccount`` (default): releases run as the request's ServiceAccount.
    ``requester``: as the user who last applied the request, stamped at admission
    (docs/requester.md). A Namespace's ``helm.sh/act-as`` label overrides it for its requests."""


@record(frozen=True)
class RuntimeSettings:
    """How the process runs."""

    workers: int = DEFAULT_WORKERS
    """Helm operations running at once (install/upgrade/uninstall). A reconcile mostly waits
    on the API server (about 20 requests for an install, plus ``--wait``), so workers are
    threads that sleep; bench/controller.py measured N=300 small requests Ready in 33.8 s
    with 8 and 18-22 s with 16-24 on a 2-core machine. Each running operation holds its
    chart and render in memory: lower it for huge charts. Between 1 and ``MAX_WORKERS``."""

    log_format: str = "text"
    """``text`` for humans, ``json`` (one object per line) for log collectors."""

    probe_port: int = DEFAULT_PROBE_PORT
    """Port of ``/healthz`` (liveness) and ``/readyz`` (readiness); 0 disables them."""

    metrics_port: int = DEFAULT_METRICS_PORT
    """Port of the Prometheus ``/metrics`` endpoint; 0 disables it."""

    announce_after_s: float = DEFAULT_ANNOUNCE_AFTER_S
    """Seconds an install, upgrade or rollback runs before it is announced: the HelmRequest's
    Reconciling condition and the Release's pending status are written only if the operation
    is still running then (a long ``--wait`` shows them after this grace). A faster operation
    writes its result alone, two custom-resource writes fewer, the API server's costliest
    requests (docs/scale.md); kstatus reads ``observedGeneration < generation`` as in progress
    meanwhile. Why 5 s and not 1-2 s: when many requests arrive at once, an install lasts
    (operations in flight) / (API server throughput) from the runner's start; bench/scale.py
    (1000 over 3 shards, 48 in flight) measured 2 s saving no Reconciling write and 5 s nearly
    all. 0 (``--announce-after 0s``) writes them at once."""

    requeue_dependency_s: float = DEFAULT_REQUEUE_DEPENDENCY_S
    """Seconds between looks at a request's ``spec.dependsOn`` while one of them is not Ready
    (Flux's ``--requeue-dependency``): a fixed interval, not the failure backoff."""

    def __post_init__(self) -> None:
        if not 1 <= self.workers <= MAX_WORKERS:
            raise ValueError(f"workers must be between 1 and {MAX_WORKERS}, not {self.workers}")
        if not 0 <= self.announce_after_s <= 3600:
            raise ValueError(f"announce after must be between 0 and 3600 seconds, not {self.announce_after_s}")
        if self.requeue_dependency_s <= 0:
            raise ValueError(f"requeue dependency must be positive, not {self.requeue_dependency_s}")
        if self.log_format not in LOG_FORMATS:
            raise ValueError(f"log format must be one of {', '.join(LOG_FORMATS)}, not {self.log_format!r}")
        for name in ("probe_port", "metrics_port"):
            port = getattr(self, name)
            if not 0 <= port <= 65535:
                raise ValueError(f"{name.replace('_', ' ')} must be between 0 and 65535, not {port}")


@record(frozen=True)
class RenderSettings:
    """Where and under which limits chart code runs (loading, values, schemas, templates)."""

    limits: RenderLimits = DEFAULT_LIMITS
    """The ceiling of every render; a request's ``spec.renderLimits`` may only lower it."""

    workers: int = 0
    """Render worker processes (0: two to four, by CPU count). Each holds compiled charts
    (about 60-100 MB); a namespace may use all but one of them at once."""

    def __post_init__(self) -> None:
        if not 0 <= self.workers <= MAX_WORKERS:
            raise ValueError(f"render workers must be between 0 and {MAX_WORKERS}, not {self.workers}")


@record(frozen=True)
class LeaderElectionSettings:
    """Whether replicas elect one leader that reconciles (``--leader-elect``); the timings are
    client-go's defaults, which controller-runtime uses: a dead leader is replaced within
    ``lease_duration_s`` plus ``retry_period_s``, a released Lease within ``retry_period_s``."""

    enabled: bool = False
    namespace: str = ""
    """Namespace of the Lease (``--leader-election-namespace``)."""

    identity: str = ""
    """This replica's name in the Lease (``--identity``; default the pod name, else host name)."""

    lease_name: str = DEFAULT_LEASE_NAME
    """One Lease per shard (``leader.lease_name``)."""

    lease_duration_s: float = 15.0
    renew_deadline_s: float = 10.0
    retry_period_s: float = 2.0

    def __post_init__(self) -> None:
        if not 0 < self.retry_period_s < self.renew_deadline_s < self.lease_duration_s:
            raise ValueError("leader election needs retry period < renew deadline < lease duration")


@record(frozen=True)
class OperatorSettings:
    """Everything the controller needs from its admin, composed per concern."""

    watch: WatchSettings = field(default_factory=WatchSettings)
    security: SecuritySettings = field(default_factory=SecuritySettings)
    runtime: RuntimeSettings = field(default_factory=RuntimeSettings)
    render: RenderSettings = field(default_factory=RenderSettings)
    leader_election: LeaderElectionSettings = field(default_factory=LeaderElectionSettings)
