-- Red Storm over the Reich 8: reinforcements and replacements, in the German and Soviet Placement
-- Segments (4.2.I). German reinforcements by their codes W, K (a Sea Transport each, 8.1.2), M, S
-- and * (the Volksturm 8.1.4, generic garrisons 8.1.5, flak 8.1.3); the Soviet 5th Guards
-- Mechanized Corps on turn 6 (8.1.1.A). Replacements: the Soviet once a game (8.2.1.A); the German
-- every turn from turn 2 (8.2.1.B): the Volksturm and the generic garrisons if eliminated (16.2),
-- four infantry KGs drawn from the KG pool (16.1.A), 2 mechanized steps (+2 with the USIR linked
-- to Berlin, 17.1.B). A generic garrison may be disbanded at any time outside a Soviet ZOC (16.2).
local C = require "common"
local T = require "tables"
local zoc = require "zoc"
local supply = require "supply"
local stacking = require "stacking"
local transport = require "transport"
local kg = require "kg"
local logistics = require "logistics"
local special = require "special"

local M = {}

local function turn() return umpire.clock().turn end
local function step() return umpire.clock().step end
local function column(h) return tonumber(h:sub(1, 2)) end

local function list_has(list, id)
  for _, x in ipairs(list or {}) do if x == id then return true end end
  return false
end
local function list_without(list, id)
  local out = {}
  for _, x in ipairs(list or {}) do if x ~= id then out[#out + 1] = x end end
  return out
end

-- 8.1.1, 8.2.1: the units a placement may not be next to: supplied enemy infantry, mechanized
-- (reading: the guard cavalry counts, it moves and fights as mechanized) and artillery units.
local function blocking(e)
  return (C.is_infantry(e) or C.is_mech(e) or C.is_cavalry(e) or C.is_artillery(e)) and C.supplied(e)
end
-- (first: the first such enemy unit of each hex, where the caller has found them, `blockers`)
local function enemy_next(hex, side, first)
  for _, n in ipairs(map.neighbours(hex)) do
    local e
    if first then e = first[n] else e = C.at(n, C.other(side), blocking)[1] end
    if e then return e, n end
  end
  return nil
end
-- The first unit of each hex that blocks a placement of `side` next to it, from the map's stacks
-- `stacks` (units.stacks()).
local function blockers(side, stacks)
  local out = {}
  for h, stack in pairs(stacks) do out[h] = C.at(h, C.other(side), blocking, stack)[1] end
  return out
end

local function urban_city_town(h) return C.URBAN[h] or C.CITY[h] or C.TOWN[h] end

-- 8.1: the side's reinforcements due now (German "K" units delayed from earlier turns included).
function M.due(side)
  local out, now = {}, turn()
  for _, u in ipairs(units.in_box("reinforcements")) do
    local a = u:attr("arrives")
    if u.side == side and a and a <= now then out[#out + 1] = u end
  end
  return out
end

local function is_due(u, now)
  return u.box == "reinforcements" and (u:attr("arrives") or math.huge) <= now
end

-- 10.8.1, 8.1.2: the Sea Transport that carries a "K" unit: a ready one in the holding box, else
-- one waiting in a port with a delayed refugee (the K unit has priority over the evacuation).
---@return Unit? transport
---@return boolean? waiting whether it waits in a port with a delayed refugee
local function k_transport()
  local t = transport.ready_transport()
  if t then return t, false end
  for _, x in ipairs(C.on_map(C.GERMAN, C.is_transport)) do
    if #C.at(x.hex, C.GERMAN, C.is_refugee) > 0 then return x, true end
  end
  return nil
end
-- 8.1.2: with every Sea Transport sunk (none left in the game), no more K units arrive.
local function transports_left()
  for _, t in ipairs(units.all { side = C.GERMAN, kind = "transport" }) do
    if t.box ~= "eliminated" and t.box ~= "removed" then return true end
  end
  return false
end

-- What kind of placement `u` makes now: a code of 8.1.1.B (W, K, M, S), VS (8.1.4), FLAK (8.1.3),
-- GAR (8.1.5), KG (8.2.1.B), 5GM (8.1.1.A), SR (8.2.1.A); nil, why when it is none.
function M.kind(u)
  local clock = umpire.clock()   -- (read once: it builds the whole clock)
  if u.side == C.GERMAN then
    if clock.step ~= "ger_place" then return nil, "8.1", "German units are placed in the German Placement Segment" end
    if is_due(u, clock.turn) then
      local code = u:attr("code")
      if code == "*" then
        if u:attr("volkssturm") then return "VS" end
        if C.is_flak(u) then return "FLAK" end
        if u:attr("garrison") == "generic" then return "GAR" end
      end
      if code == "W" or code == "K" or code == "M" or code == "S" then return code end
      return nil, "8.1.1.B", ("%s has no placement code"):format(u.id)
    end
    if list_has(vars.get("ger_repl"), u.id) then
      if u:attr("volkssturm") then return "VS" end
      if u:attr("garrison") == "generic" then return "GAR" end
      return "KG"
    end
    if u.box == "reinforcements" then
      return nil, "8.1", ("%s is a reinforcement of turn %s"):format(u.id, tostring(u:attr("arrives")))
    end
    return nil, "8.2.1.B", ("%s is neither a reinforcement due now nor a replacement of this turn"):format(u.id)
  end
  if clock.step ~= "sov_place" then return nil, "8.1.1.A", "Soviet units are placed in the Soviet Placement Segment" end
  if is_due(u, clock.turn) and u:attr("entry") == "artillery" then return "5GM" end
  if list_has(vars.get("sov_repl"), u.id) then return "SR" end
  if u.box == "reinforcements" then
    return nil, "8.1.1.A", ("%s is a reinforcement of turn %s"):format(u.id, tostring(u:attr("arrives")))
  end
  return nil, "8.2.1.A", ("%s is neither the reinforcement due now nor a replacement to place (take them with `replacements`)"):format(u.id)
end

local RULE = { W = "8.1.1.B", K = "8.1.2", M = "8.1.1.B", S = "8.1.1.B", VS = "8.1.4", FLAK = "8.1.3",
  GAR = "8.1.5", KG = "8.2.1.B", ["5GM"] = "8.1.1.A", SR = "8.2.1.A" }

-- 7.1: does `side`'s supply reach `h` (known: as for M.why_not)?
local function supplied_hex(known, side, h)
  local set = known and known.supplied and known.supplied[side]
  if set then return set[h] == true end
  return supply.traceable(side, { h })[h] == true
end

-- (the units in `h` where the map's stacks `stacks` are known, for C.at; nil: C.at reads the map)
local NONE = {}
local function stack_of(stacks, h) return stacks and (stacks[h] or NONE) end

-- Why no unit of `u`'s side and placement kind `k` may be placed in `hex`, the stacking limits
-- aside: rule, text; nil when one may. (stacks, first: the map's stacks and `blockers` where
-- they are known)
local function hex_why_not(u, k, hex, known, stacks, first)
  local side = u.side
  local enemy = C.other(side)
  local r = RULE[k]
  if C.PROHIBITED[hex] then return r, hex .. " is not a land hex" end
  if #C.at(hex, enemy, nil, stack_of(stacks, hex)) > 0 then return r, ("%s holds %s units"):format(hex, enemy) end
  if k == "W" then
    if not C.EDGE_SET.German[hex] then return r, ("a W reinforcement enters on the west edge of the west map (column 01); %s is not there"):format(hex) end
  elseif k == "K" then
    if not C.PORT[hex] then return r, ("a K reinforcement lands in a port; %s is none"):format(hex) end
    if C.controller(hex) ~= C.GERMAN then return r, ("%s is not German-controlled"):format(hex) end
  elseif k == "M" then
    if hex ~= T.reinforce.memel then return r, ("an M reinforcement enters in %s (from Memel); not %s"):format(T.reinforce.memel, hex) end
  elseif k == "S" then
    if not C.contains(C.SOUTH_EDGE, hex) then return r, ("an S reinforcement enters on the south edge; %s is not there"):format(hex) end
    if not supplied_hex(known, C.GERMAN, hex) then return r, ("%s is not in supply (7.1)"):format(hex) end
  elseif k == "VS" then
    if not (C.URBAN[hex] or C.CITY[hex] or C.FORTRESS[hex]) then return r, ("the Volksturm goes into an urban, city or fortress hex; %s is none"):format(hex) end
    if C.controller(hex) ~= C.GERMAN then return r, ("%s is not German-controlled"):format(hex) end
    if not supplied_hex(known, C.GERMAN, hex) then return r, ("%s is not in supply (7.1)"):format(hex) end
  elseif k == "FLAK" then
    if C.URBAN[hex] then return r, ("flak units never go into urban hexes (17.2.C); %s is one"):format(hex) end
    if column(hex) > T.flak_column then return r, ("flak units are placed in or west of column %02d; %s is east of it"):format(T.flak_column, hex) end
    local host = C.at(hex, C.GERMAN, function(v) return (C.is_infantry(v) or C.is_mech(v)) and C.supplied(v) end, stack_of(stacks, hex))
    if #host == 0 then return r, ("a flak unit joins a supplied German infantry or mechanized unit; %s holds none"):format(hex) end
  elseif k == "GAR" then
    if not (C.CITY[hex] or C.TOWN[hex]) or C.URBAN[hex] or C.FORTRESS[hex] then
      return r, ("a generic garrison goes into a city or town hex (not urban or fortress); %s is none"):format(hex)
    end
    if C.controller(hex) ~= C.GERMAN then return r, ("%s is not German-controlled"):format(hex) end
    if #C.at(hex, C.GERMAN, C.is_garrison, stack_of(stacks, hex)) > 0 then return r, ("%s already holds a garrison"):format(hex) end
  elseif k == "KG" or k == "SR" then
    if not urban_city_town(hex) then return "8.2.1", ("replacements go into an urban, city or town hex; %s is none"):format(hex) end
    if C.controller(hex) ~= side then return "8.2.1", ("%s is not %s-controlled"):format(hex, side) end
    if not supplied_hex(known, side, hex) then return "8.2.1", ("%s is not in supply (7.1)"):format(hex) end
  elseif k == "5GM" then
    local art = false
    for _, h in ipairs(map.within(hex, 1)) do
      if #C.at(h, C.SOVIET, function(v) return C.is_artillery(v) and C.supplied(v) end, stack_of(stacks, h)) > 0 then art = true break end
    end
    if not art then return r, ("%s enters with or next to a supplied Soviet artillery unit; %s has none"):format(u.id, hex) end
  end
  local e, n = enemy_next(hex, side, first)
  if e then
    return (k == "KG" or k == "SR") and "8.2.1" or "8.1.1",
      ("%s is next to the supplied %s %s in %s"):format(hex, enemy, e.id, n)
  end
  return nil
end

-- (hex_why_not's answers kept in `known` by side, kind and hex: the same for every unit of a
-- kind, but 5GM's, whose text names the unit)
local function hex_answer(u, k, hex, known, stacks, first)
  if not known or k == "5GM" then return hex_why_not(u, k, hex, known, stacks, first) end
  known.hexes = known.hexes or { [C.SOVIET] = {}, [C.GERMAN] = {} }
  local kept = known.hexes[u.side][k] or {}
  known.hexes[u.side][k] = kept
  if kept[hex] == nil then
    local rule, text = hex_why_not(u, k, hex, known, stacks, first)
    kept[hex] = rule and { rule, text } or false
  end
  if kept[hex] then return kept[hex][1], kept[hex][2] end
  return nil
end

-- 5.1: stacking.problem for `u` placed in `hex`. (For a unit off the map it depends on the
-- unit's kind alone: kept in `known` by side, kind and hex.)
local function stacking_problem(u, hex, known, stacks)
  if not known or u.hex then return stacking.problem(hex, u.side, { u }, stack_of(stacks, hex)) end
  known.stacking = known.stacking or { [C.SOVIET] = {}, [C.GERMAN] = {} }
  local kept = known.stacking[u.side][u.kind] or {}
  known.stacking[u.side][u.kind] = kept
  if kept[hex] == nil then
    local rule, what = stacking.problem(hex, u.side, { u }, stack_of(stacks, hex))
    kept[hex] = rule and { rule, what } or false
  end
  if kept[hex] then return kept[hex][1], kept[hex][2] end
  return nil
end

-- Why `u` (of placement kind `k`) may not be placed in `hex`: rule, text; nil when it may.
-- `known` may hold what a caller checking many hexes has traced once: `supplied[side]`, the
-- set of the hexes checked that the side's supply reaches (7.1; actions.lua); the stacks of
-- the map, the enemy units next to which no unit is placed and the answers for each hex (and
-- kind of unit, for the stacking limits) are found once into it.
function M.why_not(u, k, hex, known)
  local stacks, first
  if known then
    known.stacks = known.stacks or units.stacks()
    known.blockers = known.blockers or {}
    known.blockers[u.side] = known.blockers[u.side] or blockers(u.side, known.stacks)
    stacks, first = known.stacks, known.blockers[u.side]
  end
  local rule, text = hex_answer(u, k, hex, known, stacks, first)
  if rule then return rule, text end
  local what
  rule, what = stacking_problem(u, hex, known, stacks)
  if rule then return rule, ("placing %s: %s (5.1: placements respect the stacking limits)"):format(u.id, what) end
  return nil
end

-- The hexes a placement of kind `k` by `side` could go into, a superset of where M.why_not
-- lets it (8.1.1.B: the west edge, the ports, Memel, the south edge; 8.1.4, 8.1.5, 8.2.1: the
-- urban, city, town and fortress hexes; 8.1.3: hexes holding German units; 8.1.1.A: next to
-- Soviet artillery), sorted. For the list of actions.
function M.candidates(k, side)
  local set = {}
  local function add_all(t) for h in pairs(t) do set[h] = true end end
  local function add_list(l) for _, h in ipairs(l) do set[h] = true end end
  if k == "W" then add_list(C.EDGE.German)
  elseif k == "K" then add_list(C.PORT_LIST)
  elseif k == "M" then set[T.reinforce.memel] = true
  elseif k == "S" then add_list(C.SOUTH_EDGE)
  elseif k == "VS" then add_all(C.URBAN); add_all(C.CITY); add_all(C.FORTRESS)
  elseif k == "GAR" then add_all(C.CITY); add_all(C.TOWN)
  elseif k == "KG" or k == "SR" then add_all(C.URBAN); add_all(C.CITY); add_all(C.TOWN)
  elseif k == "FLAK" then for _, v in ipairs(C.on_map(C.GERMAN)) do set[v.hex] = true end
  elseif k == "5GM" then
    for _, v in ipairs(C.on_map(C.SOVIET, C.is_artillery)) do add_list(map.within(v.hex, 1)) end
  end
  local out = {}
  for h in pairs(set) do out[#out + 1] = h end
  table.sort(out)
  return out
end

-- (the verb's checks as a question: may `u`, of kind `k` (M.kind), be placed in `hex` now?
-- With `known` as for M.why_not; actions.lua)
function M.may_place(u, k, hex, known)
  if M.why_not(u, k, hex, known) then return false end
  if k == "K" then return transports_left() and k_transport() ~= nil end   -- 8.1.2
  return true
end

-- The hexes `u` may be placed in now (for the K priority and the views).
function M.legal(u, k, candidates)
  local out = {}
  for _, h in ipairs(candidates) do
    if not M.why_not(u, k, h) then out[#out + 1] = h end
  end
  return out
end

local function enter_map(u, hex)
  for _, m in ipairs { "oos", "disrupted", "entrained", "immobile", "used", "moved", "mp_used", "fuel_shortage" } do
    u:set_marker(m, nil)
  end
  u:move_to(hex)
end

-- Places `u` in `hex` (the `place` verb and the K priority at the end of the segment).
function M.place(u, hex)
  local k, r, why = M.kind(u)
  if not k then umpire.refuse(r, why) end
  local rule, text = M.why_not(u, k, hex)
  if rule then umpire.refuse(rule, text) end
  local note = ""
  if k == "K" then
    umpire.check(transports_left(), "8.1.2", "every Sea Transport has been sunk: no more K units arrive")
    local t, waiting = k_transport()
    umpire.check(t, "8.1.2", "no Sea Transport is ready for %s: it is delayed to a later turn", u.id)
    if waiting then
      local from = t.hex
      t:put_in("german_box")
      t:set_marker("used", 1)
      note = (" on %s, taken from the delayed refugee in %s (K units have priority)"):format(t.id, from)
    else
      t:set_marker("used", 1)
      note = (" on %s (Used for the turn, 10.8.1.A)"):format(t.id)
    end
  end
  local replacement = not is_due(u, turn())
  enter_map(u, hex)
  if replacement and (k == "KG" or k == "VS" or k == "GAR") then
    vars.set("ger_repl", list_without(vars.get("ger_repl"), u.id))
    if k == "KG" then vars.set("ger_drawn", list_without(vars.get("ger_drawn"), u.id)) end
    if k ~= "KG" then u:set_step(1) end
    log.rule(RULE[k], ("replacement %s placed in %s (8.2.1.B)"):format(
      k == "KG" and (tostring(u:attr("kg")) .. " (" .. u.id .. ")") or u.id, hex))
  elseif k == "SR" then
    vars.set("sov_repl", list_without(vars.get("sov_repl"), u.id))
    log.rule("8.2.1.A", ("replacement %s placed in %s at reduced strength"):format(u.id, hex))
  else
    log.rule(RULE[k], ("reinforcement %s placed in %s%s; in supply (8.1)"):format(u.id, hex, note))
  end
end

umpire.command {
  usage = "place <unit> <hex>",
  help = "place a reinforcement due now (German codes W, K, M, S, *; the Soviet 5 Gd Mech on turn 6) or a replacement (German VS, generic garrisons, KGs drawn; Soviet mechanized units after `replacements`)",
  example = "place 21PZ 0125      place 4PZ 1711      place VS 0425",
  rule = "8.1", phases = { "ger_place", "sov_place" },
  run = function(u, hex) M.place(u, hex) end,
}

-- 8.2.1.B, 17.1.B: the mechanized replacement steps of a turn.
function M.mech_steps_of_turn()
  return T.reinforce.mech_steps + (supply.usir_linked() and T.reinforce.usir_steps or 0)
end

-- 8.2.1.B: spends a mechanized step: (a) a reduced, supplied German mechanized division to full
-- strength, or (b) a supplied mechanized KG back to its holding box, the division from the box in
-- its hex at reduced strength (16.1.B).
umpire.command {
  usage = "rebuild <unit>",
  help = "German: spend a mechanized replacement step on a reduced, supplied mechanized division (to full strength) or a supplied mechanized KG (back to its holding box, its division in its hex at reduced strength)",
  example = "rebuild 19PZ      rebuild MKG1",
  rule = "8.2.1.B", phases = { "ger_place" },
  run = function(u)
    umpire.check(turn() >= 2, "8.2.1.B", "the German takes replacements from turn 2")
    local left = vars.get("mech_steps") or 0
    umpire.check(left > 0, "8.2.1.B", "no mechanized replacement step is left this turn")
    umpire.check(u.side == C.GERMAN and u.hex ~= nil and C.is_mech(u), "8.2.1.B", "%s is not a German mechanized unit on the map", u.id)
    umpire.check(C.supplied(u), "7.5", "%s is out of supply: it may not receive replacements", u.id)
    if u:attr("mech_kg") then
      local box = u:attr("box")
      local div
      if box then
        for _, d in ipairs(units.in_box(box)) do if d.id ~= u.id and not d:attr("mech_kg") then div = d end end
      end
      if not div then
        for _, b in ipairs(kg.KG_BOXES) do
          local inside = units.in_box(b)
          local has_kg = false
          for _, x in ipairs(inside) do if x:attr("mech_kg") then has_kg = true end end
          if not has_kg then
            for _, x in ipairs(inside) do if not div then div, box = x, b end end
          end
        end
      end
      umpire.check(div, "16.1.B", "no mechanized division waits in a holding box for %s", u.id)
      local hex = u.hex
      local disrupted = C.disrupted(u)
      u:put_in(box)
      for _, m in ipairs { "disrupted", "oos", "entrained", "immobile", "fuel_shortage", "moved", "mp_used" } do u:set_marker(m, nil) end
      u:set_attr("box", nil)
      div:set_step(div.steps)
      div:move_to(hex)
      -- reading (DATA.md R44): the division takes over the KG's disruption (the same troops)
      if disrupted then div:set_marker("disrupted", 1) end
      vars.set("mech_steps", left - 1)
      log.rule("8.2.1.B", ("a mechanized step rebuilds %s: the KG %s goes back to %s and %s is placed in %s at reduced strength (16.1.B); %d step%s left"):format(
        div.id, u.id, box, div.id, hex, left - 1, left - 1 == 1 and "" or "s"))
      return
    end
    umpire.check(u.step > 1, "8.2.1.B", "%s is at full strength", u.id)
    u:set_step(u.step - 1)
    vars.set("mech_steps", left - 1)
    log.rule("8.2.1.B", ("a mechanized step brings %s back to %s; %d step%s left"):format(
      u.id, u.step == 1 and "full strength" or ("step " .. u.step), left - 1, left - 1 == 1 and "" or "s"))
  end,
}

-- 8.2.1.A: the Soviet replacements, once a game, never on a turn of the strain (9.3).
umpire.command {
  usage = "replacements",
  help = "Soviet, once a game (not on a Logistical Strain turn): every reduced, supplied Soviet mechanized and guards unit to full strength; the eliminated mechanized units come back reduced, to be placed with `place`",
  example = "replacements",
  rule = "8.2.1.A", phases = { "sov_place" },
  run = function()
    local taken = vars.get("soviet_replacements_taken")
    umpire.check(not taken, "8.2.1.A", "the Soviet took his replacements on turn %s (once a game)", tostring(taken))
    umpire.check(not logistics.sls_active(), "8.2.1.A", "no Soviet replacements on a turn marked by the Logistical Strain (9.3)")
    local full = {}
    for _, u in ipairs(C.on_map(C.SOVIET)) do
      if (C.is_mech(u) or u:attr("guards")) and u.step > 1 and C.supplied(u) then
        u:set_step(1)
        full[#full + 1] = u
      end
    end
    local back = {}
    for _, u in ipairs(units.in_box("eliminated")) do
      if u.side == C.SOVIET and C.is_mech(u) then
        u:set_step(u.steps)
        back[#back + 1] = u.id
      end
    end
    vars.set("sov_repl", back)
    vars.set("soviet_replacements_taken", turn())
    log.rule("8.2.1.A", ("Soviet replacements (once a game; the marker goes on turn %d): %s to full strength; %s"):format(
      turn(), #full > 0 and C.ids(full) or "no unit", #back > 0 and ("eliminated mechanized units to place at reduced strength: " .. table.concat(back, ",")) or "no eliminated mechanized unit"))
  end,
}

-- 16.2: the German disbands a generic garrison outside a Soviet ZOC (at any time); it returns as a
-- replacement (in the current Placement Segment, if this is one, else the next).
umpire.command {
  usage = "disband <unit>",
  help = "German: eliminate a generic garrison that is not in a Soviet ZOC (it comes back as a replacement)",
  example = "disband GAR1",
  rule = "16.2",
  run = function(u)
    umpire.check(u.side == C.GERMAN and u:attr("garrison") == "generic" and u.hex ~= nil, "16.2", "%s is not a generic garrison on the map", u.id)
    local hex = u.hex
    umpire.check(not zoc.zoc(C.SOVIET)[hex], "16.2", "%s in %s is in a Soviet ZOC", u.id, hex)
    u:put_in("eliminated")
    local now = step() == "ger_place" and vars.get("ger_repl") ~= nil
    if now then
      local l = vars.get("ger_repl")
      l[#l + 1] = u.id
      vars.set("ger_repl", l)
    end
    log.rule("16.2", ("%s disbanded in %s: it may be placed again as a replacement %s"):format(u.id, hex,
      now and "in this Placement Segment (8.1.5)" or "in the next Placement Segment"))
  end,
}

-- The German Placement Segment begins (4.2.I.a).
function M.german_start()
  special.turn_start()
  local t = turn()
  if t == T.thunderclap_turn then special.thunderclap() end
  local due = M.due(C.GERMAN)
  if #due > 0 then
    log.rule("8.1", ("German reinforcements due on turn %d: %s"):format(t, C.ids(due)))
  end
  -- (this turn's replacements start from nothing: german_end cleared the last turn's)
  if t < 2 then return end
  -- 8.2.1.B: this turn's replacements
  local repl = {}
  for _, u in ipairs(units.in_box("eliminated")) do
    if u.side == C.GERMAN and (u:attr("volkssturm") or u:attr("garrison") == "generic") then repl[#repl + 1] = u.id end
  end
  local drawn = {}
  for _ = 1, T.reinforce.kg_draws do
    if cups.count("kg_pool") == 0 then break end
    local id = cups.draw("kg_pool", "German replacement KG (8.2.1.B)")
    if id then
      local u = units.get(id)
      if u and u.box == "kg_pool" then
        drawn[#drawn + 1] = id
        repl[#repl + 1] = id
      end
    end
  end
  local steps = M.mech_steps_of_turn()
  vars.set("ger_repl", repl)
  vars.set("ger_drawn", drawn)
  vars.set("mech_steps", steps)
  local kgs = {}
  for _, id in ipairs(drawn) do kgs[#kgs + 1] = ("%s (%s)"):format(tostring(units.get(id):attr("kg")), id) end
  log.rule("8.2.1.B", ("German replacements, turn %d (use them or lose them): %s; KGs drawn from the pool: %s; %s%s"):format(
    t, (function()
      local o = {}
      for _, id in ipairs(repl) do if not list_has(drawn, id) then o[#o + 1] = id end end
      return #o > 0 and table.concat(o, ",") or "no Volksturm or generic garrison to return"
    end)(), #kgs > 0 and table.concat(kgs, ", ") or "none (the pool is empty)", C.count(steps, "mechanized step"),
    steps > T.reinforce.mech_steps and " (+2: the USIR is linked to Berlin, 17.1.B)" or ""))
end

-- The German Placement Segment ends: K units that can be carried must land (8.1.2's priority; the
-- German picks the port); those that cannot wait; every other due reinforcement not placed and
-- every unused replacement is forfeited (8.1, 8.2.1.B).
function M.german_end()
  for _, u in ipairs(M.due(C.GERMAN)) do
    if u:attr("code") == "K" then
      if not transports_left() then
        u:put_in("removed")
        log.rule("8.1.2", ("%s is forfeited: every Sea Transport has been sunk"):format(u.id))
      else
        local ports = k_transport() and M.legal(u, "K", C.PORT_LIST) or {}
        if #ports > 0 then
          local hex = umpire.ask { prompt = ("%s must land now (a Sea Transport is available; K units have priority): which port?"):format(u.id),
            side = C.GERMAN, rule = "8.1.2", kind = "hex", options = ports, default = ports[1] }
          M.place(u, hex)
        else
          log.rule("8.1.2", ("%s is delayed: %s"):format(u.id, k_transport() and "every German-controlled port is full or closed to it" or "no Sea Transport is ready"))
        end
      end
    end
  end
  local lost = {}
  for _, u in ipairs(M.due(C.GERMAN)) do
    if u:attr("code") ~= "K" then u:put_in("removed"); lost[#lost + 1] = u end
  end
  if #lost > 0 then log.rule("8.1", ("reinforcements not placed are forfeited: %s"):format(C.ids(lost))) end
  local repl = vars.get("ger_repl")
  if repl then
    local drawn = vars.get("ger_drawn") or {}
    local left = {}
    for _, id in ipairs(repl) do
      left[#left + 1] = id
      -- reading: a KG drawn and not placed goes back into the pool (its division stays eliminated)
      if list_has(drawn, id) then cups.add("kg_pool", id) end
    end
    local steps = vars.get("mech_steps") or 0
    if #left > 0 or steps > 0 then
      log.rule("8.2.1.B", ("unused German replacements are forfeited: %s%s%s"):format(
        #left > 0 and table.concat(left, ",") or "", (#left > 0 and steps > 0) and "; " or "",
        steps > 0 and (steps .. " mechanized step" .. (steps == 1 and "" or "s")) or ""))
    end
  end
  vars.set("ger_repl", nil)
  vars.set("ger_drawn", nil)
  vars.set("mech_steps", nil)
end

function M.soviet_start()
  local due = M.due(C.SOVIET)
  if #due > 0 then log.rule("8.1.1.A", ("Soviet reinforcement due: %s (with or next to a supplied Soviet artillery unit)"):format(C.ids(due))) end
  vars.set("sov_repl", nil)
end

-- The Soviet Placement Segment ends: the reinforcement not placed is forfeited (8.1); reading:
-- replacement units the Soviet does not place (or cannot) stay eliminated: the once-a-game
-- replacements are spent.
function M.soviet_end()
  local lost = {}
  for _, u in ipairs(M.due(C.SOVIET)) do u:put_in("removed"); lost[#lost + 1] = u end
  if #lost > 0 then log.rule("8.1", ("reinforcement not placed is forfeited: %s"):format(C.ids(lost))) end
  local left = vars.get("sov_repl") or {}
  if #left > 0 then
    log.rule("8.2.1.A", ("replacements not placed stay eliminated for good: %s"):format(table.concat(left, ",")))
  end
  vars.set("sov_repl", nil)
end

-- What `next` at a terminal warns is still to place (8.1, 8.2.1.B: what is not placed is lost).
umpire.unfinished(function()
  local st = umpire.clock().step
  local lines = {}
  if st == "ger_place" then
    local due = M.due(C.GERMAN)
    if #due > 0 then lines[#lines + 1] = "reinforcements not placed (forfeited at the end of the segment, K units may wait) [8.1]: " .. C.ids(due) end
    local repl = vars.get("ger_repl") or {}
    if #repl > 0 then lines[#lines + 1] = "replacements not placed (forfeited) [8.2.1.B]: " .. table.concat(repl, ",") end
    local steps = vars.get("mech_steps") or 0
    if steps > 0 then lines[#lines + 1] = ("mechanized replacement steps unused (forfeited) [8.2.1.B]: %d"):format(steps) end
  elseif st == "sov_place" then
    local due = M.due(C.SOVIET)
    if #due > 0 then lines[#lines + 1] = "reinforcement not placed (forfeited) [8.1.1.A]: " .. C.ids(due) end
    local r = vars.get("sov_repl") or {}
    if #r > 0 then lines[#lines + 1] = "replacements not placed (they stay eliminated) [8.2.1.A]: " .. table.concat(r, ",") end
  end
  if #lines > 0 then return lines end
end)

umpire.status(function()
  local lines = {}
  local st = umpire.clock().step
  if st == "ger_place" then
    local due = M.due(C.GERMAN)
    if #due > 0 then lines[#lines + 1] = "German reinforcements to place [8.1]: " .. C.ids(due) end
    local repl = vars.get("ger_repl")
    if repl then
      lines[#lines + 1] = ("German replacements left [8.2.1.B]: %s; %s"):format(
        #repl > 0 and table.concat(repl, ",") or "no unit", C.count(vars.get("mech_steps") or 0, "mechanized step"))
    end
  elseif st == "sov_place" then
    local due = M.due(C.SOVIET)
    if #due > 0 then lines[#lines + 1] = "Soviet reinforcement to place [8.1.1.A]: " .. C.ids(due) end
    local r = vars.get("sov_repl")
    if r and #r > 0 then lines[#lines + 1] = "Soviet replacements to place [8.2.1.A]: " .. table.concat(r, ",") end
    if not vars.get("soviet_replacements_taken") then
      lines[#lines + 1] = "Soviet replacements [8.2.1.A]: not taken yet (once a game, `replacements`)"
    end
  end
  return lines
end)

return M
