-- Fortress Stalingrad: how the game stands, for bots and playouts (umpire.evaluate). Reads the
-- state only: no roll, no log, no track. The VP are the track `vp`, victory.lua's running total
-- (15.7), which main.lua recomputes after every command (victory.total on demand would cost a
-- pass over every hex's control marker).
--
-- Figures (the same for both sides): `vp`, the Soviet victory points (15.1-15.7: towns and
-- cities gained since the start, German/Axis losses, after the FMCO less the Soviet's, the
-- Crimea once scored); `german_steps` (German and satellite) and `soviet_steps`, the steps of the
-- ground combat units on the map (5.7: not 0-0-1s, Katyushas, air units or Manstein); `result`,
-- once the game is over, the outcome of 15.9 (or the forfeit of 14.5), without its numbers.
--
-- Score, for the Soviet (the German's is its negative): 2 a VP; 1 a step of the Soviet's on the
-- map, -1 a German/Axis one; 0.5 a level of supply trouble of an enemy unit (7.11 attenuated
-- supply 1-3, 7.34 OOS 1-6), the reverse for one's own; during the FMCO, 25 for each of the
-- four attacks the German still owes in his player turn (14.5: a bot declares it only if it can
-- keep it up); once the game is over, +1000 for a Soviet victory (forfeit included), 0 for a
-- draw, -1000 for a German victory. The weights are the project's own, not the rulebook's
-- (DATA.md).
local C = require "common"
local T = require "tables"
local scoring = require "scoring"   -- rulesets/lib

local M = {}

-- 15.9, 14.5: the outcome once the game is over, from the points as the rules judge them.
function M.result()
  if not umpire.clock().over then return nil end
  if vars.get("forfeit") then return "Soviet Victory by Forfeit" end       -- 14.5
  local vp = tracks.get("vp")
  if vp >= T.vp_levels.soviet_win then return "Soviet Victory" end
  if vp >= T.vp_levels.draw then return "Draw" end
  return "German Victory"
end

local WEIGHT = {
  ["Soviet Victory by Forfeit"] = 1, ["Soviet Victory"] = 1, ["Draw"] = 0, ["German Victory"] = -1,
}

-- Steps on the map and supply levels of the combat units, by side (one pass over the units).
local function forces()
  local turn = umpire.clock().turn
  return scoring.count(scoring.forces { C.GERMAN, C.SOVIET }, units.all { on_map = true }, C.is_combat,
    function(u) return C.supply_level(u, turn) end)                       -- 7.11, 7.34
end

function M.figures()
  return scoring.steps_figures({
    vp = tracks.get("vp"),                                                -- 15.7
    result = M.result(),
  }, forces())                                                            -- 5.7
end

function M.score(side)
  local f = forces()
  local s = 2 * tracks.get("vp") + (f.Soviet.steps - f.German.steps)     -- 15.7, 15.1-15.6
    + 0.5 * (f.German.trouble - f.Soviet.trouble)                       -- 7.11, 7.34
  -- 14.5: the attacks owed this German player turn (counted from its Movement Phase, fmco.lua;
  -- the final supply check ends the FMCO, 15.8)
  if (vars.get("fmco_turn") or 0) > 0 then
    s = s + 25 * math.max(0, T.fmco.attacks - (vars.get("fmco_attacks") or 0))
  end
  return scoring.for_side(s, M.result(), WEIGHT, side, C.SOVIET)        -- 15.9, 14.5
end

return M
