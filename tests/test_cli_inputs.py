"""Hostile or extreme user and chart inputs through the CLI: Helm's answer, or one error line.

The depths are the ones Helm accepts: yaml.v2 nests 10000 flow levels, Go's JSON decoder
10000, and Helm's --set parser has no limit at all on ``a[0][0]...``.
"""
from __future__ import annotations

import os

import pytest

from helm_core import cli
from tests.chartkit import chart_yaml, write_chart

#: Nine lists of nine aliases of the list before: 9**9 strings once expanded ("billion laughs").
ALIAS_BOMB = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{name}: &{name} [{', '.join(['*' + prev] * 9)}]\n" for prev, name in zip("abcdefgh", "bcdefghi"))


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _chart(tmp_path, values: str = "", template: str = "v: {{ toJson .Values.deep }}\n", **files: str):
    return write_chart(tmp_path / "c", {"Chart.yaml": chart_yaml(), "values.yaml": values,
                                        "templates/t.yaml": template, **files})


def test_values_nested_9999_levels_under_a_key_render_as_helm(capsys, tmp_path):
    nested = "[" * 9_999 + "1" + "]" * 9_999
    root = _chart(tmp_path, f"deep: {nested}\n")
    code, out, err = run(capsys, "template", "r", str(root))
    assert (code, err) == (0, "")
    assert out == f"---\n# Source: demo/templates/t.yaml\nv: {nested}\n"


def test_values_one_level_deeper_fail_helms_json_step(capsys, tmp_path):
    # yaml.v2 reads 10000 flow levels, but the document's JSON (one more: the top map)
    # is past Go's decoder limit of 10000.
    root = _chart(tmp_path, "deep: " + "[" * 10_000 + "]" * 10_000 + "\n")
    code, out, err = run(capsys, "template", "r", str(root))
    assert (code, out) == (1, "")
    assert err == ("Error: cannot load values.yaml: error unmarshaling JSON: while decoding JSON: "
                   "invalid character '[' exceeded max depth\n")


@pytest.mark.parametrize(("prefix", "where"), [("deep: ", ""), ("x: 1\ndeep:\n  ", "line 3: ")], ids=["line-1", "line-3"])
def test_values_nested_past_yaml_v2_limit_is_its_error(capsys, tmp_path, prefix, where):
    root = _chart(tmp_path, prefix + "[" * 10_001 + "]" * 10_001 + "\n")
    code, out, err = run(capsys, "template", "r", str(root))
    assert (code, out) == (1, "")
    assert err == ("Error: cannot load values.yaml: error converting YAML to JSON: "
                   f"yaml: {where}exceeded max depth of 10000\n")


def test_block_values_nested_2000_levels_render(capsys, tmp_path):
    text = "deep:\n" + "".join(" " * (i + 1) + "k:\n" for i in range(2000)) + " " * 2001 + "v\n"
    root = _chart(tmp_path, text)
    code, out, err = run(capsys, "template", "r", str(root))
    assert (code, err) == (0, "")
    assert out.endswith("v: " + '{"k":' * 2000 + '"v"' + "}" * 2000 + "\n")


def test_huge_integer_in_values_stays_its_digits(capsys, tmp_path):
    # yaml.v2 cannot hold it as int64, uint64 or float64: it resolves to a string.
    digits = "9" * 5000  # past the 4300 digits Python converts
    root = _chart(tmp_path, f"big: {digits}\n", template="v: {{ .Values.big }} {{ kindOf .Values.big }}\n")
    code, out, err = run(capsys, "template", "r", str(root))
    assert (code, err) == (0, "")
    assert out == f"---\n# Source: demo/templates/t.yaml\nv: {digits} string\n"


def test_set_list_nested_30000_levels_is_parsed_and_reaches_the_template(capsys, tmp_path):
    # Helm's --set has no depth limit; the 60001 characters of JSON reach the output.
    root = _chart(tmp_path, template="v: {{ toJson .Values.deep | len }}\n")
    code, out, err = run(capsys, "template", "r", str(root), "--set", "deep" + "[0]" * 30_000 + "=1")
    assert (code, err) == (0, "")
    assert out == "---\n# Source: demo/templates/t.yaml\nv: 60001\n"


def test_rendered_yaml_nested_past_yaml_v2_limit_is_helms_parse_error(capsys, tmp_path):
    root = _chart(tmp_path)
    code, out, err = run(capsys, "template", "r", str(root), "--set", "deep" + "[0]" * 30_000 + "=1")
    assert (code, out) == (1, "")
    assert err == ("Error: YAML parse error on demo/templates/t.yaml: error converting YAML to JSON: "
                   "yaml: exceeded max depth of 10000\n\nUse --debug flag to render out invalid YAML\n")


def test_set_json_nested_past_go_json_limit_is_helms_error(capsys, tmp_path):
    root = _chart(tmp_path)
    value = "deep=" + "[" * 10_001 + "]" * 10_001
    code, out, err = run(capsys, "template", "r", str(root), "--set-json", value)
    assert (code, out, err) == (1, "", f"Error: failed parsing --set-json data {value}\n")


def test_alias_bomb_in_chart_yaml_is_refused_in_helms_words(capsys, tmp_path):
    root = write_chart(tmp_path / "c", {"Chart.yaml": chart_yaml() + ALIAS_BOMB})
    code, out, err = run(capsys, "template", "r", str(root))
    assert (code, out) == (1, "")
    assert err == ("Error: cannot load Chart.yaml: error converting YAML to JSON: "
                   "yaml: document contains excessive aliasing\n")


def test_alias_bomb_in_values_yaml_is_refused_in_helms_words(capsys, tmp_path):
    root = _chart(tmp_path, ALIAS_BOMB)
    code, out, err = run(capsys, "template", "r", str(root))
    assert (code, out) == (1, "")
    assert err == ("Error: cannot load values.yaml: error converting YAML to JSON: "
                   "yaml: document contains excessive aliasing\n")


def test_symlink_loop_in_chart_folder_is_one_line(capsys, tmp_path):
    root = _chart(tmp_path)
    os.symlink("..", root / "templates" / "loop")
    code, out, err = run(capsys, "template", "r", str(root))
    assert (code, out) == (1, "")
    assert err == f"Error: {root}: symlink templates/loop points to {root}, a folder that contains it (a loop)\n"


def test_schema_and_values_nested_3000_levels_validate(capsys, tmp_path):
    nested_schema = '{"properties":{"a":' * 3000 + '{"type":"string"}' + "}}" * 3000
    root = _chart(tmp_path, template="v: ok\n", **{"values.schema.json": nested_schema})
    value = "a=" + '{"a":' * 2999 + "1" + "}" * 2999
    code, out, err = run(capsys, "template", "r", str(root), "--set-json", value)
    assert (code, out) == (1, "")
    assert err.startswith("Error: values don't meet the specifications of the schema(s) in the following "
                          "chart(s):\ndemo:\n- at '/a/a/")
    assert err.endswith("/a/a': got number, want string\n\n")
    code, out, err = run(capsys, "template", "r", str(root), "--set-json", value.replace("1", '"s"'))
    assert (code, out, err) == (0, "---\n# Source: demo/templates/t.yaml\nv: ok\n", "")


def test_alias_bomb_in_a_values_file_is_helms_error(capsys, tmp_path):
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(ALIAS_BOMB)
    code, out, err = run(capsys, "template", "r", str(_chart(tmp_path)), "-f", str(bomb))
    assert (code, out) == (1, "")
    assert err == (f"Error: failed to parse {bomb}: error converting YAML to JSON: "
                   "yaml: document contains excessive aliasing\n")


def test_to_yaml_pretty_writes_any_depth_where_to_yaml_gives_up(capsys, tmp_path):
    # helm 3.22 with deep[0]x30000=1: toYaml is "" (its JSON step re-reads past yaml.v2's
    # 10000 levels); toYamlPretty (yaml.v3's encoder, no limit) is 60001 characters.
    root = _chart(tmp_path, template="a: {{ toYaml .Values.deep | len }}\nb: {{ toYamlPretty .Values.deep | len }}\n"
                                     "c: {{ toYamlPretty .Values.deep | sha256sum }}\n")
    code, out, err = run(capsys, "template", "r", str(root), "--set", "deep" + "[0]" * 30_000 + "=1")
    assert (code, err) == (0, "")
    assert out == ("---\n# Source: demo/templates/t.yaml\na: 0\nb: 60001\n"
                   "c: f4fff4d349225773f33b0ceb0d93ccca2e70a075c59d9c352a1f03232676363a\n")
