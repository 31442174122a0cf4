-- schema: describes a ruleset's data tables and checks them when the rules load.
--
--   local schema = require "schema"
--   local S = schema
--   umpire.validate(function()
--     local c = schema.checker("tables")               -- the module the tables are in
--     c:check("crt", T.crt, S.list(S.list(result, { len = 8 }), { len = 6 }))
--     c:check("terrain_cost", T.terrain_cost, S.map(S.string(), S.either(S.number { min = 0 }, S.one_of { "no" })))
--     return c:problems()
--   end)
--
-- Every bad entry is one problem { file = module, path = { "crt", 3, 8 }, msg = ... }; the host
-- finds that entry in the module's source and reports it as file:line:column (see
-- umpire.validate in docs/lua-api.md). All entries are checked, not only the first bad one.
--
-- A spec is a table { what = "a number", check = function(self, value, path, report) }: it
-- calls report(path, msg) for each problem. The constructors below make the usual ones;
-- S.test(what, fn) wraps a predicate of your own.
local M = {}

---A spec: what it accepts, in words, and the check that reports each problem of a value.
---@class Schema.Spec
---@field what string
---@field optional? boolean a field that may be missing (S.optional)
---@field check fun(self: Schema.Spec, value: any, path: (string|integer)[], report: fun(path: (string|integer)[], msg: string))

-- A value as a message shows it (schema.show, for messages of a ruleset's own checks).
---@param v any
---@return string
local function show(v)
  if type(v) == "string" then return ("%q"):format(v) end
  if type(v) == "table" then return "a table" end
  return tostring(v)
end
M.show = show

local function with(path, key)
  local p = {}
  for i, k in ipairs(path) do p[i] = k end
  p[#p + 1] = key
  return p
end

-- A leaf spec: `ok(v)` returns true, or false and (optionally) why.
local function leaf(what, ok)
  return {
    what = what,
    check = function(self, v, path, report)
      local good, why = ok(v)
      if not good then report(path, ("%s is not %s%s"):format(show(v), self.what, why and (": " .. why) or "")) end
    end,
  }
end

-- S.test(what, fn): fn(v) returns true, or false[, why].
---@param what string
---@param fn fun(v: any): boolean, string?
---@return Schema.Spec
function M.test(what, fn) return leaf(what, fn) end

-- S.number{ min =, max =, integer = true, step = 1/60 }: a number within bounds.
---@param o? { min?: number, max?: number, integer?: boolean, step?: number, step_text?: string }
---@return Schema.Spec
function M.number(o)
  o = o or {}
  local what = o.integer and "a whole number" or "a number"
  if o.min and o.max then what = ("%s from %s to %s"):format(what, o.min, o.max)
  elseif o.min then what = ("%s of at least %s"):format(what, o.min)
  elseif o.max then what = ("%s of at most %s"):format(what, o.max) end
  if o.step then what = ("%s (a multiple of %s)"):format(what, o.step_text or tostring(o.step)) end
  return leaf(what, function(v)
    if type(v) ~= "number" or v ~= v then return false end
    if o.integer and math.type(v) ~= "integer" and v ~= math.floor(v) then return false end
    if o.min and v < o.min then return false end
    if o.max and v > o.max then return false end
    if o.step then
      local n = v / o.step
      if math.abs(n - math.floor(n + 0.5)) > 1e-6 then return false end
    end
    return true
  end)
end

-- S.string{ pattern = "^%a" }: a string (matching the pattern, if given).
---@param o? { pattern?: string, what?: string }
---@return Schema.Spec
function M.string(o)
  o = o or {}
  return leaf(o.what or "a string", function(v)
    return type(v) == "string" and (not o.pattern or v:find(o.pattern) ~= nil)
  end)
end

-- S.one_of{ "no", "stop" } (or a table whose keys are the values allowed, with `what`).
---@param values any[]|table<any, any>
---@param what? string
---@return Schema.Spec
function M.one_of(values, what)
  local allowed, names = {}, {}
  if #values > 0 then
    for _, v in ipairs(values) do allowed[v] = true; names[#names + 1] = show(v) end
  else
    for k in pairs(values) do allowed[k] = true; names[#names + 1] = show(k) end
  end
  local text = what or (#names == 1 and names[1] or ("one of " .. table.concat(names, ", ")))
  return leaf(text, function(v) return allowed[v] == true end)
end

-- S.either(a, b, ...): a value that one of the specs accepts (the message names them all).
---@param ... Schema.Spec
---@return Schema.Spec
function M.either(...)
  local specs = { ... }
  local names = {}
  for i, s in ipairs(specs) do names[i] = s.what end
  return {
    what = table.concat(names, " or "),
    check = function(self, v, path, report)
      for _, s in ipairs(specs) do
        local bad = false
        s:check(v, path, function() bad = true end)
        if not bad then return end
      end
      report(path, ("%s is not %s"):format(show(v), self.what))
    end,
  }
end

-- S.list(spec, { len = n, min = n }): a sequence 1..n of values the spec accepts, nothing else.
---@param spec Schema.Spec
---@param o? { len?: integer, min?: integer }
---@return Schema.Spec
function M.list(spec, o)
  o = o or {}
  local what = "a list" .. (o.len and (" of " .. o.len) or "") .. " of " .. spec.what
  return {
    what = what,
    check = function(self, v, path, report)
      if type(v) ~= "table" then return report(path, ("%s is not %s"):format(show(v), self.what)) end
      local n = #v
      if o.len and n ~= o.len then report(path, ("%d entries, expected %d"):format(n, o.len)) end
      if o.min and n < o.min then report(path, ("%d entries, expected at least %d"):format(n, o.min)) end
      for k in pairs(v) do
        if math.type(k) ~= "integer" or k < 1 or k > n then report(with(path, k), "not an entry of a list") end
      end
      for i = 1, n do spec:check(v[i], with(path, i), report) end
    end,
  }
end

-- S.map(keyspec, valuespec): a table whose every key and value the specs accept.
---@param keyspec Schema.Spec
---@param valuespec Schema.Spec
---@return Schema.Spec
function M.map(keyspec, valuespec)
  return {
    what = "a table of " .. valuespec.what,
    check = function(self, v, path, report)
      if type(v) ~= "table" then return report(path, ("%s is not %s"):format(show(v), self.what)) end
      for k, x in pairs(v) do
        keyspec:check(k, with(path, k), function(p, _) report(p, ("the key %s is not %s"):format(show(k), keyspec.what)) end)
        valuespec:check(x, with(path, k), report)
      end
    end,
  }
end

-- S.record{ field = spec, ... }: a table with exactly these fields (S.optional(spec) for one
-- that may be missing).
---@param fields table<string, Schema.Spec>
---@return Schema.Spec
function M.record(fields)
  return {
    what = "a record",
    check = function(self, v, path, report)
      if type(v) ~= "table" then return report(path, ("%s is not a table"):format(show(v))) end
      for k, spec in pairs(fields) do
        if v[k] == nil and not spec.optional then report(with(path, k), "missing (" .. spec.what .. ")")
        elseif v[k] ~= nil then spec:check(v[k], with(path, k), report) end
      end
      for k in pairs(v) do
        if fields[k] == nil then report(with(path, k), "not a field of this table") end
      end
    end,
  }
end

-- S.optional(spec): a field of S.record that may be missing.
---@param spec Schema.Spec
---@return Schema.Spec
function M.optional(spec)
  return { what = spec.what, optional = true, check = function(_, v, path, report) spec:check(v, path, report) end }
end

-- S.tuple{ spec1, spec2, ... }: a list of exactly these entries.
---@param specs Schema.Spec[]
---@return Schema.Spec
function M.tuple(specs)
  local names = {}
  for i, s in ipairs(specs) do names[i] = s.what end
  return {
    what = "{ " .. table.concat(names, ", ") .. " }",
    check = function(self, v, path, report)
      if type(v) ~= "table" then return report(path, ("%s is not %s"):format(show(v), self.what)) end
      if #v ~= #specs then report(path, ("%d entries, expected %d: %s"):format(#v, #specs, self.what)) end
      for i, s in ipairs(specs) do s:check(v[i], with(path, i), report) end
    end,
  }
end

-- A checker collects the problems of the tables of one module.
---@class Schema.Checker
---@field file string
---@field list Umpire.Problem[]
local Checker = {}
Checker.__index = Checker

-- schema.checker(file): a checker of the tables of the module `file` (as `require` names it).
---@param file string
---@return Schema.Checker
function M.checker(file)
  return setmetatable({ file = file, list = {} }, Checker)
end

-- c:check(name, value, spec): checks the table assigned to `name` in the module.
---@param name string|(string|integer)[] the table's name, or the key path to it
---@param value any
---@param spec Schema.Spec
function Checker:check(name, value, spec)
  local path = type(name) == "table" and name or { name }
  spec:check(value, path, function(p, msg) self:report(p, msg) end)
end

-- c:report(path, msg): a problem found by code of your own.
---@param path string|(string|integer)[]
---@param msg string
function Checker:report(path, msg)
  self.list[#self.list + 1] = { file = self.file, path = type(path) == "table" and path or { path }, msg = msg }
end

-- c:problems(): every problem found, for umpire.validate to return.
---@return Umpire.Problem[]
function Checker:problems() return self.list end

return M
