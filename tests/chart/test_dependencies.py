"""Dependencies: conditions, tags, aliases, missing charts, import-values, library charts."""
from __future__ import annotations

import pytest

from helm_core.chart import loader, prepare
from helm_core.errors import ChartError, DependencyError, SchemaError
from tests.chartkit import chart_yaml, write_chart

PARENT = """apiVersion: v2
name: app
version: 1.0.0
dependencies:
  - name: db
    version: ">=1.0.0"
    condition: db.enabled,global.db
  - name: cache
    version: 2.x
    tags: [fast]
  - name: cache
    version: 2.x
    alias: cache2
    tags: [fast, extra]
"""


def _chart(tmp_path, parent=PARENT, extra=None):
    files = {
        "Chart.yaml": parent,
        "values.yaml": "db:\n  enabled: true\ncache2:\n  size: 2\n",
        "charts/db/Chart.yaml": chart_yaml("db", "1.4.0"),
        "charts/db/values.yaml": "port: 5432\nenabled: true\n",
        "charts/cache/Chart.yaml": chart_yaml("cache", "2.1.0"),
        "charts/cache/values.yaml": "size: 1\n",
    }
    files.update(extra or {})
    return loader.load(write_chart(tmp_path, files))


def _names(prepared):
    return sorted(c.name for c in prepared.chart.dependencies)


def test_alias_uses_one_chart_twice_with_scoped_values(tmp_path):
    p = prepare.prepare_chart(_chart(tmp_path), {})
    assert _names(p) == ["cache", "cache2", "db"]
    assert p.values["cache"]["size"] == 1.0 and p.values["cache2"]["size"] == 2.0
    assert p.values["db"]["port"] == 5432.0


def test_condition_false_disables(tmp_path):
    p = prepare.prepare_chart(_chart(tmp_path), {"db": {"enabled": False}})
    assert _names(p) == ["cache", "cache2"]


def test_first_condition_path_that_resolves_wins(tmp_path):
    parent = PARENT.replace("condition: db.enabled,global.db", "condition: nope.missing,global.db,db.enabled")
    p = prepare.prepare_chart(_chart(tmp_path, parent), {"global": {"db": False}})
    assert "db" not in _names(p)


def test_non_bool_condition_is_ignored(tmp_path):
    p = prepare.prepare_chart(_chart(tmp_path), {"db": {"enabled": "no"}})
    assert "db" in _names(p)


def test_tags_false_disables_unless_another_tag_true(tmp_path):
    p = prepare.prepare_chart(_chart(tmp_path), {"tags": {"fast": False}})
    assert _names(p) == ["db"]
    p = prepare.prepare_chart(_chart(tmp_path), {"tags": {"fast": False, "extra": True}})
    assert _names(p) == ["cache2", "db"]


def test_condition_wins_over_tags(tmp_path):
    parent = PARENT.replace("    tags: [fast]\n", "    tags: [fast]\n    condition: cache.on\n", 1)
    p = prepare.prepare_chart(_chart(tmp_path, parent), {"tags": {"fast": False}, "cache": {"on": True}})
    assert "cache" in _names(p)


def test_loaded_chart_is_not_modified_by_prepare(tmp_path):
    chart = _chart(tmp_path)
    prepare.prepare_chart(chart, {"db": {"enabled": False}})
    assert sorted(c.name for c in chart.dependencies) == ["cache", "db"]
    assert [d.name for d in chart.metadata.dependencies] == ["db", "cache", "cache"]


def test_missing_dependency_is_named(tmp_path):
    parent = PARENT + "  - name: queue\n    version: 1.0.0\n    repository: https://charts.example.com\n"
    with pytest.raises(DependencyError, match="You may need to run `helm dependency build` to fetch missing dependencies: found in Chart.yaml, but missing in charts/ directory: queue"):
        prepare.prepare_chart(_chart(tmp_path, parent), {})


def test_version_outside_range_is_not_matched(tmp_path):
    parent = PARENT.replace('version: ">=1.0.0"', 'version: "~2.0.0"')
    p = prepare.prepare_chart(_chart(tmp_path, parent), {})
    # Helm keeps an unmatched chart of charts/ enabled under its own name; the condition no longer applies.
    assert "db" in _names(p)


def test_globals_flow_down_not_up(tmp_path):
    chart = _chart(tmp_path, extra={"charts/db/values.yaml": "port: 5432\nglobal:\n  fromChild: 1\n"})
    p = prepare.prepare_chart(chart, {"global": {"env": "prod"}})
    assert p.values["db"]["global"]["env"] == "prod"
    assert "fromChild" not in p.values["global"]


def test_import_values_both_forms(tmp_path):
    parent = """apiVersion: v2
name: app
version: 1.0.0
dependencies:
  - name: db
    version: 1.x
    import-values:
      - data
      - child: default.conn
        parent: myimports
"""
    chart = _chart(tmp_path, parent, extra={
        "values.yaml": "myimports:\n  host: parent-wins\n",
        "charts/db/values.yaml": "exports:\n  data:\n    myint: 99\ndefault:\n  conn:\n    host: db\n    port: 5432\n",
    })
    p = prepare.prepare_chart(chart, {})
    assert p.values["myint"] == 99.0
    assert p.values["myimports"] == {"host": "parent-wins", "port": 5432.0}


def test_library_chart_cannot_be_rendered_alone(tmp_path):
    chart = loader.load(write_chart(tmp_path, {"Chart.yaml": chart_yaml("lib", type="library")}))
    with pytest.raises(ChartError, match="^library charts are not installable$"):
        prepare.prepare_chart(chart, {})


def test_subchart_schema_checked_only_when_enabled(tmp_path):
    extra = {"charts/db/values.schema.json": '{"properties": {"port": {"type": "string"}}}'}
    with pytest.raises(SchemaError, match=r"db:\n- at '/port': got number, want string"):
        prepare.prepare_chart(_chart(tmp_path, extra=extra), {})
    prepare.prepare_chart(_chart(tmp_path, extra=extra), {"db": {"enabled": False}})
