-- checks: a rule's conditions asked without refusing, for the lists of legal actions.
local M = {}

-- Whether the checks of `fn` pass: `fn(check, ...)` is called with a `check` that stops it at
-- the first failed condition (a verb passes umpire.check itself; a ruleset's actions.lua passes
-- this one). Any other error goes on up.
local FAILED = {}
local function quiet_check(cond) if not cond then error(FAILED, 0) end return cond end
---@param fn fun(check: Umpire.CheckFn, ...: any) the verb's checks
---@param ... any the arguments after `check`
---@return boolean
function M.passes(fn, ...)
  local ok, e = pcall(fn, quiet_check, ...)
  if ok then return true end
  if e == FAILED then return false end
  error(e, 0)
end

-- The first failed condition of `fn` as `rule, text` (nil when every check passes): `fn(check, ...)`
-- is called with a `check(cond, rule, fmt, ...)` that records it and stops there. For `show` and
-- `moves`, which say why a verb would refuse; any other error goes on up.
---@param fn fun(check: Umpire.CheckFn, ...: any) the verb's checks
---@param ... any the arguments after `check`
---@return string|nil rule
---@return string|nil text
function M.first_failure(fn, ...)
  local failed
  local function check(cond, rule, fmt, ...)
    if not cond then
      failed = { rule, select("#", ...) > 0 and fmt:format(...) or fmt }
      error(failed, 0)
    end
    return cond
  end
  local ok, e = pcall(fn, check, ...)
  if ok then return nil end
  if e ~= failed then error(e, 0) end
  return failed[1], failed[2]
end

return M
