"""Real YAML texts and the strict comparison of the two YAML readers (tests and bench/yamlfast.py).

The texts are what Helm's decoding meets for real charts: every document ``goyaml.decode``
is asked for while ``helm_core.template`` renders each chart of ../shared/charts and
examples/charts (values files, rendered manifests, ``fromYaml`` texts), plus every
values.yaml and Chart.yaml file of those charts and their subcharts.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import helm_core
from helm_core.golib import goyaml, goyaml_block, goyaml_read
from tests.chartkit import SHARED_CHARTS

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "charts"


def chart_folders() -> list[Path]:
    """Every chart of ../shared/charts (when present) and examples/charts."""
    roots = [root for root in (SHARED_CHARTS, EXAMPLES) if root.is_dir()]
    return [p for root in roots for p in sorted(root.iterdir()) if (p / "Chart.yaml").is_file()]


@functools.cache
def real_texts() -> tuple[tuple[str, str], ...]:
    """(name, text) of every real text, once each: ``<chart folder>: decoded #<n>`` for the texts
    decoded while rendering the chart, the path of each values.yaml and Chart.yaml file."""
    seen: dict[str, str] = {}
    real_decode = goyaml.decode
    rendering = ""

    def recording(data: bytes | str) -> Any:
        text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
        seen.setdefault(text, f"{rendering}: decoded #{len(seen)}")
        return real_decode(data)

    goyaml.decode = recording  # load, load_values and fromYaml call it
    try:
        for chart in chart_folders():
            rendering = str(chart)
            helm_core.template(chart, include_crds=True)
    finally:
        goyaml.decode = real_decode
    texts = [(name, text) for text, name in seen.items()]
    for chart in chart_folders():
        for path in sorted(chart.rglob("*.yaml")):
            if path.name in ("values.yaml", "Chart.yaml"):
                texts.append((str(path), path.read_bytes().decode("utf-8-sig")))
    return tuple(texts)


def same(a: Any, b: Any) -> bool:
    """Equal with the same Python types all the way down (1.0 is not 1 nor True), the same
    key order, and floats equal by their repr (NaN equals NaN, -0.0 is not 0.0)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float):
        return repr(a) == repr(b)
    return bool(a == b)


def _outcome(read: Callable[[], Any]) -> tuple[str, Any]:
    try:
        return "value", read()
    except ValueError as exc:
        return "error", str(exc)


def compare(text: str, *, json_step: bool = True) -> str | None:
    """``"declined"``, ``"same"`` when the block reader's answer (value or error) is the PyYAML
    path's, or None for a difference."""
    fast = _outcome(lambda: goyaml_block.decode(text, json_step=json_step))
    if fast[1] is goyaml_block.DECLINED:
        return "declined"
    full = _outcome(lambda: goyaml_read.decode(text) if json_step else goyaml_read.decode_unconverted(text))
    if fast[0] != full[0]:
        return None
    return "same" if (same(fast[1], full[1]) if fast[0] == "value" else fast[1] == full[1]) else None
