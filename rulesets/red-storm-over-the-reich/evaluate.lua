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

local M = {}

local WEIGHT = { ["Soviet Automatic Victory"] = 1, ["Soviet Victory"] = 1, ["German Victory"] = -1 }

-- 3.2.C, 3.4.C: the outcome once the game is over: the winner and the kind of victory, the
-- rules' text before its colon (`German victory: The Bunker is on the map ...`).
function M.result()
  local over = umpire.clock().over
  if not over then return nil end
  local head = over:match("^([^:]*)") or over
  return (head:gsub("(%a)(%a*)", function(a, b) return a:upper() .. b end))
end

local function bunker_standing()
  local b = units.get("BUNKER")
  return b ~= nil and b.hex ~= nil
end

-- 2.2.A: the kinds of combat units (C.is_combat), for units.all to filter in Rust.
local COMBAT_KINDS = { "infantry", "mech", "cavalry", "antitank" }

-- Steps on the map and units out of supply, by side.
local function forces()
  local f = {}
  for _, side in ipairs { C.GERMAN, C.SOVIET } do
    local s = { steps = 0, oos = 0 }
    for _, kind in ipairs(COMBAT_KINDS) do
      for _, u in ipairs(units.all { side = side, kind = kind, on_map = true }) do
        s.steps = s.steps + u.steps_left
        if u:marker("oos") then s.oos = s.oos + 1 end                   -- 7.0
      end
    end
    f[side] = s
  end
  return f
end

function M.figures()
  local f = forces()
  local over = umpire.clock().over ~= nil
  return {
    soviet_vp = victory.soviet_vp(),                                      -- 3.5
    german_vp = (victory.german_vp(over)),                                -- 3.5, 3.5.C
    german_steps = f.German.steps,
    soviet_steps = f.Soviet.steps,
    bunker = bunker_standing() and "standing" or "eliminated",
    result = M.result(),
  }
end

function M.score(side)
  local f = forces()
  local s = 10 * (victory.soviet_vp() - victory.german_vp(false))
    + (f.Soviet.steps - f.German.steps) + 0.5 * (f.German.oos - f.Soviet.oos)
  if not bunker_standing() then s = s + 30 end
  local r = M.result()
  if r then s = s + 1000 * (WEIGHT[r] or 0) end
  return side == C.SOVIET and s or -s
end

return M
