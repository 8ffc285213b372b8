"""Render workers shared by every request, fairly, and the Renderer that uses them.

Rules:
- ``workers`` processes kept (and burst ones, below); one request at a time each. A worker
  past a limit, or dead, is killed and the next request starts a fresh one: a chart that
  crashes or hangs costs its own request, never another's.
- Fairness: one tenant (the controller passes the namespace) holds at most ``per_tenant``
  workers at once (default: all but one), so a namespace full of hostile or slow charts
  always leaves a worker for the others. A tenant that holds none gets one at once even when
  every worker is busy (other namespaces' hostile charts running up to their time limit),
  by starting one of at most ``burst`` extra workers (default: ``workers``), each closed when
  its request ends: hostile charts then delay another namespace only when they run in more
  namespaces than ``workers + burst``.
- A request prefers an idle worker that rendered the same chart lately (warm caches).
- A chart crosses the pipe once per archive digest and worker: the worker keeps the charts it
  loaded (or was sent) by digest, and prepare names the chart by digest; a worker that does
  not hold it says so and gets it whole. An archive that loaded within a set of limits is not
  sent to a worker again under the same limits (loading is deterministic).
- The CPU-heavy steps run in the worker and are then repeated cheaply in the caller where
  the caller needs the objects: loading an archive (deterministic: once it has loaded within
  its budget in a worker, it loads the same way here) and coalescing values (the schema
  check, with its chart-supplied patterns, runs only in the worker).
"""
from __future__ import annotations

import collections
import contextlib
import hashlib
import os
import secrets
import signal
import threading
import time
from collections.abc import Iterator, Mapping
from typing import Any

from helm_core import errors
from helm_core.chart import loader, model, prepare
from helm_core.chart.values_files import ValuesFiles, with_values_files
from helm_core.engine import manifests as mf
from helm_core.engine import render as render_mod
from helm_core.engine import renderer as renderer_mod
from helm_core.isolation import process
from helm_core.isolation.serve import rebuild_error
from helm_core.support.limits import DEFAULT_LIMITS, RenderCrashed, RenderLimitExceeded, RenderLimits, describe_bytes
from helm_core.support.records import replace

#: Bytes a reply may have beyond the output limit (objects travel beside their text).
REPLY_SLACK = 1 << 20
#: How many charts a worker remembers for affinity.
RECENT_CHARTS = 8
#: Archives (digest and limits) remembered as loading within their limits.
VERIFIED_ARCHIVES = 256


def default_workers() -> int:
    """Two on a small machine, up to four: renders are short, most time is spent waiting on
    the API server."""
    return max(2, min(4, os.cpu_count() or 2))


class RenderPool:
    """Worker processes for rendering, shared between tenants."""

    def __init__(self, *, workers: int | None = None, limits: RenderLimits = DEFAULT_LIMITS,
                 per_tenant: int | None = None, burst: int | None = None) -> None:
        self.size = workers or default_workers()
        if self.size < 1:
            raise ValueError("a render pool needs at least one worker")
        self.limits = limits
        self.per_tenant = per_tenant or max(1, self.size - 1)
        self.burst = self.size if burst is None else max(0, burst)
        """Workers started beyond ``size`` for tenants that hold none (closed after their request)."""
        self._cond = threading.Condition()
        self._idle: list[process.WorkerProcess] = []
        self._all: set[process.WorkerProcess] = set()
        self._busy = 0
        self._tenants: dict[str, int] = {}
        self._closed = False
        self._verified: collections.OrderedDict[tuple[str, RenderLimits], None] = collections.OrderedDict()
        self.started = 0
        """Worker processes started so far (a restart after a kill counts)."""
        self.round_trips = 0
        """Requests sent to workers so far (a resend after NotKept counts)."""

    def verified(self, digest: str, limits: RenderLimits) -> bool:
        """True when the archive ``digest`` loaded in a worker within ``limits`` before."""
        with self._cond:
            if (digest, limits) not in self._verified:
                return False
            self._verified.move_to_end((digest, limits))
            return True

    def mark_verified(self, digest: str, limits: RenderLimits) -> None:
        with self._cond:
            self._verified[(digest, limits)] = None
            while len(self._verified) > VERIFIED_ARCHIVES:
                self._verified.popitem(last=False)

    def renderer(self, *, tenant: str = "", limits: RenderLimits | None = None) -> IsolatedRenderer:
        """A Renderer for one request of ``tenant``; ``limits`` may only lower the pool's."""
        own = self.limits if limits is None else self.limits.lowered(
            timeout_s=limits.timeout_s, cpu_s=limits.cpu_s, memory_bytes=limits.memory_bytes,
            output_bytes=limits.output_bytes)
        return IsolatedRenderer(self, tenant=tenant, limits=own)

    def warm(self) -> None:
        """Start one worker now, so the first request does not pay the interpreter's start."""
        with self._cond:
            if self._closed or self._idle:
                return
            self.started += 1
            proc = process.WorkerProcess()
            self._all.add(proc)
            self._idle.append(proc)

    @contextlib.contextmanager
    def worker(self, *, tenant: str, affinity: str) -> Iterator[process.WorkerProcess]:
        """A worker for one request; it goes back to the pool unless it died or was killed."""
        proc = self._acquire(tenant, affinity)
        try:
            yield proc
        finally:
            self._release(proc, tenant, affinity)

    def _acquire(self, tenant: str, affinity: str) -> process.WorkerProcess:
        with self._cond:
            while True:
                if self._closed:
                    raise errors.HelmError("the render pool is shut down")
                held = self._tenants.get(tenant, 0)
                if held < self.per_tenant and self._busy < self.size:
                    break
                if not held and self._busy < self.size + self.burst:  # others hold every worker
                    break
                self._cond.wait()
            self._busy += 1
            self.round_trips += 1
            self._tenants[tenant] = self._tenants.get(tenant, 0) + 1
            chosen = next((w for w in self._idle if affinity in w.recent), None)
            if chosen is None and self._idle:
                chosen = self._idle[-1]
            if chosen is not None:
                self._idle.remove(chosen)
                return chosen
            self.started += 1
        try:
            proc = process.WorkerProcess()
        except OSError as exc:
            self._release(None, tenant, affinity)
            raise errors.HelmError(f"cannot start a render worker: {exc}") from exc
        with self._cond:
            self._all.add(proc)
            if self._closed:
                proc.kill()
        return proc

    def _release(self, proc: process.WorkerProcess | None, tenant: str, affinity: str) -> None:
        with self._cond:
            self._busy -= 1
            self._tenants[tenant] -= 1
            if not self._tenants[tenant]:
                del self._tenants[tenant]
            # a burst worker (more than ``size`` alive) is closed, not kept idle
            keep = proc is not None and proc.alive and not self._closed and (
                sum(w.alive for w in self._all) <= self.size)
            if proc is not None and keep:
                if affinity in proc.recent:
                    proc.recent.remove(affinity)
                proc.recent = [affinity, *proc.recent][:RECENT_CHARTS]
                self._idle.append(proc)
            elif proc is not None:
                proc.close()
                self._all.discard(proc)
            self._cond.notify_all()

    def close(self) -> None:
        """Kill every worker, busy ones too (their requests fail at once, as do requests
        waiting for a worker): what a shutdown needs."""
        with self._cond:
            self._closed = True
            every, self._idle = list(self._all), []
            self._all.clear()
            self._cond.notify_all()
        for proc in every:
            proc.kill()


class IsolatedRenderer:
    """The :class:`~helm_core.engine.renderer.Renderer` of one request, backed by a pool."""

    def __init__(self, pool: RenderPool, *, tenant: str, limits: RenderLimits) -> None:
        self.pool = pool
        self.tenant = tenant
        self.limits = limits
        self._kept: tuple[model.Chart | None, str] = (None, "")
        self._archive: tuple[model.Chart | None, str] = (None, "")
        """The chart :meth:`load_archive` returned last and its archive's digest."""

    def load_archive(self, data: bytes, *, source: str,
                     values_files: ValuesFiles | None = None) -> model.Chart:
        # a chart with other default values is another chart to the workers: its own key
        digest = hashlib.sha256(data).hexdigest()
        if values_files is not None and values_files.paths:
            digest = hashlib.sha256(f"{digest}\n{values_files!r}".encode()).hexdigest()
        if not self.pool.verified(digest, self.limits):
            # the worker reads the values files too: they are the chart's YAML as much as values.yaml
            self._ask({"op": "load", "data": data, "source": source, "digest": digest,
                       "values_files": values_files}, label=source, affinity=digest)
            self.pool.mark_verified(digest, self.limits)
        chart = with_values_files(loader.load_archive(data, source=source), values_files)
        self._archive = (chart, digest)
        return chart

    def prepare(self, chart: model.Chart, user_values: Mapping[str, Any], *,
                validate_schema: bool = True) -> prepare.Prepared:
        token = secrets.token_hex(8)
        loaded, digest = self._archive
        label = _label(chart)
        by_digest = chart is loaded  # the worker may hold it already: name it by digest
        message = {"op": "prepare", "chart": None if by_digest else chart, "digest": digest if by_digest else "",
                   "values": dict(user_values), "keep": token, "validate_schema": validate_schema}
        affinity = digest if by_digest else label
        reply = self._ask(dict(message), label=label, affinity=affinity)
        if (reply.get("error") or {}).get("type") == "NotKept":  # it does not: send it whole
            self._ask(dict(message, chart=chart), label=label, affinity=affinity)
        prepared = prepare.prepare_chart(chart, dict(user_values), validate_schema=False)
        # the worker keeps its own (identical: preparing is deterministic) prepared chart
        self._kept = (prepared.chart, token)
        return prepared

    def render(self, chart: model.Chart, values: Mapping[str, Any],
               options: render_mod.RenderOptions) -> renderer_mod.RenderedDocuments:
        lookup = options.lookup

        def answer(call: dict[str, Any]) -> Any:
            if call.get("call") != "lookup" or lookup is None:
                return {}  # no lookup: an empty map, as ``helm template`` gives
            api_version, kind, namespace, name = (str(a) for a in call.get("args") or ())
            return lookup(api_version, kind, namespace, name)

        message = {"op": "render", "chart": chart, "values": dict(values),
                   "options": replace(options, lookup=None)}
        kept, token = self._kept
        if chart is kept:  # unchanged since prepare (no Lua handler replaced templates)
            message.update(chart=None, kept=token)
        reply = self._ask(dict(message), label=_label(chart), affinity=_label(chart), on_call=answer)
        if (reply.get("error") or {}).get("type") == "NotKept":  # another worker prepared it
            reply = self._ask(dict(message, chart=chart), label=_label(chart), affinity=_label(chart),
                              on_call=answer)
        documents = [mf.Manifest(source=str(s), content=str(c), obj=o if isinstance(o, dict) else {})
                     for s, c, o in reply.get("documents") or []]
        return renderer_mod.RenderedDocuments(documents, str(reply.get("notes") or ""))

    def _ask(self, message: dict[str, Any], *, label: str, affinity: str,
             on_call: Any = None) -> dict[str, Any]:
        limits = self.limits
        message["limits"] = limits
        with self.pool.worker(tenant=self.tenant, affinity=affinity) as proc:
            try:
                proc.wait_ready()  # a fresh worker's start-up is not the chart's time
            except (process.WorkerTimedOut, process.WorkerDied) as exc:
                raise RenderCrashed(f"chart {label}: a render worker could not start ({exc})") from None
            deadline = time.monotonic() + limits.timeout_s
            try:
                reply = proc.request(message, deadline=deadline,
                                     max_reply=4 * limits.output_bytes + REPLY_SLACK,
                                     on_call=on_call or (lambda _call: {}))
            except process.WorkerTimedOut:
                raise RenderLimitExceeded(
                    f"chart {label}: rendering took longer than the render timeout of "
                    f"{limits.timeout_s:g}s; its worker was stopped", limit="timeout_s") from None
            except process.ReplyTooLarge:
                raise RenderLimitExceeded(
                    f"chart {label}: rendered more than its output limit of "
                    f"{describe_bytes(limits.output_bytes)}", limit="output_bytes") from None
            except process.WorkerDied as died:
                if died.signum == signal.SIGXCPU:
                    raise RenderLimitExceeded(
                        f"chart {label}: rendering used more than its CPU limit of {limits.cpu_s:g}s",
                        limit="cpu_s") from None
                raise RenderCrashed(f"chart {label}: the worker rendering it crashed "
                                    f"({died.how}); nothing was applied") from None
            error = reply.get("error") or {}
            if error.get("type") == "MemoryError":
                proc.close()  # its heap may be fragmented past use: start afresh
        if reply.get("ok") or error.get("type") == "NotKept":
            return reply
        if error.get("type") == "MemoryError":
            raise RenderLimitExceeded(
                f"chart {label}: rendering needed more memory than its limit of "
                f"{describe_bytes(limits.memory_bytes)}", limit="memory_bytes")
        raise rebuild_error(error)  # the engine's limit errors name the chart and template


def _label(chart: model.Chart) -> str:
    """How messages name a chart: ``name-version``."""
    return f"{chart.metadata.name}-{chart.metadata.version}"
