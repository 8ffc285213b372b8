"""ext/permissions.yaml: refusal before any Lua runs, and exactly what each grant gives."""
from __future__ import annotations

import http.server
import threading

import pytest

from helm_core import errors, lua
from helm_core.lua import permissions
from tests.lua import luakit


def _asking(name: str, perms: str, body: str = "", subcharts=()):
    return luakit.chart(name, lua_files={"chart": body}, permissions=f"lua: [{perms}]", subcharts=subcharts)


def test_chart_asking_for_unaccepted_permission_is_refused_before_lua_runs():
    c = _asking("ishmael", "network, os", body="error('must not run')")
    with pytest.raises(errors.LuaError) as info:
        lua.load_chart_scripts(c, accepted_permissions=["network"], session_factory=_no_session)
    assert str(info.value) == ('chart "ishmael" asks for Lua permissions [network, os] but only [network] '
                               "were accepted (missing: os)")
    assert (info.value.chart, info.value.file) == ("ishmael", "ext/permissions.yaml")


def _no_session():
    raise AssertionError("Lua was started although permissions were refused")


def test_subchart_permissions_are_checked_too():
    top = luakit.chart("top", lua_files={"chart": ""}, subcharts=[_asking("sub", "io")])
    with pytest.raises(errors.LuaError) as info:
        lua.load_chart_scripts(top, accepted_permissions=[], session_factory=_no_session)
    assert str(info.value) == ('chart "top/charts/sub" asks for Lua permissions [io] but only [] '
                               "were accepted (missing: io)")


@pytest.mark.parametrize(("text", "message"), [
    ("lua: [filesystem]", "ext/permissions.yaml: unknown Lua permission(s) filesystem (known: io, network, os)"),
    ("lua: network", "ext/permissions.yaml: 'lua' must be a list of names"),
    ("- io", "ext/permissions.yaml: expected a map with a 'lua' list"),
], ids=["unknown-name", "not-a-list", "not-a-map"])
def test_malformed_permissions_file_is_an_error(text, message):
    c = luakit.chart("c", lua_files={"chart": ""}, permissions=text)
    with pytest.raises(errors.LuaError) as info:
        permissions.chart_permissions(c)
    assert str(info.value) == message


def test_requested_permissions_lists_each_asking_chart_for_a_prompt():
    top = _asking("top", "os", subcharts=[_asking("sub", "io, network"), luakit.chart("quiet")])
    assert permissions.requested_permissions(top) == {
        "top/charts/sub": frozenset({"io", "network"}), "top": frozenset({"os"})}
    assert permissions.describe({"network", "io"}) == ["io: read the chart's own files",
                                                        "network: make HTTP GET requests"]


def test_accepting_all_permissions_loads_the_chart():
    c = _asking("c", "io, os, network", body="assert(io and os and network)")
    with lua.load_chart_scripts(c, accepted_permissions=lua.ALL_PERMISSIONS,
                                session_factory=lua.InProcessSession) as scripts:
        assert scripts.handlers == {"c": {}}


def test_ungranted_libraries_are_absent():
    rt = luakit.runtime(luakit.handler("pre-render", "_.values.libs = {io = type(io), os = type(os), network = type(network)}"))
    assert luakit.pre_render(rt)["values"]["libs"] == {"io": "nil", "os": "nil", "network": "nil"}


FILES = {"files/config.json": b'{"a": 1}\nline2\n', "templates/x.yaml": b"kind: X\n", "data/n.txt": b"42 7"}


def test_io_reads_the_charts_own_files():
    body = (
        "local f = assert(io.open('files/config.json'))\n"
        "local first = f:read('l')\n"
        "local rest = f:read('a')\n"
        "f:close()\n"
        "local n = io.open('data/n.txt')\n"
        "local a, b = n:read('n', 'n')\n"
        "local lines = {}\n"
        "for l in io.lines('files/config.json') do lines[#lines + 1] = l end\n"
        "_.values.io = {first = first, rest = rest, sum = a + b, lines = lines, list = io.list(),\n"
        "  tmpl = io.open('templates/x.yaml'):read('a')}")
    rt = luakit.runtime(luakit.handler("pre-render", body), permissions=frozenset({"io"}), files=FILES)
    assert luakit.pre_render(rt)["values"]["io"] == {
        "first": '{"a": 1}', "rest": "line2\n", "sum": 49, "lines": ['{"a": 1}', "line2"],
        "list": ["data/n.txt", "files/config.json", "templates/x.yaml"], "tmpl": "kind: X\n"}


@pytest.mark.parametrize(("call", "result"), [
    ("io.open('files/config.json', 'w')", "files/config.json: chart files are read-only"),
    ("io.open('files/config.json', 'a+')", "files/config.json: chart files are read-only"),
    ("io.open('/etc/passwd')", "/etc/passwd: no such file in the chart"),
    ("io.open('../../etc/passwd')", "../../etc/passwd: no such file in the chart"),
    ("io.open('files/config.json'):write('x')", "files/config.json: chart files are read-only"),
], ids=["write-mode", "append-mode", "host-file", "traversal", "write-on-read-handle"])
def test_io_refuses_writes_and_files_outside_the_chart(call, result):
    body = f"local h, err = {call}\n_.values.err = err"
    rt = luakit.runtime(luakit.handler("pre-render", body), permissions=frozenset({"io"}), files=FILES)
    assert luakit.pre_render(rt)["values"]["err"] == result


def test_io_lines_of_a_missing_file_is_an_error():
    rt = luakit.runtime(luakit.handler("pre-render", "io.lines('nope')"), permissions=frozenset({"io"}), files=FILES)
    with pytest.raises(errors.LuaError) as info:
        luakit.pre_render(rt)
    assert str(info.value) == 'chart "c": ext/lua/chart.lua:2: nope: no such file in the chart'


def test_os_grants_only_clock_and_dates():
    body = ("local names = {}\nfor k in pairs(os) do names[#names + 1] = k end\ntable.sort(names)\n"
            "_.values.names = names\n_.values.year = os.date('!%Y', 0)\n_.values.t = os.time({year = 2020, month = 1, day = 1, hour = 0}) > 0")
    rt = luakit.runtime(luakit.handler("pre-render", body), permissions=frozenset({"os"}))
    out = luakit.pre_render(rt)["values"]
    assert out["names"] == ["clock", "date", "difftime", "time"]
    assert (out["year"], out["t"]) == ("1970", True)


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - http.server API
        if self.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", "file:///etc/passwd")
            self.end_headers()
            return
        body = f"path={self.path} token={self.headers.get('X-Token')}".encode()
        if self.path == "/slow":
            import time
            time.sleep(1.5)
        if self.path == "/big":
            body = b"x" * 5000
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture()
def server():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()


def _net_runtime(body: str):
    from helm_core.support import records
    lim = records.replace(luakit.TEST_LIMITS, network_max_bytes=1000, network_timeout_seconds=2.0)
    return luakit.runtime(luakit.handler("pre-render", body), permissions=frozenset({"network"}), limits=lim)


def test_network_get_reaches_a_loopback_server(server):
    rt = _net_runtime(f"local r = network.get('{server}/x?y=1', {{headers = {{['X-Token'] = 'abc'}}}})\n"
                      "_.values.r = {status = r.status, body = r.body, ctype = r.headers['content-type']}")
    assert luakit.pre_render(rt)["values"]["r"] == {"status": 200, "body": "path=/x?y=1 token=abc",
                                                    "ctype": "text/plain"}


def test_network_does_not_follow_redirects(server):
    rt = _net_runtime(f"local r = network.get('{server}/redirect')\n"
                      "_.values.r = {status = r.status, location = r.headers.location}")
    assert luakit.pre_render(rt)["values"]["r"] == {"status": 302, "location": "file:///etc/passwd"}


@pytest.mark.parametrize(("url", "message"), [
    ("file:///etc/passwd", "network.get: only http:// and https:// URLs are allowed, got 'file:///etc/passwd'"),
    ("ftp://example.com/x", "network.get: only http:// and https:// URLs are allowed, got 'ftp://example.com/x'"),
    ("{server}/big", "network.get: response body larger than 1000 bytes"),
], ids=["file-scheme", "ftp-scheme", "body-too-large"])
def test_network_refusals_are_lua_errors(server, url, message):
    rt = _net_runtime(f"network.get('{url.format(server=server)}')")
    with pytest.raises(errors.LuaError) as info:
        luakit.pre_render(rt)
    assert str(info.value) == f'chart "c": ext/lua/chart.lua:2: {message}'


def test_network_timeout_is_a_lua_error(server):
    from helm_core.support import records
    lim = records.replace(luakit.TEST_LIMITS, network_timeout_seconds=0.3)
    rt = luakit.runtime(luakit.handler("pre-render", f"network.get('{server}/slow')"),
                        permissions=frozenset({"network"}), limits=lim)
    with pytest.raises(errors.LuaError) as info:
        luakit.pre_render(rt)
    assert str(info.value) == 'chart "c": ext/lua/chart.lua:2: network.get: TimeoutError: timed out'


def test_network_connection_failure_is_a_lua_error():
    rt = _net_runtime("network.get('http://127.0.0.1:1/')")
    with pytest.raises(errors.LuaError) as info:
        luakit.pre_render(rt)
    assert str(info.value) == 'chart "c": ext/lua/chart.lua:2: network.get: ConnectionRefusedError: [Errno 111] Connection refused'
