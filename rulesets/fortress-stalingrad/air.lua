-- Fortress Stalingrad 8: air power. In the Air Power Phase every air unit is committed, one at a
-- time, the German first, then alternately (8.1, 8.2), at most four German and two Soviet in a hex
-- (8.3), within 10 hexes of a German-controlled town or city or of a 0-0-1 (8.11); they stay with
-- the stack all turn (8.4, 8.14), follow it (8.5), and are set aside when it is destroyed or out of
-- range (8.4, 8.12). Their combat effect is in combat.lua (8.7-8.9).
local C = require "common"
local T = require "tables"
local control = require "control"
local supply = require "supply"

local M = {}

function M.available(side)
  local out = {}
  for _, u in ipairs(units.in_box("air_available")) do
    if u.side == side then out[#out + 1] = u end
  end
  return out
end

-- Whose turn it is to place (8.2): the German first, then alternately; a side with none left passes.
function M.next_side()
  local want = vars.get("air_next") or C.GERMAN
  if #M.available(want) > 0 then return want end
  local other = C.other(want)
  if #M.available(other) > 0 then return other end
  return nil
end

-- 8.11: the hexes air support is measured from: the German-controlled towns and cities, or the
-- hexes of the Soviet 0-0-1s (a hexset: map.nearest reads it without converting it again). `ctl`:
-- every hex's controller (map.marked("ctl")), if the caller has it.
function M.bases(side, ctl)
  local out = {}
  if side == C.GERMAN then
    local function german(h)
      if ctl then return ctl[h] == C.SIDE_NO[C.GERMAN] end
      return control.is(h, C.GERMAN)
    end
    for _, h in ipairs(C.TOWNS) do
      if german(h) then out[#out + 1] = h end
    end
  else
    for _, s in ipairs(units.all { side = C.SOVIET, kind = "supply", on_map = true }) do out[#out + 1] = s.hex end
  end
  return map.hexset(out)
end

-- 8.11: may a unit of `side` in `hex` have air support? `bases`: M.bases(side) (a caller asking
-- about many hexes finds them once; found here otherwise).
function M.in_range(side, hex, bases)
  local _, d = map.nearest(hex, bases or M.bases(side))
  return d ~= nil and d <= T.air.range
end

-- The Air Power Phase begins: every air unit is picked up (8.4); German air reinforcements arrive
-- (8.13, 9.6); the German places first (8.2).
function M.begin_phase()
  local turn = umpire.clock().turn
  for _, u in ipairs(units.all { kind = "air" }) do
    if u.hex or u.box == "air_spent" then u:put_in("air_available") end
    u:set_marker("waiting", nil)
  end
  local new = {}
  for _, u in ipairs(units.in_box("reinforcements")) do
    if C.is_air(u) and (u:attr("arrives") or 99) <= turn then
      u:put_in("air_available")
      new[#new + 1] = u.id
    end
  end
  if #new > 0 then log.rule("8.13", ("air reinforcements arrive: %s"):format(table.concat(new, ", "))) end
  vars.set("air_next", C.GERMAN)
  local g, s = #M.available(C.GERMAN), #M.available(C.SOVIET)
  log.rule("8.2", ("air units to commit: German %d, Soviet %d (the German first, one at a time)"):format(g, s))
end

-- The hexes next to a combat unit of `side`: a set.
local function next_to(side)
  local hexes = {}
  for _, u in ipairs(C.on_map(side)) do hexes[#hexes + 1] = u.hex end
  return map.adjacent { from = hexes }
end

-- The side's stacks of combat units as M.places weighs them: each hex (in the order its units
-- are met), next to the enemy or not, its attack, whether it holds only satellites (8.6) and
-- whether it is in range (8.11). Committing air units changes none of this.
local function stacks_of(side)
  local bases = M.bases(side)
  local stacks = units.stacks()                   -- every stack, read once
  local front = next_to(C.other(side))
  local list, seen = {}, {}
  for _, u in ipairs(C.on_map(side)) do
    local h = u.hex
    if not seen[h] then
      seen[h] = true
      local att, sat = 0, true                    -- the side's combat units (8.3)
      for _, x in ipairs(stacks[h]) do
        if x.side == side and C.is_combat(x) then
          att = att + (x:value("attack") or 0)
          if not C.is_satellite(x) then sat = false end
        end
      end
      list[#list + 1] = { hex = h, front = front[h] and 1 or 0, att = att, sat = sat, in_range = M.in_range(side, h, bases) }
    end
  end
  return list
end

-- The hexes where an air unit of `side` may be committed now (8.3, 8.6, 8.11), the best first: the
-- stacks next to the enemy with the most attack, then the rest by id. `known`: a table in which
-- a caller placing several air units in a row keeps the stacks by side (only the air units move).
function M.places(side, known)
  local list = known and known[side] or stacks_of(side)
  if known then known[side] = list end
  local air = units.hexes { side = side, kind = "air", on_map = true }   -- (8.3)
  local score, out = {}, {}
  for _, s in ipairs(list) do
    if (air[s.hex] or 0) < T.air.max_per_hex[side] and not (side == C.GERMAN and s.sat) and s.in_range then
      score[s.hex] = s
      out[#out + 1] = s.hex
    end
  end
  table.sort(out, function(a, b)
    local x, y = score[a], score[b]
    if x.front ~= y.front then return x.front > y.front end
    if x.att ~= y.att then return x.att > y.att end
    return a < b
  end)
  return out
end

local function commit(a, hex)
  a:move_to(hex, "under")
  vars.set("air_next", C.other(a.side))
end

-- 8.1: every air unit is committed before the phase ends: those still uncommitted when the phase
-- is left are placed now, each side asked in turn (8.2) where.
function M.end_phase()
  local known = {}
  while true do
    local side = M.next_side()
    if not side then return end
    local a = M.available(side)[1]
    local options = M.places(side, known)
    if #options == 0 then
      a:put_in("air_spent")
      log.rule("8.11", ("%s has no stack it may support (in range, 8.11; not satellites alone, 8.6): set aside this turn"):format(a.id))
    else
      local hex = umpire.ask { prompt = ("every air unit is committed (8.1) — %s supports which stack?"):format(a.id),
        side = side, rule = "8.1", kind = "hex", options = options, default = options[1] }
      commit(a, hex)
      log.rule("8.2", ("%s supports %s in %s"):format(a.id, C.list_ids(C.combat_at(hex, side)), hex))
    end
  end
end

umpire.command {
  usage = "air <unit> <stack:word>",
  help = "commit an air unit to a friendly stack, named by its hex or by a unit in it (8.2), or to an entry hex for a reinforcement (8.15)",
  example = "air Lw1 3427      air VVS1 5TA",
  rule = "8.2", phases = { "air", "assault" },
  run = function(a, where)
    -- the stack is named by a hex (or one-hex place) or by one of its units (8.2: "atop the unit or stack")
    local hex = map.is_hex(where)
    if not hex then
      local places = map.place(where)
      if places and #places == 1 then hex = places[1] end
    end
    if not hex then
      local u = units.find(where)
      umpire.check(u ~= nil and u.hex ~= nil, "8.2", "'%s' is neither a hex nor a unit on the map", where)
      hex = u.hex
    end
    local turn = umpire.clock().turn
    umpire.check(C.is_air(a), "8.2", "%s is not an air unit", a.id)
    local side = a.side
    if umpire.clock().step == "assault" then
      -- 8.1, 13.1: on turn 1 the Soviet places his air units before his first battle
      umpire.check(turn == 1 and side == C.SOVIET, "8.2", "air units are committed in the Air Power Phase (on turn 1 the Soviet places his in his Prepared Assault Phase, 8.1)")
      umpire.check((vars.get("battles") or 0) == 0, "8.1", "the Soviet places his air units before his first battle")
    else
      local who = M.next_side()
      umpire.check(who == side, "8.2", "the %s places the next air unit (one at a time, the German first)", tostring(who))
    end
    umpire.check(a.box == "air_available", "8.4", "%s is already committed this turn (%s)", a.id, a.hex or tostring(a.box))
    local here = C.combat_at(hex, side)
    local count = 0
    for _, u in ipairs(units.at(hex)) do if C.is_air(u) and u.side == side then count = count + 1 end end
    umpire.check(count < T.air.max_per_hex[side], "8.3", "the %s may have at most %d air units in one hex (%s has %d)", side, T.air.max_per_hex[side], hex, count)
    if #here == 0 then
      -- 8.15, 8.16: only an entry hex of this turn's reinforcements (the intention stated)
      local entry = map.in_area(side == C.GERMAN and "west_edge" or "north_edge", hex) or map.in_area("east_edge", hex) or map.in_area("south_edge", hex)
        or (side == C.GERMAN and (supply.german_sources()[hex] or -1) == 0)
      for _, s in ipairs(units.at(hex)) do if C.is_supply_unit(s) and s.side == side then entry = true end end
      umpire.check(entry, "8.16", "%s has no %s ground unit; an air unit goes on a stack, or on the entry hex of a reinforcement arriving this turn (8.15)", hex, side)
      a:set_marker("waiting", 1)   -- 8.15: until its side's Reinforcement Phase ends (reinforce.end_phase)
      log.rule("8.15", ("%s waits in %s for a reinforcement entering there this turn (wasted if none does)"):format(a.id, hex))
    else
      local sat = true
      for _, u in ipairs(here) do if not C.is_satellite(u) then sat = false end end
      umpire.check(not (side == C.GERMAN and sat), "8.6", "air support is not assigned to Axis satellite units alone (%s)", C.list_ids(here))
      umpire.check(M.in_range(side, hex), "8.11", side == C.GERMAN and "no German-controlled town or city within %d hexes of %s" or "no 0-0-1 within %d hexes of %s", T.air.range, hex)
    end
    a:move_to(hex, "under")                  -- under the stack it supports (it does not hide it)
    if umpire.clock().step == "air" then vars.set("air_next", C.other(side)) end
    log.rule("8.2", ("%s supports %s in %s%s"):format(a.id, #here > 0 and C.list_ids(here) or "the reinforcements due", hex,
      (M.next_side() and umpire.clock().step == "air") and ("; next to place: the " .. M.next_side()) or ""))
  end,
}

-- After every command (8.4, 8.12): air units whose stack is gone or out of range are set aside;
-- air units left behind by a stack that moved on follow it (8.5).
function M.follow(hex_from, hex_to, side)
  if #C.combat_at(hex_from, side) > 0 then return end
  for _, a in ipairs(units.at(hex_from)) do
    if C.is_air(a) and a.side == side then
      a:move_to(hex_to, "under")
      log.rule("8.5", ("%s follows the stack it supports to %s"):format(a.id, hex_to))
    end
  end
end

-- `ctl`: every hex's controller (map.marked("ctl")), if the caller has it.
function M.update(ctl)
  local bases = {}   -- M.bases by side, found once (nothing here changes control or moves a 0-0-1)
  local function bases_of(side)
    bases[side] = bases[side] or M.bases(side, ctl)
    return bases[side]
  end
  local clock = umpire.clock()
  local waiting = clock.step == "air" or clock.step == "reinforcement" or (clock.step == "assault" and clock.turn == 1)
  for _, a in ipairs(units.all { kind = "air", on_map = true }) do
    local here = C.combat_at(a.hex, a.side)
    if #here == 0 and not waiting and not a:marker("waiting") then
      a:put_in("air_spent")
      log.rule("8.4", ("%s: the stack it supported is gone: set aside until the next Air Power Phase"):format(a.id))
    elseif #here > 0 and not M.in_range(a.side, a.hex, bases_of(a.side)) then
      local hex = a.hex
      a:put_in("air_spent")
      log.rule("8.12", ("%s in %s is out of range (8.11): set aside until the next Air Power Phase"):format(a.id, hex))
    end
  end
end

return M
