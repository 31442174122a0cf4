-- sets: tiny helpers on lists and sets that the rulesets share.
local M = {}

-- The set of a list's items: { [item] = true, ... }.
---@generic T
---@param list T[]
---@return table<T, true>
function M.set_of(list)
  local t = {}
  for _, h in ipairs(list) do t[h] = true end
  return t
end

-- The ids of a list of units, in its order.
---@param list UnitRef[]
---@return string[]
function M.ids(list)
  local out = {}
  for _, u in ipairs(list) do out[#out + 1] = u.id end
  return out
end

-- Whether the list (nil: none) holds x.
---@param list? any[]
---@param x any
---@return boolean
function M.contains(list, x)
  for _, y in ipairs(list or {}) do if y == x then return true end end
  return false
end

-- A map overlay's labels: every hex of a set labelled `label`, over the labels of `into` (a
-- table of labels already made, or none).
---@param set table<Umpire.Hex, any>|Umpire.HexSet
---@param label any
---@param into? table<Umpire.Hex, any>
---@return table<Umpire.Hex, any>
function M.labelled(set, label, into)
  local out = into or {}
  for h in pairs(set) do out[h] = out[h] or label end
  return out
end

return M
