"""Lex and parse time of every chart's templates: exact lexer vs fast path, in the same run.

Usage: .venv/bin/python bench/parse.py [--against DIR [--instructions] | --trees-against DIR] [chart ...]
(default: every chart in ../shared/charts)

For each chart, every ``templates/`` file of it and its subcharts (what Helm parses) is
lexed and parsed in a loop; the best of RUNS passes is printed, in ms of the process's
CPU time (other processes on a busy machine shift wall time far more):

* ``lex exact`` / ``lex``: ``lexer.lex_raw`` (what the parser calls; ``lex`` if there is
  none) with the fast path off (the per-character state
  machine alone) and on; ``parse exact`` / ``parse``: ``parser.parse`` (lexing included)
  with the fast path off and on (on, the parser reads the lexer's compact stream, see
  ``lexer.lex_raw``); ``x``: exact / fast;
* ``trees KB`` and ``loads ms``: the pickled trees of the chart (what the disk memo stores
  when every body ran; it stores only those that did) and the time to unpickle them (a
  second run's hot path).

``--against DIR`` (another checkout holding ``helm_core``) or ``--against REV`` (a git
revision of this repository, exported to a temporary folder, e.g. ``--against main``) also
times the same templates with that ``helm_core``. Then both sides run in subprocesses,
alternating for ROUNDS rounds (a busy moment weighs on both), each figure the best over
the rounds, and the line adds the other side's lex and parse times, each with ``x`` (its time / ours:
above 1 means ours is faster), and its trees' size and unpickling time: that shows the parser's
own gains too, which the exact-lexer figures do not. The load average is printed. The
cyclic GC is paused while timing, as the template environment pauses it while parsing.

``--instructions`` (with ``--against``): instead of times, the machine instructions of one pass
of lexing and of lexing + parsing every template of the charts together, counted by
``valgrind --tool=callgrind`` (a run of two passes less a run of one): the same figure on
an idle or a loaded machine, for changes smaller than the noise of times. Slow (minutes).

``--trees-against REV`` (or DIR) times nothing: it parses every template, and CUTS prefixes
of each (parse errors), and GENERATED templates from the parser tests' generators (well
formed and broken), with both sides' ``helm_core`` and compares a full dump of the outcome
(every tree's name, every node's class and fields with ``pos`` and ``line``, the reprint
``str(tree)``; or the error's text, reason and position): a parser change must leave it
identical. Exit status 1 on any difference.
"""
from __future__ import annotations

import gc
import hashlib
import inspect
import json
import os
import pickle
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

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
#: Alternating rounds of ours and the other side's subprocess, with --against.
ROUNDS = 3


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

    # What the parser calls: plain tuples where the lexer has them (lex() then wraps them).
    lex = getattr(lexer, "lex_raw", lexer.lex)

    def lex_all(fast: bool) -> None:
        for _, text in templates:
            lex(text, fast=fast) if switch else lex(text)

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


#: Prefixes of each template --trees-against parses too (cut at i/CUTS of its length, i < CUTS).
CUTS = 7
#: Generated templates --trees-against parses too (tests/gotemplate's generators, fixed seed;
#: no prefixes: they are broken anywhere already).
GENERATED = 20000


def node_dump(obj: Any) -> Any:
    """A parse tree as plain data: every slot of every node (the tree it belongs to by name)."""
    if isinstance(obj, parser.n.Node):
        slots = [s for cls in type(obj).__mro__ for s in getattr(cls, "__slots__", ())]
        return (type(obj).__name__, obj.tr.name,
                tuple((s, node_dump(getattr(obj, s))) for s in slots if s != "tr"))
    if isinstance(obj, list):
        return [node_dump(x) for x in obj]
    if isinstance(obj, float):
        return repr(obj)  # nan != nan
    return obj


def tree_digests(templates: list[tuple[str, str]], known: frozenset[str], cuts: int = CUTS) -> dict[str, str]:
    """Per template and per prefix of it (``cuts`` - 1 of them): a digest of its parse's full outcome."""
    digests = {}
    for name, text in templates:
        for cut in range(cuts):
            piece = text[: len(text) * cut // CUTS] if cut else text
            try:
                trees = parser.parse(name, piece, known.__contains__)
                outcome: Any = [(key, t.name, t.parse_name, str(t.root), node_dump(t.root))
                                for key, t in trees.items()]
            except parser.ParseError as exc:
                outcome = ("error", str(exc), exc.reason, exc.template_name, exc.pos)
            digests[f"{name}@{cut}"] = hashlib.blake2b(repr(outcome).encode()).hexdigest()
    return digests


def generated_templates() -> list[tuple[str, str]]:
    """GENERATED templates from the parser tests' generators: the direct path's shapes and
    the lexer's fragments, well formed or broken anywhere (error lines and positions)."""
    import random

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests, always ours
    from tests.gotemplate import test_lexer_fast_path, test_parser_direct
    rng = random.Random(20261126)
    make = (test_lexer_fast_path._random_template, test_parser_direct._direct_template)
    return [(f"gen{i}", make[i % 2](rng)) for i in range(GENERATED)]


def compare_trees(other_dir: str, charts: dict[str, list[tuple[str, str]]], known: frozenset[str]) -> int:
    """--trees-against: 0 when both sides parse every template and prefix the same."""
    env = dict(os.environ, BENCH_PARSE_CODE=other_dir)
    out = subprocess.run([sys.executable, __file__, "--tree-digests-on-stdin"], env=env, check=True,
                         input=json.dumps(charts), capture_output=True, text=True).stdout
    theirs: dict[str, dict[str, str]] = json.loads(out)
    differ = 0
    for chart, templates in charts.items():
        ours = tree_digests(templates, known, 1 if chart == "generated" else CUTS)
        bad = sorted(key for key in ours if ours[key] != theirs[chart].get(key))
        differ += len(bad)
        print(f"{chart:26} {len(ours):5} parses, {len(bad)} differ{': ' + ', '.join(bad[:5]) if bad else ''}")
    return 1 if differ else 0


def run_passes(templates: list[tuple[str, str]], known: frozenset[str], mode: str, passes: int) -> None:
    """``passes`` passes of lexing (``mode`` "lex") or parsing every template, GC paused."""
    has = known.__contains__
    lex = getattr(lexer, "lex_raw", lexer.lex)
    gc.disable()
    for _ in range(passes):
        for name, text in templates:
            lex(text) if mode == "lex" else parser.parse(name, text, has)


def instructions(directory: str, templates: list[tuple[str, str]], mode: str) -> int:
    """Instructions of one pass of ``mode`` with ``directory``'s helm_core (see the doc)."""
    counts = []
    for passes in (1, 2):
        run = subprocess.run(
            ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, __file__,
             "--passes-on-stdin", mode, str(passes)],
            env=dict(os.environ, BENCH_PARSE_CODE=directory), input=json.dumps(templates),
            capture_output=True, text=True, check=True)
        counts.append(int(run.stderr.split("Collected : ")[1].split()[0]))
    return counts[1] - counts[0]


def compare_instructions(ours: str, other: str, charts: dict[str, list[tuple[str, str]]]) -> int:
    templates = [t for chart in charts.values() for t in chart]
    print(f"{len(templates)} templates of {', '.join(charts)}; millions of instructions per pass")
    print(f"{'':14} {'ours':>8} {'other':>8} {'other/ours':>10}")
    for mode, label in (("lex", "lex"), ("parse", "lex + parse")):
        mine, theirs = instructions(ours, templates, mode), instructions(other, templates, mode)
        print(f"{label:14} {mine / 1e6:8.1f} {theirs / 1e6:8.1f} {theirs / mine:10.3f}")
    return 0


def in_subprocess(directory: str,
                  charts: dict[str, list[tuple[str, str]]]) -> dict[str, dict[str, float]]:
    """:func:`measure` in a subprocess importing ``directory``'s helm_core (templates on stdin)."""
    env = dict(os.environ, BENCH_PARSE_CODE=directory)
    out = subprocess.run([sys.executable, __file__, "--templates-on-stdin"], env=env, check=True,
                         input=json.dumps(charts), capture_output=True, text=True).stdout
    result: dict[str, dict[str, float]] = json.loads(out)
    return result


def interleaved(ours: str, other: str, charts: dict[str, list[tuple[str, str]]]
                ) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, float]]]:
    """Both sides' figures, ROUNDS alternating subprocesses each, the best of every figure."""
    best: tuple[dict[str, dict[str, float]], dict[str, dict[str, float]]] = ({}, {})
    for _ in range(ROUNDS):
        for side, directory in zip(best, (ours, other), strict=True):
            for chart, figures in in_subprocess(directory, charts).items():
                kept = side.setdefault(chart, figures)
                for key, value in figures.items():
                    kept[key] = min(kept[key], value)
    return best


def checkout(spec: str, into: str) -> str | None:
    """A directory holding ``helm_core``: ``spec`` itself, or git revision ``spec`` exported."""
    if (Path(spec) / "helm_core").is_dir():
        return spec
    root = Path(__file__).resolve().parent.parent
    archive = subprocess.run(["git", "-C", str(root), "archive", spec, "helm_core"],
                             capture_output=True)
    if archive.returncode != 0:
        return None
    subprocess.run(["tar", "-x", "-C", into], input=archive.stdout, check=True)
    return into


def main(argv: list[str]) -> int:
    known = known_functions()
    if argv == ["--templates-on-stdin"]:  # the --against subprocess
        charts = json.load(sys.stdin)
        print(json.dumps({name: measure(templates, known) for name, templates in charts.items()}))
        return 0
    if argv[:1] == ["--passes-on-stdin"]:  # the --instructions subprocess (under valgrind)
        run_passes(json.load(sys.stdin), known, argv[1], int(argv[2]))
        return 0
    if argv == ["--tree-digests-on-stdin"]:  # the --trees-against subprocess
        charts = json.load(sys.stdin)
        print(json.dumps({name: tree_digests(templates, known, 1 if name == "generated" else CUTS)
                          for name, templates in charts.items()}))
        return 0
    from bench.render import CHARTS_DIR, byte_compile
    other = None
    trees_only = "--trees-against" in argv
    count_instructions = "--instructions" in argv
    argv = [a for a in argv if a != "--instructions"]
    for flag in ("--against", "--trees-against"):
        if flag in argv:
            i = argv.index(flag)
            if i + 1 >= len(argv):
                print(f"{flag} needs a directory holding helm_core, or a git revision",
                      file=sys.stderr)
                return 2
            other = argv[i + 1]
            argv = argv[:i] + argv[i + 2:]
    if not CHARTS_DIR.is_dir():
        print(f"{CHARTS_DIR} is not present: nothing to measure")
        return 0
    names = argv or sorted(d.name for d in CHARTS_DIR.iterdir() if (d / "Chart.yaml").is_file())
    byte_compile()
    charts = {name: chart_templates(CHARTS_DIR / name) for name in names}
    if trees_only:
        assert other is not None
        charts["generated"] = generated_templates()
        with tempfile.TemporaryDirectory() as tmp:
            other_dir = checkout(other, tmp)
            if other_dir is None:
                print(f"--trees-against {other}: neither a checkout with helm_core nor a git revision",
                      file=sys.stderr)
                return 2
            return compare_trees(other_dir, charts, known)
    print(f"load average before: {os.getloadavg()}")
    base: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        if other is None:
            results = {name: measure(templates, known) for name, templates in charts.items()}
        else:
            base_dir = checkout(other, tmp)
            if base_dir is None:
                print(f"--against {other}: neither a checkout with helm_core nor a git revision",
                      file=sys.stderr)
                return 2
            ours = str(Path(__file__).resolve().parent.parent)
            if count_instructions:
                return compare_instructions(ours, base_dir, charts)
            results, base = interleaved(ours, base_dir, charts)
    print(f"load average after: {os.getloadavg()}")
    header = (f"{'chart':26} {'files':>5} {'lex exact':>9} {'lex':>6} {'x':>5} {'parse exact':>11}"
              f" {'parse':>6} {'x':>5} {'trees KB':>8} {'loads ms':>8}")
    if base:
        header += (f" {'base lex':>8} {'x':>5} {'base parse':>10} {'x':>5} {'base KB':>7}"
                   f" {'base loads':>10}")
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
                key: sum(v[key] for v in base.values()) for key in ("lex", "parse", "trees_kb", "loads")}
            line += (f" {b['lex']:8.1f} {b['lex'] / r['lex']:5.2f}"
                     f" {b['parse']:10.1f} {b['parse'] / r['parse']:5.2f} {b['trees_kb']:7.0f}"
                     f" {b['loads']:10.1f}")
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
