-- Fortress Stalingrad 9, 12.1, 11.24 (note): reinforcements and replacements. Entry by controlled
-- edge hexes, on 0-0-1s and at railroad sources; the 69th and 48th Armies by the north edge; the
-- turn-7 0-0-1; the ad hoc German units; the 28th Army by Elista; Manstein; the Tigers' roll;
-- replacement steps by turn, the Millerovo and trans-Don/Volga rules, who may be recreated.
local C = require "common"
local T = require "tables"
local control = require "control"
local stacking = require "stacking"
local supply = require "supply"
local movement = require "movement"

local M = {}

local UNIT = 60

-- 9.17, 9.21, 9.22, 9.25: the replacement steps of a side this turn.
function M.rate(side, turn)
  local mech, leg = 0, 0
  for _, r in ipairs(T.replacements[side]) do
    if turn >= r.from and turn <= r.to then mech, leg = r.mech, r.leg end
  end
  if side == C.SOVIET and vars.get("enhanced_replacements") then
    mech, leg = mech * T.replacement_multiplier_trans_don, leg * T.replacement_multiplier_trans_don
  end
  return mech, leg
end

-- 9.22: Millerovo captured or cut off for the first time: no mechanized step in the next two
-- German Reinforcement and Replacement Phases.
local function millerovo_check()
  if vars.get("millerovo_triggered") then return end
  local h = T.millerovo
  local lost = control.is(h, C.SOVIET)
  if not lost then lost = supply.german_trace({ [h] = true })[h] == nil end
  if lost then
    vars.set("millerovo_triggered", true)
    vars.set("millerovo_lost", T.millerovo_phases)
    log.rule("9.22", ("Millerovo (%s) is %s: no German mechanized replacement in the next %d German replacement phases"):format(
      h, control.is(h, C.SOVIET) and "in Soviet hands" or "cut off from German overland supply", T.millerovo_phases))
  end
end
M.millerovo_check = millerovo_check

-- The Reinforcement and Replacement Phase of `side` begins (9.1, 9.10, 9.16, 11.24 note).
function M.begin_phase(side)
  local turn = umpire.clock().turn
  vars.set("rr_replaced", false)
  vars.set("adhoc_hexes", {})
  if side == C.GERMAN then
    millerovo_check()
    -- 9.10: Manstein arrives on German turn 2 and is kept off the map until committed (11.16)
    local m = units.get(T.units.manstein)
    if m and m.box == "reinforcements" and (m:attr("arrives") or 99) <= turn then
      m:put_in("manstein")
      log.rule("9.10", "Manstein arrives; he stays off the map and joins one battle a turn (11.16)")
    end
    -- the note after 11.24: the 503rd/65th arrives on a roll
    local t = units.get(T.units.tigers)
    if t and t.box == "reinforcements" and not t:marker("released") and T.tiger_roll[turn] then
      local need = T.tiger_roll[turn]
      if need >= 6 then
        t:set_marker("released", turn)
        log.rule("11.24", "the 503rd/65th arrives automatically on turn 6")
      else
        local die = dice.roll("1d6", "the Tigers' arrival (the note after 11.24)")
        if die <= need then
          t:set_marker("released", turn)
          log.rule("11.24", ("the 503rd/65th arrives: %d rolled, %d or less needed on turn %d"):format(die, need, turn))
        else
          log.rule("11.24", ("the 503rd/65th does not arrive: %d rolled, %d or less needed on turn %d"):format(die, need, turn))
        end
      end
    end
  end
  local mech, leg = 0, 0
  if turn >= 2 then mech, leg = M.rate(side, turn) end
  if side == C.GERMAN and (vars.get("millerovo_lost") or 0) > 0 then
    vars.set("millerovo_lost", vars.get("millerovo_lost") - 1)
    if mech > 0 then log.rule("9.22", "no mechanized replacement step this turn (Millerovo)") end
    mech = 0
  end
  vars.set("replacements", { side = side, mech = mech, leg = leg })
  if mech + leg > 0 then
    log.rule(side == C.SOVIET and (turn >= 6 and "9.21" or "9.17") or "9.22",
      ("%s replacements this turn: %d mechanized, %d straight-leg%s"):format(side, mech, leg,
        side == C.SOVIET and vars.get("enhanced_replacements") and " (doubled, 9.25)" or ""))
  end
end

function M.end_phase(side)
  local r = vars.get("replacements")
  if r and r.mech + r.leg > 0 then
    log.rule("9.16", ("%d replacement step%s not taken %s lost"):format(r.mech + r.leg, r.mech + r.leg > 1 and "s" or "", r.mech + r.leg > 1 and "are" or "is"))
  end
  vars.set("replacements", nil)
  -- 8.15: air units waiting on an entry hex for a reinforcement that did not come are wasted
  for _, a in ipairs(units.all { side = side, kind = "air" }) do
    a:set_marker("waiting", nil)
    local hex = a.hex
    if hex and #C.combat_at(hex, side) == 0 then
      a:put_in("air_spent")
      log.rule("8.15", ("%s waited in %s for a reinforcement that did not arrive: set aside until the next Air Power Phase"):format(a.id, hex))
    end
  end
end

-- Units that may enter now.
function M.due(side)
  local turn = umpire.clock().turn
  local out = {}
  for _, u in ipairs(units.in_box("reinforcements")) do
    if u.side == side and (u:attr("arrives") or 99) <= turn and (C.is_combat(u) or C.is_supply_unit(u)) then
      if u:attr("entry") ~= "roll" or u:marker("released") then out[#out + 1] = u end
    end
  end
  return out
end

local function is_edge(h, names)
  for _, a in ipairs(names) do if C.EDGE[a][h] then return true end end
  return false
end

-- Whether `stack` (units.at) holds a unit of `side` that passes `test`.
local function holds(stack, side, test)
  for _, x in ipairs(stack) do
    if x.side == side and test(x) then return true end
  end
  return false
end

-- 9.2-9.5, 9.9, 9.11, 9.12, 9.19, 12.1: may `u` enter (or be recreated) in `hex`? Returns the MP
-- its entry costs (9.2: the edge hex is hex one of its movement) or nil, rule, why. `sources`:
-- the German supply sources as supply.german_sources() gives them now (a caller asking for many
-- hexes finds them once; found here otherwise). `stack`: units.at(hex), if the caller has it.
function M.entry_cost(u, hex, recreated, sources, stack)
  local side, entry = u.side, u:attr("entry")
  local terrain = C.TERRAIN[hex]
  if terrain == "sea" then return nil, "10.8", hex .. " is an all-sea hex" end
  stack = stack or units.at(hex)
  if holds(stack, C.other(side), C.is_combat) then return nil, "9.2", hex .. " holds enemy units" end
  local move_cost = T.move_cost[C.class(u)][terrain] or 1
  if side == C.SOVIET then
    if u.id == T.units.army28 and not recreated then
      -- 12.1: an east-edge hex within two hexes of Elista, any Soviet turn after the first
      if umpire.clock().turn < 2 then return nil, "12.1", "the 28th Army enters on a Soviet turn after the first" end
      if not (C.EDGE.east_edge[hex] and map.distance(hex, "2227") <= 2) then
        return nil, "12.1", ("the 28th Army enters in an east-edge hex within two hexes of Elista (2227); %s is not one"):format(hex)
      end
      return 0, "12.1"
    end
    if entry == "frontal" and not recreated then
      -- 9.5: the turn-7 0-0-1, in an intact Soviet entrenchment or a Soviet town or city with a line to an edge
      local place = control.intact_entrenchment(hex, C.SOVIET) or ((map.has(hex, "town") or map.has(hex, "city")) and control.is(hex, C.SOVIET))
      if not place then return nil, "9.5", ("the new 0-0-1 is placed in an intact Soviet entrenchment or a Soviet-controlled town or city; %s is neither"):format(hex) end
      local _, _, reached = supply.soviet_trace({ [hex] = true })
      if not reached[hex] then return nil, "9.5", ("%s has no 0-0-1 supply line to a Soviet north, east or south edge hex"):format(hex) end
      return 0, "9.5"
    end
    if entry == "north" and not recreated then
      -- 9.4: the 69th and 48th Armies by a Soviet-controlled north-edge hex only
      if not (C.EDGE.north_edge[hex] and control.is(hex, C.SOVIET)) then
        return nil, "9.4", ("%s enters only by a Soviet-controlled north-edge hex; %s is not one"):format(u.id, hex)
      end
      return move_cost, "9.4"
    end
    -- 9.3: on a 0-0-1 (the placement costs nothing)
    if holds(stack, C.SOVIET, C.is_supply_unit) then return 0, "9.3" end
    -- 9.2: a Soviet-controlled north, east or south edge hex, counted as hex one
    if is_edge(hex, { "north_edge", "east_edge", "south_edge" }) and control.is(hex, C.SOVIET) then return move_cost, "9.2" end
    return nil, "9.2", ("Soviet reinforcements enter by a Soviet-controlled north, east or south edge hex, or on a 0-0-1; %s is neither"):format(hex)
  end
  -- German
  if entry == "adhoc" then
    -- 9.9: a German-controlled, in-supply town or city, one a hex a turn
    if not ((map.has(hex, "town") or map.has(hex, "city")) and control.is(hex, C.GERMAN)) then
      return nil, "9.9", ("the ad hoc units appear only in a German-controlled town or city; %s is not one"):format(hex)
    end
    local lines = sources and supply.german_lines(sources) or supply.german_trace({ [hex] = true })
    if lines[hex] == nil then
      return nil, "9.9", ("%s is not in supply (no German line of %d hexes or fewer)"):format(hex, T.german_line_max)
    end
    if C.contains(vars.get("adhoc_hexes") or {}, hex) then
      return nil, "9.9", ("an ad hoc unit has already appeared in %s this turn (one a hex)"):format(hex)
    end
    return 0, "9.9"
  end
  -- 9.12: a functioning supply source (a railroad town or city connected to the west edge)
  if ((sources or supply.german_sources())[hex] or -1) == 0 then return 0, "9.12" end
  -- 9.11: a west-edge hex, as the Soviets' edge hexes (9.2)
  if C.EDGE.west_edge[hex] and control.is(hex, C.GERMAN) then return move_cost, "9.11" end
  return nil, "9.11", ("German reinforcements enter by a German-controlled west-edge hex or at a railroad town or city that is a supply source; %s is neither"):format(hex)
end

local function place(u, hex, cost, rule, how)
  local turn = umpire.clock().turn
  u:move_to(hex)
  u:set_marker("entered", turn)                              -- 9.13: supplied on its turn of entry
  u:set_marker("origin", C.hex_no(hex))
  u:set_marker("mp_used", math.tointeger(cost * UNIT))
  if u:attr("entry") == "adhoc" then
    local list = vars.get("adhoc_hexes") or {}
    list[#list + 1] = hex
    vars.set("adhoc_hexes", list)
  end
  log.rule(rule, ("%s %s in %s%s"):format(u.id, how, C.hex_label(hex),
    cost > 0 and (" (the hex counts as hex one of its movement: %s MP)"):format(map.fmt_cost(cost)) or ""))
  movement.trans_don({ hex }, u.side, u, "is placed in")   -- 9.25 (DATA.md)
end

umpire.command {
  usage = "enter <unit> <hex>",
  help = "bring a reinforcement onto the map (9.2-9.12, 12.1)",
  example = "enter 5SA 4820      enter Ho 2514",
  rule = "9.1", phases = { "reinforcement", "initial_supply" },
  run = function(u, hex)
    local side = u.side
    local turn = umpire.clock().turn
    local step = umpire.clock().step
    local frontal = u:attr("entry") == "frontal"
    if step == "initial_supply" then
      umpire.check(frontal, "9.1", "reinforcements enter in their side's Reinforcement and Replacement Phase (only the turn-7 0-0-1 is placed at the start of the Initial Supply Phase, 9.5)")
    else
      umpire.check(not frontal, "9.5", "the turn-7 0-0-1 is placed at the start of the Initial Supply Phase")
      umpire.check(side == umpire.clock().side, "9.1", "%s is a %s reinforcement; this is the %s phase", u.id, side, umpire.clock().side)
      umpire.check(not vars.get("rr_replaced"), "9.1", "reinforcements are received before replacements are taken")
    end
    local ok = (u.box == "reinforcements" and C.contains(M.due(side), u)) or (u.id == T.units.army28 and u.box == "offboard")
    umpire.check(ok, "9.1", "%s is not a reinforcement due now (%s)", u.id,
      u.box == "reinforcements" and (u:attr("entry") == "roll" and "the Tigers come on a roll, 11.24" or ("arrives on turn " .. tostring(u:attr("arrives")))) or
      (u.hex and ("on the map in " .. u.hex) or ("in the box " .. tostring(u.box))))
    local cost, rule, why = M.entry_cost(u, hex)
    if not cost then umpire.refuse(rule, why) end
    local r2, prob = stacking.problem(hex, side, { u })
    if r2 then umpire.refuse(r2, ("placing %s: %s"):format(u.id, prob)) end                   -- 6.6
    place(u, hex, cost, rule, rule == "9.3" and "enters on the 0-0-1" or rule == "9.12" and "enters at the railroad supply source" or "enters")
    if u.id == T.units.army28 then log.rule("12.1", "the 28th Army may not move this turn (except to retreat after combat) and never leaves the map again") end
  end,
}

-- 9.16, 9.23, 7.35: may a destroyed unit be recreated?
function M.recreatable(u)
  if u.box ~= "dead" then return false, u.box == "destroyed" and "it was destroyed out of overland supply or may never be replaced (7.35, 9.16, 9.23)" or "it is not destroyed" end
  if u.side == C.GERMAN and (C.is_satellite(u) or u.steps == 1) then return false, "satellite and one-step German units are never replaced (9.16)" end
  return true
end

umpire.command {
  usage = "replace <unit> [<hex>]",
  help = "spend a replacement step on a unit: one step back on the map, or a destroyed unit recreated at one step in <hex> (9.15-9.23)",
  example = "replace 21A      replace XI 2514",
  rule = "9.15", phases = { "reinforcement" },
  run = function(u, hex)
    local side = umpire.clock().side
    local r = vars.get("replacements")
    umpire.check(r ~= nil and r.side == side, "9.16", "no replacement steps now")
    umpire.check(u.side == side, "9.15", "%s is not a %s unit", u.id, side)
    umpire.check(C.is_combat(u) and not C.is_garrison(u), "9.16", "%s cannot take replacements", u.id)
    -- 9.17: straight-leg steps only for straight-leg units; a mechanized step for either
    local kind
    if C.is_mech(u) then
      umpire.check(r.mech > 0, "9.17", "%s is mechanized and no mechanized step is left this turn (%d straight-leg)", u.id, r.leg)
      kind = "mech"
    else
      kind = r.leg > 0 and "leg" or "mech"
      umpire.check(r[kind] > 0, "9.16", "no replacement step is left this turn")
    end
    if u.hex then
      umpire.check(hex == nil, "9.15", "%s is on the map: a replacement step needs no hex", u.id)
      umpire.check(u.step > 1, "9.18", "%s is at full strength", u.id)
      if side == C.SOVIET then
        umpire.check(C.supply_level(u) < T.as_max or u:marker("entered"), "9.20", "%s is at >3 AS: no replacements", u.id)
        local lengths = supply.soviet_trace()
        umpire.check(lengths[u.hex] ~= nil, "9.20", "%s has no overland supply line open now", u.id)
      end
      if side == C.GERMAN and (C.is_satellite(u) or u.steps == 1) then umpire.refuse("9.16", "satellite and one-step German units are never replaced") end
      u:restore_steps(1)
      log.rule("9.18", ("%s takes a %s replacement step: now %d-%d-%d"):format(u.id, kind == "mech" and "mechanized" or "straight-leg", u:value("attack"), u:value("defense"), u:value("move")))
    else
      local ok, why = M.recreatable(u)
      umpire.check(ok, "9.16", "%s may not be recreated: %s", u.id, why or "")
      umpire.check(hex ~= nil, "9.19", "%s is recreated in a hex: replace %s <hex>", u.id, u.id)
      local cost, rule, why2 = M.entry_cost(u, hex, true)
      if not cost then umpire.refuse(rule, why2) end
      local r2, prob = stacking.problem(hex, side, { u })
      if r2 then umpire.refuse(r2, ("placing %s: %s"):format(u.id, prob)) end
      u:set_step(u.steps)
      place(u, hex, cost, "9.19", ("is recreated at one step (%d-%d-%d)"):format(u:value("attack"), u:value("defense"), u:value("move")))
    end
    r[kind] = r[kind] - 1
    vars.set("replacements", r)
    vars.set("rr_replaced", true)
  end,
}

return M
