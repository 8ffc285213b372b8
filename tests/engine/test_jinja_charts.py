"""Jinja2 charts end to end: the example twins render the same objects, a Lua pre-render handler
switches a template's engine, and ``helm-core template``/``lint`` honour ``.j2`` files."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from helm_core import cli
from helm_core.action import config
from helm_core.action import install
from helm_core.action import template as template_action
from helm_core.chart import loader
from helm_core.errors import TemplateError
from helm_core.kube import fake
from helm_core.storage import secrets
from tests.chartkit import SHARED_CHARTS, chart_yaml, write_chart
from tests.engine import helmbin

pytestmark = pytest.mark.timeout(120)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "charts"
TWIN_GO, TWIN_JINJA, MIXED = EXAMPLES / "twin-go", EXAMPLES / "twin-jinja", EXAMPLES / "jinja-mixed"


def objects(result: template_action.TemplateResult) -> list[tuple[str, dict]]:
    return [(m.source, m.obj) for m in result.manifests] + [(h.manifest.source, h.manifest.obj) for h in result.hooks]


@pytest.mark.parametrize("user_values", [
    {},
    {"web": {"enabled": False}},
    {"global": {"env": "staging", "labels": {"team": "apps", "tier": "web"}}, "web": {"greeting": "hey"}},
    {"image": {"tag": "1.28"}, "replicaCount": 5, "ports": [{"name": "metrics", "port": 9090}],
     "config": {"Z": "last", "A": 1}},
], ids=["defaults", "subchart-disabled", "globals-overridden", "values-overridden"])
def test_jinja_twin_renders_the_same_objects_as_its_go_template_twin(user_values):
    options = template_action.TemplateOptions(release_name="twin", namespace="apps")
    go = template_action.run(loader.load(TWIN_GO), user_values, options)
    jinja = template_action.run(loader.load(TWIN_JINJA), user_values, options)
    assert objects(jinja) == objects(go)
    assert jinja.notes == go.notes == "twin is installed as twin in apps ({}).\n".format(
        user_values.get("global", {}).get("env", "prod"))
    assert len(go.manifests) == (4 if user_values.get("web", {}).get("enabled", True) else 3)


def test_go_template_twin_matches_helm():
    """So the Jinja2 twin, equal to it, renders what Helm renders for the Go chart."""
    expected = list(yaml.safe_load_all(helmbin.helm_template(TWIN_GO)))
    result = template_action.run(loader.load(TWIN_GO), {})
    assert [obj for _, obj in objects(result)] == [d for d in expected if d]


def test_cli_template_of_the_twins_prints_the_same_text(capsys):
    assert cli.main(["template", "twin", str(TWIN_GO)]) == 0
    go_out = capsys.readouterr().out
    assert cli.main(["template", "twin", str(TWIN_JINJA)]) == 0
    assert capsys.readouterr().out == go_out
    assert "# Source: twin/charts/web/templates/configmap.yaml\n" in go_out


def test_mixed_chart_includes_go_defines_and_lua_switches_one_template_to_jinja2():
    result = template_action.run(loader.load(MIXED), {}, template_action.TemplateOptions(release_name="api"))
    by_source = dict(objects(result))
    labels = {"app.kubernetes.io/name": "mixed", "app.kubernetes.io/instance": "api",
              "app.kubernetes.io/version": "2.1.0", "app.kubernetes.io/managed-by": "Helm"}
    service = by_source["mixed/templates/service.yaml"]
    deployment = by_source["mixed/templates/deployment.yaml"]
    config = by_source["mixed/templates/configmap.yaml"]
    assert service["metadata"] == deployment["metadata"] == {"name": "api-mixed", "labels": labels}
    assert service["spec"]["selector"] == deployment["spec"]["selector"]["matchLabels"]
    assert config["metadata"] == {"name": "api-mixed", "labels": labels}
    assert config["data"] == {"GREETING": "Hello from api", "MODE": "PRODUCTION"}


def test_mixed_chart_required_error_names_the_jinja_template_and_line():
    with pytest.raises(TemplateError) as caught:
        template_action.run(loader.load(MIXED), {"settings": {"mode": None}})
    assert str(caught.value) == ("jinja2 error at (mixed/templates/configmap.yaml:10): "
                                 "settings.mode is required")


LUA_SWITCH = """\
events.on("pre-render", 0.5, function(_)
  local templates = _.templates
  for i, t in ipairs(templates) do
    if t.name == "templates/b.yaml" then t.engine = "jinja2" end
  end
  _.templates = templates
end)
"""


def test_lua_pre_render_handler_switches_one_templates_engine(tmp_path):
    text = "v: x{# a Jinja2 comment, YAML text for Go #}\n"
    root = write_chart(tmp_path / "sw", {"Chart.yaml": chart_yaml("sw"), "templates/a.yaml": text,
                                         "templates/b.yaml": text, "ext/lua/chart.lua": LUA_SWITCH})
    result = template_action.run(loader.load(root), {})
    contents = {m.source: m.content for m in result.manifests}
    assert contents == {"sw/templates/a.yaml": "v: x{# a Jinja2 comment, YAML text for Go #}",
                        "sw/templates/b.yaml": "v: x"}


def test_lua_handler_choosing_an_unknown_engine_fails_clearly(tmp_path):
    root = write_chart(tmp_path / "sw", {"Chart.yaml": chart_yaml("sw"), "templates/b.yaml": "a: 1\n",
                                         "ext/lua/chart.lua": LUA_SWITCH.replace('"jinja2"', '"mako"')})
    with pytest.raises(TemplateError) as caught:
        template_action.run(loader.load(root), {})
    assert str(caught.value) == "unknown template engine 'mako' for sw/templates/b.yaml (known: jinja2)"


def test_cli_lint_honours_j2_files_and_reports_file_and_line(capsys, tmp_path):
    chart = tmp_path / "broken"
    shutil.copytree(TWIN_JINJA, chart)
    (chart / "templates" / "service.yaml.j2").write_text("apiVersion: v1\nkind: Service\nname: {{ Values.nope.x }}\n")
    assert cli.main(["lint", str(TWIN_JINJA), str(chart)]) == 1
    out, err = capsys.readouterr()
    # helm's lint report: INFO notes only for the good chart, the template error under templates/
    assert f"==> Linting {TWIN_JINJA}\n[INFO] Chart.yaml: icon is recommended\n\n" in out
    assert ("[ERROR] templates/: jinja2 error at (twin/templates/service.yaml.j2:3): "
            "'dict object' has no attribute 'nope'\n") in out
    assert err == "Error: 2 chart(s) linted, 1 chart(s) failed\n"


def test_cli_lint_strict_refuses_a_missing_value_in_a_j2_file(capsys, tmp_path):
    root = write_chart(tmp_path / "strict", {"Chart.yaml": chart_yaml("strict"),
                                             "templates/cm.yaml.j2": "a: b\nc: {{ Values.missing }}\n"})
    # lint renders in the engine's lint mode (helm's), which is strict for Jinja2 templates:
    # a missing value is an error with or without --strict
    for flags in ([], ["--strict"]):
        assert cli.main(["lint", *flags, str(root)]) == 1
        assert ("[ERROR] templates/: jinja2 error at (strict/templates/cm.yaml.j2:2): "
                "'dict object' has no attribute 'missing'" in capsys.readouterr().out)


SHARED_NGINX = SHARED_CHARTS / "nginx"
COMMON_GO = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "common.names.fullname" . }}-go
  namespace: {{ include "common.names.namespace" . | quote }}
  labels: {{- include "common.labels.standard" (dict "customLabels" .Values.commonLabels "context" $) | nindent 4 }}
data:
  image: {{ include "common.images.image" (dict "imageRoot" .Values.image "global" .Values.global) }}
"""
COMMON_JINJA = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include("common.names.fullname", root) }}-jinja
  namespace: {{ include("common.names.namespace", root) | quote }}
  labels:{{ include("common.labels.standard", {"customLabels": Values.commonLabels, "context": root}) | nindent(4) }}
data:
  image: {{ include("common.images.image", {"imageRoot": Values.image, "global": Values.global}) }}
"""


def test_jinja_template_reuses_bitnami_common_helpers(tmp_path):
    if not SHARED_NGINX.is_dir():
        pytest.skip(f"{SHARED_NGINX} not present: bitnami common helpers not tested")
    chart = tmp_path / "nginx"
    shutil.copytree(SHARED_NGINX, chart)
    (chart / "templates" / "zz-go.yaml").write_text(COMMON_GO)
    (chart / "templates" / "zz-jinja.yaml.j2").write_text(COMMON_JINJA)
    user_values = {"commonLabels": {"team": "web"}}
    result = template_action.run(loader.load(chart), user_values, template_action.TemplateOptions(release_name="r"))
    by_source = dict(objects(result))
    go, jinja = by_source["nginx/templates/zz-go.yaml"], by_source["nginx/templates/zz-jinja.yaml"]
    assert jinja["metadata"].pop("name") == "r-nginx-jinja"
    assert go["metadata"].pop("name") == "r-nginx-go"
    assert jinja == go
    assert go["metadata"]["labels"]["team"] == "web"
    assert go["data"]["image"].startswith("docker.io/bitnami/nginx:")


def test_j2_hooks_and_kind_order_go_through_the_same_pipeline(tmp_path):
    hook = ("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {{ Release.Name }}-migrate\n  annotations:\n"
            "    \"helm.sh/hook\": pre-install\n    \"helm.sh/hook-weight\": \"{{ 1 + 1 }}\"\n")
    objects_text = ("{% for kind in ['ConfigMap', 'Namespace'] %}\n---\napiVersion: v1\nkind: {{ kind }}\n"
                    "metadata:\n  name: {{ kind | lower }}\n{% endfor %}\n")
    root = write_chart(tmp_path / "pipe", {"Chart.yaml": chart_yaml("pipe"), "templates/hook.yaml.j2": hook,
                                           "templates/objects.yaml.j2": objects_text})
    result = template_action.run(loader.load(root), {}, template_action.TemplateOptions(release_name="r"))
    assert [(m.source, m.obj["kind"]) for m in result.manifests] == [
        ("pipe/templates/objects.yaml", "Namespace"), ("pipe/templates/objects.yaml", "ConfigMap")]
    assert [(h.manifest.source, h.events, h.weight) for h in result.hooks] == [
        ("pipe/templates/hook.yaml", ["pre-install"], 2)]


@pytest.mark.parametrize("chart_dir", [TWIN_JINJA, MIXED], ids=["twin-jinja", "mixed-with-lua-switch"])
def test_install_honours_j2_and_the_lua_engine_switch(chart_dir):
    """install renders as template does: the stored manifest is what ``helm-core template`` prints."""
    client = fake.FakeCluster().client()
    cfg = config.Configuration(client=client, driver=secrets.SecretsDriver(client))
    done = install.run(cfg, loader.load(chart_dir), {}, install.InstallOptions(name="twin", namespace="apps"))
    expected = template_action.run(loader.load(chart_dir), {},
                                   template_action.TemplateOptions(release_name="twin", namespace="apps"))
    assert done.manifest == template_action.output_text(expected, template_action.TemplateOptions())
    assert done.notes == expected.notes


def test_installed_jinja_twin_equals_installed_go_twin():
    manifests = []
    for chart_dir in (TWIN_GO, TWIN_JINJA):
        client = fake.FakeCluster().client()
        cfg = config.Configuration(client=client, driver=secrets.SecretsDriver(client))
        done = install.run(cfg, loader.load(chart_dir), {"replicaCount": 3},
                           install.InstallOptions(name="twin", namespace="apps"))
        manifests.append((done.manifest, done.notes))
    assert manifests[0] == manifests[1]
    assert "# Source: twin/templates/deployment.yaml\n" in manifests[0][0]
