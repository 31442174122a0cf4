-- sets: tiny helpers on lists and sets that the rulesets share.
local M = {}

-- The set of a list's items: { [item] = true, ... }.
function M.set_of(list)
  local t = {}
  for _, h in ipairs(list) do t[h] = true end
  return t
end

-- Whether the list (nil: none) holds x.
function M.contains(list, x)
  for _, y in ipairs(list or {}) do if y == x then return true end end
  return false
end

return M
