-- Red Storm over the Reich 17: special rules. Hitler Mandated Attacks (17.7, 3.5.B), the USIR's
-- mandatory evacuation (17.1.C), Operation Thunderclap (17.5). (Heinrici, 17.3.B, is in
-- barrage.lua; the USIR's barrage ban 17.1.A in barrage.lua, its replacements 17.1.B in
-- reinforce.lua; Zossen 17.6 in movement.lua and allowance.lua.)
local C = require "common"
local T = require "tables"
local movement = require "movement"
local allowance = require "allowance"
local transport = require "transport"
local kg = require "kg"

local M = {}

local function turn() return umpire.clock().turn end

-- 17.7, 3.5.B: at the start of the German Strategic Segment, from turn 2, in the Historical and
-- Sleigh Ride scenarios, a die halved (rounded up) gives the mandated attacks of the turn; no more
-- rolls once Zossen is occupied or The Bunker is gone.
function M.strategic_start()
  local t = turn()
  if vars.get("scenario") == "guderian" or t < T.hma_from_turn then return end
  if vars.get("zossen_lost") or vars.get("bunker_gone") then
    log.rule("17.7", ("no Hitler Mandated Attacks any more: %s"):format(
      vars.get("bunker_gone") and "The Bunker has been eliminated" or "the Soviet has occupied Zossen"))
    return
  end
  local die = dice.d6("Hitler Mandated Attacks (17.7)")
  local n = (die + 1) // 2
  vars.set("hma", { required = n, made = 0 })
  log.rule("17.7", ("Hitler Mandated Attacks: die %d halved, rounded up: %d supplied attack%s with a division (overruns count) required this turn; the Mandated Attacks marker goes in box %d of the Turn Record Track (3.5.B)"):format(
    die, n, n == 1 and "" or "s", n))
end

-- 3.5.B: the mandated attacks still to make this turn (the marker's box).
function M.hma_left()
  local h = vars.get("hma")
  if not h then return nil end
  return math.max(0, h.required - (h.made or 0))
end

-- 17.1.C: is the evacuation of the USIR triggered (a supplied Soviet unit in Oppeln, or in-supply
-- Soviet units across the Oder in the listed hexes)? Returns the reason or nil.
function M.usir_trigger()
  local s = C.at(T.oppeln, C.SOVIET, C.supplied)
  if #s > 0 then return ("the supplied %s occupies Oppeln (%s)"):format(s[1].id, T.oppeln) end
  for _, h in ipairs(T.usir_oder) do
    local x = C.at(h, C.SOVIET, C.supplied)
    if #x > 0 then return ("the supplied %s is across the Oder in %s"):format(x[1].id, h) end
  end
  return nil
end

-- 17.1.C: the supplied German units in the USIR that must leave it (garrisons cannot move).
local function in_usir()
  local out = {}
  for _, u in ipairs(C.on_map(C.GERMAN)) do
    if C.USIR[u.hex] and C.supplied(u) and not C.is_garrison(u) then out[#out + 1] = u end
  end
  return out
end

-- 17.1.C: at the start of every German movement segment (segments.begin calls it).
function M.german_segment_start()
  local why = M.usir_trigger()
  if not why then
    vars.set("usir_evacuate", nil)
    return
  end
  if not vars.get("usir_closed") then vars.set("usir_closed", turn()) end
  local list = in_usir()
  local ids = {}
  for _, u in ipairs(list) do ids[#ids + 1] = u.id end
  vars.set("usir_evacuate", #ids > 0 and ids or nil)
  log.rule("17.1.C", ("USIR mandatory evacuation: %s; German units may not enter or attack a USIR hex this turn%s"):format(
    why, #ids > 0 and ("; the supplied German units in the USIR must leave it if they can: " .. table.concat(ids, ",")) or ""))
end

-- 17.1.C: the units of the evacuation list still in the USIR that could move out of it now (not
-- moved this segment, a hex outside the USIR within their movement; for an entrained unit, by
-- rail, 10.8.2).
---@return Unit[]
function M.usir_stuck()
  local ids = vars.get("usir_evacuate")
  if not ids then return {} end
  local out = {}
  for _, id in ipairs(ids) do
    local u = units.get(id)
    if u and u.hex and C.USIR[u.hex] and not u:marker("moved") and C.supplied(u) then
      if u:marker("entrained") then
        -- 10.8.2: an entrained unit leaves by rail only, in the segments that allow it
        if transport.rail_now() then
          for _, h in ipairs(transport.rail_destinations(u)) do
            if not C.USIR[h] then out[#out + 1] = u break end
          end
        end
      else
        -- (a unit that may not move now at all cannot leave: in the reaction segment, one short
        -- of fuel, 9.2.C, or in a Soviet ZOC, 10.8.5; the move verb's own checks, 10.4)
        local mp = movement.left(u)
        if mp and mp > 0 and movement.may_move(u, C.GERMAN, allowance.segment()) then
          local reach = map.reach(movement.profile(u, u.hex, mp))
          for h in pairs(reach) do
            if not C.USIR[h] and h ~= u.hex then out[#out + 1] = u break end
          end
        end
      end
    end
  end
  return out
end

-- 17.1.C: refuses the end of a German movement segment while a unit that must leave the USIR
-- still can (segments.finish and segments.reaction_end call it for the German, before the stacking check).
function M.usir_check()
  local stuck = M.usir_stuck()
  umpire.check(#stuck == 0, "17.1.C", "the USIR must be evacuated: %s can still move out of it", C.ids(stuck))
end

-- 17.1.C: whether German units may not enter or attack USIR hexes this turn.
function M.usir_closed() return vars.get("usir_closed") ~= nil end

-- The start of a turn: the USIR closure of the last turn is lifted (17.1.C); the Thunderclap
-- marker of turn 4 comes off (17.5). Called from the German Placement Segment's start
-- (reinforce.german_start), which is the first step of every turn; calling it again is harmless.
function M.turn_start()
  local t = turn()
  local closed = vars.get("usir_closed")
  if closed and closed < t then
    vars.set("usir_closed", nil)
    vars.set("usir_evacuate", nil)
    log.rule("17.1.C", "the USIR restriction of last turn is lifted: German units may enter and attack USIR hexes again")
  end
  if t ~= T.thunderclap_turn and map.marker(T.dresden, "thunderclap") then
    map.set_marker(T.dresden, "thunderclap", nil)
    log.rule("17.5", "the Operation Thunderclap marker leaves Dresden")
  end
end

-- 17.5: at the start of turn 4 (the German Placement Segment's start): two Entrained markers leave
-- the game (if more than four are in use, the German chooses which units lose theirs), every
-- German unit in Dresden is eliminated (an infantry division or KG to the KG pool unless out of
-- supply, 16.1.A, DATA.md R43), and the Thunderclap marker goes on Dresden for the turn (supply.lua
-- blocks German supply and rail through it on turn 4).
function M.thunderclap()
  if vars.get("thunderclap_done") then return end
  vars.set("thunderclap_done", true)
  local total = transport.markers_total()
  local lost = {}
  while #transport.entrained() > total do
    local options = {}
    for _, u in ipairs(transport.entrained()) do options[#options + 1] = u.id end
    local pick = umpire.ask { prompt = ("Operation Thunderclap: %d units are entrained and %s %s left: which unit loses its marker?"):format(#options, C.count(total, "Entrained marker"), total == 1 and "is" or "are"),
      side = C.GERMAN, rule = "17.5", kind = "unit", options = options, default = options[#options] }
    units.get(pick):set_marker("entrained", nil)
    lost[#lost + 1] = pick
  end
  log.rule("17.5", ("Operation Thunderclap: %d Entrained markers leave the game for good (%d left)%s"):format(
    T.rail.thunderclap_removed, total, #lost > 0 and ("; detrained: " .. table.concat(lost, ",")) or ""))
  local dead = {}
  for _, u in ipairs(C.at(T.dresden, C.GERMAN)) do
    u:set_marker("fuel_shortage", nil)
    u:set_marker("used", nil)
    dead[#dead + 1] = kg.eliminate_unit(u)
  end
  log.rule("17.5", ("Dresden (%s) is bombed: %s; no German rail movement or supply through Dresden this turn"):format(
    T.dresden, #dead > 0 and table.concat(dead, "; ") or "no German unit there"))
  map.set_marker(T.dresden, "thunderclap", 1)
end

umpire.status(function()
  local lines = {}
  local left = M.hma_left()
  if left then
    local h = vars.get("hma")
    lines[#lines + 1] = ("Hitler Mandated Attacks [17.7]: %d of %d made, %d to make"):format(h.made or 0, h.required, left)
  end
  if vars.get("usir_closed") then lines[#lines + 1] = "USIR closed to German entry and attacks this turn [17.1.C]" end
  return lines
end)

return M
