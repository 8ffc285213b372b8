"""The libraries a granted permission adds to a chart's environment, in Lua.

Built by a trusted chunk that runs before the prelude scrubs the global state, so the
standard functions they use are captured as upvalues. What each grants is documented
in :mod:`helm_core.lua.permissions`; the only Python callable is ``network``'s fetch
(:mod:`helm_core.lua.network`), kept as an upvalue chart code cannot reach.
"""
from __future__ import annotations

LIBS = r"""
local type, error, select, tostring, tonumber, next, pairs, pcall, rawget =
      type, error, select, tostring, tonumber, next, pairs, pcall, rawget
local sfind, ssub, smatch, sgsub, gmatch, lower = string.find, string.sub, string.match,
      string.gsub, string.gmatch, string.lower
local tconcat, tsort, tunpack = table.concat, table.sort, table.unpack
local mmax = math.max
local clock, ostime, osdate, difftime = os.clock, os.time, os.date, os.difftime

-- io: read-only access to the chart's own files (names relative to the chart root).
local function make_io(files, is_array)
  local io = {}
  local function handle(name, data)
    local pos, closed = 1, false
    local h = {}
    local function check() if closed then error("attempt to use a closed file", 3) end end
    local function read1(fmt)
      if type(fmt) == "number" then
        if pos > #data then return nil end
        local s = ssub(data, pos, pos + fmt - 1); pos = pos + #s; return s
      end
      fmt = type(fmt) == "string" and sgsub(fmt, "^%*", "") or "l"
      if fmt == "a" then local s = ssub(data, pos); pos = #data + 1; return s end
      if pos > #data then return nil end
      if fmt == "l" or fmt == "L" then
        local e = sfind(data, "\n", pos, true)
        local s
        if e then s = ssub(data, pos, fmt == "L" and e or e - 1); pos = e + 1
        else s = ssub(data, pos); pos = #data + 1 end
        return s
      end
      if fmt == "n" then
        local s, e = sfind(data, "^%s*[-+]?[%w%.]+", pos)
        if not s then return nil end
        pos = e + 1
        return tonumber(ssub(data, s, e))
      end
      error("bad format '" .. tostring(fmt) .. "' for read", 3)
    end
    function h:read(...)
      check()
      local n = select("#", ...)
      if n == 0 then return read1("l") end
      local out = {}
      for i = 1, n do out[i] = read1((select(i, ...))) end
      return tunpack(out, 1, n)
    end
    function h:lines(fmt) check(); return function() return read1(fmt or "l") end end
    function h:seek(whence, off)
      check()
      whence, off = whence or "cur", off or 0
      local base = whence == "set" and 1 or whence == "end" and #data + 1 or pos
      pos = mmax(1, base + off)
      return pos - 1
    end
    function h:close() closed = true; return true end
    function h:write() return nil, name .. ": chart files are read-only", 9 end
    return h
  end
  function io.open(name, mode)
    mode = mode or "r"
    if mode ~= "r" and mode ~= "rb" then return nil, tostring(name) .. ": chart files are read-only", 13 end
    local data = type(name) == "string" and rawget(files, name)
    if not data then return nil, tostring(name) .. ": no such file in the chart", 2 end
    return handle(name, data)
  end
  function io.lines(name, fmt)
    local h, err = io.open(name)
    if not h then error(err, 2) end
    return h:lines(fmt)
  end
  function io.list()
    local names = {}
    for k in pairs(files) do names[#names + 1] = k end
    tsort(names)
    return is_array(names)
  end
  return io
end

-- os: clocks and dates only.
local function make_os()
  return {time = ostime, date = osdate, clock = clock, difftime = difftime}
end

-- network: a small HTTP GET client; `fetch` is a trusted Python function kept as an
-- upvalue, called with strings and numbers only, returning status, body, header lines.
local function make_network(fetch)
  local network = {}
  function network.get(url, opts)
    if type(url) ~= "string" then error("network.get: url must be a string", 2) end
    local headers = {}
    if opts ~= nil then
      if type(opts) ~= "table" then error("network.get: options must be a table", 2) end
      local h = rawget(opts, "headers")
      if h ~= nil then
        if type(h) ~= "table" then error("network.get: headers must be a table", 2) end
        for k, v in next, h do
          if type(k) ~= "string" or type(v) ~= "string" then
            error("network.get: header names and values must be strings", 2)
          end
          headers[#headers + 1] = k .. ": " .. v
        end
      end
    end
    local ok, status, body, hdrs = pcall(fetch, url, tconcat(headers, "\n"))
    if not ok then error("network.get: request failed", 2) end
    if type(status) == "string" then error("network.get: " .. status, 2) end
    if type(status) ~= "number" or type(body) ~= "string" or type(hdrs) ~= "string" then
      error("network.get: request failed", 2)
    end
    local rh = {}
    for line in gmatch(hdrs, "[^\n]+") do
      local k, v = smatch(line, "^([^:]+): ?(.*)$")
      if k then rh[lower(k)] = v end
    end
    return {status = status, body = body, headers = rh}
  end
  return network
end

return {io = make_io, os = make_os, network = make_network}
"""
