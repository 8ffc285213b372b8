"""Overhead of chart Lua in `helm-core template`: load the chart's scripts and fire the
template events (chart-loaded, pre-render, post-render, post-template), versus the same
chart without ext/lua/. Prints median and p90 milliseconds per operation.

Target (issue 4): under 20 ms warm, i.e. with a worker process already started by the
pool. The in-process figure is the cost of the sandbox alone; "cold" includes starting
the worker interpreter.

    .venv/bin/python bench/lua_overhead.py [runs]
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import yaml

from helm_core import lua

from helm_core.support import records
import helm_core
from helm_core.chart import prepare

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "charts" / "lua-postrender"
EVENTS = lua.ACTIONS["template"]


def objects_for(chart, n: int) -> tuple[lua.RenderedObject, ...]:
    """n rendered objects shaped like a Deployment, as post-render receives them."""
    doc = yaml.safe_load((EXAMPLE / "templates" / "deployment.yaml").read_text().replace("{{ .Release.Name }}", "demo")
                         .replace("{{ .Values.replicaCount }}", "2").replace('"{{ .Values.image.repository }}:{{ .Values.image.tag }}"', "nginx"))
    return tuple(lua.RenderedObject(f"{chart.name}/templates/d{i}.yaml", doc) for i in range(n))


def operation(chart, values, objects, session_factory) -> None:
    with lua.load_chart_scripts(chart, accepted_permissions=(), session_factory=session_factory) as scripts:
        ctx = lua.new_context(chart, release=lua.ReleaseInfo("demo"), values=values)
        for event in EVENTS:
            if event == "post-render":
                ctx = records.replace(ctx, objects=objects)
            ctx = scripts.fire(event, ctx)


def measure(label: str, runs: int, fn, before=None) -> float:
    times = []
    for _ in range(runs):
        if before:
            before()
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    times.sort()
    med = statistics.median(times)
    p90 = times[int(len(times) * 0.9) - 1]
    print(f"{label:<44} median {med:8.2f} ms   p90 {p90:8.2f} ms")
    return med


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    chart = helm_core.load_chart(str(EXAMPLE))
    prepared = prepare.prepare_chart(chart, {})
    with_lua = prepared.chart
    without_lua = records.replace(with_lua, files=[f for f in with_lua.files if not f.name.startswith("ext/")])
    values = prepared.values
    print(f"chart {chart.name}, events {', '.join(EVENTS)}, {runs} runs each")
    for n in (3, 100):
        objects = objects_for(with_lua, n)
        print(f"-- {n} rendered objects")
        base = measure("without Lua", runs, lambda: operation(without_lua, values, objects, None))
        inproc = measure("with Lua, in process (no wall-clock kill)", runs,
                         lambda: operation(with_lua, values, objects, lua.InProcessSession))
        pool = lua.WorkerPool()
        try:
            warm = measure("with Lua, warm worker process (default)", runs,
                           lambda: operation(with_lua, values, objects, pool.session),
                           before=lambda: pool.warm(wait=True))
        finally:
            pool.close()
        cold = measure("with Lua, cold worker process", max(3, runs // 5),
                       lambda: operation(with_lua, values, objects, lua.WorkerSession))
        print(f"overhead vs without Lua: in process {inproc - base:.2f} ms, warm worker {warm - base:.2f} ms "
              f"(target < 20 ms), cold worker {cold - base:.2f} ms")


if __name__ == "__main__":
    main()
