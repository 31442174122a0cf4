-- Stargard Solstice (Operation Sonnenwende, February–March 1945).
-- Rule numbers refer to the Stargard Solstice rulebook; every area has its own file.
local T = require "tables"
local C = require "common"
local zoc = require "zoc"
local command = require "command"
local movement = require "movement"
local combat = require "combat"
local supply = require "supply"
local air = require "air"
local events = require "events"
local reinforce = require "reinforce"
local victory = require "victory"
require "views"                                                           -- status, units, table, Tab

umpire.fog_of_war(true)                                                   -- 1.1.4

-- what may be done now: `actions`, `moves` (actions.lua)
local actions = require "actions"
umpire.actions(function(side, opts) return actions.list(side, opts) end)
-- how the game stands, for bots and playouts (evaluate.lua)
local evaluate = require "evaluate"
umpire.evaluate(function(side) return evaluate.score(side), evaluate.figures() end)

-- ------------------------------------------------------------------ verbs
umpire.command {
  usage = "move <units> <hex> [<hex>...] [strategic] [rail]",
  help = "move a unit or a stack to a hex by the cheapest route, or along the hexes given; `strategic` for strategic movement, `rail` for reinforcements by rail",
  example = "move 4Pz/4SS 13.12      move 44Pz/233 16.16 17.16 strategic      move 234P/163 30.20 rail",
  rule = "5.1, 5.4, 5.5", phases = movement.STEPS,
  run = function(list, to, via, strategic, rail) movement.move(list, to, via, strategic, rail) end,
}

umpire.command {
  usage = "attack <hex> with <units> [air] [<word>...]",
  help = "attack an enemy stack with activated adjacent units; air support: `air 1JG full Rudel normal`",
  example = "attack 16.09 with 4Pz/4SS,8/4SS air Rudel full",
  rule = "8.2", phases = { "combat" }, odds = true,
  run = function(hex, attackers, _, words) return combat.attack(hex, attackers, words) end,
}

umpire.command {
  usage = "advance <units> [<hex>]",
  help = "advance after combat into the vacated hex; mechanized units may name a second hex",
  example = "advance 4Pz/4SS 13.12",
  rule = "10.0", phases = { "combat" },
  run = function(list, second) combat.advance(list, second) end,
}

umpire.command {
  usage = "bombard <hex>",
  help = "a bombardment attack on an enemy stack adjacent to a friendly combat unit",
  example = "bombard 16.09",
  rule = "8.5", phases = { "bombardment" }, odds = true,
  run = function(hex) return events.bombard(hex) end,
}

umpire.command {
  usage = "volksturm <unit> <hex>",
  help = "deploy a Volksturm unit from its box",
  rule = "12.4", phases = { "volksturm" },
  run = function(u, hex) reinforce.volksturm(u, hex) end,
}

umpire.command {
  usage = "replace <unit> [<word>]",
  help = "spend a replacement point to restore a step; name the kind of point (7.3, 19.1.11 or 19.1.13) when a side holds several: by default the first of the unit's kind, an event's point first",
  example = "replace 65GT/9GT      replace 65GT/9GT 7.3",
  rule = "7.3, 19.1.11, 19.1.13", phases = { "replacements", "reinforcement" },
  run = function(u, which)
    umpire.check(which == nil or reinforce.rp_kinds[which], "7.3", "%s is not a kind of replacement point (7.3, 19.1.11, 19.1.13)", tostring(which))
    reinforce.replace(u, which)
  end,
}

umpire.command {
  usage = "withdraw <word>",
  help = "Soviet: during the command phase, set a command chit aside this turn (12.6 on turns 8-9; 16.1 Stavka on turns 2-3), -1 VP",
  example = "withdraw 61",
  rule = "12.6, 16.1",
  run = function(chit)
    local clock = umpire.clock()
    local turn = clock.turn
    local stavka = umpire.option("op16_1") and (turn == 2 or turn == 3)
    umpire.check(turn == 8 or turn == 9 or stavka, "12.6", "a chit may be withdrawn only on turns 8 and 9 (2 and 3 with optional rule 16.1)")
    -- 12.6 / 16.1: during the command phase (its movement and combat segments, where the players act)
    umpire.check(clock.step == "movement" or clock.step == "combat", stavka and "16.1" or "12.6",
      "a chit may be withdrawn only during the command phase, not in the %s", clock.phase ~= "" and clock.phase or "set-up")
    umpire.check(command.side_of_chit(chit) == "Soviet", "12.6", "%s is not a Soviet chit", chit)
    umpire.check(not vars.get("withdrawn_" .. turn), "12.6", "one chit a turn")
    umpire.check(cups.remove("chits", chit), "12.6", "%s is not in the cup", chit)
    cups.add("set_aside", chit)
    vars.set("withdrawn_" .. turn, chit)
    victory.adjust(-1, stavka and "Stavka orders (16.1)" or "Zhukov's report (12.6)")
    log.rule(stavka and "16.1" or "12.6", "the Soviet player withdraws a chit this turn: -1 VP")
  end,
}

umpire.command {
  usage = "exit <unit>",
  help = "German: move a mechanized 3rd SS unit off the map via the Landsberg edge (14.2.1)",
  rule = "14.2.1", phases = { "movement" },
  run = function(u)
    local turn = umpire.clock().turn
    umpire.check(turn <= 3, "14.2.1", "units may exit only on turns 1-3")
    umpire.check(u.side == "German" and C.is_mech(u) and u:attr("formation") == "3SS-PZ-HQ", "14.2.1",
      "only mechanized units of the 3rd SS Panzer Corps may exit")
    umpire.check(not u:marker("oos") and not u:marker("isolated"), "14.2", "%s must be in supply and not isolated", u.id)
    umpire.check(command.is_active(u), "3.3.5", "%s is not activated: out of command units may not move", u.id)
    umpire.check(map.in_area("landsberg_edge", u.hex), "14.2.1", "%s is not on the Landsberg edge (15.01-35.01)", u.id)
    -- 14.2.1: the exit costs what the occupied hex costs, from what is left of the allowance
    -- (a unit may move to the edge and then leave)
    local cost = movement.exit_cost(u.hex)
    local left = movement.allowance(u) - (u:marker("mp_spent") or 0) / 60
    umpire.check(cost ~= nil and cost <= left + 1e-9, "14.2.1", "%s has %s MP left; leaving from %s costs %s",
      u.id, map.fmt_cost(math.max(left, 0)), u.hex, cost and map.fmt_cost(cost) or "?")
    umpire.check(vars.get("arnswalde_relieved"), "14.2.1", "the siege of Arnswalde must be lifted first (14.1.2)")
    u:put_in("exited")
    log.rule("14.2.1", u.id .. " leaves the map via the Landsberg supply line")
    if #units.in_box("exited") >= 3 then
      if umpire.option("op16_2") then
        if not vars.get("german_exit_vp") then
          vars.set("german_exit_vp", true)
          victory.adjust(-3, "German exit (16.2)")
          log.rule("16.2", "three units have left the map: 3 VP to the German player")
        end
      else
        umpire.game_over("German sudden death victory (14.2.1)")
      end
    end
  end,
}

-- ------------------------------------------------------------------ map overlays
umpire.overlay {
  usage = "zoc <side>", help = "hexes in the side's zone of control", rule = "4.2",
  run = function(side) local z = {} for h in pairs(zoc.ezoc(C.other(side))) do z[h] = "Z" end return z end,
}
umpire.overlay {
  usage = "reach <unit>", help = "every hex the unit could reach now by regular movement, with its cost", rule = "5.1",
  run = function(u)
    umpire.check(u.hex, "5.1", "%s is not on the map (it is in %s): it has no reach", u.id, tostring(u.box))
    return movement.reach(u)
  end,
}
umpire.overlay {
  usage = "supply <side>", help = "hexes a supply line of the side reaches", rule = "11.1",
  run = function(side)
    local src = map.area(side == "German" and "supply_german" or "supply_soviet")
    local out = {}
    for h in pairs(supply.trace(side, src)) do out[h] = "S" end
    return out
  end,
}
umpire.overlay {
  usage = "command <unit>", help = "the hexes within the HQ's command range", rule = "3.3.3",
  run = function(hq)
    umpire.check(hq.hex, "3.3.3", "%s is not on the map (it is in %s): it commands no hexes", hq.id, tostring(hq.box))
    local out = {}
    for _, h in ipairs(map.within(hq.hex, command.range(hq))) do out[h] = "C" end
    return out
  end,
}

-- `show`: every marker and attribute in the player's terms (labels.lua), then what follows from them
local labels = require "labels"
umpire.describe {
  -- `moves`: why a unit has no move listed (2.3.2, 3.3.5, 5.1...)
  cannot_move = function(u)
    local rule, why = movement.why_not_now(u)
    return rule and ("%s [%s]"):format(why, rule) or nil
  end,
  marker = labels.marker,
  attr = labels.attr,
  unit = function(u)
    local lines = {}
    if C.is_combat(u) then
      lines[#lines + 1] = zoc.has_zoc(u) and "exerts a ZOC [4.2]" or "no ZOC (attack 0) [4.2.1]"
      if u.hex then
        local left = movement.allowance(u) - (u:marker("mp_spent") or 0) / 60
        local rule, why = movement.why_not_now(u)
        if not command.is_active(u) then
          lines[#lines + 1] = "not activated: may not move or attack now [3.3.5]"
        elseif not rule then
          lines[#lines + 1] = ("may move: %s MP [5.1.1]"):format(map.fmt_cost(movement.allowance(u)))
        else
          lines[#lines + 1] = ("cannot move now: %s [%s]"):format(why, rule)
          if u:marker("moved") and left > 0 then
            lines[#lines + 1] = ("moved: %s of %s MP unspent, which may not be saved [5.3]"):format(map.fmt_cost(left), map.fmt_cost(movement.allowance(u)))
          end
        end
      end
    elseif C.is_hq(u) then
      lines[#lines + 1] = ("command range %d [3.3.3]"):format(command.range(u))
    end
    return lines
  end,
  hex = function(hex)
    local lines = {}
    for _, side in ipairs { "German", "Soviet" } do
      if zoc.ezoc(C.other(side))[hex] then lines[#lines + 1] = "in the ZOC of " .. side .. " units [4.2]" end
    end
    if map.hex(hex).values.vp then lines[#lines + 1] = ("worth %d VP now [14.3.1]"):format(victory.vp_value(hex)) end
    return lines
  end,
}

-- ------------------------------------------------------------------ sequence of play (2.0)
local function set_up()
  -- 15.1 / 15.2: units placed "w/i 1 of" a hex: the owner chooses each hex, within the stacking
  -- limits (15.0: all units begin within stacking limits)
  for _, side in ipairs { "German", "Soviet" } do
    local pending = {}
    for _, u in ipairs(units.all { side = side, on_map = true }) do
      if u:attr("within") then
        pending[#pending + 1] = { u = u, centre = u.hex }
        u:put_in("setup")
      end
    end
    for _, p in ipairs(pending) do
      local u, centre = p.u, p.centre
      local options = {}
      for _, h in ipairs(map.within(centre, u:attr("within"))) do
        local t = map.terrain(h)
        if t ~= "lake" and t ~= "restrictive" and not map.has(h, "transit") and not movement.stacking_problem(h, { u }) then
          local enemy = false
          for _, x in ipairs(units.at(h)) do if x.side ~= side then enemy = true end end
          if not enemy then options[#options + 1] = h end
        end
      end
      local default = options[1]
      for _, h in ipairs(options) do if h == centre then default = h end end
      local where = umpire.ask { prompt = side .. ": set up " .. u.id .. " within " .. u:attr("within") .. " of " .. centre,
        rule = side == "German" and "15.1" or "15.2", kind = "hex", options = options, default = default }
      u:move_to(where)
      log.rule(side == "German" and "15.1" or "15.2", u.id .. " set up in " .. where)
    end
  end
  tracks.set("turn", 1)
end

umpire.sequence {
  turns = 10,
  turn_start = function(turn)
    tracks.set("turn", turn)
    -- 16.4: ½ VP at the start of each turn from turn 5 while Defend the Reich has not fired (the
    -- event is rolled later in the turn, so the turn it fires still counts); 3 VP over turns 5-10
    if umpire.option("op16_4") and turn >= 5 and not vars.get("defend_reich") then
      victory.adjust(0.5, "Delayed withdrawal of the 39th Panzer Corps (16.4), turn " .. turn)
      log.rule("16.4", ("turn %d: the 39th Panzer Corps has not been withdrawn: 1/2 VP to the Soviet player"):format(turn))
    end
  end,
  turn_end = function(turn)
    reinforce.reich_deadline(turn)
  end,
  finish = function() return victory.score() end,
  steps = {
    -- 15.0: set-up, before the first turn's phases
    { id = "setup", name = "Set-up", rule = "15.0", enter = set_up, skip_if = function() return vars.get("set_up") end,
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
            leave = function() require("reinforce").end_of_arrivals() end },
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
        enter = function()
          local n = sides.get("Soviet", "replacement_points")[umpire.clock().turn]
          local rp = vars.get("rp") or {}
          rp.Soviet = { points = n }
          vars.set("rp", rp)
          log.rule("7.3", ("the Soviet player receives %s (replace <unit>)"):format(C.count(n, "replacement point")))
        end,
        leave = function() local rp = vars.get("rp") or {} rp.Soviet = nil vars.set("rp", rp) end },
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
