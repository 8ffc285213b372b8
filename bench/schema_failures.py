"""Cost of wording values-schema failures as helm does (v6's error tree), against jsonschema's own.

Usage: .venv/bin/python bench/schema_failures.py [rounds]   (charts of ../shared/charts with a
values schema, or $HELM_CONTROLLER_SHARED_CHARTS)

A failing render pays jsonschema's ``iter_errors`` either way (it decides the values fail); the
tree walk (``schema_tree.Walker(...).failures`` + ``schema_errors.lines``) is what wording as helm
adds. Per chart, breaking values are set and, in one process, interleaved rounds time:

- ``jsonschema``: ``iter_errors`` and its messages (what the report was made of until now);
- ``helm``: ``iter_errors`` and the walk (what it is made of now).

CPU time (``time.process_time``), median of the rounds, with the spread of the ratio (min-max of
per-round ratios) and the load average: the machine is shared, so the ratio is the figure to read.

Last, what the pass path gained: ``schema_refs.unresolved`` (every local ``$ref`` resolved, as
helm's compiler does), paid once per schema (a schema remembered valid skips it), in ms.
"""
from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from helm_core.chart import loader, prepare, schema, schema_errors, schema_refs, schema_tree  # noqa: E402

SHARED = Path(os.environ.get("HELM_CONTROLLER_SHARED_CHARTS", ROOT.parent / "shared" / "charts"))
#: A value per chart that its schema refuses (a type the schema does not allow).
BREAKING = {"prometheus": {"alertRelabelConfigs": 1}, "redis": {"architecture": 5},
            "cert-manager": {"bogus": 1, "replicaCount": "x"}, "nginx": {"ingress": {"enabled": "maybe"}},
            "external-secrets": {"affinity": "x"}, "postgresql": {"architecture": 5}}


def _validator(doc: dict) -> object:
    text = json.dumps(doc, sort_keys=True)
    return schema._compiled("bench-" + text[:64] + str(len(text)), text)


def main(argv: list[str]) -> int:
    rounds = int(argv[0]) if argv else 15
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}; {rounds} interleaved rounds, CPU ms")
    print(f"{'chart':18} {'jsonschema':>11} {'helm':>9} {'ratio':>7} {'spread':>13}")
    for name, breaking in BREAKING.items():
        folder = SHARED / name
        if not (folder / "values.schema.json").is_file():
            continue
        chart = loader.load(str(folder))
        values = prepare.prepare_chart(chart, breaking, validate_schema=False).values
        validator = _validator(chart.schema)
        old, new = [], []
        for _ in range(rounds):
            t = time.process_time()
            [e.message for e in validator.iter_errors(values)]  # type: ignore[attr-defined]
            old.append(time.process_time() - t)
            t = time.process_time()
            list(validator.iter_errors(values))  # type: ignore[attr-defined]
            schema_errors.lines(schema_tree.Walker(chart.schema, schema.no_remote).failures(values))
            new.append(time.process_time() - t)
        ratios = [n / o for n, o in zip(new, old, strict=True) if o > 0]
        print(f"{name:18} {statistics.median(old) * 1e3:11.2f} {statistics.median(new) * 1e3:9.2f} "
              f"{statistics.median(new) / statistics.median(old):6.2f}x {min(ratios):5.2f}-{max(ratios):5.2f}x")
    print(f"{'chart':18} {'local refs checked once (ms)':>30}")
    for name in BREAKING:
        path = SHARED / name / "values.schema.json"
        if path.is_file():
            doc = json.loads(path.read_text())
            text = schema._schema_text(doc)[0]
            times = []
            for _ in range(rounds):
                t = time.process_time()
                schema_refs.unresolved(doc, schema_tree.ROOT_URI, text)
                times.append(time.process_time() - t)
            print(f"{name:18} {statistics.median(times) * 1e3:30.2f}")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
