"""Deterministic packaging and ``repo index``, compared with the reference helm."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml

from helm_core import errors
from helm_core.cli import main as cli_main
from helm_core.chart import loader
from helm_core.sources import index as index_mod, package as package_mod
from tests import chartkit


def _chart(root: Path, name: str = "demo", version: str = "1.0.0") -> Path:
    return chartkit.write_chart(root / name, {
        "Chart.yaml": chartkit.chart_yaml(name, version, description="A demo", appVersion='"2.0"') + (
            "keywords: [a, b]\nhome: https://example.com\nsources: [https://src.example]\n"
            "maintainers:\n- name: Jo\n  email: jo@example.com\nannotations:\n  category: Demo\n"
            "kubeVersion: '>=1.20.0-0'\ndependencies:\n- name: sub\n  version: 1.x\n"
            "  repository: https://r.example\n  condition: sub.enabled\n  alias: s\n"),
        "charts/sub/Chart.yaml": chartkit.chart_yaml("sub", "1.0.0"),
        "values.yaml": "a: 1\n",
        "templates/cm.yaml": "kind: ConfigMap\n",
        ".helmignore": "*.bak\n",
        "notes.bak": "ignored\n",
    })


def test_package_is_deterministic_and_loads(tmp_path: Path) -> None:
    chart = _chart(tmp_path)
    name1, data1 = package_mod.package(chart)
    (chart / "values.yaml").touch()
    name2, data2 = package_mod.package(chart)
    assert name1 == name2 == "demo-1.0.0.tgz"
    assert data1 == data2
    loaded = loader.load_archive(data1, source=name1)
    assert loaded.metadata.version == "1.0.0"
    assert sorted(f.name for f in loaded.templates) == ["templates/cm.yaml"]
    assert "notes.bak" not in [f.name for f in loaded.files]


def test_cli_package_prints_helm_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    chart = _chart(tmp_path)
    assert cli_main(["package", str(chart), "-d", str(tmp_path / "out")]) == 0
    target = (tmp_path / "out" / "demo-1.0.0.tgz").resolve()
    assert capsys.readouterr().out == f"Successfully packaged chart and saved it to: {target}\n"


def _strip(doc: dict) -> dict:  # type: ignore[type-arg]
    doc = dict(doc)
    doc.pop("generated", None)
    return {**doc, "entries": {name: [{k: v for k, v in e.items() if k != "created"} for e in items]
                                for name, items in doc["entries"].items()}}


def test_repo_index_matches_helm(tmp_path: Path, helm_binary: str) -> None:
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    for version in ("1.0.0", "1.10.0", "1.2.0"):
        _, data = package_mod.package(_chart(tmp_path / version, "demo", version))
        (repo / f"demo-{version}.tgz").write_bytes(data)
    _, other = package_mod.package(_chart(tmp_path / "o", "other", "0.1.0"))
    (repo / "sub" / "other-0.1.0.tgz").write_bytes(other)
    (repo / "junk.tgz").write_bytes(b"not a chart")
    ours_dir = tmp_path / "ours"
    subprocess.run(["cp", "-r", str(repo), str(ours_dir)], check=True)
    subprocess.run([helm_binary, "repo", "index", str(repo), "--url", "https://charts.example/x"],
                   check=True, capture_output=True, env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert cli_main(["repo", "index", str(ours_dir), "--url", "https://charts.example/x"]) == 0
    theirs = yaml.safe_load((repo / "index.yaml").read_text())
    ours = yaml.safe_load((ours_dir / "index.yaml").read_text())
    assert _strip(ours) == _strip(theirs)


def test_index_without_url_uses_relative_paths(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    _, data = package_mod.package(_chart(tmp_path / "c", "demo", "1.0.0"))
    (tmp_path / "sub" / "demo-1.0.0.tgz").write_bytes(data)
    doc = index_mod.index_directory(tmp_path, created="2026-01-01T00:00:00Z")
    assert doc["entries"]["demo"][0]["urls"] == ["sub/demo-1.0.0.tgz"]


def test_helm_pulls_from_our_index_and_we_pull_from_helms(tmp_path: Path, helm_binary: str,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    from tests.sources import servers
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    for folder in (ours, theirs):
        folder.mkdir()
        for version in ("1.0.0", "1.1.0", "2.0.0"):
            _, data = package_mod.package(_chart(tmp_path / f"src-{version}", "demo", version))
            (folder / f"demo-{version}.tgz").write_bytes(data)
    assert cli_main(["repo", "index", str(ours)]) == 0
    subprocess.run([helm_binary, "repo", "index", str(theirs)], check=True, capture_output=True, env=env)
    our_server = servers.RepoServer(root=ours, username="u", password="p").start()
    their_server = servers.RepoServer(root=theirs, username="u", password="p").start()
    try:
        (tmp_path / "h").mkdir()
        subprocess.run([helm_binary, "pull", "demo", "--repo", our_server.url, "--version", "^1",
                        "--username", "u", "--password", "p", "-d", str(tmp_path / "h")],
                       check=True, capture_output=True, env=env)
        assert (tmp_path / "h" / "demo-1.1.0.tgz").read_bytes() == (ours / "demo-1.1.0.tgz").read_bytes()
        capsys.readouterr()
        (tmp_path / "o").mkdir()  # helm's pull writes into a folder that exists
        assert cli_main(["pull", "demo", "--repo", their_server.url, "--version", "^1", "--username", "u",
                         "--password", "p", "-d", str(tmp_path / "o"), "--cache-dir", str(tmp_path / "c")]) == 0
        assert capsys.readouterr().out == ""  # helm pull prints nothing for repositories
        assert (tmp_path / "o" / "demo-1.1.0.tgz").read_bytes() == (theirs / "demo-1.1.0.tgz").read_bytes()
    finally:
        our_server.stop()
        their_server.stop()


def test_cli_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.sources import servers
    port = servers.free_port()
    assert cli_main(["pull", "demo", "--repo", f"http://127.0.0.1:{port}", "--cache-dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"Error: http://127.0.0.1:{port}: cannot reach the repository")
    assert err.count("\n") == 1


def test_package_holds_the_same_files_as_helm_package(tmp_path: Path, helm_binary: str) -> None:
    import io
    import tarfile
    chart = _chart(tmp_path)
    (tmp_path / "h").mkdir()
    subprocess.run([helm_binary, "package", str(chart), "-d", str(tmp_path / "h")], check=True,
                   capture_output=True, env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})

    def members(data: bytes) -> dict[str, bytes]:
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}  # type: ignore[union-attr]

    theirs = members((tmp_path / "h" / "demo-1.0.0.tgz").read_bytes())
    ours = members(package_mod.package(chart)[1])
    assert sorted(ours) == sorted(theirs)
    # helm re-marshals Chart.yaml; every other file is byte for byte the same
    assert {k: v for k, v in ours.items() if k != "demo/Chart.yaml"} == {
        k: v for k, v in theirs.items() if k != "demo/Chart.yaml"}
    assert yaml.safe_load(ours["demo/Chart.yaml"]) == yaml.safe_load(theirs["demo/Chart.yaml"])


def _helm_package(helm_binary: str, chart: Path, into: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([helm_binary, "package", str(chart), "-d", str(into), *flags], capture_output=True,
                          text=True, env={"HOME": str(into.parent), "PATH": "/usr/bin:/bin"})


def _chart_yaml_of(archive: bytes, chart_name: str) -> bytes:
    import io
    import tarfile
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        member = tar.extractfile(f"{chart_name}/Chart.yaml")
        assert member is not None
        return member.read()


@pytest.mark.parametrize(("version", "app_version"), [
    ("2.0.0", "3.1"), ("v2.1", ""), ("", "1.10"), ("1.2.3-rc.1+build.5", "tab\there"), ("01.2.3", "")])
def test_package_sets_versions_as_helm_does(tmp_path: Path, helm_binary: str, version: str,
                                            app_version: str) -> None:
    """--version/--app-version: the archive's name and its Chart.yaml byte for byte as helm's
    (helm writes Chart.yaml marshalled, text sanitized: the tab becomes a space)."""
    chart = _chart(tmp_path)
    flags = [*(["--version", version] if version else []), *(["--app-version", app_version] if app_version else [])]
    done = _helm_package(helm_binary, chart, tmp_path / "h", *flags)
    assert done.returncode == 0, done.stderr
    name, data = package_mod.package(chart, version=version, app_version=app_version)
    assert name == f"demo-{version or '1.0.0'}.tgz"
    assert _chart_yaml_of(data, "demo") == _chart_yaml_of((tmp_path / "h" / name).read_bytes(), "demo")
    loaded = loader.load_archive(data, source=name).metadata
    assert (loaded.version, loaded.app_version) == (version or "1.0.0", (app_version or "2.0").replace("\t", " "))


def test_package_with_versions_drops_a_v1_charts_dependencies_as_helm(tmp_path: Path, helm_binary: str) -> None:
    chart = chartkit.write_chart(tmp_path / "old", {
        "Chart.yaml": "apiVersion: v1\nname: old\nversion: 0.1.0\ndescription: d\n",
        "requirements.yaml": "dependencies:\n- name: sub\n  version: 1.0.0\n  repository: file://sub\n",
        "charts/sub/Chart.yaml": chartkit.chart_yaml("sub", "1.0.0"),
        "templates/cm.yaml": "kind: ConfigMap\n"})
    assert _helm_package(helm_binary, chart, tmp_path / "h", "--app-version", "9").returncode == 0
    name, data = package_mod.package(chart, app_version="9")
    assert _chart_yaml_of(data, "old") == _chart_yaml_of((tmp_path / "h" / name).read_bytes(), "old")


def test_package_without_versions_copies_chart_yaml_verbatim(tmp_path: Path) -> None:
    chart = _chart(tmp_path)
    assert _chart_yaml_of(package_mod.package(chart)[1], "demo") == (chart / "Chart.yaml").read_bytes()


@pytest.mark.parametrize("version", ["abc", "1.2.3-01", "1.2.3.4", "1.2.3+", "v"])
def test_cli_package_refuses_a_bad_version_with_helms_words(
        tmp_path: Path, helm_binary: str, capsys: pytest.CaptureFixture[str], version: str) -> None:
    chart = _chart(tmp_path)
    theirs = _helm_package(helm_binary, chart, tmp_path / "h", "--version", version)
    assert theirs.returncode == 1
    assert cli_main(["package", str(chart), "-d", str(tmp_path / "out"), "--version", version]) == 1
    assert capsys.readouterr().err == theirs.stderr
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())


@pytest.mark.parametrize("destination", [".", "out", "./out/", "out/../out2", "{tmp}/abs"])
def test_cli_package_names_the_archive_as_helm(tmp_path: Path, helm_binary: str, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str], destination: str) -> None:
    chart = _chart(tmp_path)
    destination = destination.format(tmp=tmp_path)
    for side in ("helm", "core"):
        (tmp_path / side).mkdir()
    theirs = subprocess.run([helm_binary, "package", str(chart), "-d", destination], capture_output=True, text=True,
                            cwd=tmp_path / "helm", env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    monkeypatch.chdir(tmp_path / "core")
    assert cli_main(["package", str(chart), "-d", destination]) == 0
    assert capsys.readouterr().out == theirs.stdout.replace(str(tmp_path / "helm"), str(tmp_path / "core"))


def test_cli_package_sets_versions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    chart = _chart(tmp_path)
    assert cli_main(["package", str(chart), "-d", str(tmp_path / "out"), "--version", "3.0.0",
                     "--app-version", "v3"]) == 0
    target = (tmp_path / "out" / "demo-3.0.0.tgz").resolve()
    assert capsys.readouterr().out == f"Successfully packaged chart and saved it to: {target}\n"
    loaded = loader.load_archive(target.read_bytes(), source=str(target)).metadata
    assert (loaded.version, loaded.app_version) == ("3.0.0", "v3")


def test_repo_index_merge_keeps_versions_the_folder_lacks(tmp_path: Path) -> None:
    old = tmp_path / "old.yaml"
    old.write_text("apiVersion: v1\nentries:\n  demo:\n  - name: demo\n    version: 0.9.0\n"
                   "    urls: [https://old.example/demo-0.9.0.tgz]\n  gone:\n  - name: gone\n    version: 1.0.0\n")
    _, data = package_mod.package(_chart(tmp_path / "src", "demo", "1.0.0"))
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "demo-1.0.0.tgz").write_bytes(data)
    assert cli_main(["repo", "index", str(tmp_path / "repo"), "--merge", str(old)]) == 0
    doc = yaml.safe_load((tmp_path / "repo" / "index.yaml").read_text())
    assert [e["version"] for e in doc["entries"]["demo"]] == ["1.0.0", "0.9.0"]
    assert [e["version"] for e in doc["entries"]["gone"]] == ["1.0.0"]


def test_expand_writes_the_archive_back_under_the_chart_name(tmp_path: Path) -> None:
    files = [("Chart.yaml", b"apiVersion: v2\nname: demo\nversion: 1.0.0\n"),
             ("templates/cm.yaml", b"kind: ConfigMap\n"), ("charts/sub/Chart.yaml", b"name: sub\n")]
    out = package_mod.expand(package_mod.archive_bytes("folder-name", files), str(tmp_path / "x"), source="t.tgz")
    assert out == str(tmp_path / "x" / "demo")
    assert sorted((str(p.relative_to(tmp_path)), p.read_bytes(), oct(p.stat().st_mode & 0o777))
                  for p in (tmp_path / "x").rglob("*") if p.is_file()) == [
        ("x/demo/Chart.yaml", files[0][1], "0o644"), ("x/demo/charts/sub/Chart.yaml", files[2][1], "0o644"),
        ("x/demo/templates/cm.yaml", files[1][1], "0o644")]


@pytest.mark.parametrize(("name", "message"), [
    ("", "chart name not specified"), (".", 'chart name "." is not allowed'),
    ("..", 'chart name ".." is not allowed'), ("a/b", 'chart name "a/b" must not contain path separators')])
def test_expand_refuses_names_that_are_not_one_folder(tmp_path: Path, name: str, message: str) -> None:
    data = package_mod.archive_bytes("c", [("Chart.yaml", f"apiVersion: v2\nname: '{name}'\nversion: 1.0.0\n".encode())])
    with pytest.raises(errors.ChartError, match=f"^{message}$"):
        package_mod.expand(data, str(tmp_path), source="t.tgz")
    assert list(tmp_path.iterdir()) == []
