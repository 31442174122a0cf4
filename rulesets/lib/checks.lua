-- checks: a rule's conditions asked without refusing, for the lists of legal actions.
local M = {}

-- Whether the checks of `fn` pass: `fn(check, ...)` is called with a `check` that stops it at
-- the first failed condition (a verb passes umpire.check itself; a ruleset's actions.lua passes
-- this one). Any other error goes on up.
local FAILED = {}
local function quiet_check(cond) if not cond then error(FAILED, 0) end return cond end
function M.passes(fn, ...)
  local ok, e = pcall(fn, quiet_check, ...)
  if ok then return true end
  if e == FAILED then return false end
  error(e, 0)
end

return M
