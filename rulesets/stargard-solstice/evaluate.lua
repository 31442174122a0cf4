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
local scoring = require "scoring"   -- rulesets/lib

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
  return scoring.title((over:gsub("%s*%b()", "")))
end

-- 11.0: an isolated unit is in worse trouble than one only out of supply.
local function trouble(u)
  if u:marker("isolated") then return 1 end
  if u:marker("oos") then return 0.5 end
  return 0
end

-- Steps on the map and supply states of the combat units, by side (one pass over the units).
local function forces()
  return scoring.count(scoring.forces { C.GERMAN, C.SOVIET }, units.all { on_map = true }, C.is_combat, trouble)
end

function M.figures()
  local vp, hexes = victory.tally()
  return scoring.steps_figures({
    soviet_vp = math.ceil(vp),                                            -- 14.1, 16.4
    vp_hexes = hexes,                                                     -- 14.1, 14.3.1
    result = M.result(),
  }, forces())
end

function M.score(side)
  local vp = victory.tally()
  local f = forces()
  local s = 10 * vp + (f.Soviet.steps - f.German.steps)                  -- 14.1
    + (f.German.trouble - f.Soviet.trouble)                               -- 11.0
  return scoring.for_side(s, M.result(), WEIGHT, side, C.SOVIET)        -- 14.2, 14.3
end

return M
