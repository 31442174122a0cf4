-- Red Storm over the Reich 4.2: the start and the end of the movement segments (assault,
-- breakthrough, reaction, exploitation, redeployment) that main.lua's sequence of play calls.
-- At the start: the markers of the side's last segment forgotten (10.4.A), the German fuel check
-- (9.2.D) and the USIR's evacuation (17.1.C), the command roll (10.2.A). At the end: the USIR
-- (17.1.C), the stacking limits (5.1), the bridgeheads (10.7.1.A), the allowance markers (10.2.D,
-- 4.2.III.h) and the Soviet Immobile markers (4.2.III.e).
local C = require "common"
local allowance = require "allowance"
local movement = require "movement"
local stacking = require "stacking"
local logistics = require "logistics"
local special = require "special"

local M = {}

-- A movement segment of `side` begins: its command roll (10.2.A) for the variable allowances, the
-- markers of the last one forgotten (10.4.A), the German fuel check (9.2.D).
---@param side string
---@param kind string "assault", "breakthrough", "reaction", "exploitation" or "redeployment"
function M.begin(side, kind)
  movement.begin_segment(side)
  if side == C.GERMAN then
    logistics.german_segment_start()
    special.german_segment_start()   -- 17.1.C
  end
  if kind ~= "breakthrough" and kind ~= "reaction" then allowance.roll(side, kind) end
  if kind == "assault" and side == C.SOVIET then vars.set("declared", nil); vars.set("combat", nil); vars.set("cavalry_moved", nil) end
end

-- A movement segment of `side` ends (but the German reaction: M.reaction_end).
---@param side string
---@param kind string as in M.begin
function M.finish(side, kind)
  if side == C.GERMAN then special.usir_check() end   -- 17.1.C
  stacking.enforce(side, ("the end of the %s movement segment (5.1)"):format(kind))
  movement.end_segment(side)
  -- 10.7.1.A.1-2: bridgeheads at the end of the Soviet segments and the German exploitation
  if side == C.SOVIET or kind == "exploitation" then
    movement.check_bridgeheads(("the end of the %s %s movement segment"):format(side, kind))
  end
  -- 4.2.III.h: the German's unused assault MPs are lost (the Soviet's stay for combat and breakthrough, 10.6)
  if kind ~= "assault" or side == C.GERMAN then allowance.clear(side) end
  if side == C.SOVIET and kind == "breakthrough" then
    -- 4.2.III.e: the Soviet Immobile markers come off
    for _, u in ipairs(units.all { side = C.SOVIET }) do u:set_marker("immobile", nil) end
  end
end

-- 10.8.5: the German Reaction Movement Segment ends: the USIR (17.1.C), the stacking limits (5.1),
-- and the reaction allowance is spent (13.2.B).
function M.reaction_end()
  special.usir_check()
  stacking.enforce(C.GERMAN, "the end of the reaction movement (5.1)")
  movement.end_segment(C.GERMAN)
  tracks.set("ger_reaction", 0)
end

return M
