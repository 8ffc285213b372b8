"""The ``ClusterClient`` for a real API server, on the ``kubernetes`` package's HTTP transport.

Why raw REST on ``kubernetes.client.ApiClient``: the package gives us kubeconfig loading (exec
plugins, token refresh, TLS) and a connection pool; the typed APIs and the dynamic client add
per-kind models and a file-cached discovery we do not want. Requests are built here (as its
``param_serialize`` would) and sent on its pool: its per-request layers cost more CPU than the
controller's own work around a request. This is the only module importing ``kubernetes``.

Rules:
- Discovery uses aggregated discovery (``/api`` and ``/apis`` as ``APIGroupDiscoveryList``, two
  requests) and falls back to per-group-version discovery on servers without it. It is cached
  per client family (impersonated clients share it); an unknown kind refreshes it once, so CRDs
  created a moment ago are found.
- Impersonation sends ``Impersonate-User: system:serviceaccount:<ns>:<name>`` (the API server
  adds the account's groups itself), or for a user every part of its identity:
  ``Impersonate-User``, one ``Impersonate-Group`` line per group, ``Impersonate-Uid`` and one
  ``Impersonate-Extra-<key>`` line per value (key percent-encoded, as header names allow).
- Errors map by HTTP status: 404 ``NotFoundError``, 409 ``ConflictError``, 403
  ``ForbiddenError``, other failures ``ClusterError``; the message names the verb, the object and
  the server's own explanation. An unreachable server is a ``ClusterError`` naming its address.
"""
from __future__ import annotations

import datetime as dt
import decimal
import email.utils
import enum
import json
import threading
import time
import uuid
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import quote

import urllib3
from kubernetes import client as k8s_client
from kubernetes import config as k8s_config

from helm_core.errors import ClusterError, ConflictError, ForbiddenError, NotFoundError
from helm_core.kube import client as kclient
from helm_core.support.records import field, record

REQUEST_TIMEOUT_S = 30.0
"""Per-request deadline; waits poll with short requests, so no request needs longer."""
DEFAULT_MAX_CONNECTIONS = 16
"""Kept-open connections of one client (``LiveOptions.max_connections``)."""
LIST_PAGE_SIZE = 500
"""Objects per page when listing (``limit``/``continue``)."""
AGGREGATED_DISCOVERY = ("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
                        "application/json")
APPLY_CONTENT_TYPE = "application/apply-patch+yaml"
WATCH_TIMEOUT_S = 300
"""Seconds the server keeps one watch request open (``timeoutSeconds``); callers re-watch."""
METADATA_ONLY = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"
"""Accept header of a metadata-only watch: the server sends no ``data``/``spec``/``status``."""
METADATA_ONLY_LIST = ("application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,"
                      "application/json")
"""The same for a list."""
CREDENTIALS_REFRESH_S = 1.0
"""Least seconds between two runs of the kubernetes package's credential refresh (see
:func:`_refresh_at_most_every`)."""


@record(frozen=True)
class LiveOptions:
    """How to reach the cluster."""

    kubeconfig: str | None = None
    """Path of a kubeconfig; None uses the kubernetes package default ($KUBECONFIG, ~/.kube)."""
    context: str | None = None
    """kubeconfig context; None uses the current one."""
    in_cluster: bool = False
    """Use the pod's ServiceAccount token instead of a kubeconfig."""
    config: Mapping[str, Any] | None = None
    """A kubeconfig already read (checked by :func:`helm_core.kube.kubeconfig.parse`): used
    instead of ``kubeconfig``."""
    field_manager: str = kclient.FIELD_MANAGER
    """Server-side apply field manager."""
    request_timeout_s: float = REQUEST_TIMEOUT_S
    aggregated_discovery: bool = True
    """Ask for aggregated discovery (2 requests); False forces per-group-version discovery,
    which servers older than Kubernetes 1.30 need anyway."""
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    """Connections kept open for reuse. Size it to the threads making requests at once: past
    it, urllib3 drops the connection after each request and the next one pays a new TLS
    handshake (the kubernetes package's default is 5 per CPU)."""


def connect(options: LiveOptions = LiveOptions()) -> LiveClient:
    """A client for the cluster ``options`` points at (no request is made yet)."""
    configuration = type.__call__(k8s_client.Configuration)  # not a copy of the global default
    if options.in_cluster:
        k8s_config.load_incluster_config(client_configuration=configuration)  # type: ignore[no-untyped-call]
    elif options.config is not None:
        try:
            k8s_config.load_kube_config_from_dict(  # type: ignore[no-untyped-call]
                dict(options.config), context=options.context, client_configuration=configuration)
        except (k8s_config.ConfigException, OSError, ValueError, TypeError) as exc:
            raise ClusterError(f"cannot load kubeconfig: {exc}") from exc
    else:
        try:
            k8s_config.load_kube_config(  # type: ignore[no-untyped-call]
                config_file=options.kubeconfig, context=options.context,
                client_configuration=configuration)
        except (k8s_config.ConfigException, OSError) as exc:
            raise ClusterError(f"cannot load kubeconfig: {exc}") from exc
    configuration.connection_pool_maxsize = options.max_connections
    _refresh_at_most_every(configuration, CREDENTIALS_REFRESH_S)
    api = k8s_client.ApiClient(configuration)
    return LiveClient(api, field_manager=options.field_manager,
                      request_timeout_s=options.request_timeout_s,
                      aggregated_discovery=options.aggregated_discovery)


def _refresh_at_most_every(configuration: k8s_client.Configuration, seconds: float) -> None:
    """Run the credential refresh hook of a token-authenticated ``configuration`` at most once
    every ``seconds``, not before every request.

    The kubernetes package's loaders (kubeconfig with a token, in-cluster) install a hook that
    re-applies the whole loaded configuration before each request; re-setting ``host`` reads
    the proxy variables from the environment, ~150 us a request here (more in a pod, whose
    environment names every Service), ~5 % of the controller's CPU. What it refreshes is
    renewed ahead of need (an expiring kubeconfig token 5 minutes before its expiry, the pod's
    token file re-read once a minute), so a second's delay changes no credential in use."""
    if configuration.refresh_api_key_hook is None:
        return
    hook = [configuration.refresh_api_key_hook]
    last = [float("-inf")]  # monotonic time of the last run; a race runs it twice, harmlessly

    def refresh(conf: k8s_client.Configuration) -> None:
        now = time.monotonic()
        if now - last[0] >= seconds:
            last[0] = now
            hook[0](conf)
            # the hook installs itself again as it re-applies the configuration
            if conf.refresh_api_key_hook is not refresh:
                hook[0] = conf.refresh_api_key_hook
                conf.refresh_api_key_hook = refresh

    configuration.refresh_api_key_hook = refresh


@record
class _DiscoveryCache:
    """Discovery shared by a client and its impersonated siblings."""

    value: kclient.Discovery | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)


class LiveClient:
    """``ClusterClient`` over HTTP; thread-safe (one pool, no per-request state)."""

    def __init__(self, api: k8s_client.ApiClient, *, field_manager: str = kclient.FIELD_MANAGER,
                 request_timeout_s: float = REQUEST_TIMEOUT_S,
                 identity: kclient.Identity | None = None,
                 discovery: _DiscoveryCache | None = None,
                 aggregated_discovery: bool = True) -> None:
        self._api = api
        self._aggregated = aggregated_discovery
        self._field_manager = field_manager
        self._timeout = request_timeout_s
        self._identity = identity
        self._discovery = discovery or _DiscoveryCache()

    @property
    def field_manager(self) -> str:
        return self._field_manager

    @property
    def server(self) -> str:
        """The API server's URL."""
        return str(self._api.configuration.host)

    def impersonate(self, *, service_account: str = "", namespace: str = "",
                    identity: kclient.Identity | None = None) -> LiveClient:
        acting = kclient.acting_as(service_account=service_account, namespace=namespace,
                                   identity=identity)
        return LiveClient(self._api, field_manager=self._field_manager,
                          request_timeout_s=self._timeout, identity=acting,
                          discovery=self._discovery, aggregated_discovery=self._aggregated)

    @property
    def identity(self) -> kclient.Identity | None:
        """Who this client acts as; None for the credentials' own user."""
        return self._identity

    def _serialize(self, method: str, path: str, *, query: list[tuple[str, str]],
                   headers: dict[str, str], body: Any = None) -> tuple[str, str, Any, Any]:
        """The request as the kubernetes package's ``ApiClient`` would send it (its URL query
        encoding, default headers and credentials; a body not yet text as JSON), with the
        impersonation headers (several lines for groups, which its headers cannot hold).

        Built here rather than by ``param_serialize``/``call_api``, which walk every body
        twice (sanitizing, then encoding) and wrap each request and response: ~0.1-0.3 ms a
        request, ~10 % of the controller's CPU, for the same bytes on the wire."""
        api = self._api
        config = api.configuration
        url = config.host + path
        if query:
            url += "?" + api.parameters_to_url_query(query, {})  # type: ignore[no-untyped-call]
        lines: dict[str, str] | urllib3.HTTPHeaderDict = dict(headers, **api.default_headers)
        if api.cookie:
            lines["Cookie"] = api.cookie
        auth = config.auth_settings().get("BearerToken")
        if auth and auth["value"]:
            lines[auth["key"]] = auth["value"]
        if body is not None and not isinstance(body, str | bytes):
            body = json.dumps(body, default=_json_value)
        if self._identity is None:
            return method, url, lines, body
        lines = urllib3.HTTPHeaderDict(lines)
        lines["Impersonate-User"] = self._identity.username
        for group in self._identity.groups:
            lines.add("Impersonate-Group", group)
        if self._identity.uid:
            lines["Impersonate-Uid"] = self._identity.uid
        for key, values in self._identity.extra:
            for value in values:
                lines.add(f"Impersonate-Extra-{quote(key, safe='')}", value)
        return method, url, lines, body

    def _send(self, method: str, path: str, *, query: list[tuple[str, str]], headers: dict[str, str],
              body: Any = None, timeout: float | tuple[float, float]) -> urllib3.BaseHTTPResponse:
        """One request on the client's connection pool (its TLS, proxy and retry settings are
        the kubernetes package's); the response unread. ``timeout``: seconds in all, or
        (connect, read). A TLS failure is an ``ApiException`` worded as the package words it."""
        method, url, lines, text = self._serialize(method, path, query=query, headers=headers, body=body)
        deadline = (urllib3.Timeout(connect=timeout[0], read=timeout[1]) if isinstance(timeout, tuple)
                    else urllib3.Timeout(total=timeout))
        try:
            return self._api.rest_client.pool_manager.request(
                method, url, body=text, headers=lines, timeout=deadline, preload_content=False)
        except urllib3.exceptions.SSLError as exc:
            raise k8s_client.ApiException(status=0, reason=f"{type(exc).__name__}\n{exc}") from exc

    # --- HTTP ---------------------------------------------------------------------------------

    def _request(self, method: str, path: str, *, what: str, query: list[tuple[str, str]] | None = None,
                 body: Any = None, content_type: str = "application/json",
                 accept: str = "application/json", text: bool = False) -> Any:
        headers = {"Accept": accept, "Content-Type": content_type}
        try:
            response = self._send(method, path, query=list(query or []), headers=headers, body=body,
                                  timeout=self._timeout)
            data = response.read()
        except urllib3.exceptions.HTTPError as exc:
            raise ClusterError(f"{what}: {_transport_error(method, self.server + path, exc)}") from exc
        except k8s_client.ApiException as exc:  # TLS failures surface this way
            raise ClusterError(f"{what}: {exc.reason}") from exc
        if 200 <= response.status <= 299:
            if text:  # a log: the body as the server sent it
                return data.decode(errors="replace")
            return json.loads(data) if data else {}
        raise _error(what, response.status, data)

    def _path(self, ref: kclient.ObjectRef, *, collection: bool = False,
              subresource: str = "") -> str:
        resource = self._resource(ref.api_version, ref.kind)
        prefix = "/api/v1" if ref.api_version == "v1" else f"/apis/{ref.api_version}"
        if resource.namespaced:
            if not ref.namespace:
                if not collection:
                    raise ClusterError(f"{ref} is namespaced but has no namespace")
            else:
                prefix += f"/namespaces/{quote(ref.namespace, safe='')}"
        elif ref.namespace and not collection:
            ref = kclient.ObjectRef(ref.api_version, ref.kind, ref.name)
        path = f"{prefix}/{resource.plural}"
        if not collection:
            path += f"/{quote(ref.name, safe='')}"
        if subresource:
            path += f"/{subresource}"
        return path

    def _resource(self, api_version: str, kind: str) -> kclient.ApiResource:
        found = self.discover().find(api_version, kind)
        if found is None:
            found = self.discover(refresh=True).find(api_version, kind)
        if found is None:
            raise ClusterError(f'the server does not serve kind "{kind}" in version '
                               f'"{api_version}"')
        return found

    # --- ClusterClient ------------------------------------------------------------------------

    def get(self, ref: kclient.ObjectRef) -> dict[str, Any]:
        return self._request("GET", self._path(ref), what=f"get {ref}")  # type: ignore[no-any-return]

    def apply(self, obj: Mapping[str, Any], *, force: bool = False, dry_run: bool = False,
              subresource: str = "") -> dict[str, Any]:
        ref = kclient.ObjectRef.of(obj)
        query = [("fieldManager", self._field_manager)]
        if force:
            query.append(("force", "true"))
        if dry_run:
            query.append(("dryRun", "All"))
        return self._request("PATCH", self._path(ref, subresource=subresource),  # type: ignore[no-any-return]
                             what=f"apply {ref}", query=query, body=json.dumps(go_numbers(obj)),
                             content_type=APPLY_CONTENT_TYPE)

    def create(self, obj: Mapping[str, Any]) -> dict[str, Any]:
        ref = kclient.ObjectRef.of(obj)
        return self._request("POST", self._path(ref, collection=True),  # type: ignore[no-any-return]
                             what=f"create {ref}", query=[("fieldManager", self._field_manager)],
                             body=go_numbers(obj))

    def replace(self, obj: Mapping[str, Any], *, subresource: str = "") -> dict[str, Any]:
        ref = kclient.ObjectRef.of(obj)
        return self._request("PUT", self._path(ref, subresource=subresource),  # type: ignore[no-any-return]
                             what=f"update {ref}", query=[("fieldManager", self._field_manager)],
                             body=go_numbers(obj))

    def list(self, api_version: str, kind: str, *, namespace: str = "",
             label_selector: str = "") -> list[dict[str, Any]]:
        return self.collection(api_version, kind, namespace=namespace,  # type: ignore[no-any-return]
                               label_selector=label_selector)["items"]

    def collection(self, api_version: str, kind: str, *, namespace: str = "",
                   label_selector: str = "", metadata_only: bool = False,
                   field_selector: str = "") -> dict[str, Any]:
        """``ClusterClient.collection``; ``metadata_only`` lists ``PartialObjectMetadata``;
        ``field_selector`` as the server takes it (e.g. ``type!=helm.sh/release-version``)."""
        ref = kclient.ObjectRef(api_version, kind, "", namespace)
        path = self._path(ref, collection=True)
        items: list[dict[str, Any]] = []
        token = ""
        while True:
            query = [("limit", str(LIST_PAGE_SIZE))]
            if label_selector:
                query.append(("labelSelector", label_selector))
            if field_selector:
                query.append(("fieldSelector", field_selector))
            if token:
                query.append(("continue", token))
            where = f' in namespace "{namespace}"' if namespace else ""
            page = self._request("GET", path, what=f"list {kind}{where}", query=query,
                                 accept=METADATA_ONLY_LIST if metadata_only else "application/json")
            items += [{"apiVersion": api_version, "kind": kind, **item}
                      for item in page.get("items") or ()]
            meta = page.get("metadata") or {}
            token = meta.get("continue") or ""
            if not token:
                return {"apiVersion": api_version, "kind": f"{kind}List",
                        "metadata": {"resourceVersion": meta.get("resourceVersion", "")},
                        "items": items}

    def watch(self, api_version: str, kind: str, *, namespace: str = "",
              resource_version: str = "", label_selector: str = "", metadata_only: bool = False,
              timeout_s: int = WATCH_TIMEOUT_S,
              field_selector: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
        """One watch request: ``(type, object)`` events (ADDED, MODIFIED, DELETED, BOOKMARK,
        ERROR) until the server ends it after ``timeout_s``. Without ``resource_version`` the
        server first sends every existing object as ADDED. ``metadata_only`` asks for
        ``PartialObjectMetadata`` (no Secret data ever crosses the wire). An ERROR event (410
        Gone: ``resource_version`` too old) is yielded for the caller to restart from scratch."""
        path = self._path(kclient.ObjectRef(api_version, kind, "", namespace), collection=True)
        query = [("watch", "true"), ("allowWatchBookmarks", "true"),
                 ("timeoutSeconds", str(int(timeout_s)))]
        if resource_version:
            query.append(("resourceVersion", resource_version))
        if label_selector:
            query.append(("labelSelector", label_selector))
        if field_selector:
            query.append(("fieldSelector", field_selector))
        headers = {"Accept": METADATA_ONLY if metadata_only else "application/json"}
        where = f' in namespace "{namespace}"' if namespace else ""
        what = f"watch {kind}{where}"
        try:
            # the read deadline outlasts the server's own timeout: a silent stream is dead
            response = self._send("GET", path, query=query, headers=headers,
                                  timeout=(self._timeout, timeout_s + self._timeout))
            if response.status != 200:
                raise _error(what, response.status, response.read())
            try:
                pending = b""
                # amt=None: each chunk as the server sends it (a size would wait to fill it)
                for chunk in response.stream(None):
                    pending += chunk
                    *lines, pending = pending.split(b"\n")
                    for line in lines:
                        if line.strip():
                            event = json.loads(line)
                            yield str(event.get("type", "")), dict(event.get("object") or {})
            finally:
                response.close()  # a stream left half-read never goes back to the pool
        except urllib3.exceptions.HTTPError as exc:
            raise ClusterError(f"{what}: connection to {self.server} lost: {exc}") from exc
        except k8s_client.ApiException as exc:
            raise ClusterError(f"{what}: {exc.reason}") from exc

    def delete(self, ref: kclient.ObjectRef, *,
               propagation: kclient.Propagation = kclient.Propagation.BACKGROUND,
               resource_version: str = "") -> bool:
        body: dict[str, Any] = {"apiVersion": "v1", "kind": "DeleteOptions",
                                "propagationPolicy": propagation.value}
        if resource_version:
            body["preconditions"] = {"resourceVersion": resource_version}
        try:
            self._request("DELETE", self._path(ref), what=f"delete {ref}", body=body)
        except NotFoundError:
            return False
        return True

    def table(self, api_version: str, kind: str, *, namespace: str = "", name: str = "",
              label_selector: str = "") -> dict[str, Any]:
        ref = kclient.ObjectRef(api_version, kind, name, namespace)
        query = [("labelSelector", label_selector)] if label_selector and not name else []
        what = f"get {ref}" if name else f"list {kind}" + (f' in namespace "{namespace}"' if namespace else "")
        return self._request("GET", self._path(ref, collection=not name), what=what,  # type: ignore[no-any-return]
                             query=query, accept=kclient.TABLE_ACCEPT)

    def pod_logs(self, namespace: str, name: str) -> str:
        path = f"/api/v1/namespaces/{quote(namespace, safe='')}/pods/{quote(name, safe='')}/log"
        return self._request("GET", path, what=kclient.pod_logs_failure(name),  # type: ignore[no-any-return]
                             accept="*/*", text=True)

    def server_time(self) -> dt.datetime:
        headers = {"Accept": "application/json"}
        try:
            response = self._send("GET", "/version", query=[], headers=headers, timeout=self._timeout)
            response.read()
            stamp = response.headers.get("Date")
        except (urllib3.exceptions.HTTPError, k8s_client.ApiException) as exc:
            raise ClusterError(f"get server time: cannot reach the Kubernetes API at "
                               f"{self.server}: {exc}") from exc
        if not stamp:
            raise ClusterError(f"get server time: the API server at {self.server} sent no Date")
        return email.utils.parsedate_to_datetime(stamp).astimezone(dt.UTC)

    def discover(self, *, refresh: bool = False) -> kclient.Discovery:
        with self._discovery.lock:
            if self._discovery.value is None or refresh:
                self._discovery.value = self._discover()
            return self._discovery.value

    def _discover(self) -> kclient.Discovery:
        version = self._request("GET", "/version", what=UNREACHABLE)
        found = _Found()
        for root in ("/api", "/apis"):
            accept = AGGREGATED_DISCOVERY if self._aggregated else "application/json"
            listing = self._request("GET", root, what=f"discover {root}", accept=accept)
            if listing.get("kind") == "APIGroupDiscoveryList":
                _aggregated(listing, found)
            else:
                self._legacy(root, listing, found)
        return kclient.Discovery(server_version=str(version.get("gitVersion", "")),
                                 resources=tuple(found.resources),
                                 group_versions=tuple(dict.fromkeys(found.group_versions)),
                                 subresource_kinds=tuple(dict.fromkeys(found.subresource_kinds)))

    def _legacy(self, root: str, listing: Mapping[str, Any], found: _Found) -> None:
        if root == "/api":
            group_versions = [str(v) for v in listing.get("versions") or ()]
        else:
            group_versions = [str(v["groupVersion"]) for group in listing.get("groups") or ()
                              for v in group.get("versions") or ()]
        for gv in group_versions:
            path = f"/api/{gv}" if root == "/api" else f"/apis/{gv}"
            try:
                served = self._request("GET", path, what=f"discover {path}")
            except NotFoundError:  # the group went away (a CRD being deleted) since listed
                continue
            found.group_versions.append(gv)
            for item in served.get("resources") or ():
                if "/" in str(item.get("name", "")):
                    if item.get("kind"):
                        found.subresource_kinds.append((gv, str(item["kind"])))
                    continue
                found.resources.append(kclient.ApiResource(
                    api_version=gv, kind=str(item["kind"]), plural=str(item["name"]),
                    namespaced=bool(item.get("namespaced")), verbs=tuple(item.get("verbs") or ())))


@record
class _Found:
    """Discovery results being gathered."""

    resources: list[kclient.ApiResource] = field(default_factory=list)
    group_versions: list[str] = field(default_factory=list)
    subresource_kinds: list[tuple[str, str]] = field(default_factory=list)


def _aggregated(listing: Mapping[str, Any], found: _Found) -> None:
    for group in listing.get("items") or ():
        name = str((group.get("metadata") or {}).get("name") or "")
        for version in group.get("versions") or ():
            gv = f"{name}/{version['version']}" if name else str(version["version"])
            found.group_versions.append(gv)
            for item in version.get("resources") or ():
                kind = (item.get("responseKind") or {}).get("kind")
                for sub in item.get("subresources") or ():
                    sub_kind = (sub.get("responseKind") or {}).get("kind")
                    if sub_kind:
                        found.subresource_kinds.append((gv, str(sub_kind)))
                if not kind:
                    continue
                found.resources.append(kclient.ApiResource(
                    api_version=gv, kind=str(kind), plural=str(item["resource"]),
                    namespaced=item.get("scope") == "Namespaced",
                    verbs=tuple(item.get("verbs") or ())))


def _json_value(value: Any) -> Any:
    """What the kubernetes package's serialization made of values JSON has no type for."""
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    if isinstance(value, decimal.Decimal | uuid.UUID):
        return str(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def go_numbers(value: Any) -> Any:
    """``value`` with whole floats as ints, the JSON Go writes for a float64 (``1``, where
    Python writes ``1.0``): objects decoded as Go does (every YAML number a float64, as in
    stored manifests and chart CRDs) are refused by the API server for integer fields
    otherwise ("cannot unmarshal number 1.0 into ... of type int64")."""
    kind = type(value)  # the exact types first: this walks every object written
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is dict:
        return {k: go_numbers(v) for k, v in value.items()}
    if kind is list:
        return [go_numbers(v) for v in value]
    if isinstance(value, float):
        return int(value) if value.is_integer() and abs(value) < 2 ** 53 else value
    if isinstance(value, Mapping):
        return {k: go_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [go_numbers(v) for v in value]
    return value


def _error(what: str, status: int, data: bytes) -> ClusterError:
    try:
        message = str(json.loads(data).get("message") or "")
    except (ValueError, AttributeError):
        message = data.decode(errors="replace").strip()
    answer = message or f"HTTP {status}"
    text = f"{what}: {answer}"
    if status == 404:
        return NotFoundError(text, answer=answer)
    if status == 409:
        return ConflictError(text, answer=answer)
    if status == 403:
        return ForbiddenError(text, answer=answer)
    return ClusterError(text, answer=answer)


#: What helm says when the API server's version cannot be read (``IsReachable``).
UNREACHABLE = "Kubernetes cluster unreachable"


def _transport_error(method: str, url: str, exc: urllib3.exceptions.HTTPError) -> str:
    """A request that reached no answer, in Go's words (``Get "url": dial tcp host:port: connect:
    connection refused``), as helm and kubectl print it; other failures in urllib3's."""
    from helm_core.golib import godial

    cause: BaseException = exc
    if isinstance(exc, urllib3.exceptions.MaxRetryError) and exc.reason is not None:
        cause = exc.reason
    if isinstance(cause, urllib3.exceptions.NameResolutionError):
        return godial.words(method, url, godial.Failure.NO_SUCH_HOST)
    if isinstance(cause, urllib3.exceptions.NewConnectionError) and isinstance(
            cause.__context__ or cause.__cause__, ConnectionRefusedError):
        return godial.words(method, url, godial.Failure.REFUSED)
    if type(cause) is urllib3.exceptions.ConnectTimeoutError:  # (NewConnectionError is one too)
        return godial.words(method, url, godial.Failure.TIMEOUT)
    return f'{method.capitalize()} "{url}": cannot reach the Kubernetes API: {cause}'
