-- Fortress Stalingrad 5: zones of control — who projects one, who only negates, and where they
-- reach.
local C = require "common"
local T = require "tables"

local M = {}

-- 5.2, 5.12, 7.32: a ZOC is projected by ground combat units with a printed attack factor above
-- zero that are larger than a division (armies, corps, groups), except Axis units in OOS 4-6.
local BIG = { army = true, corps = true, group = true }
function M.projects(u, turn)
  if not BIG[u:attr("size") or ""] then return false end
  if not C.is_combat(u) or not u.hex then return false end
  if (u:value("attack") or 0) <= 0 then return false end
  if u.side == C.GERMAN then
    local oos = u:marker("oos")
    if oos and oos >= T.oos_no_zoc and C.supply_level(u, turn) >= T.oos_no_zoc then return false end
  end
  return true
end

-- 5.7: any ground combat unit negates enemy ZOC in its hex (for supply and retreat, 5.5); 0-0-1s,
-- air units, Manstein and Katyushas do not (C.is_combat).
function M.negates(u) return C.is_combat(u) and u.hex ~= nil end

-- The hexes units in the hexes `from` (a list or set) project a ZOC into: the six neighbours of
-- each, not across all-sea hexsides (the Kerch Straits included) and not into all-sea hexes
-- (5.3). Returns a set { [hex] = true }.
function M.around(from)
  return map.adjacent { from = from, not_across = { "sea" }, not_into = { "sea" } }
end

-- The hexes the side's units project a ZOC into (M.around the projecting units): a set.
function M.zoc(side)
  local from = {}
  for _, u in ipairs(units.all { side = side, on_map = true }) do
    if M.projects(u) then from[#from + 1] = u.hex end
  end
  return M.around(from)
end

-- The hexes where the side's combat units negate the enemy's ZOC (5.5, 5.7).
function M.negating(side)
  local out = {}
  for _, u in ipairs(C.on_map(side)) do
    if M.negates(u) then out[u.hex] = true end
  end
  return out
end

-- The enemy ZOC a side must respect when tracing supply or retreating (5.5, 5.15, 7.4): the
-- enemy's ZOC hexes minus those its own combat units stand in.
function M.unnegated_ezoc(side)
  local ez, neg = M.zoc(C.other(side)), M.negating(side)
  local out = {}
  for h in pairs(ez) do if not neg[h] then out[h] = true end end
  return out
end

return M
