"""Helpers for the Lua tests: build charts from the model and run their scripts."""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from helm_core import lua
from helm_core.chart import model
from helm_core.lua import limits as limits_mod, sandbox

#: Small limits so hostile scripts fail fast.
TEST_LIMITS = limits_mod.LuaLimits(
    max_instructions=5_000_000, max_memory=16 * 1024 * 1024, max_items=10_000,
    max_depth=50, max_bytes=1_000_000, timeout_seconds=5.0)


def chart(name: str, *, lua_files: Mapping[str, str] | None = None,
          files: Mapping[str, bytes] | None = None, templates: Mapping[str, bytes] | None = None,
          subcharts: Iterable[model.Chart] = (), permissions: str | None = None,
          dependencies: Iterable[model.Dependency] = ()) -> model.Chart:
    """A chart as the loader would produce it; ``lua_files`` maps ``chart`` or
    ``lib/x`` to Lua source under ``ext/lua/``."""
    all_files = [model.File(f"ext/lua/{k}.lua", v.encode()) for k, v in (lua_files or {}).items()]
    all_files += [model.File(k, v) for k, v in (files or {}).items()]
    if permissions is not None:
        all_files.append(model.File("ext/permissions.yaml", permissions.encode()))
    c = model.Chart(
        metadata=model.Metadata(api_version="v2", name=name, version="1.2.3", app_version="4.5",
                                description="test chart", dependencies=list(dependencies)),
        files=all_files,
        templates=[model.File(k, v) for k, v in (templates or {}).items()])
    for sub in subcharts:
        c.add_dependency(sub)
    return c


def handler(event: str, body: str, weight: float = 0.5) -> str:
    """chart.lua registering one handler; the body starts on line 2."""
    return f'events.on("{event}", {weight}, function(_)\n{body}\nend)\n'


def runtime(source: str, *, permissions: frozenset[str] = frozenset(),
            limits: limits_mod.LuaLimits = TEST_LIMITS, files: Mapping[str, bytes] | None = None,
            modules: Mapping[str, str] | None = None) -> sandbox.ChartRuntime:
    """A loaded in-process runtime of chart ``c`` with ``source`` as chart.lua."""
    sources = {"ext/lua/chart.lua": source.encode()}
    sources.update({f"ext/lua/{k}.lua": v.encode() for k, v in (modules or {}).items()})
    rt = sandbox.ChartRuntime(
        chart="c", sources=sources, files=dict(files or {}),
        static={"chart": {"name": "c", "version": "1.2.3"}, "dependencies": [], "files": []},
        permissions=permissions, limits=limits)
    rt.load()
    return rt


def pre_render(rt: sandbox.ChartRuntime, values: Mapping[str, Any] | None = None) -> dict[str, Any]:
    return rt.fire("pre-render", {
        "release": {"name": "r"}, "capabilities": {"apiVersions": ["v1"]},
        "values": dict(values or {"a": 1}), "templates": []})


def context(c: model.Chart, values: Mapping[str, Any] | None = None,
            objects: Iterable[lua.RenderedObject] = ()) -> lua.EventContext:
    return lua.new_context(c, release=lua.ReleaseInfo("rel", namespace="ns"),
                           values=dict(values or {}), objects=tuple(objects))


def load(c: model.Chart, *, accepted: Iterable[str] = (), log: list[str] | None = None,
         limits: limits_mod.LuaLimits = TEST_LIMITS) -> lua.ChartScripts:
    sink = log if log is not None else []
    return lua.load_chart_scripts(c, accepted_permissions=accepted, limits=limits,
                                  log=sink.append, session_factory=lua.InProcessSession)
