"""Chart templates calling Sprig's regex functions: Go's results, Go's errors wrapped as Helm
wraps them, and no hang on patterns that are exponential for a backtracking engine.
With a helm binary (HELM_BIN), the same templates are rendered by helm and compared."""
from __future__ import annotations

import base64
from pathlib import Path

import pytest

from helm_core.errors import TemplateError
from tests.engine import helmbin
from tests.engine.test_render import chart_yaml, render_one, write_chart

EVIL = "a" * 41 + "b"

#: template -> what it renders (Go's answers)
RENDERS = {
    '{{ regexMatch "^(a+)+$" "' + EVIL + '" }}': "false",
    '{{ regexMatch "^(a+)+$" "' + "a" * 41 + '" }}': "true",
    '{{ regexFindAll "(a|aa)*c" "' + "a" * 5000 + '" -1 | len }}': "0",
    '{{ regexReplaceAll "(x+x+)+y" "' + "x" * 40 + '" "z" }}': "x" * 40,
    '{{ regexSplit "(a*)*b" "' + EVIL + 'c" -1 | toJson }}': '["","c"]',
    r'{{ regexMatch "^[\\w-\\.]+$" "my-app.example" }}': "true",
    r'{{ regexFind "[\\w-\\.]+" "  web-1.prod " }}': "web-1.prod",
    '{{ regexFindAll "a*" "baaab" -1 | toJson }}': '["","aaa",""]',
    '{{ regexFindAll "a." "banana" 2 | toJson }}': '["an","an"]',
    '{{ regexReplaceAll "a*" "baaac" "-" }}': "-b-c-",
    '{{ regexReplaceAll "(?P<k>\\\\w+)=(\\\\w+)" "a=1 b=2" "${2}:$k $1W $$" }}': "1:a  $ 2:b  $",
    '{{ regexReplaceAllLiteral "a(x*)b" "-axxb-" "${1}" }}': "-${1}-",
    '{{ regexSplit "a" "banana" 2 | toJson }}': '["b","nana"]',
    '{{ regexSplit "" "abc" -1 | toJson }}': '["a","b","c"]',
    '{{ regexQuoteMeta "1.2+[x]" }}': "1\\.2\\+\\[x\\]",
    '{{ mustRegexMatch "(?i)straße" "STRAßE" }}': "true",
    '{{ regexMatch "(" "x" }}': "false",  # Sprig discards regexMatch's error
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("template", list(RENDERS))
def test_renders_as_go(tmp_path: Path, template: str):
    assert render_one(tmp_path, template) == RENDERS[template]


def test_required_check_with_go_only_syntax(tmp_path: Path):
    # The public-chart case of issue 22: a Go-valid pattern guards a required value.
    template = ('{{ if not (regexMatch "^[\\\\w-\\\\.]+$" .Values.host) }}{{ required "bad host" nil }}{{ end }}'
                "host: {{ .Values.host }}")
    root = write_chart(tmp_path / "e1", {"Chart.yaml": chart_yaml("e1"), "templates/t.yaml": template,
                                         "values.yaml": "host: web-1.example.com\n"})
    from tests.engine.test_render import render_dir

    assert render_dir(root)["e1/templates/t.yaml"] == "host: web-1.example.com"


_AT = 'template: e1/templates/t.yaml:1:3: executing "e1/templates/t.yaml" at <{call}>: error calling {fn}: '
#: template -> Helm's error text
ERRORS = {
    '{{ mustRegexFind "(" "x" }}':
        _AT.format(call='mustRegexFind "(" "x"', fn="mustRegexFind") + "error parsing regexp: missing closing ): `(`",
    '{{ regexFind "(" "x" }}':
        _AT.format(call='regexFind "(" "x"', fn="regexFind")
        + "regexp: Compile(`(`): error parsing regexp: missing closing ): `(`",
    '{{ mustRegexMatch "a**" "x" }}':
        _AT.format(call='mustRegexMatch "a**" "x"', fn="mustRegexMatch")
        + "error parsing regexp: invalid nested repetition operator: `**`",
    '{{ regexReplaceAll "(?<=a)b" "ab" "x" }}':
        _AT.format(call='regexReplaceAll "(?<=a)b" "ab" "x"', fn="regexReplaceAll")
        + "regexp: Compile(`(?<=a)b`): error parsing regexp: invalid named capture: `(?<=a)b`",
    '{{ mustRegexSplit "\\\\C" "x" -1 }}':
        _AT.format(call='mustRegexSplit "\\\\C" "x" -1', fn="mustRegexSplit")
        + "error parsing regexp: invalid escape sequence: `\\C`",
    '{{ regexFindAll "x{1001}" "x" -1 }}':
        _AT.format(call='regexFindAll "x{1001}" "x" -1', fn="regexFindAll")
        + "regexp: Compile(`x{1001}`): error parsing regexp: invalid repeat count: `{1001}`",
}


@pytest.mark.parametrize("template", list(ERRORS))
def test_errors_as_helm_prints_them(tmp_path: Path, template: str):
    with pytest.raises(TemplateError) as info:
        render_one(tmp_path, template)
    assert str(info.value) == ERRORS[template]


@pytest.mark.conformance
@pytest.mark.timeout(300)
def test_helm_renders_and_fails_the_same(tmp_path: Path):
    helmbin.require_helm()
    differ = []
    for n, template in enumerate(list(RENDERS) + list(ERRORS)):
        if template in RENDERS:  # helm reads its output as YAML: the text goes through base64
            text = f'{{{{ define "t" }}}}{template}{{{{ end }}}}v: {{{{ include "t" . | b64enc }}}}'
        else:
            text = template
        root = write_chart(tmp_path / f"c{n}" / "e1", {"Chart.yaml": chart_yaml("e1"), "templates/t.yaml": text})
        code, out, err = helmbin.helm_template_result(root)
        if template in RENDERS:
            helm = base64.b64decode(out.rsplit("v: ", 1)[-1]).decode() if code == 0 else f"ERROR {err}"
            if helm != RENDERS[template]:
                differ.append((template, helm))
        elif f"Error: {ERRORS[template]}" != err.strip().splitlines()[0]:  # then helm's --debug hint
            differ.append((template, err.strip()))
    assert not differ
