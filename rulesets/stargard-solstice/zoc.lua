-- Stargard Solstice 4.0 Zones of Control: which units have one (4.2, 4.2.1, 6.3.1), where it
-- reaches (4.2.2, 4.6), and what it costs to enter and leave (4.1).
local T = require "tables"
local C = require "common"
local M = {}

-- 4.2: units with a printed attack of 1 or more have a ZOC; 4.2.1 not HQs or 0-attack units.
---@param u UnitRef
---@return boolean
function M.has_zoc(u)
  return C.is_combat(u) and C.attack(u) >= 1
end

-- 6.3.1: a stack whose top unit (air units aside) has no ZOC exerts none.
---@param stack UnitRef[]
---@return boolean
local function top_has_zoc(stack)
  for _, u in ipairs(stack) do
    local kind = u.kind   -- (read once: M.has_zoc of a unit that is not an air unit)
    if kind ~= "air" then return kind ~= "hq" and C.attack(u) >= 1 end
  end
  return false
end

---@param hex Umpire.Hex
---@return boolean
function M.stack_has_zoc(hex)
  return top_has_zoc(units.at(hex))
end

-- Hexes in the zone of control of `side`'s enemies: the EZOC `side` must respect. 4.2.2 a ZOC
-- reaches only hexes the unit could enter; 4.6 not across a major river (even bridged), an
-- impassable hexside, or into water. The neighbours are found in Rust (map.adjacent).
-- `stacks` may be given (units.stacks()) when the caller already has them.
---@param side string
---@param stacks? table<Umpire.Hex, UnitRef[]>
---@return table<Umpire.Hex, boolean>
function M.ezoc(side, stacks)
  local from = {}
  for h, stack in pairs(stacks or units.stacks()) do
    if stack[1].side ~= side and top_has_zoc(stack) then from[#from + 1] = h end
  end
  return map.adjacent { from = from, not_across = { "major_river", "impassable" }, not_into = { "lake", "restrictive" } }
end

-- 4.1: the MP an EZOC adds to entering and to leaving its hexes, by hex (from M.ezoc).
---@param ez table<Umpire.Hex, boolean>
---@return table<Umpire.Hex, number> enter, table<Umpire.Hex, number> leave
function M.costs(ez)
  local enter = {}
  for h in pairs(ez) do enter[h] = T.ezoc_enter end
  -- (the same amount both ways: one table, read only, for both)
  if T.ezoc_leave == T.ezoc_enter then return enter, enter end
  local leave = {}
  for h in pairs(ez) do leave[h] = T.ezoc_leave end
  return enter, leave
end

return M
