"""Outcomes of the conformance cases of one pytest run, for the terminal summary."""
from __future__ import annotations

#: (chart, values set) -> "exact" | "exact (error)" | "random-equivalent" | "mismatch" | "error"
OUTCOMES: dict[tuple[str, str], str] = {}


def summary_lines() -> list[str]:
    charts = sorted({chart for chart, _ in OUTCOMES})
    exact = [c for c in charts if all(v.startswith("exact") for (k, _), v in OUTCOMES.items() if k == c)]
    equivalent = [c for c in charts if all(v.startswith("exact") or v == "random-equivalent"
                                           for (k, _), v in OUTCOMES.items() if k == c)]
    lines = [f"{len(exact)}/{len(charts)} charts match exactly",
             f"{len(equivalent)}/{len(charts)} charts match up to random values (passwords, keys, certificates)"]
    for (chart, values), outcome in sorted(OUTCOMES.items()):
        lines.append(f"  {chart:28} {values:8} {outcome}")
    return lines
