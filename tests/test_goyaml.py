"""goyaml: Helm's YAML reading (values, fromYaml) and writing (toYaml), checked against helm."""
from __future__ import annotations

import itertools
import json
import math
import random
from pathlib import Path

import pytest

from helm_core.golib import gojson, gotypes, goyaml, goyaml_rules
from helm_core.errors import ValuesError
from helm_core.support import deepstack
from tests.engine import helmbin


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a: 1", {"a": 1.0}),
        ("a: 0x10", {"a": 16.0}),
        ("a: 017", {"a": 15.0}),
        ("a: 0o17", {"a": 15.0}),
        ("a: 0b101", {"a": 5.0}),
        ("a: 1_000", {"a": 1000.0}),
        ("a: 1e3", {"a": 1000.0}),
        ("a: .5", {"a": 0.5}),
        ("a: +.5", {"a": 0.5}),
        ("a: 1e400", {"a": "1e400"}),
        ("a: 123456789012345678901234", {"a": 1.2345678901234568e23}),
        # Too long for int64, uint64 and float64: yaml.v2 keeps the text (Python would refuse
        # to convert 5000 decimal digits at all).
        ("a: " + "9" * 5000, {"a": "9" * 5000}),
        ("a: -" + "1" * 5000, {"a": "-" + "1" * 5000}),
        ("a: 0x" + "f" * 5000, {"a": "0x" + "f" * 5000}),
        ("a: " + "9" * 300, {"a": 1e300}),
        ("a: 0x" + "0" * 5000 + "1", {"a": 1.0}),
        ("a: yes", {"a": True}),
        ("a: Off", {"a": False}),
        ("a: ~", {"a": None}),
        ("a: 2020-01-01", {"a": "2020-01-01"}),
        ("a: 2020-01-01T10:00:00Z", {"a": "2020-01-01T10:00:00Z"}),
        ("a: '1'", {"a": "1"}),
        ("a: !!str 1", {"a": "1"}),
        ("a: <<", {"a": "<<"}),
        ("y: 1", {"true": 1.0}),
        ("{1: a, 1.5: b, true: c, 0x10: d, 1e3: e, 123456789.123: f}",
         {"1": "a", "1.5": "b", "true": "c", "16": "d", "1000": "e", "1.2345679e+08": "f"}),
        ("{a: 1, <<: {a: 2, b: 3}}", {"a": 2.0, "b": 3.0}),
        ("{<<: {a: 2, b: 3}, a: 1}", {"a": 1.0, "b": 3.0}),
        ("{<<: [{a: 2, c: 1}, {a: 3, d: 4}], b: 1}", {"a": 2.0, "b": 1.0, "c": 1.0, "d": 4.0}),
        ("a: &x [1]\nb: *x", {"a": [1.0], "b": [1.0]}),
        ("a: 1\n---\nb: 2", {"a": 1.0}),
        ("", None),
    ],
    ids=lambda v: repr(v)[:40],
)
def test_load_types_values_as_helm_does(text, expected):
    assert goyaml.load(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: [1, 2\nb: 3\n", "v.yaml: error converting YAML to JSON: yaml: line 1: did not find expected ',' or ']'"),
        ("n: {~: 1}", "v.yaml: error converting YAML to JSON: unsupported map key of type: %!s(<nil>), key: <nil>, value: 1"),
        ("a: !!int x", "v.yaml: error converting YAML to JSON: yaml: cannot decode !!str `x` as a !!int"),
    ],
    ids=["syntax", "null-key", "bad-tag"],
)
def test_load_errors_carry_go_text(text, message):
    with pytest.raises(ValueError) as info:
        goyaml.load(text, source="v.yaml")
    assert str(info.value) == message


def test_load_values_rejects_a_list():
    with pytest.raises(ValuesError) as err:
        goyaml.load_values("- a\n", context="cannot load values.yaml")
    assert str(err.value) == ("cannot load values.yaml: error unmarshaling JSON: while decoding JSON: json: "
                              "cannot unmarshal array into Go value of type map[string]interface {}")  # helm's


def test_decode_all_returns_every_document():
    assert goyaml.decode_all("a: 1\n---\n- 2\n") == [{"a": 1.0}, [2.0]]


def test_an_anchor_defined_again_names_the_later_node_in_every_document():
    """yaml.v2 keeps the latest definition (PyYAML's composer refuses it): the documents before,
    the one with it and those after read alike; anchors stay in their document."""
    text = "a: &x 1\nb: *x\n---\nb: &x 1\nc: &x 2\nd: *x\n---\ne: &x 3\nf: *x\n"
    assert goyaml.decode_all(text) == [{"a": 1.0, "b": 1.0}, {"b": 1.0, "c": 2.0, "d": 2.0}, {"e": 3.0, "f": 3.0}]
    assert goyaml.decode(text.split("---\n", 1)[1]) == {"b": 1.0, "c": 2.0, "d": 2.0}
    with pytest.raises(ValueError, match="^error converting YAML to JSON: yaml: unknown anchor 'x' referenced$"):
        goyaml.decode_all("a: &x 1\nb: &x 2\n---\nc: *x\n")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("foo", "foo\n"),
        (1000000.0, "1000000\n"),
        (1e20, "1e+20\n"),
        (1.2345678901234567e19, "12345678901234567000\n"),
        (1e-7, "1e-07\n"),
        (1500000.5, "1.5000005e+06\n"),
        (None, "null\n"),
        ("2020-01-01", '"2020-01-01"\n'),
        ("1:20", '"1:20"\n'),
        ("yes", '"yes"\n'),
        ("<<", "<<\n"),
        ("0x1F", '"0x1F"\n'),
        ("a: b", "'a: b'\n"),
        ([], "[]\n"),
        ({}, "{}\n"),
        ("line1\nline2\n", "|\n  line1\n  line2\n"),
        ("\n", "|2+\n\n"),
        ({"a\nb": 1.0}, "? |-\n  a\n  b\n: 1\n"),
        ("a\x85b", "a b\n"),
        ({"b10": 1, "b9": 2, "B": 3, "_": 4, "a": [1, {"x": "y"}]}, "_: 4\nB: 3\na:\n- 1\n- x: \"y\"\nb9: 2\nb10: 1\n"),
        (("word " * 30).strip(), "word word word word word word word word word word word word word word word word word\n"
                                 "  word word word word word word word word word word word word word\n"),
        (b"hi", "aGk=\n"),
        (b"\xffab".decode("utf-8", "surrogateescape"), "\ufffdab\n"),
        ("\ufeff\"ab", '"\\uFEFF\\"\\x61\\x62"\n'),
        ({"\ufeffk\n": 1.0}, '? "\\uFEFF\\x6B\\n"\n: 1\n'),
        ("\u2028", "'\u2028'\n"),
        ('"\n\n\u2028', '|+\n  "\n\n\u2028'),
    ],
    ids=lambda v: repr(v)[:30],
)
def test_dump_matches_sigs_k8s_yaml(value, expected):
    assert goyaml.dump(value) == expected


def test_dump_keys_its_texts_by_types_and_content():
    """A warm process reads toYaml texts back by the value's digest: values that differ only
    in type, nesting or key order print their own text, twice in a row."""
    values = [{"a": 1.0}, {"a": 1}, {"a": True}, {"a": "1"}, {"a": None}, {"a": [1.0]}, {"a": {"b": 1.0}},
              {"a": 1.0, "b": 2.0}, {"b": 2.0, "a": 1.0}, {"a": 0.0}, {"a": -0.0}, {"a": 1.5},
              {"a": b"1"}, {"a": (1.0,)}, {"a": gotypes.Int64(1)}, {"a": 10**20}]
    first = [goyaml.dump(value) for value in values]
    assert [goyaml.dump(value) for value in values] == first
    assert first[0] == "a: 1\n" and first[2] == "a: true\n" and first[3] == 'a: "1"\n'
    assert first[7] == first[8] == "a: 1\nb: 2\n"  # different keys, the same text
    assert first[11] == "a: 1.5\n" and first[12] == "a: MQ==\n"
    deep: list[object] = []
    for _ in range(3000):  # deeper than marshal writes (renders run on a deep stack)
        deep = [deep]
    text = deepstack.run(lambda: goyaml.dump(deep))
    assert text == deepstack.run(lambda: goyaml.dump(deep)) == "- " * 3000 + "[]\n"


def test_dumped_texts_stay_within_their_bound():
    texts = goyaml._Texts(max_chars=80)
    assert texts.keep("big", "x" * 11) == "x" * 11 and "big" not in texts  # over an eighth: not kept
    for i in range(8):
        texts.keep(f"k{i}", "y" * 10)
    assert len(texts) == 8 and texts.chars == 80
    assert texts.keep("k8", "z" * 10) == "z" * 10
    assert dict(texts) == {"k8": "z" * 10} and texts.chars == 10  # past the bound: started again


def test_decodes_are_kept_by_their_text_and_each_caller_gets_its_own_copy():
    first = goyaml.decode("a: [1, 2]\nb: x\n")
    first["a"].append(3)
    assert goyaml.decode("a: [1, 2]\nb: x\n") == {"a": [1.0, 2.0], "b": "x"}
    assert goyaml.decode(b"a: [1, 2]\nb: x\n") == {"a": [1.0, 2.0], "b": "x"}
    assert goyaml.decode("a: [1, 2]\nb: z\n") == {"a": [1.0, 2.0], "b": "z"}


def test_dump_of_nan_is_a_json_error():
    with pytest.raises(gojson.JSONError, match="json: unsupported value: NaN"):
        goyaml.dump({"a": math.nan})


# --- live comparison with helm on random values --------------------------------------

_ATOMS = [" ", " ", ":", "-", "#", '"', "'", "\n", "\t", "{", "}", "[", "]", ",", "&", "*", "!", "|",
          ">", "%", "@", "`", "?", "y", "n", "on", "no", "true", "null", "~", "0", "1", "12", ".",
          "e", "é", "\x85", "\r", "\x00", "\\", "\ufeff", "\u2028", "word", "longerword", "x" * 30, "0x1F", "0o7", "1e3",
          "_", "2020-01-02", "12:30", "=", "<<", "\u00a0", "😀", "  ", "\n\n", " \n", "\n "]
FUZZ_CASES = 400
FUZZ_SEED = 20261123


def _random_value(rng: random.Random, depth: int = 0):
    r = rng.random()
    if depth < 3 and r < 0.15:
        return {_random_string(rng): _random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))}
    if depth < 3 and r < 0.25:
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    if r < 0.3:
        return rng.choice([1, 1.5, 1e20, 1e21, 1e-7, 123456789, 1500000.5, 0, 1e6, True, False, None])
    return _random_string(rng)


def _random_string(rng: random.Random) -> str:
    return "".join(rng.choice(_ATOMS) for _ in range(rng.choice([1, 2, 3, 5, 8, 15, 30])))


def _fuzz_chart(tmp_path: Path, template: str, cases: list) -> Path:
    chart = tmp_path / "fz"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: fz\nversion: 0.1.0\n")
    (chart / "templates" / "t.yaml").write_text(template)
    text = json.dumps({"cases": cases}, ensure_ascii=False).replace("\x85", "\\u0085").replace("\u2028", "\\u2028")
    (tmp_path / "values.json").write_text(text)
    return chart


def _helm_outputs(chart: Path, values: Path) -> dict[int, str]:
    import base64

    out = helmbin.helm_template(chart, "-f", str(values))
    got = {}
    for line in out.split("\n"):
        if line.startswith("c") and ": " in line:
            key, val = line.split(": ", 1)
            got[int(key[1:])] = base64.b64decode(json.loads(val)).decode()
    return got


def test_dump_and_load_agree_with_helm_on_random_values(tmp_path):
    helmbin.require_helm()
    rng = random.Random(FUZZ_SEED)
    cases = [_random_value(rng) for _ in range(FUZZ_CASES)]
    template = '{{- range $i, $v := .Values.cases }}\nc{{ $i }}: {{ toYaml $v | b64enc | quote }}\n{{- end }}\n'
    chart = _fuzz_chart(tmp_path, template, cases)
    helm = _helm_outputs(chart, tmp_path / "values.json")
    loaded = goyaml.load((tmp_path / "values.json").read_text())["cases"]
    mismatches = []
    for i, case in enumerate(loaded):
        try:
            mine = goyaml.dump(case).removesuffix("\n")
        except ValueError:
            mine = ""
        if helm.get(i) != mine:
            mismatches.append(f"case {i} {case!r}:\n helm {helm.get(i)!r}\n ours {mine!r}")
    assert not mismatches, "\n".join(mismatches[:5])


def test_json_of_loaded_values_agrees_with_helm_on_random_values(tmp_path):
    helmbin.require_helm()
    rng = random.Random(FUZZ_SEED + 1)
    cases = [_random_value(rng) for _ in range(FUZZ_CASES)]
    template = '{{- range $i, $v := .Values.cases }}\nc{{ $i }}: {{ toJson $v | b64enc | quote }}\n{{- end }}\n'
    chart = _fuzz_chart(tmp_path, template, cases)
    helm = _helm_outputs(chart, tmp_path / "values.json")
    loaded = goyaml.load((tmp_path / "values.json").read_text())["cases"]
    mismatches = [
        f"case {i}: helm {helm.get(i)!r} ours {gojson.dumps(case)!r}"
        for i, case in enumerate(loaded) if helm.get(i) != gojson.dumps(case)
    ]
    assert not mismatches, "\n".join(mismatches[:5])


# Snippets where YAML 1.1 typing, tags, anchors, merges, keys and errors bite.
TRICKY_YAML = [
    "a: 1", "a: 1.0", "a: -1", "a: +1", "a: 0.", "a: .5", "a: -.5", "a: 1e3", "a: 1E3", "a: 1e+3", "a: 1.5e-3",
    "a: 0x1F", "a: 0X1F", "a: -0x1F", "a: 0o17", "a: 017", "a: 08", "a: 0b101", "a: -0b101", "a: 1_000", "a: 1__0",
    "a: 12:30", "a: 190:20:30", "a: 1:2.5", "a: .inf", "a: -.Inf", "a: .NaN", "a: 9223372036854775807",
    "a: 9223372036854775808", "a: 18446744073709551615", "a: 18446744073709551616", "a: -9223372036854775809",
    "a: y", "a: Y", "a: yes", "a: YES", "a: yEs", "a: n", "a: on", "a: Off", "a: true", "a: TRUE", "a: tRUE",
    "a: ~", "a: null", "a: Null", "a: NULL", "a:", "a: ''", 'a: ""', "a: 2001-12-14", "a: 2001-12-14t21:59:43.10-05:00",
    "a: 2001-12-14 21:59:43.10 -5", "a: 2002-12-14T00:00:00Z", "a: 2002-13-14", "a: 2002-02-30",
    "a: !!str 1", "a: !!int '1'", "a: !!float 1", "a: !!bool yes", "a: !!null ''", "a: !!binary aGVsbG8=",
    "a: !custom x", "a: !!timestamp 2001-12-14", "a: !!float abc", "a: !!int 1.5",
    "a: |\n  x\n  y\n", "a: >\n  x\n  y\n\n  z\n", "a: |-\n  x\n", "a: |+\n  x\n\n", "a: |2\n   x\n", "a: >-\n  long\n  text\n",
    "a: 'it''s'", 'a: "tab\\there"', 'a: "\\u00e9\\x41\\N\\_"', "a: multi\n  line\n  plain", "a: 'multi\n  line'",
    "a: [1, 2, [3, {b: c}]]", "a: {b: 1, c: [x, y]}", "a: {b, c}", "a: [b: 1, c]", "{a: 1, a: 2}", "a: 1\na: 2",
    "? complex\n: value", "? [a, b]\n: v", "? {a: 1}\n: v", "[1, 2]: v", "1: a\n2: b", "1.5: a", "true: a", "~: a",
    "0x10: a", "1e3: a", "0.1: a", "123456789.123: a", "2001-12-14: a", "yes: a", "null: a", "'null': a",
    "a: &x 1\nb: *x", "a: &x {c: 1}\nb:\n  <<: *x\n  d: 2", "a: &x {c: 1}\nb:\n  d: 2\n  <<: *x", "b: {<<: [{c: 1}, {c: 2, d: 3}]}",
    "b: {c: 0, <<: {c: 1}}", "b: {<<: 1}", "b: *undefined", "a: &x [1, *x]", "<<: {a: 1}", "'<<': 1",
    "a: 1\n---\nb: 2", "---\na: 1\n...\n", "--- !!map\na: 1", "%YAML 1.1\n---\na: 1", "%TAG ! tag:x,2000:\n---\na: !foo 1",
    "# comment\na: 1 # trailing", "a: 'x' # c", "a: x#y", "a: x #y", "a:\t1", "a:  \t 1", "\ta: 1", "a: [1,\n  2,\n  3]",
    "- 1\n- 2", "just a string", "123", "", "   ", "# only comment", "[", "{", "a: [", "a: {", "a: 'x", 'a: "x', "a: b: c",
    "a:\n- 1\n - 2", "a:\n  - 1\n  -2", "a: - 1", "- a\nb: 1", "a: @x", "a: `x", "a: %x", "a: |\n x\n  y", "a:\n  b: 1\n c: 2",
    "a: !!map\n  b: 1", "a: !!seq [1]", "a: !!omap\n  - b: 1", "a: !!set {b}", "a: '\\n'", 'a: "\\n"', "a: \"\\q\"",
    "a: 'long line that goes on and on and on and on and on and on and on and on and on and on and on'",
    "a: \u00e9\u00e8", "é: 1", "a: \U0001F600", "a: \"\\U0001F600\"", "a: 1\r\nb: 2\r\n", "a: x\u2028y", "a: x\u0085y",
    "\ufeffa: 1", "a: '\ufeff'", "a:\n  b:\n    c:\n      d: [1, {e: [f, {g: h}]}]", "a: [a, b,]", "a: {a: 1,}",
    "a: 0o8", "a: 0x", "a: +", "a: -", "a: .", "a: ..", "a: 1.2.3", "a: 1e", "a: e3", "a: +.inf", "a: -0", "a: +0.0",
    "a: 0.0000001", "a: 1e21", "a: 100000000000000000000", "a: 1.0e+21", "a: 3.", "a: 1_0.5", "a: 0_1", "a: 0b", "a: 0b2",
    # anchors merged into themselves, anchors defined again (an alias names the latest before it)
    "a: &x\n  b: 1\n  <<: *x", "a: &x\n  b: 1\n  c:\n    <<: [*x]", "a: &x 1\nb: &x 2\nc: *x",
    "a: &x\n  b: &x 1\n  c: *x\nd: *x", "a: &x [1]\nb: &x\n  c: *x", "a: &x 1\nb: *x\nc: &x 2\nd: *x",
    "a: &x 1\nb: &x [*x]", "a: &x\n  b: &x 1\n  c: *x\n  d: &y\n    e: *y", "a: &x 1\nb: &x 2\nc: *y",
    "a: &x 1\nb: &x 2\nc: [", "a: &x {k: 1}\nb: &x {k: 2}\nc: {<<: *x}", "a: &x 1\nb: {c: &x 2, d: *x}",
    # an alias to a list of maps is no merge value; an alias is no merge key
    "a: &x [{b: 1}]\nc:\n  <<: *x", "a: &x [{b: 1}]\nc:\n  <<: [*x]", "k: &k <<\nb:\n  *k : {c: 1}",
]


def test_from_yaml_agrees_with_helm_on_tricky_documents(tmp_path):
    from helm_core.engine import helm_funcs

    helmbin.require_helm()
    template = '{{- range $i, $v := .Values.cases }}\nc{{ $i }}: {{ toJson (fromYaml $v) | b64enc | quote }}\n{{- end }}\n'
    chart = _fuzz_chart(tmp_path, template, TRICKY_YAML)
    helm = _helm_outputs(chart, tmp_path / "values.json")
    mismatches = [f"{case!r}: helm {helm.get(i)} ours {gojson.dumps(helm_funcs.from_yaml(case))}"
                  for i, case in enumerate(TRICKY_YAML) if helm.get(i) != gojson.dumps(helm_funcs.from_yaml(case))]
    assert not mismatches, "\n".join(mismatches[:5])


def aliasing_cases() -> list[str]:
    """Documents on both sides of yaml.v2's aliasing bound, whose running ratio counts every node
    decoded (the document, each alias node and its target, merged maps): more aliases to a
    sequence of aliases, plain entries before them (each pair moves the ratio), merges of
    aliases inside an alias's expansion."""
    def aliases(name: str, count: int) -> str:
        return "[" + ", ".join([f"*{name}"] * count) + "]"

    levels = f"l0: &l0 [a, b, c, d, e, f, g, h]\nl1: &l1 {aliases('l0', 9)}\nl2: &l2 {aliases('l1', 9)}\n"
    merges = ("s: &s {a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8}\nm: &m {<<: *s, z: {<<: [*s, *s]}}\n"
              f"n: &n {aliases('m', 9)}\n")
    cases = [levels + f"t: {aliases('l2', count)}\n" for count in range(2, 7)]
    cases += [levels + "".join(f"p{i}: 1\n" for i in range(pairs)) + f"t: {aliases('l2', 4)}\n" for pairs in range(5)]
    cases += [merges + f"t: {aliases('n', count)}\n" for count in range(6, 11)]
    return cases


def test_the_aliasing_bound_agrees_with_helm(tmp_path):
    from helm_core.engine import helm_funcs

    helmbin.require_helm()
    cases = aliasing_cases()
    template = '{{- range $i, $v := .Values.cases }}\nc{{ $i }}: {{ toJson (fromYaml $v) | b64enc | quote }}\n{{- end }}\n'
    helm = _helm_outputs(_fuzz_chart(tmp_path, template, cases), tmp_path / "values.json")
    ours = [gojson.dumps(helm_funcs.from_yaml(case)) for case in cases]
    assert [i for i, mine in enumerate(ours) if helm.get(i) != mine] == []
    refused = [i for i in range(len(cases)) if "excessive aliasing" in helm[i]]
    # each family crosses the bound: between 3 and 4 aliases, 1 and 2 plain pairs, 8 and 9 aliases
    assert refused == [2, 3, 4, 5, 6, 13, 14]


def test_dump_pretty_agrees_with_helm_to_yaml_pretty_on_random_values(tmp_path):
    helmbin.require_helm()
    rng = random.Random(FUZZ_SEED + 2)
    cases = [_random_value(rng) for _ in range(FUZZ_CASES)]
    template = '{{- range $i, $v := .Values.cases }}\nc{{ $i }}: {{ toYamlPretty $v | b64enc | quote }}\n{{- end }}\n'
    chart = _fuzz_chart(tmp_path, template, cases)
    helm = _helm_outputs(chart, tmp_path / "values.json")
    loaded = goyaml.load((tmp_path / "values.json").read_text())["cases"]
    mismatches = []
    for i, case in enumerate(loaded):
        mine = goyaml.dump_pretty(case).removesuffix("\n")
        if helm.get(i) != mine:
            mismatches.append(f"case {i} {case!r}:\n helm {helm.get(i)!r}\n ours {mine!r}")
    assert not mismatches, "\n".join(mismatches[:5])


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (b"\xff\xfe\x00\x01abc\xc3\xa9".decode("utf-8", "surrogateescape"), "!!binary //4AAWFiY8Op\n"),
        ({"k": (b"\xff" * 60).decode("utf-8", "surrogateescape")},
         "k: !!binary |\n  " + "/" * 70 + "\n  " + "/" * 10 + "\n"),
    ],
    ids=["short-plain", "long-literal"],
)
def test_dump_pretty_writes_invalid_utf8_as_binary(value, expected):
    assert goyaml.dump_pretty(value) == expected


def test_float_pattern_is_asked_only_of_text_it_could_match():
    """goyaml_rules skips the float pattern for text with a character it cannot match."""
    pattern = goyaml_rules._YAML_STYLE_FLOAT()
    chars = "+-.09eE\nx_ "
    for text in ("".join(t) for n in range(7) for t in itertools.product(chars, repeat=n)):
        if pattern.match(text):
            assert goyaml_rules._FLOAT_CHARS.issuperset(text), repr(text)
