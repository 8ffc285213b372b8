"""Chart.yaml in its three forms, fields typed as Helm reads them, and Helm's error lines."""
from __future__ import annotations

import itertools

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
    assert md.app_version == "3.1"  # a YAML float, as Helm reads it
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


CHART = b"apiVersion: v2\nname: a\nversion: 1.0.0\n"
UNMARSHAL = "cannot load Chart.yaml: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal "


@pytest.mark.parametrize(
    ("extra", "field", "expected"),
    [
        (b"appVersion: 1.0\n", "app_version", "1"),
        (b"appVersion: 1.10\n", "app_version", "1.1"),
        (b"appVersion: '1.10'\n", "app_version", "1.10"),
        (b"appVersion: 123456789\n", "app_version", "123456789"),
        (b"appVersion: 1234567.8\n", "app_version", "1.2345678e+06"),
        (b"appVersion: 0.000012\n", "app_version", "1.2e-05"),
        (b"appVersion: 0x1F\n", "app_version", "31"),
        (b"appVersion: yes\n", "app_version", "true"),
        (b"appVersion: 2024-01-02\n", "app_version", "2024-01-02"),
        (b"appVersion: ~\n", "app_version", ""),
        (b"kubeVersion: 1.20\n", "kube_version", "1.2"),
        (b"description: 3.0\n", "description", "3"),
        (b"description: |\n  two\n  lines\n", "description", "two lines "),
        (b"description: \"tab\\there\\u0007bell\"\n", "description", "tab herebell"),
        (b"keywords: [1.0, on, x]\n", "keywords", ["1", "true", "x"]),
        (b"annotations: {a: 1.50, b: no, c: null}\n", "annotations", {"a": "1.5", "b": "false", "c": ""}),
        (b"deprecated: yes\n", "deprecated", True),
        (b"AppVersion: 2.0\n", "app_version", "2"),
    ],
    ids=["float-1.0", "float-1.10", "quoted", "int", "float32-exponent", "small-float", "hex-int", "yaml11-bool",
         "timestamp-text", "null", "kubeVersion", "description-number", "description-newlines",
         "description-unprintable", "keywords", "annotations", "deprecated-yes", "key-case-insensitive"],
)
def test_fields_read_as_helm_reads_them(extra, field, expected):
    # sigs.k8s.io/yaml into chart.Metadata: numbers and bools bound for strings become
    # text (floats as float32 'g'); Validate's sanitizeString turns spaces into " ".
    md = chartfile.parse_chart_yaml(CHART + extra)
    assert getattr(md, field) == expected


def test_dependency_version_is_read_as_helm_reads_it():
    md = chartfile.parse_chart_yaml(CHART + b"dependencies:\n- name: x\n  version: 1.0\n  repository: file://x\n")
    assert md.dependencies[0].version == "1"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b"apiVersion: v2\nversion: 1.0.0\n", "validation: chart.metadata.name is required"),
        (b"apiVersion: v2\nname: a\n", "validation: chart.metadata.version is required"),
        (b"apiVersion: v2\nname: a\nversion: one\n", 'validation: chart.metadata.version "one" is invalid'),
        (b"apiVersion: v2\nname: a\nversion: 1.0.0-01\n", 'validation: chart.metadata.version "1.0.0-01" is invalid'),
        (CHART + b"type: plugin\n", "validation: chart.metadata.type must be application or library"),
        (b"apiVersion: v2\nname: ../a\nversion: 1.0.0\n", 'validation: chart.metadata.name "../a" is invalid'),
        (b"apiVersion: v2\nname: ..\nversion: 1.0.0\n", 'validation: chart.metadata.name ".." is not allowed'),
        (CHART + b"keywords: {a: b}\n", UNMARSHAL + "object into Go struct field Metadata.keywords of type []string"),
        (CHART + b"deprecated: maybe\n", UNMARSHAL + "string into Go struct field Metadata.deprecated of type bool"),
        (CHART + b"appVersion: [1]\n", UNMARSHAL + "array into Go struct field Metadata.appVersion of type string"),
        (CHART + b"dependencies:\n- name: x\n  version: {a: 1}\n",
         UNMARSHAL + "object into Go struct field Dependency.dependencies.version of type string"),
        (CHART + b"maintainers: [bob]\n", UNMARSHAL + "string into Go struct field Metadata.maintainers of type chart.Maintainer"),
        (CHART + b"dependencies:\n- null\n", "validation: dependencies must not contain empty or null nodes"),
        (CHART + b"maintainers:\n- null\n", "validation: maintainers must not contain empty or null nodes"),
        (CHART + b"dependencies:\n- name: x\n  alias: 'bad alias'\n",
         'validation: dependency "x" has disallowed characters in the alias'),
        (CHART + b"dependencies:\n- name: x\n- name: y\n  alias: x\n",
         'validation: more than one dependency with name or alias "x"'),
        (CHART + b"other: .inf\n", "cannot load Chart.yaml: error converting YAML to JSON: json: unsupported value: +Inf"),
        (b"apiVersion: helm.sh/v3\nkind: Plugin\n", "field 'kind': must be Chart for apiVersion helm.sh/v3, not 'Plugin'"),
        (b"apiVersion: helm.sh/v3\nkind: Chart\nmetadata:\n  name: a\n", "validation: chart.metadata.version is required"),
        (b"- a\n- b\n", UNMARSHAL + "array into Go value of type chart.Metadata"),
        (b"name: [a\n", "cannot load Chart.yaml: error converting YAML to JSON: yaml: line 1: did not find expected ',' or ']'"),
    ],
    ids=["no-name", "no-version", "bad-version", "leading-zero-prerelease", "bad-type", "path-name", "dot-dot-name",
         "keywords-map", "deprecated-word", "appVersion-list", "dep-version-map", "maintainer-string", "dep-null",
         "maintainer-null", "alias-chars", "duplicate-alias", "infinity", "v3-wrong-kind", "v3-no-version",
         "list-top", "bad-yaml"],
)
def test_invalid_chart_yaml_gets_helms_message(text, message):
    with pytest.raises(ChartFileError) as err:
        chartfile.parse_chart_yaml(text)
    assert str(err.value).endswith(message)


def test_unknown_api_version_loads_as_helm_loads_it():
    # Only `helm lint` refuses it; `helm template` renders such a chart.
    assert chartfile.parse_chart_yaml(b"apiVersion: v9\nname: a\nversion: 1.0.0\n").api_version == "v9"


@pytest.mark.parametrize("version", ["1.0.0", "v1.2.3", "1.2", "1", "0.0.0-alpha.1", "1.0.0+meta", "v0.0.0",
                                     "01.2.3", "1.02.0", "v01"])  # Masterminds v3.5's NewVersion: leading zeros pass
def test_versions_helm_accepts(version):
    assert chartfile.is_valid_version(version)


@pytest.mark.parametrize("version", ["", "one", "1.2.3.4", "1.2.3-", "1.2.3+", "1.2.3-01", "v", "1..2"])
def test_versions_helm_refuses(version):
    assert not chartfile.is_valid_version(version)


def test_a_leading_zero_version_loads_as_helm_loads_it():
    assert chartfile.parse_chart_yaml(b"apiVersion: v2\nname: a\nversion: 01.2.3\n").version == "01.2.3"


def test_library_type():
    md = chartfile.parse_chart_yaml(b"apiVersion: v2\nname: lib\nversion: 1.0.0\ntype: library\n")
    assert md.is_library


def test_valid_versions_are_told_as_the_parser_tells_them():
    """The plain-release shortcut (with or without a ``v``) accepts only what NewVersion accepts."""
    from helm_core.golib import versions

    chars = "v01.-a\n"
    for text in ("".join(t) for n in range(8) for t in itertools.product(chars, repeat=n)):
        if chartfile._is_plain_release(text):
            versions.Version.parse(text)
    for text in ("v1.16.1", "1.2.3", "v0.0.0"):
        assert chartfile._is_plain_release(text)