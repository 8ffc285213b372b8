"""First-run cost of values-schema checks per chart: before (jsonschema) vs after, in the same run.

Usage: .venv/bin/python bench/schema.py [chart ...]   (default: every chart of ../shared/charts
with a values schema in it or in a subchart)
       .venv/bin/python bench/schema.py --against REV [chart ...]

``--against REV`` compares the fast path (what a first run whose values pass does) of this
checkout with the same path of git revision REV's ``helm_core``, in one run, in CPU time
(``time.process_time``: on a shared machine wall time mostly measures the neighbours):

- ``first``: a fresh child per sample (RUNS of each, REV and this checkout alternating, median
  and spread): ``schema.validate`` with an empty memo, the import of the compiled checks included;
- ``micro``: in one child per tree, the same validation REPS times over with every
  per-process cache emptied (no memo: the metaschema is checked each time), median: the
  check's own cost, without the imports and engine start-up a first run also pays.

A first run is a fresh process with an empty memo, so every figure comes from a fresh child
process (RUNS of each, before and after alternating, median). A child loads the chart and
coalesces its values (without validating), then times, summed over every enabled chart with
a schema:

            before (what the code did until now)       after (what it does now when values pass)
- import:   ``import jsonschema, referencing``         ``helm_core.chart.metaschema`` + ``verdict``
- check:    ``cls.check_schema`` (metaschema)          ``metaschema.valid`` (compiling the metaschema
                                                       from its files included: paid once a process)
- build:    the jsonschema validator                   ``verdict.Compiler(...).compile`` (which
                                                       compiles a subschema at its first use:
                                                       the rest is paid in validate)
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
#: The helm_core a child imports: this checkout's, or an exported revision's (--against).
TREE = os.environ.get("BENCH_SCHEMA_TREE", str(ROOT))
sys.path.insert(0, TREE)
#: What children time with: wall time, or CPU time (--against).
CLOCK = time.process_time if os.environ.get("BENCH_SCHEMA_CLOCK") == "cpu" else time.perf_counter

CHARTS_DIR = Path(os.environ.get("HELM_CONTROLLER_SHARED_CHARTS", ROOT.parent / "shared" / "charts"))
RUNS = int(os.environ.get("BENCH_SCHEMA_RUNS", "5"))
PHASES = ("import", "check", "build", "validate")


def _pairs(chart_dir: Path) -> tuple[Any, dict[str, Any], list[tuple[Any, dict[str, Any]]]]:
    """The chart with its enabled subcharts, its final values, and the (chart, values) pairs
    schema.validate would check — without importing helm_core.chart.schema (prepare does)."""
    import helm_core
    from helm_core.chart import dependencies
    from helm_core.chart import values as chart_values

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
    from helm_core.chart import metaschema, schema
    from helm_core.support import memo

    if mode == "before":
        schema._passes = lambda *args: False  # jsonschema for everything, as before
        metaschema.compiled = lambda draft: (None, "switched off")
    with tempfile.TemporaryDirectory(prefix="bench-schema-memo-") as folder:
        memo.use(memo.DiskMemo(folder))
        start = CLOCK()
        schema.validate(chart, final)
        return {"e2e": CLOCK() - start}


REPS = 15


def child_micro(chart_dir: Path) -> dict[str, float]:
    """Median seconds of validating the chart's values REPS times, per-process caches emptied."""
    chart, final, _ = _pairs(chart_dir)
    from helm_core.chart import metaschema, schema

    took = []
    for _ in range(REPS):
        for cache in (schema._fast, schema._compiled, metaschema.compiled, metaschema._documents):
            cache.cache_clear()
        schema._RECENT_PASSES.clear()
        schema._SCHEMA_TEXTS.clear()
        start = CLOCK()
        schema.validate(chart, final)
        took.append(CLOCK() - start)
    return {"micro": statistics.median(took)}


def run_child(kind: str, mode: str, chart_dir: Path, tree: Path = ROOT, clock: str = "wall") -> dict[str, float]:
    env = dict(os.environ, BENCH_SCHEMA_TREE=str(tree), BENCH_SCHEMA_CLOCK=clock)
    out = subprocess.run([sys.executable, __file__, "--child", kind, mode, str(chart_dir)],
                         capture_output=True, text=True, check=True, env=env)
    return json.loads(out.stdout)


def export(rev: str, into: Path) -> Path:
    """``helm_core`` as it is at ``rev``, byte-compiled, under ``into``."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "helm_core"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    compileall.compile_dir(str(into / "helm_core"), quiet=1)
    return into


def against(rev: str, names: list[str]) -> None:
    """This checkout's fast path against ``rev``'s: first runs and the in-process micro figure."""
    with tempfile.TemporaryDirectory(prefix="bench-schema-rev-") as folder:
        trees = {rev: export(rev, Path(folder)), "now": ROOT}
        print(f"schema fast path, CPU ms: first = fresh process, empty memo (median of {RUNS}, [min-max]); "
              f"micro = in-process, caches emptied (median of {REPS})")
        print(f"{'chart':18} {'first ' + rev:>22} {'first now':>22} {'ratio':>6} "
              f"{'micro ' + rev:>12} {'micro now':>10} {'ratio':>6}  load")
        for name in names:
            firsts: dict[str, list[float]] = {label: [] for label in trees}
            for _ in range(RUNS):
                for label, tree in trees.items():
                    firsts[label].append(run_child("e2e", "after", CHARTS_DIR / name, tree, "cpu")["e2e"] * 1e3)
            micro = {label: run_child("micro", "after", CHARTS_DIR / name, tree, "cpu")["micro"] * 1e3
                     for label, tree in trees.items()}
            cells = []
            for label in trees:
                got = firsts[label]
                cells.append(f"{statistics.median(got):7.1f} [{min(got):5.1f}-{max(got):5.1f}]")
            ratio = statistics.median(firsts[rev]) / statistics.median(firsts["now"])
            print(f"{name:18} {cells[0]:>22} {cells[1]:>22} {ratio:5.2f}x "
                  f"{micro[rev]:12.1f} {micro['now']:10.1f} {micro[rev] / micro['now']:5.2f}x  "
                  f"{os.getloadavg()[0]:.2f}")


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
        if kind == "micro":
            took = child_micro(Path(chart))
        else:
            took = (child_phases if kind == "phases" else child_e2e)(mode, Path(chart))
        print(json.dumps(took))
        return 0
    if not CHARTS_DIR.is_dir():
        print(f"{CHARTS_DIR} is not present: nothing to measure")
        return 0
    compileall.compile_dir(str(ROOT / "helm_core"), quiet=1)
    if argv[:1] == ["--against"]:
        against(argv[1], argv[2:] or charts_with_schemas())
        return 0
    columns = (*PHASES, "total", "e2e")
    print(f"first-run schema cost, ms (median of {RUNS} fresh processes each); b = before, a = after")
    print(f"{'chart':18}" + "".join(f" {c + ' b':>10} {c + ' a':>10}" for c in columns)
          + f" {'total b/a':>9} {'e2e b/a':>8}")
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
