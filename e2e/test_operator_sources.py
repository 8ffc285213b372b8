"""Chart sources through the controller, a real process, on the local control plane: HTTP chart
repositories (basic auth, TLS with the CA from a Secret) and the distribution ``registry`` (htpasswd
and TLS) serve the charts over loopback; ranges are re-resolved every interval; repository errors
are Reconciling and recover by themselves; a digest mismatch is Stalled and applies nothing."""
from __future__ import annotations

import hashlib
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException

from e2e.conftest import Kubectl
from e2e.operator_kit import (chart_tgz, condition, controller, explain, get, objects, ready_at,
                              request, setup_namespace, stalled, version_secrets, wait_for)
from helm_core.sources import index as index_mod
from tests import chartkit
from tests.sources import servers

pytestmark = pytest.mark.e2e

__all__ = ["controller", "objects"]  # fixtures used by the tests below

USER, PASSWORD = "chartuser", "s3cret-pass"
RANGE = ">=1.0 <2.0"
INTERVAL = "2s"
#: Enough for a few interval checks (2 s) plus a reconcile.
NEXT_INTERVAL_TIMEOUT_S = 40.0
#: Kopf retries a repository error after 5, 10, 20 s: a fix is seen within the third retry.
BACKOFF_TIMEOUT_S = 60.0


def web_tgz(version: str, note: str = "") -> bytes:
    """The ``web`` chart: one ConfigMap saying which chart version rendered it."""
    chart_yaml = f"apiVersion: v2\nname: web\nversion: {version}\n"
    if note:  # different bytes for the same version
        chart_yaml += f"description: {note}\n"
    return chart_tgz({"Chart.yaml": chart_yaml,
                      "templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n"
                                           "  name: {{ .Release.Name }}-web\ndata:\n"
                                           "  chartVersion: {{ .Chart.Version | quote }}\n"}, name="web")


class Repo:
    """A chart repository served by :class:`servers.RepoServer` from a folder we publish into."""

    def __init__(self, root: Path, **options: Any) -> None:
        root.mkdir()
        self.root = root
        self.server = servers.RepoServer(root=root, **options)
        index_mod.write_index(root)
        self.server.start()
        self.port = int(self.server.url.rsplit(":", 1)[1])

    @property
    def url(self) -> str:
        return self.server.url

    def publish(self, version: str, name: str = "web", data: bytes | None = None) -> None:
        (self.root / f"{name}-{version}.tgz").write_bytes(data or web_tgz(version))
        index_mod.write_index(self.root)

    def index_fetches(self) -> int:
        return sum(1 for _, path, _ in self.server.requests if path.endswith("/index.yaml"))


@pytest.fixture
def make_repo(tmp_path: Path) -> Iterator[Callable[..., Repo]]:
    started: list[Repo] = []

    def make(**options: Any) -> Repo:
        repo = Repo(tmp_path / f"repo{len(started)}", **options)
        started.append(repo)
        return repo

    yield make
    for repo in started:
        repo.server.stop()


def secret(api: k8s.ApiClient, namespace: str, name: str, data: dict[str, str]) -> None:
    k8s.CoreV1Api(api).create_namespaced_secret(namespace, {"metadata": {"name": name},
                                                            "stringData": data})


def repository(url: str, version: str = RANGE, secret_name: str = "") -> dict[str, Any]:
    source: dict[str, Any] = {"url": url, "name": "web", "version": version}
    if secret_name:
        source["secretRef"] = {"name": secret_name}
    return {"repository": source}


def web_configmap(api: k8s.ApiClient, namespace: str, release: str = "app") -> dict[str, str]:
    return dict(k8s.CoreV1Api(api).read_namespaced_config_map(f"{release}-web", namespace).data)


def no_web_configmap(api: k8s.ApiClient, namespace: str, release: str = "app") -> bool:
    try:
        k8s.CoreV1Api(api).read_namespaced_config_map(f"{release}-web", namespace)
    except ApiException as exc:
        return exc.status == 404
    return False


def reconciling_with(reason: str) -> Callable[[dict[str, Any]], bool]:
    """Ready False for ``reason`` while Reconciling (retrying), never Stalled."""
    def check(obj: dict[str, Any]) -> bool:
        ready = condition(obj, "Ready") or {}
        return ready.get("status") == "False" and ready.get("reason") == reason \
            and condition(obj, "Reconciling") is not None
    return check


def assert_retrying_not_stalled(obj: dict[str, Any], reason: str, message: str) -> None:
    assert condition(obj, "Stalled") is None
    assert condition(obj, "Reconciling")["status"] == "True"
    assert condition(obj, "Ready")["reason"] == reason
    assert message in condition(obj, "Ready")["message"]


# --- 1. HTTP repositories ------------------------------------------------------------------------

def request_behind_basic_auth(api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str,
                              make_repo: Callable[..., Repo], *, password: str) -> Repo:
    """A repository asking for USER/PASSWORD with web 1.0.0, and a request for it whose
    credentials Secret ``repo-auth`` holds ``password``."""
    repo = make_repo(username=USER, password=PASSWORD)
    repo.publish("1.0.0")
    setup_namespace(api, namespace, chart=None)
    secret(api, namespace, "repo-auth", {"username": USER, "password": password})
    request(objects, namespace, chart=repository(repo.url, "1.0.0", "repo-auth"))
    return repo


def test_repository_with_basic_auth_from_a_secret_becomes_ready_with_its_objects(
        controller: Any, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str,
        make_repo: Callable[..., Repo]) -> None:
    repo = request_behind_basic_auth(api, objects, namespace, make_repo, password=PASSWORD)
    obj = wait_for(objects, namespace, ready_at(1))
    assert (obj["status"]["chartName"], obj["status"]["chartVersion"]) == ("web", "1.0.0")
    assert web_configmap(api, namespace) == {"chartVersion": "1.0.0"}
    assert len(version_secrets(api, namespace)) == 1
    assert any(auth.startswith("Basic ") for _, _, auth in repo.server.requests)
    assert 401 not in repo.server.statuses  # credentials were sent up front, to this origin


def test_repository_over_tls_with_the_ca_from_the_secret(
        controller: Any, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str,
        make_repo: Callable[..., Repo]) -> None:
    pki = servers.make_pki()
    repo = make_repo(username=USER, password=PASSWORD, tls=pki)
    repo.publish("1.0.0")
    assert repo.url.startswith("https://")
    setup_namespace(api, namespace, chart=None)
    secret(api, namespace, "repo-tls", {"username": USER, "password": PASSWORD,
                                        "ca.crt": pki.ca_pem.decode()})
    secret(api, namespace, "repo-no-ca", {"username": USER, "password": PASSWORD})
    request(objects, namespace, chart=repository(repo.url, "1.0.0", "repo-tls"))
    request(objects, namespace, name="untrusted", chart=repository(repo.url, "1.0.0", "repo-no-ca"))
    obj = wait_for(objects, namespace, ready_at(1))
    assert obj["status"]["chartVersion"] == "1.0.0"
    assert web_configmap(api, namespace) == {"chartVersion": "1.0.0"}
    # without the CA the server is not trusted: said clearly, retried, nothing applied
    untrusted = wait_for(objects, namespace, reconciling_with("ChartSourceUnavailable"), name="untrusted")
    assert_retrying_not_stalled(untrusted, "ChartSourceUnavailable",
                                f"{repo.url}: cannot reach the repository ({repo.url}/index.yaml)")
    assert "CERTIFICATE_VERIFY_FAILED" in condition(untrusted, "Ready")["message"]
    assert no_web_configmap(api, namespace, "untrusted")


# --- 2. OCI registry -----------------------------------------------------------------------------

def push(registry: servers.Registry, pki: servers.Pki, tmp_path: Path, version: str) -> str:
    """``helm-core push`` (our push code, as a user runs it); returns the manifest digest."""
    archive = tmp_path / f"web-{version}.tgz"
    archive.write_bytes(web_tgz(version))
    ca = tmp_path / "ca.pem"
    ca.write_bytes(pki.ca_pem)
    out = subprocess.run([str(Path(sys.executable).with_name("helm-core")), "push", str(archive),
                          f"oci://{registry.host}/charts", "--username", USER, "--password", PASSWORD,
                          "--ca-file", str(ca), "--cache-dir", str(tmp_path / "push-cache")],
                         capture_output=True, text=True, check=True, timeout=60)
    found = re.search(r"^Digest: (sha256:[0-9a-f]{64})$", out.stdout, re.M)
    assert found, out.stdout + out.stderr
    return found.group(1)


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[tuple[servers.Registry, servers.Pki]]:
    binary = servers.find_registry_binary()
    assert binary, "no distribution `registry` binary: run `python -m e2e.cluster build`"
    pki = servers.make_pki()
    reg = servers.Registry(binary=binary, folder=tmp_path / "registry", username=USER,
                           password=PASSWORD, tls=pki).start()
    yield reg, pki
    reg.stop()


def test_oci_range_becomes_ready_follows_pushes_in_range_and_checks_digest_pins(
        controller: Any, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str,
        registry: tuple[servers.Registry, servers.Pki], tmp_path: Path) -> None:
    reg, pki = registry
    manifest = push(reg, pki, tmp_path, "1.0.0")
    url = f"oci://{reg.host}/charts/web"
    setup_namespace(api, namespace, chart=None)
    secret(api, namespace, "registry", {"username": USER, "password": PASSWORD, "ca.crt": pki.ca_pem.decode()})
    auth = {"name": "registry"}
    request(objects, namespace, interval=INTERVAL, chart={"oci": {"url": url, "version": RANGE, "secretRef": auth}})
    # pinned to the manifest digest `helm-core push` printed (as `helm push` does): Ready
    request(objects, namespace, name="pinned", chart={"oci": {"url": url, "version": "1.0.0",
                                                              "digest": manifest, "secretRef": auth}})
    # pinned to a digest that is not what the tag holds: Stalled, nothing applied
    wrong = "sha256:" + "0" * 64
    request(objects, namespace, name="wrong", chart={"oci": {"url": url, "version": "1.0.0",
                                                             "digest": wrong, "secretRef": auth}})
    first = wait_for(objects, namespace, ready_at(1))["status"]
    assert (first["chartName"], first["chartVersion"]) == ("web", "1.0.0")
    assert web_configmap(api, namespace) == {"chartVersion": "1.0.0"}
    assert wait_for(objects, namespace, ready_at(1), name="pinned")["status"]["chartVersion"] == "1.0.0"
    bad = wait_for(objects, namespace, stalled, name="wrong")
    assert condition(bad, "Stalled")["reason"] == "ChartDigestMismatch"
    assert "digest mismatch" in condition(bad, "Stalled")["message"]
    assert condition(bad, "Stalled")["message"].endswith(f"pinned {wrong}")
    assert no_web_configmap(api, namespace, "wrong")

    push(reg, pki, tmp_path, "1.1.0")  # in range: upgraded on the next interval check
    obj = wait_for(objects, namespace, lambda o: o["status"].get("chartVersion") == "1.1.0",
                   timeout=NEXT_INTERVAL_TIMEOUT_S)
    assert obj["metadata"]["generation"] == 1 and obj["status"]["version"] > first["version"]
    assert condition(obj, "Ready")["reason"] == "UpgradeSucceeded"
    assert web_configmap(api, namespace) == {"chartVersion": "1.1.0"}

    push(reg, pki, tmp_path, "2.0.0")  # out of range: never installed
    assert_still_on(objects, namespace, "1.1.0", obj["status"]["version"])
    assert get(objects, namespace, "pinned")["status"]["chartVersion"] == "1.0.0"


def ready_on_a_new_repository(api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str,
                              make_repo: Callable[..., Repo]) -> tuple[Repo, dict[str, Any]]:
    """A repository with web 1.0.0 and a request for RANGE checked every INTERVAL, Ready:
    the repository and the request's status."""
    repo = make_repo()
    repo.publish("1.0.0")
    setup_namespace(api, namespace, chart=None)
    request(objects, namespace, interval=INTERVAL, chart=repository(repo.url))
    return repo, wait_for(objects, namespace, ready_at(1))["status"]


def assert_still_on(objects: k8s.CustomObjectsApi, namespace: str, chart_version: str,
                    version: str) -> None:
    """After a few interval checks the release is unchanged (a push outside the range)."""
    time.sleep(4 * 2.0)
    now = get(objects, namespace)["status"]
    assert (now["chartVersion"], now["version"]) == (chart_version, version)


# --- 3. ranges re-resolved every interval (6. the index cache does not go stale) ---------------

def test_repository_range_upgrades_on_the_next_interval_and_never_past_the_range(
        controller: Any, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str,
        make_repo: Callable[..., Repo]) -> None:
    repo, first = ready_on_a_new_repository(api, objects, namespace, make_repo)
    assert first["chartVersion"] == "1.0.0"
    fetches = repo.index_fetches()
    time.sleep(3 * 2.0)
    assert repo.index_fetches() > fetches  # every interval check re-reads the index...
    assert 304 in repo.server.statuses  # ...revalidated with its ETag, not downloaded again
    assert get(objects, namespace)["status"]["version"] == first["version"]  # and nothing changed

    repo.publish("1.1.0")  # the same URL, a new index: seen on the next check despite the cache
    obj = wait_for(objects, namespace, lambda o: o["status"].get("chartVersion") == "1.1.0",
                   timeout=NEXT_INTERVAL_TIMEOUT_S)
    assert obj["metadata"]["generation"] == 1  # the request was not touched
    assert obj["status"]["version"] > first["version"]
    assert condition(obj, "Ready")["reason"] == "UpgradeSucceeded"
    assert web_configmap(api, namespace) == {"chartVersion": "1.1.0"}
    assert len(version_secrets(api, namespace)) == 2

    repo.publish("2.0.0")
    seen = repo.index_fetches()
    assert_still_on(objects, namespace, "1.1.0", obj["status"]["version"])
    assert repo.index_fetches() > seen
    assert web_configmap(api, namespace) == {"chartVersion": "1.1.0"}
    assert len(version_secrets(api, namespace)) == 2


# --- 4. repository errors: Reconciling, retried, recovered without touching the request --------

def test_repository_down_then_back_becomes_ready_without_touching_the_request(
        controller: Any, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str,
        make_repo: Callable[..., Repo]) -> None:
    repo, first = ready_on_a_new_repository(api, objects, namespace, make_repo)
    repo.server.stop()
    down = wait_for(objects, namespace, reconciling_with("ChartSourceUnavailable"),
                    timeout=NEXT_INTERVAL_TIMEOUT_S)
    assert_retrying_not_stalled(down, "ChartSourceUnavailable",
                                f"{repo.url}: cannot reach the repository ({repo.url}/index.yaml)")
    assert condition(down, "Reconciling")["reason"] == "RetryingOnInterval"
    time.sleep(3 * 2.0)  # still retrying on every interval, never Stalled
    assert condition(get(objects, namespace), "Stalled") is None
    assert get(objects, namespace)["status"]["failures"] >= 2

    repo.server.start(port=repo.port)
    obj = wait_for(objects, namespace, ready_at(1), timeout=NEXT_INTERVAL_TIMEOUT_S)
    assert obj["metadata"]["generation"] == 1
    assert condition(obj, "Ready")["reason"] == "InstallSucceeded"  # Released's, as Flux's summary
    assert condition(obj, "Reconciling") is None and condition(obj, "Stalled") is None
    assert obj["status"]["version"] == first["version"]  # the release was fine all along
    assert "lastError" not in obj["status"] and obj["status"]["failures"] == 0


def test_unknown_chart_then_no_version_in_range_are_retried_until_published(
        controller: Any, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str,
        make_repo: Callable[..., Repo]) -> None:
    repo = make_repo()
    repo.publish("1.0.0", name="other",
                 data=chart_tgz({"Chart.yaml": "apiVersion: v2\nname: other\nversion: 1.0.0\n"}, name="other"))
    setup_namespace(api, namespace, chart=None)
    request(objects, namespace, chart=repository(repo.url, "^2.0.0"))
    missing = wait_for(objects, namespace, reconciling_with("ChartNotFound"))
    assert_retrying_not_stalled(missing, "ChartNotFound", f'chart "web" not found in {repo.url} repository')

    repo.publish("1.0.0")  # the chart exists now, but nothing in the range
    out_of_range = wait_for(objects, namespace, reconciling_with("ChartVersionNotFound"),
                            timeout=BACKOFF_TIMEOUT_S)
    assert_retrying_not_stalled(out_of_range, "ChartVersionNotFound",
                                f'chart "web" version "^2.0.0" not found in {repo.url} repository')
    assert no_web_configmap(api, namespace)

    repo.publish("2.0.0")
    obj = wait_for(objects, namespace, ready_at(1), timeout=BACKOFF_TIMEOUT_S)
    assert obj["status"]["chartVersion"] == "2.0.0"
    assert web_configmap(api, namespace) == {"chartVersion": "2.0.0"}


def test_wrong_credentials_are_named_and_a_fixed_secret_is_picked_up(
        controller: Any, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str,
        make_repo: Callable[..., Repo]) -> None:
    repo = request_behind_basic_auth(api, objects, namespace, make_repo, password="wrong")
    refused = wait_for(objects, namespace, reconciling_with("ChartSourceAuth"))
    assert_retrying_not_stalled(refused, "ChartSourceAuth",
                                f"{repo.url}: 401 Unauthorized for {repo.url}/index.yaml "
                                "(missing or wrong credentials)")
    assert no_web_configmap(api, namespace)

    k8s.CoreV1Api(api).patch_namespaced_secret("repo-auth", namespace, {"stringData": {"password": PASSWORD}})
    obj = wait_for(objects, namespace, ready_at(1), timeout=BACKOFF_TIMEOUT_S)
    assert obj["metadata"]["generation"] == 1 and obj["status"]["chartVersion"] == "1.0.0"


# --- 5. digest mismatch: Stalled, nothing applied -------------------------------------------------

def test_archive_not_matching_the_index_digest_stalls_and_applies_nothing(
        controller: Any, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str,
        make_repo: Callable[..., Repo]) -> None:
    repo = make_repo()
    indexed = web_tgz("1.0.0", note=f"indexed for {namespace}")  # bytes no cache has seen
    repo.publish("1.0.0", data=indexed)
    # the server now serves other bytes than the index promises
    (repo.root / "web-1.0.0.tgz").write_bytes(web_tgz("1.0.0", note=f"swapped for {namespace}"))
    setup_namespace(api, namespace, chart=None)
    request(objects, namespace, interval=INTERVAL, chart=repository(repo.url, "1.0.0"))
    obj = wait_for(objects, namespace, stalled)
    assert condition(obj, "Stalled")["reason"] == "ChartDigestMismatch"
    message = condition(obj, "Stalled")["message"]
    assert message.startswith(f'chart "web" version "1.0.0" from {repo.url}/web-1.0.0.tgz: digest mismatch')
    assert condition(obj, "Reconciling") is None
    assert condition(obj, "Ready")["status"] == "False"
    assert version_secrets(api, namespace) == []
    assert no_web_configmap(api, namespace)
    time.sleep(3 * 2.0)  # looked at again every interval: still refused, still nothing applied
    assert condition(get(objects, namespace), "Stalled")["reason"] == "ChartDigestMismatch"
    assert version_secrets(api, namespace) == [] and no_web_configmap(api, namespace)

    (repo.root / "web-1.0.0.tgz").write_bytes(indexed)  # the repository fixed: recovers by itself
    obj = wait_for(objects, namespace, ready_at(1), timeout=NEXT_INTERVAL_TIMEOUT_S)
    assert obj["status"]["chartDigest"] == "sha256:" + hashlib.sha256(indexed).hexdigest()
    assert web_configmap(api, namespace) == {"chartVersion": "1.0.0"}


# --- the CRD documents the source fields -------------------------------------------------------

def test_kubectl_explain_documents_the_source_fields(controller: Any, kubectl: Kubectl) -> None:
    repo = explain(kubectl, "hreq.spec.chart.repository")
    assert "re-resolved every interval" in repo
    assert "ca.crt (a CA bundle trusted instead of the system roots)" in repo
    assert "url" in repo and "name" in repo and "secretRef" in repo
    digest = explain(kubectl, "hreq.spec.chart.oci.digest")
    assert "the manifest digest (what helm push prints as Digest)" in digest
    assert "Stalled (ChartDigestMismatch)" in digest
    chart = explain(kubectl, "hreq.spec.chart")
    assert "Repository errors (unreachable, 401/403, chart or version not found yet) leave the " \
           "request Reconciling" in chart


def test_hostile_archive_served_by_a_repository_stalls_and_writes_nothing(
        controller: Any, api: k8s.ApiClient, objects: k8s.CustomObjectsApi, namespace: str,
        make_repo: Callable[..., Repo]) -> None:
    hostile = chartkit.make_tgz([
        chartkit.tar_entry("web/Chart.yaml", b"apiVersion: v2\nname: web\nversion: 1.0.0\n"),
        chartkit.tar_entry("web/../../escape.txt", f"owned {namespace}".encode()),
    ])
    repo = make_repo()
    (repo.root / "web-1.0.0.tgz").write_bytes(hostile)  # our indexer skips it: a hand-written index
    (repo.root / "index.yaml").write_text("apiVersion: v1\nentries:\n  web:\n  - name: web\n"
                                          "    version: 1.0.0\n    urls: [web-1.0.0.tgz]\n")
    setup_namespace(api, namespace, chart=None)
    request(objects, namespace, chart=repository(repo.url, "1.0.0"))
    obj = wait_for(objects, namespace, stalled)
    assert condition(obj, "Stalled")["reason"] == "ChartInvalid"
    assert "escape.txt" in condition(obj, "Stalled")["message"]
    assert version_secrets(api, namespace) == [] and no_web_configmap(api, namespace)
    assert list(controller.log.parent.parent.rglob("escape.txt")) == []
    cached = [p.read_bytes() for p in (controller.log.parent / "cache").rglob("*") if p.is_file()]
    assert cached and hostile not in cached  # the cache is in use, but never holds the archive
