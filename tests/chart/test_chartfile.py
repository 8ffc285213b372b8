"""Chart.yaml in its three forms, and validation errors that name file and field."""
from __future__ import annotations

import pytest

from helm_core.chart import chartfile
from helm_core.errors import ChartFileError

V2 = b"""apiVersion: v2
name: web
version: 1.2.3-rc.1+build.5
appVersion: 3.10
kubeVersion: ">=1.21.0-0"
description: A web app
type: application
keywords: [web, http]
home: https://example.com
sources: [https://example.com/src]
maintainers:
  - name: Ada
    email: ada@example.com
icon: https://example.com/icon.png
deprecated: false
annotations:
  category: Web
dependencies:
  - name: common
    version: 2.x.x
    repository: oci://registry/charts
    condition: common.enabled,global.common
    tags: [base]
    alias: lib
    import-values:
      - data
      - child: default.data
        parent: myimports
"""

HELM_V3 = b"""apiVersion: helm.sh/v3
kind: Chart
metadata:
  name: myChart
  labels:
    heritage: helm
    version: 0.1.0
    appVersion: 3.6
data:
  description: Deploy a basic Alpine Linux pod
  home: https://github.com/kubernetes/helm
  sources:
    - https://github.com/kubernetes/helm
  kubeVersion: ">=1.20.0"
"""


def test_v2_fields_map_to_the_model():
    md = chartfile.parse_chart_yaml(V2)
    assert (md.api_version, md.name, md.version) == ("v2", "web", "1.2.3-rc.1+build.5")
    assert md.app_version == "3.10"  # written as a number; kept as its text
    assert md.kube_version == ">=1.21.0-0" and md.keywords == ["web", "http"]
    assert md.maintainers[0].email == "ada@example.com" and md.annotations == {"category": "Web"}
    dep = md.dependencies[0]
    assert (dep.name, dep.alias, dep.effective_name, dep.tags) == ("common", "lib", "lib", ["base"])
    assert [(iv.child, iv.parent) for iv in dep.import_values] == [("exports.data", "."), ("default.data", "myimports")]


def test_helm_v3_form_maps_to_the_same_model():
    md = chartfile.parse_chart_yaml(HELM_V3)
    assert (md.api_version, md.name, md.version, md.app_version) == ("helm.sh/v3", "myChart", "0.1.0", "3.6")
    assert md.description == "Deploy a basic Alpine Linux pod"
    assert md.sources == ["https://github.com/kubernetes/helm"] and md.kube_version == ">=1.20.0"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b"apiVersion: v2\nversion: 1.0.0\n", "Chart.yaml: field 'name': is required"),
        (b"apiVersion: v2\nname: a\n", "Chart.yaml: field 'version': is required"),
        (b"apiVersion: v2\nname: a\nversion: one\n", "Chart.yaml: field 'version': 'one' is not a valid SemVer 2 version"),
        (b"apiVersion: v2\nname: a\nversion: 1.0.0-01\n", "'1.0.0-01' is not a valid SemVer 2 version"),
        (b"apiVersion: v9\nname: a\nversion: 1.0.0\n", "Chart.yaml: field 'apiVersion': unknown apiVersion 'v9'"),
        (b"apiVersion: v2\nname: a\nversion: 1.0.0\ntype: plugin\n", "field 'type': must be application or library, not 'plugin'"),
        (b"apiVersion: v2\nname: ../a\nversion: 1.0.0\n", "field 'name': '../a' is not a valid chart name"),
        (b"apiVersion: v2\nname: a\nversion: 1.0.0\nkeywords: {a: b}\n", "field 'keywords': must be a list of strings"),
        (b"apiVersion: v2\nname: a\nversion: 1.0.0\ndeprecated: maybe\n", "field 'deprecated': must be true or false, not 'maybe'"),
        (b"apiVersion: v2\nname: a\nversion: 1.0.0\ndependencies:\n- version: 1.0.0\n", "field 'dependencies[0].name': is required"),
        (b"apiVersion: v2\nname: a\nversion: 1.0.0\ndependencies:\n- null\n", "field 'dependencies[0]': must not be empty or null"),
        (b"apiVersion: v2\nname: a\nversion: 1.0.0\ndependencies:\n- name: x\n  alias: 'bad alias'\n", "field 'dependencies[0].alias': dependency 'x' has disallowed characters"),
        (b"apiVersion: v2\nname: a\nversion: 1.0.0\ndependencies:\n- name: x\n- name: y\n  alias: x\n", "more than one dependency with name or alias 'x'"),
        (b"apiVersion: v2\nname: a\nversion: 1.0.0\ndependencies:\n- name: x\n  import-values: [[1]]\n", "field 'dependencies[0].import-values[0]': must be a string or a map"),
        (b"apiVersion: helm.sh/v3\nkind: Plugin\n", "field 'kind': must be Chart for apiVersion helm.sh/v3, not 'Plugin'"),
        (b"apiVersion: helm.sh/v3\nkind: Chart\nmetadata:\n  name: a\n", "Chart.yaml: field 'metadata.labels.version': is required"),
        (b"- a\n- b\n", "Chart.yaml: top level must be a map"),
        (b"name: [a\n", "Chart.yaml:2: invalid YAML"),
        (b"\xff\xfe", "Chart.yaml: not UTF-8 text"),
    ],
    ids=["no-name", "no-version", "bad-version", "leading-zero-prerelease", "unknown-api", "bad-type",
         "path-name", "keywords-map", "deprecated-word", "dep-no-name", "dep-null", "alias-chars",
         "duplicate-alias", "import-values-shape", "v3-wrong-kind", "v3-no-version", "list-top",
         "bad-yaml", "not-utf8"],
)
def test_invalid_chart_yaml_names_file_and_field(text, message):
    with pytest.raises(ChartFileError) as err:
        chartfile.parse_chart_yaml(text)
    assert message in str(err.value)


@pytest.mark.parametrize("version", ["1.0.0", "v1.2.3", "1.2", "1", "0.0.0-alpha.1", "1.0.0+meta", "v0.0.0"])
def test_versions_helm_accepts(version):
    assert chartfile.is_valid_version(version)


@pytest.mark.parametrize("version", ["", "one", "1.2.3.4", "01.2.3", "1.2.3-", "1.2.3+"])
def test_versions_helm_refuses(version):
    assert not chartfile.is_valid_version(version)


def test_library_type():
    md = chartfile.parse_chart_yaml(b"apiVersion: v2\nname: lib\nversion: 1.0.0\ntype: library\n")
    assert md.is_library
