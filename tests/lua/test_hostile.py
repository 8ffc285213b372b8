"""Hostile chart scripts: each fails with a clear LuaError (chart, file, line, message)
and leaves no trace outside its sandbox."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from helm_core import errors
from tests.lua import luakit

MARKER = Path("/tmp/helm-core-hostile-marker")
MEM = f"memory limit of {luakit.TEST_LIMITS.max_memory} bytes exceeded"
INSTR = f"instruction limit of {luakit.TEST_LIMITS.max_instructions} exceeded"

# (id, handler body starting on line 2, message, line); line 0 means no position (a
# memory error carries the chart position the count hook last saw, if any).
HOSTILE = [
    ("python-global", 'python.eval("1")', "attempt to index a nil value (global 'python')", 2),
    ("python-via-package-loaded", "return package.loaded.python",
     "attempt to index a nil value (global 'package')", 2),
    ("python-via-_G", "return _G.python.builtins", "attempt to index a nil value (field 'python')", 2),
    ("python-via-_ENV", "_ENV.x = 1\nreturn _ENV.python.eval('1')",
     "attempt to index a nil value (global 'python')", 3),
    ("load-with-env", 'load("return 1", "x", "t", {})()', "attempt to call a nil value (global 'load')", 2),
    ("load-bytecode", 'load("\\27Lua", "x", "b")()', "attempt to call a nil value (global 'load')", 2),
    ("loadstring", 'loadstring("return 1")()', "attempt to call a nil value (global 'loadstring')", 2),
    ("dofile", 'dofile("/etc/passwd")', "attempt to call a nil value (global 'dofile')", 2),
    ("loadfile", 'loadfile("/etc/passwd")', "attempt to call a nil value (global 'loadfile')", 2),
    ("require-parent-path", 'require("../../../etc/passwd")',
     "module '../../../etc/passwd' not found: require takes a module name of ext/lua/ of chart 'c'", 2),
    ("require-absolute-path", 'require("/etc/passwd")',
     "module '/etc/passwd' not found: require takes a module name of ext/lua/ of chart 'c'", 2),
    ("require-dotdot-module", 'require("a..b")',
     "module 'a..b' not found: require takes a module name of ext/lua/ of chart 'c'", 2),
    ("require-stdlib-os", 'require("os")', "module 'os' not found in ext/lua/ of chart 'c'", 2),
    ("require-python", 'require("python")', "module 'python' not found in ext/lua/ of chart 'c'", 2),
    ("string-dump", "string.dump(function() end)", "attempt to call a nil value (field 'dump')", 2),
    ("string-metatable-index", 'return getmetatable("").__index.dump', "attempt to index a boolean value", 2),
    ("string-method-dump", 'return (""):dump()', "attempt to call a nil value (method 'dump')", 2),
    ("debug-registry", "debug.getregistry()", "attempt to index a nil value (global 'debug')", 2),
    ("os-execute", f'os.execute("touch {MARKER}")', "attempt to index a nil value (global 'os')", 2),
    ("io-open", f'io.open("{MARKER}", "w")', "attempt to index a nil value (global 'io')", 2),
    ("package-loadlib", 'package.loadlib("libc.so.6", "system")',
     "attempt to index a nil value (global 'package')", 2),
    ("collectgarbage", 'collectgarbage("stop")', "attempt to call a nil value (global 'collectgarbage')", 2),
    ("loop-plain", "while true do end", INSTR, 2),
    ("loop-inside-pcall", "while true do pcall(function() while true do end end) end", INSTR, 2),
    ("loop-in-coroutine-wrap", "local co = coroutine.wrap(function() while true do end end)\nco()", INSTR, 2),
    ("loop-in-coroutine-resumed-forever",
     "local co = coroutine.create(function() while true do end end)\nwhile true do coroutine.resume(co) end",
     INSTR, 3),
    ("loop-in-xpcall-handler", "xpcall(function() while true do end end,\n function() while true do end end)",
     INSTR, 4),
    ("loop-in-__tostring-error", "error(setmetatable({}, {__tostring = function() while true do end end}))",
     "(error object is a table value)", 2),
    ("loop-in-__gc-finalizer", "setmetatable({}, {__gc = function() while true do end end})",
     "__gc metamethods are not allowed in chart Lua", 2),
    ("memory-table-bomb", "local t = {}\nfor i = 1, 1e9 do t[i] = {} end", MEM, 3),
    ("memory-string-rep", 'local s = string.rep("x", 1e9)', MEM, 0),
    ("memory-string-doubling", 'local s = "x"\nwhile true do s = s .. s end', MEM, 0),
    ("deep-recursion", "local function f() return 1 + f() end\nf()", MEM, 2),
    ("rawset-read-only", 'rawset(_.chart, "name", "evil")', "_.chart.name is read-only", 2),
    ("assign-read-only", '_.chart.name = "evil"', "_.chart.name is read-only", 2),
    ("table-insert-read-only", 'table.insert(_.capabilities.apiVersions, "evil/v1")',
     "_.capabilities.apiVersions[2] is read-only", 2),
    ("replace-read-only-part", '_.release = {name = "other"}', "_.release is read-only in pre-render", 2),
    ("setmetatable-read-only", "setmetatable(_.chart, {})", "cannot change a protected metatable", 2),
    ("metatable-of-context", "local mt = getmetatable(_)\nmt.__newindex = nil",
     "attempt to index a string value (local 'mt')", 3),
    ("context-box-via-pairs", "local f, state = pairs(_)\nstate.release = {}",
     "_.release is read-only in pre-render", 3),
    ("register-handler-late", 'events.on("pre-render", function() end)',
     "events.on may only be called while ext/lua/chart.lua loads", 2),
    ("return-function", "_.values.f = print",
     "bad data returned by pre-render handlers: _.values.f: cannot return a function, coroutine or userdata from Lua "
     "(only strings, numbers, booleans and tables)", 0),
    ("return-coroutine", "_.values = coroutine.create(function() end)",
     "bad data returned by pre-render handlers: _.values: cannot return a function, coroutine or userdata from Lua "
     "(only strings, numbers, booleans and tables)", 0),
    ("return-huge-string", '_.values.big = string.rep("x", 2000000)',
     "bad data returned by pre-render handlers: _.values.big: more than 1000000 bytes", 0),
    ("return-cycle", "local t = {}\nt.self = t\n_.values.cycle = t",
     "bad data returned by pre-render handlers: _.values.cycle.self.self.self.self.self...."
     + ".self" * 12 + ": data nested deeper than 50 levels", 0),
    ("return-shared-subtable-bomb", "local t = {}\nfor i = 1, 40 do t = {t, t} end\n_.values.bomb = t",
     re.compile(r"bad data returned by pre-render handlers: _\.values\.bomb[\[\]12.]+: more than 10000 items"), 0),
    ("return-non-string-key", "_.values[1.5] = true",
     "bad data returned by pre-render handlers: _.values: table has number key; maps need string keys and lists keys 1..n", 0),
    ("return-invalid-utf8", '_.values.bad = "\\255\\254"', "bad data returned by pre-render handlers: _.values.bad: string is not valid UTF-8", 0),
]


@pytest.fixture(autouse=True)
def _no_marker():
    MARKER.unlink(missing_ok=True)
    yield
    assert not MARKER.exists(), "a hostile script reached the file system"


def test_suite_has_at_least_30_scripts():
    assert len(HOSTILE) >= 30


@pytest.mark.parametrize(("body", "message", "line"), [h[1:] for h in HOSTILE], ids=[h[0] for h in HOSTILE])
def test_hostile_script_fails_cleanly(body, message, line):
    rt = luakit.runtime(luakit.handler("pre-render", body))
    values = {"a": 1}
    with pytest.raises(errors.LuaError) as info:
        luakit.pre_render(rt, values)
    err = info.value
    where = f"ext/lua/chart.lua:{line}: " if line else ""
    if isinstance(message, re.Pattern):
        assert re.fullmatch(f'chart "c": {re.escape(where)}{message.pattern}', str(err)), str(err)
    else:
        assert str(err) == f'chart "c": {where}{message}'
    assert (err.chart, err.file, err.line) == ("c", "ext/lua/chart.lua" if line else "", line)
    assert values == {"a": 1}


def test_bytecode_chart_lua_is_refused_at_load():
    with pytest.raises(errors.LuaError) as info:
        luakit.runtime("\x1bLua\x54\x00 not really bytecode")
    assert str(info.value) == "chart \"c\": attempt to load a binary chunk (mode is 't')"


def test_bytecode_module_is_refused_by_require():
    rt_src = 'local ok, err = pcall(require, "evil")\nerror(err, 0)'
    with pytest.raises(errors.LuaError) as info:
        luakit.runtime(rt_src, modules={"evil": "\x1bLua\x54\x00"})
    assert str(info.value) == "chart \"c\": ext/lua/chart.lua:2: attempt to load a binary chunk (mode is 't')"


def test_limit_error_cannot_be_swallowed_by_pcall_loop():
    rt = luakit.runtime(luakit.handler("pre-render", (
        "for i = 1, 100 do\n"
        "  pcall(function() while true do end end)\n"
        "end\n"
        "_.values.survived = true")))
    with pytest.raises(errors.LuaError, match="instruction limit of 5000000 exceeded"):
        luakit.pre_render(rt)


@pytest.mark.parametrize("perms", [frozenset(), frozenset({"io", "os", "network"})], ids=["no-permissions", "all-permissions"])
def test_no_python_object_in_reach_of_chart_code(perms):
    # Walk everything reachable from the environment by pairs: no value may be a
    # Python object (lupa wraps those as userdata), even with every permission granted.
    rt = luakit.runtime(permissions=perms, source=luakit.handler("pre-render", (
        "local seen, bad = {}, {}\n"
        "local function walk(v, path)\n"
        "  local t = type(v)\n"
        "  if t == 'userdata' then bad[#bad + 1] = path end\n"
        "  if t ~= 'table' or seen[v] then return end\n"
        "  seen[v] = true\n"
        "  for k, x in pairs(v) do walk(x, path .. '.' .. tostring(k)) end\n"
        "end\n"
        "walk(_ENV, '_ENV')\n"
        "walk(getmetatable(''), 'string metatable')\n"
        "walk(_, '_')\n"
        "_.values.bad = array(bad)")))
    assert luakit.pre_render(rt)["values"]["bad"] == []


def test_runtime_is_usable_for_another_chart_after_a_hostile_one():
    bad = luakit.runtime(luakit.handler("pre-render", "while true do end"))
    with pytest.raises(errors.LuaError):
        luakit.pre_render(bad)
    good = luakit.runtime(luakit.handler("pre-render", "_.values.ok = true"))
    assert luakit.pre_render(good)["values"] == {"a": 1, "ok": True}
    assert "HOME" not in os.environ or os.environ["HOME"]  # the process environment is untouched


def test_cpu_time_limit_stops_a_loop_before_the_instruction_limit():
    from helm_core.support import records
    lim = records.replace(luakit.TEST_LIMITS, max_instructions=10**12, cpu_seconds=0.2)
    rt = luakit.runtime(luakit.handler("pre-render", "while true do end"), limits=lim)
    with pytest.raises(errors.LuaError) as info:
        luakit.pre_render(rt)
    assert str(info.value) == 'chart "c": ext/lua/chart.lua:2: CPU time limit of 0.2s exceeded'
