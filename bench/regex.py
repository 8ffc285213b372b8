"""Chart-supplied patterns: time of catastrophic cases next to a normal one, in every place a
chart gives a pattern (Sprig's regex functions, .Files.Glob, .helmignore, values-schema pattern).

Usage: .venv/bin/python bench/regex.py

Each figure is the median of RUNS calls (the pattern compiled once, as charts reuse them).
For contrast, Python's backtracking ``re`` (what helm-core used until now) is timed on the
same Sprig cases with a per-case cap: its time grows exponentially with the input, so it
runs on a short subject and its figure for the 41-character one is shown as "> cap".
"""
from __future__ import annotations

import multiprocessing
import re
import statistics
import time
from typing import Callable

from helm_core.golib import goregexp
from helm_core.chart import ignore, model, schema
from helm_core.engine.files import compile_glob

RUNS = 5
#: Seconds Python's re may take on one case before it is given up.
RE_CAP = 10.0
EVIL = "a" * 41 + "b"
LONG_NAME = "files/" + "a" * 3000


def _median(call: Callable[[], object]) -> float:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _python_re(pattern: str, subject: str) -> None:
    re.search(pattern, subject)


def _python_re_time(pattern: str, subject: str) -> str:
    """Python's re on one case, in a child killed at RE_CAP."""
    child = multiprocessing.Process(target=_python_re, args=(pattern, subject))
    start = time.perf_counter()
    child.start()
    child.join(RE_CAP)
    if child.is_alive():
        child.kill()
        child.join()
        return f"> {RE_CAP:.0f} s"
    return f"{(time.perf_counter() - start) * 1000:.1f} ms (incl. process start)"


def _schema_check(pattern: str, value: str) -> Callable[[], object]:
    chart = model.Chart(metadata=model.Metadata(api_version="v2", name="b", version="1.0.0"),
                        schema={"properties": {"v": {"type": "string", "pattern": pattern}}},
                        schema_file="values.schema.json")

    def check() -> object:
        try:
            schema.validate(chart, {"v": value})
        except Exception as exc:  # a violation is the expected outcome for the evil case
            return exc
        return None
    return check


def main() -> None:
    # (label, Go pattern, subject, the same pattern in Python's dialect)
    sprig = [
        ("regexMatch ^(a+)+$  (41 a + b)", r"^(a+)+$", EVIL, r"^(a+)+$"),
        ("regexMatch (a|aa)*c (41 a + b)", r"(a|aa)*c", EVIL, r"(a|aa)*c"),
        ("regexMatch (x+x+)+y (41 x)", r"(x+x+)+y", "x" * 41, r"(x+x+)+y"),
        ("regexMatch normal ^[\\w-\\.]+$", r"^[\w-\.]+$", "my-app.example.com", r"^[\w\-.]+$"),
    ]
    print(f"{'case':44} {'goregexp (RE2)':>16}   Python re")
    for label, pattern, subject, python_pattern in sprig:
        rx = goregexp.compile(pattern)
        ours = _median(lambda: rx.match_string(subject)) * 1e6
        if "normal" in label:
            python = f"{_median(lambda: re.search(python_pattern, subject)) * 1e6:.1f} us"
        else:
            python = _python_re_time(python_pattern, subject)
        print(f"{label:44} {ours:>13.1f} us   {python}")
    # RE2 spells a Unicode class out as UTF-8 byte automata, Go keeps one instruction per class:
    # compiling this costs RE2 ~1 s where Go takes ~0.2 ms (a cost a chart can only repeat
    # within the render limits).
    start = time.perf_counter()
    goregexp.Regexp(r"\pL{1000}")
    label = "compile \\pL{1000} (uncached)"
    print(f"{label:44} {(time.perf_counter() - start) * 1e3:>13.1f} ms")
    glob_evil = compile_glob("files/*a*a*a*a*a*a*a*a*a*a*a*a!")
    glob_normal = compile_glob("files/*.yaml")
    print(f"{'Files.Glob files/*a*a*...*a! (3000 a)':44} {_median(lambda: glob_evil.match_string(LONG_NAME)) * 1e6:>13.1f} us")
    print(f"{'Files.Glob normal files/*.yaml':44} {_median(lambda: glob_normal.match_string('files/x.yaml')) * 1e6:>13.1f} us")
    rules_evil = ignore.Rules.parse("*a*a*a*a*a*a*a*a*a*a*b\n")
    rules_normal = ignore.Rules.parse("*.tgz\n")
    print(f"{'.helmignore *a*a*...*b (3000 a)':44} "
          f"{_median(lambda: rules_evil.ignored(LONG_NAME, is_dir=False)) * 1e6:>13.1f} us")
    print(f"{'.helmignore normal *.tgz':44} "
          f"{_median(lambda: rules_normal.ignored('charts/x.tgz', is_dir=False)) * 1e6:>13.1f} us")
    print(f"{'schema pattern ^(a+)+$ (41 a + b)':44} {_median(_schema_check('^(a+)+$', EVIL)) * 1e3:>13.2f} ms")
    print(f"{'schema pattern normal ^[a-z]+$':44} {_median(_schema_check('^[a-z]+$', 'abc')) * 1e3:>13.2f} ms")


if __name__ == "__main__":
    main()
