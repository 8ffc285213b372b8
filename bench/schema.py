"""First-run cost of values-schema checks per chart: before (jsonschema) vs after, in the same run.

Usage: .venv/bin/python bench/schema.py [chart ...]   (default: every chart of ../shared/charts
with a values schema in it or in a subchart)

A first run is a fresh process with an empty memo, so every figure comes from a fresh child
process (RUNS of each, before and after alternating, median). A child loads the chart and
coalesces its values (without validating), then times, summed over every enabled chart with
a schema:

            before (what the code did until now)       after (what it does now when values pass)
- import:   ``import jsonschema, referencing``         ``helm_core.chart.metaschema`` + ``verdict``
- check:    ``cls.check_schema`` (metaschema)          ``metaschema.valid`` (compiling the metaschema
                                                       from its files included: paid once a process)
- build:    the jsonschema validator                   ``verdict.Compiler(...).compile``
- validate: ``iter_errors(values)``                    the compiled check of the values

``e2e`` is a separate child timing ``schema.validate`` itself with an empty memo (imports
included); for "before" the compiled checks are switched off in that child, which leaves the
code path exactly as it was (jsonschema for everything, ``cls.check_schema`` included).

Our modules are byte-compiled first, as a wheel install does (the environment sets
PYTHONDONTWRITEBYTECODE).
"""
from __future__ import annotations

import compileall
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHARTS_DIR = Path(os.environ.get("HELM_CONTROLLER_SHARED_CHARTS", ROOT.parent / "shared" / "charts"))
RUNS = 5
PHASES = ("import", "check", "build", "validate")


def _pairs(chart_dir: Path) -> tuple[Any, dict[str, Any], list[tuple[Any, dict[str, Any]]]]:
    """The chart with its enabled subcharts, its final values, and the (chart, values) pairs
    schema.validate would check — without importing helm_core.chart.schema (prepare does)."""
    import helm_core
    from helm_core.chart import dependencies, values as chart_values

    chart = dependencies.process(helm_core.load_chart(chart_dir), {})
    final = chart_values.coalesce_values(chart, {})
    pairs: list[tuple[Any, dict[str, Any]]] = []

    def walk(chart: Any, values: dict[str, Any]) -> None:
        if chart.schema is not None:
            pairs.append((chart, values))
        for sub in chart.dependencies:
            if isinstance(values.get(sub.name), dict):
                walk(sub, values[sub.name])

    walk(chart, final)
    return chart, final, pairs


def child_phases(mode: str, chart_dir: Path) -> dict[str, float]:
    _, _, pairs = _pairs(chart_dir)
    took = dict.fromkeys(PHASES, 0.0)
    start = time.perf_counter()
    if mode == "before":
        import jsonschema
        import referencing
    else:
        from helm_core.chart import metaschema, verdict
    took["import"] = time.perf_counter() - start
    for chart, values in pairs:
        tree = json.loads(json.dumps(chart.schema))
        if mode == "before":
            start = time.perf_counter()
            cls = jsonschema.validators.validator_for(tree, default=jsonschema.Draft202012Validator)
            cls.check_schema(tree)
            took["check"] += time.perf_counter() - start
            start = time.perf_counter()
            validator = cls(tree, registry=referencing.Registry(retrieve=lambda uri: None))
            took["build"] += time.perf_counter() - start
            start = time.perf_counter()
            passed = not list(validator.iter_errors(values))
        else:
            start = time.perf_counter()
            draft = metaschema.dialect(tree)
            assert metaschema.valid(tree, draft), f"{chart.name}: schema not decided valid"
            took["check"] += time.perf_counter() - start
            start = time.perf_counter()
            check = verdict.Compiler(draft, {"": tree}).compile("")
            took["build"] += time.perf_counter() - start
            start = time.perf_counter()
            verdict.plain(values)
            passed = check(values)
        took["validate"] += time.perf_counter() - start
        assert passed, f"{chart.name}: default values fail its schema"
    return took


def child_e2e(mode: str, chart_dir: Path) -> dict[str, float]:
    chart, final, _ = _pairs(chart_dir)
    from helm_core.support import memo
    from helm_core.chart import schema

    if mode == "before":
        schema._passes = lambda *args: False  # jsonschema for everything, as before
        schema.metaschema.compiled = lambda draft: (None, "switched off")
    with tempfile.TemporaryDirectory(prefix="bench-schema-memo-") as folder:
        memo.use(memo.DiskMemo(folder))
        start = time.perf_counter()
        schema.validate(chart, final)
        return {"e2e": time.perf_counter() - start}


def run_child(kind: str, mode: str, chart_dir: Path) -> dict[str, float]:
    out = subprocess.run([sys.executable, __file__, "--child", kind, mode, str(chart_dir)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def measure(chart_dir: Path) -> dict[str, dict[str, float]]:
    """Median seconds per phase (and e2e) for "before" and "after"."""
    samples: dict[str, dict[str, list[float]]] = {"before": {}, "after": {}}
    for _ in range(RUNS):
        for mode in ("before", "after"):
            for kind in ("phases", "e2e"):
                for name, value in run_child(kind, mode, chart_dir).items():
                    samples[mode].setdefault(name, []).append(value)
    return {mode: {name: statistics.median(v) for name, v in by.items()} for mode, by in samples.items()}


def charts_with_schemas() -> list[str]:
    return sorted(d.name for d in CHARTS_DIR.iterdir()
                  if (d / "Chart.yaml").is_file() and any(d.rglob("values.schema.*")))


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        kind, mode, chart = argv[1:4]
        took = (child_phases if kind == "phases" else child_e2e)(mode, Path(chart))
        print(json.dumps(took))
        return 0
    if not CHARTS_DIR.is_dir():
        print(f"{CHARTS_DIR} is not present: nothing to measure")
        return 0
    compileall.compile_dir(str(ROOT / "helm_core"), quiet=1)
    columns = (*PHASES, "total", "e2e")
    print(f"first-run schema cost, ms (median of {RUNS} fresh processes each); b = before, a = after")
    print(f"{'chart':18}" + "".join(f" {c + ' b':>10} {c + ' a':>10}" for c in columns) + f" {'total b/a':>9} {'e2e b/a':>8}")
    for name in argv or charts_with_schemas():
        got = measure(CHARTS_DIR / name)
        for mode in got:
            got[mode]["total"] = sum(got[mode][p] for p in PHASES)
        row = "".join(f" {got['before'][c] * 1e3:10.1f} {got['after'][c] * 1e3:10.1f}" for c in columns)
        total = got["before"]["total"] / got["after"]["total"]
        e2e = got["before"]["e2e"] / got["after"]["e2e"]
        print(f"{name:18}{row} {total:8.2f}x {e2e:7.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
