"""The library's own face (helm_core.load_chart, helm_core.template, release actions), compared
with the reference ``helm template`` ($HELM_BIN) on fixture charts, byte for byte."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import helm_core
from helm_core.kube import fake
from helm_core.storage import release as rel
from tests.engine import helmbin

ROOT = Path(__file__).resolve().parents[1]
KITCHEN_SINK = ROOT / "tests/conformance/charts/kitchen-sink"
CHART_FIELDS = ROOT / "tests/conformance/charts/chart-fields"


@pytest.mark.parametrize("chart", [KITCHEN_SINK, CHART_FIELDS], ids=lambda p: p.name)
def test_template_prints_what_helm_template_prints(chart: Path) -> None:
    assert helm_core.template(chart) == helmbin.helm_template(chart)


def test_template_takes_values_release_name_and_namespace_as_helm_does(tmp_path: Path) -> None:
    values_file = tmp_path / "more.yaml"
    values_file.write_text("replicas: 3\n")
    inline = tmp_path / "inline.json"  # what helm_core.template takes as a mapping, for helm
    inline.write_text('{"name": "from-api", "size": 2}')
    ours = helm_core.template(KITCHEN_SINK, {"name": "from-api", "size": 2}, release_name="shop", namespace="prod",
                              values_files=[str(values_file)], set=["image.tag=v2"],
                              kube_version="1.29.0", include_crds=True)
    helms = helmbin.helm_template(KITCHEN_SINK, "--name-template", "shop", "--namespace", "prod",
                                  "-f", str(inline), "-f", str(values_file),
                                  "--set", "image.tag=v2", "--kube-version", "1.29.0", "--include-crds")
    assert ours == helms


def test_template_equals_the_cli_output() -> None:
    cli = subprocess.run([sys.executable, "-m", "helm_core", "template", "shop", str(KITCHEN_SINK),
                          "--set", "a.b=1"], capture_output=True, text=True, check=True, cwd=ROOT)
    assert helm_core.template(KITCHEN_SINK, release_name="shop", set=["a.b=1"]) == cli.stdout


def test_load_chart_then_template_a_loaded_chart() -> None:
    chart = helm_core.load_chart(KITCHEN_SINK)
    assert chart.name == "kitchen-sink"
    assert helm_core.template(chart) == helm_core.template(KITCHEN_SINK)


def test_bad_input_is_a_helm_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(helm_core.HelmError, match="not found"):
        helm_core.load_chart(tmp_path / "nowhere")
    with pytest.raises(helm_core.errors.ReleaseNameError, match="invalid release name"):
        helm_core.template(KITCHEN_SINK, release_name="Not_Valid")


def test_release_actions_through_the_public_api(tmp_path: Path) -> None:
    client = fake.FakeCluster().client()
    cfg = helm_core.actions.config.on_cluster(client)
    first = helm_core.install(cfg, KITCHEN_SINK, name="shop", namespace="apps")
    second = helm_core.upgrade(cfg, KITCHEN_SINK, {"replicas": 2}, name="shop", namespace="apps")
    assert [v.version for v in helm_core.history(cfg, "shop", "apps")] == [first.version, second.version]
    assert helm_core.get(cfg, "shop", "apps").user_values == {"replicas": 2}
    back = helm_core.rollback(cfg, "shop", "apps")
    assert back.user_values == {}
    assert [r.name for r in helm_core.list_releases(cfg, "apps")] == ["shop"]
    gone = helm_core.uninstall(cfg, "shop", "apps", keep_history=True)
    assert gone.release is not None and gone.release.status is rel.Status.UNINSTALLED


def test_import_helm_core_imports_nothing_else() -> None:
    code = "import sys, helm_core; print(sorted(m for m in sys.modules if m.startswith('helm_core')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "['helm_core']"


def test_unknown_names_are_attribute_errors() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        helm_core.nope  # noqa: B018
    assert {"template", "load_chart", "install", "actions"} <= set(dir(helm_core))


def test_every_action_module_is_reachable_from_helm_core_actions() -> None:
    modules = sorted(p.stem for p in (ROOT / "helm_core/action").glob("*.py") if p.stem != "__init__")
    assert sorted(helm_core.actions.ACTIONS) == modules
    assert helm_core.actions.upgrade.plan([]) == "install"
