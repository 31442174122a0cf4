-- Red Storm over the Reich: the sequence of play (4.1, 4.2) and the hook that keeps hex control
-- current after every command (3.5.A). Each rule area is a file of its own, registering its own
-- verbs: control (3.5.A), zoc (6), supply (7), reinforce (8), logistics (9), allowance (10.1-10.3,
-- 10.6, 13.2), movement (10.4-10.8), transport (10.8.1, 10.8.2), barrage (11, 12), combat (13.1,
-- 13.6), resolution (13.3-13.5, 13.7: a combat's dice and losses, shared with the overruns),
-- overrun (14), attrition (15), kg (16), special (17), victory (3), scenarios (3.2-3.4 set-ups),
-- stacking (5), segments (4.2: the start and end of the movement segments); common (the sides and
-- shared predicates), tables and validate (the rulebook's tables and their checks), views, actions
-- (what may be done now: umpire.actions), evaluate (how a position stands: umpire.evaluate),
-- testing (helpers for scripts and smoke games).
local C = require "common"
local T = require "tables"
local control = require "control"
local supply = require "supply"
local allowance = require "allowance"
local movement = require "movement"
local logistics = require "logistics"
local barrage = require "barrage"
require "views"
local scenarios = require "scenarios"
local transport = require "transport"
local reinforce = require "reinforce"
local special = require "special"
local segments = require "segments"
local combat = require "combat"
require "overrun"
require "testing"
local evaluate = require "evaluate"
local victory = require "victory"
local attrition = require "attrition"
local actions = require "actions"

umpire.after_command(function()
  control.update()
end)

local function turn() return umpire.clock().turn end
local function combat_off() return vars.get("combat") == false end

-- 4.2: the start and the end of a movement segment of `side` of the kind (segments.lua).
---@param side string
---@param kind string
---@return fun()
local function segment_start(side, kind) return function() segments.begin(side, kind) end end
---@param side string
---@param kind string
---@return fun()
local function segment_end(side, kind) return function() segments.finish(side, kind) end end

-- A step of the sequence played by `side` (extra: more fields of the node, docs/lua-api.md §3.1).
---@param id string
---@param name string
---@param side string
---@param rule string
---@param extra? table
---@return table
local function side_step(id, name, side, rule, extra)
  local node = { id = id, name = name, side = side, rule = rule }
  for k, v in pairs(extra or {}) do node[k] = v end
  return node
end

-- 7.0: a side's Supply Segment (no decision: the umpire checks supply).
---@param id string
---@param side string
---@return table
local function supply_step(id, side)
  return { id = id, name = side .. " Supply Segment", rule = "7.0", auto = true,
    enter = function() supply.check(side, "7.0") end }
end

-- A movement segment of `side` of the kind (segment_start and segment_end around it).
---@param id string
---@param name string
---@param side string
---@param rule string
---@param kind string
---@return table
local function movement_step(id, name, side, rule, kind)
  return side_step(id, name, side, rule, { enter = segment_start(side, kind), leave = segment_end(side, kind) })
end

-- 10.8.2: a German Detrain Segment.
---@param id string
---@return table
local function detrain_step(id)
  return side_step(id, "German Detrain Segment", C.GERMAN, "10.8.2", {
    leave = transport.detrain_segment_end })
end

umpire.sequence {
  turns = C.last_turn,
  start = function()
    control.init()
    scenarios.start()
  end,
  turn_start = function(t)
    log.say(("%s (turn %d of %d)"):format(T.turn_names[t] or ("turn " .. t), t, C.last_turn()))
  end,
  finish = victory.finish,
  steps = {
    -- 3.3.A, 3.4.A: the German set-up decisions of Sleigh Ride and Guderian, before turn 1
    side_step("setup", "Set-up", C.GERMAN, "3.3.A", {
      skip_if = function() return not scenarios.has_setup() end,
      leave = scenarios.setup_end }),
    { id = "reinforcement", name = "Reinforcement and Replacement Phase", rule = "4.2.I", steps = {
      side_step("ger_place", "German Placement Segment", C.GERMAN, "8.1", {
        enter = reinforce.german_start, leave = reinforce.german_end }),
      side_step("sov_place", "Soviet Placement Segment", C.SOVIET, "8.1.1.A", {
        enter = reinforce.soviet_start, leave = reinforce.soviet_end }),
    } },
    { id = "weather_phase", name = "Weather and Logistics Phase", rule = "4.2.II", steps = {
      { id = "weather", name = "Weather Segment", rule = "9.1", auto = true, enter = logistics.weather_segment },
      side_step("fuel_supply", "Fuel Marker Segment", C.GERMAN, "9.2.A", {
        skip_if = function() return not logistics.fuel_phase() end }),
      side_step("fuel_shortage", "Fuel Marker Segment", C.SOVIET, "9.2.A", {
        skip_if = function() return not logistics.fuel_phase() end }),
      { id = "sls", name = "Soviet Logistical Strain Segment", rule = "9.3", auto = true, enter = logistics.sls_segment },
    } },
    { id = "assault_phase", name = "Assault Phase", rule = "4.2.III", steps = {
      supply_step("sov_supply", C.SOVIET),
      side_step("sov_assault", "Soviet Assault Movement Segment", C.SOVIET, "10.6", {
        enter = function() segments.begin(C.SOVIET, "assault"); allowance.ask_declaration() end,
        leave = segment_end(C.SOVIET, "assault") }),
      side_step("sov_barrage", "Soviet Combat Segment › Soviet Barrages", C.SOVIET, "11.0", {
        skip_if = combat_off, enter = barrage.begin_segment, leave = barrage.fire_declared }),
      side_step("sov_barrage_ger", "Soviet Combat Segment › German Barrages", C.GERMAN, "11.0", {
        skip_if = function() return combat_off() or not barrage.any_ready(C.GERMAN) end }),
      side_step("sov_combat", "Soviet Combat Segment", C.SOVIET, "13.0", {
        skip_if = combat_off,
        enter = function() allowance.duration(); combat.begin_segment(C.SOVIET) end,
        leave = function()
          combat.end_segment(C.SOVIET)
          movement.check_bridgeheads("the end of the Soviet Combat Segment")
        end }),
      side_step("ger_reaction", "German Reaction Movement Segment", C.GERMAN, "10.8.5", {
        skip_if = combat_off, enter = segment_start(C.GERMAN, "reaction"),
        leave = segments.reaction_end }),
      side_step("sov_breakthrough", "Soviet Breakthrough Movement Segment", C.SOVIET, "10.6.C", {
        skip_if = combat_off, enter = segment_start(C.SOVIET, "breakthrough"),
        leave = segment_end(C.SOVIET, "breakthrough") }),
      side_step("ger_strategic", "German Strategic Segment", C.GERMAN, "4.2.III.f", {
        enter = special.strategic_start }),
      supply_step("ger_supply", C.GERMAN),
      movement_step("ger_assault", "German Assault Movement Segment", C.GERMAN, "10.1", "assault"),
      side_step("ger_barrage", "German Combat Segment › German Barrages", C.GERMAN, "11.0", {
        enter = barrage.begin_segment }),
      side_step("ger_barrage_sov", "German Combat Segment › Soviet Barrages", C.SOVIET, "11.0", {
        skip_if = function() return not barrage.any_ready(C.SOVIET) end, leave = barrage.fire_declared }),
      side_step("ger_combat", "German Combat Segment", C.GERMAN, "13.0", {
        enter = function() combat.begin_segment(C.GERMAN) end,
        leave = function()
          combat.end_segment(C.GERMAN)
          movement.check_bridgeheads("the end of the German Combat Segment")
        end }),
      detrain_step("ger_detrain"),
    } },
    { id = "exploitation_phase", name = "Exploitation Phase", rule = "4.2.IV", steps = {
      supply_step("sov_supply_x", C.SOVIET),
      movement_step("sov_exploit", "Soviet Exploitation Movement Segment", C.SOVIET, "4.2.IV.b", "exploitation"),
      supply_step("ger_supply_x", C.GERMAN),
      movement_step("ger_exploit", "German Exploitation Movement Segment", C.GERMAN, "4.2.IV.d", "exploitation"),
      detrain_step("ger_detrain_x"),
      { id = "joint_removal", name = "Joint Disruption Removal and Artillery Replenishment Segment", rule = "12.2",
        auto = true, enter = barrage.joint_removal },
    } },
    { id = "redeployment_phase", name = "Redeployment Phase", rule = "4.2.V", steps = {
      supply_step("sov_supply_r", C.SOVIET),
      movement_step("sov_redeploy", "Soviet Redeployment Movement Segment", C.SOVIET, "4.2.V.b", "redeployment"),
      supply_step("ger_supply_r", C.GERMAN),
      movement_step("ger_redeploy", "German Redeployment Movement Segment", C.GERMAN, "4.2.V.d", "redeployment"),
      detrain_step("ger_detrain_r"),
    } },
    { id = "attrition_phase", name = "Attrition Phase", rule = "15.0", steps = {
      { id = "joint_supply", name = "Joint Supply Segment", rule = "4.2.VI.a", auto = true,
        enter = function()
          supply.check(C.SOVIET, "15.0")
          supply.check(C.GERMAN, "15.0")
          logistics.clear_shortage()
          logistics.clear_supply()
          logistics.check_sls()
        end },
      { id = "attrition", name = "Attrition Segment", rule = "15.0", auto = true,
        enter = attrition.segment },
    } },
    { id = "end_turn", name = "End Turn Phase", rule = "4.2.VII", auto = true,
      enter = function() victory.end_turn_phase(turn()) end },
  },
}

-- What may be done now (actions.lua, docs/lua-api.md §2.6).
umpire.actions(function(side, opts) return actions.list(side, opts) end)
-- How the game stands, for bots and playouts (evaluate.lua).
umpire.evaluate(function(side, figures) return evaluate.score(side), figures and evaluate.figures() or nil end)
-- Where a side's commands matter most now, for the search bot (evaluate.lua).
umpire.focus(evaluate.focus)
