-- Fortress Stalingrad 11.11, 11.26-11.35: what a battle's result does once it is known (combat.lua
-- rolls it). Each side absorbs its number as steps and hexes of retreat (11.11, 11.33: steps
-- first), the 0-3-0 garrisons never leaving their hex (12.2); retreats away from the battle, not
-- through enemy zones of control, not off the map (11.26-11.29, 11.35); and the advance after
-- combat of the victors (11.31, 11.32), a verb of its own.
local C = require "common"
local T = require "tables"
local zoc = require "zoc"
local control = require "control"
local stacking = require "stacking"
local movement = require "movement"
local air = require "air"
local losses = require "losses"     -- rulesets/lib
local retreat = require "retreat"   -- rulesets/lib

local M = {}

local function has(list, f) return C.contains(list, f) end

-- 11.26: each hex of a retreat lies farther from every battle hex than the one before (a battle
-- against several hexes has several: the attackers retreat away from each hex attacked, DATA.md).
function M.away(battles, cur, to)
  for _, b in ipairs(battles) do
    if map.distance(b, to) <= map.distance(b, cur) then return false end
  end
  return true
end

-- 11.26-11.28, 11.35, 5.15, 10.9, 10.19, 10.30: where a stack of `side` retreating from `cur`
-- (battle hexes `battles`) may go next.
function M.retreat_allowed(side, battles, list)
  local enemy = C.other(side)
  local ez = zoc.zoc(enemy)
  local turn = umpire.clock().turn
  local is62 = #list == 1 and list[1].id == T.units.army62
  return function(cur, to)
    if map.terrain(to) == "sea" then return false end
    if not M.away(battles, cur, to) then return false end                                 -- 11.26: away
    if #C.combat_at(to, enemy) > 0 then return false end
    local hs = map.hexside(cur, to)
    if has(hs, "sea") then return false end                                              -- 10.9: not across the Straits
    if has(hs, "volga") and turn <= T.volga_closed_through and not (is62 and to == "3428") then return false end -- 10.19
    if ez[to] and #C.combat_at(to, side) == 0 then return false end                      -- 11.27, 5.15
    if side == C.GERMAN and control.intact_entrenchment(to, C.SOVIET) then return false end -- 10.30
    return true
  end
end

-- A stack retreats `n` hexes from `from` away from the battle hexes `battles` (11.26-11.28);
-- returns the hexes it could not retreat.
function M.retreat(list, n, from, battles, rule, kind)
  local live = {}
  for _, u in ipairs(list) do if u.hex then live[#live + 1] = u end end
  if #live == 0 or n <= 0 then return 0 end
  local side = live[1].side
  local path, left = retreat.walk {
    side = side, from = from, hexes = n, rule = "11.26",
    allowed = M.retreat_allowed(side, battles, live),
    -- 11.28: the last hex of a retreat within the stacking limit where one exists
    prefer = function(_, to, i) return i < n or stacking.problem(to, side, live) == nil end,
    prompt = "retreat " .. C.list_ids(live),
  }
  if #path > 0 then
    for _, u in ipairs(live) do
      u:move_to(path[#path])
      if kind == "pa" then u:set_marker("retreated", 1) end   -- 11.34 (prepared assaults)
    end
    log.rule(rule or "11.26", ("%s retreat%s %s → %s"):format(C.list_ids(live), #live > 1 and "" or "s", from, table.concat(path, " → ")))
    -- 3.3, 10.26, 7.18, 9.25: a retreat enters its hexes as a move does (DATA.md)
    movement.entered({ from, table.unpack(path) }, side, live, "retreats into")
    air.follow(from, path[#path], side)
    stacking.enforce_hex(path[#path], side, "the end of a retreat, 6.6", live)
  end
  return left
end

-- 12.2, 11.11: the 0-3-0 garrisons among `list` (alive). A garrison never leaves its hex, and a hex
-- of retreat counts only when every unit of the battle retreats it: garrisons alone take their whole
-- result as steps; with other units, a retreat is possible only for the part of the result left
-- once each garrison has lost its step (DATA.md).
local function garrisons(list)
  local out = {}
  for _, u in ipairs(list) do if u.hex and C.is_garrison(u) then out[#out + 1] = u end end
  return out
end

local function max_retreat_with_garrisons(n, max_hexes, list, fixed)
  local others = 0
  for _, u in ipairs(list) do if u.hex and not C.is_garrison(u) then others = others + 1 end end
  if others == 0 then return 0 end
  return math.max(0, math.min(max_hexes, n - #fixed))
end

-- One side absorbs `n` (11.11, 11.33: steps first, then the retreat): `units` are its units in the
-- battle, `max_hexes` what it may retreat (0: none). `groups` = { { hex =, units = } } the stacks
-- that retreat (each from its own hex), away from the hexes `battles` (nil: from its own hex, as
-- defenders do). Returns the hexes retreated.
function M.absorb(side, n, units_list, max_hexes, groups, battles, rule, lose, kind)
  if n <= 0 then return 0 end
  local fixed = garrisons(units_list)
  if #fixed > 0 and max_hexes > 0 then
    max_hexes = max_retreat_with_garrisons(n, max_hexes, units_list, fixed)
    log.rule("12.2", ("%s never leave%s %s hex: %s"):format(C.list_ids(fixed), #fixed > 1 and "" or "s", #fixed > 1 and "their" or "its",
      max_hexes == 0 and "the result is taken as steps" or ("a retreat only after %s lost %s step (at most %d hex%s)"):format(
        #fixed > 1 and "they have" or "it has", #fixed > 1 and "their" or "its", max_hexes, max_hexes > 1 and "es" or "")))
  end
  local hexes, steps = losses.split { side = side, n = n, max_hexes = max_hexes, rule = rule }
  if hexes > 0 and #fixed > 0 then
    losses.allocate { side = side, n = #fixed, units = fixed, rule = "12.2", prompt = "a garrison left behind by the retreat", lose = lose }
    steps = steps - #fixed
  end
  if steps > 0 then
    local _, left = losses.allocate { side = side, n = steps, units = units_list, rule = "11.11",
      prompt = ("result %d, %d of it as step%s"):format(n, steps, steps > 1 and "s" or ""), lose = lose,
      default = function(options, by_id)
        local best = options[1]
        for _, id in ipairs(options) do if by_id[id].steps_left > by_id[best].steps_left then best = id end end
        return best
      end }
    if left > 0 then log.rule(rule, ("%d step%s of the result cannot be taken: no unit is left"):format(left, left > 1 and "s" or "")) end
  end
  if hexes > 0 then
    local short = 0
    for _, g in ipairs(groups) do
      local rrule = rule == "11.11" and "11.26" or (rule == "10.42" and "10.47" or rule)
      local unable = M.retreat(g.units, hexes, g.hex, battles or { g.hex }, rrule, kind)
      short = math.max(short, unable)
    end
    if short > 0 then
      log.rule("11.29", ("%s cannot retreat %d hex%s: taken as steps"):format(side, short, short > 1 and "es" or ""))
      losses.allocate { side = side, n = short, units = units_list, rule = "11.29", prompt = "a hex that cannot be retreated", lose = lose }
    end
  end
  return hexes
end

-- 11.32: after a battle, prepared or mobile, whose attackers retreated: the victorious defenders
-- may occupy a launch hex the attackers left, and no more (12.2: never a 0-3-0 garrison).
function M.open_defenders_advance(attacker, hexes, from_hexes)
  local defender = C.other(attacker)
  local vacated = {}
  for _, h in ipairs(from_hexes) do if #C.combat_at(h, attacker) == 0 then vacated[#vacated + 1] = h end end
  local ids = {}
  for _, u in ipairs(C.combat_in(hexes, defender)) do
    if not C.is_garrison(u) then ids[#ids + 1] = u.id end
  end
  if #vacated == 0 or #ids == 0 then return end
  vars.set("advance", { side = defender, hexes = vacated, max = 1, units = ids, defenders = true })
  log.rule("11.32", ("the attackers have left %s: the defenders (%s) may occupy it (advance <units> <hex>)"):format(
    table.concat(vacated, ","), table.concat(ids, ",")))
end

-- ---------------------------------------------------------------- advance after combat

-- 11.31, 11.32: an open advance after combat lasts until the next command that is not one
-- (movement.lua closes it on a move or a mobile assault; the next prepared assault opens its own).
function M.close_advance() vars.set("advance", nil) end

-- 11.31, 11.32, 10.30, 10.9, 12.2, 7.22: advance after combat.
umpire.command {
  usage = "advance <units> <hex> [<hex>...]",
  help = "advance victorious units after a prepared assault: the first hex is the defenders' vacated hex (11.31); victorious defenders, after a prepared or a mobile assault, may occupy the hex the attackers left (11.32)",
  example = "advance 5TA 3717 3716",
  rule = "11.31", phases = { "assault", "movement" },
  run = function(list, first, rest)
    local adv = vars.get("advance")
    umpire.check(adv ~= nil, "11.31", "no advance after combat is open now (only right after a prepared assault that cleared the defenders' hex, or a battle whose attackers retreated, 11.32)")
    local path = { first }
    for _, h in ipairs(rest or {}) do path[#path + 1] = h end
    umpire.check(C.contains(adv.hexes, first), "11.31", "the first hex of the advance is %s (the hex the enemy left)", table.concat(adv.hexes, " or "))
    local side = adv.side
    local from = list[1].hex
    for _, u in ipairs(list) do
      umpire.check(not C.is_garrison(u), "12.2", "%s is a 0-3-0 garrison: it never leaves its hex", u.id)
      umpire.check(C.contains(adv.units, u.id), "11.31", "%s may not advance (the victors: %s)", u.id, table.concat(adv.units, ","))
      umpire.check(u.hex == from, "11.31", "units advancing together start from one hex")
      local cap = C.is_satellite(u) and T.advance_max.satellite or T.advance_max[C.class(u)]
      if adv.defenders then cap = 1 end
      local allowed = math.min(cap, adv.max)
      umpire.check(#path <= allowed, adv.defenders and "11.32" or "11.31", "%s may advance %d hex%s (%s)", u.id, allowed, allowed == 1 and "" or "es",
        adv.defenders and "victorious defenders only occupy the attackers' hex" or
        (adv.max >= 99 and ("its type's limit: mechanized 4, straight-leg 2, satellites 1") or ("the defenders retreated " .. adv.max .. "; satellites 1, straight-leg 2, mechanized 4")))
    end
    local enemy = C.other(side)
    for i, h in ipairs(path) do
      local prev = i == 1 and from or path[i - 1]
      umpire.check(map.distance(prev, h) == 1, "11.31", "%s is not next to %s", h, prev)
      umpire.check(map.terrain(h) ~= "sea", "10.8", "%s is an all-sea hex", h)
      umpire.check(#C.combat_at(h, enemy) == 0, "11.31", "%s holds enemy units", h)
      local hs = map.hexside(prev, h)
      if C.contains(hs, "sea") then
        umpire.check(C.contains(hs, "kerch") and i == 1, "10.9", "an advance crosses the Kerch Straits only as its first hex, and no other all-sea hexside")
      end
      if C.contains(hs, "volga") and umpire.clock().turn <= T.volga_closed_through then umpire.refuse("10.19", "no crossing of the Volga on turns 1 and 2") end
      if side == C.GERMAN and i > 1 then
        umpire.check(not control.intact_entrenchment(h, C.SOVIET), "10.30", "German/Axis units advance into an intact Soviet entrenchment only as the first hex of the advance (%s)", h)
      end
      for _, u in ipairs(list) do
        umpire.check(not (u:marker("sea_supplied") and not C.COAST[h]), "7.22", "%s is supplied by sea this turn: it advances only into coastal hexes (%s is inland)", u.id, h)
      end
    end
    for _, u in ipairs(list) do u:move_to(path[#path]) end
    local remaining = {}
    for _, id in ipairs(adv.units) do
      if not C.contains(list, units.get(id)) then remaining[#remaining + 1] = id end
    end
    adv.units = remaining
    vars.set("advance", #remaining > 0 and adv or nil)
    log.rule(adv.defenders and "11.32" or "11.31", ("%s advance%s %s → %s (enemy zones of control ignored)"):format(C.list_ids(list), #list > 1 and "" or "s", from, table.concat(path, " → ")))
    movement.entered({ from, table.unpack(path) }, side, list, "advances into")
    air.follow(from, path[#path], side)
    stacking.enforce_hex(path[#path], side, "the end of an advance, 6.6", list)
  end,
}

return M
