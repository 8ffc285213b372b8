"""engine.jinja's sandbox: hostile chart templates are refused with a clear error, within the limits.

Each template below is an attack a chart could carry: reaching Python internals through dunder
chains, format-string tricks, resource bombs (size, loops, recursion), mutating the values other
templates see, and reaching files, environment or network. Each must fail with the message shown,
quickly (pytest-timeout is the safety net, not a speed target), and leave nothing changed.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from helm_core.chart import loader, prepare
from helm_core.engine import jinja, render
from helm_core.errors import TemplateError
from tests.chartkit import chart_yaml, write_chart

pytestmark = pytest.mark.timeout(60)

VALUES = "name: demo\nlist: [1, 2]\nnested:\n  key: value\n"
HELPERS = '{{ define "loop" }}{{ include "loop" . }}{{ end }}'
WHERE = "jinja2 error at (hostile/templates/attack.yaml.j2:1): "


def render_attack(tmp_path: Path, template: str, *, values: str = VALUES) -> dict[str, str]:
    root = write_chart(tmp_path / "hostile", {
        "Chart.yaml": chart_yaml("hostile"),
        "values.yaml": values,
        "templates/_helpers.tpl": HELPERS,
        "templates/attack.yaml.j2": template,
        # Rendered after attack.yaml (reverse lexical order): shows what the values look like then.
        "templates/a-after.yaml.j2": "{{ Values | toJson }}",
    })
    prepared = prepare.prepare_chart(loader.load(root), {})
    return render.render(prepared.chart, prepared.values)


REFUSED = [
    # -- Python internals ------------------------------------------------------------------
    ("dunder-class", "{{ Values.__class__ }}", "access to attribute '__class__' of 'dict' object is unsafe"),
    ("mro-subclasses", "{{ ''.__class__.__mro__[1].__subclasses__() }}",
     "access to attribute '__class__' of 'str' object is unsafe"),
    ("subscript-dunder", "{{ Values['__class__'] }}", "access to attribute '__class__' of 'dict' object is unsafe"),
    ("attr-filter-dunder", "{{ Values | attr('__class__') }}",
     "access to attribute '__class__' of 'dict' object is unsafe"),
    ("map-attribute-dunder", "{{ Values.list | map(attribute='__class__') | list }}",
     "access to attribute '__class__' of 'float' object is unsafe"),
    ("method-globals", "{{ Files.Get.__globals__ }}",
     "access to attribute '__globals__' of 'method' object is unsafe"),
    ("function-globals", "{{ include.__globals__ }}",
     "access to attribute '__globals__' of 'function' object is unsafe"),
    ("builtin-class-init", "{{ cycler.__init__.__globals__ }}",
     "access to attribute '__init__' of 'type' object is unsafe"),
    ("template-self-dict", "{{ self.__dict__ }}",
     "access to attribute '__dict__' of 'TemplateReference' object is unsafe"),
    ("object-dict", "{{ Chart.__dict__ }}", "access to attribute '__dict__' of 'ChartInfo' object is unsafe"),
    ("number-real-class", "{{ Values.list[0].real.__class__ }}",
     "access to attribute '__class__' of 'float' object is unsafe"),
    ("non-go-member", "{{ Chart.go_field('Name') }}",
     "access to attribute 'go_field' of 'ChartInfo' object is unsafe"),
    ("files-classmethod", "{{ Files.from_chart_files([]) }}",
     "access to attribute 'from_chart_files' of 'Files' object is unsafe"),
    ("loop-context-class", "{% for x in [1] %}{{ loop.__class__ }}{% endfor %}",
     "access to attribute '__class__' of 'LoopContext' object is unsafe"),
    ("namespace-dunder", "{% set ns = namespace() %}{% set ns.__class__ = 1 %}{{ ns.__class__ }}",
     "access to attribute '__class__' of 'Namespace' object is unsafe"),
    ("callable-dunder-call", "{{ joiner().__call__ }}", "access to attribute '__call__' of 'Joiner' object is unsafe"),
    ("private-attribute", "{{ Capabilities.APIVersions._set }}",
     "access to attribute '_set' of 'VersionSet' object is unsafe"),
    # -- format strings ----------------------------------------------------------------------
    ("format-field-dunder", "{{ '{0.__class__}'.format(Values) }}",
     "str.format is not allowed; use the '%' operator or |format"),
    ("format-map", "{{ '{x}'.format_map(Values) }}",
     "str.format_map is not allowed; use the '%' operator or |format"),
    ("format-width-bomb", "{{ '{:>999999999}'.format(1) }}",
     "str.format is not allowed; use the '%' operator or |format"),
    ("percent-width-bomb", "{{ '%0999999999d' % 1 }}", "'%': width or precision above 10000"),
    ("percent-star-width", "{{ '%*d' % (999999999, 1) }}", "'%': '*' widths are not allowed"),
    ("percent-size-bomb", "{% set s = 'x' * 5000000 %}{{ '%s%s' % (s, s) }}",
     "'%': value larger than 8388608 characters"),
    ("format-filter-width-bomb", "{{ '%.999999999f' | format(1.5) }}", "'%': width or precision above 10000"),
    # -- resource bombs --------------------------------------------------------------------------
    ("range-10e10", "{{ range(10**10) | list | length }}",
     "OverflowError: Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000)."),
    ("power-bomb", "{{ 10 ** 100000 }}", "'**': result larger than 4096 bits"),
    ("string-repeat-bomb", "{{ 'x' * 10**9 }}", "'*': value larger than 8388608 characters"),
    ("list-repeat-bomb", "{{ [1, 2, 3] * 10**8 }}", "'*': value larger than 8388608 characters"),
    ("int-multiply-bomb", "{% set n = 2 ** 4000 %}{{ n * n }}", "'*': result larger than 4096 bits"),
    ("concat-doubling", "{% set s = 'x' * 5000000 %}{% set s = s ~ s %}{{ s | length }}",
     "'~': value larger than 8388608 characters"),
    ("plus-doubling", "{% set s = 'x' * 5000000 %}{{ (s + s) | length }}",
     "'+': value larger than 8388608 characters"),
    ("replace-growth", "{% set s = 'x' * 4000000 %}{{ s | replace('x', 'xxxxxxxx') | length }}",
     "replace: value larger than 8388608 characters"),
    ("nested-loops", "{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}",
     "more than 1000000 loop iterations"),
    ("loop-output-bomb", "{% for a in range(100000) %}{% for b in range(100) %}" + "x" * 2000
     + "{% endfor %}{% endfor %}", "output larger than 16777216 characters"),
    ("printed-output-bomb", "{% set s = 'x' * 8000000 %}{{ s }}{{ s }}{{ s }}",
     "output larger than 16777216 characters"),
    ("center-bomb", "{{ 'x' | center(10**9) }}", "center: argument 1000000000 above 10000"),
    ("indent-bomb", "{{ 'x' | indent(10**6) }}", "indent: argument 1000000 above 10000"),
    ("batch-bomb", "{{ range(10) | batch(10**9) | list }}", "batch: argument 1000000000 above 10000"),
    ("nested-list-serialisation", "{% set a = ['x' * 1000000] * 8 %}{% set b = [a, a, a] %}{{ b | toJson }}",
     "toJson: value larger than 8388608 characters"),
    ("deep-nesting-serialised", "{% set ns = namespace(x=[]) %}{% for i in range(200) %}"
     "{% set ns.x = [ns.x] %}{% endfor %}{{ ns.x | toYaml }}", "toYaml: value nested deeper than 100"),
    ("deep-nesting-printed", "{% set ns = namespace(x=[]) %}{% for i in range(200) %}"
     "{% set ns.x = [ns.x] %}{% endfor %}{{ ns.x }}", "output: value nested deeper than 100"),
    ("join-separator-bomb", "{% set s = 'x' * 1000000 %}{{ range(100000) | map('string') | join(s) }}",
     "join: value larger than 8388608 characters"),
    ("wordwrap-wrapstring-bomb", "{% set s = 'x' * 1000000 %}{{ (' ' * 1000000) | wordwrap(1, wrapstring=s) }}",
     "wordwrap: value larger than 8388608 characters"),
    ("indent-many-lines", "{% set s = '\\n' * 1000000 %}{{ s | indent(9000) }}",
     "indent: value larger than 8388608 characters"),
    ("tojson-indent-bomb", "{{ Values | tojson(indent=1000000) }}", "tojson: argument 1000000 above 10000"),
    ("lipsum-removed", "{{ lipsum(10**9) }}", "'lipsum' is undefined"),
    # -- recursion ----------------------------------------------------------------------------------
    ("macro-recursion", "{% macro m() %}{{ m() }}{% endmacro %}{{ m() }}", "calls nested deeper than 200"),
    ("recursive-loop", "{% for x in [1] recursive %}{{ loop([1]) }}{% endfor %}", "calls nested deeper than 200"),
    ("include-recursion", "{{ include('loop', root) }}",
     "include 'loop': rendering template has a nested reference name: loop: unable to execute template"),
    ("jinja-include-self", "{% include 'attack.yaml.j2' %}", "TypeError: no loader for this environment specified"),
    # -- mutating values ------------------------------------------------------------------------------
    ("values-update", "{{ Values.update({'name': 'evil'}) }}",
     "access to attribute 'update' of 'dict' object is unsafe"),
    ("values-pop", "{% set x = Values.pop('name') %}", "access to attribute 'pop' of 'dict' object is unsafe"),
    ("values-setdefault", "{{ Values.nested.setdefault('key', 'evil') }}",
     "access to attribute 'setdefault' of 'dict' object is unsafe"),
    ("values-setitem", "{{ Values.__setitem__('name', 'evil') }}",
     "access to attribute '__setitem__' of 'dict' object is unsafe"),
    ("copy-then-update", "{{ Values.copy().update({}) }}", "access to attribute 'update' of 'dict' object is unsafe"),
    ("list-append", "{{ Values.list.append(3) }}", "access to attribute 'append' of 'list' object is unsafe"),
    ("files-clear", "{{ Files.clear() }}", "access to attribute 'clear' of 'Files' object is unsafe"),
    # -- files, environment, network ---------------------------------------------------------------------
    ("import-module", "{% import 'os' as os %}", "TypeError: no loader for this environment specified"),
    ("tpl-env", "{{ tpl('{{ env \"HOME\" }}', root) }}",
     'cannot parse template "{{ env \\"HOME\\" }}": template: gotpl:1: function "env" not defined'),
    ("tpl-expandenv", "{{ tpl('{{ expandenv \"$HOME\" }}', root) }}",
     'cannot parse template "{{ expandenv \\"$HOME\\" }}": template: gotpl:1: function "expandenv" not defined'),
    ("python-open", "{{ open('/etc/passwd').read() }}", "'open' is undefined"),
    ("python-import", "{{ __import__('os').system('true') }}", "'__import__' is undefined"),
]


@pytest.mark.parametrize(("template", "message"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED])
def test_hostile_template_is_refused(tmp_path, monkeypatch, template, message):
    # Each attack must meet its own limit, not the time budget on a busy machine.
    monkeypatch.setattr(jinja, "TIME_BUDGET_SECONDS", 50.0)
    with pytest.raises(TemplateError) as caught:
        render_attack(tmp_path, template)
    assert str(caught.value) == WHERE + message


def test_cpu_burn_within_other_limits_meets_the_time_budget(tmp_path):
    template = "{% for i in range(1000) %}{% set x = range(100000) | list | sort(reverse=true) %}{% endfor %}"
    with pytest.raises(TemplateError) as caught:
        render_attack(tmp_path, template)
    assert str(caught.value) == WHERE + f"time budget of {jinja.TIME_BUDGET_SECONDS:g}s exceeded"


def test_hostile_suite_has_at_least_twenty_attacks():
    assert len(REFUSED) >= 20


@pytest.mark.parametrize("template", [
    "{{ Values.update({'name': 'evil'}) }}",
    "{% set x = Values.pop('name') %}",
    "{{ Values.list.append(3) }}",
    "{% set Values = {'name': 'evil'} %}{{ Values.name }}",
], ids=["update", "pop", "append", "rebind-local"])
def test_values_are_unchanged_for_the_templates_rendered_after(tmp_path, template):
    """A refused or local-only change never reaches what the next template sees."""
    try:
        out = render_attack(tmp_path, template)
    except TemplateError:
        out = render_attack(tmp_path, "{{ 'ok' }}")
    assert out["hostile/templates/a-after.yaml"] == '{"list":[1,2],"name":"demo","nested":{"key":"value"}}'


@pytest.mark.parametrize(("template", "expected"), [
    ("{{ Files.Get('/etc/passwd') }}", ""),
    ("{{ Files.Get('../../../../etc/passwd') }}", ""),
    ("{{ Files.Glob('**') | length }}", "0"),
    ("{{ tpl('{{ getHostByName \"example.com\" }}', root) }}", ""),
    ("{{ lookup('v1', 'Secret', 'kube-system', 'admin') }}", "{}"),
], ids=["absolute-path", "dotdot-path", "glob-everything", "dns", "lookup-without-cluster"])
def test_files_dns_and_cluster_stay_out_of_reach(tmp_path, template, expected):
    assert render_attack(tmp_path, template)["hostile/templates/attack.yaml"] == expected


def test_environment_is_not_visible(tmp_path, monkeypatch):
    monkeypatch.setenv("HELM_CORE_SECRET_FOR_TEST", "s3cret")
    out = render_attack(tmp_path, "{{ root | toJson }}{{ Release | toJson }}{{ Capabilities | toJson }}")
    assert "s3cret" not in out["hostile/templates/attack.yaml"]
    assert os.environ["HELM_CORE_SECRET_FOR_TEST"] == "s3cret"


def test_value_size_stops_counting_past_the_cap():
    shared = ["x" * 1000]
    for _ in range(60):  # 2**60 references: walking them all would never end
        shared = [shared, shared]
    assert jinja.MAX_VALUE_SIZE < jinja.value_size(shared) <= jinja.MAX_VALUE_SIZE + 2000
