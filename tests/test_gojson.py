"""gojson: encoding/json's exact bytes and strconv's float formatting."""
from __future__ import annotations

import base64
import datetime
import json
import math
import random
import re

import pytest

from helm_core.golib import gojson
from helm_core.engine import files, helm_funcs
from helm_core.golib import gotypes
from helm_core.golib import gotime
from tests.engine import helmbin
from tests.engine.test_render import chart_yaml, render_dir, write_chart


@pytest.mark.parametrize(
    ("value", "fmt", "expected"),
    [
        (1.0, "g", "1"), (1e6, "g", "1e+06"), (123456.0, "g", "123456"), (1e-5, "g", "1e-05"),
        (0.0001, "g", "0.0001"), (1.5, "e", "1.5e+00"), (1e21, "f", "1000000000000000000000"),
        (-0.0, "g", "-0"), (math.inf, "g", "+Inf"), (math.nan, "g", "NaN"), (0.1 + 0.2, "g", "0.30000000000000004"),
    ],
    ids=lambda v: repr(v),
)
def test_format_float_is_strconv_shortest(value, fmt, expected):
    assert gojson.format_float(value, fmt) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"b": 1, "a": [True, None, 1.5]}, '{"a":[true,null,1.5],"b":1}'),
        ("<a&b>", '"\\u003ca\\u0026b\\u003e"'),
        ("\u2028\u2029", '"\\u2028\\u2029"'),
        ("\x00\x08\x0c\n\r\t\x1f\x7f", '"\\u0000\\b\\f\\n\\r\\t\\u001f\x7f"'),
        (1e21, "1e+21"), (1e-7, "1e-7"), (1e20, "100000000000000000000"), (0.000001, "0.000001"),
        (1000000.0, "1000000"), (12, "12"), (b"hi", '"aGk="'), ({}, "{}"), ([], "[]"),
        (datetime.datetime(2024, 1, 2, 3, 4, 5, 120000, tzinfo=datetime.timezone.utc), '"2024-01-02T03:04:05.12Z"'),
        # Go's []byte, whatever the Python type
        (bytearray(b"hi"), '"aGk="'),
        # each byte of invalid UTF-8 (a surrogate escape in Python) is the escape \ufffd
        ("ab\udcffcd", '"ab\\ufffdcd"'),
        # time.Time: a 4-digit year and the nanoseconds Go keeps
        (datetime.datetime(1, 1, 1, tzinfo=datetime.timezone.utc), '"0001-01-01T00:00:00Z"'),
        (gotime.with_nanos(datetime.datetime(2024, 1, 2, 3, 4, 5, 123456, tzinfo=datetime.timezone.utc), 123456789),
         '"2024-01-02T03:04:05.123456789Z"'),
        # .Files is a Go map (engine.files): sorted keys, not insertion order
        (files.Files({"f/a/b.txt": b"y", "f/a.txt": b"x"}), '{"f/a.txt":"eA==","f/a/b.txt":"eQ=="}'),
        (gojson.Struct(b=1, a=2), '{"b":1,"a":2}'),
        (gotypes.Duration(1500), "1500"),
    ],
    ids=lambda v: repr(v)[:30],
)
def test_dumps_is_json_marshal(value, expected):
    assert gojson.dumps(value) == expected


def test_dumps_pretty_is_marshal_indent():
    assert gojson.dumps_pretty({"a": [1, {}], "b": "<"}) == '{\n  "a": [\n    1,\n    {}\n  ],\n  "b": "\\u003c"\n}'


def test_dumps_raw_keeps_html_characters():
    assert gojson.dumps_raw({"a": "<&>"}) == '{"a":"<&>"}'


def test_dumps_nan_is_go_error():
    with pytest.raises(gojson.JSONError, match="^json: unsupported value: NaN$"):
        gojson.dumps(math.nan)


class _NoJSONFields(gotypes.GoObject):
    go_type = "*x.T"


def test_go_struct_without_json_fields_is_an_empty_object():
    assert gojson.dumps([_NoJSONFields()]) == "[{}]"
    with pytest.raises(gojson.JSONError, match="^json: unsupported type: complex128$"):
        gojson.dumps(1j)


@pytest.mark.parametrize(
    ("text", "expected"),
    [('{"a": 1, "a": 2}', {"a": 2.0}), ("[1, 2.5, -0]", [1.0, 2.5, -0.0]), ('"x"', "x"), ("null", None),
     ('["\\ud83d\\ude00", "\\ud800x\\udc00", {"\\udfff": 1}]', ["\U0001f600", "\ufffdx\ufffd", {"\ufffd": 1.0}]),
     ('"a\udcff"', "a\ufffd"), (b'{"a": "\xff\xfe"}', {"a": "\ufffd\ufffd"})],
    ids=["dup-last-wins", "numbers-float", "string", "null", "surrogate-escapes", "invalid-utf8-text",
         "invalid-utf8-bytes"],
)
def test_loads_decodes_into_interface(text, expected):
    assert gojson.loads(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "unexpected end of JSON input"),
        ('{"a": 1', "unexpected end of JSON input"),
        ("x", "invalid character 'x' looking for beginning of value"),
        ("NaN", "invalid character 'N' looking for beginning of value"),
        ('{"a" 1}', "invalid character '1' after object key"),
        ('{"a": 1 "b"}', "invalid character '\"' after object key:value pair"),
        ("[1 2]", "invalid character '2' after array element"),
        ("{} x", "invalid character 'x' after top-level value"),
        ("1e400", "json: cannot unmarshal number 1e400 into Go value of type float64"),
        ("tru", "invalid character ' ' in literal true (expecting 'e')"),
        ("[1.", "invalid character ' ' after decimal point in numeric literal"),
        ("1e+", "invalid character ' ' in exponent of numeric literal"),
        ('"a\\', "invalid character ' ' in string escape code"),
        ('"\\u12', "invalid character ' ' in \\u hexadecimal character escape"),
        ('"a\x01"', "invalid character '\\x01' in string literal"),
        ("[é]", "invalid character '\u00c3' looking for beginning of value"),
        ("{,}", "invalid character ',' looking for beginning of object key string"),
        ("[" * 10000, "unexpected end of JSON input"),
        ("[" * 10001, "invalid character '[' exceeded max depth"),
    ],
    ids=["empty", "eof", "bad-start", "nan", "no-colon", "no-comma-obj", "no-comma-arr", "trailing", "range",
         "eof-in-literal", "eof-after-dot", "eof-in-exponent", "eof-in-escape", "eof-in-hex", "control-char",
         "non-ascii-byte", "bad-key", "depth-10000", "depth-10001"],
)
def test_loads_errors_are_go_messages(text, message):
    with pytest.raises(gojson.JSONError) as info:
        gojson.loads(text)
    assert str(info.value) == message


FUZZ_CASES = 600
FUZZ_SEED = 20261123
_BASES = ['{"a": 1, "b": [true, false, null, -1.5e3, "x\\u00e9\\n"], "c": {"d": {}}, "e": []}',
          '[1, 2, {"x": "y"}]', '"str"', "12", '{"k": "v"}', "{}", "[]", "true", "-0.5e-3"]
_CHARS = list('{}[]",:-+.eE0123456789tfnrulasx \\/\t\n') + ["\x01", "é", "u"]


def _mutated(rng: random.Random) -> str:
    text = rng.choice(_BASES)
    for _ in range(rng.randint(1, 3)):
        op, pos = rng.random(), rng.randint(0, len(text))
        if op < 0.33:
            text = text[:pos] + rng.choice(_CHARS) + text[pos:]
        elif op < 0.66:
            text = text[:pos] + text[pos + 1:]
        else:
            text = text[:pos] + rng.choice(_CHARS) + text[pos + 1:]
    return text


def test_from_json_errors_agree_with_helm_on_mutated_json(tmp_path):
    helmbin.require_helm()
    rng = random.Random(FUZZ_SEED)
    cases = [_mutated(rng) for _ in range(FUZZ_CASES)]
    chart = tmp_path / "fj"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: fj\nversion: 0.1.0\n")
    (chart / "templates" / "t.yaml").write_text(
        '{{- range $i, $v := .Values.cases }}\nc{{ $i }}: {{ toJson (fromJson $v) | b64enc | quote }}\n{{- end }}\n')
    (tmp_path / "values.json").write_text(json.dumps({"cases": cases}))
    out = helmbin.helm_template(chart, "-f", str(tmp_path / "values.json"))
    helm = {}
    for line in out.split("\n"):
        if line.startswith("c") and ": " in line:
            key, val = line.split(": ", 1)
            helm[int(key[1:])] = base64.b64decode(json.loads(val)).decode()
    mismatches = [f"{case!r}: helm {helm.get(i)} ours {gojson.dumps(helm_funcs.from_json(case))}"
                  for i, case in enumerate(cases) if helm.get(i) != gojson.dumps(helm_funcs.from_json(case))]
    assert not mismatches, "\n".join(mismatches[:5])


#: Templates where gojson and Sprig's former second encoder/decoder disagreed (or both differed
#: from Go); each line must print what Helm prints. Results are base64 so any byte survives YAML.
DISAGREEMENTS = {
    "invalid_utf8_toJson": '.Files.Get "bin.txt" | toJson',
    "invalid_utf8_mustToJson": '.Files.Get "bin.txt" | mustToJson',
    "invalid_utf8_toRawJson": '.Files.Get "bin.txt" | toRawJson',
    "year1_toJson": 'toDate "2006-01-02" "0001-01-01" | toJson',
    "year1_mustToJson": 'toDate "2006-01-02" "0001-01-01" | mustToJson',
    "nanos_toJson": 'toDate "2006-01-02T15:04:05.999999999Z07:00" "2024-01-02T03:04:05.123456789Z" | toJson',
    "nanos_toPrettyJson": 'toDate "2006-01-02T15:04:05.999999999Z07:00" "2024-01-02T03:04:05.123456789Z"'
                          ' | toPrettyJson',
    "times_toToml": 'dict "a" (toDate "2006-01-02" "0001-01-01") "b" (toDate "2006-01-02T15:04:05.999999999Z07:00"'
                    ' "2024-01-02T03:04:05.123456789+02:00") | toToml',
    "files_toJson": ".Files | toJson",
    "files_mustToJson": ".Files | mustToJson",
    "lone_surrogate_fromJson": 'fromJson "{\\"a\\":\\"\\\\ud800x\\\\udc00\\"}" | toJson',
    "lone_surrogate_mustFromJson": 'mustFromJson "{\\"a\\":\\"\\\\ud800x\\\\udc00\\"}" | toJson',
    "pair_fromJson": 'fromJson "{\\"a\\":\\"\\\\ud83d\\\\ude00\\"}" | toJson',
    "pair_mustFromJson": 'mustFromJson "{\\"a\\":\\"\\\\ud83d\\\\ude00\\"}" | toJson',
    "invalid_utf8_fromJson": '.Files.Get "bin.json" | fromJson | toJson',
    "invalid_utf8_mustFromJson": '.Files.Get "bin.json" | mustFromJson | toJson',
    "eof_fromJson": 'fromJson "[12." | toJson',
    "max_depth_fromJson": 'fromJson (repeat 10001 "[") | toJson',
    "non_ascii_fromJson": 'fromJson "é" | toJson',
}


def test_json_functions_print_what_helm_prints_where_the_encoders_disagreed(tmp_path):
    helmbin.require_helm()
    lines = [f"{key}: {{{{ {expr} | b64enc }}}}" for key, expr in DISAGREEMENTS.items()]
    root = write_chart(tmp_path / "dis", {"Chart.yaml": chart_yaml("dis"), "templates/t.yaml": "\n".join(lines) + "\n",
                                          "f/a.txt": "x", "f/a/b.txt": "y"})
    (root / "bin.txt").write_bytes(b"ab\xffcd")
    (root / "bin.json").write_bytes(b'{"a":"\xff\xfe"}')
    helm = helmbin.helm_template(root).split("# Source: dis/templates/t.yaml\n", 1)[1].rstrip("\n")
    ours = render_dir(root)["dis/templates/t.yaml"].rstrip("\n")

    def decoded(text: str) -> dict[str, str]:
        pairs = (line.split(": ", 1) for line in text.split("\n"))
        return {key: base64.b64decode(value).decode("utf-8", "backslashreplace") for key, value in pairs}

    helm_out, our_out = decoded(helm), decoded(ours)
    assert set(helm_out) == set(DISAGREEMENTS)
    mismatches = [f"{key}: helm {helm_out[key]!r} ours {our_out.get(key)!r}" for key in DISAGREEMENTS
                  if helm_out[key] != our_out.get(key)]
    assert not mismatches, "\n".join(mismatches)


# The checks by string methods and narrower classes against the patterns they stand in for.
_OLD_NEEDS_ESCAPE = {True: re.compile(r'[\x00-\x1f"\\<>&\u2028\u2029\ud800-\udfff]'),
                     False: re.compile(r'[\x00-\x1f"\\\u2028\u2029\ud800-\udfff]')}
_OLD_SURROGATES = re.compile(r"[\ud800-\udfff]|\\u[dD][89abAB]")
_WIDE = ["\u00e9", "\u2028", "\u2029", "\ud800", "\udbff", "\udc00", "\udfff", "\ue000", "\U00010000", "\u0100"]


def test_quote_string_finds_what_to_escape_as_the_one_class_did():
    chars = [chr(c) for c in range(128)] + _WIDE
    texts = [*chars, *("a" + c + "b" for c in chars), *(a + b for a in chars for b in chars), "", "plain text"]
    for escape_html in (True, False):
        escapes = gojson._escapes(escape_html)
        for text in texts:
            old = text.translate(escapes) if _OLD_NEEDS_ESCAPE[escape_html].search(text) else text
            assert gojson.quote_string(text, escape_html=escape_html) == '"' + old + '"', ascii(text)


def test_decoded_text_replaces_surrogates_as_the_pattern_did():
    pieces = ["a", "\\u0041", "\\ud800", "\\uDBFF", "\\udc00x", "\\\\ud800", "\u00e9", "\\u00e9", "\ud800", "\\n"]
    for a in pieces:
        for b in pieces:
            text = f'["{a}{b}", {{"{b}": "{a}"}}]'
            try:
                plain = json.loads(text)
            except ValueError:
                continue
            old = gojson._replace_surrogates(plain) if _OLD_SURROGATES.search(text) else plain
            assert gojson._decoded(text) == old, ascii(text)


def test_copy_tree_copies_maps_and_lists_and_shares_the_rest():
    class Table(dict):
        pass

    class Items(list):
        pass

    shared = {"x": [1.0]}
    inner = ("tuple", [2.0])  # a tuple is a scalar here: shared, as it was
    value = {"a": shared, "b": shared, "c": [shared, "s", None, True, 3, 4.5, inner],
             "d": Table(e=Items([{"f": "g"}])), "h": [[{}], []], "i": {}}
    copied = gojson.copy_tree(value)
    assert copied == value
    # every map and list is new, and two places that shared one get one each
    def containers(tree, seen):
        if isinstance(tree, (dict, list)):
            seen.append(tree)
            for item in tree.values() if isinstance(tree, dict) else tree:
                containers(item, seen)
        return seen
    before, after = containers(value, []), containers(copied, [])
    assert len(before) == len(after)
    assert not {id(c) for c in before} & {id(c) for c in after}
    assert copied["a"] is not copied["b"] and copied["c"][0] is not copied["a"]
    assert copied["c"][6] is inner and copied["c"][1] is value["c"][1]
    # subclasses come out as plain maps and lists
    assert type(copied["d"]) is dict and type(copied["d"]["e"]) is list
    assert gojson.copy_tree(Items([1])) == [1] and type(gojson.copy_tree(Items([1]))) is list
    assert gojson.copy_tree("text") == "text" and gojson.copy_tree(None) is None
