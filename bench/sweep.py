"""A sweep over a folder of charts: `helm template` against `helm-core template`, object by object.

Usage: python bench/sweep.py [FOLDER ...] [--timeout S] [--memory-mb M] [--only NAME ...]
       (default folder: ../shared/charts, or $HELM_CONTROLLER_SHARED_CHARTS)

Every subfolder with a Chart.yaml and every ``.tgz`` of each FOLDER is a chart. Each renders
with its default values, release name ``release-name``, in both tools (helm from $HELM_BIN
or PATH, twice, so that leaves random in helm's own output are told apart; ours as a
`helm-core` process bounded in time and memory, so a runaway chart is an error, not a hang).
Objects are keyed by Source + kind/namespace/name and compared as the conformance tests do.

Each chart ends in one class:

* ``identical``: same objects (random leaves of the same shape accepted);
* ``differ``: both rendered, some object differs (the first difference is printed);
* ``error``: one side failed, or both failed with different first lines;
* ``same error``: both refused the chart with the same first line (helm's refusals are part
  of the behaviour to match, so these count apart, not as errors).

Then the counts. Exit code 0 whatever the figures (this measures; tests assert).
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.conformance import objects  # noqa: E402

DEFAULT_FOLDER = Path(os.environ.get("HELM_CONTROLLER_SHARED_CHARTS", REPO.parent / "shared" / "charts"))
RELEASE = "release-name"
#: Seconds and MiB one render may take (helm-core side; helm gets the same time).
DEFAULT_TIMEOUT_S = 120
DEFAULT_MEMORY_MB = 3000
CLASSES = ("identical", "differ", "error", "same error")


def find_charts(folder: Path) -> list[Path]:
    """Subfolders holding a Chart.yaml and .tgz archives, sorted by name."""
    found = [p for p in folder.iterdir()
             if (p.is_dir() and (p / "Chart.yaml").is_file()) or (p.is_file() and p.name.endswith(".tgz"))]
    return sorted(found, key=lambda p: p.name)


def _limit_memory(mib: int) -> Callable[[], None]:
    def apply() -> None:
        limit = mib * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return apply


def run_tool(command: list[str], timeout: float, memory_mb: int | None = None) -> tuple[int, str, str]:
    """(exit code, stdout, stderr); a timeout or a crash is a failure with a one-line reason."""
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False,
                              preexec_fn=_limit_memory(memory_mb) if memory_mb else None)
    except subprocess.TimeoutExpired:
        return 124, "", f"Error: (sweep) no answer within {timeout:.0f} s"
    if proc.returncode < 0:
        return proc.returncode, proc.stdout, f"Error: (sweep) killed by signal {-proc.returncode}\n{proc.stderr}"
    return proc.returncode, proc.stdout, proc.stderr


def first_line(stderr: str) -> str:
    """The first line that says what failed (helm may log warnings before it)."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("Error: ")]
    return (errors or lines or ["(no message)"])[0]


def compare(ours_text: str, theirs_text: str, again_text: str) -> str | None:
    """The first difference between our output and helm's, or None."""
    ours = objects.template_documents(ours_text)
    theirs = objects.template_documents(theirs_text)
    again = objects.template_documents(again_text)
    _pair_random_names(ours, theirs, again)
    if set(ours) != set(theirs):
        missing = sorted(set(theirs) - set(ours), key=str)
        extra = sorted(set(ours) - set(theirs), key=str)
        return f"objects only in helm's: {missing[:2]}{'...' if len(missing) > 2 else ''}; " \
               f"only in ours: {extra[:2]}{'...' if len(extra) > 2 else ''}"
    for key in sorted(theirs, key=str):
        found = objects.first_difference(ours[key], theirs[key], again.get(key))
        if found:
            return f"{key[0]} {key[1]}/{key[3]}: {found}"
    return None


def _pair_random_names(ours: dict[objects.Key, Any], theirs: dict[objects.Key, Any],
                       again: dict[objects.Key, Any]) -> None:
    """An object whose name is random (a test Pod named ``<release>-<random>-test``) has another
    key in each run: when one such object is left on each side for a Source and kind, and helm's
    two runs named it differently too, ours is moved under helm's key (its contents are still
    compared, the name as a random leaf)."""
    def left(objs: dict[objects.Key, Any], others: dict[objects.Key, Any]) -> dict[tuple[str, str, str], list[objects.Key]]:
        groups: dict[tuple[str, str, str], list[objects.Key]] = {}
        for key in set(objs) - set(others):
            groups.setdefault(key[:3], []).append(key)
        return groups

    mine, helms, helms_again = left(ours, theirs), left(theirs, ours), left(again, theirs)
    for group, keys in helms.items():
        if len(keys) == 1 and len(mine.get(group, [])) == 1 and len(helms_again.get(group, [])) == 1:
            ours[keys[0]] = ours.pop(mine[group][0])
            again[keys[0]] = again.pop(helms_again[group][0])


def sweep_one(chart: Path, helm: str, ours: list[str], timeout: float, memory_mb: int) -> tuple[str, str]:
    """(class, detail) for one chart."""
    h_code, h_out, h_err = run_tool([helm, "template", RELEASE, str(chart)], timeout)
    o_code, o_out, o_err = run_tool([*ours, "template", RELEASE, str(chart)], timeout, memory_mb)
    if h_code != 0 and o_code != 0:
        theirs, mine = first_line(h_err), first_line(o_err)
        if theirs == mine:
            return "same error", theirs
        return "error", f"both failed; helm: {theirs} | ours: {mine}"
    if h_code != 0:
        return "error", f"helm failed, ours rendered; helm: {first_line(h_err)}"
    if o_code != 0:
        return "error", f"ours failed, helm rendered; ours: {first_line(o_err)}"
    _, again_out, _ = run_tool([helm, "template", RELEASE, str(chart)], timeout)
    try:
        difference = compare(o_out, h_out, again_out)
    except ValueError as exc:
        return "differ", f"output not comparable: {exc}"
    return ("differ", difference) if difference else ("identical", "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("folders", nargs="*", type=Path, default=[DEFAULT_FOLDER])
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S)
    parser.add_argument("--memory-mb", type=int, default=DEFAULT_MEMORY_MB)
    parser.add_argument("--only", nargs="*", default=[], help="chart names (folder or archive) to sweep")
    args = parser.parse_args(argv)
    helm = os.environ.get("HELM_BIN") or shutil.which("helm")
    if not helm:
        print("helm not found: set HELM_BIN", file=sys.stderr)
        return 2
    ours = [sys.executable, "-m", "helm_core"]
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH", "")]))
    counts = {name: 0 for name in CLASSES}
    started = time.monotonic()
    for folder in args.folders:
        for chart in find_charts(folder):
            if args.only and chart.name not in args.only:
                continue
            verdict, detail = sweep_one(chart, helm, ours, args.timeout, args.memory_mb)
            counts[verdict] += 1
            print(f"{verdict:10} {folder.name}/{chart.name}" + (f"  {detail}" if detail else ""), flush=True)
    total = sum(counts.values())
    print(f"\n{total} charts in {time.monotonic() - started:.0f} s: "
          + ", ".join(f"{counts[name]} {name}" for name in CLASSES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
