-- Fortress Stalingrad: the sequence of play (4.2, 13.1) and the hook that keeps hex control, air
-- support, the second amphibious assault and the victory points current after every command
-- (3.3, 8.4, 8.12, 11.18, 15.2). Each rule area is a file of its own (rulesets/ANATOMY.md):
-- control (3.3), zoc (5), stacking (6), supply (7), air (8), reinforce (9, 12.1), movement
-- (10.1-10.37), assault (10.38-10.49), combat (11.1-11.24), amphibious (11.18), retreats (11.11,
-- 11.26-11.35), fmco (14), victory (15); views (what `show`, `status` and `map` print), actions
-- (the list of legal actions) and evaluate (how the game stands, for bots).
local C = require "common"
local T = require "tables"
local control = require "control"
local supply = require "supply"
local movement = require "movement"
local stacking = require "stacking"
local victory = require "victory"
local combat = require "combat"
local amphibious = require "amphibious"
local air = require "air"
local reinforce = require "reinforce"
local fmco = require "fmco"
require "assault"
require "views"
local actions = require "actions"
local evaluate = require "evaluate"

-- 3.3, 15.2, 8.4, 8.12, 11.18: derived state, current after every change.
umpire.after_command(function()
  local ctl = control.update()   -- every hex's controller, read once for the hooks below
  air.update(ctl)
  amphibious.novorossisk()
  victory.update(ctl)
end)

local function turn() return umpire.clock().turn end
local function side() return umpire.clock().side end

-- 13.1: the first turn begins with the Soviet Prepared Assault Phase.
local function first_turn_soviet() return turn() == 1 and side() == C.SOVIET end

umpire.sequence {
  turns = T.turns,
  start = function()
    control.init()
    log.rule("3.2", "the armies stand as on 19 November 1942 (set-up approximated: DATA.md)")
  end,
  turn_start = function(t)
    log.say(("%s (turn %d of %d)"):format(T.turn_names[t], t, T.turns))
    if t == 1 then
      log.rule("13.1", "the first turn begins with the Soviet Prepared Assault Phase (13.2: no German air; 13.3: every unit in full supply; 13.4: German/Axis movement halved)")
    end
  end,
  steps = {
    { id = "initial_supply", name = "Initial Supply Phase", rule = "4.2",
      skip_if = function() return turn() == 1 end, enter = supply.initial },
    { id = "air", name = "Air Power Phase", rule = "8.2",
      skip_if = function() return turn() == 1 end, enter = air.begin_phase, leave = air.end_phase },
    { id = "player", name = "Player Turn", sides = { C.SOVIET, C.GERMAN }, steps = {
      { id = "reinforcement", name = "Reinforcement and Replacement Phase", rule = "9.1", skip_if = first_turn_soviet,
        enter = function() reinforce.begin_phase(side()) end,
        leave = function() reinforce.end_phase(side()) end },
      { id = "movement", name = "Movement Phase", rule = "10.1", skip_if = first_turn_soviet,
        enter = function()
          movement.begin_phase(side())
          if side() == C.GERMAN then fmco.begin_german_turn() end
        end,
        leave = function()
          stacking.enforce(side(), "the end of the Movement Phase, 6.6")
          movement.end_phase(side())
        end },
      { id = "assault", name = "Prepared Assault Phase", rule = "11.1",
        enter = combat.clear_phase_markers,
        leave = function()
          stacking.enforce(side(), "the end of the Prepared Assault Phase, 6.6")
          combat.clear_phase_markers()
          if side() == C.GERMAN then fmco.end_german_turn() end
        end },
    } },
    { id = "terminal_supply", name = "Terminal Supply Phase", rule = "4.2", auto = true, enter = supply.terminal },
  },
  finish = victory.finish,
}

-- What may be done now (actions.lua).
umpire.actions(function(side, opts) return actions.list(side, opts) end)
-- How the game stands, for bots and playouts (evaluate.lua).
umpire.evaluate(function(side, figures) return evaluate.score(side), figures and evaluate.figures() or nil end)
