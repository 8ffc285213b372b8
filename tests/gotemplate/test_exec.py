"""Executing templates: Go's text/template semantics; expected outputs and messages come from Go's text/template."""
from __future__ import annotations

from typing import Any

import pytest

from helm_core.support import deepstack
from helm_core.gotemplate import Environment, ExecError, ParseError, gofmt
from helm_core.golib.gotypes import FuncError, GoObject, Int64, signature


class Obj(GoObject):
    """Stands for Go's ``*main.Obj`` with a field, a method and a String method."""

    go_type = "*main.Obj"
    go_members = frozenset({"Name", "Greet", "String"})
    go_fields = ("Name",)

    def __init__(self) -> None:
        self.Name = "n"

    @signature("string")
    def Greet(self, s: str) -> str:  # noqa: N802 - Go method name
        return "hi " + s

    def String(self) -> str:  # noqa: N802 - Go method name
        return "OBJ"


@signature("string")
def upper(s: str) -> str:
    return s.upper()


@signature("int", "string")
def trunc(c: int, s: str) -> str:
    return s[:c] if c < len(s) else s


@signature("string")
def fail(s: str) -> str:
    raise FuncError(s)


@signature("interface {}", variadic=True)
def list_(*v: Any) -> list[Any]:
    return list(v)


@signature("interface {}", variadic=True)
def dict_(*v: Any) -> dict[str, Any]:
    return {v[i]: v[i + 1] for i in range(0, len(v) - 1, 2)}


@signature()
def obj() -> Obj:
    return Obj()


@signature("float64", "float64")
def addf(a: float, b: float) -> float:
    return a + b


@signature("string", "[]interface {}")
def join(sep: str, items: list[Any]) -> str:
    return sep.join(gofmt.format_value(x) for x in items)


@signature("string", "string")
def _concat(a: str, b: str) -> str:
    return a + b


@signature()
def fn() -> Any:
    return _concat


@signature("int", "int")
def add64(a: int, b: int) -> Int64:
    return Int64(a + b)


@signature("int64")
def takes64(a: int) -> Int64:
    return Int64(a * 2)


def greetp(o: Obj) -> str:
    return "p:" + o.Name


# A parameter of the object's own pointer type (declared by hand: not a shared Go type name).
greetp.__go_params__ = ("*main.Obj",)  # type: ignore[attr-defined]
greetp.__go_variadic__ = False  # type: ignore[attr-defined]


FUNCS = {"add64": add64, "takes64": takes64, "greetp": greetp, "upper": upper, "trunc": trunc, "fail": fail, "list": list_, "dict": dict_, "obj": obj,
         "addf": addf, "join": join, "fn": fn}


def run(templates: list[str], data: dict[str, Any], missingkey: Any) -> str:
    """Parse templates t0, t1... into one set and execute t0 (data also gets .O, an Obj)."""
    tset = Environment(FUNCS, missingkey=missingkey).new_set()
    for i, text in enumerate(templates):
        tset.parse(f"t{i}", text)
    return tset.execute("t0", {**data, "O": Obj()})


# (id, templates, data, missingkey, ("ok", output) | ("error", exact message))
EXEC_CASES = [
    ('prints_values', ['{{ .a }}|{{ .missing }}|{{ .n }}|{{ .f }}|{{ .l }}|{{ .m }}|{{ .z }}'], {'a': 'x', 'n': 1.0, 'f': 1.5, 'l': [1.0, 'a', None], 'm': {'k': 'v'}, 'z': None}, 'zero', ('ok', 'x|<no value>|1|1.5|[1 a <nil>]|map[k:v]|<no value>')),
    ('prints_floats_like_go', ['{{ .f }} {{ .g }} {{ .h }} {{ .i }} {{ .j }}'], {'f': 1e+21, 'g': 1e-05, 'h': 123456789.0, 'i': 1e+20, 'j': 100000.0}, 'zero', ('ok', '1e+21 1e-05 1.23456789e+08 1e+20 100000')),
    ('field_of_string_is_error', ['{{ .m.k.z }}'], {'m': {'k': 'v'}}, 'zero', ('error', 'template: t0:1:5: executing "t0" at <.m.k.z>: can\'t evaluate field z in type interface {}')),
    ('field_of_missing_is_nil_pointer', ['{{ .missing.b }}'], {}, 'zero', ('error', 'template: t0:1:11: executing "t0" at <.missing.b>: nil pointer evaluating interface {}.b')),
    ('field_of_missing_default_mode_is_empty', ['{{ .missing.b }}ok'], {}, 'default', ('ok', '<no value>ok')),
    ('missingkey_error', ['{{ .missing.b }}'], {}, 'error', ('error', 'template: t0:1:11: executing "t0" at <.missing.b>: map has no entry for key "missing"')),
    ('missingkey_error_nested', ['{{ .a.missing }}'], {'a': {}}, 'error', ('error', 'template: t0:1:5: executing "t0" at <.a.missing>: map has no entry for key "missing"')),
    ('field_of_null_is_nil_pointer', ['{{ .z.b }}'], {'z': None}, 'zero', ('error', 'template: t0:1:5: executing "t0" at <.z.b>: nil pointer evaluating interface {}.b')),
    ('field_of_string_variable_names_string', ['{{ $x := "a" }}{{ $x.b }}'], {}, 'zero', ('error', 'template: t0:1:20: executing "t0" at <$x.b>: can\'t evaluate field b in type string')),
    ('range_element_is_interface', ['{{ range .l }}{{ .foo }}{{ end }}'], {'l': [1.0]}, 'zero', ('error', 'template: t0:1:17: executing "t0" at <.foo>: can\'t evaluate field foo in type interface {}')),
    ('range_nil_element_is_nil_pointer', ['{{ range .l }}{{ .foo }}{{ end }}'], {'l': [None]}, 'zero', ('error', 'template: t0:1:17: executing "t0" at <.foo>: nil pointer evaluating interface {}.foo')),
    ('variable_of_missing_then_field_is_empty', ['{{ $x := .missing }}{{ $x.b }}ok'], {}, 'zero', ('ok', '<no value>ok')),
    ('paren_missing_then_field_is_empty', ['{{ (.missing).b }}ok'], {}, 'zero', ('ok', '<no value>ok')),
    ('missing_field_arg_is_wrong_type', ['{{ upper .missing }}'], {}, 'zero', ('error', 'template: t0:1:9: executing "t0" at <.missing>: wrong type for value; expected string; got interface {}')),
    ('missing_variable_arg_is_invalid', ['{{ $x := .missing }}{{ upper $x }}'], {}, 'zero', ('error', 'template: t0:1:29: executing "t0" at <$x>: invalid value; expected string')),
    ('missing_paren_arg_is_invalid', ['{{ upper (.missing) }}'], {}, 'zero', ('error', 'template: t0:1:10: executing "t0" at <.missing>: invalid value; expected string')),
    ('nil_literal_for_string', ['{{ upper nil }}'], {}, 'zero', ('error', 'template: t0:1:9: executing "t0" at <nil>: cannot assign nil to string')),
    ('number_literal_for_string', ['{{ upper 3 }}'], {}, 'zero', ('error', 'template: t0:1:9: executing "t0" at <3>: expected string; found 3')),
    ('string_literal_for_int', ['{{ trunc "a" "b" }}'], {}, 'zero', ('error', 'template: t0:1:9: executing "t0" at <"a">: expected integer; found "a"')),
    ('float_literal_for_int', ['{{ trunc 1.5 "abc" }}'], {}, 'zero', ('error', 'template: t0:1:9: executing "t0" at <1.5>: expected integer; found 1.5')),
    ('float64_value_for_int', ['{{ trunc .n "abc" }}'], {'n': 1.0}, 'zero', ('error', 'template: t0:1:9: executing "t0" at <.n>: wrong type for value; expected int; got float64')),
    ('integral_float_literal_for_int', ['{{ trunc 2 "abc" }}{{ trunc 1e1 "abcdefghijklm" }}'], {}, 'zero', ('ok', 'ababcdefghij')),
    ('too_many_args', ['{{ upper "a" "b" }}'], {}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <upper>: wrong number of args for upper: want 1 got 2')),
    ('too_many_args_with_pipe', ['{{ "a" | upper "b" }}'], {}, 'zero', ('error', 'template: t0:1:9: executing "t0" at <upper>: wrong number of args for upper: want 1 got 2')),
    ('piped_missing_is_invalid', ['{{ .missing | upper }}'], {}, 'zero', ('error', 'template: t0:1:14: executing "t0" at <upper>: invalid value; expected string')),
    ('func_error', ['{{ fail "boom" }}'], {}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <fail "boom">: error calling fail: boom')),
    ('func_error_piped', ['{{ "x" | fail }}'], {}, 'zero', ('error', 'template: t0:1:9: executing "t0" at <fail>: error calling fail: x')),
    ('and_or_return_deciding_operand', ['{{ and 1 0 "x" }} {{ or 0 "" "y" }} {{ and 1 2 }} {{ or 0 "" }} {{ 0 | and 1 }} {{ and .m.missing 1 }}'], {'m': {}}, 'zero', ('ok', '0 y 2  0 <no value>')),
    ('and_needs_an_argument', ['{{ and }}'], {}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <and>: wrong number of args for and: want at least 1 got 0')),
    ('not', ['{{ not 0 }} {{ not "a" }} {{ not .l }} {{ not nil }}'], {'l': []}, 'zero', ('ok', 'true false true true')),
    ('len', ['{{ len "héllo" }} {{ len .l }} {{ len .m }}'], {'l': [1.0, 2.0], 'm': {'a': 1.0}}, 'zero', ('ok', '6 2 1')),
    ('len_of_int', ['{{ len 3 }}'], {}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <len 3>: error calling len: len of type int')),
    ('len_of_missing', ['{{ len .missing }}'], {}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <len .missing>: error calling len: len of nil pointer')),
    ('index', ['{{ index .l 1 }} {{ index .m "a" }} {{ index .m "zz" }} {{ index .n 0 1 }} {{ index "abc" 1 }}'], {'l': [1.0, 2.0], 'm': {'a': 1.0}, 'n': [[1.0, 2.0]]}, 'zero', ('ok', '2 1 <no value> 2 98')),
    ('index_out_of_range', ['{{ index .l 5 }}'], {'l': [1.0, 2.0]}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <index .l 5>: error calling index: index out of range: 5')),
    ('index_at_length', ['{{ index .l 2 }}'], {'l': [1.0, 2.0]}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <index .l 2>: error calling index: reflect: slice index out of range')),
    ('index_negative', ['{{ index .l -1 }}'], {'l': [1.0, 2.0]}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <index .l -1>: error calling index: index out of range: -1')),
    ('index_list_with_string', ['{{ index .l "a" }}'], {'l': [1.0, 2.0]}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <index .l "a">: error calling index: cannot index slice/array with type string')),
    ('index_list_with_nil', ['{{ index .l nil }}'], {'l': [1.0, 2.0]}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <index .l nil>: error calling index: cannot index slice/array with nil')),
    ('index_map_with_int', ['{{ index .m 1 }}'], {'m': {}}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <index .m 1>: error calling index: value has type int; should be string')),
    ('index_nil', ['{{ index nil 1 }}'], {}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <index nil 1>: error calling index: index of untyped nil')),
    ('index_through_nil', ['{{ index .m "a" "b" }}'], {'m': {}}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <index .m "a" "b">: error calling index: index of nil pointer')),
    ('index_int', ['{{ index 3 1 }}'], {}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <index 3 1>: error calling index: can\'t index item of type int')),
    ('index_list_with_float', ['{{ index .l 1.0 }}'], {'l': [1.0, 2.0]}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <index .l 1.0>: error calling index: cannot index slice/array with type float64')),
    ('slice', ['{{ slice "abcdef" 1 3 }} {{ slice .l 1 }} {{ slice .l }} {{ slice .l 0 1 2 }}'], {'l': [1.0, 2.0, 3.0]}, 'zero', ('ok', 'bc [2 3] [1 2 3] [1]')),
    ('slice_inverted', ['{{ slice "abc" 2 1 }}'], {}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <slice "abc" 2 1>: error calling slice: invalid slice index: 2 > 1')),
    ('slice_string_three_indexes', ['{{ slice "abc" 1 2 3 }}'], {}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <slice "abc" 1 2 3>: error calling slice: cannot 3-index slice a string')),
    ('slice_int', ['{{ slice 3 1 }}'], {}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <slice 3 1>: error calling slice: can\'t slice item of type int')),
    ('print_family', ['{{ print 1 2 "a" "b" 3 nil }}|{{ println 1 "a" }}|{{ printf "%d-%s" 3 "x" }}|{{ printf "%v" .f }}'], {'f': 1000000.0}, 'zero', ('ok', '1 2ab3 <nil>|1 a\n|3-x|1e+06')),
    ('escapers', ['{{ html "<a href=\'x\'>&\\"" }} {{ js "a\'b\\"c<>&=\\\\" }} {{ urlquery "a b&c=d/é~" }} {{ html 1 2 }}'], {}, 'zero', ('ok', '&lt;a href=&#39;x&#39;&gt;&amp;&#34; a\\\'b\\"c\\u003C\\u003E\\u0026\\u003D\\\\ a+b%26c%3Dd%2F%C3%A9~ 1 2')),
    ('eq', ['{{ eq 1 1 }} {{ eq 1 2 1 }} {{ eq "a" "a" }} {{ eq nil nil }} {{ eq .missing "" }} {{ eq .f 1.0 }} {{ eq true false }} {{ eq .l nil }}'], {'f': 1.0, 'l': [1.0]}, 'zero', ('ok', 'true true true true false true false false')),
    ('eq_float_int_incompatible', ['{{ eq .f 1 }}'], {'f': 1.0}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <eq .f 1>: error calling eq: incompatible types for comparison: float64 and int')),
    ('eq_lists_not_comparable', ['{{ eq .l .l }}'], {'l': [1.0]}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <eq .l .l>: error calling eq: non-comparable type [%!s(float64=1)]: []interface {}')),
    ('eq_list_map_not_comparable', ['{{ eq .l .m }}'], {'l': [1.0], 'm': {}}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <eq .l .m>: error calling eq: non-comparable types [%!s(float64=1)]: []interface {}, map[string]interface {}: map[]')),
    ('eq_one_argument', ['{{ eq 1 }}'], {}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <eq 1>: error calling eq: missing argument for comparison')),
    ('ordering', ['{{ ne 1 2 }} {{ lt 1 2 }} {{ le 2 2 }} {{ gt "b" "a" }} {{ ge 1.5 2.5 }}'], {}, 'zero', ('ok', 'true true true true false')),
    ('lt_incompatible', ['{{ lt 1 1.5 }}'], {}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <lt 1 1.5>: error calling lt: incompatible types for comparison: int and float64')),
    ('lt_bool', ['{{ lt true false }}'], {}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <lt true false>: error calling lt: invalid type for comparison')),
    ('lt_list', ['{{ lt .l 1 }}'], {'l': []}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <lt .l 1>: error calling lt: invalid type for comparison')),
    ('lt_nil', ['{{ lt nil 1 }}'], {}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <lt nil 1>: error calling lt: invalid type for comparison')),
    ('struct_fields_and_methods', ['{{ .O.Name }} {{ .O.Greet "x" }} {{ .O }} {{ obj.Name }} {{ (obj).Greet "y" }} {{ "z" | .O.Greet }}'], {}, 'zero', ('ok', 'n hi x OBJ n hi y hi z')),
    ('struct_missing_field', ['{{ .O.Nope }}'], {}, 'zero', ('error', 'template: t0:1:5: executing "t0" at <.O.Nope>: can\'t evaluate field Nope in type interface {}')),
    ('struct_field_with_args', ['{{ .O.Name "x" }}'], {}, 'zero', ('error', 'template: t0:1:5: executing "t0" at <.O.Name>: Name has arguments but cannot be invoked as function')),
    ('method_missing_args', ['{{ .O.Greet }}'], {}, 'zero', ('error', 'template: t0:1:5: executing "t0" at <.O.Greet>: wrong number of args for Greet: want 1 got 0')),
    ('method_wrong_arg_type', ['{{ .O.Greet 1 }}'], {}, 'zero', ('error', 'template: t0:1:12: executing "t0" at <1>: expected string; found 1')),
    ('map_key_with_args', ['{{ .m.k "x" }}'], {'m': {'k': 1.0}}, 'zero', ('error', 'template: t0:1:5: executing "t0" at <.m.k>: k is not a method but has arguments')),
    ('range_list', ['{{ range $i, $v := .l }}{{ $i }}={{ $v }};{{ else }}empty{{ end }}'], {'l': ['a', 'b']}, 'zero', ('ok', '0=a;1=b;')),
    ('range_empty_runs_else', ['{{ range $i, $v := .l }}{{ $i }}={{ $v }};{{ else }}empty{{ end }}'], {'l': []}, 'zero', ('ok', 'empty')),
    ('range_map_sorted', ['{{ range $k, $v := .m }}{{ $k }}={{ $v }};{{ end }}{{ range .m }}{{ . }}{{ end }}'], {'m': {'b': 1.0, 'a': 2.0, 'B': 3.0}}, 'zero', ('ok', 'B=3;a=2;b=1;321')),
    ('range_int', ['{{ range 3 }}{{ . }}{{ end }}{{ range $i := 2 }}{{ $i }}{{ end }}{{ range 0 }}x{{ else }}none{{ end }}'], {}, 'zero', ('ok', '01201none')),
    ('range_int_two_vars', ['{{ range $i, $v := 3 }}{{ end }}'], {}, 'zero', ('error', 'template: t0:1:19: executing "t0" at <3>: can\'t use 3 to iterate over more than one variable')),
    ('range_string', ['{{ range "abc" }}{{ end }}'], {}, 'zero', ('error', 'template: t0:1:9: executing "t0" at <"abc">: range can\'t iterate over abc')),
    ('range_float', ['{{ range 1.5 }}{{ end }}'], {}, 'zero', ('error', 'template: t0:1:9: executing "t0" at <1.5>: range can\'t iterate over 1.5')),
    ('range_missing_runs_else', ['{{ range .missing }}x{{ else }}e{{ end }}'], {}, 'zero', ('ok', 'e')),
    ('break_and_continue', ['{{ range .l }}{{ if eq . 2.0 }}{{ continue }}{{ end }}{{ if eq . 4.0 }}{{ break }}{{ end }}{{ . }}{{ end }}'], {'l': [1.0, 2.0, 3.0, 4.0, 5.0]}, 'zero', ('ok', '13')),
    ('assign_in_range_is_visible_after', ['{{ $x := 0 }}{{ range .l }}{{ $x = . }}{{ end }}{{ $x }}'], {'l': [1.0, 2.0, 3.0]}, 'zero', ('ok', '3')),
    ('range_assign_form', ['{{ $v := 9 }}{{ range $v = .l }}{{ end }}{{ $v }}'], {'l': [1.0, 2.0, 3.0]}, 'zero', ('ok', '3')),
    ('with_else_with', ['{{ with .a }}{{ . }}{{ else }}none{{ end }}{{ with .b }}{{ . }}{{ else with .a }}A{{ end }}'], {'a': 'x', 'b': ''}, 'zero', ('ok', 'xA')),
    ('if_else_if_and_decl', ['{{ if .a }}1{{ else if .b }}2{{ else }}3{{ end }}{{ if $x := .b }}{{ $x }}{{ else }}{{ $x }}n{{ end }}'], {'a': 0.0, 'b': 5.0}, 'zero', ('ok', '25')),
    ('with_decl', ['{{ with $x := .a }}{{ $x }}{{ . }}{{ end }}'], {'a': 'q'}, 'zero', ('ok', 'qq')),
    ('define_template_block', ['{{ define "a" }}A{{ . }}{{ end }}{{ template "a" "x" }}{{ template "a" }}{{ block "b" . }}B{{ end }}'], {}, 'zero', ('ok', 'AxA<no value>B')),
    ('template_not_defined', ['{{ template "nope" }}'], {}, 'zero', ('error', 'template: t0:1:12: executing "t0" at <{{template "nope"}}>: template "nope" not defined')),
    ('error_inside_called_template', ['{{ template "t1" . }}', '{{ .x.y }}'], {'x': 1.0}, 'zero', ('error', 'template: t1:1:5: executing "t1" at <.x.y>: can\'t evaluate field y in type interface {}')),
    ('template_recursion_limit', ['{{ define "a" }}{{ template "a" . }}{{ end }}{{ template "a" . }}'], {}, 'zero', ('error', 'template: t0:1:28: executing "a" at <{{template "a" .}}>: exceeded maximum template depth (100000)')),
    ('nil_is_not_a_command', ['{{ nil }}'], {}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <nil>: nil is not a command')),
    ('number_is_not_a_function', ['{{ 3 4 }}'], {}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <3>: can\'t give argument to non-function 3')),
    ('piped_value_is_last_arg', ['{{ .a | printf "%s-%s" "x" }}'], {'a': 'A'}, 'zero', ('ok', 'x-A')),
    ('integer_literal_overflow', ['{{ 99999999999999999999 }}'], {}, 'zero', ('error', 'template: t0:1: integer overflow: "99999999999999999999"')),
    ('number_literals', ['{{ 1.5 | printf "%v %T" 2 }} {{ \'a\' }} {{ 0x1F }} {{ 1e3 }} {{ -0 }} {{ 0o17 }} {{ 1_000 }} {{ 0b101 }} {{ 1i }}'], {}, 'zero', ('ok', '2 float64 97 31 1000 0 15 1000 5 (0+1i)')),
    ('float_params', ['{{ addf 1 2 }} {{ addf 1.5 .f }}'], {'f': 2.0}, 'zero', ('ok', '3 3.5')),
    ('float_param_gets_string', ['{{ addf .n 1 }}'], {'n': 'x'}, 'zero', ('error', 'template: t0:1:8: executing "t0" at <.n>: wrong type for value; expected float64; got string')),
    ('list_param', ['{{ join "," (list 1 "a" nil) }} {{ list 1 2 }} {{ dict "a" 1 }}'], {}, 'zero', ('ok', '1,a,<nil> [1 2] map[a:1]')),
    ('list_param_gets_string', ['{{ join "," "x" }}'], {}, 'zero', ('error', 'template: t0:1:12: executing "t0" at <"x">: can\'t handle "x" for arg of type []interface {}')),
    ('call', ['{{ call fn "a" "b" }}'], {}, 'zero', ('ok', 'ab')),
    ('call_wrong_count', ['{{ call fn "a" }}'], {}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <call fn "a">: error calling call: wrong number of args for fn: got 1 want 2')),
    ('call_wrong_type', ['{{ call fn 1 "b" }}'], {}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <call fn 1 "b">: error calling call: arg 0: value has type int; should be string')),
    ('call_nil', ['{{ call .missing 1 }}'], {}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <call .missing 1>: error calling call: call of nil')),
    ('call_non_function', ['{{ call .l 1 }}'], {'l': []}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <call .l 1>: error calling call: non-function .l of type []interface {}')),
    ('dollar_is_data', ['{{ $.a }}'], {'a': 1.0}, 'zero', ('ok', '1')),
    ('nested_fields', ['{{ .a.b.c }}'], {'a': {'b': {'c': [1.0, {'d': 2.0}]}}}, 'zero', ('ok', '[1 map[d:2]]')),
    ('chain_on_paren', ['{{ (index .a 1).d }} {{ (index .a 0).d }}'], {'a': [1.0, {'d': 2.0}]}, 'zero', ('error', 'template: t0:1:34: executing "t0" at <0>: can\'t evaluate field d in type float64')),
    ('trim_markers', ['{{- /* c */ -}} a {{- 1 -}} b {{ 2 -}}\nc'], {}, 'zero', ('ok', 'a1b 2c')),
    ('printf_problems_inline', ['{{ printf "%d %s" }}{{ printf "%!" }}{{ printf "%d" "x" }}'], {}, 'zero', ('ok', '%!d(MISSING) %!s(MISSING)%!!(MISSING)%!d(string=x)')),
    ('print_no_args', ['{{ html }}{{ print }}'], {}, 'zero', ('ok', '')),
    ('error_column_is_byte_offset', ['é\n  ab{{ .m.k.z }}'], {'m': {'k': 'v'}}, 'zero', ('error', 'template: t0:2:9: executing "t0" at <.m.k.z>: can\'t evaluate field z in type interface {}')),
    ('redeclare_variable', ['{{ $x := 1 }}{{ $x := 2 }}{{ $x }}'], {}, 'zero', ('ok', '2')),
    ('assign_to_undeclared_fails_at_run', ['{{ $y = 1 }}'], {}, 'zero', ('error', 'template: t0:1:8: executing "t0" at <1>: undefined variable: $y')),
    ('template_without_data_has_nil_dot', ['{{ define "a" }}[{{ . }}]{{ end }}{{ template "a" }}{{ template "a" nil }}{{ template "a" .missing }}'], {}, 'zero', ('error', 'template: t0:1:68: executing "t0" at <nil>: nil is not a command')),
    ('range_one_var_is_element', ['{{ range $k := .m }}{{ $k }}{{ end }}'], {'m': {'a': 1.0, 'b': 2.0}}, 'zero', ('ok', '12')),
    ('empty_values_are_false', ['{{ if .m }}t{{ else }}f{{ end }}{{ if .l }}t{{ else }}f{{ end }}{{ if .s }}t{{ else }}f{{ end }}{{ if 0.0 }}t{{ else }}f{{ end }}'], {'m': {}, 'l': [], 's': ''}, 'zero', ('ok', 'ffff')),
    ('field_of_list', ['{{ .l.b }}'], {'l': [1.0]}, 'zero', ('error', 'template: t0:1:5: executing "t0" at <.l.b>: can\'t evaluate field b in type interface {}')),
    ('print_maps_and_nil', ['{{ print .m }} {{ printf "%v" nil }} {{ printf "%s" nil }} {{ printf "%d" .m }}'], {'m': {'a': 1.0, 'b': None, 'c': [1.0, 'x']}}, 'zero', ('ok', 'map[a:1 b:<nil> c:[1 x]] <nil> %!s(<nil>) map[%!d(string=a):%!d(float64=1) %!d(string=b):<nil> %!d(string=c):[%!d(float64=1) %!d(string=x)]]')),
    ('break_from_nested_if', ['{{ range .l }}{{ if gt . 2.0 }}{{ if true }}{{ break }}{{ end }}{{ end }}{{ . }}{{ end }}'], {'l': [1.0, 2.0, 3.0, 4.0]}, 'zero', ('ok', '12')),
    ('break_leaves_only_inner_range', ['{{ range .l }}{{ range . }}{{ if eq . 2.0 }}{{ break }}{{ end }}{{ . }}{{ end }};{{ end }}'], {'l': [[1.0, 2.0, 3.0], [4.0]]}, 'zero', ('ok', '1;4;')),
    ('method_through_variable', ['{{ .O.Greet "a" | upper }} {{ $o := .O }}{{ $o.Greet "x" }} {{ $o.Name }}'], {}, 'zero', ('ok', 'HI A hi x n')),
    ('method_value_as_arg_needs_args', ['{{ call .O.Greet "x" }}'], {}, 'zero', ('error', 'template: t0:1:10: executing "t0" at <.O.Greet>: wrong number of args for Greet: want 1 got 0')),
    ('not_takes_one_arg', ['{{ not 1 2 }}'], {}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <not>: wrong number of args for not: want 1 got 2')),
    ('field_of_struct_string_field', ['{{ .O.Name.x }}'], {}, 'zero', ('error', 'template: t0:1:5: executing "t0" at <.O.Name.x>: can\'t evaluate field x in type string')),
    ('index_struct', ['{{ index .O 1 }}'], {}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <index .O 1>: error calling index: can\'t index item of type main.Obj')),
    ('len_struct', ['{{ len .O }}'], {}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <len .O>: error calling len: len of type main.Obj')),
    ('struct_pointer_truth_and_identity', ['{{ if .O }}yes{{ end }} {{ eq .O .O }} {{ eq .O nil }}'], {}, 'zero', ('ok', 'yes true false')),
    ('missing_in_empty_map_zero', ['{{ .m.a.b.c }}'], {'m': {'a': {'b': {}}}}, 'zero', ('ok', '<no value>')),
    ('missing_in_empty_map_error', ['{{ .m.a.b.c }}'], {'m': {'a': {'b': {}}}}, 'error', ('error', 'template: t0:1:5: executing "t0" at <.m.a.b.c>: map has no entry for key "c"')),
    ('map_keys_sort_bytewise', ['{{ range .m }}{{ . }},{{ end }}'], {'m': {'é': 1.0, 'z': 2.0, 'A': 3.0, 'a_b': 4.0, '10': 5.0, '9': 6.0}}, 'zero', ('ok', '5,6,3,4,2,1,')),
    ('literal_commands', ['{{ "a" }}{{ `b\nc` }}{{ \'x\' }}{{ true }}{{ false | not }}'], {}, 'zero', ('ok', 'ab\nc120truetrue')),
    ('dollar_can_be_redeclared', ['{{ $ := 5 }}{{ $ }}'], {}, 'zero', ('ok', '5')),
    ('else_with_chain_falls_through', ['{{ with 0 }}a{{ else with 0 }}b{{ else }}c{{ end }}'], {}, 'zero', ('ok', 'c')),
    ('printf_verbs_on_values', ['{{ printf "%s" .l }} {{ printf "%q" .l }} {{ printf "%x" "hi" }} {{ printf "%5.2f|%-5d|%+d" 3.14159 42 5 }}'], {'l': ['a', 1.0]}, 'zero', ('ok', '[a %!s(float64=1)] ["a" %!q(float64=1)] 6869  3.14|42   |+5')),
    ('printf_type_names', ['{{ printf "%T %T %T %T" .a .b .c .d }}'], {'a': 1.0, 'b': 'x', 'c': [1.0], 'd': {'x': 1.0}}, 'zero', ('ok', 'float64 string []interface {} map[string]interface {}')),
    ('slice_three_indexes_beyond_cap', ['{{ slice .l 1 2 3 }}'], {'l': [1.0, 2.0]}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <slice .l 1 2 3>: error calling slice: index out of range: 3')),
    ('slice_start_beyond_len', ['{{ slice .l 3 }}'], {'l': [1.0, 2.0]}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <slice .l 3>: error calling slice: index out of range: 3')),
    ('strings_index_by_byte', ['{{ index "héllo" 1 }} {{ slice "héllo" 1 3 }} {{ len "héllo" }}'], {}, 'zero', ('ok', '195 é 6')),
    ('eq_nil_and_multiple', ['{{ eq "a" "b" "a" }} {{ eq 1 nil }} {{ eq nil 1 }} {{ ne nil nil }} {{ eq .m.x .m.y }}'], {'m': {}}, 'zero', ('ok', 'true false false false true')),
    ('ordering_strings_and_numbers', ['{{ lt "a" "b" }} {{ lt "B" "a" }} {{ le 1 1 }} {{ gt 2.5 1.5 }} {{ ge "a" "a" }}'], {}, 'zero', ('ok', 'true true true true true')),
    ('lt_needs_two_args', ['{{ lt 1 }}'], {}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <lt>: wrong number of args for lt: want 2 got 1')),
    ('le_of_nils', ['{{ le nil nil }}'], {}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <le nil nil>: error calling le: invalid type for comparison')),
    ('and_or_do_not_evaluate_the_rest', ['{{ and 0 .missing.x }}{{ or 1 .missing.x }}'], {}, 'zero', ('ok', '01')),
    ('and_evaluates_until_false', ['{{ and 1 .missing.x }}'], {}, 'zero', ('error', 'template: t0:1:17: executing "t0" at <.missing.x>: nil pointer evaluating interface {}.x')),
    ('escaper_edge_cases', ['{{ urlquery "é/ &?=#+" }} {{ js "\\u2028é\\x01" }} {{ html "\\x00" }}'], {}, 'zero', ('ok', '%C3%A9%2F+%26%3F%3D%23%2B \\u2028é\\u0001 �')),
    ('print_mixed', ['{{ print 1.0 2.5 "x" 3 true nil }}'], {}, 'zero', ('ok', '1 2.5x3 true <nil>')),
    ('println_no_args', ['{{ println }}'], {}, 'zero', ('ok', '\n')),
    ('printf_indexes_and_star', ['{{ printf "%[2]s %[1]s" "a" "b" }} {{ printf "%*d" 5 1 }}'], {}, 'zero', ('ok', 'b a     1')),
    ('parenthesized_commands', ['{{ (1) }} {{ ("x") }} {{ (.a) }}'], {'a': 'A'}, 'zero', ('ok', '1 x A')),
    ('assignment_does_not_touch_data', ['{{ $x := .a }}{{ $x = "b" }}{{ $x }}{{ .a }}'], {'a': 'A'}, 'zero', ('ok', 'bA')),
    ('called_template_gets_its_own_dollar', ['{{ template "t1" .m }}', '{{ .a }}{{ $.a }}{{ range . }}{{ . }}{{ end }}'], {'m': {'a': 1.0}}, 'zero', ('ok', '111')),
    ('called_template_with_nil_dot', ['{{ define "x" }}{{ .y }}{{ end }}{{ template "x" .z }}'], {'z': None}, 'zero', ('ok', '<no value>')),
    ('called_template_boxed_nil_field', ['{{ define "x" }}{{ .y.q }}{{ end }}{{ template "x" .z }}'], {'z': {'y': None}}, 'zero', ('error', 'template: t0:1:21: executing "x" at <.y.q>: nil pointer evaluating interface {}.q')),
    ('len_of_no_value_is_reflect_panic', ['{{ $x := .missing }}{{ len $x }}'], {}, 'zero', ('error', 'template: t0:1:23: executing "t0" at <len $x>: error calling len: reflect: call of reflect.Value.Type on zero Value')),
    ('len_of_paren_no_value', ['{{ len (.missing) }}'], {}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <len (.missing)>: error calling len: reflect: call of reflect.Value.Type on zero Value')),
    ('len_of_piped_no_value', ['{{ .missing | len }}'], {}, 'zero', ('error', 'template: t0:1:14: executing "t0" at <len>: error calling len: reflect: call of reflect.Value.Type on zero Value')),
    ('len_of_null_value_is_nil_pointer', ['{{ len .z }}'], {'z': None}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <len .z>: error calling len: len of nil pointer')),
    ('no_value_variable_in_builtins', ['{{ $x := .missing }}{{ eq $x nil }} {{ not $x }} {{ and $x 1 }} {{ print $x }} {{ printf "%v|%s" $x $x }}'], {}, 'zero', ('ok', 'true true <no value> <nil> <nil>|%!s(<nil>)')),
    ('escapers_print_no_value', ['{{ print .missing }} {{ print .z }} {{ printf "%v" .z }} {{ html .missing }} {{ urlquery .missing 1 }}'], {'z': None}, 'zero', ('ok', '<nil> <nil> <nil> &lt;no value&gt; %3Cno+value%3E1')),
    ('slice_of_missing', ['{{ slice .missing }}'], {}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <slice .missing>: error calling slice: slice of untyped nil')),
    ('slice_index_from_map_is_interface', ['{{ slice .l .m.i }}'], {'l': [1.0, 2.0], 'm': {'i': 1.0}}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <slice .l .m.i>: error calling slice: cannot index slice/array with type interface {}')),
    ('slice_checks_item_before_indexes', ['{{ slice 1.5 .m.i }}'], {'m': {'i': 1.0}}, 'zero', ('error', 'template: t0:1:3: executing "t0" at <slice 1.5 .m.i>: error calling slice: can\'t slice item of type float64')),
    ('error_after_or_points_at_deciding_operand', ['{{ trunc (or .f .a.x) "abc" }}'], {'f': 1.5, 'a': 's'}, 'zero', ('error', 'template: t0:1:13: executing "t0" at <.f>: wrong type for value; expected int; got float64')),
    ('range_error_after_or_points_at_deciding_operand', ['{{ range $i, $v := or .a "s" }}{{ end }}'], {'a': 'v'}, 'zero', ('error', 'template: t0:1:22: executing "t0" at <.a>: range can\'t iterate over v')),
    ('error_in_parenthesized_arg_points_inside', ['{{ trunc ($.m) "s" }}'], {'m': {}}, 'zero', ('error', 'template: t0:1:11: executing "t0" at <$.m>: wrong type for value; expected int; got map[string]interface {}')),
    ('piped_final_error_points_at_last_word', ['{{ "x" | join (1.5 | print) }}'], {}, 'zero', ('error', 'template: t0:1:21: executing "t0" at <print>: wrong type for value; expected []interface {}; got string')),
    ('int64_results_print_and_type', ['{{ add64 1 2 }} {{ printf "%T" (add64 1 2) }} {{ takes64 3 }} {{ takes64 (add64 1 1) }}'], {}, 'zero', ('ok', '3 int64 6 4')),
    ('int64_refused_for_int_param', ['{{ trunc (add64 1 1) "abcdef" }}'], {}, 'zero', ('error', 'template: t0:1:18: executing "t0" at <1>: wrong type for value; expected int; got int64')),
    ('int_refused_for_int64_param', ['{{ takes64 (len "ab") }}'], {}, 'zero', ('error', 'template: t0:1:16: executing "t0" at <"ab">: wrong type for value; expected int64; got int')),
    ('float_literal_for_int64_param', ['{{ takes64 1.5 }}'], {}, 'zero', ('error', 'template: t0:1:11: executing "t0" at <1.5>: expected integer; found 1.5')),
    ('pointer_param_takes_object', ['{{ greetp .O }}'], {}, 'zero', ('ok', 'p:n')),
    ('pointer_param_refuses_literal', ['{{ greetp "x" }}'], {}, 'zero', ('error', 'template: t0:1:10: executing "t0" at <"x">: can\'t handle "x" for arg of type *main.Obj')),
    ('pointer_param_refuses_string_value', ['{{ greetp .a }}'], {'a': 's'}, 'zero', ('error', 'template: t0:1:10: executing "t0" at <.a>: wrong type for value; expected *main.Obj; got string')),
    ('int64_compares_with_int', ['{{ eq (add64 1 1) 2 }} {{ lt (add64 1 1) 3 }}'], {}, 'zero', ('ok', 'true true')),
    ('struct_printing_without_stringer_verbs', ['{{ printf "%d|%+d|%#v|%x|%v" .O .O .O .O (list .O) }}'], {}, 'zero', ('ok', '&{%!d(string=n)}|&{%!d(string=n)}|&main.Obj{Name:"n"}|4f424a|[OBJ]')),
]


@pytest.mark.parametrize(
    ("templates", "data", "missingkey", "expected"), [c[1:] for c in EXEC_CASES], ids=[c[0] for c in EXEC_CASES]
)
def test_execute_matches_go(templates: list[str], data: dict[str, Any], missingkey: str, expected: tuple[str, str]) -> None:
    check_case(templates, data, missingkey, expected)


def check_case(templates: list[str], data: dict[str, Any], missingkey: str, expected: tuple[str, str]) -> None:
    """One of EXEC_CASES: Go's output, or Go's error message."""
    kind, text = expected
    # In a thread with a real deep stack, as the engine runs templates (Go's depth 100000).
    execute = lambda: run(templates, data, missingkey)  # noqa: E731
    if kind == "ok":
        assert deepstack.run(execute) == text
    else:
        with pytest.raises((ExecError, ParseError)) as info:
            deepstack.run(execute)
        assert str(info.value) == text


def test_exec_error_carries_position_and_reason() -> None:
    with pytest.raises(ExecError) as info:
        run(["a\n  {{ .m.k.z }}"], {"m": {"k": "v"}}, "zero")
    err = info.value
    assert err.template_name == "t0"
    # Go positions a field chain at its second field (".k"), byte offset 7 on the line.
    assert err.pos is not None and (err.pos.file, err.pos.line, err.pos.col) == ("t0", 2, 8)
    assert err.go_col == 7
    assert err.reason == "can't evaluate field z in type interface {}"


def test_parse_and_exec_errors_are_template_errors() -> None:
    from helm_core.errors import TemplateError

    assert issubclass(ExecError, TemplateError) and issubclass(ParseError, TemplateError)


def test_functions_without_signature_take_any_arguments() -> None:
    tset = Environment({"anything": lambda *a: len(a)}).new_set()
    tset.parse("x", "{{ anything }} {{ anything 1 nil .x }} {{ 3 | anything 1 }}")
    assert tset.execute("x", {}) == "0 3 2"


def test_a_raised_python_exception_is_reported_as_error_calling() -> None:
    def boom() -> None:
        raise ValueError("bad input")

    tset = Environment({"boom": boom}).new_set()
    tset.parse("x", "{{ boom }}")
    with pytest.raises(ExecError) as info:
        tset.execute("x", {})
    assert str(info.value) == 'template: x:1:3: executing "x" at <boom>: error calling boom: bad input'


def test_unknown_function_allowed_at_parse_fails_only_when_run() -> None:
    tset = Environment().new_set()
    tset.parse("x", "{{ if .run }}{{ later }}{{ end }}ok", extra_names=["later"])
    assert tset.execute("x", {"run": False}) == "ok"
    with pytest.raises(ExecError) as info:
        tset.execute("x", {"run": True})
    assert str(info.value) == 'template: x:1:16: executing "x" at <later>: "later" is not a defined function'


def test_printing_a_function_value_is_an_error() -> None:
    tset = Environment({"fn": fn}).new_set()
    tset.parse("x", "{{ fn }}")
    with pytest.raises(ExecError) as info:
        tset.execute("x", {})
    # Go also prints the result type ("... string"); Python functions do not declare it.
    assert str(info.value) == 'template: x:1:3: executing "x" at <{{fn}}>: can\'t print {{fn}} of type func(string, string)'


def test_inputs_are_not_mutated() -> None:
    data = {"l": [3.0, 1.0], "m": {"b": 1.0, "a": 2.0}}
    snapshot = repr(data)
    run(["{{ range .l }}{{ . }}{{ end }}{{ range $k, $v := .m }}{{ $k }}{{ end }}{{ $x := .l }}"], data, "zero")
    assert repr(data) == snapshot


# Complex constants (``1+2i``, ``4i``): Go 1.26's answers, with the data {"x": 16.2-17i}. The first
# ones are exec_test.go's own vectors ("ideal complex", "dot complex", "printf complex", "printf
# lots", "with 1.5i", "bug16e", "bug16j", "lt 1+0i 1+0i"); the rest widen fmtComplex's verbs and flags.
COMPLEX_CASES = [
    ('{{printf "%T" 1i}}', 'complex128'),
    ('<{{.x}}>', '<(16.2-17i)>'),
    ('{{if 1.5i}}NON-ZERO{{else}}ZERO{{end}}', 'NON-ZERO'),
    ('{{printf "%g" 1+7i}}', '(1+7i)'),
    ('{{printf "%d %s %g %s" 127 "hello" 7-3i "M0"}}', '127 hello (7-3i) M0'),
    ('{{with 1.5i}}{{.}}{{else}}ZERO{{end}}', '(0+1.5i)'),
    ('{{0i|printf}}', 'ERR template: t0:1:5: executing "t0" at <printf>: wrong type for value; expected string; got complex128'),
    ('{{1+2i|printf "%v"}}', '(1+2i)'),
    ('{{lt 1+0i 1+0i}}', 'ERR template: t0:1:2: executing "t0" at <lt 1+0i 1+0i>: error calling lt: invalid type for comparison'),
    ('{{ 1+2i }}', '(1+2i)'),
    ('{{ 0i }}', '(0+0i)'),
    ('{{ 13+0i }}', '(13+0i)'),
    ('{{ printf "%v %.2f %d %x" 1+2i 1+2i 1+2i 1+2i }}', '(1+2i) (1.00+2.00i) %!d(complex128=(1+2i)) (0x1p+00+0x1p+01i)'),
    ('{{ print 1+2i 3 }}', '(1+2i) 3'),
    ('{{ println 1e21i }}', '(0+1e+21i)\n'),
    ('{{ printf "%q" 1i }}', '%!q(complex128=(0+1i))'),
    ('{{ printf "%8.1f|%-12v|%+v" 1+2i 1+2i 1+2i }}', '(     1.0    +2.0i)|(1           +2          i)|(1+2i)'),
    ('{{ len 1i }}', 'ERR template: t0:1:3: executing "t0" at <len 1i>: error calling len: len of type complex128'),
    ('{{ index 1i 0 }}', 'ERR template: t0:1:3: executing "t0" at <index 1i 0>: error calling index: can\'t index item of type complex128'),
    ('{{ printf "%s" 1i }}', '%!s(complex128=(0+1i))'),
    ('{{ and 1i 0 }}', '0'),
    ('{{ eq 1i 1 }}', 'ERR template: t0:1:3: executing "t0" at <eq 1i 1>: error calling eq: incompatible types for comparison: complex128 and int'),
    ('{{ eq 1.0 1+0i }}', 'ERR template: t0:1:3: executing "t0" at <eq 1.0 1+0i>: error calling eq: incompatible types for comparison: float64 and complex128'),
    ('{{ printf "%v" -0i }}', '(0-0i)'),
    ('{{ printf "%e" 1.5i }}', '(0.000000e+00+1.500000e+00i)'),
    ('{{ printf "%#v" 1i }}', '(0+1i)'),
    ('{{ printf "%08.2f|% v|%#g|%E|%G|%b" 1+2i 1+2i 1i 1.5i 1e21i 1i }}', '(00001.00+0002.00i)|( 1+2i)|(0.00000+1.00000i)|(0.000000E+00+1.500000E+00i)|(0+1E+21i)|(0p-1074+4503599627370496p-52i)'),
    ('{{ printf "%v" (print 2i) }}', '(0+2i)'),
    ('{{ printf "%x" 1.5i }}', '(0x0p+00+0x1.8p+00i)'),
    ('{{ printf "%v" (slice "abc" 1i) }}', 'ERR template: t0:1:16: executing "t0" at <slice "abc" 1i>: error calling slice: cannot index slice/array with type complex128'),
    ('{{ printf "%6v|%-6.1v|" 1i 2i }}', '(     0    +1i)|(0     +2    i)|'),
    ('{{ .x }}', '(16.2-17i)'),
    ('{{ printf "%t" 1i }}', '%!t(complex128=(0+1i))'),
    ('{{ printf "%c %U" 1i 2i }}', '%!c(complex128=(0+1i)) %!U(complex128=(0+2i))'),
    ('{{ html 1i }}', '(0+1i)'),
    ('{{ js 1+2i }}', '(1+2i)'),
    ('{{ urlquery 3i }}', '%280%2B3i%29'),
    ('{{ printf "%v" (index (slice (print 1i) 0) ) }}', '(0+1i)'),
    ('{{ not 0i }}', 'true'),
    ('{{ or 0i 2i }}', '(0+2i)'),
    ('{{ $x := 1i }}{{ $x }}', '(0+1i)'),
    ('{{ range 1i }}{{ end }}', 'ERR template: t0:1:9: executing "t0" at <1i>: range can\'t iterate over (0+1i)'),
    ('{{ 1i.x }}', 'ERR template: t0:1: unexpected . after term "1i"'),
    ('{{ call 1i }}', 'ERR template: t0:1:3: executing "t0" at <call 1i>: error calling call: non-function 1i of type complex128'),
]


@pytest.mark.parametrize(("template", "expected"), COMPLEX_CASES)
def test_complex_constants_match_go(template: str, expected: str) -> None:
    try:
        got = run([template], {"x": 16.2 - 17j}, "zero")
    except (ExecError, ParseError) as exc:
        got = "ERR " + str(exc)
    assert got == expected
