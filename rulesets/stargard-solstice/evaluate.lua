-- Stargard Solstice: how the game stands, for bots and playouts (umpire.evaluate). Reads the
-- state only: no roll, no log, no track (the VP are victory.lua's own count, victory.tally).
--
-- Figures (the same for both sides): `soviet_vp`, the Soviet VP as 14.1 totals them (VP hexes
-- held plus the other sources, fractions rounded up, 16.4); `vp_hexes`, the VP hexes the Soviet
-- holds (14.1, 14.3.1); `german_steps` and `soviet_steps`, the steps of the combat units on the
-- map (HQs and air units aside); `result`, once the game is over, the victory level of 14.3 or
-- the sudden death of 14.2, without its numbers.
--
-- Score, for the Soviet (the German's is its negative): 10 a Soviet VP, unrounded; 1 a step of
-- the Soviet's on the map, -1 a German one; 0.5 an enemy unit out of supply (11.0), 1 if
-- isolated, the reverse for one's own; once the game is over, 1000 times the level's weight
-- (Triumphant 1, Overwhelming 0.75, Major 0.5, Minor 0.25, Draw 0, German Propaganda -1, a
-- sudden death ±1). The weights are the project's own, not the rulebook's (DATA.md).
local C = require "common"
local T = require "tables"
local victory = require "victory"

local M = {}

-- 14.2, 14.3: the weight of each outcome, for the Soviet.
local WEIGHT = {
  ["Triumphant Soviet Victory"] = 1, ["Overwhelming Soviet Victory"] = 0.75,
  ["Major Soviet Victory"] = 0.5, ["Minor Soviet Victory"] = 0.25, ["Draw"] = 0,
  ["German Propaganda Victory"] = -1,
  ["Soviet Sudden Death Victory"] = 1, ["German Sudden Death Victory"] = -1,
}

-- The outcome once the game is over: a level of 14.3 as the rules pick it, or a sudden death
-- (14.2.1, 14.2.2) named without its rule.
function M.result()
  local over = umpire.clock().over
  if not over then return nil end
  for _, row in ipairs(T.victory) do
    if over == row[2] then return over end
  end
  local text = over:gsub("%s*%b()", "")
  return (text:gsub("(%a)(%a*)", function(a, b) return a:upper() .. b end))
end

-- Steps on the map and supply states of the combat units, by side (one pass over the units).
local function forces()
  local f = { German = { steps = 0, supply = 0 }, Soviet = { steps = 0, supply = 0 } }
  for _, u in ipairs(units.all { on_map = true }) do
    if C.is_combat(u) then
      local s = f[u.side]
      s.steps = s.steps + u.steps_left
      if u:marker("isolated") then s.supply = s.supply + 1                 -- 11.0
      elseif u:marker("oos") then s.supply = s.supply + 0.5 end
    end
  end
  return f
end

function M.figures()
  local vp, hexes = victory.tally()
  local f = forces()
  return {
    soviet_vp = math.ceil(vp),                                            -- 14.1, 16.4
    vp_hexes = hexes,
    german_steps = f.German.steps,
    soviet_steps = f.Soviet.steps,
    result = M.result(),
  }
end

function M.score(side)
  local vp = victory.tally()
  local f = forces()
  local s = 10 * vp + (f.Soviet.steps - f.German.steps) + (f.German.supply - f.Soviet.supply)
  local r = M.result()
  if r then s = s + 1000 * (WEIGHT[r] or 0) end
  return side == "Soviet" and s or -s
end

return M
