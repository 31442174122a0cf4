-- Red Storm over the Reich 10.4-10.7, 10.8.3-10.8.5, 6.6-6.8, 6.11, 17.3.A: movement. Unit by
-- unit, once a segment (10.4.A), at the costs of the Terrain Effects Chart by weather (10.5),
-- stopping on entering an enemy ZOC and never from one enemy ZOC straight into another except
-- mechanized infiltration (6.6, 6.7), one-hex movement (10.4.B), the Soviet major-river crossings
-- in Mud and Clear (10.7.1), roving cauldrons (6.8), refugees (6.11, 10.8.3), Zhukov (17.3.A) and
-- the German reaction (10.8.5).
local C = require "common"
local T = require "tables"
local zoc = require "zoc"
local allowance = require "allowance"
local control = require "control"
local stacking = require "stacking"
local barrage = require "barrage"
local checks = require "checks"   -- rulesets/lib

local M = {}

local UNIT = 60   -- MP used are kept in the unit marker `mp_used` in 1/60ths

-- 10.5, 10.7.2, 10.3.C, 10.8.3: the column of the TEC a unit moves on (mechanized units, the
-- guard cavalry and artillery move as mechanized).
local MOVES_AS_MECH = { mech = true, cavalry = true, artillery = true }
function M.class(u)
  if MOVES_AS_MECH[u.kind] then return "mech" end
  if u:attr("jaeger") then return "jaeger" end
  return "inf"
end

-- MP left to the unit in this segment (mp: its allowance, allowance.allowance, where the caller
-- has it).
function M.left(u, mp)
  mp = mp or allowance.allowance(u)
  if not mp then return 0 end
  return math.max(0, mp - (u:marker("mp_used") or 0) / UNIT)
end

-- 10.7.1.A: a bridgehead counts while a supplied, undisrupted Soviet combat unit holds its hex.
function M.held_bridgehead(h)
  if map.marker(h, "bridgehead") ~= 1 then return false end
  for _, u in ipairs(C.combat_at(h, C.SOVIET)) do
    if C.supplied(u) and not C.disrupted(u) then return true end
  end
  return false
end

-- 10.7.1.C: the hexes within 10 of a supplied German combat unit (a major river into any other
-- hex is a minor one for the Soviet).
local function near_germans()
  local from = units.hexset { side = C.GERMAN, kind = C.COMBAT_KINDS, on_map = true, unmarked = "oos" }
  if #from == 0 then return {} end
  return map.reach { from = from, mp = T.behind_lines, routes = false }
end

-- (every crossing of a major river, both ways: the hex left, the hex entered, its side_cost key;
-- and those out of each hex)
local CROSSINGS, OUT_OF = {}, {}
for _, s in ipairs(C.MAJOR_RIVER) do
  CROSSINGS[#CROSSINGS + 1] = { s[1], s[2], s[1] .. ">" .. s[2] }
  CROSSINGS[#CROSSINGS + 1] = { s[2], s[1], s[2] .. ">" .. s[1] }
end
for _, c in ipairs(CROSSINGS) do
  OUT_OF[c[1]] = OUT_OF[c[1]] or {}
  OUT_OF[c[1]][#OUT_OF[c[1]] + 1] = c
end
local BANKS = map.hexset(OUT_OF)   -- (the hexes a crossing leaves, for map.within)
local NONE = {}

-- 10.7.1: what the Soviet crossings of major rivers in Mud and Clear cost whatever hex a move
-- starts from: into a held bridgehead (terrain +1, may go on), behind the lines (a minor river);
-- the others only from the start hex (terrain +1, then stop), kept by that hex. (Worked out once
-- for a set of zones `z` and kept in it, hex by hex as searches come near: `M.out_of`.)
local function crossings_base(weather, near)
  local held = {}
  for h in pairs(map.marked("bridgehead")) do
    if M.held_bridgehead(h) then held[h] = true end
  end
  return { minor = T.hexside_cost[weather].minor_river, near = near, held = held,
           cost = {}, kind = {}, out_of = {}, starts = {}, within = {} }
end

-- The crossings out of `a` priced in `base` (behind the lines, into a held bridgehead): their
-- keys; those only from the start hex go to base.starts[a].
local function out_of(base, a)
  local keys = base.out_of[a]
  if keys then return keys end
  keys = {}
  for _, c in ipairs(OUT_OF[a] or NONE) do
    local b, key = c[2], c[3]
    if not base.near[b] then
      keys[#keys + 1] = key
      base.cost[key], base.kind[key] = base.minor, "behind"
    elseif base.held[b] then
      keys[#keys + 1] = key
      base.cost[key], base.kind[key] = T.soviet_major_river, "bridgehead"
    else
      base.starts[a] = base.starts[a] or {}
      base.starts[a][#base.starts[a] + 1] = key
    end
  end
  base.out_of[a] = keys
  return keys
end

-- The lists of keys of the behind-the-lines and bridgehead crossings a search from `from` with
-- `mp` may use: all of them for a search without a limit. (Every step costs 1 MP or more: a
-- search reaches no bank farther than mp hexes. A bank reached with every MP spent is kept
-- too: a move spelled across the river from there is refused for the MP it lacks, 10.4, not
-- as a crossing 10.7.1.B forbids.) (kept in `base` by hex and distance: the units of a stack
-- share them)
local function crossings_within(base, from, mp)
  local r = mp and mp ~= math.huge and math.floor(mp) or math.huge
  if r > 200 then   -- (map.within's limit: the whole map anyway)
    if not base.all then
      local seen = {}
      base.all = {}
      for _, c in ipairs(CROSSINGS) do
        if not seen[c[1]] then seen[c[1]] = true; base.all[#base.all + 1] = out_of(base, c[1]) end
      end
    end
    return base.all
  end
  local key = from .. "/" .. r
  if base.within[key] then return base.within[key] end
  local out = { out_of(base, from) }
  if r >= 1 then
    for _, h in ipairs(map.within(from, r, BANKS)) do
      if h ~= from then out[#out + 1] = out_of(base, h) end
    end
  end
  base.within[key] = out
  return out
end

-- 10.7.1: the Soviet crossings of major rivers in Mud and Clear for a move from `from`: into a
-- held bridgehead (terrain +1, may go on), from the start hex without one (terrain +1, then stop;
-- never in the breakthrough), behind the lines (a minor river). Adds them to `side_cost`.
local function soviet_crossings(from, mp, weather, seg, side_cost, crossing, near, z)
  local base = z and z.crossings
  if not base then
    base = crossings_base(weather, near)
    if z then z.crossings = base end
  end
  local cost, kind = base.cost, base.kind
  for _, keys in ipairs(crossings_within(base, from, mp)) do
    for _, key in ipairs(keys) do
      side_cost[key], crossing[key] = cost[key], kind[key]
    end
  end
  if seg ~= "breakthrough" then
    out_of(base, from)
    for _, key in ipairs(base.starts[from] or NONE) do
      side_cost[key] = { cost = T.soviet_major_river, stop = true }
      crossing[key] = "start"
    end
  end
end

-- The ZOC sets a move of `side` respects.
function M.zones(side)
  local weather = C.weather()
  local all, strong = zoc.zocs(C.other(side), weather)
  local refugee = side == C.GERMAN and zoc.refugee_zoc(weather) or {}
  -- 10.7.1.C: where the Soviet crosses major rivers behind the lines (Mud and Clear)
  local near = side == C.SOVIET and weather ~= "frost" and near_germans() or nil
  local enemy_hexes, blocking = units.hexset { side = C.other(side), on_map = true }, C.stopping_hexes(side)
  return { all = all, strong = strong, refugee = refugee, weather = weather, near = near, enemy_hexes = enemy_hexes,
    blocking = blocking, seg = allowance.segment() }
end

-- The movement profile of `u` from `from` with `mp`: the table map.route takes, and what went
-- into it (opts.rove: the roving-cauldron profile of 6.8).
local NO_OPTS = {}
function M.profile(u, from, mp, z, opts)
  opts = opts or NO_OPTS
  z = z or M.zones(u.side)
  local weather = z.weather
  local seg = z.seg
  local class = M.class(u)
  -- (the cost and blocked tables are the same for every unit of a class moving with these
  -- zones: made once, kept in `z`, the hex sets as hexsets; no caller changes them, overrun.lua
  -- takes its target out with `unblocked`)
  z.shared = z.shared or {}
  local soviet_rivers = u.side == C.SOVIET and weather ~= "frost"
  local key = tostring(class) .. (soviet_rivers and "/rivers" or "")
  local costs = z.shared[key]
  if not costs then
    local terrain = {}
    for k, v in pairs(T.move_cost[class][weather]) do terrain[k] = v end
    for k in pairs(T.prohibited_terrain) do terrain[k] = "no" end
    local hexsides = {}
    for k, v in pairs(T.hexside_cost[weather]) do hexsides[k] = v end
    if soviet_rivers then hexsides.major_river = "no" end
    costs = { terrain = terrain, hexsides = hexsides }
    z.shared[key] = costs
  end
  local terrain, hexsides = costs.terrain, costs.hexsides
  local usir = u.side == C.GERMAN and vars.get("usir_closed") and not C.USIR[from]
  local bkey = "blocked" .. (C.is_flak(u) and "/flak" or "") .. (usir and "/usir" or "")
  local blocked = z.shared[bkey]
  if not blocked then
    blocked = { z.blocking }                                                -- no entering enemy units
                                                                            -- (but refugees, 6.11, 10.8.1.C)
    if C.is_flak(u) then blocked[#blocked + 1] = C.URBAN end                -- 8.1.3, 17.2.C
    if usir then blocked[#blocked + 1] = C.USIR end                         -- 17.1.C: no entering (those
                                                                            -- inside may cross it to leave)
    blocked = map.hexset(blocked)                                          -- (read once for every search)
    z.shared[bkey] = blocked
  end
  local side_cost, crossing = {}, {}
  if soviet_rivers then
    soviet_crossings(from, mp, weather, seg, side_cost, crossing, z.near or near_germans(), z)
  end
  -- (the set is the same for every unit moving with these zones: built once, kept in `z`)
  local stop = not opts.rove and z.stop or nil
  if not stop then
    stop = map.hexset(opts.rove and { z.refugee } or { z.all, z.refugee })   -- 6.6, 6.11
    if not opts.rove then z.stop = stop end
  end
  -- 6.6, 6.7: from an enemy ZOC never straight into another, but a mechanized unit infiltrates
  -- from an infantry-only ZOC into another (not in the breakthrough, not disrupted, not in a
  -- refugee's ZOC).
  local infiltrates = {}
  if z.all[from] and not opts.rove then
    local may = C.is_mech(u) and not z.strong[from] and seg ~= "breakthrough" and not C.disrupted(u)
      and not z.refugee[from]
    for _, n in ipairs(map.neighbours(from)) do
      if z.all[n] then
        if may and not z.strong[n] and not z.refugee[n] then
          infiltrates[n] = true
        else
          side_cost[from .. ">" .. n] = "no"
        end
      end
    end
  end
  local prof = {
    from = from, mp = mp, terrain = terrain, hexsides = hexsides, blocked = blocked, stop = stop,
    side_cost = side_cost, always_one = mp >= 1,                           -- 10.4.B
  }
  if C.is_leader(u) then                                                 -- 17.3.A: 1 MP a hex
    prof.terrain = { sea = "no", lake = "no", prohibited = "no" }
    prof.default = 1
    prof.hexsides = { sea = "no", haff = weather == "frost" and 0 or "no", lake = weather == "frost" and 0 or "no" }
  end
  if opts.rove then prof.directions = T.compass.German end               -- 6.8
  return prof, { crossing = crossing, infiltrates = infiltrates, zones = z }
end

-- 10.4.A, 16.2, 10.8.3: may `u` move now at all?
local function check_mover(u, side, seg, check, known)
  check = check or umpire.check
  check(u.side == side, "10.4", "%s belongs to the %s; only %s units move now", u.id, u.side, side)
  check(u.hex ~= nil, "10.4", "%s is not on the map", u.id)
  check(not C.is_garrison(u), "16.2", "%s is a garrison: garrisons never move", u.id)
  check(C.is_combat(u) or C.is_artillery(u) or C.is_flak(u) or C.is_leader(u) or C.is_refugee(u), "10.4",
    "%s does not move on the map (%s)", u.id, u.kind)
  check(not u:marker("moved"), "10.4.A", "%s has moved this segment: a unit moves once a segment", u.id)
  check(not u:marker("immobile"), "2.2.D", "%s is Immobile: it may not move this %s", u.id,
    u.side == C.SOVIET and "segment (10.4.B, 10.7.1.B)" or "Assault Phase (10.8.1.B)")
  check(not u:marker("entrained"), "10.8.2", "%s is entrained: it moves by rail only (rail %s <hex>)", u.id, u.id)
  if C.is_refugee(u) then
    check(seg == "assault" and side == C.GERMAN, "10.8.3", "refugees move only in the German Assault Movement Segment")
  end
  if seg == "reaction" then
    check(C.is_mech(u), "10.8.5", "only mechanized units make the reaction movement")
    check(C.supplied(u), "10.8.5", "%s is out of supply: no reaction movement", u.id)
    check(not C.disrupted(u), "12.1", "%s is disrupted: no reaction movement", u.id)
    check(not u:marker("fuel_shortage"), "9.2.C", "%s is short of fuel: no reaction movement", u.id)
    local soviet_zoc = known and known.soviet_zoc or zoc.zoc(C.SOVIET)
    if known then known.soviet_zoc = soviet_zoc end
    check(not soviet_zoc[u.hex], "10.8.5", "%s is in a Soviet ZOC: no reaction movement", u.id)
  end
  if C.is_cavalry(u) and side == C.SOVIET and (seg == "assault" or seg == "breakthrough") then
    local when = vars.get("cavalry_moved")
    check(when == nil or when == seg, "10.3.B.2",
      "the guard cavalry moved in the %s: all of it moves in one of the assault and breakthrough segments, not both", when)
  end
  if side == C.SOVIET and map.marker(u.hex, "bridgehead") == 1 and C.is_combat(u) and C.supplied(u) and not C.disrupted(u) then
    local holders = 0
    for _, v in ipairs(C.combat_at(u.hex, C.SOVIET)) do
      if C.supplied(v) and not C.disrupted(v) then holders = holders + 1 end
    end
    check(holders > 1, "10.7.1.A.3", "%s holds the bridgehead in %s: it stays the whole segment (remove the bridgehead first: bridgehead remove %s)", u.id, u.hex, u.hex)
  end
end

-- (the same checks, as a question: may `u` move now? actions.lua; known: a table the list keeps
-- for all its questions)
function M.may_move(u, side, seg, known)
  return C.passes(function(check) check_mover(u, side, seg, check, known) end)
end

-- Why `u` may not move now, for `moves` (nil when it may): not a movement segment, no allowance
-- in this one (10.6.A...), or the first of the move verb's checks that refuses it, with its rule.
function M.why_not_move(u)
  local clock = umpire.clock()
  local seg = allowance.segment()
  if not seg then return "4.2", ("units move in the movement segments, not in %s"):format(clock.phase) end
  local rule, why = checks.first_failure(function(check) check_mover(u, clock.side, seg, check, {}) end)
  if rule then return rule, why end
  local mp, mp_rule, reason = allowance.allowance(u, seg)
  if mp == nil then return mp_rule, reason end
  return nil
end

-- Why no unit of `u`'s kind may enter `to` at all now (nil: it may): closed terrain, enemy units,
-- the USIR's closure, flak and urban hexes.
local function why_closed(u, to, prof, info)
  -- 10.7.3 (reading R1): the shaded area between Krakow and Tarnow is closed to every unit
  if map.terrain(to) == "prohibited" then return "10.7.3", to .. " lies in the prohibited area between Krakow and Tarnow: no unit enters it" end
  if C.PROHIBITED[to] then return "10.4.B", to .. " is prohibited terrain (" .. map.terrain(to) .. ")" end
  -- 10.5.1, 9.1.A: terrain the Terrain Effects Chart closes to this unit in this weather
  if prof.terrain[map.terrain(to)] == "no" then
    return "9.1.A", ("%s is %s: closed to %s units in %s (Terrain Effects Chart)"):format(to, map.terrain(to),
      M.class(u) == "mech" and "mechanized" or M.class(u), info.zones.weather)
  end
  if prof.blocked[to] then
    if #C.at(to, C.other(u.side)) > 0 then return "10.4", to .. " holds enemy units" end
    if C.is_flak(u) then return "17.2.C", "flak units never enter urban hexes" end
    return "17.1.C", "the USIR is being evacuated: German units may not enter it this turn"
  end
  return nil
end

-- 10.7.1.B: the text of a Soviet crossing of the major river `a`/`b` refused in Mud or Clear.
local function crossing_text(a, b, weather)
  return ("crossing the major river %s/%s in %s: only into a held bridgehead, or from the hex the unit began the segment in (not in the breakthrough)"):format(a, b, weather)
end

-- Why the step `from` → `to` (next to each other) cannot be made (nil: the step is not the reason):
-- ZOC to ZOC (6.6), a major river (10.7.1.B), a water hexside (10.5.2).
local function why_step(u, from, to, prof, info)
  local side = map.hexside(from, to)
  if prof.side_cost[from .. ">" .. to] == "no" then   -- (the profile's only "no" steps: 6.6)
    return "6.6", ("%s starts in an enemy ZOC and %s is in one too: no moving from ZOC to ZOC%s"):format(u.id, to,
      C.is_mech(u) and " (infiltration only from an infantry-only ZOC into another, not in the breakthrough, 6.7)" or "")
  end
  if C.contains(side, "major_river") and u.side == C.SOVIET and info.zones.weather ~= "frost" then
    return "10.7.1.B", crossing_text(from, to, info.zones.weather)
  end
  for _, w in ipairs { "sea", "lake", "haff" } do
    if C.contains(side, w) then return "10.5.2", ("%s/%s is a %s hexside: closed except %s"):format(from, to, w, w == "sea" and "never" or "in Frost") end
  end
  return nil
end

-- 6.6, 6.11: why movement stops on entering `hex` (an enemy ZOC, a refugee's zone).
local function why_stop(hex, info)
  if info.zones.refugee[hex] then return "6.11", ("%s is in a refugee's ZOC: German units stop on entering it"):format(hex) end
  if info.zones.all[hex] then return "6.6", ("%s is in an enemy ZOC: movement stops on entering it"):format(hex) end
  return "10.7.1.B", ("crossing the major river into %s from the starting hex ends the move"):format(hex)
end

-- A copy of the profile `prof` with `changes` made (nil removes a field).
local function varied(prof, changes)
  local out = {}
  for k, v in pairs(prof) do out[k] = v end
  for k, v in pairs(changes) do out[k] = v ~= false and v or nil end
  return out
end

-- 10.7.1.B: the profile of `prof` with every Soviet major-river crossing open at its cost, as if
-- 10.7.1 did not restrict it (what would a move cost were the crossing allowed?).
local function rivers_open(prof)
  local hexsides = {}
  for k, v in pairs(prof.hexsides) do hexsides[k] = v end
  hexsides.major_river = T.soviet_major_river
  local side_cost = {}
  for k, v in pairs(prof.side_cost) do
    local a, b = k:match("^(%w+)>(%w+)$")
    if not (a and C.contains(map.hexside(a, b), "major_river")) then side_cost[k] = v end
  end
  return varied(prof, { hexsides = hexsides, side_cost = side_cost })
end

-- The first major-river hexside `path` crosses: a, b.
local function first_crossing(path)
  for i = 2, #path do
    if C.contains(map.hexside(path[i - 1], path[i]), "major_river") then return path[i - 1], path[i] end
  end
  return nil
end

-- Why `to` cannot be reached by `u` (after the route search failed): the hex itself, the step
-- into it, then what the unit's MP would reach were a rule lifted — the major-river crossing
-- (10.7.1.B), the stops in ZOCs (6.6, 6.11) — and only then the MP it lacks (10.4).
local function why_not(u, from, to, prof, info, left)
  local rule, text = why_closed(u, to, prof, info)
  if rule then return rule, text end
  if map.direction(from, to) then
    rule, text = why_step(u, from, to, prof, info)
    if rule then return rule, text end
  end
  if u.side == C.SOVIET and info.zones.weather ~= "frost" then
    local cost, path = map.route(rivers_open(prof), to)
    local a, b = first_crossing(cost and path or {})
    if a then return "10.7.1.B", ("%s cannot reach %s with its %s MP without %s"):format(u.id, to, map.fmt_cost(left), crossing_text(a, b, info.zones.weather)) end
  end
  -- (the first hex where a route of `p` to `to` would have to stop: rule, text)
  local function stopped(p, within)
    local cost, path = map.route(varied(p, { stop = false }), to)
    for i = 2, cost and #path - 1 or 0 do
      if prof.stop[path[i]] then
        local r, why = why_stop(path[i], info)
        return r, ("%s cannot reach %s%s without stopping on the way: %s"):format(u.id, to, within, why)
      end
    end
    return nil
  end
  rule, text = stopped(prof, (" with its %s MP"):format(map.fmt_cost(left)))
  if rule then return rule, text end
  -- (the profile without a limit holds every crossing the unit may make: M.profile's side_cost
  -- keeps only those within its allowance)
  local free = varied(M.profile(u, from, math.huge, info.zones), { mp = false, always_one = false })
  local cost, path = map.route(free, to)
  if cost then
    return "10.4", ("%s needs %s MP by the cheapest path (%s) and has %s MP"):format(u.id, map.fmt_cost(cost), table.concat(path, " → "), map.fmt_cost(left))
  end
  rule, text = stopped(free, "")
  if rule then return rule, text end
  return "10.4", ("%s cannot reach %s (enemy units, prohibited terrain or closed hexsides in the way)"):format(u.id, to)
end

-- Why the path `path` cannot be followed (map.path_cost's `why` at the hex `path[at]`): the rule
-- of that hex or step.
local function why_path(u, path, prof, info, why, at)
  local a, b = path[at - 1], path[at]
  if why:find("cannot be entered from", 1, true) then
    local rule, text = why_closed(u, b, prof, info)
    if not rule then rule, text = why_step(u, a, b, prof, info) end
    if rule then return rule, ("%s: %s"):format(u.id, text) end
  elseif why:find("the move must end in", 1, true) then
    local rule, text = why_stop(a, info)
    return rule, ("%s: the move must end in %s: %s"):format(u.id, a, text)
  end
  return "10.4", ("%s: %s"):format(u.id, why)
end

-- The path and cost of a move of `u` to `to` (or along from, to, via...). Returns path, cost,
-- info, roving.
local function plan(u, to, via, z)
  local from = u.hex
  local left = M.left(u)
  local prof, info = M.profile(u, from, left, z)
  local function follow(p)
    local path = { from, to }
    for _, h in ipairs(via) do path[#path + 1] = h end
    local cost, why, at = map.path_cost(p, path)
    return path, cost, why, at
  end
  local path, cost
  if via and #via > 0 then
    local why, at
    path, cost, why, at = follow(prof)
    if not cost then
      -- 6.8: an out-of-supply German unit may try the roving cauldron's compass
      if u.side == C.GERMAN and u:marker("oos") then
        local rp, ri = M.profile(u, from, left, z, { rove = true })
        local p2, c2 = follow(rp)
        if c2 then return p2, c2, ri, true end
      end
      umpire.refuse(why_path(u, path, prof, info, why, at))
    end
    return path, cost, info, false
  end
  cost, path = map.route(prof, to)
  if cost then return path, cost, info, false end
  if u.side == C.GERMAN and u:marker("oos") then
    local rp, ri = M.profile(u, from, left, z, { rove = true })
    local c2, p2 = map.route(rp, to)
    if c2 then return p2, c2, ri, true end
  end
  umpire.refuse(why_not(u, from, to, prof, info, left))
end

-- 6.8, 17.3.A: where a move may not end.
local function adjacent_enemy(hex, side)
  for _, n in ipairs(map.neighbours(hex)) do
    if #C.at(n, C.other(side)) > 0 then return n end
  end
  return nil
end

-- 10.8.5: distance from `hex` to the nearest Soviet unit.
local function soviet_distance(hex)
  local from = {}
  for _, u in ipairs(C.on_map(C.SOVIET)) do from[u.hex] = true end
  if not next(from) then return math.huge end
  local d = map.reach { from = from, targets = { hex }, routes = false }
  return d[hex] or math.huge
end

-- Effects of units of `side` entering the hexes of `path` after its start (control and what
-- passing through a hex does: control.passed).
function M.entered(path, side, list)
  local hexes = {}
  for i = 2, #path do hexes[#hexes + 1] = path[i] end
  control.passed(hexes, side, list)
  if side == C.SOVIET and not allowance.zossen_lost() then
    for _, h in ipairs(hexes) do
      if h == T.zossen then
        vars.set("zossen_lost", true)
        log.rule("17.6", "a Soviet unit occupies Zossen: the German rolled MPs are 1 lower for the rest of the game; no more Hitler Mandated Attacks (17.7)")
      end
    end
  end
end

-- The MPs of a move for its log line, as `show` counts them (the mp_used marker): what the path
-- cost, what the unit is deemed to spend (10.6.A: the MPs declared for the assault) and what
-- it leaves unused: a unit moves once a segment (10.4.A), so the rest is not used in this one.
local function spent_text(u, cost, mp, spent)
  local left = M.left(u)
  local text
  if spent > cost then
    text = ("%s MP for the path; %s of %s spent: the %s declared for the assault, 10.6.A"):format(
      map.fmt_cost(cost), map.fmt_cost(spent), map.fmt_cost(mp), map.fmt_cost(vars.get("declared") or 0))
  else
    text = ("%s MP of %s spent"):format(map.fmt_cost(cost), map.fmt_cost(mp))
  end
  if left > 0 then
    text = text .. ("; %s left unused: a unit moves once a segment, 10.4.A"):format(map.fmt_cost(left))
  end
  return text
end

-- 10.4.B: a move of one hex that costs more than the MPs left: one-hex movement (with an
-- allowance of 1 or more; not across a major river from the starting hex, 10.7.1.B; not in the
-- Soviet breakthrough). A route that used it is priced at the allowance: the step itself is
-- priced here. Returns whether it is one-hex movement, and the cost of the move.
---@param u Unit
---@param path string[] the hexes of the move, its start first
---@param cost number what the route cost
---@param mp number the unit's allowance
---@param left number its MPs left
---@param info table what plan found (crossing, zones)
---@param side string
---@param seg string the segment (allowance.segment)
---@param z table the zones (M.zones)
---@param notes string[] the notes of the move's log line (appended to)
---@return boolean one_hex
---@return number cost
local function one_hex_movement(u, path, cost, mp, left, info, side, seg, z, notes)
  local from, dest = u.hex, path[#path]   -- (it has not moved yet)
  -- (a route that used one-hex movement is priced at the allowance: price the step itself)
  local one_hex = false
  if #path == 2 then
    local free = M.profile(u, from, left, z)
    free.mp = nil
    free.always_one = nil
    local real = map.path_cost(free, path)
    if real and real > left then one_hex, cost = true, real end
  end
  if one_hex then
    -- 10.4.B: one hex whatever its cost, with an allowance of 1 or more
    umpire.check(mp >= 1 and #path == 2, "10.4.B", "%s has %s MP left: not enough for %s", u.id, map.fmt_cost(left), dest)
    if info.crossing[from .. ">" .. dest] == "start" then
      umpire.refuse("10.7.1.B", ("crossing the major river into %s costs %s MP, more than %s's %s MP (no one-hex crossing of a major river in %s)"):format(
        dest, map.fmt_cost(cost), u.id, map.fmt_cost(left), info.zones.weather))
    end
    umpire.check(not (side == C.SOVIET and seg == "breakthrough"), "10.4.B", "no Soviet unit uses one-hex movement in the breakthrough")
    notes[#notes + 1] = "one-hex movement (10.4.B)"
  end
  return one_hex, cost
end

-- 6.8, 17.3.A, 10.8.5, 10.8.3: where the move may not end: a roving cauldron next to a Soviet
-- unit, Zhukov next to an enemy unit without a friendly combat unit, a reacting unit not nearer
-- the Soviet, a refugee on another.
---@param u Unit
---@param from string
---@param dest string
---@param side string
---@param seg string the segment (allowance.segment)
---@param roving boolean whether it moves as a roving cauldron (6.8)
---@param notes string[] the notes of the move's log line (appended to)
local function check_end_hex(u, from, dest, side, seg, roving, notes)
  if roving then
    local adj = adjacent_enemy(dest, side)
    umpire.check(not adj, "6.8", "%s moves as a roving cauldron (out of supply, across Soviet ZOCs along the Retreat Compass %s) and may not end next to a Soviet unit (%s)",
      u.id, table.concat(T.compass.German, "/"), adj)
    notes[#notes + 1] = ("a roving cauldron: Soviet ZOCs ignored along the Retreat Compass %s (6.8)"):format(table.concat(T.compass.German, "/"))
  end
  if C.is_leader(u) then
    local adj = adjacent_enemy(dest, side)
    if adj then
      umpire.check(#C.combat_at(dest, side) > 0, "17.3.A", "Zhukov may not end his move next to an enemy unit (%s) unless stacked with a friendly combat unit", adj)
    end
  end
  if seg == "reaction" then
    local before = soviet_distance(from)
    local after = soviet_distance(dest)
    umpire.check(after <= 1 or after < before, "10.8.5",
      "a reacting unit ends next to a Soviet unit or nearer to the nearest one: %s is %d from it, %s would be %d", from, before, dest, after)
  end
  if C.is_refugee(u) then
    for _, r in ipairs(C.at(dest, C.GERMAN, C.is_refugee)) do
      umpire.refuse("10.8.3", ("only one refugee unit in a hex: %s is there"):format(r.id))
    end
  end
end

-- 10.7.1, 6.6, 6.7, 6.11: what the crossings of major rivers did, and the zones of control the
-- move entered. Returns whether a crossing from the starting hex stops the unit (10.7.1.B).
---@param path string[] the hexes of the move, its start first
---@param info table what plan found (crossing, infiltrates, zones)
---@param roving boolean whether it moves as a roving cauldron (6.8)
---@param notes string[] the notes of the move's log line (appended to)
---@return boolean stop_now
local function crossing_notes(path, info, roving, notes)
  local dest = path[#path]
  -- what the crossings did (10.7.1)
  local stop_now = false
  for i = 2, #path do
    local k = path[i - 1] .. ">" .. path[i]
    local how = info.crossing[k]
    if how == "start" and C.contains(map.hexside(path[i - 1], path[i]), "major_river") then
      stop_now = true
      notes[#notes + 1] = ("crosses the major river into %s from its starting hex and stops (10.7.1.B)"):format(path[i])
    elseif how == "bridgehead" then
      notes[#notes + 1] = ("crosses the major river into the bridgehead %s (+%d, 10.7.1.A.3)"):format(path[i], T.soviet_major_river)
    elseif how == "behind" then
      notes[#notes + 1] = ("crosses the major river behind the lines into %s: a minor river (10.7.1.C)"):format(path[i])
    end
  end
  if info.infiltrates[dest] and #path == 2 then
    notes[#notes + 1] = "infiltrates from an infantry-only ZOC into another (6.7)"
  end
  if info.zones.all[dest] and not roving then notes[#notes + 1] = "enters an enemy ZOC and stops (6.6)" end
  if info.zones.refugee[dest] then notes[#notes + 1] = "enters a refugee ZOC and stops (6.11)" end
  return stop_now
end

-- 10.4.A, 10.6.A, 10.6.C, 10.3.B.2: the unit has moved: the MPs it spent (one-hex movement all
-- that was left; a Soviet unit in the assault at least the MPs declared), Immobile after one-hex
-- movement or a crossing that stopped it in the Soviet assault, the guard cavalry's segment.
-- Returns the MPs spent.
---@param u Unit
---@param side string
---@param seg string the segment (allowance.segment)
---@param one_hex boolean
---@param stop_now boolean
---@param cost number
---@param left number the MPs it had left
---@param notes string[] the notes of the move's log line (appended to)
---@return number spent
local function spend(u, side, seg, one_hex, stop_now, cost, left, notes)
  local spent = one_hex and math.max(left, 0) or cost
  if side == C.SOVIET and seg == "assault" and allowance.class(u) then
    spent = math.max(spent, vars.get("declared") or 0)   -- 10.6.A: deemed to spend the declared MPs
  end
  u:set_marker("mp_used", (u:marker("mp_used") or 0) + math.tointeger(math.ceil(spent * UNIT)))
  u:set_marker("moved", 1)
  if side == C.SOVIET and seg == "assault" and (one_hex or stop_now) then
    u:set_marker("immobile", 1)
    notes[#notes + 1] = "Immobile: it does not move in the breakthrough"
  end
  if C.is_cavalry(u) and side == C.SOVIET and (seg == "assault" or seg == "breakthrough") then
    vars.set("cavalry_moved", seg)
  end
  return spent
end

-- 10.4: one unit's move: the checks of the mover and of its path, the move, its log line, then
-- what ending it there does (5.1, control, disruption spreading, 12.0).
---@param u Unit
---@param to string
---@param via string[]? the hexes given (the last is where it stops)
---@param side string
---@param seg string the segment (allowance.segment)
---@param z table the zones (M.zones)
local function move_one(u, to, via, side, seg, z)
  check_mover(u, side, seg)
  umpire.check(u.hex ~= to, "10.4", "%s is already in %s", u.id, to)
  local mp, why, reason = allowance.allowance(u)
  if mp == nil then umpire.refuse(why, reason) end
  local from = u.hex
  local path, cost, info, roving = plan(u, to, via, z)
  local dest = path[#path]
  local notes = {}
  local left = M.left(u)
  local one_hex
  one_hex, cost = one_hex_movement(u, path, cost, mp, left, info, side, seg, z, notes)
  check_end_hex(u, from, dest, side, seg, roving, notes)
  local stop_now = crossing_notes(path, info, roving, notes)
  u:move_to(dest)
  local spent = spend(u, side, seg, one_hex, stop_now, cost, left, notes)
  log.rule("10.4", ("%s %s → %s (%s)%s"):format(u.id, from, table.concat(path, " → ", 2),
    one_hex and ("%s MP of %s"):format(map.fmt_cost(cost), map.fmt_cost(mp)) or spent_text(u, cost, mp, spent),
    #notes > 0 and (": " .. table.concat(notes, "; ")) or ""))
  -- 5.1, 5.3: an overstack is legal until the end of the segment: the player is told at the move
  local over = stacking.warning(dest, side, seg == "reaction" and "the end of the reaction movement"
    or ("the end of the %s movement segment"):format(seg))
  if over then log.rule("5.1", over) end
  M.entered(path, side, { u })
  barrage.joined(u)
end

umpire.command {
  usage = "move <units> <hex> [<hex>...]",
  help = "move units to a hex by the cheapest path, or along the hexes given (the last is where they stop); each unit moves once a segment",
  example = "move 10GT 5241      move 31T 5142 5143",
  rule = "10.4",
  phases = { "sov_assault", "sov_breakthrough", "ger_reaction", "ger_assault", "sov_exploit", "ger_exploit", "sov_redeploy", "ger_redeploy" },
  run = function(list, to, via)
    local side = umpire.clock().side
    local seg = allowance.segment()
    local z = M.zones(side)
    for _, u in ipairs(list) do move_one(u, to, via, side, seg, z) end
  end,
}

-- 10.7.1.A.1: a bridgehead marker is placed at the end of a Soviet breakthrough, exploitation or
-- redeployment segment (marker `bridgehead` 2 until then, 1 once in force) in a hex next to a major
-- river holding a supplied, undisrupted Soviet combat unit; at most 7 on the map. The Soviet may take
-- one off at any time (10.7.1.A.2).
local function next_to_major_river(h)
  for _, n in ipairs(map.neighbours(h)) do
    if C.contains(map.hexside(h, n), "major_river") then return true end
  end
  return C.MAJOR_RIVER_EDGE[h] == true   -- (a hexside along the map's edge)
end
M.next_to_major_river = next_to_major_river

-- 10.7.1.A.1: why the Soviet combat units in `hex` hold no bridgehead (a disrupted one, 12.1; an
-- out-of-supply one); "" when there are none.
local function why_no_holder(hex)
  local here = C.combat_at(hex, C.SOVIET)
  for _, u in ipairs(here) do
    if C.disrupted(u) then return " (12.1: a disrupted unit does not place one)" end
  end
  if #here > 0 then return " (an out-of-supply unit does not place one)" end
  return ""
end

umpire.command {
  usage = "bridgehead [remove] <hex>",
  help = "Soviet: place a bridgehead marker in a hex next to a major river held by a supplied, undisrupted Soviet combat unit (in force from the end of this segment), or remove one",
  example = "bridgehead 2135      bridgehead remove 2135",
  rule = "10.7.1.A",
  run = function(remove, hex)
    local step = umpire.clock().step
    if remove then
      umpire.check(map.marker(hex, "bridgehead"), "10.7.1.A.2", "%s has no bridgehead marker", hex)
      map.set_marker(hex, "bridgehead", nil)
      log.rule("10.7.1.A.2", ("the Soviet removes the bridgehead in %s"):format(hex))
      return
    end
    umpire.check(step == "sov_breakthrough" or step == "sov_exploit" or step == "sov_redeploy", "10.7.1.A.1",
      "bridgeheads are placed at the end of the Soviet breakthrough, exploitation and redeployment movement segments")
    umpire.check(not map.marker(hex, "bridgehead"), "10.7.1.A.1", "%s has a bridgehead marker already", hex)
    local n = 0
    for _ in pairs(map.marked("bridgehead")) do n = n + 1 end
    umpire.check(n < T.bridgeheads, "10.7.1.A", "all %d bridgehead markers are on the map (remove one first)", T.bridgeheads)
    umpire.check(next_to_major_river(hex), "10.7.1.A.1", "%s is not next to a major river hexside", hex)
    local holder
    for _, u in ipairs(C.combat_at(hex, C.SOVIET)) do
      if C.supplied(u) and not C.disrupted(u) then holder = u break end
    end
    umpire.check(holder, "10.7.1.A.1", "%s holds no supplied, undisrupted Soviet combat unit%s", hex, why_no_holder(hex))
    map.set_marker(hex, "bridgehead", 2)
    log.rule("10.7.1.A.1", ("bridgehead placed in %s, held by %s: in force from the end of this segment"):format(hex, holder.id))
  end,
}

-- 10.7.1.A.1-2: at the end of the segments the rule names, placed markers come into force and
-- markers whose hex no longer holds a supplied, undisrupted Soviet combat unit are removed.
function M.check_bridgeheads(when)
  for h, v in pairs(map.marked("bridgehead")) do
    local held = false
    for _, u in ipairs(C.combat_at(h, C.SOVIET)) do
      if C.supplied(u) and not C.disrupted(u) then held = true break end
    end
    if not held then
      map.set_marker(h, "bridgehead", nil)
      log.rule("10.7.1.A.2", ("the bridgehead in %s is removed at %s: no supplied, undisrupted Soviet combat unit holds it"):format(h, when))
    elseif v == 2 then
      map.set_marker(h, "bridgehead", 1)
    end
  end
end

-- 10.1: a movement segment begins: what the units used last segment is forgotten.
function M.begin_segment(side)
  local seg = allowance.segment()
  for _, u in ipairs(C.on_map(side)) do
    u:set_marker("moved", nil)
    if not (seg == "breakthrough" and C.is_leader(u)) then u:set_marker("mp_used", nil) end
  end
end

function M.end_segment(side)
  for _, u in ipairs(units.all { side = side }) do
    u:set_marker("moved", nil)
    if allowance.segment() ~= "assault" or side == C.GERMAN then u:set_marker("mp_used", nil) end
  end
end

return M
