"""Post-renderers and CRD policies inside install/upgrade (the fake cluster behind them)."""
from __future__ import annotations

from pathlib import Path

import pytest

from helm_core.action import config, crds, install, upgrade
from helm_core.engine import postrender
from helm_core.errors import HelmError, PatchError
from tests.action.conftest import configmap, make_chart

HOOK = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: hook\n  annotations:\n"
        "    helm.sh/hook: pre-install\n")


def test_install_stores_and_applies_the_post_rendered_objects_but_not_hooks(
        cfg: config.Configuration, tmp_path: Path) -> None:
    chart = make_chart(tmp_path, {"a.yaml": configmap("a"), "h.yaml": HOOK})
    options = postrender.from_spec(
        [{"kustomize": {"patches": [{"target": {"kind": "ConfigMap"},
                                     "patch": "data:\n  added: by-patch\n"}]}}],
        {"labels": {"team": "x"}})
    done = install.run(cfg, chart, {}, install.InstallOptions(name="web", post_render=options))
    assert "added: by-patch" in done.manifest and "team: x" in done.manifest
    assert "team" not in done.hooks
    live = cfg.client.get(config.kclient.ObjectRef("v1", "ConfigMap", "a", "default"))
    assert live["data"]["added"] == "by-patch" and live["metadata"]["labels"]["team"] == "x"


def test_upgrade_post_renders_and_a_bad_patch_applies_nothing(cfg: config.Configuration, tmp_path: Path) -> None:
    chart = make_chart(tmp_path, {"a.yaml": configmap("a")})
    install.run(cfg, chart, {}, install.InstallOptions(name="web"))
    bad = postrender.from_spec([{"kustomize": {"patches": [
        {"target": {"kind": "ConfigMap"}, "patch": "- {op: remove, path: /nothing}"}]}}], None)
    with pytest.raises(PatchError, match=r"patches\[0\] on ConfigMap/a"):
        upgrade.run(cfg, chart, {"greeting": "new"}, upgrade.UpgradeOptions(name="web", post_render=bad))
    assert len(cfg.driver.history("default", "web")) == 1
    good = postrender.from_spec(None, {"annotations": {"note": "nice"}})
    done = upgrade.run(cfg, chart, {}, upgrade.UpgradeOptions(name="web", post_render=good))
    assert "note: nice" in done.manifest


@pytest.mark.parametrize(("given", "default", "expected"), [
    ("", crds.INSTALL_DEFAULT, "Create"), ("", crds.UPGRADE_DEFAULT, "Skip"),
    ("CreateReplace", crds.UPGRADE_DEFAULT, "CreateReplace")])
def test_crd_policy_defaults_as_flux(given, default, expected):
    assert crds.check_policy(given, default=default) == expected


def test_crd_policy_invalid_names_the_valid_values():
    with pytest.raises(HelmError, match="invalid CRD policy 'Replace', valid values are 'Skip', 'Create' or 'CreateReplace'"):
        crds.check_policy("Replace", default="Create")


def test_crds_folder_keeps_only_custom_resource_definitions(tmp_path: Path) -> None:
    from helm_core.chart import model

    lines: list[str] = []
    files = [("demo", model.File("crds/x.yaml", (
        b"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: a.b.c\n"
        b"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: stray\n")))]
    found = crds.crd_objects(files, log=lines.append)
    assert [o["metadata"]["name"] for o in found] == ["a.b.c"]
    assert "stray" in lines[0] and "CustomResourceDefinitions only" in lines[0]


def test_template_post_renders_objects_not_hooks(tmp_path: Path) -> None:
    from helm_core.action import template

    chart = make_chart(tmp_path, {"a.yaml": configmap("a"), "h.yaml": HOOK})
    result = template.run(chart, {}, template.TemplateOptions(
        post_render=postrender.from_spec(None, {"labels": {"team": "x"}})))
    assert [m.obj["metadata"]["labels"] for m in result.manifests] == [{"team": "x"}]
    assert "labels" not in result.hooks[0].manifest.obj["metadata"]
    assert "team: x" in template.output_text(result, template.TemplateOptions())
