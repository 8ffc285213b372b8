"""HelmRepository: one chart repository shared by many HelmRequests (issue 21, item 1).

The repository's reconciler fetches its ``index.yaml`` once per ``spec.interval`` (revalidated
with ETag/Last-Modified; the index lands in the content-addressed chart cache) and keeps, in
:class:`Store`, the URL, the credentials and the digest of the index it fetched. Requests
naming it (``spec.chart.repositoryRef``) resolve their version range in *that* cached index
and never ask the server for it: N requests of one repository cost one index fetch per
interval. A new digest wakes the requests that reference the repository (their interval check
runs now), and those whose range now resolves to a newer version upgrade.

Rules:
- ``spec.url`` ``http(s)://`` has an index; ``oci://`` has none (a registry lists tags per
  chart): the reconciler only reads the credentials, and each request resolves its tags itself,
  as Flux's OCI HelmRepository does.
- ``spec.secretRef`` (Flux's keys: username/password, ca.crt, tls.crt/tls.key, or a
  ``kubernetes.io/dockerconfigjson`` Secret for OCI) is read as ``spec.serviceAccountName``
  (default the admin's default account, policy.service_account): the controller itself has no
  right to read Secrets.
- A request may name a repository of another namespace unless the admin runs with
  ``--no-cross-namespace-refs`` (Flux's flag and default: allowed).
- ``spec.suspend`` stops fetching; the last index fetched keeps serving the requests.
- One fetch at a time per repository, and none while the last one is fresher than the
  interval (same generation): a request that needs a repository this process has not fetched
  yet (just started) loads it through :attr:`Store.loader`, and the daemon then waits.
- Shards (``--selector``): the replica whose selector matches the repository's labels owns it
  (status, Events, fetches at its interval); any other replica fetches it only while one of
  its own requests names it, into its memory, without writing its status (:func:`owns`).
- Status follows kstatus: Ready True with the artifact (digest, size, lastUpdateTime) and
  ``lastFetchTime``; fetch errors are Ready False + Reconciling (retried at the interval: a
  repository outage is not the user's mistake); a bad URL or a Secret that cannot be read is
  Ready False + Stalled until the spec (or the Secret) changes.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from helm_core import errors as core_errors
from helm_core import sources as core_sources
from helm_core.golib import labels as selectors
from helm_core.kube import client as kclient
from helm_core.sources import oci
from helm_core.sources import repo as repo_mod
from helm_core.support import limits
from helm_core.support.records import field, record
from helm_operator import errors, ondemand, policy, sources, status
from helm_operator import settings as settings_mod

if TYPE_CHECKING:
    from helm_operator import reconcile

API_VERSION, KIND = "helm.sh/v1alpha1", "HelmRepository"
DEFAULT_INTERVAL_S = 600.0
#: Ready reasons (Flux's source-controller words where it has them).
SUCCEEDED = "Succeeded"
INDEX_FETCH_FAILED = "IndexationFailed"
AUTH_FAILED = "AuthenticationFailed"
INVALID_URL = "URLInvalid"
#: A request's reason when the operator refuses its cross-namespace repositoryRef (Flux's, for
#: a sourceRef its ACL blocks).
ACCESS_DENIED = "AccessDenied"


class RepositoryNotReady(core_errors.RegistryUnavailableError):
    """The HelmRepository a request names is missing or has no index yet: the request stays
    Reconciling and is woken when the repository gets one."""


@record(frozen=True)
class Artifact:
    """What a repository's reconciler fetched: enough for a request to resolve a chart."""

    url: str
    credentials: core_sources.Credentials = field(repr=False)
    index_digest: str = ""
    """``sha256:`` of the cached index (empty for ``oci://``: no index)."""
    size: int = 0

    @property
    def is_oci(self) -> bool:
        return self.url.startswith("oci://")


@record(frozen=True)
class RepositoryKey:
    namespace: str
    name: str

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}"


class Store:
    """The artifact of every repository this process reconciles, and why the others have
    none (thread-safe: the repository daemons write, the request workers read).

    ``loader(key)``, when set, fetches a repository a request asks for before its daemon has
    (the controller just started): the request waits for that one fetch instead of flapping to
    not-Ready, and the daemon then finds the index fresh (:meth:`due_in`)."""

    def __init__(self, loader: Callable[[RepositoryKey], None] | None = None) -> None:
        self.loader = loader
        self._lock = threading.Lock()
        self._artifacts: dict[RepositoryKey, Artifact] = {}
        self._errors: dict[RepositoryKey, str] = {}
        self._attempts: dict[RepositoryKey, tuple[float, int]] = {}
        self._fetch_locks: dict[RepositoryKey, threading.Lock] = {}

    def fetch_lock(self, key: RepositoryKey) -> threading.Lock:
        """Held while the repository is fetched: one fetch at a time per repository."""
        with self._lock:
            return self._fetch_locks.setdefault(key, threading.Lock())

    def attempted(self, key: RepositoryKey, generation: int) -> None:
        """A fetch of this generation of the repository ended (either way), now."""
        with self._lock:
            self._attempts[key] = (time.monotonic(), generation)

    def due_in(self, key: RepositoryKey, generation: int, interval_s: float) -> float:
        """Seconds until the repository's next fetch; 0 when never fetched or its spec changed."""
        with self._lock:
            at, seen = self._attempts.get(key, (0.0, -1))
        if seen != generation:
            return 0.0
        return max(0.0, at + interval_s - time.monotonic())

    def put(self, key: RepositoryKey, artifact: Artifact) -> bool:
        """Record a fetch; True when the index changed (or is the first one)."""
        with self._lock:
            before = self._artifacts.get(key)
            self._artifacts[key] = artifact
            self._errors.pop(key, None)
        return before is None or before.index_digest != artifact.index_digest \
            or before.url != artifact.url

    def failed(self, key: RepositoryKey, message: str) -> None:
        """A fetch failed: the last artifact (if any) keeps serving, the message explains."""
        with self._lock:
            self._errors[key] = message

    def has(self, key: RepositoryKey) -> bool:
        with self._lock:
            return key in self._artifacts

    def drop(self, key: RepositoryKey) -> None:
        with self._lock:
            self._artifacts.pop(key, None)
            self._errors.pop(key, None)
            self._attempts.pop(key, None)

    def get(self, key: RepositoryKey) -> Artifact:
        """The artifact (loaded first when there is none yet and a loader is set), or
        RepositoryNotReady saying why there is none."""
        with self._lock:
            artifact = self._artifacts.get(key)
            tried = key in self._attempts
        if artifact is None and not tried and self.loader is not None:
            self.loader(key)
        with self._lock:
            artifact = self._artifacts.get(key)
            error = self._errors.get(key, "")
        if artifact is not None:
            return artifact
        why = f": {error}" if error else " (not found, or its index is not fetched yet)"
        raise RepositoryNotReady(f"HelmRepository {key} is not ready{why}")


# --- what a request does with spec.chart.repositoryRef -------------------------------------------

def chart_ref(ref: Mapping[str, Any], *, namespace: str, store: Store, cross_namespace: bool
              ) -> tuple[core_sources.ChartRef, core_sources.Credentials]:
    """The chart reference for ``spec.chart.repositoryRef`` ({name, namespace?, chart,
    version?}): the repository's cached index and credentials."""
    key = RepositoryKey(str(ref.get("namespace") or namespace), str(ref["name"]))
    if key.namespace != namespace and not cross_namespace:
        raise errors.RequestError(
            f"spec.chart.repositoryRef: cannot use HelmRepository {key} from namespace "
            f"{namespace}: cross-namespace references are not allowed by the operator "
            "(--no-cross-namespace-refs)", reason=ACCESS_DENIED)
    artifact = store.get(key)
    chart, version = str(ref["chart"]), str(ref.get("version") or "")
    if artifact.is_oci:
        return (core_sources.ChartRef(kind="oci", url=f"{artifact.url.rstrip('/')}/{chart}",
                                      version=version), artifact.credentials)
    return (core_sources.ChartRef(kind="repo", url=artifact.url, name=chart, version=version,
                                  index_digest=artifact.index_digest), artifact.credentials)


def resolver(store: Store, *, namespace: str, security: settings_mod.SecuritySettings
             ) -> sources.SharedRepository:
    """What :func:`helm_operator.sources.chart_ref` calls for a request of ``namespace``."""
    def resolve(ref: Mapping[str, Any]) -> tuple[core_sources.ChartRef, core_sources.Credentials]:
        return chart_ref(ref, namespace=namespace, store=store,
                         cross_namespace=not security.no_cross_namespace_refs)
    return resolve


# --- the repository's reconciler -------------------------------------------------------------------

@record(frozen=True)
class Outcome:
    status: dict[str, Any]
    changed: bool = False
    """The index has a new digest (or is the first one): wake the requests that use it."""
    failed: bool = False


def fetch(body: Mapping[str, Any], *, store: Store, cache: core_sources.Cache,
          security: settings_mod.SecuritySettings,
          client_for: Callable[[str, str], kclient.ClusterClient],
          now: Callable[[], str] = status.now_rfc3339) -> Outcome:
    """Reconcile one HelmRepository: read its credentials, fetch its index (once), record the
    artifact in ``store`` and return the new status. Never raises for the repository's own
    failures: they are in the returned status (and the store, for the requests to quote).

    ``client_for(service_account, namespace)`` reads as that account ("" = the controller)."""
    meta, spec = body["metadata"], body.get("spec") or {}
    old = dict(body.get("status") or {})
    generation = int(meta.get("generation") or 1)
    key = RepositoryKey(meta["namespace"], meta["name"])
    url = str(spec.get("url") or "").rstrip("/")
    if spec.get("suspend"):
        if not store.has(key):  # nothing fetched since this process started: say why
            store.failed(key, "it is suspended and has no index fetched since the controller "
                              "started (resume it: spec.suspend false)")
        return Outcome(status.suspended(old, generation=generation, now=now()))
    try:
        credentials = _credentials(meta, spec, url, security=security, client_for=client_for)
        if url.startswith("oci://"):
            oci.Reference.parse(url + "/probe")  # refuse a malformed URL now, not per request
            changed = store.put(key, Artifact(url=url, credentials=credentials))
            return Outcome(_ready(old, generation, now(), url=url, message=(
                "OCI repository: charts and their tags are resolved by each HelmRequest")),
                changed=changed)
        if not url.startswith(("http://", "https://")):
            raise errors.RequestError(f"spec.url {url!r}: want http://, https:// or oci://",
                                      reason=INVALID_URL)
        with repo_mod.Repository(url, credentials=credentials, cache=cache) as repository:
            index = repository.index()
        size = cache.blob_path(index.digest).stat().st_size if cache.has(index.digest) else 0
        changed = store.put(key, Artifact(url=repository.url, credentials=credentials,
                                          index_digest=index.digest, size=size))
        charts = len(index.entries)
        stamp = now()
        out = _ready(old, generation, stamp, url=url, message=(
            f"stored index {index.digest} ({size} bytes, {charts} chart"
            f"{'' if charts == 1 else 's'})"))
        artifact = dict(old.get("artifact") or {})
        if artifact.get("digest") != index.digest:
            artifact = {"digest": index.digest, "revision": index.digest, "size": size,
                        "lastUpdateTime": stamp}
        out.update(artifact=artifact, lastFetchTime=stamp)
        return Outcome(out, changed=changed)
    except Exception as exc:  # noqa: BLE001 - every failure becomes status
        message = errors.message(exc)
        store.failed(key, message)
        permanent = isinstance(exc, errors.RequestError) or (
            errors.is_permanent(exc) and not isinstance(exc, core_errors.SourceError))
        reason = (exc.reason if isinstance(exc, errors.RequestError)
                  else AUTH_FAILED if isinstance(exc, (core_errors.AuthError, core_errors.ForbiddenError))
                  else INDEX_FETCH_FAILED)
        # retried at the interval, Reconciling ProgressingWithRetry as Flux's source-controller
        out = status.failed(old, generation=generation, reason=reason, message=message,
                            retrying=not permanent, released=None, now=now())
        out.pop("failures", None)
        return Outcome(out, failed=True)


def _credentials(meta: Mapping[str, Any], spec: Mapping[str, Any], url: str, *,
                 security: settings_mod.SecuritySettings,
                 client_for: Callable[[str, str], kclient.ClusterClient]) -> core_sources.Credentials:
    secret_ref = spec.get("secretRef")
    if not secret_ref:
        return core_sources.Credentials()
    account = policy.service_account(meta, spec, security=security, kind=KIND)
    client = client_for(account, meta["namespace"])

    def read(kind: str, name: str) -> Mapping[str, Any] | None:
        try:
            return client.get(kclient.ObjectRef("v1", kind, name, meta["namespace"]))
        except core_errors.NotFoundError:
            return None

    registry = oci.Reference.parse(url + "/probe").registry if url.startswith("oci://") else ""
    try:
        return sources.credentials_from(secret_ref, namespace=meta["namespace"], read=read,
                                        registry=registry)
    except core_errors.ForbiddenError as exc:
        who = f"service account {meta['namespace']}/{account}" if account else "the controller"
        raise errors.RequestError(f"cannot read spec.secretRef as {who}: {exc}",
                                  reason=AUTH_FAILED) from None


def _ready(old: Mapping[str, Any], generation: int, now: str, *, url: str, message: str
           ) -> dict[str, Any]:
    out = {k: v for k, v in old.items() if k not in ("lastError",)}
    conds = status.remove_condition(status.remove_condition(
        old.get("conditions") or [], status.STALLED), status.RECONCILING)
    out["conditions"] = status.set_condition(conds, type_=status.READY, status="True",
                                             reason=SUCCEEDED, message=message,
                                             generation=generation, now=now)
    out.update(observedGeneration=generation, url=url)
    return out


def interval_seconds(spec: Mapping[str, Any]) -> float:
    """``spec.interval`` in seconds (the CRD's pattern admits only Go durations)."""
    text = spec.get("interval")
    try:
        return limits.parse_duration(text) if text else DEFAULT_INTERVAL_S
    except ValueError:
        return DEFAULT_INTERVAL_S


def owns(rt: reconcile.Runtime, body: Mapping[str, Any]) -> bool:
    """Whether this replica owns the repository: writes its status and Events and fetches it
    at its interval even when no request uses it. That is the replica whose shard selector
    (``--selector``, also applied to requests) matches the repository's labels, as Flux's
    sharding applies one label selector to sources and releases alike; every replica without a
    selector owns them all. Other replicas fetch a repository only for their own requests,
    into memory (the index lives in each process), and leave its status alone."""
    labels = (body.get("metadata") or {}).get("labels") or {}
    return selectors.matches(rt.settings.watch.selector, labels)


def reconcile_repository(rt: reconcile.Runtime, body: Mapping[str, Any]) -> Outcome | None:
    """:func:`fetch` with the runtime's clients, then (if this replica :func:`owns` it) the
    status written (when it changed) and an Event for a new index or a new failure. None when
    the index is still fresh (fetched less than ``spec.interval`` ago for this generation,
    e.g. by :func:`load`)."""
    store = rt.repositories
    if store is None:
        raise ValueError("the runtime serves no HelmRepository (Runtime.repositories is None)")
    meta = body["metadata"]
    key = RepositoryKey(meta["namespace"], meta["name"])
    generation = int(meta.get("generation") or 1)

    def client_for(account: str, namespace: str) -> kclient.ClusterClient:
        return rt.impersonate(account, namespace) if account else rt.admin

    ours = owns(rt, body)
    # a Flux reconcile token fetches now; only the owner, which records it (another shard
    # would see it pending at every look and fetch without end)
    requested = ours and ondemand.pending(body)
    with store.fetch_lock(key):
        if not requested and store.due_in(key, generation, interval_seconds(body.get("spec") or {})) > 0:
            return None
        try:
            outcome = fetch(body, store=store, cache=rt.cache, security=rt.settings.security,
                            client_for=client_for)
        finally:
            store.attempted(key, generation)
        if requested:  # handled, whatever the fetch's result (`flux reconcile` waits for it)
            outcome.status[ondemand.HANDLED_FIELDS[ondemand.REQUESTED_AT]] = \
                body["metadata"]["annotations"][ondemand.REQUESTED_AT]
        if ours:
            _record(rt, body, outcome)
    return outcome


def load(rt: reconcile.Runtime, key: RepositoryKey) -> Outcome | None:
    """Fetch a repository a request needs before its daemon did (read from the API server);
    None when it does not exist, is not watched by this operator or is fresh already."""
    if rt.repositories is None:
        return None
    watched = rt.settings.watch.namespaces
    if watched and key.namespace not in watched:
        rt.repositories.failed(key, f"namespace {key.namespace} is not watched by this operator")
        return None
    try:
        body = rt.admin.get(kclient.ObjectRef(API_VERSION, KIND, key.name, key.namespace))
    except core_errors.NotFoundError:
        # say which of the two it is (a typo in repositoryRef reads "not found" at once); its
        # creation clears it (the daemon's first fetch, or the next request's load)
        rt.repositories.failed(key, f"not found in namespace {key.namespace}")
        return None
    return reconcile_repository(rt, body)


def _record(rt: reconcile.Runtime, body: Mapping[str, Any], outcome: Outcome) -> None:
    """Write the repository's new status and post the Events it deserves."""
    meta = body["metadata"]
    old = body.get("status") or {}
    if outcome.status != old:
        try:
            rt.admin.apply({"apiVersion": API_VERSION, "kind": KIND,
                            "metadata": {"name": meta["name"], "namespace": meta["namespace"]},
                            "status": outcome.status}, subresource="status", force=True)
        except core_errors.HelmError as exc:  # the store is what requests read: go on
            rt.log(f"cannot write status of HelmRepository {meta['namespace']}/{meta['name']}: {exc}")
    ready = status.get_condition(outcome.status, status.READY) or {}
    before = status.get_condition(old, status.READY) or {}
    if outcome.failed and ready.get("message") != before.get("message"):
        rt.post_event(body, "Warning", reason=ready.get("reason", INDEX_FETCH_FAILED),
                      message=ready.get("message", ""))
    elif outcome.changed and (outcome.status.get("artifact") or {}).get("digest") != \
            (old.get("artifact") or {}).get("digest"):
        rt.post_event(body, "Normal", reason="NewArtifact", message=ready.get("message", ""))
