"""HelmRepository's reconciler and repositoryRef resolution against a real HTTP repository
(tests/sources/servers.RepoServer on loopback): one index fetch serves every request."""
from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helm_operator import errors, main, repositories, settings, sources, status, watches

from helm_core import errors as core_errors
from helm_core import sources as core_sources
from helm_core.sources import index as index_mod
from tests.sources import servers

SECURITY = settings.SecuritySettings()


def _tgz(version: str) -> bytes:
    from helm_core.sources import package
    return package.archive_bytes("web", [("Chart.yaml", f"apiVersion: v2\nname: web\nversion: {version}\n".encode()),
                                         ("templates/cm.yaml", b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")])


class Published:
    def __init__(self, root: Path, **options: Any) -> None:
        root.mkdir()
        self.root = root
        self.server = servers.RepoServer(root=root, **options).start()

    def publish(self, version: str) -> None:
        (self.root / f"web-{version}.tgz").write_bytes(_tgz(version))
        index_mod.write_index(self.root)

    def index_fetches(self) -> int:
        return sum(1 for _, path, _ in self.server.requests if path.endswith("/index.yaml"))


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Published]:
    repo = Published(tmp_path / "repo")
    repo.publish("1.0.0")
    yield repo
    repo.server.stop()


def body(url: str, name: str = "charts", namespace: str = "team", generation: int = 1,
         status_: dict[str, Any] | None = None, **spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": namespace, "generation": generation, "uid": "u1"},
            "spec": {"url": url, **spec}, "status": status_ or {}}


class Reads:
    """What ``client_for`` returns: reads Secrets from a dict, recording who read them."""

    def __init__(self, secrets: dict[str, dict[str, str]], who: list[tuple[str, str]], account: str,
                 namespace: str) -> None:
        self.secrets, self.who, self.account, self.namespace = secrets, who, account, namespace

    def get(self, ref: Any) -> dict[str, Any]:
        self.who.append((self.account, ref.name))
        if ref.name not in self.secrets:
            raise core_errors.NotFoundError(f"secret {ref.name} not found")
        return {"data": {k: base64.b64encode(v.encode()).decode() for k, v in self.secrets[ref.name].items()}}


def run(repo_body: dict[str, Any], store: repositories.Store, cache: core_sources.Cache,
        secrets: dict[str, dict[str, str]] | None = None, who: list[tuple[str, str]] | None = None,
        security: settings.SecuritySettings = SECURITY) -> repositories.Outcome:
    seen = who if who is not None else []
    return repositories.fetch(repo_body, store=store, cache=cache, security=security,
                              client_for=lambda sa, ns: Reads(secrets or {}, seen, sa, ns),  # type: ignore[arg-type,return-value]
                              now=lambda: "2026-01-01T00:00:00Z")


def ready(st: dict[str, Any]) -> dict[str, Any]:
    return status.get_condition(st, status.READY) or {}


def test_fetch_records_the_index_and_requests_resolve_in_it_without_fetching_again(
        served: Published, tmp_path: Path) -> None:
    store, cache = repositories.Store(), core_sources.Cache(tmp_path / "cache")
    out = run(body(served.server.url, interval="1m"), store, cache)
    assert out.changed and not out.failed
    art = out.status["artifact"]
    assert art["digest"].startswith("sha256:") and art["size"] == len((served.root / "index.yaml").read_bytes())
    assert ready(out.status)["status"] == "True" and ready(out.status)["reason"] == "Succeeded"
    assert served.index_fetches() == 1
    # four requests resolve and download from the cached index: no index fetch, one download
    for _ in range(4):
        ref, creds = sources.chart_ref({"chart": {"repositoryRef": {"name": "charts", "chart": "web",
                                                                    "version": "^1.0"}}},
                                       namespace="team", read=lambda k, n: None,
                                       shared=repositories.resolver(store, namespace="team", security=SECURITY))
        resolved = core_sources.resolve(ref, creds, cache)
        assert (resolved.name, resolved.version) == ("web", "1.0.0")
    assert served.index_fetches() == 1
    assert sum(1 for _, p, _ in served.server.requests if p.endswith(".tgz")) == 1


def test_a_new_index_is_a_change_an_unchanged_one_is_not(served: Published, tmp_path: Path) -> None:
    store, cache = repositories.Store(), core_sources.Cache(tmp_path / "cache")
    first = run(body(served.server.url), store, cache)
    again = run(body(served.server.url, status_=first.status), store, cache)
    assert not again.changed and again.status["artifact"] == first.status["artifact"]
    served.publish("1.1.0")
    newer = run(body(served.server.url, status_=again.status), store, cache)
    assert newer.changed and newer.status["artifact"]["digest"] != first.status["artifact"]["digest"]
    ref, creds = repositories.chart_ref({"name": "charts", "chart": "web", "version": "~1.0 || ^1.1"},
                                        namespace="team", store=store, cross_namespace=True)
    assert core_sources.resolve(ref, creds, cache).version == "1.1.0"


def test_cross_namespace_refs_follow_the_admin_flag(served: Published, tmp_path: Path) -> None:
    store, cache = repositories.Store(), core_sources.Cache(tmp_path / "cache")
    run(body(served.server.url, namespace="platform"), store, cache)
    ref = {"name": "charts", "namespace": "platform", "chart": "web"}
    allowed, _ = repositories.chart_ref(ref, namespace="team", store=store, cross_namespace=True)
    assert allowed.url == served.server.url
    with pytest.raises(errors.RequestError) as denied:
        repositories.chart_ref(ref, namespace="team", store=store, cross_namespace=False)
    assert denied.value.reason == "AccessDenied"
    assert "HelmRepository platform/charts" in str(denied.value)
    assert errors.is_permanent(denied.value)


def test_a_missing_or_failing_repository_is_retried_with_the_reason(tmp_path: Path) -> None:
    store, cache = repositories.Store(), core_sources.Cache(tmp_path / "cache")
    with pytest.raises(repositories.RepositoryNotReady) as missing:
        repositories.chart_ref({"name": "nope", "chart": "web"}, namespace="team", store=store,
                               cross_namespace=True)
    assert str(missing.value) == ("HelmRepository team/nope is not ready (not found, or its index "
                                  "is not fetched yet)")
    assert errors.reason(missing.value) == "ChartSourceUnavailable" and errors.retries_forever(missing.value)
    url = f"http://127.0.0.1:{servers.free_port()}"
    out = run(body(url), store, cache)
    assert out.failed and ready(out.status)["reason"] == "IndexationFailed"
    # Flux's source-controller: a failure to be retried is Reconciling ProgressingWithRetry
    assert status.get_condition(out.status, status.RECONCILING)["reason"] == "ProgressingWithRetry"
    assert status.get_condition(out.status, status.STALLED) is None
    with pytest.raises(repositories.RepositoryNotReady, match="cannot reach the repository"):
        repositories.chart_ref({"name": "charts", "chart": "web"}, namespace="team", store=store,
                               cross_namespace=True)


def test_a_bad_url_stalls(tmp_path: Path) -> None:
    out = run(body("ftp://example.com/charts"), repositories.Store(), core_sources.Cache(tmp_path / "c"))
    assert ready(out.status)["reason"] == "URLInvalid"
    assert status.get_condition(out.status, status.STALLED)["reason"] == "URLInvalid"


def test_credentials_are_read_as_the_repository_service_account(tmp_path: Path) -> None:
    root = tmp_path / "auth"
    repo = Published(root, username="u", password="p")
    repo.publish("1.0.0")
    try:
        store, cache, who = repositories.Store(), core_sources.Cache(tmp_path / "cache"), []
        out = run(body(repo.server.url, secretRef={"name": "creds"}, serviceAccountName="reader"),
                  store, cache, secrets={"creds": {"username": "u", "password": "p"}}, who=who)
        assert not out.failed, out.status
        assert who == [("reader", "creds")]
        ref, creds = repositories.chart_ref({"name": "charts", "chart": "web"}, namespace="team",
                                            store=store, cross_namespace=True)
        assert core_sources.resolve(ref, creds, cache).version == "1.0.0"
        wrong = run(body(repo.server.url, name="wrong", secretRef={"name": "creds"}), store, cache,
                    secrets={"creds": {"username": "u", "password": "bad"}})
        assert ready(wrong.status)["reason"] == "AuthenticationFailed"
        assert "401" in ready(wrong.status)["message"]
        required = run(body(repo.server.url, name="req", secretRef={"name": "creds"}), store, cache,
                       security=settings.SecuritySettings(require_service_account=True))
        assert status.get_condition(required.status, status.STALLED)["reason"] == "ServiceAccountRequired"
        assert ready(required.status)["message"].startswith(
            "HelmRepository team/req: spec.serviceAccountName is required")
    finally:
        repo.server.stop()


def test_suspended_fetches_nothing_and_oci_has_no_index(served: Published, tmp_path: Path) -> None:
    store, cache = repositories.Store(), core_sources.Cache(tmp_path / "cache")
    out = run(body(served.server.url, suspend=True), store, cache)
    assert ready(out.status)["reason"] == status.SUSPENDED and served.index_fetches() == 0
    with pytest.raises(repositories.RepositoryNotReady, match="is not ready: it is suspended"):
        repositories.chart_ref({"name": "charts", "chart": "web"}, namespace="team", store=store,
                               cross_namespace=True)
    run(body(served.server.url), store, cache)  # resumed: fetched; suspended again: still served
    run(body(served.server.url, suspend=True, generation=3), store, cache)
    assert repositories.chart_ref({"name": "charts", "chart": "web"}, namespace="team", store=store,
                                  cross_namespace=True)[0].index_digest
    oci = run(body("oci://registry.example:5000/charts/", name="oci"), store, cache)
    assert ready(oci.status)["status"] == "True" and "artifact" not in oci.status
    ref, _ = repositories.chart_ref({"name": "oci", "chart": "web", "version": "^1"}, namespace="team",
                                    store=store, cross_namespace=True)
    assert (ref.kind, ref.url, ref.version) == ("oci", "oci://registry.example:5000/charts/web", "^1")


def test_requests_are_indexed_by_the_repository_they_name() -> None:
    requests = watches.Requests()
    for uid, ref in (("a", {"name": "charts", "chart": "web"}),
                     ("b", {"name": "charts", "namespace": "platform", "chart": "web"}),
                     ("c", None)):
        chart = {"repositoryRef": ref} if ref else {"configMapRef": {"name": "x"}}
        requests.event("ADDED", {"metadata": {"uid": uid, "namespace": "team", "generation": 1},
                                 "spec": {"chart": chart}})
    key = watches.ObjectKey(watches.HELMREPOSITORY, "team", "charts")
    assert requests.referencing(key) == ["a"]
    assert requests.referencing(watches.ObjectKey(watches.HELMREPOSITORY, "platform", "charts")) == ["b"]
    requests.event("DELETED", {"metadata": {"uid": "a", "namespace": "team"}})
    assert requests.referencing(key) == []


@pytest.mark.parametrize(("argv", "env", "denied"), [
    ([], {}, False),
    (["--no-cross-namespace-refs"], {}, True),
    ([], {"HELM_OPERATOR_NO_CROSS_NAMESPACE_REFS": "true"}, True),
])
def test_cross_namespace_refs_are_allowed_unless_the_admin_says_no(argv: list[str], env: dict[str, str],
                                                                   denied: bool) -> None:
    inv = main.parse(["run", *argv], env)
    assert inv.settings.security.no_cross_namespace_refs is denied


def test_a_request_before_the_first_fetch_loads_the_repository_once(tmp_path: Path) -> None:
    store = repositories.Store()
    key = repositories.RepositoryKey("team", "charts")
    calls: list[repositories.RepositoryKey] = []

    def load(asked: repositories.RepositoryKey) -> None:
        calls.append(asked)
        store.put(asked, repositories.Artifact(url="https://charts.example", credentials=core_sources.Credentials(),
                                               index_digest="sha256:" + "a" * 64))
        store.attempted(asked, 1)

    store.loader = load
    assert store.get(key).index_digest == "sha256:" + "a" * 64
    assert store.get(key).url == "https://charts.example" and calls == [key]
    # fresh for its interval and generation; a new generation is due at once
    assert 0 < store.due_in(key, 1, 60.0) <= 60.0
    assert store.due_in(key, 2, 60.0) == 0.0
    # a repository whose fetch failed is not loaded again by every request: its daemon retries
    other = repositories.RepositoryKey("team", "down")
    store.loader = lambda asked: (calls.append(asked), store.failed(asked, "503"), store.attempted(asked, 1))
    for _ in range(3):
        with pytest.raises(repositories.RepositoryNotReady, match="HelmRepository team/down is not ready: 503"):
            store.get(other)
    assert calls == [key, other]


def test_a_shard_fetches_another_shards_repository_for_its_requests_but_leaves_its_status(
        served: Published, tmp_path: Path) -> None:
    """Sharded replicas (``--selector``): the one whose selector matches a repository's labels
    owns it (status, Events); another fetches it for its own requests, into memory only."""
    from helm_operator import reconcile

    from helm_core.kube import client as kclient
    from helm_core.kube import fake

    cluster = fake.FakeCluster(fake.FAKE_RESOURCES + (
        kclient.ApiResource(repositories.API_VERSION, repositories.KIND, "helmrepositories", True),))
    admin = cluster.client("helm-operator")
    events: list[tuple[str, str, str]] = []
    for name, shard in (("ours", "a"), ("theirs", "b")):
        admin.create({"apiVersion": repositories.API_VERSION, "kind": repositories.KIND,
                      "metadata": {"name": name, "namespace": "team",
                                   "labels": {"sharding.helm.sh/key": shard}},
                      "spec": {"url": served.server.url, "interval": "1m"}})
    rt = reconcile.Runtime(
        settings=settings.OperatorSettings(watch=settings.WatchSettings(selector="sharding.helm.sh/key=a")),
        admin=admin, impersonate=lambda sa, ns: admin, cache=core_sources.Cache(tmp_path / "cache"),
        post_event=lambda body, type_, *, reason, message: events.append(
            (body["metadata"]["name"], type_, reason)),
        repositories=repositories.Store())

    def current(name: str) -> dict[str, Any]:
        return admin.get(kclient.ObjectRef(repositories.API_VERSION, repositories.KIND, name, "team"))

    assert repositories.owns(rt, current("ours")) and not repositories.owns(rt, current("theirs"))
    for name in ("ours", "theirs"):
        outcome = repositories.load(rt, repositories.RepositoryKey("team", name))
        assert outcome is not None and outcome.changed and not outcome.failed
        assert rt.repositories is not None and rt.repositories.has(repositories.RepositoryKey("team", name))
    assert ready(current("ours")["status"])["status"] == "True"
    assert "status" not in current("theirs")
    assert events == [("ours", "Normal", "NewArtifact")]
    # without a selector a replica owns every repository
    unsharded = reconcile.Runtime(settings=settings.OperatorSettings(), admin=admin, impersonate=rt.impersonate,
                                  cache=rt.cache, post_event=rt.post_event)
    assert repositories.owns(unsharded, current("theirs"))


def fake_runtime(tmp_path: Path) -> tuple[Any, Any]:
    """A runtime on a fake cluster that serves HelmRepositories, and that cluster's client."""
    from helm_operator import reconcile

    from helm_core.kube import client as kclient
    from helm_core.kube import fake

    cluster = fake.FakeCluster(fake.FAKE_RESOURCES + (
        kclient.ApiResource(repositories.API_VERSION, repositories.KIND, "helmrepositories", True),))
    admin = cluster.client("helm-operator")
    rt = reconcile.Runtime(settings=settings.OperatorSettings(), admin=admin,
                           impersonate=lambda sa, ns: admin, cache=core_sources.Cache(tmp_path / "cache"),
                           post_event=lambda body, type_, *, reason, message: None,
                           repositories=repositories.Store())
    return rt, admin


def test_a_repository_that_does_not_exist_is_named_as_missing_until_it_is_created(
        served: Published, tmp_path: Path) -> None:
    rt, admin = fake_runtime(tmp_path)
    store = rt.repositories
    store.loader = lambda key: repositories.load(rt, key)
    ref = {"name": "charts", "chart": "web"}
    with pytest.raises(repositories.RepositoryNotReady) as missing:
        repositories.chart_ref(ref, namespace="team", store=store, cross_namespace=True)
    assert str(missing.value) == "HelmRepository team/charts is not ready: not found in namespace team"
    admin.create({"apiVersion": repositories.API_VERSION, "kind": repositories.KIND,
                  "metadata": {"name": "charts", "namespace": "team"},
                  "spec": {"url": served.server.url, "interval": "1m"}})
    found, _ = repositories.chart_ref(ref, namespace="team", store=store, cross_namespace=True)
    assert found.url == served.server.url


def test_a_reconcile_token_fetches_a_fresh_index_again_and_is_recorded_once(
        served: Published, tmp_path: Path) -> None:
    """Flux's `flux reconcile source helm`: a requestedAt token not handled yet fetches now,
    though the index is fresh for its interval; the next look, the token handled, does not."""
    from helm_core.kube import client as kclient

    rt, admin = fake_runtime(tmp_path)
    ref = kclient.ObjectRef(repositories.API_VERSION, repositories.KIND, "charts", "team")
    admin.create({"apiVersion": repositories.API_VERSION, "kind": repositories.KIND,
                  "metadata": {"name": "charts", "namespace": "team"},
                  "spec": {"url": served.server.url, "interval": "10m"}})
    assert repositories.reconcile_repository(rt, admin.get(ref)) is not None
    assert repositories.reconcile_repository(rt, admin.get(ref)) is None  # fresh for 10 m
    admin.apply({"apiVersion": repositories.API_VERSION, "kind": repositories.KIND,
                 "metadata": {"name": "charts", "namespace": "team",
                              "annotations": {"reconcile.fluxcd.io/requestedAt": "t1"}}})
    assert repositories.reconcile_repository(rt, admin.get(ref)) is not None
    assert admin.get(ref)["status"]["lastHandledReconcileAt"] == "t1"
    assert repositories.reconcile_repository(rt, admin.get(ref)) is None
