-- Fortress Stalingrad 15: victory. Only the Soviet scores (15.1): towns and cities as their control
-- changes (15.2, 15.4), German/Axis losses (15.4, 15.5; after the FMCO Soviet losses count against
-- him instead, 14.4, 15.6), the Crimea at the end (15.3), the final German supply check (15.8),
-- and the three outcomes (15.9). The track `vp` is recomputed after every command.
local C = require "common"
local T = require "tables"
local control = require "control"
local supply = require "supply"

local M = {}

-- 15.2, 15.4, 10.24: the points of a town or city hex (Stalingrad's points need both its hexes,
-- and are counted once).
local function hex_values() return C.VP end
local VP_HEXES = {}                             -- their hexes, in order (a list walks faster than pairs)
for h in pairs(hex_values()) do VP_HEXES[#VP_HEXES + 1] = h end

-- What the Soviet holds of the towns and cities, in points, by control (`soviet(hex)`: whether
-- the hex is his, now or at the start).
local function held(soviet)
  local total = 0
  for _, h in ipairs(VP_HEXES) do
    local n = hex_values()[h]
    local ok = soviet(h)
    if h == T.stalingrad[1] then
      for _, o in ipairs(T.stalingrad) do ok = ok and soviet(o) end
    end
    if ok then total = total + n end
  end
  return total
end

-- 15.2: points for control are those gained since the start (a town the Soviet held at the start
-- is worth nothing until the German takes it, and costs its points then; DATA.md). What the Soviet
-- held at the start never changes: counted once, when the rules load.
local AT_START = held(function(h) return not map.in_area("german_start", h) end)
-- `ctl`: every hex's controller, map.marked("ctl") (found here when not given).
function M.control_points(ctl)
  ctl = ctl or map.marked("ctl")
  return held(function(h) return ctl[h] == C.SIDE_NO[C.SOVIET] end) - AT_START
end

function M.total(ctl)
  return M.control_points(ctl) + (tracks.get("vp_kills") or 0) + (tracks.get("vp_crimea") or 0)
end

-- `ctl` as for control_points.
function M.update(ctl)
  local t = M.total(ctl)
  if tracks.get("vp") ~= t then tracks.set("vp", t) end
end

-- 15.3: a Soviet combat unit in the Crimea at the end of turn 12.
local function crimea()
  for _, h in ipairs(map.area("crimea")) do
    if #C.combat_at(h, C.SOVIET) > 0 then return h end
  end
end

-- The end of the game (15.8, 15.3, 15.9).
function M.finish()
  if vars.get("forfeit") then return vars.get("forfeit") end
  -- 15.8: the final German/Axis supply check: units without an overland line are destroyed (the
  -- FMCO is over), and the hexes they leave empty become Soviet
  vars.set("fmco_turn", 0)
  local lines = supply.german_trace()
  local vacated = {}
  for _, u in ipairs(C.on_map(C.GERMAN)) do
    if not lines[u.hex] then
      local h = u.hex
      C.eliminate(u, "15.8", "no overland supply line at the end of the game")
      if #C.ground_at(h, C.GERMAN) == 0 then vacated[#vacated + 1] = h end
    end
  end
  if #vacated > 0 then
    table.sort(vacated)
    control.give(vacated, C.SOVIET)
    log.rule("15.8", "hexes left empty by the final removals become Soviet: " .. table.concat(vacated, ", "))
  end
  local h = crimea()
  if h then
    tracks.set("vp_crimea", T.vp_crimea)
    log.rule("15.3", ("a Soviet combat unit is in the Crimea (%s): +%d VP"):format(h, T.vp_crimea))
  end
  M.update()
  local vp = tracks.get("vp")
  local result
  if vp >= T.vp_levels.soviet_win then result = ("Soviet victory: %d VP (111 or more, 15.9)"):format(vp)
  elseif vp >= T.vp_levels.draw then result = ("draw: %d VP (100 to 110, 15.9)"):format(vp)
  else result = ("German victory: %d VP (below 100, 15.9)"):format(vp) end
  log.rule("15.9", result)
  return result
end

return M
