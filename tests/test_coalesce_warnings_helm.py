"""Helm's values-coalescing warnings (``pkg/chartutil/coalesce.go``, logged with ``log.Printf``
under ``log.Lshortfile``) on stderr, byte for byte as helm prints them: as many times as helm
coalesces (dependency processing, import-values, the render's values; lint's values rule and
its template rule twice), for a first run and for a run printed from helm-core's memo.

Go ranges over maps in random order, so each chart here conflicts at one key per map helm
ranges over: helm's stderr is then the same on every run.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from helm_core import cli
from tests import chartkit
from tests.test_cli_helm import Both

_ROOT = str(Path(cli.__file__).parents[2])
_V2 = "apiVersion: v2\nname: {name}\nversion: 0.1.0\n"
_CM = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-{{ .Chart.Name }}\n"
       "data:\n  values: {{ .Values | toJson | quote }}\n")


def _chart_yaml(name: str, *deps: str) -> str:
    text = _V2.format(name=name)
    if deps:
        text += "dependencies:\n" + "".join(f"- name: {d}\n  version: 0.1.0\n" for d in deps)
    return text


#: A parent whose values meet its subcharts' defaults with the other kind: a scalar over a
#: subchart's table (one), a table over its scalar (two), a table over a top-level scalar
#: (three); nested nulls and a float Go prints as 1e+06 for --set to conflict with.
CONFLICTS = {
    "Chart.yaml": _chart_yaml("p", "one", "two", "three"),
    "values.yaml": "nested: {a: {b: {c: null, d: 1000000}}}\n"
                   "one: {cfg: {a: 1}}\ntwo: {cfg: {a: {deep: [1, x]}}}\nthree: {name: {x: 1}}\n",
    "templates/cm.yaml": _CM,
    **{f"charts/{name}/Chart.yaml": _chart_yaml(name) for name in ("one", "two", "three")},
    "charts/one/values.yaml": "cfg: {a: {deep: 1}}\n",
    "charts/two/values.yaml": "cfg: {a: 2.5}\n",
    "charts/three/values.yaml": "name: plain\n",
    **{f"charts/{name}/templates/cm.yaml": _CM for name in ("one", "two", "three")},
}
#: A parent and one subchart, for globals that are not tables.
GLOBALS = {
    "Chart.yaml": _chart_yaml("p", "s"),
    "values.yaml": "global: {m: {a: 1}}\n",
    "templates/cm.yaml": _CM,
    "charts/s/Chart.yaml": _chart_yaml("s"),
    "charts/s/values.yaml": "own: 1\n",
    "charts/s/templates/cm.yaml": _CM,
}
#: One chart, no subchart: a table default with a null in it.
PLAIN = {
    "Chart.yaml": _chart_yaml("c"),
    "values.yaml": "a: {b: {c: null}}\nl: [1, 2]\nn: null\n",
    "templates/cm.yaml": _CM,
}

#: Dependency processing's own log lines: a tag that is not a boolean, import-values of tables
#: the subchart does not have (both forms).
DEPENDENCIES = {
    "Chart.yaml": _V2.format(name="p") + "dependencies:\n- name: s\n  version: 0.1.0\n  tags: [front]\n"
                  "  import-values:\n  - nothere\n  - {child: own, parent: mine}\n",
    "values.yaml": "tags: {front: 'yes'}\n",
    "templates/cm.yaml": _CM,
    "charts/s/Chart.yaml": _chart_yaml("s"),
    "charts/s/values.yaml": "own: 1\nexports: {}\n",
    "charts/s/templates/cm.yaml": _CM,
}

CASES = [
    ("subchart-defaults", CONFLICTS, []),
    ("set-scalar-over-table", CONFLICTS, ["--set", "nested.a.b=5"]),
    ("set-table-over-subchart-scalar", CONFLICTS, ["--set", "two.cfg.a.more=1"]),
    ("set-nulls", CONFLICTS, ["--set", "nested=null,one.cfg=null,three.name=null"]),
    ("global-source-not-a-table", GLOBALS, ["--set", "global=3"]),
    ("global-destination-not-a-table", GLOBALS, ["--set", "s.global=1"]),
    ("global-map-onto-non-map", GLOBALS, ["--set", "s.global.m=5"]),
    ("global-scalar-onto-table", GLOBALS, ["--set", "global.g=1,s.global.g.x=1"]),
    ("null-in-a-table-printed", PLAIN, ["--set", "a.b=1"]),
    ("table-over-list-and-null", PLAIN, ["--set", "l.x=1,n.y=2,a.b.c.d=3"]),
    ("set-json-list-over-table", PLAIN, ["--set-json", 'a={"b":[1,{"k":null}]}']),
    ("tag-and-import-values", DEPENDENCIES, []),
]


@pytest.fixture
def both(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Both:
    from tests.engine import helmbin

    helmbin.require_helm()
    return Both(tmp_path, capsys, monkeypatch)


#: helm-core in a process of its own (logging as the console script's), its memo entries written
#: before it ends; the last line on stderr says whether the template engine was imported.
_SCRIPT = ("import sys; from helm_core import cli; code = cli.main(sys.argv[1:]); "
           "print('engine' if 'helm_core.engine.render' in sys.modules else 'memo', file=sys.stderr); "
           "sys.exit(code)")


def _console(both: Both, *argv: str) -> tuple[tuple[int, str, str], str]:
    """helm-core's exit code, stdout and stderr, and "engine" or "memo"."""
    done = subprocess.run([sys.executable, "-c", _SCRIPT, *argv], capture_output=True, text=True, timeout=120,
                          cwd=both.tmp, check=False, env={**os.environ, **both.env, "PYTHONPATH": _ROOT})
    err, said = done.stderr.rstrip("\n").rpartition("\n")[::2]
    return (done.returncode, done.stdout, err + "\n" if err else ""), said


@pytest.mark.parametrize("files,flags", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_template_says_helms_coalescing_warnings_again_from_the_memo(both: Both, files: dict[str, str],
                                                                     flags: list[str]) -> None:
    chart = chartkit.write_chart(both.tmp / "chart", files)
    argv = ["template", "rel", str(chart), *flags]
    helm = both.helm(*argv)
    assert helm[0] == 0, helm[2]
    assert _console(both, *argv) == (helm, "engine")
    assert _console(both, *argv) == (helm, "memo")
    both.same(*argv)  # in this process too (from the memo the runs above kept)


def test_each_of_helms_coalesces_says_its_warnings(both: Both) -> None:
    """Dependency processing, import-values and the render's values: three times each, in
    helm's order (the --set conflict is with user values, which import-values does not see)."""
    chart = chartkit.write_chart(both.tmp / "chart", CONFLICTS)
    code, out, err = both.helm("template", "rel", str(chart), "--set", "nested.a.b=5")
    user = "coalesce.go:316: warning: cannot overwrite table with non table for p.nested.a.b (map[c:<nil> d:1e+06])\n"
    subcharts = ("coalesce.go:316: warning: cannot overwrite table with non table for p.one.cfg.a (map[deep:1])\n"
                 "coalesce.go:319: warning: destination for p.two.cfg.a is a table. Ignoring non-table value (2.5)\n"
                 "coalesce.go:237: warning: skipped value for p.three.name: Not a table.\n")
    assert (code, err) == (0, user + subcharts + subcharts + user + subcharts)
    assert _console(both, "template", "rel", str(chart), "--set", "nested.a.b=5") == ((code, out, err), "engine")


@pytest.mark.parametrize("files,flags", [c[1:] for c in CASES if c[0] in ("set-scalar-over-table", "subchart-defaults",
                                                                           "global-source-not-a-table")],
                         ids=["set-scalar-over-table", "subchart-defaults", "global-source-not-a-table"])
def test_lint_says_helms_coalescing_warnings(both: Both, files: dict[str, str], flags: list[str]) -> None:
    """lint's values rule coalesces the user's values over values.yaml (names without the
    chart's), its template rule the chart's values twice after dependency processing."""
    chart = chartkit.write_chart(both.tmp / "chart", files)
    argv = ["lint", str(chart), *flags]
    helm = both.helm(*argv)
    assert helm[2]
    assert _console(both, *argv) == (helm, "engine")
    both.same(*argv)


def test_no_conflict_no_warning(both: Both) -> None:
    chart = chartkit.write_chart(both.tmp / "chart", CONFLICTS)
    for argv in (["template", "rel", str(chart / "charts" / "one")], ["lint", str(chart / "charts" / "two")]):
        assert both.same(*argv)[2] == ""
