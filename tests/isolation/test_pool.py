"""Render workers: the same output as rendering in-process, and every limit and crash turned
into a clean error naming the chart, with the worker replaced and other tenants served."""
from __future__ import annotations

import os
import signal
import threading
from pathlib import Path
from typing import Any

import pytest

from helm_core import errors
from helm_core.chart import loader
from helm_core.engine import render as render_mod
from helm_core.engine import renderer as renderer_mod
from helm_core.isolation import RenderPool, process
from helm_core.support.limits import MIB, RenderCrashed, RenderLimitExceeded, RenderLimits
from tests.chartkit import chart_yaml, write_chart

SHARED_CHARTS = Path(__file__).resolve().parents[3] / "shared" / "charts"
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "charts" / "hello"
#: A loop of RSA key generation: seconds of CPU, whatever the engine.
SLOW = '{{- range until 100000 }}{{ $k := genPrivateKey "rsa" }}{{- end }}\na: 1\n'
#: A string doubled until memory runs out.
GROW = ('{{- $s := "abcdefghij" }}{{- range until 40 }}{{- $s = printf "%s%s" $s $s }}{{- end }}\n'
        'a: {{ len $s }}\n')


def _chart(tmp_path: Path, name: str, template: str, **extra: str) -> Path:
    files = {"Chart.yaml": chart_yaml(name), "templates/cm.yaml": template}
    files.update(extra)
    return write_chart(tmp_path / name, files)


def _render(renderer: renderer_mod.Renderer, path: Path, values: dict | None = None,
            options: render_mod.RenderOptions = render_mod.RenderOptions()) -> renderer_mod.RenderedDocuments:
    prepared = renderer.prepare(loader.load(path), values or {})
    return renderer.render(prepared.chart, prepared.values, options)


def _flat(done: renderer_mod.RenderedDocuments) -> list[tuple[str, str, dict]]:
    return [(d.source, d.content, d.obj) for d in done.documents]


class _Renders:
    """The render requests workers are answering now (sent, no reply yet), through
    ``WorkerProcess.request``: the sign that a slow chart holds its worker for its render, not
    for the prepare before it (whose worker may take long to start on a slow machine)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.procs: list[process.WorkerProcess] = []
        self._cond = threading.Condition()
        request = process.WorkerProcess.request

        def counted(proc: process.WorkerProcess, message: Any, **kwargs: Any) -> dict[str, Any]:
            if message.get("op") != "render":
                return request(proc, message, **kwargs)
            with self._cond:
                self.procs.append(proc)
                self._cond.notify_all()
            try:
                return request(proc, message, **kwargs)
            finally:
                with self._cond:
                    self.procs.remove(proc)

        monkeypatch.setattr(process.WorkerProcess, "request", counted)

    def wait_for(self, count: int) -> list[process.WorkerProcess]:
        """The workers rendering, once ``count`` of them are."""
        with self._cond:
            assert self._cond.wait_for(lambda: len(self.procs) >= count, timeout=120), \
                f"{len(self.procs)} renders started, not {count}"
            return list(self.procs)


@pytest.fixture
def pool():
    p = RenderPool(workers=2, limits=RenderLimits(timeout_s=60, cpu_s=60))
    yield p
    p.close()


def _charts() -> list[Path]:
    found = sorted(p for p in SHARED_CHARTS.iterdir() if (p / "Chart.yaml").exists()) \
        if SHARED_CHARTS.is_dir() else []
    return [EXAMPLE, *found]


@pytest.mark.parametrize("path", _charts(), ids=lambda p: p.name)
def test_worker_renders_what_this_process_renders(pool: RenderPool, path: Path) -> None:
    local, again = _flat(_render(renderer_mod.LOCAL, path)), _flat(_render(renderer_mod.LOCAL, path))
    isolated = _render(pool.renderer(tenant="t"), path)
    # documents with generated secrets (random keys, certificates) differ from run to run:
    # those are compared by source and kind only
    assert [(s, o.get("kind")) for s, _, o in _flat(isolated)] == [(s, o.get("kind")) for s, _, o in local]
    stable = [i for i, doc in enumerate(local) if doc == again[i]]
    assert [_flat(isolated)[i] for i in stable] == [local[i] for i in stable]
    assert len(stable) >= len(local) // 2
    assert isolated.notes == _render(renderer_mod.LOCAL, path).notes


def test_shared_charts_are_there_or_said_missing() -> None:
    if not SHARED_CHARTS.is_dir():
        pytest.skip(f"{SHARED_CHARTS} is not present: only the example chart was compared")


def test_a_request_may_lower_limits_never_raise_them(pool: RenderPool) -> None:
    own = pool.renderer(tenant="t", limits=RenderLimits(timeout_s=5, cpu_s=1000, memory_bytes=64 * MIB,
                                                        output_bytes=10**12))
    assert (own.limits.timeout_s, own.limits.cpu_s) == (5, 60)
    assert own.limits.memory_bytes == 64 * MIB
    assert own.limits.output_bytes == pool.limits.output_bytes


def test_timeout_kills_the_worker_and_names_the_chart(pool: RenderPool, tmp_path: Path) -> None:
    path = _chart(tmp_path, "slow", SLOW)
    with pytest.raises(RenderLimitExceeded) as caught:
        _render(pool.renderer(tenant="t", limits=RenderLimits(timeout_s=1.5, cpu_s=60)), path)
    assert caught.value.limit == "timeout_s"
    assert str(caught.value).startswith("chart slow-0.1.0: ")
    assert "1.5s" in str(caught.value)
    # the pool goes on with a fresh worker
    assert _flat(_render(pool.renderer(tenant="t"), EXAMPLE)) == _flat(_render(renderer_mod.LOCAL, EXAMPLE))


def test_cpu_limit(pool: RenderPool, tmp_path: Path) -> None:
    path = _chart(tmp_path, "slow", SLOW)
    with pytest.raises(RenderLimitExceeded) as caught:
        _render(pool.renderer(tenant="t", limits=RenderLimits(timeout_s=60, cpu_s=1)), path)
    assert caught.value.limit == "cpu_s"
    assert str(caught.value) == "chart slow-0.1.0: rendering used more than its CPU limit of 1s"


def test_memory_limit(pool: RenderPool, tmp_path: Path) -> None:
    path = _chart(tmp_path, "grow", GROW)
    # an output limit far away: the process runs out of the memory it may use first
    roomy = RenderPool(workers=1, limits=RenderLimits(memory_bytes=256 * MIB, output_bytes=1 << 40))
    try:
        with pytest.raises(RenderLimitExceeded) as caught:
            _render(roomy.renderer(tenant="t"), path)
    finally:
        roomy.close()
    assert caught.value.limit == "memory_bytes"
    assert str(caught.value) == "chart grow-0.1.0: rendering needed more memory than its limit of 256MiB"
    # with the default output limit, the engine stops the string before memory runs short
    with pytest.raises(RenderLimitExceeded) as caught:
        _render(pool.renderer(tenant="t", limits=RenderLimits(memory_bytes=256 * MIB)), path)
    assert str(caught.value) == ("chart grow: template grow/templates/cm.yaml: passed the render output "
                                 "limit of 64MiB (a string of 83886080 characters)")


def test_output_limit(pool: RenderPool, tmp_path: Path) -> None:
    path = _chart(tmp_path, "big", 'a: {{ repeat 2000000 "x" }}\n')
    with pytest.raises(RenderLimitExceeded) as caught:
        _render(pool.renderer(tenant="t", limits=RenderLimits(output_bytes=1 * MIB)), path)
    assert caught.value.limit == "output_bytes"
    assert str(caught.value) == ("chart big: template big/templates/cm.yaml: passed the render output "
                                 "limit of 1MiB (a string of 2000000 characters)")


def test_a_crashed_worker_is_reported_and_replaced(pool: RenderPool, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    path = _chart(tmp_path, "slow", SLOW)
    renderer = pool.renderer(tenant="t")
    chart = loader.load(path)
    prepared = renderer.prepare(chart, {})
    before = pool.started
    renders = _Renders(monkeypatch)

    def crash_when_busy() -> None:
        for proc in renders.wait_for(1):
            os.kill(proc.pid, signal.SIGSEGV)

    killer = threading.Thread(target=crash_when_busy)
    killer.start()
    with pytest.raises(RenderCrashed) as caught:
        renderer.render(prepared.chart, prepared.values, render_mod.RenderOptions())
    killer.join()
    assert str(caught.value) == ("chart slow-0.1.0: the worker rendering it crashed (killed by SIGSEGV); "
                                 "nothing was applied")
    assert _render(pool.renderer(tenant="t"), EXAMPLE).documents
    assert pool.started > before


def test_workers_are_the_first_processes_the_oom_killer_takes(pool: RenderPool) -> None:
    _render(pool.renderer(tenant="t"), EXAMPLE)  # a worker started
    own = Path("/proc/self/oom_score_adj").read_text().strip()
    for proc in list(pool._all):
        assert Path(f"/proc/{proc.pid}/oom_score_adj").read_text().strip() == "1000"
    assert own != "1000"  # the controller keeps its own


def test_one_tenant_cannot_take_every_worker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pool = RenderPool(workers=2, limits=RenderLimits(timeout_s=8, cpu_s=60))
    renders = _Renders(monkeypatch)
    slow = _chart(tmp_path, "slow", SLOW)
    outcomes: dict[str, str] = {}

    def hostile(n: int) -> None:
        try:
            _render(pool.renderer(tenant="hostile"), slow)
        except RenderLimitExceeded as exc:
            outcomes[f"hostile{n}"] = exc.limit

    try:
        threads = [threading.Thread(target=hostile, args=(n,)) for n in range(2)]
        for t in threads:
            t.start()
        renders.wait_for(1)  # one holds its worker; the other waits for it (one per tenant)
        done = _render(pool.renderer(tenant="good"), EXAMPLE)
        # the good tenant was served while the hostile one still held its worker
        still_running = sum(t.is_alive() for t in threads)
        for t in threads:
            t.join()
    finally:
        pool.close()
    assert done.documents
    assert still_running == 2
    assert outcomes == {"hostile0": "timeout_s", "hostile1": "timeout_s"}


def test_a_tenant_holding_no_worker_is_served_while_others_hold_them_all(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hostile charts in as many namespaces as there are workers: a request of another
    namespace gets a burst worker at once (closed after it), rather than waiting for a render
    timeout."""
    pool = RenderPool(workers=2, limits=RenderLimits(timeout_s=8, cpu_s=60))
    renders = _Renders(monkeypatch)
    slow = _chart(tmp_path, "slow", SLOW)
    outcomes: dict[str, str] = {}

    def hostile(tenant: str) -> None:
        try:
            _render(pool.renderer(tenant=tenant), slow)
        except RenderLimitExceeded as exc:
            outcomes[tenant] = exc.limit

    try:
        threads = [threading.Thread(target=hostile, args=(f"hostile{n}",)) for n in range(2)]
        for n, t in enumerate(threads, 1):  # one after the other: each renders where it prepared
            t.start()
            renders.wait_for(n)
        done = _render(pool.renderer(tenant="good"), EXAMPLE)
        still_running = sum(t.is_alive() for t in threads)
        during = len(pool._all)
        for t in threads:
            t.join()
        after = len(pool._all)
    finally:
        pool.close()
    assert done.documents
    assert still_running == 2  # served while both hostile renders held their workers
    assert during == 2  # the burst worker was closed when its request ended
    assert after <= 2
    assert outcomes == {"hostile0": "timeout_s", "hostile1": "timeout_s"}


def test_without_burst_workers_a_tenant_waits_for_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pool = RenderPool(workers=1, per_tenant=1, burst=0, limits=RenderLimits(timeout_s=3, cpu_s=60))
    renders = _Renders(monkeypatch)
    slow = _chart(tmp_path, "slow", SLOW)
    hostile = threading.Thread(target=lambda: pytest.raises(RenderLimitExceeded, _render,
                                                            pool.renderer(tenant="hostile"), slow))
    try:
        hostile.start()
        renders.wait_for(1)
        assert _render(pool.renderer(tenant="good"), EXAMPLE).documents
        served_after_the_timeout = not hostile.is_alive()
        hostile.join()
    finally:
        pool.close()
    assert served_after_the_timeout


def test_lookup_is_answered_by_the_caller(pool: RenderPool, tmp_path: Path) -> None:
    path = _chart(tmp_path, "look", 'a: {{ (lookup "v1" "ConfigMap" "ns" "cm").data.k }}\n')
    calls = []

    def lookup(api_version: str, kind: str, namespace: str, name: str) -> dict:
        calls.append((api_version, kind, namespace, name))
        return {"data": {"k": "from-the-cluster"}}

    done = _render(pool.renderer(tenant="t"), path, options=render_mod.RenderOptions(lookup=lookup))
    assert calls == [("v1", "ConfigMap", "ns", "cm")]
    assert done.documents[0].obj == {"a": "from-the-cluster"}

    def refused(*_args: str) -> dict:
        raise errors.ForbiddenError("configmaps is forbidden: User cannot get")

    options = render_mod.RenderOptions(lookup=refused)
    with pytest.raises(errors.TemplateError) as isolated:
        _render(pool.renderer(tenant="t"), path, options=options)
    with pytest.raises(errors.TemplateError) as local:
        _render(renderer_mod.LOCAL, path, options=options)
    assert str(isolated.value) == str(local.value)


def test_schema_errors_come_back_whole(pool: RenderPool, tmp_path: Path) -> None:
    path = _chart(tmp_path, "schema", "a: {{ .Values.count }}\n",
                  **{"values.schema.json": '{"properties": {"count": {"type": "integer", "minimum": 3}}}',
                     "values.yaml": "count: 1\n"})
    with pytest.raises(errors.SchemaError) as isolated:
        _render(pool.renderer(tenant="t"), path)
    with pytest.raises(errors.SchemaError) as local:
        _render(renderer_mod.LOCAL, path)
    assert str(isolated.value) == str(local.value)
    assert isolated.value.violations == local.value.violations


def test_template_errors_are_the_same(pool: RenderPool, tmp_path: Path) -> None:
    path = _chart(tmp_path, "bad", 'a: {{ required "n is required" .Values.n }}\n')
    with pytest.raises(errors.TemplateError) as isolated:
        _render(pool.renderer(tenant="t"), path)
    with pytest.raises(errors.TemplateError) as local:
        _render(renderer_mod.LOCAL, path)
    assert str(isolated.value) == str(local.value)


def test_archives_are_loaded_in_a_worker_first(pool: RenderPool, tmp_path: Path) -> None:
    from tests.chartkit import make_tgz, tar_entry

    bomb = make_tgz([tar_entry("c/Chart.yaml", chart_yaml("c").encode()),
                     tar_entry("c/values.yaml", b"a: &a [" + b"x," * 10 + b"]\n")])
    assert pool.renderer(tenant="t").load_archive(bomb, source="c.tgz").name == "c"
    with pytest.raises(errors.ArchiveError) as isolated:
        pool.renderer(tenant="t").load_archive(b"not a tarball", source="junk.tgz")
    with pytest.raises(errors.ArchiveError) as local:
        renderer_mod.LOCAL.load_archive(b"not a tarball", source="junk.tgz")
    assert str(isolated.value) == str(local.value)


def test_a_closed_pool_refuses_work(tmp_path: Path) -> None:
    pool = RenderPool(workers=1)
    pool.close()
    with pytest.raises(errors.HelmError, match="render pool is shut down"):
        _render(pool.renderer(tenant="t"), EXAMPLE)


def test_render_falls_back_when_its_worker_did_not_prepare_the_chart(pool: RenderPool) -> None:
    renderer = pool.renderer(tenant="t")
    prepared = renderer.prepare(loader.load(EXAMPLE), {})
    for proc in list(pool._idle):  # the worker that prepared it is gone: a fresh one renders
        proc.close()
    pool._idle.clear()
    done = renderer.render(prepared.chart, prepared.values, render_mod.RenderOptions())
    assert _flat(done) == _flat(_render(renderer_mod.LOCAL, EXAMPLE))


def _archive(tmp_path: Path) -> bytes:
    from tests.chartkit import make_tgz, tar_entry

    return make_tgz([tar_entry("c/Chart.yaml", chart_yaml("c").encode()),
                     tar_entry("c/templates/cm.yaml", b"a: {{ .Values.a | default 1 }}\n")])


def _install_like(renderer: renderer_mod.Renderer, data: bytes) -> list[tuple[str, str, dict]]:
    """What an install asks of its renderer: load, prepare, render."""
    prepared = renderer.prepare(renderer.load_archive(data, source="c.tgz"), {"a": 2})
    return _flat(renderer.render(prepared.chart, prepared.values, render_mod.RenderOptions()))


def test_a_chart_crosses_to_the_worker_once_per_digest(tmp_path: Path) -> None:
    """The second install of an archive sends neither the archive (it loaded within these
    limits) nor the chart (the worker keeps it by digest): two round trips, not three."""
    pool = RenderPool(workers=1, limits=RenderLimits(timeout_s=60, cpu_s=60))
    try:
        data = _archive(tmp_path)
        first = _install_like(pool.renderer(tenant="t"), data)
        assert pool.round_trips == 3  # load, prepare, render
        assert _install_like(pool.renderer(tenant="t"), data) == first
        assert pool.round_trips == 5  # prepare (by digest), render
        assert first == _install_like(renderer_mod.LOCAL, data)
        lowered = pool.renderer(tenant="t", limits=RenderLimits(timeout_s=30))
        assert _install_like(lowered, data) == first
        assert pool.round_trips == 8  # other limits: loaded in a worker again
    finally:
        pool.close()


def test_prepare_sends_the_chart_whole_to_a_worker_without_it(tmp_path: Path) -> None:
    pool = RenderPool(workers=1, limits=RenderLimits(timeout_s=60, cpu_s=60))
    try:
        data = _archive(tmp_path)
        first = _install_like(pool.renderer(tenant="t"), data)
        for proc in list(pool._idle):  # the worker that loaded it is gone: a fresh one prepares
            proc.close()
        pool._idle.clear()
        rounds = pool.round_trips
        assert _install_like(pool.renderer(tenant="t"), data) == first
        assert pool.round_trips == rounds + 3  # prepare by digest (NotKept), whole, render
    finally:
        pool.close()


def test_schema_validation_in_the_worker_follows_the_caller(pool: RenderPool, tmp_path: Path) -> None:
    """The worker prepares with the caller's ``validate_schema`` (--skip-schema-validation)."""
    path = _chart(tmp_path, "typed", "a: {{ .Values.n }}\n",
                  **{"values.schema.json": '{"properties": {"n": {"type": "integer"}}}'})
    renderer = pool.renderer(tenant="t")
    with pytest.raises(errors.SchemaError):
        renderer.prepare(loader.load(path), {"n": "x"})
    prepared = renderer.prepare(loader.load(path), {"n": "x"}, validate_schema=False)
    done = renderer.render(prepared.chart, prepared.values, render_mod.RenderOptions())
    assert [d.obj for d in done.documents] == [{"a": "x"}]


def test_values_files_are_read_in_the_worker_and_key_the_kept_chart(pool: RenderPool) -> None:
    from helm_core.chart.values_files import ValuesFiles
    from tests.chartkit import make_tgz, tar_entry

    data = make_tgz([tar_entry("c/Chart.yaml", chart_yaml("c").encode()),
                     tar_entry("c/values.yaml", b"a: 1\n"), tar_entry("c/prod.yaml", b"a: 5\n"),
                     tar_entry("c/templates/cm.yaml", b"a: {{ .Values.a }}\n")])
    renderer = pool.renderer(tenant="t")

    def rendered(values_files: ValuesFiles | None) -> str:
        chart = renderer.load_archive(data, source="c.tgz", values_files=values_files)
        prepared = renderer.prepare(chart, {})
        return renderer.render(prepared.chart, prepared.values, render_mod.RenderOptions()).documents[0].content

    assert rendered(ValuesFiles(paths=("prod.yaml",))) == "a: 5"
    assert rendered(None) == "a: 1"  # the same archive without them: not the chart kept above
    with pytest.raises(errors.ValuesError) as isolated:
        renderer.load_archive(data, source="c.tgz", values_files=ValuesFiles(paths=("x.yaml",)))
    assert str(isolated.value) == "failed to merge chart values: no values file found at path 'x.yaml'"


def test_helms_warnings_are_logged_once_by_the_parent_not_by_the_worker(
        tmp_path: Path, capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> None:
    """The controller's log gets helm's coalescing warnings from its own prepare, in its format;
    the worker (whose load and prepare the parent repeats) would print them again, bare, on the
    stderr they share."""
    from helm_core.sources import package
    from tests.test_coalesce_warnings_helm import CONFLICTS

    data = package.archive_bytes("p", [(name, text.encode()) for name, text in CONFLICTS.items()])
    pool = RenderPool(workers=1, limits=RenderLimits(timeout_s=60, cpu_s=60))
    try:
        renderer = pool.renderer(tenant="t")
        prepared = renderer.prepare(renderer.load_archive(data, source="p.tgz"), {"nested": {"a": {"b": 5}}})
        done = renderer.render(prepared.chart, prepared.values, render_mod.RenderOptions())
    finally:
        pool.close()
    assert len(done.documents) == 4
    said = [(r.name, r.levelname, r.getMessage()) for r in caplog.records if r.name.startswith("helm_core")]
    user = "coalesce.go:316: warning: cannot overwrite table with non table for p.nested.a.b (map[c:<nil> d:1e+06])"
    subcharts = ["coalesce.go:316: warning: cannot overwrite table with non table for p.one.cfg.a (map[deep:1])",
                 "coalesce.go:319: warning: destination for p.two.cfg.a is a table. Ignoring non-table value (2.5)",
                 "coalesce.go:237: warning: skipped value for p.three.name: Not a table."]
    assert said == [("helm_core.chart.values", "WARNING", line)
                    for line in [user, *subcharts, *subcharts, user, *subcharts]]
    assert capfd.readouterr().err == ""
