-- Red Storm over the Reich: how the game stands, for bots and playouts (umpire.evaluate). Reads
-- the state only: no roll, no log, no track (the VP are victory.lua's own counts).
--
-- Figures (the same for both sides): `soviet_vp`, the VP hexes the Soviet holds (3.5, what the
-- automatic victory of 3.2.C.1 counts, without 3.3.C's extra hex); `german_vp`, the German VP of
-- 3.5 (VP hexes, refugees surviving, less the turns of unmade mandated attacks; the refugees on
-- the map count once the game is over, 3.5.C); `german_steps` and `soviet_steps`, the steps of
-- the combat units on the map (2.2.A; a German infantry division and its Kampfgruppe face count
-- one each, 16.1.A); `bunker`, "standing" or "eliminated" (3.2.C.2, 16.2); `result`, once the
-- game is over, who won and how (3.2.C, 3.4.C), without the numbers.
--
-- Score, for the Soviet (the German's is its negative): 10 a Soviet VP, -10 a German one; 1 a
-- step of the Soviet's on the map, -1 a German one; 0.5 an enemy combat unit out of supply (7.0),
-- the reverse for one's own; 30 once The Bunker is gone; once the game is over, +1000 for a
-- Soviet victory, -1000 for a German one. The weights are the project's own, not the rulebook's
-- (DATA.md).
local C = require "common"
local victory = require "victory"
local scoring = require "scoring"   -- rulesets/lib

local M = {}

local WEIGHT = { ["Soviet Automatic Victory"] = 1, ["Soviet Victory"] = 1, ["German Victory"] = -1 }

-- 3.2.C, 3.4.C: the outcome once the game is over: the winner and the kind of victory, the
-- rules' text before its colon (`German victory: The Bunker is on the map ...`).
function M.result()
  local over = umpire.clock().over
  if not over then return nil end
  return scoring.title(over:match("^([^:]*)") or over)
end

local function bunker_standing()
  local b = units.get("BUNKER")
  return b ~= nil and b.hex ~= nil
end

-- 2.2.A: the kinds of combat units (C.is_combat), for units.all to filter in Rust.
local COMBAT_KINDS = { "infantry", "mech", "cavalry", "antitank" }

local SIDES = { C.GERMAN, C.SOVIET }
local function oos(u) return u:marker("oos") and 1 or 0 end             -- 7.0

-- Steps on the map and units out of supply, by side.
local function forces()
  local f = scoring.forces(SIDES)
  for _, side in ipairs(SIDES) do
    for _, kind in ipairs(COMBAT_KINDS) do
      scoring.count(f, units.all { side = side, kind = kind, on_map = true }, nil, oos)
    end
  end
  return f
end

function M.figures()
  local over = umpire.clock().over ~= nil
  return scoring.steps_figures({
    soviet_vp = victory.soviet_vp(),                                      -- 3.5
    german_vp = (victory.german_vp(over)),                                -- 3.5, 3.5.C
    bunker = bunker_standing() and "standing" or "eliminated",
    result = M.result(),
  }, forces())                                                            -- 2.2.A, 16.1.A
end

function M.score(side)
  local f = forces()
  local s = 10 * (victory.soviet_vp() - victory.german_vp(false))       -- 3.5
    + (f.Soviet.steps - f.German.steps) + 0.5 * (f.German.trouble - f.Soviet.trouble)
  if not bunker_standing() then s = s + 30 end                            -- 3.2.C.2, 16.2
  return scoring.for_side(s, M.result(), WEIGHT, side, C.SOVIET)        -- 3.2.C, 3.4.C
end

return M
