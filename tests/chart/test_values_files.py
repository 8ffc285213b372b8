"""Flux's valuesFiles: files the chart carries, merged in order over nothing (values.yaml only when
listed), become the chart's default values; source-controller's rules and error words."""
from __future__ import annotations

import pytest

from helm_core import errors
from helm_core.chart import loader
from helm_core.chart.values import merge_maps
from helm_core.chart.values_files import ValuesFiles, from_spec, with_values_files
from tests.chartkit import chart_yaml, write_chart


def _chart(tmp_path, **files: str):
    return loader.load(write_chart(tmp_path / "c", {"Chart.yaml": chart_yaml("c"), **files}))


def test_maps_merge_key_by_key_and_anything_else_replaces() -> None:
    base = {"a": {"b": 1, "c": [1, 2]}, "d": "x", "e": {"f": 1}}
    over = {"a": {"c": [3], "g": None}, "d": {"now": "a map"}, "e": "flat"}
    assert merge_maps(base, over) == {"a": {"b": 1, "c": [3], "g": None}, "d": {"now": "a map"}, "e": "flat"}
    assert base == {"a": {"b": 1, "c": [1, 2]}, "d": "x", "e": {"f": 1}}  # inputs untouched


def test_listed_files_replace_values_yaml_in_order(tmp_path) -> None:
    chart = _chart(tmp_path, **{"values.yaml": "replicas: 1\nimage: {tag: v1, repo: r}\n",
                                "values-prod.yaml": "replicas: 3\nimage: {tag: v2}\n",
                                "env/extra.yaml": "extra: true\n"})
    prod = with_values_files(chart, ValuesFiles(paths=("values-prod.yaml", "./env/extra.yaml")))
    assert prod.values == {"replicas": 3, "image": {"tag": "v2"}, "extra": True}  # values.yaml not listed
    both = with_values_files(chart, ValuesFiles(paths=("values.yaml", "values-prod.yaml")))
    assert both.values == {"replicas": 3, "image": {"tag": "v2", "repo": "r"}}
    assert b"repo: r" in both.raw_values  # what show values and the stored chart read
    assert chart.values == {"replicas": 1, "image": {"tag": "v1", "repo": "r"}}  # the loaded chart is left alone
    assert with_values_files(chart, None) is chart and with_values_files(chart, ValuesFiles()) is chart


def test_numbers_are_typed_as_values_yaml_types_them(tmp_path) -> None:
    chart = _chart(tmp_path, **{"v.yaml": "n: 3\nbig: 12345678901234567890\n"})
    assert with_values_files(chart, ValuesFiles(paths=("v.yaml",))).values == \
        loader.load(write_chart(tmp_path / "d", {"Chart.yaml": chart_yaml("d"), "values.yaml": "n: 3\nbig: 12345678901234567890\n"})).values


def test_missing_and_broken_files_fail_with_source_controllers_words(tmp_path) -> None:
    chart = _chart(tmp_path, **{"bad.yaml": "a: [\n", "charts/sub/Chart.yaml": chart_yaml("sub"),
                                "charts/sub/values.yaml": "x: 1\n"})
    with pytest.raises(errors.ValuesError) as missing:
        with_values_files(chart, ValuesFiles(paths=("nope.yaml",)))
    assert str(missing.value) == "failed to merge chart values: no values file found at path 'nope.yaml'"
    with pytest.raises(errors.ValuesError, match="no values file found at path 'charts/sub/values.yaml'"):
        with_values_files(chart, ValuesFiles(paths=("charts/sub/values.yaml",)))  # a subchart's is not the chart's
    assert with_values_files(chart, ValuesFiles(paths=("nope.yaml",), ignore_missing=True)).values == {}
    with pytest.raises(errors.ValuesError) as broken:
        with_values_files(chart, ValuesFiles(paths=("bad.yaml",)))
    assert str(broken.value).startswith("failed to merge chart values: unmarshaling values from 'bad.yaml' "
                                        "failed: error converting YAML to JSON: yaml: line")


def test_from_spec() -> None:
    assert from_spec(None) is None and from_spec({"valuesFiles": []}) is None
    assert from_spec({"valuesFiles": ["a.yaml"], "ignoreMissingValuesFiles": True}) == \
        ValuesFiles(paths=("a.yaml",), ignore_missing=True)
    with pytest.raises(errors.ValuesError, match="spec.chart.valuesFiles"):
        from_spec({"valuesFiles": [""]})
