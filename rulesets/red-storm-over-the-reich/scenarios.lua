-- Red Storm over the Reich 3.2-3.4: the scenarios' set-ups. The Historical set-up is the scenario
-- file as it stands (3.2.A). Operation Sleigh Ride (3.3.A) and Guderian in Charge (3.4.A) add
-- German set-up decisions in a Set-up step before turn 1: withdrawals of up to 6 hexes along the
-- German Retreat Compass ignoring terrain costs (withdraw), three infantry divisions flipped to
-- their Kampfgruppen (kg), one panzer division reduced (reduce), and for Guderian the lighter-
-- coloured units placed in supplied hexes away from the Soviet (deploy).
local C = require "common"
local T = require "tables"
local zoc = require "zoc"
local stacking = require "stacking"
local supply = require "supply"

local M = {}

function M.scenario() return vars.get("scenario") or "historical" end
function M.has_setup() return M.scenario() ~= "historical" and not vars.get("set_up") end

local NAMES = { historical = "the Historical Scenario (3.2)", sleigh_ride = "Operation Sleigh Ride (3.3)", guderian = "Guderian in Charge (3.4)" }

function M.start()
  log.rule("3.1", ("%s: the armies as on 12 January 1945 (set-up approximated: DATA.md), %d turns"):format(
    NAMES[M.scenario()] or M.scenario(), C.last_turn()))
  -- 3.4.A: in Guderian in Charge the lighter-coloured units are placed at the start, even those
  -- with a reinforcement code
  if M.scenario() == "guderian" then
    local moved = {}
    for _, u in ipairs(units.in_box("reinforcements")) do
      if u:attr("guderian") then u:put_in("guderian"); moved[#moved + 1] = u end
    end
    if #moved > 0 then log.rule("3.4.A", ("Guderian units among the reinforcements are placed at the start: %s"):format(C.ids(moved))) end
  end
  if M.has_setup() then
    log.rule(M.scenario() == "guderian" and "3.4.A" or "3.3.A",
      "German set-up: withdraw units on or south of row 14 up to 6 hexes along the Retreat Compass (withdraw), flip 3 infantry divisions there to their KGs (kg), reduce one panzer division there (reduce)" ..
      (M.scenario() == "guderian" and ", then place the Guderian units (deploy)" or "") .. "; then next")
  end
end

local function row(h) return tonumber(h:sub(3, 4)) end
local function south(u) return u.hex ~= nil and row(u.hex) >= T.sleigh_row end

local function count(key) return (vars.get("setup_counts") or {})[key] or 0 end
local function bump(key)
  local c = vars.get("setup_counts") or {}
  c[key] = (c[key] or 0) + 1
  vars.set("setup_counts", c)
end

-- The checks of the set-up verbs, in the order they refuse; `check` is umpire.check in the verbs
-- and a quiet one in the list of actions (actions.lua).
-- 3.3.A: may `u` be flipped to its KG? (a unit that began the game as a KG, 16.1.A, has no
-- division side to flip from)
function M.check_kg(u, check)
  check(u.side == C.GERMAN and u:attr("kg") and not u:attr("starts_kg") and u.step == 1 and u.hex ~= nil, "3.3.A", "%s is not a German infantry division with a KG on its back", u.id)
  check(south(u), "3.3.A", "%s is north of row 14 (%s)", u.id, u.hex)
  check(count("kg") < T.sleigh_kgs, "3.3.A", "three divisions are flipped already")
end

-- 3.3.A: may the panzer division `u` be reduced?
function M.check_reduce(u, check)
  check(u.side == C.GERMAN and C.is_mech(u) and u:attr("panzer") and u.hex ~= nil, "3.3.A", "%s is not a German panzer division on the map", u.id)
  check(u.step == 1, "3.3.A", "%s is reduced already", u.id)
  check(south(u), "3.3.A", "%s is north of row 14 (%s)", u.id, u.hex)
  check(count("reduce") < 1, "3.3.A", "one panzer division is reduced already")
end

-- 3.4.A: may the Guderian unit `u` be placed in `hex` (stacking apart)? `known` may hold what a
-- caller checking many hexes has found once for all of them (the list of actions): `supplied`
-- (the hexes a German trace reaches), `soviet` (the hexes holding Soviet units), `near_soviet`
-- (their neighbours: map.adjacent of them) and `control` (map.marked("ctl")).
-- (in two parts: the unit's, then the hex's, which the list asks once a unit and once a hex)
function M.check_deploy_unit(u, check)
  check(M.scenario() == "guderian", "3.4.A", "only Guderian in Charge places extra units")
  check(u.box == "guderian", "3.4.A", "%s is not a Guderian unit waiting to be placed", u.id)
end

function M.check_deploy(u, hex, check, known)
  M.check_deploy_unit(u, check)
  M.check_deploy_hex(hex, check, known)
end

-- 3.4.A: may a Guderian unit be deployed in `hex` (the checks that do not depend on the unit)?
---@param hex string
---@param check function umpire.check, or the checker of C.passes
---@param known? table what a caller checking many hexes found once (supplied, soviet, near_soviet, control)
local NOTHING_KNOWN = {}
-- (does `h` hold Soviet units? known.soviet where the caller found them)
local function soviet_in(h, known)
  if known.soviet then return known.soviet[h] == true end
  return #C.at(h, C.SOVIET) > 0
end
function M.check_deploy_hex(hex, check, known)
  known = known or NOTHING_KNOWN
  check(not C.PROHIBITED[hex], "3.4.A", "%s is not a land hex", hex)
  local ctl = known.control and C.SIDE_OF[known.control[hex] or 2] or C.controller(hex)
  check(ctl == C.GERMAN and not soviet_in(hex, known), "3.4.A", "%s is not a German hex", hex)
  if not (known.near_soviet and known.soviet) or known.near_soviet[hex] then
    for _, n in ipairs(map.neighbours(hex)) do
      check(not soviet_in(n, known), "3.4.A", "%s is next to Soviet units (%s)", hex, n)
    end
  end
  check((known.supplied or supply.traceable(C.GERMAN, { hex }))[hex], "3.4.A", "%s is not supplied (7.1)", hex)
end

-- 3.3.A, 3.4.A: may the set-up end? (every decision made)
function M.check_end(check)
  check(count("kg") == T.sleigh_kgs, "3.3.A", "flip %d infantry divisions on or south of row 14 to their KGs first (%d done)", T.sleigh_kgs, count("kg"))
  check(count("reduce") == 1, "3.3.A", "reduce one panzer division on or south of row 14 first")
  if M.scenario() == "guderian" then
    local left = units.in_box("guderian")
    check(#left == 0, "3.4.A", "place the Guderian units first (%d left: %s)", #left, C.ids(left))
  end
end

umpire.command {
  usage = "withdraw <unit> <hex> [<hex>...]",
  help = "Sleigh Ride set-up: move a German unit on or south of row 14 up to 6 hexes along the German Retreat Compass, ignoring terrain costs, stopping in Soviet ZOCs",
  example = "withdraw 371ID 4943",
  rule = "3.3.A", phases = { "setup" },
  run = function(u, to, via)
    umpire.check(u.side == C.GERMAN and u.hex ~= nil, "3.3.A", "%s is not a German unit on the map", u.id)
    umpire.check(not C.is_refugee(u) and not C.is_garrison(u), "3.3.A", "%s does not withdraw (refugees and garrisons stay)", u.id)
    umpire.check(south(u), "3.3.A", "%s is north of row 14 (%s)", u.id, u.hex)
    umpire.check(not u:marker("withdrawn"), "3.3.A", "%s has withdrawn already", u.id)
    local from = u.hex
    local ez = zoc.zoc(C.SOVIET)
    local blocked, side_cost = {}, {}
    for _, s in ipairs(C.on_map(C.SOVIET)) do blocked[s.hex] = true end
    if ez[from] then
      for _, n in ipairs(map.neighbours(from)) do if ez[n] then side_cost[from .. ">" .. n] = "no" end end
    end
    local prof = { from = from, mp = T.sleigh_hexes, terrain = { sea = "no", lake = "no", prohibited = "no" }, default = 1,
      hexsides = { sea = "no" }, blocked = blocked, stop = ez, side_cost = side_cost, directions = T.compass.German }
    local path, cost
    if via and #via > 0 then
      path = { from, to }
      for _, h in ipairs(via) do path[#path + 1] = h end
      local why
      cost, why = map.path_cost(prof, path)
      if not cost then umpire.refuse("3.3.A", ("%s: %s (only the directions %s of the German Retreat Compass, at most %d hexes, stopping in a Soviet ZOC)"):format(
        u.id, why, table.concat(T.compass.German, "/"), T.sleigh_hexes)) end
    else
      cost, path = map.route(prof, to)
      if not cost then
        umpire.refuse("3.3.A", ("%s cannot withdraw to %s: at most %d hexes, each step %s (the German Retreat Compass), never into Soviet units, stopping in a Soviet ZOC and not from one into another"):format(
          u.id, to, T.sleigh_hexes, table.concat(T.compass.German, " or ")))
      end
    end
    local dest = path[#path]
    u:move_to(dest)
    u:set_marker("withdrawn", 1)
    log.rule("3.3.A", ("%s withdraws %s → %s (%s)"):format(u.id, from, table.concat(path, " → ", 2), C.count(#path - 1, "hex", "hexes")))
    local over = stacking.warning(dest, C.GERMAN, "the end of the set-up", "during the withdrawals")   -- 5.1 (reading R34)
    if over then log.rule("5.1", over) end
  end,
}

umpire.command {
  usage = "kg <unit>",
  help = "Sleigh Ride set-up: flip a German infantry division on or south of row 14 to its Kampfgruppe (three of them)",
  example = "kg 68ID",
  rule = "3.3.A", phases = { "setup" },
  run = function(u)
    M.check_kg(u, umpire.check)
    u:set_step(2)
    bump("kg")
    log.rule("3.3.A", ("%s is flipped to its Kampfgruppe %s (%d of %d)"):format(u.id, u:attr("kg"), count("kg"), T.sleigh_kgs))
  end,
}

umpire.command {
  usage = "reduce <unit>",
  help = "Sleigh Ride set-up: reduce one German panzer division on or south of row 14",
  example = "reduce 17PZ",
  rule = "3.3.A", phases = { "setup" },
  run = function(u)
    M.check_reduce(u, umpire.check)
    u:lose_steps(1)
    bump("reduce")
    log.rule("3.3.A", ("%s is reduced (rearguard losses)"):format(u.id))
  end,
}

umpire.command {
  usage = "deploy <unit> <hex>",
  help = "Guderian set-up: place a Guderian unit in a supplied German hex not next to a Soviet unit, within the stacking limits",
  example = "deploy 1SSPZ 2030",
  rule = "3.4.A", phases = { "setup" },
  run = function(u, hex)
    M.check_deploy(u, hex, umpire.check)
    local rule, what = stacking.problem(hex, C.GERMAN, { u })
    if rule then umpire.refuse(rule, what) end
    u:move_to(hex)
    log.rule("3.4.A", ("%s placed in %s (%s left to place)"):format(u.id, hex, C.count(#units.in_box("guderian"), "Guderian unit")))
  end,
}

-- The end of the set-up: every decision made.
function M.setup_end()
  M.check_end(umpire.check)
  stacking.enforce(C.GERMAN, "the end of the set-up (5.1)")
  for _, u in ipairs(units.all { side = C.GERMAN }) do u:set_marker("withdrawn", nil) end
  vars.set("set_up", true)
  vars.set("setup_counts", nil)
end

return M
