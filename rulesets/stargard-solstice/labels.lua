-- Stargard Solstice: how `show` prints every marker and attribute the rules and the scenario
-- use, in the player's units and with the rule behind it (umpire.describe{marker=, attr=}).
-- Each function returns the text, false to hide a value that is only the rules' bookkeeping
-- (the line is then said elsewhere), or nil to print it as stored.
local describe = require "describe"   -- rulesets/lib
local M = {}

local function mp(sixtieths) return map.fmt_cost(sixtieths / 60) end

local function yes(text) return function(v) if v == true then return text end return false end end

-- unit markers (u:set_marker): name -> function(value, unit) -> text | false
local unit_markers = {
  active = function() return "activated [3.3.1]" end,
  moved = function() return "has moved in this activation [5.1]" end,
  mp_spent = function(v)
    -- a rail or strategic move leaves nothing to spend (14.2.1)
    if v >= 60 * 1000 then return "moved by rail or strategically: no MP left [5.4, 5.5]" end
    return ("%s MP spent [5.1.2]"):format(mp(v))
  end,
  attacked = function() return "has attacked in this combat segment [8.3.1]" end,
  anywhere = function() return "may move anywhere by regular or rail movement (3rd Army chit) [3.1.5]" end,
  withdraw_move = function() return "withdrawing: may make a regular or rail move now [19.1.3]" end,
  no_attack = function() return "withdrawing: may not attack [19.1.3]" end,
  no_strategic = function() return "arrived by a random event: no strategic movement [19.1.5]" end,
  oos = function() return "out of supply: attack and defence halved [11.3.1]" end,
  isolated = function() return "isolated: attack, defence and movement halved [11.3.2]" end,
  pinned = function() return "pinned: may not move or attack; +1 column against it [8.1.2]" end,
  reinforcement = function() return "a reinforcement this phase: may enter and move [7.0]" end,
}

local function entry_text(v)
  if v == "source" then return "enters at a friendly supply source [12.2.2]" end
  return ("enters at entry area %s [15.3]"):format(tostring(v))
end

-- unit attributes (scenario `attrs` and u:set_attr): name -> function(value, unit) -> text | false
local unit_attrs = {
  division = function(v) return "division " .. tostring(v) end,
  formation = function(v) return ("commanded by %s [3.3.1]"):format(tostring(v)) end,
  chit = function(v) return ("command chit %s [1.4]"):format(tostring(v)) end,
  mech = function(v) return v and "mechanized [10.3]" or "not mechanized [10.4]" end,
  independent = yes("independent: any HQ in range may activate it [3.3.2]"),
  within = function(v, u)
    return ("set up within %d hex%s of its printed hex [%s]"):format(v, v == 1 and "" or "es", u.side == "German" and "15.1" or "15.2")
  end,
  arrives = function(v) return ("arrives on turn %d [15.3]"):format(v) end,
  entry = entry_text,
  hex = function(v) return ("enters at %s [15.3]"):format(tostring(v)) end,
  event = function(v) return ("arrives by random event [%s]"):format(tostring(v)) end,
  activated_by = function(v) return ("moves only when the %s chit is drawn [12.5]"):format(tostring(v)) end,
  invented = yes("an estimated counter: the rulebook does not list it (DATA.md)"),
  kolberg = yes("traces supply to Kolberg [11.2.4]"),
  nation = function(v) return v == "Polish" and "1st Polish Army: own supply source [11.2.2]" or ("nation " .. tostring(v)) end,
  festung = yes("Festung: never moves, always in supply, ignores retreats [12.3]"),
  volksturm = yes("Volksturm: goes to the Volksturm box when eliminated [12.4]"),
  withdrawing = yes("withdrawing to Altdamm (Defend the Reich) [19.1.3]"),
  range = function(v) return ("command range %d (reduced counter) [19.1.3]"):format(v) end,
  reduced_range = function(v) return ("command range %d after Defend the Reich [19.1.3]"):format(v) end,
  rebuild_hq = function(v) return ("rebuilt only by %s [7.3.2]"):format(tostring(v)) end,
  replaced_turn = function(v) return ("regained a step on turn %d: at most one a turn [7.3.1]"):format(v) end,
  option = function(v) return ("only with optional rule %s [16.0]"):format(tostring(v):gsub("^op", ""):gsub("_", ".")) end,
  replaces = function(v) return ("replaces %s [16.3]"):format(tostring(v)) end,
  swap_turn = function(v) return ("takes its place on turn %d [16.3]"):format(v) end,
  home = function(v) return ("air box %s [1.2.6]"):format(tostring(v)) end,
}

-- hex markers (map.set_marker): name -> function(value, hex) -> text | false
local hex_markers = {
  soviet_vp = function(v) return ("held by the Soviet player for %d VP [14.1]"):format(v) end,
  relieved = function() return "relieved: its VP marker shows the lower value [14.1.2]" end,
}

-- hex values (scenario [map.values.*]): name -> function(value, hex) -> text | false
local hex_values = {
  vp = function(v) return ("VP hex: %d VP [14.3.1]"):format(v) end,
  vp_later = function(v, hex)
    local turn = map.hex(hex).values.vp_turn
    if turn then return ("then %d VP after turn %d [1.5.5]"):format(v, math.floor(turn)) end
    return ("then %d VP once relieved [14.1.2]"):format(v)
  end,
  vp_turn = false,   -- said by vp_later
}

M.marker = describe.markers(unit_markers, hex_markers)

M.attr = describe.by_kind(unit_attrs, hex_values)

return M
