"""Watches the controller keeps beside Kopf's: newer generations, and valuesFrom objects.

Why not Kopf handlers: Kopf handles one object's events one after the other, so while a
request's handler waits (an install with ``--wait``), the request's newer events queue behind
it and no Kopf handler of that request can see them; and a Kopf handler on Secrets would
stream every Secret's data (release versions of up to 1 MiB each) through the process.

Rules:
- HelmRequests: :class:`Requests` keeps, per uid, only the latest generation and the
  ConfigMaps/Secrets its ``spec.valuesFrom`` names (no bodies).
- ConfigMaps and Secrets are listed and watched metadata-only (``PartialObjectMetadata``: no
  ``data`` crosses the wire, whatever the object's size); :class:`ValuesObjects` keeps the
  resourceVersion of the referenced ones only. A change — a new resourceVersion, a deletion,
  or a referenced object created after the first listing — reports the uids of the requests
  referencing it. Every object is referenced by name, no label needed (Flux needs
  ``reconcile.fluxcd.io/watch: Enabled``; its users' first surprise is that changes are
  missed without it).
- Each watch starts with a LIST (the known state: nothing is reported for it), then watches from
  the list's resourceVersion, reconnects from the last one seen when the server ends the
  request, starts over after 410 Gone, and backs off from 1 s to 30 s after errors.
- One watch per kind for the whole cluster, or one per kind and watched namespace.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Protocol

from helm_core import errors as core_errors
from helm_core.support.records import record
from helm_operator import identity

HELMREQUEST = (identity.API_VERSION, identity.KIND)
VALUES_KINDS = ("ConfigMap", "Secret")
MIN_BACKOFF_S = 1.0
MAX_BACKOFF_S = 30.0


@record(frozen=True)
class ObjectKey:
    """A ConfigMap or Secret a request reads values from."""

    kind: str
    namespace: str
    name: str


class Watcher(Protocol):
    """What a watch needs of the cluster client (``helm_core.kube.live.LiveClient``)."""

    def collection(self, api_version: str, kind: str, *, namespace: str = "",
                   label_selector: str = "", metadata_only: bool = False) -> dict[str, Any]: ...

    def watch(self, api_version: str, kind: str, *, namespace: str = "",
              resource_version: str = "", label_selector: str = "", metadata_only: bool = False,
              timeout_s: int = ...) -> Iterator[tuple[str, dict[str, Any]]]: ...


#: Kind of the key under which a request's ``spec.chart.repositoryRef`` is indexed, so the
#: repository's reconciler finds the requests to wake on a new index (:meth:`Requests.referencing`).
HELMREPOSITORY = "HelmRepository"


def references(body: Mapping[str, Any]) -> frozenset[ObjectKey]:
    """The ConfigMaps/Secrets a HelmRequest's ``spec.valuesFrom`` names, and the
    HelmRepository its ``spec.chart.repositoryRef`` names."""
    namespace = str((body.get("metadata") or {}).get("namespace") or "")
    found = set()
    ref = ((body.get("spec") or {}).get("chart") or {}).get("repositoryRef")
    if isinstance(ref, Mapping) and ref.get("name"):
        found.add(ObjectKey(HELMREPOSITORY, str(ref.get("namespace") or namespace), str(ref["name"])))
    for entry in (body.get("spec") or {}).get("valuesFrom") or []:
        if isinstance(entry, Mapping) and entry.get("kind") in VALUES_KINDS and entry.get("name"):
            found.add(ObjectKey(str(entry["kind"]), namespace, str(entry["name"])))
    return frozenset(found)


class Requests:
    """Latest generation and valuesFrom references of every HelmRequest (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._generations: dict[str, int] = {}
        self._refs: dict[str, frozenset[ObjectKey]] = {}
        self._by_object: dict[ObjectKey, set[str]] = {}

    def event(self, type_: str, body: Mapping[str, Any], *, initial: bool = False) -> None:
        """Record one watch event (or listed object) of a HelmRequest."""
        meta = body.get("metadata") or {}
        uid = str(meta.get("uid") or "")
        if not uid:
            return
        with self._lock:
            self._unlink(uid)
            if type_ == "DELETED":
                self._generations.pop(uid, None)
                return
            self._generations[uid] = max(int(meta.get("generation") or 1),
                                         self._generations.get(uid, 0))
            self._refs[uid] = references(body)
            for key in self._refs[uid]:
                self._by_object.setdefault(key, set()).add(uid)

    def _unlink(self, uid: str) -> None:
        for key in self._refs.pop(uid, frozenset()):
            users = self._by_object.get(key)
            if users is not None:
                users.discard(uid)
                if not users:
                    del self._by_object[key]

    def superseded(self, meta: Mapping[str, Any]) -> str:
        """Why work on this generation of the request should stop: "superseded by generation
        N" when a newer one exists, else ""."""
        with self._lock:
            latest = self._generations.get(str(meta.get("uid") or ""), 0)
        if latest > int(meta.get("generation") or 1):
            return f"superseded by generation {latest}"
        return ""

    def referencing(self, key: ObjectKey) -> list[str]:
        """The uids of the requests whose valuesFrom names ``key``."""
        with self._lock:
            return sorted(self._by_object.get(key, ()))


class ValuesObjects:
    """ConfigMap/Secret events -> the requests to reconcile (see the module rules)."""

    def __init__(self, requests: Requests, changed: Callable[[list[str]], object]) -> None:
        self._requests = requests
        self._changed = changed
        self._lock = threading.Lock()
        self._versions: dict[ObjectKey, str] = {}

    def event(self, kind: str, type_: str, obj: Mapping[str, Any], *,
              initial: bool = False) -> None:
        """Record one watch event (or listed object) of a ConfigMap or Secret."""
        meta = obj.get("metadata") or {}
        key = ObjectKey(kind, str(meta.get("namespace") or ""), str(meta.get("name") or ""))
        users = self._requests.referencing(key)
        with self._lock:
            if not users:
                self._versions.pop(key, None)
                return
            before = self._versions.get(key)
            if type_ == "DELETED":
                self._versions.pop(key, None)
            else:
                self._versions[key] = str(meta.get("resourceVersion") or "")
            now = self._versions.get(key)
        if not initial and (type_ == "DELETED" or before != now):
            self._changed(users)


def follow(client: Watcher, api_version: str, kind: str, *, namespace: str,
           metadata_only: bool, handle: Callable[..., None],
           log: Callable[[str], None], stop: threading.Event, selector: str = "") -> None:
    """Run one watch until ``stop`` (module rules); ``handle(type, obj, initial=)``; only
    objects matching the label ``selector`` (an object leaving it arrives as DELETED)."""
    version = ""
    backoff = MIN_BACKOFF_S
    where = f" in namespace {namespace}" if namespace else ""
    while not stop.is_set():
        try:
            if not version:
                listing = client.collection(api_version, kind, namespace=namespace,
                                            label_selector=selector, metadata_only=metadata_only)
                for item in listing["items"]:
                    handle("ADDED", item, initial=True)
                version = str((listing.get("metadata") or {}).get("resourceVersion") or "")
            for type_, obj in client.watch(api_version, kind, namespace=namespace,
                                           resource_version=version, label_selector=selector,
                                           metadata_only=metadata_only):
                if stop.is_set():
                    return
                if type_ == "ERROR":  # 410 Gone: our resourceVersion is too old
                    version = ""
                    break
                version = str((obj.get("metadata") or {}).get("resourceVersion") or version)
                if type_ != "BOOKMARK":
                    handle(type_, obj)
            backoff = MIN_BACKOFF_S
        except Exception as exc:  # noqa: BLE001 - a watch thread must not die
            if not isinstance(exc, core_errors.ClusterError):
                version = ""  # something unexpected: start over from a fresh listing
            log(f"watch of {kind}{where} failed, retrying in {backoff:g}s: {exc}")
            stop.wait(backoff)
            backoff = min(MAX_BACKOFF_S, backoff * 2)


def start(client: Watcher, *, namespaces: Iterable[str], requests: Requests,
          values: ValuesObjects | None, log: Callable[[str], None],
          selector: str = "") -> threading.Event:
    """Start the watches in daemon threads (ConfigMaps/Secrets only with ``values``);
    returns the event that stops them. HelmRequests are those of the shard ``selector``, so
    only the ConfigMaps/Secrets they name count as changes."""
    stop = threading.Event()
    targets: list[tuple[str, str, bool, Callable[..., None], str]] = [
        (*HELMREQUEST, False, requests.event, selector)]
    if values is not None:
        targets += [("v1", kind, True, _for_kind(values, kind), "") for kind in VALUES_KINDS]
    for namespace in tuple(namespaces) or ("",):
        for api_version, kind, metadata_only, handle, labels in targets:
            threading.Thread(target=follow, name=f"watch-{kind}-{namespace or 'all'}", daemon=True,
                             args=(client, api_version, kind),
                             kwargs={"namespace": namespace, "metadata_only": metadata_only,
                                     "handle": handle, "log": log, "stop": stop,
                                     "selector": labels}).start()
    return stop


def _for_kind(values: ValuesObjects, kind: str) -> Callable[..., None]:
    def handle(type_: str, obj: Mapping[str, Any], *, initial: bool = False) -> None:
        values.event(kind, type_, obj, initial=initial)

    return handle

