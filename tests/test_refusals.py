"""Charts and flags helm refuses: our first error line is helm's, word for word.

Each case is a small chart (and flags) that `helm template` 3.22 refuses; the line is what helm
printed first on stderr ({chart} stands for the chart's path). The first test holds us to the
line; the second re-checks the line against live helm when it is available, so the table
cannot drift from helm (it skips, visibly, without helm).
"""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from helm_core import cli
from tests.engine import helmbin

REFUSALS = [
    ('missing-dependency', {'Chart.yaml': 'apiVersion: v2\nname: c\nversion: 0.1.0\ndependencies:\n- name: sub\n  version: 1.0.0\n  repository: https://example.com\n', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'release-name', [],
     'Error: An error occurred while checking for chart dependencies. You may need to run `helm dependency build` to fetch missing dependencies: found in Chart.yaml, but missing in charts/ directory: sub'),
    ('missing-dependency-alias', {'Chart.yaml': 'apiVersion: v2\nname: c\nversion: 0.1.0\ndependencies:\n- name: sub\n  alias: other\n  version: 1.0.0\n  repository: https://example.com\n', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'release-name', [],
     'Error: An error occurred while checking for chart dependencies. You may need to run `helm dependency build` to fetch missing dependencies: found in Chart.yaml, but missing in charts/ directory: sub'),
    ('two-missing-dependencies', {'Chart.yaml': 'apiVersion: v2\nname: c\nversion: 0.1.0\ndependencies:\n- name: a1\n  version: 1.0.0\n- name: b1\n  version: 1.0.0\n', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'release-name', [],
     'Error: An error occurred while checking for chart dependencies. You may need to run `helm dependency build` to fetch missing dependencies: found in Chart.yaml, but missing in charts/ directory: a1, b1'),
    ('no-version', {'Chart.yaml': 'apiVersion: v2\nname: c\n', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'release-name', [],
     'Error: validation: chart.metadata.version is required'),
    ('no-name', {'Chart.yaml': 'apiVersion: v2\nversion: 1.0.0\n', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'release-name', [],
     'Error: validation: chart.metadata.name is required'),
    ('bad-version', {'Chart.yaml': 'apiVersion: v2\nname: c\nversion: one\n', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'release-name', [],
     'Error: validation: chart.metadata.version "one" is invalid'),
    ('bad-type', {'Chart.yaml': 'apiVersion: v2\nname: c\nversion: 0.1.0\ntype: plugin\n', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'release-name', [],
     'Error: validation: chart.metadata.type must be application or library'),
    ('library', {'Chart.yaml': 'apiVersion: v2\nname: c\nversion: 0.1.0\ntype: library\n', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'release-name', [],
     'Error: library charts are not installable'),
    ('name-slash', {'Chart.yaml': 'apiVersion: v2\nname: a/b\nversion: 1.0.0\n', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'release-name', [],
     'Error: validation: chart.metadata.name "a/b" is invalid'),
    ('name-dotdot', {'Chart.yaml': 'apiVersion: v2\nname: ..\nversion: 1.0.0\n', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'release-name', [],
     'Error: validation: chart.metadata.name ".." is not allowed'),
    ('chart-yaml-syntax', {'Chart.yaml': 'name: [c\n', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'release-name', [],
     "Error: cannot load Chart.yaml: error converting YAML to JSON: yaml: line 1: did not find expected ',' or ']'"),
    ('chart-yaml-list', {'Chart.yaml': '- a\n', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'release-name', [],
     'Error: cannot load Chart.yaml: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type chart.Metadata'),
    ('chart-yaml-type', {'Chart.yaml': 'apiVersion: v2\nname: c\nversion: 0.1.0\nkeywords: {a: b}\n', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'release-name', [],
     'Error: cannot load Chart.yaml: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal object into Go struct field Metadata.keywords of type []string'),
    ('chart-yaml-deprecated-string', {'Chart.yaml': "apiVersion: v2\nname: c\nversion: 0.1.0\ndeprecated: 'yes'\n", 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'release-name', [],
     'Error: cannot load Chart.yaml: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go struct field Metadata.deprecated of type bool'),
    ('chart-yaml-maintainer-null', {'Chart.yaml': 'apiVersion: v2\nname: c\nversion: 0.1.0\nmaintainers:\n- null\n', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'release-name', [],
     'Error: validation: maintainers must not contain empty or null nodes'),
    ('dependency-null', {'Chart.yaml': 'apiVersion: v2\nname: c\nversion: 0.1.0\ndependencies:\n- null\n', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'release-name', [],
     'Error: validation: dependencies must not contain empty or null nodes'),
    ('dependency-alias-chars', {'Chart.yaml': "apiVersion: v2\nname: c\nversion: 0.1.0\ndependencies:\n- name: x\n  alias: 'a b'\n", 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'release-name', [],
     'Error: validation: dependency "x" has disallowed characters in the alias'),
    ('dependency-duplicate', {'Chart.yaml': 'apiVersion: v2\nname: c\nversion: 0.1.0\ndependencies:\n- name: x\n- name: y\n  alias: x\n', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'release-name', [],
     'Error: validation: more than one dependency with name or alias "x"'),
    ('dependency-no-name', {'Chart.yaml': 'apiVersion: v2\nname: c\nversion: 0.1.0\ndependencies:\n- version: 1.0.0\n', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'release-name', [],
     'Error: An error occurred while checking for chart dependencies. You may need to run `helm dependency build` to fetch missing dependencies: found in Chart.yaml, but missing in charts/ directory: '),
    ('missing-chart-yaml', {'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'release-name', [],
     'Error: Chart.yaml file is missing'),
    ('values-yaml-syntax', {'Chart.yaml': 'apiVersion: v2\nname: c\nversion: 0.1.0\n', 'values.yaml': 'a: [b\n', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'release-name', [],
     "Error: cannot load values.yaml: error converting YAML to JSON: yaml: line 1: did not find expected ',' or ']'"),
    ('values-yaml-list', {'Chart.yaml': 'apiVersion: v2\nname: c\nversion: 0.1.0\n', 'values.yaml': '- a\n', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'release-name', [],
     'Error: cannot load values.yaml: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}'),
    ('required', {'Chart.yaml': 'apiVersion: v2\nname: c\nversion: 0.1.0\n', 'templates/x.yaml': '{{ required "need x" .Values.x }}'}, 'release-name', [],
     'Error: execution error at (c/templates/x.yaml:1:3): need x'),
    ('fail', {'Chart.yaml': 'apiVersion: v2\nname: c\nversion: 0.1.0\n', 'templates/x.yaml': '{{ fail "boom" }}'}, 'release-name', [],
     'Error: execution error at (c/templates/x.yaml:1:3): boom'),
    ('parse-error', {'Chart.yaml': 'apiVersion: v2\nname: c\nversion: 0.1.0\n', 'templates/x.yaml': '{{ .Values.x '}, 'release-name', [],
     'Error: parse error at (c/templates/x.yaml:1): unclosed action'),
    ('parse-error-function', {'Chart.yaml': 'apiVersion: v2\nname: c\nversion: 0.1.0\n', 'templates/x.yaml': '{{ nope .Values.x }}'}, 'release-name', [],
     'Error: parse error at (c/templates/x.yaml:1): function "nope" not defined'),
    ('exec-error', {'Chart.yaml': 'apiVersion: v2\nname: c\nversion: 0.1.0\n', 'templates/x.yaml': '{{ .Values.a.b.c }}'}, 'release-name', [],
     'Error: template: c/templates/x.yaml:1:10: executing "c/templates/x.yaml" at <.Values.a.b.c>: nil pointer evaluating interface {}.b'),
    ('rendered-yaml-bad', {'Chart.yaml': 'apiVersion: v2\nname: c\nversion: 0.1.0\n', 'templates/x.yaml': 'a: b\n c: d\n'}, 'release-name', [],
     'Error: YAML parse error on c/templates/x.yaml: error converting YAML to JSON: yaml: line 2: mapping values are not allowed in this context'),
    ('schema-failure', {'Chart.yaml': 'apiVersion: v2\nname: c\nversion: 0.1.0\n', 'values.yaml': 'port: abc\n', 'values.schema.json': '{"type":"object","properties":{"port":{"type":"integer"}}}', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'release-name', [],
     "Error: values don't meet the specifications of the schema(s) in the following chart(s):"),
    ('schema-required', {'Chart.yaml': 'apiVersion: v2\nname: c\nversion: 0.1.0\n', 'values.schema.json': '{"type":"object","required":["port"]}', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'release-name', [],
     "Error: values don't meet the specifications of the schema(s) in the following chart(s):"),
    ('schema-invalid-json', {'Chart.yaml': 'apiVersion: v2\nname: c\nversion: 0.1.0\n', 'values.schema.json': '{"type":', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'release-name', [],
     "Error: values don't meet the specifications of the schema(s) in the following chart(s):"),
    ('schema-remote-ref', {'Chart.yaml': 'apiVersion: v2\nname: c\nversion: 0.1.0\n',
                           'values.schema.json': '{"$ref": "https://example.invalid/schema.json"}', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'release-name', [],
     "Error: values don't meet the specifications of the schema(s) in the following chart(s):"),
    ('kube-version', {'Chart.yaml': "apiVersion: v2\nname: c\nversion: 0.1.0\nkubeVersion: '>=2.0.0'\n", 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'release-name', [],
     'Error: chart requires kubeVersion: >=2.0.0 which is incompatible with Kubernetes v1.37.0'),
    ('kube-version-bad-constraint', {'Chart.yaml': "apiVersion: v2\nname: c\nversion: 0.1.0\nkubeVersion: 'abc'\n", 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'release-name', [],
     'Error: chart requires kubeVersion: abc which is incompatible with Kubernetes v1.37.0'),
    ('bad-set', {'Chart.yaml': 'apiVersion: v2\nname: c\nversion: 0.1.0\n', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'release-name', ['--set', 'a'],
     'Error: failed parsing --set data: key "a" has no value'),
    ('bad-set-index', {'Chart.yaml': 'apiVersion: v2\nname: c\nversion: 0.1.0\n', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'release-name', ['--set', 'a[x]=1'],
     'Error: failed parsing --set data: error parsing index: strconv.Atoi: parsing "x": invalid syntax'),
    ('bad-set-json', {'Chart.yaml': 'apiVersion: v2\nname: c\nversion: 0.1.0\n', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'release-name', ['--set-json', 'a={'],
     'Error: failed parsing --set-json data a={'),
    ('missing-values-file', {'Chart.yaml': 'apiVersion: v2\nname: c\nversion: 0.1.0\n', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'release-name', ['-f', '/nonexistent/v.yaml'],
     'Error: open /nonexistent/v.yaml: no such file or directory'),
    ('show-only-missing', {'Chart.yaml': 'apiVersion: v2\nname: c\nversion: 0.1.0\n', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'release-name', ['--show-only', 'templates/nope.yaml'],
     'Error: could not find template templates/nope.yaml in chart'),
    ('release-name-invalid', {'Chart.yaml': 'apiVersion: v2\nname: c\nversion: 0.1.0\n', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'Bad_Name', [],
     'Error: release name "Bad_Name": invalid release name, must match regex ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$ and the length must not be longer than 53'),
    ('release-name-long', {'Chart.yaml': 'apiVersion: v2\nname: c\nversion: 0.1.0\n', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', [],
     'Error: release name "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa": invalid release name, must match regex ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$ and the length must not be longer than 53'),
    ('subchart-invalid', {'Chart.yaml': 'apiVersion: v2\nname: c\nversion: 0.1.0\n', 'charts/sub/Chart.yaml': 'apiVersion: v2\nname: sub\n', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'release-name', [],
     'Error: error unpacking subchart sub in c: validation: chart.metadata.version is required'),
    ('subchart-bad-yaml', {'Chart.yaml': 'apiVersion: v2\nname: c\nversion: 0.1.0\n', 'charts/sub/Chart.yaml': 'name: [\n', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'release-name', [],
     'Error: error unpacking subchart sub in c: cannot load Chart.yaml: error converting YAML to JSON: yaml: line 1: did not find expected node content'),
    ('requirements-v1-missing', {'Chart.yaml': 'apiVersion: v1\nname: c\nversion: 0.1.0\n', 'requirements.yaml': 'dependencies:\n- name: sub\n  version: 1.0.0\n', 'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'}, 'release-name', [],
     'Error: An error occurred while checking for chart dependencies. You may need to run `helm dependency build` to fetch missing dependencies: found in Chart.yaml, but missing in charts/ directory: sub'),
    ('include-missing', {'Chart.yaml': 'apiVersion: v2\nname: c\nversion: 0.1.0\n', 'templates/x.yaml': '{{ include "nope" . }}'}, 'release-name', [],
     'Error: template: c/templates/x.yaml:1:3: executing "c/templates/x.yaml" at <include "nope" .>: error calling include: template: no template "nope" associated with template "gotpl"'),
    ('duplicate-define-ok', {'Chart.yaml': 'apiVersion: v2\nname: c\nversion: 0.1.0\n', 'templates/x.yaml': '{{ define "a" }}1{{ end }}{{ define "a" }}2{{ end }}'}, 'release-name', [],
     'Error: parse error at (c/templates/x.yaml:1): multiple definition of template "a"'),
    ('tpl-parse-error', {'Chart.yaml': 'apiVersion: v2\nname: c\nversion: 0.1.0\n', 'templates/x.yaml': '{{ tpl "{{ if }}" . }}'}, 'release-name', [],
     'Error: template: c/templates/x.yaml:1:3: executing "c/templates/x.yaml" at <tpl "{{ if }}" .>: error calling tpl: cannot parse template "{{ if }}": template: gotpl:1: missing value for if'),
]


def _chart(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "c"
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.mark.parametrize(("files", "release", "flags", "line"), [c[1:] for c in REFUSALS], ids=[c[0] for c in REFUSALS])
def test_first_error_line_is_helms(tmp_path, capsys, files, release, flags, line):
    chart = _chart(tmp_path, files)
    code = cli.main(["template", release, str(chart), *flags])
    _, err = capsys.readouterr()
    assert code == 1
    assert err.splitlines()[0] == line.replace("{chart}", str(chart))


@pytest.mark.parametrize(("files", "release", "flags", "line"), [c[1:] for c in REFUSALS], ids=[c[0] for c in REFUSALS])
def test_table_is_what_helm_prints(tmp_path, files, release, flags, line):
    helm = helmbin.require_helm()
    chart = _chart(tmp_path, files)
    proc = subprocess.run([helm, "template", release, str(chart), *flags], capture_output=True, text=True,
                          timeout=helmbin.HELM_TIMEOUT, check=False)
    assert proc.returncode == 1
    assert [l for l in proc.stderr.splitlines() if l.startswith("Error: ")][0] == line.replace("{chart}", str(chart))


T = {"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"}
SUB = {"charts/sub/Chart.yaml": "apiVersion: v2\nname: sub\nversion: 1.0.0\n"}
#: Charts that look wrong but that helm 3.22 renders (so must we).
RENDERED = [
    ("unknown-apiversion", {"Chart.yaml": "apiVersion: v9\nname: c\nversion: 1.0.0\n", **T}),
    ("import-values-of-other-types", {"Chart.yaml": "apiVersion: v2\nname: c\nversion: 1.0.0\ndependencies:\n"
                                                    "- name: sub\n  version: 1.0.0\n  import-values: [[1], {child: 2}]\n",
                                      **SUB, **T}),
    ("subchart-missing-its-own-dependency", {"Chart.yaml": "apiVersion: v2\nname: c\nversion: 1.0.0\n",
                                             "charts/sub/Chart.yaml": "apiVersion: v2\nname: sub\nversion: 1.0.0\n"
                                                                      "dependencies:\n- name: deeper\n  version: 1.0.0\n",
                                             **T}),
]


@pytest.mark.parametrize("files", [c[1] for c in RENDERED], ids=[c[0] for c in RENDERED])
def test_charts_helm_renders_render(tmp_path, capsys, files):
    code = cli.main(["template", str(_chart(tmp_path, files))])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert out == "---\n# Source: c/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
