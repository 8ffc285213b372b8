"""Watches the controller keeps beside Kopf's: newer generations, and valuesFrom objects.

Why not Kopf handlers: Kopf handles one object's events one after the other, so while a
request's handler waits (an install with ``--wait``), the request's newer events queue behind
it and no Kopf handler of that request can see them; and a Kopf handler on Secrets would
stream every Secret's data (release versions of up to 1 MiB each) through the process.

Rules:
- HelmRequests: :class:`Requests` keeps, per uid, only the latest generation and the
  ConfigMaps/Secrets its ``spec.valuesFrom`` names (no bodies).
- ConfigMaps and Secrets are listed and watched metadata-only (``PartialObjectMetadata``: no
  ``data`` crosses the wire, whatever the object's size), and only where this replica's
  requests (its shard) name one: :class:`ValuesWatches` keeps one watch per kind and namespace
  that some request's ``valuesFrom`` names, started with the first such request and stopped
  with the last; past ``MAX_NAMESPACE_WATCHES`` namespaces of a kind it watches that kind
  cluster-wide instead (when the controller is cluster-wide). Secrets are watched with the
  field selector ``type!=helm.sh/release-version``: release versions (the bulk of a
  controller's Secrets) never cross the wire. :class:`ValuesObjects` keeps the
  resourceVersion of the referenced ones only. A change — a new resourceVersion, a deletion,
  or a referenced object created after the first listing — reports the uids of the requests
  referencing it. Every object is referenced by name, no label needed (Flux needs
  ``reconcile.fluxcd.io/watch: Enabled``; its users' first surprise is that changes are
  missed without it).
- Each watch starts with a LIST (the known state: nothing is reported for it), then watches from
  the list's resourceVersion, reconnects from the last one seen when the server ends the
  request, starts over after 410 Gone, and backs off from 1 s to 30 s after errors. A watch
  that ends within a second with nothing received counts as an error (as client-go's
  reflector has it): a server or proxy that closes watches at once is not asked again in a loop.
- HelmRequests: one watch for the whole cluster, or one per watched namespace.
- A namespace's values watch starts when its first referencing request is seen; its first
  listing is the known state. A change made between that request's own first read and the
  listing (the reconcile runs after Kopf's finalizer cycle, so almost never) waits for the
  request's interval.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Protocol

from helm_core import errors as core_errors
from helm_core.support.records import record
from helm_operator import identity

HELMREQUEST = (identity.API_VERSION, identity.KIND)
VALUES_KINDS = ("ConfigMap", "Secret")
#: Field selectors of the values watches: release version Secrets are never values.
FIELD_SELECTORS = {"Secret": "type!=helm.sh/release-version"}
#: Namespaces of one kind watched one by one; past it, one cluster-wide watch (when allowed).
MAX_NAMESPACE_WATCHES = 32
MIN_BACKOFF_S = 1.0
MAX_BACKOFF_S = 30.0
#: A watch ending sooner than this with nothing received is treated as a failure.
SHORT_WATCH_S = 1.0


class ShortWatch(Exception):
    """The server ended a watch at once with nothing in it."""


@record(frozen=True)
class ObjectKey:
    """A ConfigMap or Secret a request reads values from."""

    kind: str
    namespace: str
    name: str


class Watcher(Protocol):
    """What a watch needs of the cluster client (``helm_core.kube.live.LiveClient``)."""

    def collection(self, api_version: str, kind: str, *, namespace: str = "",
                   label_selector: str = "", metadata_only: bool = False,
                   field_selector: str = "") -> dict[str, Any]: ...

    def watch(self, api_version: str, kind: str, *, namespace: str = "",
              resource_version: str = "", label_selector: str = "", metadata_only: bool = False,
              timeout_s: int = ..., field_selector: str = "") -> Iterator[tuple[str, dict[str, Any]]]: ...


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
        self._listeners: list[Callable[[frozenset[tuple[str, str]]], None]] = []

    def on_scopes(self, listener: Callable[[frozenset[tuple[str, str]]], None]) -> None:
        """Call ``listener(scopes)`` now and whenever :meth:`scopes` changes."""
        self._listeners.append(listener)
        listener(self.scopes())

    def scopes(self) -> frozenset[tuple[str, str]]:
        """The (kind, namespace) pairs some request's ``valuesFrom`` names."""
        with self._lock:
            return frozenset((key.kind, key.namespace) for key in self._by_object)

    def event(self, type_: str, body: Mapping[str, Any], *, initial: bool = False) -> None:
        """Record one watch event (or listed object) of a HelmRequest."""
        meta = body.get("metadata") or {}
        uid = str(meta.get("uid") or "")
        if not uid:
            return
        with self._lock:
            before = {(key.kind, key.namespace) for key in self._refs.get(uid, ())}
            self._unlink(uid)
            if type_ == "DELETED":
                self._generations.pop(uid, None)
            else:
                self._generations[uid] = max(int(meta.get("generation") or 1),
                                             self._generations.get(uid, 0))
                self._refs[uid] = references(body)
                for key in self._refs[uid]:
                    self._by_object.setdefault(key, set()).add(uid)
            after = {(key.kind, key.namespace) for key in self._refs.get(uid, ())}
            # only a request gaining or losing a kind/namespace can change the scopes
            changed = before != after and bool(self._listeners)
        if changed:
            scopes = self.scopes()
            for listener in self._listeners:
                listener(scopes)

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
           log: Callable[[str], None], stop: threading.Event, selector: str = "",
           field_selector: str = "") -> None:
    """Run one watch until ``stop`` (module rules); ``handle(type, obj, initial=)``; only
    objects matching the label ``selector`` (an object leaving it arrives as DELETED) and
    the ``field_selector``."""
    version = ""
    backoff = MIN_BACKOFF_S
    where = f" in namespace {namespace}" if namespace else ""
    while not stop.is_set():
        try:
            if not version:
                listing = client.collection(api_version, kind, namespace=namespace,
                                            label_selector=selector, metadata_only=metadata_only,
                                            field_selector=field_selector)
                for item in listing["items"]:
                    handle("ADDED", item, initial=True)
                version = str((listing.get("metadata") or {}).get("resourceVersion") or "")
            started, received = time.monotonic(), False
            for type_, obj in client.watch(api_version, kind, namespace=namespace,
                                           resource_version=version, label_selector=selector,
                                           metadata_only=metadata_only,
                                           field_selector=field_selector):
                received = True
                if stop.is_set():
                    return
                if type_ == "ERROR":  # 410 Gone: our resourceVersion is too old
                    version = ""
                    break
                version = str((obj.get("metadata") or {}).get("resourceVersion") or version)
                if type_ != "BOOKMARK":
                    handle(type_, obj)
            if not received and version and time.monotonic() - started < SHORT_WATCH_S and not stop.is_set():
                raise ShortWatch("the server ended the watch at once with nothing received")
            backoff = MIN_BACKOFF_S
        except Exception as exc:  # noqa: BLE001 - a watch thread must not die
            if not isinstance(exc, (core_errors.ClusterError, ShortWatch)):
                version = ""  # something unexpected: start over from a fresh listing
            log(f"watch of {kind}{where} failed, retrying in {backoff:g}s: {exc}")
            stop.wait(backoff)
            backoff = min(MAX_BACKOFF_S, backoff * 2)


class ValuesWatches:
    """The ConfigMap/Secret metadata watches this replica's requests need (module rules):
    :meth:`sync` with :meth:`Requests.scopes` starts and stops them."""

    def __init__(self, client: Watcher, values: ValuesObjects, *, log: Callable[[str], None],
                 cluster_wide: bool, stop: threading.Event,
                 max_namespaces: int = MAX_NAMESPACE_WATCHES) -> None:
        self._client = client
        self._values = values
        self._log = log
        self._cluster_wide = cluster_wide
        self._max_namespaces = max_namespaces
        self._stop = stop
        self._lock = threading.Lock()
        self._running: dict[tuple[str, str], threading.Event] = {}
        threading.Thread(target=self._close_on_stop, name="values-watches-stop",
                         daemon=True).start()

    def watched(self) -> frozenset[tuple[str, str]]:
        """The (kind, namespace) pairs watched now ("" namespace: the whole cluster)."""
        with self._lock:
            return frozenset(self._running)

    def sync(self, scopes: frozenset[tuple[str, str]]) -> None:
        """Watch exactly what ``scopes`` needs (a kind past the namespace limit cluster-wide)."""
        wanted: set[tuple[str, str]] = set()
        for kind in VALUES_KINDS:
            namespaces = {ns for k, ns in scopes if k == kind}
            if self._cluster_wide and len(namespaces) > self._max_namespaces:
                wanted.add((kind, ""))
            else:
                wanted |= {(kind, ns) for ns in namespaces}
        with self._lock:
            if self._stop.is_set():
                return
            for scope in set(self._running) - wanted:
                self._running.pop(scope).set()
            for scope in wanted - set(self._running):
                self._running[scope] = self._start(*scope)

    def _start(self, kind: str, namespace: str) -> threading.Event:
        stop = threading.Event()
        threading.Thread(target=follow, name=f"watch-{kind}-{namespace or 'all'}", daemon=True,
                         args=(self._client, "v1", kind),
                         kwargs={"namespace": namespace, "metadata_only": True,
                                 "handle": _for_kind(self._values, kind), "log": self._log,
                                 "stop": stop,
                                 "field_selector": FIELD_SELECTORS.get(kind, "")}).start()
        return stop

    def _close_on_stop(self) -> None:
        self._stop.wait()
        with self._lock:
            for stop in self._running.values():
                stop.set()
            self._running.clear()


def start(client: Watcher, *, namespaces: Iterable[str], requests: Requests,
          values: ValuesObjects | None, log: Callable[[str], None],
          selector: str = "") -> threading.Event:
    """Start the watches in daemon threads (ConfigMaps/Secrets only with ``values``, and only
    where the requests of the shard ``selector`` name them); returns the event that stops
    them."""
    stop = threading.Event()
    watched = tuple(namespaces)
    if values is not None:
        requests.on_scopes(ValuesWatches(client, values, log=log, cluster_wide=not watched,
                                         stop=stop).sync)
    for namespace in watched or ("",):
        threading.Thread(target=follow, name=f"watch-HelmRequest-{namespace or 'all'}",
                         daemon=True, args=(client, *HELMREQUEST),
                         kwargs={"namespace": namespace, "metadata_only": False,
                                 "handle": requests.event, "log": log, "stop": stop,
                                 "selector": selector}).start()
    return stop


def _for_kind(values: ValuesObjects, kind: str) -> Callable[..., None]:
    def handle(type_: str, obj: Mapping[str, Any], *, initial: bool = False) -> None:
        values.event(kind, type_, obj, initial=initial)

    return handle
