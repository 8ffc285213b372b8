"""The engine against the real helm binary: tiny charts using only Go's language and builtins.

Each case is rendered live by ``helm template`` (no helm output is committed) and by our
engine with the same ``.Values``; outputs and error messages must be identical.
"""
from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
from typing import Any

import pytest
import yaml

from helm_core.gotemplate import Environment, ExecError, ParseError

pytestmark = pytest.mark.conformance

DEFAULT_HELM = "/root/.cache/hc-bootstrap/bin/helm"
CHART = "conf"

VALUES_YAML = """\
name: web
replicas: 3
ratio: 1.5
big: 1000000
tiny: 0.00001
enabled: true
empty: ""
nothing: null
tags: [b, a, c]
ports: [80, 443]
labels: {tier: front, app: web, "z.k": "1"}
nested: {list: [{name: p}, {name: q}]}
"""

TEMPLATE_CASES = [
    ("printing", "{{ .Values.name }} {{ .Values.replicas }} {{ .Values.ratio }} {{ .Values.big }} {{ .Values.tiny }} {{ .Values.tags }} {{ .Values.labels }} {{ .Values.enabled }}"),
    ("range_list_and_map", "{{ range $i, $t := .Values.tags }}{{ $i }}={{ $t }};{{ end }}{{ range $k, $v := .Values.labels }}{{ $k }}:{{ $v }},{{ end }}"),
    ("range_int_break_continue", "{{ range 6 }}{{ if eq . 1 }}{{ continue }}{{ end }}{{ if eq . 4 }}{{ break }}{{ end }}{{ . }}{{ end }}"),
    ("if_else_with", "{{ if .Values.empty }}a{{ else if .Values.enabled }}b{{ end }}{{ with .Values.nested }}{{ range .list }}{{ .name }}{{ end }}{{ end }}{{ with .Values.empty }}x{{ else with .Values.name }}{{ . }}{{ end }}"),
    ("and_or_not", '{{ and .Values.enabled .Values.name }} {{ or .Values.empty .Values.nothing "dflt" }} {{ not .Values.empty }}'),
    ("comparisons", "{{ eq .Values.name \"web\" }} {{ ne .Values.replicas 3.0 }} {{ lt .Values.ratio 2.0 }} {{ eq .Values.nothing nil }} {{ ge (len .Values.tags) 3 }}"),
    ("index_slice_len", '{{ index .Values.tags 1 }} {{ index .Values.labels "z.k" }} {{ slice .Values.tags 1 }} {{ len .Values.name }} {{ index .Values.nested "list" 0 "name" }}'),
    ("printf_family", '{{ printf "%s-%d-%05.2f-%v-%q-%x" .Values.name 7 .Values.ratio .Values.ports "q" 255 }} {{ print 1 2 "s" }} {{ println "a" }}'),
    ("printf_bad_verbs", '{{ printf "%d %s %!" .Values.name }}'),
    ("escapers", '{{ html "<b>&\'" }} {{ js "a\'b<c" }} {{ urlquery "a b/c" }}'),
    ("define_and_template", '{{ define "conf.lbl" }}app={{ .name }}{{ end }}{{ template "conf.lbl" .Values }}{{ block "conf.blk" . }}B{{ end }}'),
    ("variables_and_scope", "{{ $x := 1 }}{{ range .Values.ports }}{{ $x = . }}{{ end }}{{ $x }} {{ $.Values.name }}"),
    ("trim_markers_and_comments", "a  {{- /* comment */ -}}  b {{- \"c\" }}\n  {{- 3 -}}\n  d"),
    ("number_literals", "{{ 1e3 }} {{ 0x1F }} {{ 'a' }} {{ 1_000 }} {{ 0o17 }} {{ -0x1p3 }} {{ 1.0 }} {{ 1e6 }}"),
]

ERROR_CASES = [
    ("nil_pointer", "{{ .Values.missing.field }}"),
    ("field_of_string", "{{ .Values.name.x }}"),
    ("wrong_arg_count", "{{ len 1 2 }}"),
    ("len_of_int", "{{ len 3 }}"),
    ("index_out_of_range", "{{ index .Values.tags 5 }}"),
    ("incompatible_comparison", "{{ eq .Values.replicas 3 }}"),
    ("range_over_float", "{{ range .Values.ratio }}{{ end }}"),
    ("unknown_function", "{{ nosuchfunc }}"),
    ("unclosed_action", "a\n{{ if .Values.name }\n"),
    ("undefined_variable", "{{ $nope }}"),
]


def _helm() -> str | None:
    for candidate in (os.environ.get("HELM_BIN"), shutil.which("helm"), DEFAULT_HELM):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def _floats(v: Any) -> Any:
    """YAML numbers become float64 in Helm's values."""
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return float(v)
    if isinstance(v, dict):
        return {k: _floats(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_floats(x) for x in v]
    return v


def _wrap(name: str, body: str) -> str:
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name.replace('_', '-')}\ndata:\n  out: |\n    {body}\n"


def _chart(tmp: pathlib.Path, templates: dict[str, str]) -> pathlib.Path:
    root = tmp / CHART
    (root / "templates").mkdir(parents=True)
    (root / "Chart.yaml").write_text(f"apiVersion: v2\nname: {CHART}\nversion: 0.1.0\n")
    (root / "values.yaml").write_text(VALUES_YAML)
    for name, text in templates.items():
        (root / "templates" / f"{name}.yaml").write_text(text)
    return root


def _ours(name: str, text: str) -> str:
    tset = Environment().new_set()
    tset.parse(f"{CHART}/templates/{name}.yaml", text)
    return tset.execute(f"{CHART}/templates/{name}.yaml", {"Values": _floats(yaml.safe_load(VALUES_YAML))})


@pytest.fixture(scope="module")
def helm_bin() -> str:
    found = _helm()
    if found is None:
        pytest.skip("helm binary not found (HELM_BIN, PATH, /root/.cache/hc-bootstrap/bin/helm): conformance not checked")
    return found


@pytest.fixture(scope="module")
def helm_render(helm_bin: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = _chart(tmp_path_factory.mktemp("chart"), {n: _wrap(n, t) for n, t in TEMPLATE_CASES})
    out = subprocess.run([helm_bin, "template", "x", str(root)], capture_output=True, text=True, check=True).stdout
    docs: dict[str, str] = {}
    for doc in out.split("---\n# Source: ")[1:]:
        source, _, body = doc.partition("\n")
        docs[source] = body
    return docs


@pytest.mark.parametrize(("name", "text"), TEMPLATE_CASES, ids=[c[0] for c in TEMPLATE_CASES])
def test_output_matches_helm(helm_render: dict[str, str], name: str, text: str) -> None:
    expected = helm_render[f"{CHART}/templates/{name}.yaml"]
    assert _ours(name, _wrap(name, text)).strip() == expected.strip()


@pytest.mark.parametrize(("name", "text"), ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_error_matches_helm(helm_bin: str, tmp_path: pathlib.Path, name: str, text: str) -> None:
    root = _chart(tmp_path, {name: text})
    proc = subprocess.run([helm_bin, "template", "x", str(root)], capture_output=True, text=True)
    assert proc.returncode != 0
    helm_error = proc.stderr.splitlines()[0].removeprefix("Error: ")
    with pytest.raises((ExecError, ParseError)) as info:
        _ours(name, text)
    err = info.value
    if isinstance(err, ParseError):
        # Helm re-prints Go's parse error "template: NAME:LINE: MSG" as below.
        assert err.pos is not None
        assert f"parse error at ({err.pos.file}:{err.pos.line}): {err.reason}" == helm_error
    else:
        assert str(err) == helm_error
