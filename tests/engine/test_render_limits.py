"""Hostile charts: recursion, growth and slow loops end in one clean error, never a crash.

Where helm has an answer it is checked against helm's exact text; where helm v3.22 itself
dies (``runtime: goroutine stack exceeds 1000000000-byte limit`` / ``fatal error: stack
overflow``, measured for an include ring of 300 names and for a tpl calling itself), the
answer is our own error.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from helm_core.engine import helm_funcs, render
from helm_core.errors import TemplateError
from helm_core.support.limits import DEFAULT_LIMITS, RenderLimitExceeded, RenderLimits
from tests.engine import helmbin
from tests.engine.test_render import chart_yaml, render_dir, render_one, write_chart

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "charts"
#: A small output limit; the time limits stay the defaults, far above the milliseconds these
#: renders take, so a pause of the process cannot trip them before the output limit.
SMALL = RenderLimits(output_bytes=1024 * 1024)
T = "e1/templates/t.yaml"


def ring_chart(root: Path, size: int) -> Path:
    defines = "".join('{{define "r%d"}}{{include "r%d" .}}{{end}}\n' % (i, (i + 1) % size) for i in range(size))
    return write_chart(root / "ring", {"Chart.yaml": chart_yaml("ring"), "templates/_h.tpl": defines,
                                       "templates/a.yaml": 'a: {{ include "r0" . }}\n'})


def limit_error(tmp_path: Path, template: str, limits: RenderLimits = SMALL) -> RenderLimitExceeded:
    with pytest.raises(RenderLimitExceeded) as info:
        render_one(tmp_path, template, limits=limits)
    return info.value


# -- recursion ------------------------------------------------------------------------------

def test_include_ring_stops_at_nesting_bound(tmp_path):
    with pytest.raises(TemplateError) as info:
        render_dir(ring_chart(tmp_path, 300))
    assert str(info.value) == ("rendering template failed: ring/templates/a.yaml: include and tpl calls nested "
                               f"more than {helm_funcs.MAX_NESTED_CALLS} deep (at include \"r100\")")


def test_small_include_ring_gives_helms_message(tmp_path):
    with pytest.raises(TemplateError) as info:
        render_dir(ring_chart(tmp_path, 2))
    message = str(info.value)
    assert message.startswith('template: ring/templates/a.yaml:1:6: executing "ring/templates/a.yaml" at '
                              '<include "r0" .>: error calling include: template: ring/templates/_h.tpl:1:17: '
                              'executing "r0" at <include "r1" .>: error calling include: ')
    assert message.endswith("error calling include: rendering template has a nested reference name: r0: "
                            "unable to execute template")
    assert message.count("error calling include") == 2003
    if helmbin.find_helm():
        code, _, err = helmbin.helm_template_result(ring_chart(tmp_path / "h", 2))
        assert code == 1
        assert err.removesuffix("\n\nUse --debug flag to render out invalid YAML\n") == f"Error: {message}"


def test_tpl_calling_itself_stops_at_nesting_bound(tmp_path):
    root = write_chart(tmp_path / "e1", {"Chart.yaml": chart_yaml("e1"), "values.yaml": 't: "{{ tpl .Values.t . }}"\n',
                                         "templates/t.yaml": "a: {{ tpl .Values.t . }}"})
    with pytest.raises(TemplateError) as info:
        render_dir(root)
    assert str(info.value) == (f"rendering template failed: {T}: include and tpl calls nested more than "
                               f"{helm_funcs.MAX_NESTED_CALLS} deep (at tpl)")


def test_template_recursion_through_range_with_if_reaches_go_depth(tmp_path):
    template = ('{{define "a"}}{{with .}}{{range $x := list 1}}{{if true}}{{template "a" $}}{{end}}{{end}}'
                '{{end}}{{end}}a: {{template "a" .}}')
    with pytest.raises(TemplateError) as info:
        render_one(tmp_path, template)
    assert str(info.value) == ('template: e1/templates/t.yaml:1:68: executing "a" at <{{template "a" $}}>: '
                               'exceeded maximum template depth (100000)')


@pytest.mark.parametrize("function", ["toYaml", "toJson", "deepCopy", "mergeOverwrite (dict)"])
def test_deep_data_does_not_crash(tmp_path, function):
    template = ('{{$d := dict}}{{range until 200000}}{{$d = dict "a" $d}}{{end}}'
                f'{{{{ {function} $d | typeOf }}}}')
    expected = "map[string]interface {}" if function != "toYaml" and function != "toJson" else "string"
    assert render_one(tmp_path, template) == expected


CYCLIC_MAP = '{{ $d := dict }}{{ $_ := set $d "self" $d }}'
CYCLIC_LIST = '{{ $l := list 1 }}{{ $d := dict "l" $l }}{{ $l = append $l $d }}{{ $_ := set $d "l" $l }}'


@pytest.mark.parametrize(("template", "expected"), [
    (CYCLIC_MAP + "a: {{ toJson $d | quote }}", 'a: ""'),
    (CYCLIC_MAP + "a: {{ toPrettyJson $d | quote }}", 'a: ""'),
    (CYCLIC_MAP + "a: {{ toYaml $d | quote }}", 'a: ""'),
    (CYCLIC_MAP + "a: {{ mustToJson $d }}", 'template: e1/templates/t.yaml:1:50: executing "e1/templates/t.yaml" '
     "at <mustToJson $d>: error calling mustToJson: json: unsupported value: encountered a cycle via "
     "map[string]interface {}"),
    (CYCLIC_LIST + "a: {{ mustToJson $l }}", 'template: e1/templates/t.yaml:1:95: executing "e1/templates/t.yaml" '
     "at <mustToJson $l>: error calling mustToJson: json: unsupported value: encountered a cycle via "
     "[]interface {}"),
    # Sprig encodes a pointer to the value: the check meets the map first.
    (CYCLIC_LIST + "a: {{ mustToRawJson $l }}", 'template: e1/templates/t.yaml:1:95: executing "e1/templates/t.yaml" '
     "at <mustToRawJson $l>: error calling mustToRawJson: json: unsupported value: encountered a cycle via "
     "map[string]interface {}"),
])
def test_data_set_inside_itself_is_refused_by_json_as_helm(tmp_path, template, expected):
    """encoding/json looks for a map or list inside itself past 1000 levels: "" for toJson,
    Go's error for mustToJson (recursing for ever would fill the render's memory)."""
    try:
        ours = render_one(tmp_path, template)
    except TemplateError as exc:
        ours = str(exc)
    assert ours == expected
    if helmbin.find_helm():
        code, out, err = helmbin.helm_template_result(tmp_path / "e1")
        helms = out.split("\n", 2)[2].rstrip("\n") if code == 0 else err.split("\n")[0].removeprefix("Error: ")
        assert helms == expected


def test_comparing_data_set_inside_itself_gives_reflects_answer(tmp_path):
    """reflect.DeepEqual counts a pair met again as equal: helm answers, no recursion for ever."""
    template = (CYCLIC_MAP + '{{ $e := dict }}{{ $_ := set $e "self" $e }}{{ $f := dict }}'
                '{{ $_ := set $f "self" (dict "self" $f "x" 1) }}'
                "a: {{ deepEqual $d $e }} {{ deepEqual $d $f }} {{ has $d (list $e) }}")
    assert render_one(tmp_path, template) == "a: true false true"
    if helmbin.find_helm():
        assert helmbin.helm_template(tmp_path / "e1").endswith("a: true false true\n")


@pytest.mark.parametrize(("template", "expected"), [
    (CYCLIC_MAP + "{{ $d }}", 'template: e1/templates/t.yaml:1:47: executing "e1/templates/t.yaml" at <{{$d}}>: '
     "cannot print a map[string]interface {} that contains itself"),
    (CYCLIC_LIST + '{{ printf "%#v" $l }}', 'template: e1/templates/t.yaml:1:92: executing "e1/templates/t.yaml" at '
     '<printf "%#v" $l>: error calling printf: cannot print a []interface {} that contains itself'),
    (CYCLIC_MAP + "{{ deepCopy $d }}", 'template: e1/templates/t.yaml:1:47: executing "e1/templates/t.yaml" at '
     "<deepCopy $d>: error calling deepCopy: cannot copy a map[string]interface {} that contains itself"),
])
def test_printing_or_copying_data_set_inside_itself_is_one_error(tmp_path, template, expected):
    """Go's fmt prints such a value until helm dies of a stack overflow, copystructure copies
    it until helm is killed; here it is refused once met again inside itself (past 1000 levels)."""
    with pytest.raises(TemplateError) as info:
        render_one(tmp_path, template)
    assert str(info.value) == expected


def test_printing_deep_data_that_shares_parts_prints_it(tmp_path):
    template = ('{{ $l := list 1 }}{{ range until 1500 }}{{ $l = list $l }}{{ end }}{{ $p := list $l $l }}'
                '{{ print $p | len }}')
    assert render_one(tmp_path, template) == str(2 * (2 * 1501 + 1) + 3)


# -- growth -----------------------------------------------------------------------------------

def test_string_doubling_stops_at_output_limit(tmp_path):
    exc = limit_error(tmp_path, '{{$s := "ab"}}{{range until 100}}{{$s = printf "%s%s" $s $s}}{{end}}')
    assert exc.limit == "output_bytes"
    assert str(exc) == f"chart e1: template {T}: passed the render output limit of 1MiB (a string of 2097152 characters)"


def test_list_doubling_stops_at_output_limit(tmp_path):
    exc = limit_error(tmp_path, '{{$l := list 1}}{{range until 100}}{{$l = concat $l $l}}{{end}}')
    assert str(exc) == f"chart e1: template {T}: passed the render output limit of 1MiB (a list of 262144 items)"


@pytest.mark.parametrize(("template", "what"), [
    ('{{ repeat 100000000 "ab" }}', "a string of 200000000 characters"),
    ("{{ range until 100000000 }}{{ end }}", "a list of 100000000 numbers"),
    ("{{ seq 1 100000000 }}", "a list of 100000000 numbers"),
    ('{{ randAlpha 100000000 }}', "a random string of 100000000 characters"),
    ('{{ "a\\nb" | indent 1000000 }}', "2 lines indented by 1000000"),
    ('{{ wrapWith 1 (repeat 20 "-") (repeat 100000 "a ") }}', "a wrapped string of more than 1048593 bytes"),
])
def test_builders_refuse_before_building(tmp_path, template, what):
    exc = limit_error(tmp_path, template)
    assert str(exc) == f"chart e1: template {T}: passed the render output limit of 1MiB ({what})"


def test_output_limit_counts_every_template(tmp_path):
    big = '{{ repeat 600000 "x" }}'
    root = write_chart(tmp_path / "e1", {"Chart.yaml": chart_yaml("e1"), "templates/a.yaml": big,
                                         "templates/b.yaml": big})
    with pytest.raises(RenderLimitExceeded) as info:
        render_dir(root, limits=SMALL)
    assert str(info.value) == "chart e1: template e1/templates/a.yaml: passed the render output limit of 1MiB"


def test_output_written_by_a_loop_stops_at_output_limit(tmp_path):
    exc = limit_error(tmp_path, '{{ $s := repeat 1000 "x" }}{{ range until 100000 }}{{ $s }}{{ end }}')
    assert str(exc) == f"chart e1: template {T}: passed the render output limit of 1MiB"


# -- time -------------------------------------------------------------------------------------

def test_huge_range_meets_the_deadline(tmp_path):
    # A CPU limit as short as the timeout could trip first: this loop burns CPU as fast as wall time.
    exc = limit_error(tmp_path, "{{ range 100000000000 }}{{ end }}", RenderLimits(timeout_s=1.0, cpu_s=60))
    assert (exc.limit, str(exc)) == ("timeout_s", f"chart e1: template {T}: passed the render timeout of 1s")


def test_slow_function_loop_meets_the_deadline(tmp_path):
    exc = limit_error(tmp_path, '{{ range until 1000 }}{{ genPrivateKey "rsa" | len }}{{ end }}',
                      RenderLimits(timeout_s=0.3))
    assert str(exc) == f"chart e1: template {T}: passed the render timeout of 0.3s"


def test_cpu_limit(tmp_path):
    exc = limit_error(tmp_path, "{{ range 100000000000 }}{{ end }}", RenderLimits(timeout_s=60, cpu_s=0.5))
    assert (exc.limit, str(exc)) == ("cpu_s", f"chart e1: template {T}: passed the render CPU time limit of 0.5s")


# -- the checks change nothing ----------------------------------------------------------------

# Charts whose templates need chart Lua to choose their engine are rendered by tests/lua.
@pytest.mark.parametrize("chart", sorted(p.name for p in EXAMPLES.iterdir()
                                         if (p / "Chart.yaml").is_file() and not (p / "ext").exists()))
def test_limits_do_not_change_rendering(chart):
    from helm_core.chart import loader, prepare

    prepared = prepare.prepare_chart(loader.load(EXAMPLES / chart), {})
    plain = render.render(prepared.chart, prepared.values)
    limited = render.render(prepared.chart, prepared.values, options=render.RenderOptions(limits=DEFAULT_LIMITS))
    assert limited == plain
