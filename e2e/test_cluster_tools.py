"""Tool pins: the cache key follows the pins, the cache folder honours its override."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from e2e.cluster import tools


@pytest.fixture
def pins_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "tools"
    shutil.copytree(tools.TOOLS_SRC, copy, ignore=shutil.ignore_patterns("*.log"))
    return copy


def test_pins_hash_is_stable_for_unchanged_pins(pins_copy: Path) -> None:
    assert tools.pins_hash(src=pins_copy) == tools.pins_hash()


@pytest.mark.parametrize("module", [g.module for g in tools.GROUPS])
@pytest.mark.parametrize("file_name", ["go.mod", "go.sum"])
def test_pins_hash_changes_when_a_pin_file_changes(pins_copy: Path, module: str,
                                                   file_name: str) -> None:
    path = pins_copy / module / file_name
    path.write_text(path.read_text() + "\n// changed\n")
    assert tools.pins_hash(src=pins_copy) != tools.pins_hash()


def test_pins_hash_changes_with_ldflags() -> None:
    changed = tuple(
        tools.ToolGroup(g.module, g.binaries, g.ldflags + ("-X=a.b=c",)) if g.module == "helm"
        else g for g in tools.GROUPS)
    assert tools.pins_hash(changed) != tools.pins_hash()


def test_cache_folder_env_override_wins() -> None:
    assert tools.cache_root({tools.CACHE_ENV: "/x/y"}) == Path("/x/y")
    assert tools.bin_dir({tools.CACHE_ENV: "/x/y"}) == Path(f"/x/y/{tools.pins_hash()}/bin")


def test_cache_folder_defaults_under_the_user_cache() -> None:
    assert tools.cache_root({}) == Path("~/.cache/helm-controller/tools").expanduser()


def test_missing_binaries_lists_every_tool_and_the_kwok_stages(tmp_path: Path) -> None:
    assert tools.missing_binaries(tmp_path) == [
        "etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok", "helm",
        "registry", "kwok-stages.yaml"]


def test_every_tool_module_is_pinned_with_a_tools_build_tag() -> None:
    for group in tools.GROUPS:
        source = (tools.TOOLS_SRC / group.module / "tools.go").read_text()
        assert source.startswith("//go:build tools\n"), group.module
        for _, package in group.binaries:
            assert f'"{package}"' in source, (group.module, package)


def test_kubernetes_staging_modules_are_replaced_by_matching_releases() -> None:
    go_mod = (tools.TOOLS_SRC / "kube" / "go.mod").read_text()
    replaced = [line.split() for line in go_mod.splitlines() if "=>" in line]
    assert len(replaced) >= 30
    minor = tools.KUBE_VERSION.replace("v1.", "v0.")
    assert all(left == right and version == minor for left, _, right, version in replaced)


def test_missing_go_toolchain_is_a_clear_error(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(tools.CACHE_ENV, str(tmp_path))
    monkeypatch.setenv("GO", str(tmp_path / "no-go"))
    with pytest.raises(tools.errors.ToolsMissingError) as caught:
        tools.build(out=lambda line: None)
    assert str(caught.value) == (
        f"the control-plane binaries are not built in {tools.bin_dir()} and no Go toolchain "
        f"was found (set $GO or put go on PATH)")


def test_failed_build_names_the_tool_and_shows_the_go_error(tmp_path: Path) -> None:
    go = tools.go_binary()
    if go is None:
        pytest.skip("no Go toolchain on this machine")
    group = tools.ToolGroup(module="helm", binaries=(("nope", "helm.sh/helm/v3/cmd/nope"),),
                            ldflags=())
    (tmp_path / "bin").mkdir()
    lines: list[str] = []
    with pytest.raises(tools.errors.ToolBuildError) as caught:
        tools._build_group(go, group, tmp_path / "bin", lines.append)
    assert caught.value.tool == "nope"
    assert str(caught.value).startswith("building nope failed:\n")
    assert "helm.sh/helm/v3/cmd/nope" in caught.value.log_tail
    assert lines[0] == f"[tools] building nope (log: {tmp_path}/logs/helm.log)"
    assert not (tmp_path / "bin" / "nope").exists()
