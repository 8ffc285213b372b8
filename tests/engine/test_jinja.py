"""engine.jinja through engine.render: opt-in per file or per engine choice, Helm's names and
semantics for filters and globals, Go defines reachable through include, errors with file and line."""
from __future__ import annotations

from pathlib import Path

import pytest

from helm_core.chart import loader, prepare
from helm_core.engine import render
from helm_core.errors import SourcePos, TemplateError
from tests.chartkit import chart_yaml, write_chart

pytestmark = pytest.mark.timeout(60)

VALUES = """\
name: demo
count: 2
ratio: 0.5
enabled: true
empty: ""
nothing: null
text: "a\\nb"
config:
  b: 2
  a: one
list: [x, z]
"""
HELPERS = """\
{{- define "demo.labels" -}}
app: {{ .Values.name }}
chart: {{ .Chart.Name }}
{{- end -}}
{{- define "demo.needs" -}}
{{ required "demo.needs wants .Values.missing" .Values.missing }}
{{- end -}}
"""


def render_chart(tmp_path: Path, templates: dict[str, str], *, values: str = VALUES,
                 **options: object) -> dict[str, str]:
    files = {"Chart.yaml": chart_yaml("demo"), "values.yaml": values, "templates/_helpers.tpl": HELPERS}
    files.update({f"templates/{name}": text for name, text in templates.items()})
    prepared = prepare.prepare_chart(loader.load(write_chart(tmp_path / "demo", files)), {})
    return render.render(prepared.chart, prepared.values, options=render.RenderOptions(**options))  # type: ignore[arg-type]


def render_one(tmp_path: Path, text: str, **options: object) -> str:
    return render_chart(tmp_path, {"t.yaml.j2": text}, **options)["demo/templates/t.yaml"]


def test_j2_file_renders_under_its_name_without_the_suffix(tmp_path):
    out = render_chart(tmp_path, {"cm.yaml.j2": "name: {{ Values.name }}\n", "go.yaml": "name: {{ .Values.name }}\n"})
    assert out == {"demo/templates/go.yaml": "name: demo\n", "demo/templates/cm.yaml": "name: demo\n"}


def test_chosen_engine_renders_a_template_without_the_suffix_as_jinja2(tmp_path):
    text = "a: {# comment #}{{ 'x' ~ 'y' }}\n"
    out = render_chart(tmp_path, {"j.yaml": text}, template_engines={"demo/templates/j.yaml": "jinja2"})
    assert out["demo/templates/j.yaml"] == "a: xy\n"


def test_unknown_engine_is_refused(tmp_path):
    with pytest.raises(TemplateError) as caught:
        render_chart(tmp_path, {"j.yaml": "a: 1\n"}, template_engines={"demo/templates/j.yaml": "mustache"})
    assert str(caught.value) == "unknown template engine 'mustache' for demo/templates/j.yaml (known: jinja2)"


def test_j2_file_and_go_file_of_the_same_name_are_refused(tmp_path):
    with pytest.raises(TemplateError) as caught:
        render_chart(tmp_path, {"cm.yaml": "a: 1\n", "cm.yaml.j2": "a: 2\n"})
    assert str(caught.value) == ("jinja2 error at (demo/templates/cm.yaml.j2): "
                                 "demo/templates/cm.yaml is also rendered by another template")


def test_partial_j2_files_are_not_rendered(tmp_path):
    assert "demo/templates/_part.yaml" not in render_chart(tmp_path, {"_part.yaml.j2": "{{ fail('no') }}"})


def test_context_mirrors_go_templates(tmp_path):
    text = ("{{ Release.Name }}|{{ Release.Namespace }}|{{ Chart.Name }}|{{ Chart.Version }}|{{ Chart.IsRoot }}|"
            "{{ Capabilities.KubeVersion.Version }}|{{ Capabilities.APIVersions.Has('apps/v1') }}|"
            "{{ Template.Name }}|{{ Template.BasePath }}|{{ Files.Get('files/a.txt') }}|"
            "{{ root.Values.name }}")
    files = {"Chart.yaml": chart_yaml("demo"), "values.yaml": VALUES, "files/a.txt": "from-file",
             "templates/t.yaml.j2": text}
    prepared = prepare.prepare_chart(loader.load(write_chart(tmp_path / "demo", files)), {})
    out = render.render(prepared.chart, prepared.values)
    assert out["demo/templates/t.yaml"] == ("release-name|default|demo|0.1.0|true|v1.37.0|true|"
                                            "demo/templates/t.yaml|demo/templates|from-file|demo")


def test_subchart_sees_its_scope_and_globals_and_parent_sees_subcharts(tmp_path):
    files = {
        "Chart.yaml": chart_yaml("top"),
        "values.yaml": "global:\n  env: prod\nsub:\n  greeting: hi\n",
        "templates/t.yaml.j2": "{{ Subcharts.sub.Values.greeting }}-{{ Subcharts.sub.Chart.Name }}",
        "charts/sub/Chart.yaml": chart_yaml("sub"),
        "charts/sub/values.yaml": "greeting: hello\nown: 1\n",
        "charts/sub/templates/s.yaml.j2": "{{ Values.greeting }}-{{ Values.global.env }}-{{ Values.own }}-"
                                          "{{ Chart.IsRoot }}-{{ Template.BasePath }}",
    }
    prepared = prepare.prepare_chart(loader.load(write_chart(tmp_path / "top", files)), {})
    out = render.render(prepared.chart, prepared.values)
    assert out["top/templates/t.yaml"] == "hi-sub"
    assert out["top/charts/sub/templates/s.yaml"] == "hi-prod-1-false-top/charts/sub/templates"


# Each row: a Jinja2 expression and the Go-template expression it mirrors, and what both print.
FUNCS = [
    ("toYaml", "{{ Values.config | toYaml }}", "{{ toYaml .Values.config }}", "a: one\nb: 2"),
    ("toYaml-global", "{{ toYaml(Values.list) }}", "{{ toYaml .Values.list }}", "- x\n- z"),
    ("toJson", "{{ Values.config | toJson }}", "{{ toJson .Values.config }}", '{"a":"one","b":2}'),
    ("fromYaml", "{{ ('a: 1' | fromYaml).a }}", '{{ (fromYaml "a: 1").a }}', "1"),
    ("fromJson", "{{ fromJson('{\"a\": [1]}').a[0] }}", '{{ index (fromJson "{\\"a\\": [1]}").a 0 }}', "1"),
    ("b64enc", "{{ Values.name | b64enc }}", "{{ b64enc .Values.name }}", "ZGVtbw=="),
    ("b64dec", "{{ 'ZGVtbw==' | b64dec }}", '{{ b64dec "ZGVtbw==" }}', "demo"),
    ("quote", "{{ Values.text | quote }}", "{{ quote .Values.text }}", '"a\\nb"'),
    ("quote-number", "{{ Values.count | quote }}", "{{ quote .Values.count }}", '"2"'),
    ("quote-nil", "{{ Values.nothing | quote }}", "{{ quote .Values.nothing }}", ""),
    ("squote", "{{ Values.enabled | squote }}", "{{ squote .Values.enabled }}", "'true'"),
    ("indent", "{{ Values.text | indent(2) }}", "{{ indent 2 .Values.text }}", "  a\n  b"),
    ("nindent", "{{ Values.text | nindent(2) }}", "{{ nindent 2 .Values.text }}", "\n  a\n  b"),
    ("trunc", "{{ Values.name | trunc(2) }}", "{{ trunc 2 .Values.name }}", "de"),
    ("trunc-negative", "{{ Values.name | trunc(-2) }}", "{{ trunc -2 .Values.name }}", "mo"),
    ("trimSuffix", "{{ 'demo-' | trimSuffix('-') }}", '{{ trimSuffix "-" "demo-" }}', "demo"),
    ("sha256sum", "{{ 'a' | sha256sum }}", '{{ sha256sum "a" }}',
     "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"),
    ("tpl", "{{ tpl('{{ .Values.name }}-x', root) }}", '{{ tpl "{{ .Values.name }}-x" . }}', "demo-x"),
    ("tpl-filter", "{{ '{{ .Chart.Name }}' | tpl(root) }}", '{{ tpl "{{ .Chart.Name }}" . }}', "demo"),
    ("include", "{{ include('demo.labels', root) }}", '{{ include "demo.labels" . }}', "app: demo\nchart: demo"),
    ("required", "{{ required('need name', Values.name) }}", '{{ required "need name" .Values.name }}', "demo"),
    ("required-filter", "{{ Values.count | required('need count') }}", '{{ required "x" .Values.count }}', "2"),
    ("lookup", "{{ lookup('v1', 'Pod', 'ns', 'p') }}", '{{ lookup "v1" "Pod" "ns" "p" }}', "map[]"),
    ("print-nil", "{{ Values.nothing }}", "{{ .Values.nothing }}", ""),
    ("print-bool", "{{ Values.enabled }}", "{{ .Values.enabled }}", "true"),
    ("print-whole-float", "{{ Values.count }}", "{{ .Values.count }}", "2"),
    ("print-fraction", "{{ Values.ratio }}", "{{ .Values.ratio }}", "0.5"),
]


@pytest.mark.parametrize(("jinja_text", "go_text", "expected"), [r[1:] for r in FUNCS], ids=[r[0] for r in FUNCS])
def test_helm_functions_keep_helm_semantics(tmp_path, jinja_text, go_text, expected):
    out = render_chart(tmp_path, {"j.yaml.j2": jinja_text, "g.yaml": go_text})
    if expected == "map[]":  # Go prints an empty map as map[], Jinja2 as {}
        assert (out["demo/templates/g.yaml"], out["demo/templates/j.yaml"]) == ("map[]", "{}")
    else:
        assert (out["demo/templates/g.yaml"], out["demo/templates/j.yaml"]) == (expected, expected)


def test_template_without_opt_in_renders_as_a_go_template(tmp_path):
    """Jinja2-looking text in a plain template stays Go-template text."""
    out = render_chart(tmp_path, {"plain.yaml": "a: {# not a comment #}{{ .Values.name }}\n"})
    assert out["demo/templates/plain.yaml"] == "a: {# not a comment #}demo\n"


def test_trim_and_lstrip_blocks_are_on_and_the_trailing_newline_kept(tmp_path):
    text = "items:\n  {% for i in Values.list %}\n  - {{ i }}\n  {% endfor %}\n"
    assert render_one(tmp_path, text) == "items:\n  - x\n  - z\n"


def test_no_autoescape(tmp_path):
    assert render_one(tmp_path, "{{ '<a href=\"x\">&</a>' }}") == '<a href="x">&</a>'


def test_missing_value_prints_nothing_unless_strict(tmp_path):
    assert render_one(tmp_path, "a: {{ Values.missing }}") == "a: "


@pytest.mark.parametrize("options", [{"strict": True}, {"lint_mode": True}], ids=["strict", "lint"])
def test_missing_value_is_an_error_in_strict_and_lint_mode(tmp_path, options):
    with pytest.raises(TemplateError) as caught:
        render_one(tmp_path, "a: 1\nb: {{ Values.missing }}\n", **options)
    assert str(caught.value) == ("jinja2 error at (demo/templates/t.yaml.j2:2): "
                                 "'dict object' has no attribute 'missing'")
    assert caught.value.pos == SourcePos("demo/templates/t.yaml.j2", 2)


ERRORS = [
    ("syntax", "a: 1\nb: 2\n{% if %}\n", 3, "Expected an expression, got 'end of statement block'"),
    ("unclosed-block", "{% for x in Values.list %}\n{{ x }}\n", 2,
     "Unexpected end of template. Jinja was looking for the following tags: 'endfor' or 'else'. "
     "The innermost block that needs to be closed is 'for'."),
    ("required", "a: 1\nb: {{ required('name the database', Values.db) }}\n", 2, "name the database"),
    ("required-empty-string", "{{ Values.empty | required('empty is not enough') }}", 1, "empty is not enough"),
    ("fail", "\n\n\n{{ fail('unsupported mode') }}", 4, "unsupported mode"),
    ("error-in-macro", "{% macro m(x) %}\n{{ x.a.b }}\n{% endmacro %}\n{{ m(Values) }}", 2,
     "'dict object' has no attribute 'a'"),
    ("include-missing-define", "\n{{ include('nope', root) }}", 2,
     "include 'nope': template: no template \"nope\" associated with template \"gotpl\""),
    ("required-inside-go-define", "{{ include('demo.needs', root) }}", 1,
     "include 'demo.needs': demo.needs wants .Values.missing"),
    ("division-by-zero", "a: {{ 1 // 0 }}", 1, "ZeroDivisionError: integer division or modulo by zero"),
    ("calling-a-value", "{{ Values.name() }}", 1, "TypeError: 'str' object is not callable"),
]


@pytest.mark.parametrize(("text", "line", "message"), [r[1:] for r in ERRORS], ids=[r[0] for r in ERRORS])
def test_errors_name_file_and_line(tmp_path, text, line, message):
    with pytest.raises(TemplateError) as caught:
        render_one(tmp_path, text)
    assert str(caught.value) == f"jinja2 error at (demo/templates/t.yaml.j2:{line}): {message}"
    assert caught.value.pos == SourcePos("demo/templates/t.yaml.j2", line)


def test_required_and_fail_pass_in_lint_mode(tmp_path):
    text = "a: {{ required('x', Values.missing) }}|{{ fail('y') }}|{{ Values.name }}"
    assert render_one(tmp_path, text, lint_mode=True, strict=False) == "a: ||demo"


def test_lookup_uses_the_render_options_provider(tmp_path):
    seen = []

    def lookup(api_version, kind, namespace, name):
        seen.append((api_version, kind, namespace, name))
        return {"metadata": {"name": name}}

    out = render_one(tmp_path, "{{ lookup('v1', 'Secret', 'ns', 's').metadata.name }}", lookup=lookup)
    assert (out, seen) == ("s", [("v1", "Secret", "ns", "s")])


def test_rendering_does_not_change_the_callers_values(tmp_path):
    files = {"Chart.yaml": chart_yaml("demo"), "values.yaml": VALUES, "templates/_helpers.tpl": HELPERS,
             "templates/t.yaml.j2": "{{ tpl('{{ $_ := set .Values \"name\" \"changed\" }}', root) }}"}
    prepared = prepare.prepare_chart(loader.load(write_chart(tmp_path / "demo", files)), {})
    before = repr(prepared.values)
    render.render(prepared.chart, prepared.values)
    assert repr(prepared.values) == before


def test_compiled_templates_are_reused_and_stay_correct_across_renders(tmp_path):
    files = {"Chart.yaml": chart_yaml("demo"), "values.yaml": VALUES, "templates/t.yaml.j2": "{{ Values.name }}"}
    chart = loader.load(write_chart(tmp_path / "demo", files))
    outs = []
    for name in ("one", "two"):
        prepared = prepare.prepare_chart(chart, {"name": name})
        outs.append(render.render(prepared.chart, prepared.values)["demo/templates/t.yaml"])
    assert outs == ["one", "two"]
