-- Stargard Solstice: helpers shared by the rule areas (sides, unit classes, supply sources,
-- strengths with the standard rounding rule).
local T = require "tables"
local odds = require "odds"   -- rulesets/lib
local sets = require "sets"   -- rulesets/lib
local C = {}

function C.is_hq(u) return u.kind == "hq" end
function C.is_air(u) return u.kind == "air" end
function C.is_combat(u)
  local kind = u.kind
  return kind ~= "hq" and kind ~= "air"
end
function C.is_mech(u) return u:attr("mech") == true end
function C.attack(u) return u:value("attack") or 0 end
function C.defense(u) return u:value("defense") or 0 end

-- The two sides (1.1), and the other one: the enemy of `side`.
C.SOVIET, C.GERMAN = "Soviet", "German"
---@param side string
---@return string
function C.other(side) return side == C.SOVIET and C.GERMAN or C.SOVIET end
-- C.other's former name, which benches/umpire.rs's supply bench still calls.
C.enemy = C.other
-- A count with its noun: "1 activation", "2 activations" (`many` for an irregular plural).
C.count = require("words").count

-- Zones of control are zoc.lua's (4.0); these two names stay here for the scripts and designers
-- that ask `require("common").ezoc(side)` or `.has_zoc(u)`.
-- (required here: zoc requires common)
---@param u UnitRef
---@return boolean
function C.has_zoc(u) return require("zoc").has_zoc(u) end
---@param side string
---@param stacks? table<Umpire.Hex, UnitRef[]>
---@return table<Umpire.Hex, boolean>
function C.ezoc(side, stacks) return require("zoc").ezoc(side, stacks) end

-- Hexes holding units of a side (combat units and HQs, not air units).
function C.occupied(side)
  local occ = {}
  for _, u in ipairs(units.all { side = side, on_map = true }) do
    if not C.is_air(u) then occ[u.hex] = true end
  end
  return occ
end

-- 1.2.9, 11.2: which supply sources a unit traces to: the name of their area.
function C.source_area(u)
  if u:attr("nation") == "Polish" then return "supply_polish" end                       -- 11.2.2
  if u.side == "German" and (u:attr("kolberg") or u:attr("formation") == "10SS-HQ") then
    return "supply_kolberg"                                                            -- 11.2.4
  end
  return u.side == "German" and "supply_german" or "supply_soviet"                     -- 11.2.1, 11.2.3
end

-- The supply source hexes of a unit.
function C.sources(u)
  return map.area(C.source_area(u))
end

-- A number with quarters shown as fractions in rulings.
function C.num(x)
  if x == math.floor(x) then return tostring(math.floor(x)) end
  local q = x * 4
  if q == math.floor(q) then
    local whole = math.floor(x)
    local frac = ({ [1] = "1/4", [2] = "1/2", [3] = "3/4" })[math.floor(q) % 4]
    return whole > 0 and (whole .. " " .. frac) or frac
  end
  return string.format("%.2f", x)
end

-- 1.1.2 / 1.1.3: strengths are multiplied by every factor (kept as fractions), the units of a
-- side are added, and only the total is rounded down.
function C.total(list, value_of)
  local sum = 0
  for _, entry in ipairs(list) do sum = sum + value_of(entry) end
  return math.floor(sum + 1e-9), sum
end

-- 8.4, 1.1.3: the CRT column of an attack/defence ratio, rounded for the defender (lib/odds.lua);
-- nil when below 1:2 (cancelled).
local COLUMNS = odds.columns(T.columns)
function C.column(att, def)
  return odds.column(att, def, COLUMNS)
end

-- Keeps the candidates with the best (smallest) score, scores compared element by element:
-- local b = C.best() b:offer(h, {1, d}) ... b.options, b.score
function C.best()
  local b = { options = {}, score = nil }
  function b:offer(x, score)
    local cmp = 0
    if self.score then
      for i = 1, #score do
        if score[i] ~= self.score[i] then cmp = score[i] < self.score[i] and -1 or 1 break end
      end
    else
      cmp = -1
    end
    if cmp < 0 then self.score, self.options = score, { x } elseif cmp == 0 then self.options[#self.options + 1] = x end
  end
  return b
end

C.contains = sets.contains

return C
