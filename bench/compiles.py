"""What a fresh ``helm-core template`` process compiles (regular expressions) and imports.

Usage: .venv/bin/python bench/compiles.py [chart ...]   (names under ../shared/charts, or paths;
default: every chart there)

Per chart, two processes sharing a cache root: ``first`` (the root empty) and ``warm`` (the same
command again: the memo answers). Each wraps ``re._compiler.compile`` (what ``re.compile`` calls
on a cache miss) and prints every compile with its milliseconds and the first caller outside
``re`` (file:line), then the helm_core modules it imported and how many modules in all.
One process per figure on a shared machine: a compile's milliseconds move by ~20%; the load
average is printed with each chart.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHARTS_DIR = Path(os.environ.get("HELM_CONTROLLER_SHARED_CHARTS", ROOT.parent / "shared" / "charts"))

#: Run in the measured process: wrap the compiler, run the CLI as the console script does, report.
PROGRAM = r"""
import sys, time, re._compiler as compiler
real, seen = compiler.compile, []
def compile(p, flags=0):
    start = time.perf_counter()
    try:
        return real(p, flags)
    finally:
        frame = sys._getframe(1)
        while frame and ("/re/" in frame.f_code.co_filename or frame.f_code.co_filename.endswith("functools.py")):
            frame = frame.f_back
        where = f"{frame.f_code.co_filename}:{frame.f_lineno}" if frame else "?"
        seen.append(((time.perf_counter() - start) * 1e3, where, p[:50]))
compiler.compile = compile
import os
real_exit = os._exit
def report(code):
    sys.stdout.flush()
    _report()
    real_exit(code)
os._exit = report
def _report():
    total = sum(ms for ms, _, _ in seen)
    print(f"COMPILES {len(seen)} {total:.2f}", file=sys.stderr)
    for ms, where, pattern in sorted(seen, reverse=True):
        print(f"  {ms:6.2f}  {where}  {pattern!r}", file=sys.stderr)
    ours = sorted(m for m in sys.modules if m.startswith("helm_core"))
    print(f"MODULES {len(sys.modules)} helm_core {len(ours)}", file=sys.stderr)
    print("  " + " ".join(m.removeprefix("helm_core.") for m in ours), file=sys.stderr)
from helm_core.__main__ import run
run()
"""


def run(chart: Path, cache: Path) -> str:
    env = dict(os.environ, PYTHONPATH=str(ROOT), HELM_CORE_CACHE=str(cache))
    done = subprocess.run([sys.executable, "-c", PROGRAM, "template", str(chart)], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, env=env, cwd=cache.parent, check=False)
    report = done.stderr[done.stderr.index("COMPILES"):] if "COMPILES" in done.stderr else done.stderr
    return report.replace(str(ROOT) + "/", "").replace(os.path.dirname(os.__file__) + "/", "")


def main(argv: list[str]) -> int:
    names = argv or sorted(p.name for p in CHARTS_DIR.iterdir() if (p / "Chart.yaml").is_file())
    with tempfile.TemporaryDirectory(prefix="bench-compiles-") as tmp:
        for name in names:
            chart = CHARTS_DIR / name if (CHARTS_DIR / name / "Chart.yaml").is_file() else Path(name)
            cache = Path(tmp) / f"cache-{chart.name}"
            print(f"== {chart.name}  (load average {os.getloadavg()[0]:.2f})")
            for label in ("first", "warm"):
                print(f"-- {label}")
                print(run(chart, cache), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
