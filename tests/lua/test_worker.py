"""Runtimes in a worker process: the wall-clock limit kills it, even inside C code."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from helm_core import errors, lua

from helm_core.support import records
from helm_core.lua import worker
from tests.lua import luakit

PATHOLOGICAL = 'string.find(string.rep("a", 5000), ".-.-.-.-.-.-.-.-.-.-b")'


def _load(c, **kw):
    return lua.load_chart_scripts(c, accepted_permissions=(), session_factory=lua.WorkerSession, **kw)


def test_worker_runs_handlers_like_in_process():
    c = luakit.chart("top", lua_files={"chart": luakit.handler("pre-render", "_.values.b = _.values.a * 2\nprint('hi')")})
    log: list[str] = []
    with _load(c, limits=luakit.TEST_LIMITS, log=log.append) as scripts:
        ctx = scripts.fire("pre-render", luakit.context(c, {"a": 21}))
    assert ctx.values == {"a": 21, "b": 42}
    assert log == ["top: hi"]


def test_pathological_pattern_in_c_is_stopped_by_killing_the_worker():
    lim = records.replace(luakit.TEST_LIMITS, timeout_seconds=1.0)
    c = luakit.chart("top", lua_files={"chart": luakit.handler("pre-render", PATHOLOGICAL)})
    scripts = _load(c, limits=lim)
    session = scripts._session
    start = time.monotonic()
    with pytest.raises(errors.LuaError) as info:
        scripts.fire("pre-render", luakit.context(c))
    elapsed = time.monotonic() - start
    assert str(info.value) == 'chart "top": Lua timed out after 1s (fire pre-render); the worker was killed'
    assert info.value.chart == "top"
    assert elapsed < 3
    assert not session.alive  # the process is gone
    with pytest.raises(errors.LuaError) as again:
        scripts.fire("pre-render", luakit.context(c))
    assert str(again.value) == 'chart "top": its Lua runtime was closed (after a timeout or close())'


def test_worker_error_carries_chart_file_and_line():
    c = luakit.chart("top", lua_files={"chart": luakit.handler("pre-render", "error('nope')")})
    with _load(c) as scripts, pytest.raises(errors.LuaError) as info:
        scripts.fire("pre-render", luakit.context(c))
    assert str(info.value) == 'chart "top": ext/lua/chart.lua:2: nope'
    assert (info.value.chart, info.value.file, info.value.line) == ("top", "ext/lua/chart.lua", 2)


def test_worker_has_no_environment_and_no_python_bridge():
    c = luakit.chart("top", lua_files={"chart": luakit.handler("pre-render", (
        "_.values.r = {python = type(python), pkg = type(package), g = type(_G.python)}"))})
    with _load(c) as scripts:
        ctx = scripts.fire("pre-render", luakit.context(c))
    assert ctx.values["r"] == {"python": "nil", "pkg": "nil", "g": "nil"}


def test_worker_process_starts_with_an_empty_environment(tmp_path):
    session = worker.WorkerSession()
    try:
        environ = open(f"/proc/{session.pid}/environ", "rb").read()
    finally:
        session.close()
    assert environ == b""


def test_worker_process_is_the_first_the_oom_killer_takes():
    session = worker.WorkerSession()
    try:
        session.call({"op": "nope"}, timeout=5)  # started and serving
        adj = Path(f"/proc/{session.pid}/oom_score_adj").read_text().strip()
    finally:
        session.close()
    assert adj == "1000"


def test_pool_hands_out_a_fresh_process_per_operation():
    pool = worker.WorkerPool()
    try:
        pool.warm(wait=True)
        a = pool.session()
        b = pool.session()  # no spare yet: started on demand
        a.close()  # refills the spare
        c = pool.session()
        assert len({a.pid, b.pid, c.pid}) == 3
        assert c.call({"op": "nope"}, timeout=5)["ok"] is False
        b.close()
        c.close()
    finally:
        pool.close()


def test_closed_worker_is_gone():
    session = worker.WorkerSession()
    session.call({"op": "nope"}, timeout=5)
    session.close()
    assert session.wait(timeout=5) == -9  # killed, reaped in the background


def test_unknown_request_is_reported():
    session = worker.WorkerSession()
    try:
        reply = session.call({"op": "nope"}, timeout=5)
    finally:
        session.close()
    assert reply == {"ok": False, "log": [], "error": {"message": "unknown worker request 'nope'",
                                                       "chart": "", "file": "", "line": 0}}


WORKER_HOSTILE = ["python-global", "python-via-package-loaded", "loop-inside-pcall", "loop-in-xpcall-handler",
                  "memory-string-rep", "deep-recursion", "rawset-read-only", "return-function"]


@pytest.mark.parametrize("case_id", WORKER_HOSTILE, ids=WORKER_HOSTILE)
def test_hostile_scripts_fail_the_same_way_in_the_worker(case_id):
    from tests.lua.test_hostile import HOSTILE
    body, message, line = next(h[1:] for h in HOSTILE if h[0] == case_id)
    c = luakit.chart("c", lua_files={"chart": luakit.handler("pre-render", body)})
    with _load(c, limits=luakit.TEST_LIMITS) as scripts:
        with pytest.raises(errors.LuaError) as info:
            scripts.fire("pre-render", luakit.context(c, {"a": 1}))
        where = f"ext/lua/chart.lua:{line}: " if line else ""
        assert str(info.value) == f'chart "c": {where}{message}'
        # the worker survives a clean Lua failure and keeps serving the operation
        assert scripts._session.call({"op": "nope"}, timeout=5)["ok"] is False


def test_worker_has_a_cpu_backstop_and_no_core_dumps():
    session = worker.WorkerSession()
    try:
        session.wait_ready()
        limits = open(f"/proc/{session.pid}/limits").read()
    finally:
        session.close()
    cpu = next(line for line in limits.splitlines() if line.startswith("Max cpu time"))
    core = next(line for line in limits.splitlines() if line.startswith("Max core file size"))
    assert cpu.split()[3:5] == [str(worker.WORKER_CPU_SECONDS), str(worker.WORKER_CPU_SECONDS + 5)]
    assert core.split()[4:6] == ["0", "0"]


def test_worker_dies_with_its_parent():
    import os
    import signal
    import subprocess
    import sys

    # The worker is stuck in a C pattern match when its parent dies: only the death
    # signal (or the CPU backstop) can end it, the closed pipe is never read.
    code = (
        "import threading, time\n"
        "from helm_core import lua\n"
        "from tests.lua import luakit\n"
        "c = luakit.chart('c', lua_files={'chart': luakit.handler('pre-render', " + repr(PATHOLOGICAL) + ")})\n"
        "sessions = []\n"
        "def factory():\n"
        "    sessions.append(lua.WorkerSession()); return sessions[0]\n"
        "scripts = lua.load_chart_scripts(c, accepted_permissions=(), session_factory=factory)\n"
        "threading.Thread(target=scripts.fire, args=('pre-render', luakit.context(c)), daemon=True).start()\n"
        "deadline = time.monotonic() + 60\n"
        "while not sessions and time.monotonic() < deadline:  # the thread started its worker\n"
        "    time.sleep(0.01)\n"
        "time.sleep(0.5)  # into the pattern match, most likely (else the closed pipe ends it too)\n"
        "print(sessions[0].pid, flush=True)\n"
        "time.sleep(60)\n")
    root = str(Path(__file__).resolve().parents[2])
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, cwd=root)
    try:
        pid = int(parent.stdout.readline())
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        if open(f"/proc/{pid}/stat").read().split()[2] == "Z":
            break  # exited, waiting to be reaped by init
        time.sleep(0.05)
    else:
        os.kill(pid, signal.SIGKILL)
        pytest.fail("the worker outlived its parent")
