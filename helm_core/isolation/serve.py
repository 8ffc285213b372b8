"""The worker's side: serve load, prepare and render requests from the parent, one at a time.

Each request carries its :class:`~helm_core.support.limits.RenderLimits`. Before it runs, the worker
lowers its own soft limits: ``RLIMIT_AS`` to what it uses now plus the render thread's stack
plus ``memory_bytes`` (and some slack, :func:`~helm_core.support.limits.address_space_ceiling`)
(Python then raises MemoryError, which is reported), and
``RLIMIT_CPU`` to the CPU it has used plus ``cpu_s`` (the kernel's SIGXCPU ends it, which the
parent reports). The wall clock is the parent's: it kills the worker at the deadline.

Compiled templates stay in this process between requests (the engine's caches are keyed by
template text), so a chart rendered again is not parsed again.
"""
from __future__ import annotations

import resource
from collections.abc import Mapping
from typing import Any

from helm_core import errors
from helm_core.isolation import process
from helm_core.support import helmlog
from helm_core.support import limits as limits_mod

#: Prepared charts kept for the render that follows their prepare (by the parent's token), so
#: the chart crosses the pipe once per operation, not twice.
KEEP_PREPARED = 16
_PREPARED: dict[str, Any] = {}
#: Charts kept by archive digest (loaded here, or sent whole once), so a prepare of the same
#: chart names it instead of sending it again.
KEEP_CHARTS = 8
_CHARTS: dict[str, Any] = {}


def rebuild_error(info: Mapping[str, Any]) -> Exception:
    """The helm_core error named in ``info`` (``type``, ``message``), as close as it can be
    rebuilt; anything else becomes a plain HelmError with the same words."""
    kind = getattr(errors, str(info.get("type", "")), None) or getattr(limits_mod, str(info.get("type", "")), None)
    message = str(info.get("message", ""))
    if kind is errors.SchemaError:
        return errors.SchemaError(message, list(info.get("violations") or []))
    if kind is limits_mod.RenderLimitExceeded:
        return limits_mod.RenderLimitExceeded(message, limit=str(info.get("limit", "")))
    if isinstance(kind, type) and issubclass(kind, errors.HelmError) and kind.__init__ is errors.HelmError.__init__:
        return kind(message)
    if kind is errors.TemplateError:
        return errors.TemplateError(message)
    return errors.HelmError(message)


def _lookup_through(channel: process.Channel) -> Any:
    """``lookup`` answered by the parent, its errors raised here as the parent raised them."""

    def lookup(api_version: str, kind: str, namespace: str, name: str) -> Any:
        answer = channel.call("lookup", api_version, kind, namespace, name)
        if answer.get("ok"):
            return answer.get("value")
        raise rebuild_error(answer)

    return lookup


def describe_error(exc: BaseException) -> dict[str, Any]:
    """An exception as JSON for the parent."""
    info: dict[str, Any] = {"type": type(exc).__name__, "message": str(exc)}
    if isinstance(exc, errors.SchemaError):
        info["violations"] = list(exc.violations)
    if isinstance(exc, limits_mod.RenderLimitExceeded):
        info["limit"] = exc.limit
    return info


class _Budget:
    """Soft process limits for one request, restored afterwards."""

    def __init__(self, limits: limits_mod.RenderLimits) -> None:
        self.limits = limits

    def __enter__(self) -> None:
        used = resource.getrusage(resource.RUSAGE_SELF)
        cpu = int(used.ru_utime + used.ru_stime + self.limits.cpu_s) + 1
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, resource.RLIM_INFINITY))
        ceiling = limits_mod.address_space_ceiling(self.limits.memory_bytes)
        if ceiling is not None:
            resource.setrlimit(resource.RLIMIT_AS, (ceiling, resource.RLIM_INFINITY))

    def __exit__(self, *_exc: object) -> None:
        resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        resource.setrlimit(resource.RLIMIT_CPU, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))


def handle(channel: process.Channel, request: Mapping[str, Any]) -> dict[str, Any]:
    """Run one request; every outcome is a reply (``ok`` with results, or ``error``)."""
    from helm_core.chart import loader, prepare
    from helm_core.chart.values_files import with_values_files
    from helm_core.engine import renderer
    from helm_core.support.records import replace

    limits: limits_mod.RenderLimits = request["limits"]
    op = request["op"]
    try:
        with _Budget(limits):
            if op == "load":
                loaded = loader.load_archive(request["data"], source=request["source"])
                _keep(_CHARTS, request["digest"], with_values_files(loaded, request.get("values_files")),
                      KEEP_CHARTS)
                return {"ok": True}
            if op == "prepare":
                chart = request["chart"]
                if chart is None:
                    chart = _CHARTS.get(request["digest"])
                    if chart is None:
                        return {"ok": False, "error": {"type": "NotKept", "message": ""}}
                elif request["digest"]:
                    _keep(_CHARTS, request["digest"], chart, KEEP_CHARTS)
                kept = prepare.prepare_chart(chart, dict(request["values"]),
                                             validate_schema=request["validate_schema"]).chart
                _keep(_PREPARED, request["keep"], kept, KEEP_PREPARED)
                return {"ok": True}
            if op == "render":
                chart = request["chart"] if request["chart"] is not None else _PREPARED.get(request["kept"])
                if chart is None:
                    return {"ok": False, "error": {"type": "NotKept", "message": ""}}
                # the engine's own budget words a limit with the template that passed it; the
                # process limits above stop what it cannot see (a single long call)
                options = replace(request["options"], lookup=_lookup_through(channel), limits=limits)
                done = renderer.render_documents(chart, request["values"], options)
                size = len(done.notes) + sum(len(d.content) for d in done.documents)
                if size > limits.output_bytes:
                    raise limits_mod.RenderLimitExceeded(
                        f"the chart rendered {limits_mod.describe_bytes(size)}, more than its output "
                        f"limit of {limits_mod.describe_bytes(limits.output_bytes)}", limit="output_bytes")
                return {"ok": True, "notes": done.notes,
                        "documents": [[d.source, d.content, d.obj] for d in done.documents]}
            return {"ok": False, "error": {"type": "HelmError", "message": f"unknown request {op!r}"}}
    except MemoryError:
        return {"ok": False, "error": {"type": "MemoryError", "message": ""}}
    except errors.HelmError as exc:
        return {"ok": False, "error": describe_error(exc)}
    except RecursionError:
        return {"ok": False, "error": {"type": "HelmError", "message": "chart nesting too deep"}}
    except Exception as exc:  # noqa: BLE001 - a bug of ours: named, never a silent crash
        return {"ok": False, "error": {"type": "InternalError", "message": f"{type(exc).__name__}: {exc}"}}


def _keep(kept: dict[str, Any], key: str, value: Any, most: int) -> None:
    """Remember ``value`` under ``key``, the least recently kept going past ``most``."""
    kept.pop(key, None)
    kept[key] = value
    while len(kept) > most:
        kept.pop(next(iter(kept)))


def _warm_up() -> None:
    """Import and exercise the render path once, so the first real request does not pay."""
    from helm_core.chart import model, prepare
    from helm_core.engine import render, renderer

    chart = model.Chart(metadata=model.Metadata(name="warm-up", version="0.1.0", api_version="v2"),
                        templates=[model.File("templates/cm.yaml",
                                              b"a: {{ .Values.a | toYaml }}\n")],
                        values={"a": 1})
    prepared = prepare.prepare_chart(chart, {})
    renderer.render_documents(prepared.chart, prepared.values, render.RenderOptions())


def main() -> None:
    """Worker entry point: serve requests from stdin until it closes."""
    process.worker_backstops()
    channel = process.Channel()
    _warm_up()
    channel.send({"ready": True})
    # Helm's log warnings (helmlog) come from loading and preparing, which the parent does
    # again with the chart it is sent back: the parent logs them once, in its log's format
    # (from here they would be bare lines on its stderr, once more).
    with helmlog.quiet():
        while True:
            request = channel.receive()
            if request is None:
                return
            channel.send(handle(channel, request))
