"""toYaml texts: writing one again against reading it back from the disk memo, by value size.

Usage: .venv/bin/python bench/dumps.py [chart ...]   (names under ../shared/charts, or paths;
default: prometheus redis)

Renders each chart once with the disk memo on (a temporary cache root) and keeps the values its
templates hand to ``toYaml`` (after the JSON step). For every value goyaml_emit writes, in this
one process (so that the machine's load weighs on both sides alike), best of 5 rounds of 200:

- ``emit``: ``goyaml_emit.emit(value)``, what a run does for a value below
  ``goyaml.SMALL_DUMP_BYTES`` pickled;
- ``read back``: what a warm run does for a larger one: pickle the value, digest it with the code's
  digest, read the entry and unpickle the text.

A first run also writes one file per remembered value (its creation and rename are ~100 us on an
idle disk, more on a loaded machine): the threshold is where ``emit`` stops being cheaper than
``read back``. Prints medians per size band and the load average.
"""
from __future__ import annotations

import io
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from render import CHARTS_DIR  # noqa: E402

from helm_core import cli  # noqa: E402
from helm_core.golib import goyaml, goyaml_emit  # noqa: E402
from helm_core.support import cachekeys, memo, pickling  # noqa: E402

BANDS = (0, 64, 128, 256, 512, 1024, 1 << 30)


def best_us(work: Callable[[], object], rounds: int = 5, calls: int = 200) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(calls):
            work()
        best = min(best, (time.perf_counter() - start) / calls * 1e6)
    return best


def dumped_values(chart: Path, cache: str) -> list[object]:
    """The values a first render of ``chart`` hands to the YAML writer."""
    seen: list[object] = []
    real = goyaml._emit
    goyaml._emit = lambda plain: (seen.append(plain), real(plain))[1]  # type: ignore[assignment]
    os.environ["HELM_CORE_CACHE"] = cache
    out, sys.stdout = sys.stdout, io.StringIO()
    try:
        if cli.main(["template", str(chart)]) != 0:
            raise SystemExit(f"{chart}: the render failed")
    finally:
        sys.stdout = out
        goyaml._emit = real  # type: ignore[assignment]
    return seen


def main(names: list[str]) -> int:
    rows: list[tuple[int, float, float]] = []
    with tempfile.TemporaryDirectory(prefix="bench-dumps-") as tmp:
        disk = memo.DiskMemo(os.path.join(tmp, "entries"))
        threshold, goyaml.SMALL_DUMP_BYTES = goyaml.SMALL_DUMP_BYTES, 0  # every value reaches _emit
        try:
            values = [v for i, name in enumerate(names) for v in dumped_values(
                CHARTS_DIR / name if (CHARTS_DIR / name / "Chart.yaml").is_file() else Path(name),
                os.path.join(tmp, f"cache-{i}"))]
        finally:
            goyaml.SMALL_DUMP_BYTES = threshold
        code = goyaml.code_digest().encode()
        for value in values:
            text = goyaml_emit.emit(value)
            if text is None:  # libyaml's: always remembered
                continue
            pickled = pickling.dumps(value, protocol=pickling.HIGHEST_PROTOCOL)
            key = cachekeys.hasher(code + pickled).hexdigest()
            disk.put("bench", key, pickling.dumps(text, protocol=pickling.HIGHEST_PROTOCOL))

            def read_back(value: object = value) -> object:
                digest = cachekeys.hasher(code + pickling.dumps(value, protocol=pickling.HIGHEST_PROTOCOL))
                blob = disk.get("bench", digest.hexdigest())
                assert blob is not None
                return pickling.loads(blob)

            rows.append((len(pickled), best_us(lambda value=value: goyaml_emit.emit(value)), best_us(read_back)))
    print(f"toYaml values of {' '.join(names)} written by goyaml_emit: {len(rows)}; "
          f"threshold goyaml.SMALL_DUMP_BYTES = {goyaml.SMALL_DUMP_BYTES}")
    print(f"{'pickled bytes':>16} {'values':>7} {'emit us':>9} {'read back us':>13}")
    for low, high in zip(BANDS, BANDS[1:], strict=False):
        band = [(e, r) for size, e, r in rows if low <= size < high]
        if band:
            label = f"{low}-{high - 1}" if high < 1 << 30 else f">= {low}"
            print(f"{label:>16} {len(band):7d} {statistics.median(e for e, _ in band):9.1f} "
                  f"{statistics.median(r for _, r in band):13.1f}")
    print(f"load average {os.getloadavg()[0]:.2f} (both columns measured in this process, interleaved per value)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:] or ["prometheus", "redis"]))
