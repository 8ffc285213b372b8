"""What release actions share: the cluster, the storage driver, capabilities and a log.

Why one ``Configuration``: every action (install, upgrade, rollback, uninstall, get, history,
list, status, test) reaches the cluster only through ``client`` and stores releases only through
``driver`` (Helm's ``action.Configuration``), so tests and the controller swap either seam.

Rules:
- ``capabilities`` None means "ask the cluster": the server's version and the discovery
  version set (Helm's ``GetVersionSet``), read once per action run.
- Every mutating action runs inside ``locked``: the release's Lease lock is taken first, then
  versions left pending by a dead operation are marked failed (``recover_interrupted``), so a
  crash never blocks a release for good.
- Every wait polls with ``wait_options`` so ``cancelled`` reaches it; a cancelled wait fails
  the version like a timed-out one (Helm marks a release failed when its context is cancelled).
- Stored manifests are parsed back with ``parse_manifest``; objects are resolved (namespace
  filled, kind checked by discovery) before any comparison or write.
"""
from __future__ import annotations

import concurrent.futures
import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from helm_core.engine import capabilities as caps_mod
from helm_core.engine import manifests as mf
from helm_core.errors import ClusterError, ManifestError, WaitCancelled
from helm_core.golib import goyaml
from helm_core.kube import client as kclient
from helm_core.kube import resources
from helm_core.kube import wait as kwait
from helm_core.storage import driver as drv
from helm_core.storage import lock as lock_mod
from helm_core.storage import release as rel
from helm_core.support.records import field, record, replace

if TYPE_CHECKING:
    from helm_core.engine.renderer import Renderer as Renderer  # re-exported for type hints


def _quiet(_line: str) -> None:
    return None


@record(frozen=True)
class Configuration:
    """The seams of every release action (Helm's ``action.Configuration``)."""

    client: kclient.ClusterClient
    """The cluster, through the ``ClusterClient`` Protocol only."""
    driver: drv.Driver
    """Where release versions are stored (``SecretsDriver`` on a cluster)."""
    capabilities: caps_mod.Capabilities | None = None
    """``.Capabilities`` for templates; None reads them from the cluster."""
    log: Callable[[str], None] = _quiet
    """Progress lines (``client.log`` in Helm)."""
    lock: lock_mod.LockOptions = field(default_factory=lock_mod.LockOptions)
    """Timing and holder identity of release locks."""
    cancelled: Callable[[], str] = kwait.never_cancelled
    """Asked between the polls of every wait (``--wait``, hooks, CRDs, deletions): a reason
    stops the wait with ``WaitCancelled``, which the actions handle as a failed wait."""
    renderer: Renderer | None = None
    """Where chart code runs (:class:`helm_core.engine.renderer.Renderer`): None is this
    process; the controller passes worker processes under render limits."""
    on_locked: Callable[[str, str], None] = lambda _namespace, _name: None
    """Called with the release's namespace and name once its lock is held, before its history
    is read (the controller claims a first install's release there: ``Driver.claim``)."""


def on_cluster(client: kclient.ClusterClient, *, storage: str = "release", helm_secrets: str = "keep",
               announce_after_s: float = 0.0, **options: Any) -> Configuration:
    """A configuration storing releases on the cluster of ``client``: how callers outside
    helm_core (the controller, the CLI) get one without knowing the storage drivers.

    ``storage`` is ``release`` (ours, adopting releases stock helm made, whose Secrets are then
    kept or deleted as ``helm_secrets`` says) or ``helm`` (helm's own format). Raises
    ``ValueError`` naming an unknown storage or policy. ``announce_after_s``: an operation
    running this long shows its pending version in the ``Release`` status (0: at once).
    """
    from helm_core.storage import select

    driver = select.open_driver(client, storage=storage, helm_secrets=helm_secrets, log=options.get("log"),
                                announce_after_s=announce_after_s)
    return Configuration(client=client, driver=driver, **options)


def renderer_of(cfg: Configuration) -> Renderer:
    """``cfg.renderer``, or rendering in this process."""
    if cfg.renderer is not None:
        return cfg.renderer
    return local_renderer()


def local_renderer() -> Renderer:
    """Chart code run in this process (tests of callers; the CLI's own process is limited)."""
    from helm_core.engine import renderer

    return renderer.LOCAL


def cluster_capabilities(cfg: Configuration) -> caps_mod.Capabilities:
    """``cfg.capabilities``, or the cluster's version and discovery version set."""
    if cfg.capabilities is not None:
        return cfg.capabilities
    discovery = cfg.client.discover()
    return caps_mod.Capabilities(caps_mod.KubeVersion.parse(discovery.server_version),
                                 caps_mod.VersionSet(discovery.api_versions()),
                                 caps_mod.HelmVersion())


@contextlib.contextmanager
def locked(cfg: Configuration, *, namespace: str, name: str,
           operation: str) -> Iterator[list[rel.ReleaseVersion]]:
    """Hold the release's lock for one operation and recover versions left pending; yields the
    release's history as it is then (the one read the recovery needs serves the action too)."""
    with lock_mod.ReleaseLock(cfg.client, namespace=namespace, release=name, operation=operation,
                              options=cfg.lock):
        cfg.on_locked(namespace, name)
        history, recovered = drv.recover(cfg.driver, cfg.driver.history(namespace, name))
        for version in recovered:
            cfg.log(f"recovered interrupted version {version.version}: marked failed")
        yield history


def owner(cfg: Configuration, *, namespace: str, name: str) -> resources.Owner:
    """The release as owner of its objects: with a reference to its ``Release`` when stored."""
    reference = cfg.driver.owner_reference(namespace, name)
    if reference is None:
        return resources.Owner(name=name, namespace=namespace)
    return resources.Owner(name=name, namespace=namespace, reference=reference)


def parse_manifest(text: str, *, source: str = "manifest") -> list[dict[str, Any]]:
    """The objects of a stored manifest (``---`` joined documents), in stored order."""
    objects = []
    for doc in mf.split_documents(text):
        try:
            obj = goyaml.load(doc, source=source)
        except ValueError as exc:
            raise ManifestError(f"stored {source} is not valid YAML: {exc}") from None
        if isinstance(obj, dict) and obj:
            objects.append(obj)
    return objects


def resolve_all(cfg: Configuration, objects: Sequence[Mapping[str, Any]],
                namespace: str) -> list[dict[str, Any]]:
    """Every object with its namespace settled by discovery (an unserved kind is an error)."""
    return [resources.resolve(cfg.client, obj, namespace) for obj in objects]


def resolve_stored(cfg: Configuration, objects: Sequence[Mapping[str, Any]],
                   namespace: str) -> list[dict[str, Any]]:
    """Objects of a stored manifest, resolved; kinds no longer served (their CRD is gone, so
    are they) are skipped with a log line instead of failing the operation."""
    resolved = []
    for obj in objects:
        try:
            resolved.append(resources.resolve(cfg.client, obj, namespace))
        except ClusterError as exc:
            cfg.log(f"skipping {kclient.ObjectRef.of(obj)}: {exc}")
    return resolved


def wait_options(cfg: Configuration, timeout_s: float, *, wait_for_jobs: bool = True) -> kwait.WaitOptions:
    """Polling options for one ``--timeout``, with the configuration's cancellation hook;
    ``wait_for_jobs`` False counts a Job ready once started (helm without ``--wait-for-jobs``)."""
    return kwait.WaitOptions(timeout_s=timeout_s, cancelled=cfg.cancelled, wait_for_jobs=wait_for_jobs)


def for_undo(cfg: Configuration, failure: BaseException) -> tuple[Configuration, bool]:
    """The configuration and the ``wait`` flag of an ``--atomic`` undo after ``failure``.

    Helm undoes a release whose context was cancelled like any failed one; but the caller
    stopped waiting, so after a ``WaitCancelled`` the undo does not wait for readiness and is
    not itself cancelled half-way (which would leave it half-done)."""
    if isinstance(failure, WaitCancelled):
        return replace(cfg, cancelled=kwait.never_cancelled), False
    return cfg, True


APPLY_WORKERS = 8
"""Objects of one kind applied at the same time (Helm's ``batchPerform`` runs a kind's objects
in parallel, kinds one after the other)."""


def apply_batched(cfg: Configuration, objects: Sequence[Mapping[str, Any]],
                  owner: resources.Owner, *, replace: bool = False) -> list[dict[str, Any]]:
    """Server-side apply resolved ``objects`` (already in kind order) marked for ``owner``:
    consecutive objects of one kind in parallel, each kind finished before the next starts.
    ``replace`` (helm's ``--force``): existing objects are replaced instead (``resources.replace``),
    and one the server refuses to replace does not stop the others: their refusals are raised
    together once every object was tried (``resources.joined``), as helm's ``Update`` does."""
    def put(obj: Mapping[str, Any]) -> dict[str, Any] | ClusterError:
        marked = resources.mark(obj, owner)
        return resources.replace(cfg.client, marked) if replace else cfg.client.apply(marked, force=True)

    applied: list[dict[str, Any]] = []
    refused: list[ClusterError] = []
    for batch in _kind_batches(objects):
        for done in parallel_map(put, batch):
            if isinstance(done, ClusterError):
                refused.append(done)
            else:
                applied.append(done)
    if refused:
        raise resources.joined(refused)
    return applied


T = TypeVar("T")
R = TypeVar("R")


def parallel_map(fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
    """``[fn(item) for item in items]``, up to ``APPLY_WORKERS`` at a time; a single item runs
    in the calling thread (a thread started and joined per object cost a controller running
    16 installs at once more CPU than the request itself)."""
    if len(items) <= 1:
        return [fn(item) for item in items]
    with concurrent.futures.ThreadPoolExecutor(max_workers=min(APPLY_WORKERS, len(items))) as pool:
        return list(pool.map(fn, items))


def _kind_batches(objects: Sequence[Mapping[str, Any]]) -> list[list[Mapping[str, Any]]]:
    batches: list[list[Mapping[str, Any]]] = []
    for obj in objects:
        if batches and batches[-1][0].get("kind") == obj.get("kind"):
            batches[-1].append(obj)
        else:
            batches.append([obj])
    return batches


def delete_batched(cfg: Configuration, objects: Sequence[Mapping[str, Any]], *,
                   propagation: kclient.Propagation = kclient.Propagation.BACKGROUND) -> resources.Deletion:
    """``resources.delete_all`` of resolved ``objects`` (already in uninstall order): a kind's
    objects in parallel, kinds one after the other; the keep policy is respected."""
    deleted: list[kclient.ObjectRef] = []
    kept: list[kclient.ObjectRef] = []
    missing: list[kclient.ObjectRef] = []
    for batch in _kind_batches(objects):
        for one in parallel_map(lambda o: resources.delete_all(cfg.client, [kclient.ObjectRef.of(o)],
                                                               propagation=propagation), batch):
            deleted += one.deleted
            kept += one.kept
            missing += one.missing
    return resources.Deletion(deleted=tuple(deleted), kept=tuple(kept), missing=tuple(missing))


def check_adoption(cfg: Configuration, objects: Sequence[Mapping[str, Any]], owner: resources.Owner,
                   *, adopt: bool, operation: str) -> list[kclient.ObjectRef]:
    """``resources.check_adoption`` with the GETs in parallel: the objects that exist already;
    the first object (in ``objects`` order) owned by someone else is the error, as when checked
    one by one."""
    def check(obj: Mapping[str, Any]) -> list[kclient.ObjectRef] | BaseException:
        try:
            return resources.check_adoption(cfg.client, [obj], owner, adopt=adopt, operation=operation)
        except Exception as exc:  # noqa: BLE001 - raised below, in objects order
            return exc

    existing: list[kclient.ObjectRef] = []
    for found in parallel_map(check, objects):
        if isinstance(found, BaseException):
            raise found
        existing += found
    return existing


def by_kind(objects: Sequence[Mapping[str, Any]], order: tuple[str, ...]) -> list[dict[str, Any]]:
    """A stable sort of objects by kind in Helm's ``order`` (install or uninstall)."""
    return sorted((dict(o) for o in objects),
                  key=lambda o: mf.kind_sort_key(str(o.get("kind", "")), order))
