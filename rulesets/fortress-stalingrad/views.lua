-- Fortress Stalingrad: what helps a player find things — the words `show` uses for markers, the
-- lines `status` adds, the states `units` filters by, the charts `table` prints, what `next` warns
-- is left undone, the overlays of `map`, and the Tab candidates of the verbs. Everything here
-- only looks (no fog of war: 10.50, every stack is open to both players).
local C = require "common"
local T = require "tables"
local zoc = require "zoc"
local control = require "control"
local movement = require "movement"
local stacking = require "stacking"
local victory = require "victory"
local reinforce = require "reinforce"
local supply = require "supply"
local describe = require "describe"   -- rulesets/lib
local sets = require "sets"           -- rulesets/lib
local overlays = require "overlays"   -- rulesets/lib

local M = {}

local function list(xs) return #xs > 0 and table.concat(xs, ", ") or "none" end

-- ------------------------------------------------------------------ markers in `show`
local UNIT_MARKERS = {
  as = function(v) return (">%d attenuated supply [7.10]"):format(v) end,
  oos = function(v) return ("OOS-%d [7.28]"):format(v) end,
  mp_used = function(v) return ("%s MP spent this phase [10.1]"):format(map.fmt_cost(v / 60)) end,
  halted = function() return "stopped in an enemy ZOC: mobile assaults only [5.4]" end,
  ma_retreated = function() return "retreated after a mobile assault: its move has ended [10.43]" end,
  volga_slide = function() return "slid across the Volga into 3427: moves no farther this turn [10.19]" end,
  infiltrated = function() return "infiltrated: no mobile assault this turn [5.10]" end,
  entered = function(v) return ("reinforcement of turn %d: supplied this turn [9.13]"):format(v) end,
  sea_supplied = function() return "supplied by sea this turn [7.22]" end,
  air_supplied = function() return "supplied by air this turn [7.36]" end,
  cut = function() return "no supply line at the Terminal phase: >3 next turn [7.17]" end,
  attacked = function() return "has attacked this phase [11.5]" end,
  defended = function() return "attacked this phase [11.5]" end,
  retreated = function() return "retreated this phase [11.34]" end,
  katyusha = function() return "under a Katyusha: attack doubled [11.20]" end,
  waiting = function() return "waits on the entry hex of this turn's reinforcements [8.15]" end,
  released = function(v) return ("arrives on turn %d (the Tigers' roll) [11.24]"):format(v) end,
  origin = false, moved = false, exit = false,
}
local HEX_MARKERS = {
  ctl = function(v) return ("controlled by the %s [3.3]"):format(C.SIDE_OF[v] or "?") end,
  wrecked = function() return "entrenchments wrecked [10.26]" end,
}

umpire.describe {
  -- `moves`: why a unit has no move listed (10.1...)
  cannot_move = function(u)
    local rule, why = movement.why_not_move(u)
    return rule and ("%s [%s]"):format(why, rule) or nil
  end,
  marker = describe.markers(UNIT_MARKERS, HEX_MARKERS),
  attr = function(kind, name, value)
    if kind == "hex" then
      if name == "vp" then return ("victory points: %d [15.4]"):format(math.tointeger(value) or value) end
      if name == "supply_count" then return ("German supply source, counted as hex %d of a line [7.27]"):format(math.tointeger(value) or value) end
      return nil
    end
    if name == "stacks" then return false end
    -- a value the rulebook states is never marked approximated: the full-strength factors of
    -- Popov (2.2) and of the 16-20-6 corps (7.37) are the rulebook's, their reduced steps estimated
    if name == "stated" then return ("full strength as the rulebook states it [%s]; the reduced steps estimated (DATA.md)"):format(value) end
    if name == "entry" then
      local words = { north = "enters by the north edge only [9.4]", adhoc = "ad hoc: appears in a German town or city [9.9]",
        elista = "enters by the east edge near Elista [12.1]", roll = "arrives on a die roll [11.24]", frontal = "the turn-7 0-0-1 [9.5]" }
      return words[value]
    end
    return nil
  end,
  unit = function(u)
    local lines = {}
    if u.hex and C.is_combat(u) then
      local mf, why = movement.mf(u)
      lines[#lines + 1] = ("movement factor this turn %d%s; %s MP left [10.1]"):format(mf, #why > 0 and (" (" .. table.concat(why, "; ") .. ")") or "",
        map.fmt_cost(math.max(0, movement.left(u))))
      local level = C.supply_level(u)
      if level > 0 then
        lines[#lines + 1] = ("%s: movement -%d, combat factors -%d%% [%s]"):format(C.supply_label(u, level), level, level * 10, u.side == C.SOVIET and "7.12" or "7.30")
      end
      if zoc.projects(u) then lines[#lines + 1] = "exerts a zone of control [5.2]" else lines[#lines + 1] = "exerts no zone of control [5.2, 7.32]" end
      if not C.counts_for_stacking(u) then lines[#lines + 1] = "does not count for stacking [6.3]" end
    end
    return lines
  end,
  hex = function(hex)
    local lines = {}
    for _, side in ipairs { C.SOVIET, C.GERMAN } do
      if zoc.zoc(side)[hex] then lines[#lines + 1] = ("in the %s zone of control [5.1]"):format(side) end
      if control.intact_entrenchment(hex, side) then lines[#lines + 1] = ("intact %s entrenchment [10.26]"):format(side) end
    end
    if map.in_area("south_of_weather_line", hex) then lines[#lines + 1] = "south of the Weather Line: defender's result -1 [10.32]" end
    return lines
  end,
}

-- ------------------------------------------------------------------ unit states
function M.can_move(u)
  return u.hex ~= nil and u.side == umpire.clock().side and umpire.clock().step == "movement" and C.is_combat(u)
    and not C.is_garrison(u) and not u:marker("halted") and movement.left(u) > 0
end

function M.can_attack(u)
  if not (u.hex and u.side == umpire.clock().side and umpire.clock().step == "assault" and C.is_combat(u)) then return false end
  if C.is_garrison(u) or u:marker("attacked") or (u:value("attack") or 0) <= 0 then return false end
  for _, n in ipairs(map.neighbours(u.hex)) do
    for _, e in ipairs(C.combat_at(n, C.other(u.side))) do
      if not e:marker("defended") then return true end
    end
  end
  return false
end

function M.out_of_supply(u) return u.hex ~= nil and C.is_combat(u) and C.supply_level(u) > 0 end

umpire.unit_filter { name = "can-move", help = "may still move this Movement Phase (10.1, 5.4)", test = M.can_move }
umpire.unit_filter { name = "can-attack", help = "may still attack this Prepared Assault Phase: next to an enemy unit not yet attacked (11.1, 11.5)", test = M.can_attack }
umpire.unit_filter { name = "unsupplied", help = "in attenuated supply or out of supply this turn (7.10, 7.28)", test = M.out_of_supply }
umpire.unit_filter { name = "zoc", help = "exerts a zone of control (5.2, 7.32)", test = zoc.projects }

local function ids(pred, side)
  local out = {}
  for _, u in ipairs(units.all { on_map = true, side = side }) do
    if pred(u) then out[#out + 1] = u.id end
  end
  table.sort(out)
  return out
end

-- ------------------------------------------------------------------ status
umpire.status(function()
  local lines = {}
  local turn = umpire.clock().turn
  lines[#lines + 1] = ("turn %d of %d: %s [1.0]"):format(turn, T.turns, T.turn_names[turn] or "?")
  lines[#lines + 1] = ("Soviet victory points [15.7]: %d (towns and cities %d, losses %d%s); 111 or more wins, 100-110 draws [15.9]"):format(
    tracks.get("vp"), victory.control_points(), tracks.get("vp_kills") or 0, (tracks.get("vp_crimea") or 0) > 0 and (", Crimea " .. tracks.get("vp_crimea")) or "")
  local r = vars.get("replacements")
  if r then lines[#lines + 1] = ("%s replacement steps left [9.16]: %d mechanized, %d straight-leg"):format(r.side, r.mech, r.leg) end
  for _, side in ipairs { C.SOVIET, C.GERMAN } do
    local due = {}
    for _, u in ipairs(reinforce.due(side)) do due[#due + 1] = u.id end
    if #due > 0 then lines[#lines + 1] = ("%s reinforcements due [9.1]: %s"):format(side, list(due)) end
  end
  for _, side in ipairs { C.GERMAN, C.SOVIET } do
    local where = {}
    for _, a in ipairs(units.all { side = side, kind = "air" }) do
      if a.hex then where[#where + 1] = a.id .. " " .. a.hex elseif a.box == "air_available" then where[#where + 1] = a.id .. " to place" end
    end
    if #where > 0 then lines[#lines + 1] = ("%s air [8.2]: %s"):format(side, list(where)) end
  end
  local m = units.get(T.units.manstein)
  if m and m.box == "manstein" then
    lines[#lines + 1] = ("Manstein [11.16]: %s"):format((vars.get("manstein_used") or 0) == turn and "used this turn" or "available for one battle this turn")
  end
  if (vars.get("fmco_turn") or 0) > 0 then
    lines[#lines + 1] = ("FMCO [14]: declared on turn %d; German attacks this player turn: %d of %d"):format(vars.get("fmco_turn"), vars.get("fmco_attacks") or 0, T.fmco.attacks)
  end
  if vars.get("enhanced_replacements") then lines[#lines + 1] = "Soviet replacements doubled (a German unit crossed the Don or the Volga) [9.25]" end
  if (vars.get("millerovo_lost") or 0) > 0 then lines[#lines + 1] = ("no German mechanized replacements for %d more phase(s) [9.22]"):format(vars.get("millerovo_lost")) end
  local as, oos = ids(function(u) return u.side == C.SOVIET and M.out_of_supply(u) end), ids(function(u) return u.side == C.GERMAN and M.out_of_supply(u) end)
  if #as > 0 then lines[#lines + 1] = ("Soviet units in attenuated supply [7.10]: %s"):format(list(as)) end
  if #oos > 0 then lines[#lines + 1] = ("German/Axis units out of supply [7.28]: %s"):format(list(oos)) end
  return lines
end)

-- ------------------------------------------------------------------ what is left undone
function M.unfinished()
  local step, side = umpire.clock().step, umpire.clock().side
  local out = {}
  if step == "air" then
    local left = {}
    for _, a in ipairs(units.in_box("air_available")) do left[#left + 1] = a.id end
    if #left > 0 then out[#out + 1] = ("air units still to commit [8.1]: %s (air <unit> <hex>)"):format(list(left)) end
  elseif step == "reinforcement" then
    local due = {}
    for _, u in ipairs(reinforce.due(side)) do due[#due + 1] = u.id end
    if #due > 0 then out[#out + 1] = ("reinforcements not entered (they may wait, 9.14): %s"):format(list(due)) end
    local r = vars.get("replacements")
    if r and r.mech + r.leg > 0 then out[#out + 1] = ("replacement steps not taken are lost [9.16]: %d mechanized, %d straight-leg"):format(r.mech, r.leg) end
  elseif step == "movement" then
    for _, p in ipairs(stacking.problems(side, "the end of this Movement Phase")) do out[#out + 1] = "over the stacking limit: " .. p end
  elseif step == "assault" then
    -- 8.1, 13.1: on turn 1 the Soviet may place his air units until his first battle; after it
    -- the `air` verb refuses them, so nothing is left to do with them
    if umpire.clock().turn == 1 and side == C.SOVIET and (vars.get("battles") or 0) == 0 then
      local air = {}
      for _, a in ipairs(units.in_box("air_available")) do if a.side == C.SOVIET then air[#air + 1] = a.id end end
      if #air > 0 then out[#out + 1] = ("air units not placed yet, which may be placed until the first battle [8.1, 13.1]: %s (air <unit> <hex>)"):format(list(air)) end
    end
    local left = ids(M.can_attack, side)
    if #left > 0 then out[#out + 1] = ("units next to the enemy that have not attacked [11.1]: %s"):format(list(left)) end
    if side == C.GERMAN and (vars.get("fmco_turn") or 0) > 0 and (vars.get("fmco_attacks") or 0) < T.fmco.attacks then
      out[#out + 1] = ("the FMCO needs %d attacks this German player turn; %d made: fewer forfeits the game [14.5]"):format(T.fmco.attacks, vars.get("fmco_attacks") or 0)
    end
  end
  return #out > 0 and out or nil
end
umpire.unfinished(M.unfinished)

-- ------------------------------------------------------------------ map overlays
umpire.overlay {
  usage = "control", help = "who controls each hex (S Soviet, G German)", rule = "3.3",
  run = function()
    local out = {}
    for h, v in pairs(map.marked("ctl")) do out[h] = v == 1 and "S" or "G" end
    return out
  end,
}
umpire.overlay {
  usage = "zoc <side>", help = "the hexes the side's units project a zone of control into", rule = "5.1",
  run = function(side) return sets.labelled(zoc.zoc(side), "Z") end,
}
umpire.overlay {
  usage = "supply <side>", help = "Soviet: >AS level:length of each Soviet unit's line; German: line lengths up to 12 from the sources (turn 1: everyone is in full supply whatever the lines, 13.3)", rule = "7.3",
  run = function(side)
    local out = {}
    if side == C.SOVIET then
      local lengths = supply.soviet_trace()
      for h, n in pairs(lengths) do out[h] = (">%d:%d"):format(supply.as_level(n), math.tointeger(n) or n) end
    else
      for h, n in pairs(supply.german_trace(true)) do out[h] = math.tointeger(n) or n end
    end
    return out
  end,
}
overlays.reach {
  help = "every hex the unit can still move to this phase, with its cost in MP", rule = "10.1",
  profile = function(u) return movement.profile(u, u.hex, math.max(0, movement.left(u))) end,
}

-- ------------------------------------------------------------------ charts
local crt_rows = {}
for die, row in ipairs(T.crt) do
  local r = { tostring(die) }
  for _, cell in ipairs(row) do r[#r + 1] = cell end
  crt_rows[#crt_rows + 1] = r
end
local crt_columns = { "die" }
for _, c in ipairs(T.crt_columns) do crt_columns[#crt_columns + 1] = c end
umpire.table { name = "crt", title = "Combat Results Table (approximated; the rulebook states 3-1 die 1 = 0/3 and die 3 = 1/2)", rule = "11.4",
  columns = crt_columns, rows = crt_rows,
  notes = { "attacker/defender: each point is one step by one unit or one hex of retreat by all its units [11.11]; Dx: the defenders are destroyed [11.12]",
    "odds rounded for the defender; beyond 1-3 or 8-1 the end column [11.3, 11.10]" } }

local tec = {}
for _, t in ipairs { "clear", "broken", "woods", "marsh", "steppe", "mountain" } do
  local att = T.attack_terrain[t]
  local a = {}
  for _, cls in ipairs { "leg", "mountain", "mech" } do
    if att and att[cls] and att[cls] > 0 then a[#a + 1] = ("%s -%d%%"):format(cls, att[cls]) end
  end
  tec[#tec + 1] = { t, ("leg %s, mountain inf. %s, mech %s"):format(T.move_cost.leg[t], T.move_cost.mountain[t], T.move_cost.mech[t]),
    T.result_terrain[t] and ("%+d"):format(T.result_terrain[t]) or "-", #a > 0 and table.concat(a, ", ") or "-" }
end
tec[#tec + 1] = { "major river", "+1", "-", "-20% across" }
tec[#tec + 1] = { "minor river", "+0", "-", "-10% across" }
tec[#tec + 1] = { "Kerch Straits", "half the printed MF", "-", "-50% (prepared assaults only)" }
tec[#tec + 1] = { "town", "-", "-1", "-" }
tec[#tec + 1] = { "city", "-", "attacker +1", "mech -25%; defence doubled (not 0-3-0s)" }
tec[#tec + 1] = { "intact entrenchment", "-", "-1 (own)", "-" }
tec[#tec + 1] = { "south of the Weather Line", "-", "-1", "-" }
umpire.table { name = "tec", title = "Terrain Effects", rule = "10.11-10.33",
  columns = { "terrain", "movement (MP)", "defender's result", "attack factor" }, rows = tec,
  notes = { "penalties on the attack are added up and taken once, the loss rounded up, never below 1 [10.33, 7.12]",
    "mobile assaults pay three times the terrain cost (rivers not tripled), none into mountains or across the Straits [10.38, 10.44]" } }

local supply_rows = {}
for level = 1, T.oos_max_city do
  supply_rows[#supply_rows + 1] = { level <= T.as_max and (">" .. level) or "-", "OOS-" .. level, ("-%d"):format(level), ("-%d%%"):format(level * 10) }
end
umpire.table { name = "supply", title = "Attenuated supply and out-of-supply effects", rule = "7.12, 7.30",
  columns = { "Soviet AS", "Axis OOS", "movement", "combat" }, rows = supply_rows,
  notes = { "Soviet: 4-6 hexes >1, 7-9 >2, over 9 or no line >3 [7.10]; German: no line of 12 hexes or fewer: OOS +1 each turn [7.28]",
    "Axis units beyond OOS-3 only in or next to a German-controlled city, to OOS-6 [7.31]" } }

-- computed when the chart is asked for (the reinforcements' turns are in the scenario)
local function turn_rows()
  local turns = {}
  for t, name in ipairs(T.turn_names) do
    local s, g = {}, {}
    for _, u in ipairs(units.in_box("reinforcements")) do
      if u:attr("arrives") == t then
        if u.side == C.SOVIET then s[#s + 1] = u.id else g[#g + 1] = u.id end
      end
    end
    local sm, sl = reinforce.rate(C.SOVIET, t)
    local gm, gl = reinforce.rate(C.GERMAN, t)
    turns[#turns + 1] = { tostring(t), name, list(s), list(g), t >= 2 and ("%d+%d"):format(sm, sl) or "-", t >= 2 and ("%d+%d"):format(gm, gl) or "-" }
  end
  return turns
end
umpire.table { name = "turns", title = "Turn Record (reinforcements approximated: DATA.md)", rule = "9.1",
  columns = { "turn", "date", "Soviet", "German", "Soviet repl. (mech+leg)", "German repl." }, rows = turn_rows,
  notes = { "the 28th Army enters on any Soviet turn after the first [12.1]; the 503rd/65th on a roll from turn 3 [11.24]; replacements doubled after a trans-Don crossing [9.25]" } }

local function vp_rows()
  local rows = {}
  for h, v in pairs(map.valued("vp")) do
    if v > 1 then rows[#rows + 1] = { (map.hex(h).name or h), h, tostring(math.tointeger(v) or v) } end
  end
  table.sort(rows, function(a, b) return a[1] < b[1] end)
  rows[#rows + 1] = { "every other town", "-", "1" }
  rows[#rows + 1] = { "a satellite unit destroyed", "-", tostring(T.vp_kills.satellite_unit) }
  rows[#rows + 1] = { "a German straight-leg / mechanized step", "-", ("%d / %d"):format(T.vp_kills.german_leg_step, T.vp_kills.german_mech_step) }
  rows[#rows + 1] = { "a whole German straight-leg / mechanized corps", "-", ("+%d / +%d"):format(T.vp_kills.german_leg_corps, T.vp_kills.german_mech_corps) }
  rows[#rows + 1] = { "a Soviet combat unit in the Crimea at the end", "-", tostring(T.vp_crimea) }
  return rows
end
umpire.table { name = "victory", title = "Soviet victory points", rule = "15.4",
  columns = { "for", "hex", "VP" }, rows = vp_rows,
  notes = { "Stalingrad's 20 need both its hexes [10.24]; points for towns count from the start [15.2, DATA.md]",
    "111 or more: Soviet victory; 100-110: draw; fewer: German victory [15.9]" } }

-- ------------------------------------------------------------------ Tab completion
umpire.complete("move", function(index, words)
  if index == 1 then return ids(M.can_move, umpire.clock().side) end
  local first = index == 2 and words[1] and units.find(words[1]:match("^[^,]*"))
  if first and first.hex and M.can_move(first) then
    local out = {}
    for h in pairs(map.reach(movement.profile(first, first.hex, movement.left(first)))) do
      if h ~= first.hex then out[#out + 1] = h end
    end
    table.sort(out)
    return out
  end
end)

umpire.complete("attack", function(index, words)
  if index == 1 then
    local seen, out = {}, {}
    for _, id in ipairs(ids(M.can_attack, umpire.clock().side)) do
      local u = units.get(id)
      for _, n in ipairs(map.neighbours(u.hex)) do
        if #C.combat_at(n, C.other(u.side)) > 0 and not seen[n] then seen[n] = true out[#out + 1] = n end
      end
    end
    table.sort(out)
    return out
  end
end)

return M
