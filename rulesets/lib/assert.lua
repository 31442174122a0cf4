-- A small assertion module for rule authors: raises a rule error (a bug in the ruleset)
-- naming what was expected, at the caller's file:line.
local M = {}

function M.eq(actual, expected, what)
  if actual ~= expected then
    error(("%s: expected %s, got %s"):format(what or "value", tostring(expected), tostring(actual)), 2)
  end
  return actual
end

function M.is(value, what)
  if not value then error((what or "condition") .. " does not hold", 2) end
  return value
end

function M.type(value, ty, what)
  if type(value) ~= ty then
    error(("%s: expected a %s, got %s"):format(what or "value", ty, type(value)), 2)
  end
  return value
end

return M
