-- Red Storm over the Reich 14 and 6.10: overruns in the exploitation movement segments. Supplied,
-- undisrupted mechanized units not short of fuel (9.2.C), together only if they began the
-- segment stacked together, one overrun a unit a phase, never a hex with the Vistula division
-- (17.2.A), only clear or broken target hexes; the launch conditions of 6.10; +1 MP beyond the
-- cost of entering the target; resolved as a combat (resolution.resolve) with the overrunners halved
-- against mechanized defenders and no retreat; cleared, they enter; not, they lose a step more;
-- either way their movement ends (14.2).
--
-- Where each unit began the segment (vars "ov": { key = turn:step, start = { id = hex } }) is
-- noted after every command of an exploitation segment for the units of the moving side that
-- have not moved yet (the `next` that enters the segment notes them all; a unit that has not moved
-- is where it began).
local C = require "common"
local T = require "tables"
local zoc = require "zoc"
local resolution = require "resolution"
local movement = require "movement"
local stacking = require "stacking"
local kg = require "kg"
local losses = require "losses"   -- rulesets/lib
local allowance = require "allowance"

local M = {}

local STEPS = { sov_exploit = true, ger_exploit = true }
local UNIT = 60

-- (clock: umpire.clock(), where the caller has read it)
local function key(clock) local c = clock or umpire.clock(); return c.turn .. ":" .. c.step end

umpire.after_command(function()
  local c = umpire.clock()
  if not STEPS[c.step] or not c.side then return end
  local stored = vars.get("ov")
  local ov = stored
  local k = key(c)
  if not ov or ov.key ~= k then ov = { key = k, start = {} } end
  local changed = false
  for _, u in ipairs(C.on_map(c.side)) do
    if not u:marker("moved") and ov.start[u.id] ~= u.hex then ov.start[u.id] = u.hex; changed = true end
  end
  if changed or stored == nil or stored.key ~= k then vars.set("ov", ov) end
end)

-- Where `u` began this exploitation segment (a unit that has not moved is where it began;
-- known: a list's table of what it found once, here the units' start hexes).
function M.start_hex(u, known)
  if not u:marker("moved") then return u.hex end
  local ov = known and known.ov
  if ov == nil then
    ov = vars.get("ov") or false
    if known then known.ov = ov end
  end
  if ov and known then known.clock = known.clock or umpire.clock() end
  if ov and ov.key == key(known and known.clock) and ov.start[u.id] then return ov.start[u.id] end
  return nil
end

-- 14.1: the overrun marker holds the turn and side of the exploitation phase it was made in.
local function phase_mark(side, clock) return (clock or umpire.clock()).turn * 10 + (side == C.SOVIET and 1 or 2) end

-- 6.10: the enemy ZOC in `hex` cast by enemy units outside `target` (known: what a list of
-- actions finds once for all its checks, the hexes the enemy projects a ZOC from and the zone
-- without each target).
local function other_zoc(hex, target, side, known)
  known = known or {}
  local from = known.zoc_from
  if not from then
    from = {}
    for _, e in ipairs(C.on_map(C.other(side))) do
      if zoc.projects(e) and not C.URBAN[e.hex] and not C.FORTRESS[e.hex] then from[e.hex] = true end
    end
    known.zoc_from = from
  end
  known.other_zoc = known.other_zoc or {}
  local z = known.other_zoc[target]
  if not z then
    local rest = {}
    for h in pairs(from) do if h ~= target then rest[h] = true end end
    z = next(rest) and map.adjacent { from = rest, not_across = zoc.not_across(), not_into = { "urban", "fortress", "sea", "lake", "prohibited" } } or {}
    known.other_zoc[target] = z
  end
  return z[hex] == true
end

-- 14.2: the cost of entering the target hex from `from` (as a move would, the enemy there aside;
-- z: the mover's zones, movement.zones, where the caller has them). 10.7.1.B: a major river is
-- crossed without a bridgehead only from the hex the unit began the segment in (`began_here`).
-- Returns nil and why where it cannot enter.
local function entry_cost(u, from, target, z, began_here)
  -- (one step is priced: the profile of a unit without MP holds the crossings out of `from`)
  local prof, made = movement.profile(u, from, 0, z)
  if not began_here and made.crossing[from .. ">" .. target] == "start" then
    return nil, ("across the major river %s/%s without a bridgehead only from the hex it began the segment in"):format(from, target), "10.7.1.B"
  end
  -- (the profile's blocked set is shared: the target is taken out of it for this search only)
  prof.unblocked = { [target] = true }
  prof.stop = {}
  prof.always_one = false
  prof.mp = nil
  -- (a side_cost naming a hex off the map would be an error of the search: movement.profile's
  -- major-river crossings may hold one, see the report)
  for key_ in pairs(prof.side_cost) do
    local a, b = key_:match("^(%w+)[>/](%w+)$")
    if not (a and b and map.is_hex(a) and map.is_hex(b)) then prof.side_cost[key_] = nil end
  end
  local k = from .. ">" .. target
  if prof.side_cost[k] == "no" and not C.contains(map.hexside(from, target), "major_river") then prof.side_cost[k] = nil end
  local cost, why = map.path_cost(prof, { from, target })
  return cost, why
end

-- 14.1, 14.2, 6.10, 17.1.C, 17.2.A: checks an overrun; returns the defenders, the hex overrun
-- from, the phase mark and whether the overrunners began the segment there.
---@param hex string the target
---@param list Unit[] the overrunners
---@param side string
---@param check function umpire.check, or the checker of C.passes
---@param known? table what a caller checking many overruns found once
---@return Unit[] defenders
---@return string from
---@return integer mark the phase mark (14.1)
---@return boolean began_here
local function check_overrun(hex, list, side, check, known)
  check = check or umpire.check
  local enemy = C.other(side)
  if known then   -- (the map's stacks and the clock, read once a list)
    known.stacks = known.stacks or units.stacks()
    known.clock = known.clock or umpire.clock()
  end
  local defenders = resolution.defenders(hex, enemy, known and (known.stacks[hex] or {}))
  check(#defenders > 0, "14.2", "%s holds no %s unit to overrun", hex, enemy)
  for _, d in ipairs(defenders) do
    check(not d:attr("vistula"), "17.2.A", "%s holds the Vistula division: it may never be overrun (14.1)", hex)
  end
  if side == C.GERMAN then
    check(not (vars.get("usir_closed") and C.USIR[hex]), "17.1.C", "the USIR is being evacuated: no German overrun into a USIR hex this turn")
  end
  local t = map.terrain(hex)
  check(t == "clear" or t == "broken", "14.2", "%s is %s: only units in clear or broken terrain may be overrun", hex, t)
  local from = list[1].hex
  local start
  local mark = phase_mark(side, known and known.clock)
  for _, u in ipairs(list) do
    check(u.side == side and u.hex ~= nil, "14.1", "%s is not a %s unit on the map", u.id, side)
    check(C.is_mech(u), "14.1", "%s is not a mechanized unit: only mechanized units overrun", u.id)
    check(C.supplied(u), "14.1", "%s is out of supply: only supplied units overrun", u.id)
    check(not C.disrupted(u), "14.1", "%s is disrupted: disrupted units do not overrun (12.1)", u.id)
    check(not u:marker("fuel_shortage"), "9.2.C", "%s is short of fuel: it may not overrun", u.id)
    check(not u:marker("entrained"), "10.8.2", "%s is entrained: entrained units may not overrun", u.id)
    check(u:marker("overran") ~= mark, "14.1", "%s has overrun this exploitation phase (one overrun a unit)", u.id)
    check(u.hex == from, "14.1", "the overrunners overrun from one hex: %s is in %s, %s in %s", list[1].id, from, u.id, u.hex)
    local s = M.start_hex(u, known)
    check(s ~= nil, "14.1", "where %s began the exploitation segment is not known", u.id)
    if start == nil then start = s end
    check(s == start, "14.1", "units overrun together only if they began the exploitation phase stacked together: %s began in %s, %s in %s", list[1].id, start, u.id, s)
  end
  check(map.direction(from, hex) ~= nil, "14.2", "%s is not next to %s", from, hex)
  local ok, what = resolution.hexside_open(from, hex)
  check(ok, "14.2", "%s/%s is a %s hexside: no overrun across it", from, hex, what or "?")
  -- 6.10
  local began_here = start == from
  if not began_here then
    check(not other_zoc(from, hex, side, known), "6.10",
      "%s moved into %s, where an enemy ZOC other than %s's is cast: an overrun from there only by units that began the segment in it", C.ids(list), from, hex)
  end
  -- 14.2: +1 MP beyond the cost of entering the target, and they must have it
  for _, u in ipairs(list) do
    local cost, why, rule = entry_cost(u, from, hex, known and known.zones, began_here)
    check(cost ~= nil, rule or "14.2", "%s cannot enter %s from %s (%s)", u.id, hex, from, why or "?")
    local need = cost + 1
    local left = movement.left(u)
    check(need <= left, "14.2", "%s needs %s MP to overrun %s (%s to enter it +1) and has %s", u.id, map.fmt_cost(need), hex, map.fmt_cost(cost), map.fmt_cost(left))
  end
  return defenders, from, mark, began_here
end

-- (the same checks, as a question: would `overrun <hex> with <list>` pass them now? actions.lua;
-- known: a table the list keeps for all its questions, `zones` the side's movement.zones)
function M.may_overrun(hex, list, side, known)
  return C.passes(function(check) check_overrun(hex, list, side, check, known) end)
end

-- 14.2: the verb `overrun`.
---@param hex string
---@param list Unit[]
---@param air_flag? string "air"
---@param air_unit? Unit
---@return string the outcome
function M.overrun(hex, list, air_flag, air_unit)
  local side = umpire.clock().side
  local enemy = C.other(side)
  local defenders, from, mark, began_here = check_overrun(hex, list, side)
  -- the overrunner's tactical air (17.4.C; the German may use Rudel on turn 3, 11.5)
  local air
  if air_flag or air_unit then
    local extra = {}
    if side == C.GERMAN and umpire.clock().turn == T.rudel_turn then
      local r = units.get("RUDEL")
      if r and r.exists and not r.hex and r.box ~= "removed" and not r:marker("used") then extra[1] = r end
    end
    air = resolution.attacker_air(side, hex, air_unit, extra)
  end
  for _, u in ipairs(list) do u:set_marker("overran", mark) end
  -- 17.7: an overrun counts as a Hitler Mandated Attack
  if side == C.GERMAN then
    local div = false
    for _, u in ipairs(list) do if u:attr("division") then div = true end end
    local hma = vars.get("hma")
    if div and hma then
      hma.made = (hma.made or 0) + 1
      vars.set("hma", hma)
      log.rule("17.7", ("an overrun with a division counts as a Hitler Mandated Attack: %d of %d made"):format(hma.made, hma.required or 0))
    end
  end
  log.rule("14.2", ("%s overrun%s %s (%s) from %s%s%s"):format(C.ids(list), #list == 1 and "s" or "", hex, C.ids(defenders), from,
    began_here and " (began the segment there, 6.10)" or " (moved there; only the target's ZOC there, 6.10)",
    air and (", tactical air " .. air.id) or ""))
  local out = resolution.resolve { hex = hex, side = side, attackers = list, air = air, overrun = true }
  local survivors = {}
  for _, u in ipairs(list) do if u.exists and u.hex then survivors[#survivors + 1] = u end end
  if out.cleared and #survivors > 0 then
    for _, u in ipairs(survivors) do u:move_to(hex) end
    movement.entered({ from, hex }, side, survivors)
    log.rule("14.2", ("%s is cleared: %s must enter it"):format(hex, C.ids(survivors)))
    stacking.enforce(side, "the end of an overrun (5.1)")
  elseif #survivors > 0 then
    local texts = {}
    losses.allocate { side = side, n = 1, units = survivors, rule = "14.2", prompt = "the overrun failed: one more step",
      lose = function(v) texts[#texts + 1] = kg.lose_step(v, {}) end }
    log.rule("14.2", ("%s is not cleared: the overrunners lose a step more and stay in %s: %s"):format(hex, from, table.concat(texts, "; ")))
  end
  for _, u in ipairs(list) do
    if u.exists and u.hex then
      u:set_marker("moved", 1)
      local mp = allowance.allowance(u) or 0
      u:set_marker("mp_used", math.tointeger(math.ceil(mp * UNIT)))
    end
  end
  log.rule("14.2", "the overrunners' movement ends for this segment")
  return out.outcome
end

umpire.command {
  usage = "overrun <hex> with <units> [air] [<unit>]",
  help = "overrun an enemy hex in clear or broken terrain from the adjacent hex with mechanized units that began the segment stacked together (+1 MP beyond the cost of entering it)",
  example = "overrun 4428 with 1T,8M",
  rule = "14.2", phases = { "sov_exploit", "ger_exploit" }, odds = true,
  run = function(hex, list, air, unit) return M.overrun(hex, list, air, unit) end,
}

return M
