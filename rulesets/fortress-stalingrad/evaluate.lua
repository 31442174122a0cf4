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
-- draw, -1000 for a German victory. And, for the points a one-command lookahead cannot see
-- coming, the cities at stake (15.2, 15.4): each of the ten cities (Stalingrad's 20 split over its
-- two hexes, 10.24) that an enemy combat unit is within 6 hexes of is worth to its enemy 0.3 of
-- its points times (7 - that distance) / 6, cut to a quarter while a combat unit of its holder
-- stands in it and to 0.6 while one stands next to it (its ZOC contests the enemy's, 3.3): the
-- Soviet is drawn towards the German's cities and the German to garrison and screen them (and
-- the reverse once a city is the Soviet's). And the German/Axis combat units with no overland
-- supply line now (15.8, 7.33), each worth to the Soviet half of what losing it would be (its
-- steps and twice their VP, 15.4): the supply removals are otherwise met all at once at the end
-- of the German player turn. The weights are the project's own, not the rulebook's (DATA.md).
local C = require "common"
local T = require "tables"
local scoring = require "scoring"   -- rulesets/lib
local supply = require "supply"

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

-- Steps on the map and supply levels of the combat units, by side (one pass over the units of
-- `list`, every unit on the map when not given).
local function forces(list)
  local turn = umpire.clock().turn
  return scoring.count(scoring.forces { C.GERMAN, C.SOVIET }, list or units.all { on_map = true }, C.is_combat,
    function(u) return C.supply_level(u, turn) end)                       -- 7.11, 7.34
end

-- 15.2, 15.4: the cities whose points a side gains or loses with their control, each with its
-- points; Stalingrad's 20 are split over its two hexes (10.24: the Soviet needs both). In hex order.
local CITIES = {}
do
  local halves = {}
  for _, h in ipairs(T.stalingrad) do halves[h] = true end
  for h, v in pairs(C.VP) do
    if v >= 2 and h ~= T.stalingrad[1] then CITIES[#CITIES + 1] = { hex = h, vp = v } end
  end
  for _, h in ipairs(T.stalingrad) do
    CITIES[#CITIES + 1] = { hex = h, vp = C.VP[T.stalingrad[1]] / #T.stalingrad }
  end
  table.sort(CITIES, function(a, b) return a.hex < b.hex end)
end

-- The weights of the cities at stake (the project's own, DATA.md).
local STAKE = {
  share = 0.3,        -- of a city's points, an enemy combat unit next to it
  reach = 6,          -- hexes: an enemy farther off is no threat yet
  held = 0.25,        -- what is left of the stake while a combat unit of its holder stands in it
  screened = 0.6,     -- ... and while one stands next to it
}

-- Where each side's combat units stand (one pass over the units of `list`): `hexes[side]`, their
-- hexes as a hexset (nil for a side with none); `german`, the German/Axis ones, and
-- `german_at`, their hexes as a plain set (what map.reach's targets take).
local function positions(list)
  local at = { [C.SOVIET] = {}, [C.GERMAN] = {} }
  local any, german = {}, {}
  for _, u in ipairs(list) do
    if C.is_combat(u) then
      local side = u.side
      at[side][u.hex] = true
      any[side] = true
      if side == C.GERMAN then german[#german + 1] = u end
    end
  end
  local hexes = {}
  for _, side in ipairs { C.SOVIET, C.GERMAN } do
    if any[side] then hexes[side] = map.hexset(at[side]) end
  end
  return { hexes = hexes, german = german, german_at = at[C.GERMAN] }
end

-- 15.2, 15.4 (3.3 for the cover): the cities at stake, for the Soviet: for each city, what its
-- holder's enemy would gain by taking it, scaled by how near his nearest combat unit is and cut
-- while the holder's combat units stand in it or next to it; the German's cities count for the
-- Soviet, the Soviet's against him. `pos` as positions gives it.
local function stakes(pos)
  local at = pos.hexes
  local s = 0
  for _, c in ipairs(CITIES) do
    local holder = C.SIDE_OF[map.marker(c.hex, "ctl")]
    local enemy = holder and at[C.other(holder)]
    local _, d = nil, nil
    if enemy then _, d = map.nearest(c.hex, enemy) end
    if d and d >= 1 and d <= STAKE.reach then
      local stake = STAKE.share * c.vp * (STAKE.reach + 1 - d) / STAKE.reach
      local own = at[holder]
      local _, dh = nil, nil
      if own then _, dh = map.nearest(c.hex, own) end
      if dh == 0 then stake = stake * STAKE.held elseif dh == 1 then stake = stake * STAKE.screened end
      s = s + (holder == C.GERMAN and stake or -stake)
    end
  end
  return s
end

function M.stakes(list) return stakes(positions(list or units.all { on_map = true })) end

-- 15.4, 15.5 (14.4, 15.6 after the FMCO): what losing the whole unit `u` is worth in the score,
-- for its side: its steps, and twice the victory points they give.
local function loss_value(u, fmco)
  local steps = u.steps_left
  if fmco then return steps end
  local vp
  if C.is_satellite(u) then vp = T.vp_kills.satellite_unit
  else
    local mech = C.is_mech(u)
    vp = steps * (mech and T.vp_kills.german_mech_step or T.vp_kills.german_leg_step)
    if u:attr("size") == "corps" then vp = vp + (mech and T.vp_kills.german_mech_corps or T.vp_kills.german_leg_corps) end
  end
  return steps + 2 * vp
end

-- The share of a cut-off unit's worth counted before it is lost (the project's own, DATA.md).
local CUT_OFF = 0.5

-- 15.8 (7.26, 7.28, 7.29, 7.33): the German/Axis combat units with no overland supply line now,
-- each counted for the Soviet at a share of what losing it is worth: a unit cut off piles up OOS
-- levels towards the removals of the Terminal Supply Phases (a satellite goes at the first,
-- 7.29), and the final check of 15.8 destroys every one still cut off at the end of turn 12.
-- Supply by air or sea (7.22, 7.36) is no overland line. `pos` as positions gives it.
local function cut_off(pos)
  if not pos.hexes[C.GERMAN] then return 0 end
  local lines = supply.german_trace(pos.german_at)
  local fmco = (vars.get("fmco_turn") or 0) > 0
  local s = 0
  for _, u in ipairs(pos.german) do
    if not lines[u.hex] then s = s + CUT_OFF * loss_value(u, fmco) end
  end
  return s
end

function M.cut_off(list) return cut_off(positions(list or units.all { on_map = true })) end

function M.figures()
  return scoring.steps_figures({
    vp = tracks.get("vp"),                                                -- 15.7
    result = M.result(),
  }, forces())                                                            -- 5.7
end

function M.score(side)
  local list = units.all { on_map = true }
  local f = forces(list)
  local s = 2 * tracks.get("vp") + (f.Soviet.steps - f.German.steps)     -- 15.7, 15.1-15.6
    + 0.5 * (f.German.trouble - f.Soviet.trouble)                       -- 7.11, 7.34
  local pos = positions(list)
  s = s + stakes(pos)                                                   -- 15.2, 15.4
    + cut_off(pos)                                                      -- 15.8, 7.33, 15.4
  -- 14.5: the attacks owed this German player turn (counted from its Movement Phase, fmco.lua;
  -- the final supply check ends the FMCO, 15.8)
  if (vars.get("fmco_turn") or 0) > 0 then
    s = s + 25 * math.max(0, T.fmco.attacks - (vars.get("fmco_attacks") or 0))
  end
  return scoring.for_side(s, M.result(), WEIGHT, side, C.SOVIET)        -- 15.9, 14.5
end

return M
