-- Red Storm over the Reich 3.2.C, 3.3.C, 3.4.C, 3.5: victory. The Soviet automatic victory by VP
-- hexes at the end of turns 1-4; the end of the game at the end of the turn The Bunker falls or of
-- the last turn; German VP from VP hexes and surviving refugees, less the turns of unmade Hitler
-- Mandated Attacks (track `hma_missed`).
local C = require "common"
local T = require "tables"
local supply = require "supply"

local M = {}

-- The scenario being played: "historical", "sleigh_ride" or "guderian" (the scenario's var).
function M.scenario() return vars.get("scenario") or "historical" end

local function bunker_on_map()
  local b = units.get("BUNKER")
  return b ~= nil and b.hex ~= nil
end

-- 3.5.A: who holds a VP hex: its control marker (taken by a supplied combat unit occupying or
-- passing through it, control.lua). Berlin (0425) is German while The Bunker is on the map; once
-- it is gone, the Soviet takes it by occupying 0425 (control.lua lets a Soviet unit take 0425
-- only then). Reading: like any VP hex, Berlin then stays Soviet when the unit moves on, until a
-- German unit retakes it.
function M.holder(h)
  if h == T.bunker_hex and bunker_on_map() then return C.GERMAN end
  return C.controller(h)
end

-- The VP hexes `side` holds (M.holder's, read as sets): a map.hexset, in the order of the ids.
local VP = map.hexset(C.VP_LIST)
function M.vp_hexes(side)
  local soviet = C.held(VP, C.SOVIET, bunker_on_map() and { { T.bunker_hex } } or nil)
  if side == C.SOVIET then return soviet end
  return map.hexset(VP, { without = soviet })
end

-- 3.5.C: refugees that survive: evacuated, or on the map and supplied from the west map edge
-- only (no port) at the end of the game.
---@param at_end boolean at the end of the game (else only the evacuated count)
---@return integer surviving
---@return integer evacuated
function M.refugees_surviving(at_end)
  local n = #units.in_box("evacuated")
  if not at_end then return n, n end
  local on = C.on_map(C.GERMAN, C.is_refugee)
  if #on == 0 then return n, n end
  local hexes = {}
  for _, r in ipairs(on) do hexes[#hexes + 1] = r.hex end
  local ok = supply.traceable(C.GERMAN, hexes, { ports = false })
  local alive = n
  for _, r in ipairs(on) do if ok[r.hex] then alive = alive + 1 end end
  return alive, n
end

-- 3.5: the Soviet VP: one for each VP hex it holds.
function M.soviet_vp() return #M.vp_hexes(C.SOVIET) end

-- 3.5: the German VP now (at_end: counting refugees on the map supplied from the west edge).
function M.german_vp(at_end)
  local hexes = #M.vp_hexes(C.GERMAN)
  local refugees = M.refugees_surviving(at_end)
  local missed = tracks.get("hma_missed")
  return hexes + refugees - missed, { hexes = hexes, refugees = refugees, missed = missed }
end

local function vp_text(at_end)
  local vp, p = M.german_vp(at_end)
  return ("German VP %d: %s + %s - %s of unmade mandated attacks"):format(vp, C.count(p.hexes, "VP hex", "VP hexes"),
    C.count(p.refugees, "refugee"), C.count(p.missed, "turn")), vp
end

-- 3.2.C.2: the winner once The Bunker is gone (or at the end of the last turn with it on the map).
local function judge(reason)
  if M.scenario() == "guderian" then
    local held = #M.vp_hexes(C.GERMAN)
    if bunker_on_map() and held >= T.guderian_vp_hexes then
      return ("German victory: The Bunker stands and the German holds %d VP hexes (3.4.C)"):format(held)
    end
    return ("Soviet victory: %s (3.4.C)"):format(bunker_on_map() and ("the German holds only " .. held .. " VP hexes") or "The Bunker is gone")
  end
  local text, vp = vp_text(true)
  if bunker_on_map() then return ("German victory: The Bunker is on the map at the end of turn %d; %s (3.2.C.2)"):format(umpire.clock().turn, text) end
  if vp >= T.german_vp_needed then
    return ("German victory: The Bunker is gone (%s) but the German has %d VP, at least %d (3.2.C.2); %s"):format(reason, vp, T.german_vp_needed, text)
  end
  return ("Soviet victory: The Bunker is gone (%s) and the German has fewer than %d VP (3.2.C.2); %s"):format(reason, T.german_vp_needed, text)
end

-- 4.2.VII: the End Turn Phase.
function M.end_turn_phase(turn)
  local sc = M.scenario()
  -- 3.5.B, 17.7: a turn of mandated attacks not all made
  local hma = vars.get("hma")
  if hma and hma.required and (hma.made or 0) < hma.required then
    tracks.add("hma_missed", 1)
    log.rule("3.5.B", ("only %d of %d Hitler Mandated Attacks were made this turn: -1 German VP (now -%d)"):format(hma.made or 0, hma.required, tracks.get("hma_missed")))
  end
  vars.set("hma", nil)
  -- 11.5: Rudel leaves at the end of turn 3 if he has not flown
  local rudel = units.get("RUDEL")
  if rudel and turn >= T.rudel_turn and rudel.box ~= "removed" then
    rudel:put_in("removed")
    log.rule("11.5", "Rudel has not flown on turn 3: removed from the game")
  end
  -- 3.2.C.1, 3.3.C: the Soviet automatic victory
  if sc ~= "guderian" and T.automatic_victory[turn] then
    local held = #M.vp_hexes(C.SOVIET)
    local bonus = sc == "sleigh_ride" and T.sleigh_ride_bonus or 0
    local need = T.automatic_victory[turn]
    log.rule("3.2.C.1", ("automatic victory check, turn %d: the Soviet holds %d VP hexes%s; %d needed"):format(
      turn, held, bonus > 0 and (" +" .. bonus .. " (3.3.C)") or "", need))
    if held + bonus >= need then
      umpire.game_over(("Soviet automatic victory: %d VP hexes at the end of turn %d (%d needed, 3.2.C.1)"):format(held + bonus, turn, need))
      return
    end
  end
  -- 3.2.C.2, 16.2: the game ends at the end of the turn The Bunker is eliminated
  if sc ~= "guderian" and vars.get("bunker_gone") then
    umpire.game_over(judge("eliminated on turn " .. vars.get("bunker_gone")))
  end
end

-- 3.2.C.2, 3.4.C: the end of the last turn.
function M.finish() return judge("at the end of the game") end

return M
