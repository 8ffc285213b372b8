"""``dependency build`` from HTTP and OCI repositories, honouring Chart.lock (Helm's HashReq)."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from helm_core import errors
from helm_core.sources import Credentials, cache as cache_mod, dependency, oci
from tests import chartkit
from tests.sources import servers
from tests.sources.conftest import chart_tgz


def _parent(root: Path, repo_url: str, oci_url: str) -> Path:
    return chartkit.write_chart(root / "parent", {
        "Chart.yaml": chartkit.chart_yaml("parent", "1.0.0") + (
            "dependencies:\n"
            f"- name: web\n  version: ^1.0\n  repository: {repo_url}\n"
            f"- name: db\n  version: ~2.1.0\n  repository: {oci_url}\n  condition: db.enabled\n"),
        "templates/x.yaml": "kind: ConfigMap\n",
    })


def _setup(tmp_path: Path, make_repo, registry: servers.Registry, cache: cache_mod.Cache) -> Path:  # type: ignore[no-untyped-def]
    server = make_repo({("web", v): chart_tgz("web", v) for v in ("1.0.0", "1.4.0", "2.0.0")})
    with oci.Registry(registry.host, cache=cache, plain_http=True) as client:
        for v in ("2.1.0", "2.1.3", "2.2.0"):
            client.push(oci.Reference(registry.host, "deps/db", v), chart_tgz("db", v),
                        {"name": "db", "version": v}, annotations={})
    return _parent(tmp_path, server.url, f"oci://{registry.host}/deps")


def test_build_without_lock_resolves_and_writes_helm_compatible_lock(
        tmp_path: Path, make_repo, registry: servers.Registry, cache: cache_mod.Cache,  # type: ignore[no-untyped-def]
        helm_binary: str) -> None:
    chart = _setup(tmp_path, make_repo, registry, cache)
    plain = Credentials()
    with pytest.raises(errors.RegistryUnavailableError):  # OCI without plain HTTP: refused (https)
        dependency.build(chart, credentials=lambda _u: plain, cache=cache)
    built = dependency.build(chart, credentials=lambda _u: plain, cache=cache, plain_http=True)
    assert [(b.name, b.version) for b in built] == [("web", "1.4.0"), ("db", "2.1.3")]
    assert sorted(p.name for p in (chart / "charts").iterdir()) == ["db-2.1.3.tgz", "web-1.4.0.tgz"]
    # the reference helm accepts our Chart.lock as in sync (it verifies HashReq) and builds from it
    (chart / "charts" / "web-1.4.0.tgz").unlink()
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    repo_url = next(line.split("repository: ")[1] for line in (chart / "Chart.yaml").read_text().splitlines()
                    if "repository: http" in line)
    subprocess.run([helm_binary, "repo", "add", "web", repo_url], check=True, capture_output=True, env=env)
    result = subprocess.run([helm_binary, "dependency", "build", str(chart), "--plain-http"],
                            capture_output=True, text=True, env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert result.returncode == 0, result.stderr
    assert (chart / "charts" / "web-1.4.0.tgz").is_file()


def test_build_honours_lock_and_refuses_stale_lock(
        tmp_path: Path, make_repo, registry: servers.Registry, cache: cache_mod.Cache) -> None:  # type: ignore[no-untyped-def]
    chart = _setup(tmp_path, make_repo, registry, cache)
    deps = [{"name": "web", "version": "^1.0", "repository": "x"}]
    locked = [{"name": "web", "version": "1.0.0", "repository": "x"}]
    assert dependency.hash_req(deps, locked).startswith("sha256:")
    dependency.build(chart, credentials=lambda _u: Credentials(), cache=cache, plain_http=True)
    lock_text = (chart / "Chart.lock").read_text()
    (chart / "Chart.lock").write_text(lock_text.replace("version: 1.4.0", "version: 1.0.0"))
    with pytest.raises(errors.DependencyError) as info:
        dependency.build(chart, credentials=lambda _u: Credentials(), cache=cache, plain_http=True)
    assert str(info.value) == dependency.STALE_LOCK


def test_file_dependency_is_packaged_and_unsupported_repository_refused(tmp_path: Path,
                                                                          cache: cache_mod.Cache) -> None:
    chartkit.write_chart(tmp_path / "lib", {"Chart.yaml": chartkit.chart_yaml("lib", "0.2.0"),
                                            "templates/_h.tpl": "{{ define \"x\" }}{{ end }}\n"})
    chart = chartkit.write_chart(tmp_path / "app", {
        "Chart.yaml": chartkit.chart_yaml("app", "1.0.0") + "dependencies:\n- name: lib\n  version: 0.2.0\n"
                      "  repository: file://../lib\n"})
    built = dependency.build(chart, credentials=lambda _u: Credentials(), cache=cache)
    assert [(b.name, b.version) for b in built] == [("lib", "0.2.0")]
    assert (chart / "charts" / "lib-0.2.0.tgz").is_file()
    assert (chart / "Chart.lock").is_file()
    (chart / "Chart.yaml").write_text(chartkit.chart_yaml("app", "1.0.0") +
                                      "dependencies:\n- name: lib\n  version: 0.2.0\n  repository: '@stable'\n")
    (chart / "Chart.lock").unlink()
    with pytest.raises(errors.DependencyError) as info:
        dependency.build(chart, credentials=lambda _u: Credentials(), cache=cache)
    # helm's words: named repositories come from repositories.yaml (``repositories=``)
    assert str(info.value) == "no repository definition for @stable. Please add them via 'helm repo add'"
