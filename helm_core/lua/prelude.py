"""The trusted Lua prelude that turns a fresh lupa runtime into a chart sandbox.

It runs once per chart runtime, before any chart code, with the full standard library.
It captures what the sandbox needs into locals (upvalues that chart code cannot reach
without ``debug``), then empties ``_G`` and ``package.loaded`` — which removes the
``python`` table lupa always creates — strips ``string.dump`` from the shared string
table and hides the string metatable behind ``__metatable = false``.

It takes the hook step and the permission libraries (:mod:`helm_core.lua.libs`, built
before the scrub) and returns the ``api`` table the Python side drives (see
:mod:`helm_core.lua.sandbox`).
Chart code only ever sees the environment built by ``api.new_env``.

Rules the prelude enforces:

- instruction budget: a count hook every ``STEP`` instructions adds to a shared counter;
  once over budget (or over the CPU deadline) the hook re-arms itself to fire on every
  instruction and raises each time, so ``pcall``/``xpcall`` cannot swallow the limit;
  coroutines get the same hook when created;
- ``__gc`` metamethods are refused (finalizers run with hooks disabled);
- read-only tables are empty proxies: ``__newindex`` raises, ``rawset`` is wrapped to
  refuse them, ``getmetatable`` returns ``"read-only"``, ``setmetatable`` fails;
- ``require`` only compiles sources handed over by Python from the chart's own
  ``ext/lua/``, in text mode (``load(..., "t", env)``), never bytecode.
"""
from __future__ import annotations

#: Instructions between two runs of the count hook; the budget is checked at this grain.
HOOK_STEP = 1000

#: The chunk name prefix of chart code; error positions read ``ext/lua/x.lua:12:``.
CHUNK_PREFIX = "ext/lua/"

PRELUDE = r"""
local STEP, LIBS = ...
local type, error, pairs, ipairs, next, select, tostring, tonumber =
      type, error, pairs, ipairs, next, select, tostring, tonumber
local rawget, rawset, rawequal, rawlen = rawget, rawset, rawequal, rawlen
local setmetatable, getmetatable, pcall, xpcall, assert = setmetatable, getmetatable, pcall, xpcall, assert
local load = load
local sethook, getinfo = debug.sethook, debug.getinfo
local clock = os.clock
local co_create, co_resume, co_running = coroutine.create, coroutine.resume, coroutine.running
local string, table, math, utf8, coroutine = string, table, math, utf8, coroutine
local sfind, ssub, sformat, smatch, sgsub = string.find, string.sub, string.format, string.match, string.gsub
local tconcat, tsort, tunpack, tpack = table.concat, table.sort, table.unpack, table.pack
local VERSION = _VERSION
local BASE = {}
for _, k in ipairs({"assert", "error", "ipairs", "next", "pairs", "pcall", "select",
                    "tonumber", "tostring", "type", "rawequal", "rawlen",
                    "getmetatable"}) do
  BASE[k] = _G[k]
end

-- Scrub the global state: nothing below is reachable from chart code anyway (it runs in
-- its own env), but leave no `python`, `debug`, `io`, `os`, `package` or loaders around.
string.dump = nil
getmetatable("").__metatable = false
local loaded = package.loaded
for k in pairs(loaded) do loaded[k] = nil end
local G = _G
for k in pairs(G) do G[k] = nil end

local api = {}
local KNOWN_EVENTS = {}
local log, log_bytes, log_truncated = {}, 0, false
function api.set_known_events(list) for i = 1, #list do KNOWN_EVENTS[list[i]] = true end end

---------------------------------------------------------------------------- limits
local budget, used, deadline, exceeded, active, in_handler = 0, 0, 0, nil, false, false
local registering = false

local last_file, last_line = nil, 0  -- chart position seen by the last hook run

local function hook()
  if not active or in_handler then return end
  local info = getinfo(2, "Sl")
  local chart_code = info and ssub(info.source, 1, 9) == "@ext/lua/"
  if chart_code then last_file, last_line = ssub(info.source, 2), info.currentline end
  if not exceeded then
    used = used + STEP
    if used > budget then exceeded = "instructions"
    elseif clock() > deadline then exceeded = "time"
    else return end
    sethook(co_running(), hook, "", 1)  -- re-arm: every chart instruction from now on fails
  end
  -- Only chart code is interrupted; trusted prelude frames finish their bounded work.
  if chart_code then error("lua limit exceeded: " .. exceeded, 2) end
end

-- Where chart code was when the hook last ran (memory errors carry no position).
function api.last_position() return last_file, last_line end

local function arm(max_instructions, cpu_seconds)
  budget, used, exceeded, active = max_instructions, 0, nil, true
  last_file, last_line = nil, 0
  deadline = clock() + cpu_seconds
  sethook(hook, "", STEP)
end

local function disarm()
  active = false
  sethook()
end

function api.exceeded() return exceeded end
function api.used() return used end

---------------------------------------------------------------------------- errors
-- Message handler: find the chart position without running chart code (no __tostring).
local function locate(e)
  in_handler = true
  local msg
  if type(e) == "string" then msg = e
  else msg = "(error object is a " .. type(e) .. " value)" end
  local file, line, rest = smatch(msg, "^(ext/lua/[%w_%-%./]+%.lua):(%d+): (.*)$")
  if file then
    msg = rest
    line = tonumber(line)
  else
    for level = 2, 200 do
      local info = getinfo(level, "Sl")
      if not info then break end
      local src = info.source
      if ssub(src, 1, 9) == "@ext/lua/" and info.currentline and info.currentline > 0 then
        file, line = ssub(src, 2), info.currentline
        break
      end
    end
  end
  in_handler = false
  return {msg = msg, file = file or "", line = line or 0}
end

-- Run fn(...) under the limits; returns true, results... or false, {msg, file, line}.
function api.run(max_instructions, cpu_seconds, fn, ...)
  in_handler = false
  arm(max_instructions, cpu_seconds)
  local r = tpack(xpcall(fn, locate, ...))
  disarm()
  registering = false
  if not r[1] then
    local err = r[2]
    if type(err) ~= "table" then err = {msg = type(err) == "string" and err or "error", file = "", line = 0} end
    return false, err
  end
  if exceeded then  -- the limit fired but chart code swallowed every error: still a failure
    return false, {msg = "lua limit exceeded: " .. exceeded, file = "", line = 0}
  end
  return true, tunpack(r, 2, r.n)
end

---------------------------------------------------------------------------- tables
local protected = setmetatable({}, {__mode = "k"})   -- proxy -> its name, e.g. "_.chart"
local arrays = setmetatable({}, {__mode = "k"})      -- tables that are lists even when empty
local sources = setmetatable({}, {__mode = "k"})     -- object table -> source template
api.arrays, api.sources = arrays, sources

local function keyname(base, k)
  if type(k) == "number" then return base .. "[" .. sformat("%d", k) .. "]" end
  if type(k) == "string" then return base .. "." .. k end
  return base .. "[?]"
end

local function readonly(t, name)
  local proxy, cache = {}, {}
  local function get(k)
    local v = rawget(t, k)
    if type(v) == "table" then
      local p = cache[k]
      if not p then p = readonly(v, keyname(name, k)); cache[k] = p end
      return p
    end
    return v
  end
  setmetatable(proxy, {
    __index = function(_, k) return get(k) end,
    __newindex = function(_, k) error(keyname(name, k) .. " is read-only", 2) end,
    __len = function() return rawlen(t) end,
    __pairs = function()
      return function(_, k)
        local nk = next(t, k)
        if nk == nil then return nil end
        return nk, get(nk)
      end, proxy, nil
    end,
    __metatable = "read-only",
  })
  protected[proxy] = name
  return proxy
end
api.readonly = readonly

local function is_array(t) arrays[t] = true; return t end
api.mark_array = is_array

---------------------------------------------------------------------------- safe builtins
local function safe_rawset(t, k, v)
  local name = protected[t]
  if name then error(keyname(name, k) .. " is read-only", 2) end
  return rawset(t, k, v)
end

local function safe_rawget(t, k)
  if protected[t] then return t[k] end
  return rawget(t, k)
end

local function safe_setmetatable(t, mt)
  if type(mt) == "table" and rawget(mt, "__gc") ~= nil then
    error("__gc metamethods are not allowed in chart Lua", 2)
  end
  local ok, err = pcall(setmetatable, t, mt)
  if not ok then error(err, 2) end
  return t
end

-- A hook error runs the message handler with hooks disabled: once a limit fired, the
-- chart's handler is skipped so it cannot loop unchecked.
local function safe_xpcall(f, handler, ...)
  if type(handler) ~= "function" then error("bad argument #2 to 'xpcall' (function expected)", 2) end
  return xpcall(f, function(e)
    if exceeded then return e end
    return handler(e)
  end, ...)
end

local function copy(t)
  local c = {}
  for k, v in pairs(t) do c[k] = v end
  return c
end

local function sandbox_coroutine()
  local co = copy(coroutine)
  co.create = function(f)
    local c = co_create(f)
    sethook(c, hook, "", exceeded and 1 or STEP)
    return c
  end
  co.wrap = function(f)
    local c = co.create(f)
    return function(...)
      local r = tpack(co_resume(c, ...))
      if not r[1] then error(r[2], 0) end
      return tunpack(r, 2, r.n)
    end
  end
  return co
end

---------------------------------------------------------------------------- events
local registry, seq = {}, 0

local function on(name, weight, fn)
  if not registering then error("events.on may only be called while ext/lua/chart.lua loads", 2) end
  if type(weight) == "function" and fn == nil then weight, fn = 0.5, weight end
  if type(name) ~= "string" or not rawget(KNOWN_EVENTS, name) then
    error("events.on: unknown event '" .. tostring(name) .. "'", 2)
  end
  if type(weight) ~= "number" or weight ~= weight or weight < 0 or weight > 1 then
    error("events.on: weight must be a number from 0 to 1", 2)
  end
  if type(fn) ~= "function" then error("events.on: handler must be a function", 2) end
  seq = seq + 1
  local list = registry[name]
  if not list then list = {}; registry[name] = list end
  list[#list + 1] = {weight = weight, seq = seq, fn = fn}
end

-- Load chart.lua (already compiled) with `events.on` open; api.run closes it again.
function api.load_main(fn)
  registering = true
  fn("chart")
  registering = false
end

-- Events with handlers, as {name = count}.
function api.handler_counts()
  local out = {}
  for name, list in next, registry do out[name] = #list end
  return out
end

-- Run one event's handlers in weight order (equal weights: registration order).
function api.fire(name, ctx)
  local list = registry[name]
  if not list then return end
  local sorted = {}
  for i = 1, #list do sorted[i] = list[i] end
  tsort(sorted, function(a, b)
    if a.weight ~= b.weight then return a.weight < b.weight end
    return a.seq < b.seq
  end)
  for i = 1, #sorted do sorted[i].fn(ctx) end
end

function api.take_log()
  local out = log
  log = {}
  return out
end

---------------------------------------------------------------------------- env
-- Builds the environment chart code runs in. `modules` maps module names ("chart",
-- "lib.util") to source text; `files` maps chart file names to contents (for io).
function api.new_env(chart_name, modules, files, perms, fetch, max_modules, max_log_bytes)
  local env = {}
  for k, v in pairs(BASE) do env[k] = v end
  env._VERSION = VERSION
  env.rawset, env.rawget, env.setmetatable = safe_rawset, safe_rawget, safe_setmetatable
  env.xpcall = safe_xpcall
  env.string, env.table, env.math, env.utf8 = copy(string), copy(table), copy(math), copy(utf8)
  env.coroutine = sandbox_coroutine()
  env.array = function(t)
    if t == nil then t = {} end
    if type(t) ~= "table" or protected[t] then error("array: expects a table", 2) end
    return is_array(t)
  end
  env.print = function(...)
    local n = select("#", ...)
    local parts = {}
    for i = 1, n do
      local v = (select(i, ...))
      local tv = type(v)
      if tv == "string" or tv == "number" or tv == "boolean" or tv == "nil" then
        parts[i] = tostring(v)
      else
        parts[i] = tv  -- never call a __tostring from chart code on the trusted side
      end
    end
    local line = tconcat(parts, "\t")
    if log_bytes + #line > max_log_bytes then
      if not log_truncated then log[#log + 1] = "(log truncated)"; log_truncated = true end
      return
    end
    log_bytes = log_bytes + #line
    log[#log + 1] = line
  end
  env.events = readonly({on = on}, "events")
  if perms.io then env.io = LIBS.io(files, is_array) end
  if perms.os then env.os = LIBS.os() end
  if perms.network then env.network = LIBS.network(fetch) end
  env._G = env

  -- require: only this chart's ext/lua/ modules, compiled here in text mode.
  local cache, loading, count = {}, {}, 0
  env.require = function(name)
    if type(name) ~= "string" or not smatch(name, "^[%a_][%w_]*$") and
       not smatch(name, "^[%a_][%w_]*%.[%a_][%w_%.]*[%w_]$") or sfind(name, "..", 1, true) then
      error("module '" .. tostring(name) .. "' not found: require takes a module name of ext/lua/"
            .. " of chart '" .. chart_name .. "'", 2)
    end
    local v = cache[name]
    if v ~= nil then return v end
    if loading[name] then error("module '" .. name .. "' is required in a loop", 2) end
    local src = rawget(modules, name)
    if not src then
      error("module '" .. name .. "' not found in ext/lua/ of chart '" .. chart_name .. "'", 2)
    end
    count = count + 1
    if count > max_modules then error("too many modules required (limit " .. max_modules .. ")", 2) end
    local fn, err = load(src, "@ext/lua/" .. sgsub(name, "%.", "/") .. ".lua", "t", env)
    if not fn then error(err, 0) end
    loading[name] = true
    local r = fn(name)
    loading[name] = nil
    if r == nil then r = true end
    cache[name] = r
    return r
  end
  return env
end

-- Compile a chunk of chart code in text mode (bytecode is refused by mode "t").
function api.compile(src, chunkname, env)
  return load(src, "@" .. chunkname, "t", env)
end

-- The context proxy `_`: parts in `mutable` may be changed and reassigned, the rest is
-- read-only; `box` holds the current parts and is read back by the trusted side.
function api.context(box, mutable, event)
  local proxy = {}
  setmetatable(proxy, {
    __index = function(_, k) return box[k] end,
    __newindex = function(_, k, v)
      if type(k) == "string" and mutable[k] then box[k] = v; return end
      error("_." .. tostring(k) .. " is read-only in " .. event, 2)
    end,
    __pairs = function()  -- never hand out `box` itself (it would bypass __newindex)
      return function(_, k) return next(box, k) end, proxy, nil
    end,
    __metatable = "read-only",
  })
  protected[proxy] = "_"
  return proxy
end

---------------------------------------------------------------------------- data
-- Python -> Lua: Python sends a table constructor (helm_core.lua.convert.lua_source);
-- it is compiled in text mode with an env holding only the array and source markers.
local DATA_ENV = {
  A = function(t) arrays[t] = true; return t end,
  S = function(t, src) sources[t] = src; return t end,
}
function api.data(src)
  local fn, err = load(src, "=data", "t", DATA_ENV)
  if not fn then error("bad data chunk: " .. tostring(err), 0) end
  return fn()
end

-- Lua -> Python: serialize to JSON with raw access only (no chart metamethod runs),
-- refusing functions/userdata/coroutines, non-UTF-8 strings, NaN/inf and bad keys.
local ESC = {['"'] = '\\"', ['\\'] = '\\\\', ['\n'] = '\\n', ['\r'] = '\\r', ['\t'] = '\\t'}
for i = 0, 31 do
  local c = string.char(i)
  if not ESC[c] then ESC[c] = sformat("\\u%04x", i) end
end
ESC["\127"] = "\\u007f"
local utf8len, mtype, huge = utf8.len, math.type, math.huge

-- mode "list": the root must be a list; "objects": a list of objects, emitted as
-- {"source": ..., "object": ...}. Returns the JSON text, or false, message, path keys.
function api.to_json(root, mode, max_depth, max_items, max_bytes)
  local out, n, items, bytes = {}, 0, 0, 0
  local keys, nk = {}, 0
  local function fail(msg) error({msg = msg}, 0) end
  local function str(v)
    if not utf8len(v) then fail("string is not valid UTF-8") end
    bytes = bytes + #v
    if bytes > max_bytes then fail("more than " .. max_bytes .. " bytes") end
    n = n + 1; out[n] = '"' .. sgsub(v, '[%c"\\]', ESC) .. '"'
  end
  local function shape(t)
    local count, maxn, allint = 0, 0, true
    for k in next, t do
      count = count + 1
      if mtype(k) == "integer" and k > 0 then
        if k > maxn then maxn = k end
      else
        allint = false
      end
    end
    return count, maxn, allint
  end
  local enc
  local function list(t, depth, count, maxn, each)
    n = n + 1; out[n] = "["
    for i = 1, maxn do
      if i > 1 then n = n + 1; out[n] = "," end
      nk = nk + 1; keys[nk] = i
      each(rawget(t, i), depth + 1)
      nk = nk - 1
    end
    n = n + 1; out[n] = "]"
  end
  enc = function(v, depth)
    items = items + 1
    if items > max_items then fail("more than " .. max_items .. " items") end
    local t = type(v)
    if t == "string" then str(v)
    elseif t == "number" then
      if mtype(v) == "integer" then n = n + 1; out[n] = sformat("%d", v)
      else
        if v ~= v or v == huge or v == -huge then fail("NaN and infinite numbers cannot be values") end
        local s = sformat("%.17g", v)
        if not sfind(s, "[%.e]") then s = s .. ".0" end
        n = n + 1; out[n] = s
      end
    elseif t == "boolean" then n = n + 1; out[n] = v and "true" or "false"
    elseif t == "nil" then n = n + 1; out[n] = "null"
    elseif t == "table" then
      if depth > max_depth then fail("data nested deeper than " .. max_depth .. " levels") end
      local count, maxn, allint = shape(v)
      if count == 0 then
        n = n + 1; out[n] = arrays[v] and "[]" or "{}"
      elseif allint and (maxn == count or arrays[v]) then
        items = items + maxn - count  -- holes count as items (they become nulls)
        if items > max_items then fail("more than " .. max_items .. " items") end
        list(v, depth, count, maxn, enc)
      else
        n = n + 1; out[n] = "{"
        local first = true
        for k, x in next, v do
          if type(k) ~= "string" then
            fail("table has " .. type(k) .. " key; maps need string keys and lists keys 1..n")
          end
          if not first then n = n + 1; out[n] = "," end
          first = false
          str(k)
          n = n + 1; out[n] = ":"
          nk = nk + 1; keys[nk] = k
          enc(x, depth + 1)
          nk = nk - 1
        end
        n = n + 1; out[n] = "}"
      end
    else
      fail("cannot return a function, coroutine or userdata from Lua (only strings, numbers, booleans and tables)")
    end
  end
  local function as_list(t)
    if type(t) ~= "table" then fail("must be a list of tables") end
    local count, maxn, allint = shape(t)
    if not allint or maxn ~= count then fail("must be a list (keys 1..n)") end
    return count
  end
  local ok, err = pcall(function()
    if mode == "value" then
      enc(root, 0)
    else
      local count = as_list(root)
      n = n + 1; out[n] = "["
      for i = 1, count do
        local o = rawget(root, i)
        nk = nk + 1; keys[nk] = i
        if type(o) ~= "table" then fail("must be a table") end
        if i > 1 then n = n + 1; out[n] = "," end
        if mode == "objects" then
          n = n + 1; out[n] = '{"source":'
          local src = sources[o]
          if src then str(src) else n = n + 1; out[n] = "null" end
          n = n + 1; out[n] = ',"object":'
          enc(o, 1)
          n = n + 1; out[n] = "}"
        else
          enc(o, 1)
        end
        nk = nk - 1
      end
      n = n + 1; out[n] = "]"
    end
  end)
  if not ok then
    local path = {}
    for i = 1, nk do path[i] = keys[i] end
    return false, type(err) == "table" and err.msg or tostring(err), path
  end
  return tconcat(out)
end

function api.source_fn()
  return function(o)
    if type(o) ~= "table" then return nil end
    return sources[o]
  end
end

return api
"""

