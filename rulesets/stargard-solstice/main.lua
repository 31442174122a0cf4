-- Stargard Solstice (Operation Sonnenwende, February–March 1945): the sequence of play (2.0).
-- Rule numbers refer to the Stargard Solstice rulebook. Each rule area is a file of its own,
-- registering its own verbs: zoc (4), movement (5, 6, 14.2.1 exit), combat (8-10), supply (11),
-- command (3, 12.1, 12.6), hq (12.2), reinforce (7, 12.4, 19.1.3, 19.1.5), air (13), victory (14,
-- 16), setup (15), events (19, 8.5 bombardment); views (what `show`, `units`, `status`, `table`
-- and the map overlays say), actions (what may be done now), evaluate (how the game stands).
local command = require "command"
local supply = require "supply"
local air = require "air"
local events = require "events"
local reinforce = require "reinforce"
local victory = require "victory"
local setup = require "setup"
require "movement"
require "combat"
require "views"

umpire.fog_of_war(true)                                                   -- 1.1.4

-- what may be done now: `actions`, `moves` (actions.lua)
local actions = require "actions"
umpire.actions(function(side, opts) return actions.list(side, opts) end)
-- how the game stands, for bots and playouts (evaluate.lua)
local evaluate = require "evaluate"
umpire.evaluate(function(side, figures) return evaluate.score(side), figures and evaluate.figures() or nil end)

-- ------------------------------------------------------------------ sequence of play (2.0)
umpire.sequence {
  turns = 10,
  turn_start = function(turn)
    tracks.set("turn", turn)
    victory.delayed_withdrawal(turn)                                      -- 16.4
  end,
  turn_end = function(turn)
    reinforce.reich_deadline(turn)
  end,
  finish = function() return victory.score() end,
  steps = {
    -- 15.0: set-up, before the first turn's phases
    { id = "setup", name = "Set-up", rule = "15.0", enter = setup.set_up, skip_if = function() return vars.get("set_up") end,
      leave = function() vars.set("set_up", true) end },
    { id = "air", name = "Air Unit Phase", rule = "2.1", auto = true, enter = air.phase },
    { id = "events", name = "Random Event Phase", rule = "2.2", steps = {
      { id = "event_roll", name = "Die Roll", auto = true, enter = events.phase },
      -- 19.1.5: Corps Tettau and then the 2nd Guards Cavalry Corps move on arrival (no strategic
      -- movement), like reinforcements
      { id = "arrivals_group", name = "Arrivals (19.1.5)",
        skip_if = function() return not vars.get("arrivals_side") end,
        repeat_while = function() return vars.get("arrivals_side") ~= nil end,
        steps = {
          { id = "arrivals", name = "Movement", side = function() return vars.get("arrivals_side") end,
            leave = reinforce.end_of_arrivals },
        } },
      { id = "bombardment", name = "Bombardment",
        side = function() local b = vars.get("bombardment") return b and b.side end,
        skip_if = function()
        local b = vars.get("bombardment") return not b or b.left <= 0 end,
        leave = function() vars.set("bombardment", nil) end },
    } },
    { id = "command_phase", rule = "2.3", repeat_while = command.more,
      name = function()
        local a = vars.get("active")
        return a and ("Command Phase: " .. a.hq .. " activated") or "Command Phase"
      end,
      side = function() local a = vars.get("active") return a and a.side end,
      steps = {
      { id = "command", name = "Command", auto = true, enter = command.command_segment },
      { id = "movement", name = "Movement", rule = "2.3.2", skip_if = function() return vars.get("active") == nil end },
      { id = "combat", name = "Combat", rule = "2.3.3", skip_if = function() return vars.get("active") == nil end,
        leave = function() vars.set("advance", nil) end },
    }, leave = command.clear_active },
    { id = "supply", name = "Supply Phase", rule = "2.4", auto = true, enter = function()
      supply.phase()
      victory.check_sudden_death()
    end },
    { id = "reinforcements", name = "Reinforcement Phase", rule = "2.5", steps = {
      { id = "reinforcement", name = "Reinforcement", enter = reinforce.phase, leave = reinforce.end_of_reinforcements },
      { id = "replacements", name = "Soviet Replacements", rule = "7.3", side = "Soviet",
        skip_if = function() return ((sides.get("Soviet", "replacement_points") or {})[umpire.clock().turn] or 0) == 0 end,
        enter = reinforce.begin_soviet_replacements, leave = reinforce.end_soviet_replacements },
      { id = "volksturm", name = "Volksturm Deployment", rule = "2.5.2", side = "German",
        skip_if = function() return #units.in_box("volksturm") == 0 end },
    } },
    { id = "turn_end", name = "Turn End Phase", rule = "2.6", auto = true, enter = function()
      victory.vp_segment()                                                -- 2.6.1
      for _, u in ipairs(units.all { on_map = true }) do                  -- 2.6.2
        if u:marker("pinned") then u:set_marker("pinned", nil) end
      end
      command.turn_reset()
      vars.set("german_surprise", nil)
    end },
  },
}
