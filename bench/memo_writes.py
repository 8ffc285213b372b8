"""What a first run's memo writes cost, against the fork that moves them off the run's exit.

Usage: .venv/bin/python bench/memo_writes.py [chart]   (a name under ../shared/charts or a path;
default: examples/charts/hello)

Renders the chart once in this process (a CLI run's heap: modules, trees, values) and runs the
memo's deferred jobs once (trees pickled, call-site shapes compiled: their time is printed), then
prints medians of 9 rounds of: writing that run's pending entries into a fresh memo folder (one
file created and renamed each, their folders made), per entry; and a fork whose child exits at once,
as the parent sees it (``DiskMemo.write_pending_detached`` forks when ``DETACH_FROM_ENTRIES``
entries or more are pending). The load average is printed: the machine is shared.
"""
from __future__ import annotations

import contextlib
import gc
import io
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from render import CHARTS_DIR  # noqa: E402

from helm_core import cli  # noqa: E402
from helm_core.support import memo  # noqa: E402


def pending_entries(chart: Path, scratch: str) -> tuple[dict[tuple[str, str], bytes], float]:
    """The entries a first CLI run of ``chart`` leaves to write, and the time of its deferred
    jobs (trees pickled, call-site shapes compiled), which make some of them."""
    disk = memo.DiskMemo(os.path.join(scratch, "first"), defer_writes=True)
    with contextlib.redirect_stdout(io.StringIO()):
        code = cli._main(["template", str(chart)], disk)
    if code != 0:
        raise SystemExit(f"template {chart} failed")
    start = time.perf_counter()
    for job in disk._jobs:
        job()
    return dict(disk._pending or {}), time.perf_counter() - start


def write_time(entries: dict[tuple[str, str], bytes], folder: str) -> float:
    disk = memo.DiskMemo(folder, defer_writes=True)
    for (kind, key), data in entries.items():
        disk.put(kind, key, data)
    start = time.perf_counter()
    disk.write_pending()
    return time.perf_counter() - start


def fork_time() -> float:
    start = time.perf_counter()
    child = os.fork()
    if child == 0:
        os._exit(0)
    elapsed = time.perf_counter() - start
    os.waitpid(child, 0)
    return elapsed


def main(argv: list[str]) -> int:
    gc.disable()  # as the console script runs (helm_core/__main__.py), its detached writer too
    name = argv[0] if argv else str(ROOT / "examples" / "charts" / "hello")
    chart = CHARTS_DIR / name if (CHARTS_DIR / name / "Chart.yaml").is_file() else Path(name)
    with tempfile.TemporaryDirectory(prefix="bench-memo-writes-") as scratch:
        entries, jobs_s = pending_entries(chart, scratch)
        writes = [write_time(entries, os.path.join(scratch, f"round-{i}")) for i in range(9)]
        forks = [fork_time() for _ in range(9)]
    write_ms = statistics.median(writes) * 1e3
    print(f"{chart.name}: {len(entries)} entries, {sum(map(len, entries.values())) / 1024:.0f} KiB"
          f"  (load average {os.getloadavg()[0]:.2f})")
    print(f"   written in place  {write_ms:6.2f} ms  ({write_ms / max(len(entries), 1):.3f} ms an entry)")
    print(f"   deferred jobs     {jobs_s * 1e3:6.2f} ms  (once)")
    print(f"   fork              {statistics.median(forks) * 1e3:6.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
