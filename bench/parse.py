"""Lex and parse time of every chart's templates: exact lexer vs fast path, in the same run.

Usage: .venv/bin/python bench/parse.py [--against DIR] [chart ...]
(default: every chart in ../shared/charts)

For each chart, every ``templates/`` file of it and its subcharts (what Helm parses) is
lexed and parsed in a loop; the best of RUNS passes is printed, in ms of the process's
CPU time (other processes on a busy machine shift wall time far more):

* ``lex exact`` / ``lex``: ``lexer.lex`` with the fast path off (the per-character state
  machine alone) and on; ``parse exact`` / ``parse``: ``parser.parse`` (lexing included)
  with the fast path off and on; ``x``: exact / fast;
* ``trees KB`` and ``loads ms``: the pickled trees of the chart (what the disk memo stores
  when every body ran; it stores only those that did) and the time to unpickle them (a
  second run's hot path).

``--against DIR`` also times the same templates with another checkout's ``helm_core``
(e.g. the main branch: ``git archive main helm_core | tar -x -C /tmp/base`` then
``--against /tmp/base``) in a subprocess, after ours, and prints its parse time, the
ratio to ours, and its trees' size and unpickling time: that shows the parser's own
gains too, which the exact-lexer figures do not. The machine's load shifts both; compare
figures from quiet runs. The cyclic GC is paused while timing, as the template
environment pauses it while parsing.
"""
from __future__ import annotations

import gc
import inspect
import json
import os
import pickle
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

#: Set by --against for its subprocess: the directory whose helm_core is measured.
OTHER_CODE = os.environ.get("BENCH_PARSE_CODE")
sys.path.insert(0, OTHER_CODE or str(Path(__file__).resolve().parent.parent))

import helm_core  # noqa: E402
from helm_core.chart import model  # noqa: E402
from helm_core.engine import helm_funcs  # noqa: E402
from helm_core.engine.files import bytes_to_text  # noqa: E402
from helm_core.gotemplate import lexer, parser  # noqa: E402
from helm_core.gotemplate.funcs import builtins, sprig  # noqa: E402

RUNS = 9


def known_functions() -> frozenset[str]:
    """The names Helm's template set knows (what a chart's templates are parsed with)."""
    state = helm_funcs.RenderState(tset=None, exec_errors=())
    return frozenset({**builtins.BUILTINS, **helm_funcs.helm_func_map(sprig.SPRIG_FUNCS),
                      **helm_funcs.bound_funcs(state)})


def best_ms(fn: Callable[[], Any]) -> float:
    fn()  # warm-up: first calls compile regexes and fill caches
    best = float("inf")
    gc.disable()
    try:
        for _ in range(RUNS):
            start = time.process_time()
            fn()
            best = min(best, time.process_time() - start)
    finally:
        gc.enable()
    return best * 1000


def chart_templates(chart_dir: Path) -> list[tuple[str, str]]:
    chart = helm_core.load_chart(chart_dir)
    return [(name, bytes_to_text(f.data)) for name, f in model.all_template_files(chart)]


def measure(templates: list[tuple[str, str]], known: frozenset[str]) -> dict[str, float]:
    has = known.__contains__
    # An older checkout (--against) has no switch: its figures are its only path.
    switch = "fast" in inspect.signature(lexer.lex).parameters

    def lex_all(fast: bool) -> None:
        for _, text in templates:
            lexer.lex(text, fast=fast) if switch else lexer.lex(text)

    def parse_all(fast: bool) -> Callable[[], None]:
        def run() -> None:
            saved = getattr(lexer, "FAST_PATH", None)
            if switch:
                lexer.FAST_PATH = fast
            try:
                for name, text in templates:
                    parser.parse(name, text, has)
            finally:
                if switch:
                    lexer.FAST_PATH = saved
        return run

    parsed = [parser.parse(name, text, has) for name, text in templates]
    for trees in parsed:  # every body read (reprinted), so every body is pickled: as if all ran
        for tree in trees.values():
            str(tree.root)
    blob = pickle.dumps(parsed, protocol=pickle.HIGHEST_PROTOCOL)
    return {
        "files": len(templates),
        "lex_exact": best_ms(lambda: lex_all(False)),
        "lex": best_ms(lambda: lex_all(True)),
        "parse_exact": best_ms(parse_all(False)),
        "parse": best_ms(parse_all(True)),
        "trees_kb": len(blob) / 1024,
        "loads": best_ms(lambda: pickle.loads(blob)),
    }


def against(directory: str,
            charts: dict[str, list[tuple[str, str]]]) -> dict[str, dict[str, float]]:
    """:func:`measure` in a subprocess importing ``directory``'s helm_core (templates on stdin)."""
    env = dict(os.environ, BENCH_PARSE_CODE=directory)
    out = subprocess.run([sys.executable, __file__, "--templates-on-stdin"], env=env, check=True,
                         input=json.dumps(charts), capture_output=True, text=True).stdout
    result: dict[str, dict[str, float]] = json.loads(out)
    return result


def main(argv: list[str]) -> int:
    known = known_functions()
    if argv == ["--templates-on-stdin"]:  # the --against subprocess
        charts = json.load(sys.stdin)
        print(json.dumps({name: measure(templates, known) for name, templates in charts.items()}))
        return 0
    from bench.render import CHARTS_DIR, byte_compile
    base_dir = None
    if "--against" in argv:
        i = argv.index("--against")
        if i + 1 >= len(argv):
            print("--against needs a directory holding another checkout's helm_core",
                  file=sys.stderr)
            return 2
        base_dir = argv[i + 1]
        if not (Path(base_dir) / "helm_core").is_dir():
            print(f"--against {base_dir}: no helm_core package there", file=sys.stderr)
            return 2
        argv = argv[:i] + argv[i + 2:]
    if not CHARTS_DIR.is_dir():
        print(f"{CHARTS_DIR} is not present: nothing to measure")
        return 0
    names = argv or sorted(d.name for d in CHARTS_DIR.iterdir() if (d / "Chart.yaml").is_file())
    byte_compile()
    charts = {name: chart_templates(CHARTS_DIR / name) for name in names}
    results = {name: measure(templates, known) for name, templates in charts.items()}
    base = against(base_dir, charts) if base_dir else {}
    header = (f"{'chart':26} {'files':>5} {'lex exact':>9} {'lex':>6} {'x':>5} {'parse exact':>11}"
              f" {'parse':>6} {'x':>5} {'trees KB':>8} {'loads ms':>8}")
    if base:
        header += f" {'base parse':>10} {'x':>5} {'base KB':>7} {'base loads':>10}"
    print(header)
    totals: dict[str, float] = {}
    for name, r in [*results.items(), ("total", {})]:
        if name == "total":
            r = totals
        else:
            for key, value in r.items():
                totals[key] = totals.get(key, 0) + value
        line = (f"{name:26} {r['files']:5.0f} {r['lex_exact']:9.1f} {r['lex']:6.1f}"
                f" {r['lex_exact'] / r['lex']:5.2f} {r['parse_exact']:11.1f} {r['parse']:6.1f}"
                f" {r['parse_exact'] / r['parse']:5.2f} {r['trees_kb']:8.0f} {r['loads']:8.1f}")
        if base:
            b = base[name] if name != "total" else {
                key: sum(v[key] for v in base.values()) for key in ("parse", "trees_kb", "loads")}
            line += (f" {b['parse']:10.1f} {b['parse'] / r['parse']:5.2f} {b['trees_kb']:7.0f}"
                     f" {b['loads']:10.1f}")
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
