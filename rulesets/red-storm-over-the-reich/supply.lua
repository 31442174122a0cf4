-- Red Storm over the Reich 7: supply. Lines of 10 hexes to a source, or 5 to a friendly port for
-- the German (7.1); what blocks them (7.2); the sources: map edges and friendly railroad hexes
-- linked by rail to them (7.3); always-supplied units (7.4); the state a unit keeps until the
-- next check (7.0: the unit marker `oos`). Also the USIR's rail link to Berlin (8.2.1.B, 17.1.B)
-- and 15.0's attrition exemptions.
local C = require "common"
local T = require "tables"
local zoc = require "zoc"

local M = {}

-- 17.8, 7.2: intact German-controlled defensive works (never passed by a supplied Soviet combat
-- unit, marker `dw_gone`).
function M.intact_dw(h)
  return C.DW[h] and not map.marker(h, "dw_gone") and C.controller(h) == C.GERMAN
end

-- The intact German defensive works (M.intact_dw's, read as a set): a map.hexset.
local DW = map.hexset(C.DW_LIST)
local function intact_works()
  return C.held(DW, C.GERMAN, { map.marked("dw_gone", { as_set = true }) })
end

-- 7.2, 17.8: the intact German defensive works "near the front line": within 10 hexes of a
-- supplied German combat unit.
function M.dw_near_front()
  local from = {}
  for _, u in ipairs(C.on_map(C.GERMAN, C.is_combat)) do
    if C.supplied(u) then from[u.hex] = true end
  end
  local out = {}
  if not next(from) then return out end
  local targets = intact_works()
  if #targets == 0 then return out end
  local d = map.reach { from = from, mp = T.supply.line, targets = targets, routes = false }
  for h in pairs(d) do out[h] = true end
  return out
end

-- 17.5: on the Thunderclap turn no German rail movement or supply passes through Dresden.
local function thunderclap()
  return umpire.clock().turn == T.thunderclap_turn and T.dresden or nil
end

local FORTRESSES = map.hexset(C.FORTRESS_LIST)   -- (7.2: intact enemy fortresses block)

-- What a side's lines and rail links may not enter (7.2, 7.3): enemy units, the enemy's ZOC
-- where no friendly unit negates it, intact enemy fortresses, and for the Soviet the German
-- defensive works near the front; refugees are enemy units to the Soviet (and not to the German).
-- (`works == false` leaves the defensive works out: the evaluation's quicker estimate; with
-- `wide`, the second value is zoc.unnegated's hexes next to the enemy's ZOC.) Both are
-- map.hexsets: read once, then handed to the searches of the rail net and the lines.
function M.blocked(side, weather, works, wide, revived)
  local enemy = C.other(side)
  local ez, near = zoc.unnegated(side, weather, wide, revived)
  local parts = { ez, units.hexset { side = enemy, on_map = true }, C.held(FORTRESSES, enemy) }
  if side == C.SOVIET and works ~= false then
    parts[#parts + 1] = M.dw_near_front()
  elseif thunderclap() then
    parts[#parts + 1] = { thunderclap() }
  end
  -- (the prohibited area, 10.7.3, needs no entry: a supply line's profile prices its terrain
  -- "no", the rail net blocks its railroad hexes, and no source lies in it)
  return map.hexset(parts), near
end

-- 7.3: a side's railroad sources: friendly railroad hexes linked through friendly railroad hexes
-- (no enemy unit, no un-negated enemy ZOC, for the Soviet no intact German defensive works in the
-- hex, and not 5201) to a railroad hex of the side's map edge. Returns a set (a map.hexset, or an
-- empty table). (`extra`: a set of hexes blocked as well, traceable's `risk`.)
local RAIL_PROHIBITED = {}   -- 10.7.3: the railroad hexes of the prohibited area
for _, h in ipairs(C.RAIL_LIST) do
  if C.PROHIBITED[h] then RAIL_PROHIBITED[h] = true end
end
-- (hexsets of the fixed lists the searches start from, read once)
local EDGE, EDGE_RAIL = {}, {}   -- each side's map edge, and its railroad hexes
for side, list in pairs(C.EDGE) do
  local rail = {}
  for _, h in ipairs(list) do
    if C.RAIL[h] then rail[#rail + 1] = h end
  end
  EDGE[side], EDGE_RAIL[side] = map.hexset(list), map.hexset(rail)
end
local PORTS = map.hexset(C.PORT_LIST)

function M.rail_net(side, blocked, extra)
  blocked = blocked or M.blocked(side)
  -- what the rail net may not enter besides the supply lines' `blocked`: the other side's
  -- railroad hexes (for the Soviet, a search `only` through his own hexes), the prohibited area,
  -- and for the Soviet 5201 and the intact German defensive works
  local soviet = C.soviet_hexes()
  local rb, only = { blocked, RAIL_PROHIBITED }, nil
  if extra then rb[#rb + 1] = extra end
  if side == C.SOVIET then
    rb[#rb + 1], rb[#rb + 2], only = intact_works(), { T.supply.not_soviet_rail }, soviet
  else
    rb[#rb + 1] = soviet
  end
  -- (its sources: the side's railroad hexes of its map edge that it may enter)
  local from = map.hexset(EDGE_RAIL[side], { without = rb, within = only })
  if #from == 0 then return {} end
  return map.reach { from = from, paths = { railroad = 1 }, paths_only = true, blocked = rb, only = only, as_set = true }
end

-- The profile of a supply line: hexes through non-prohibited terrain, never across the sea, and
-- across Haff and lake hexsides only in Frost (when they are minor rivers, 9.1.A); rivers do not
-- stop supply (7.2's play note for the Soviet).
local function line_profile(from, mp, blocked, targets, weather)
  local water = weather == "frost" and { sea = "no" } or { sea = "no", haff = "no", lake = "no" }
  return {
    from = from, mp = mp, terrain = { sea = "no", lake = "no", prohibited = "no" }, default = 1,
    hexsides = water, blocked = blocked, targets = targets, routes = false,
  }
end

-- The hexes of `targets` a side can trace supply to past `blocked`: a set (a map.hexset, or an
-- empty table); `targets` false: every hex its lines reach. (The unit's own hex counts as the line's last hex: a line of 10 reaches a unit
-- 10 hexes from its source.) `ports`: the German's friendly ports count (7.1); `extra`, a set
-- of hexes blocked as well.
local function trace(side, targets, blocked, weather, ports, extra)
  if targets and next(targets) == nil then return {} end
  local closed = { blocked, extra }
  local from = map.hexset(EDGE[side], { without = closed })
  local starts = {}
  if side == C.GERMAN and ports then
    -- 7.1: five hexes to a friendly port: one search with the lines of ten, a line from a port
    -- starting as if five of its hexes were behind it (an edge hex's start of 0 is kept)
    for h in pairs(C.held(PORTS, C.GERMAN, closed)) do
      starts[h] = T.supply.line - T.supply.port_line
    end
  end
  local rail = M.rail_net(side, blocked, extra)
  if #from == 0 and not next(starts) and not next(rail) then return {} end
  local profile = line_profile({ from, starts, rail }, T.supply.line, closed, targets or nil, weather)
  profile.as_set = true
  return map.reach(profile)
end

-- trace's answer for `targets` (false: every hex) in the weather now, the defensive works left out
-- (evaluate.lua's estimate, as traceable's `works = false`), the German's ports counted.
local function estimated(side, targets)
  local weather = C.weather()
  return trace(side, targets, M.blocked(side, weather, false), weather, true)
end

-- 7.0, 6.2: the hexes of the side's units out of supply by their marker, with a ZOC but for it
-- (zoc.dormant), that the side can trace supply to now: their next Supply Segment gives their ZOC
-- back. A map.hexset, or an empty table. (An estimate for evaluate.lua: the defensive works left
-- out, as there.)
function M.revived(side)
  local dormant = zoc.dormant(side)
  if #dormant == 0 then return {} end
  return estimated(side, dormant)
end

-- The hexes of `targets` (a list, a set or a hexset) a side can trace supply to now: a set (a
-- map.hexset, or an empty table). `opts.ports = false` leaves out
-- the German ports (3.5.C: refugees survive supplied from the west edge only); `opts.works =
-- false` the defensive works that block Soviet lines (an estimate, for evaluate.lua: the works
-- change seldom, and finding those near the front is a search of its own). `opts.risk`: a
-- second set, the hexes of the first still traced with the hexes next to the enemy's ZOC
-- blocked too (zoc.unnegated's `wide`: lines the enemy could cut with a move of one hex; for
-- evaluate.lua). `opts.revive`: the enemy's units out of supply that he can trace supply to now
-- block with their ZOC too (M.revived: his next Supply Segment, 7.0, gives it back before the
-- joint check of 15.0; for evaluate.lua).
function M.traceable(side, targets, opts)
  opts = opts or {}
  local weather = C.weather()
  local revived = opts.revive and M.revived(C.other(side)) or nil
  local blocked, near = M.blocked(side, weather, opts.works ~= false, opts.risk, revived)
  local ports = opts.ports ~= false
  local out = trace(side, targets, blocked, weather, ports)
  if not near then return out end
  return out, trace(side, out, blocked, weather, ports, near)
end

-- 7.1-7.3: every hex a side's supply lines reach now (a map.hexset, or an empty table; the
-- defensive works left out, as traceable's `works = false`: an estimate for evaluate.lua).
function M.net(side) return estimated(side, false) end

-- 7.0: a side's supply segment: every unit of the side on the map that needs supply is marked out
-- of supply (`oos`) or cleared. Returns the units newly out of supply and those back in supply.
function M.check(side, rule)
  local need, hexes, seen = {}, {}, {}
  for _, u in ipairs(C.on_map(side)) do
    if not C.always_supplied(u) then
      need[#need + 1] = u
      if not seen[u.hex] then seen[u.hex] = true; hexes[#hexes + 1] = u.hex end
    end
  end
  local ok = M.traceable(side, hexes)
  local cut, back = {}, {}
  for _, u in ipairs(need) do
    if ok[u.hex] then
      if u:marker("oos") then back[#back + 1] = u; u:set_marker("oos", nil) end
    elseif not u:marker("oos") then
      cut[#cut + 1] = u
      u:set_marker("oos", 1)
    end
  end
  local n = 0
  for _, u in ipairs(need) do if u:marker("oos") then n = n + 1 end end
  local parts = {}
  if #cut > 0 then parts[#parts + 1] = "out of supply: " .. C.ids(cut) end
  if #back > 0 then parts[#parts + 1] = "back in supply: " .. C.ids(back) end
  log.rule(rule or "7.0", ("%s supply: %d of %s out of supply%s"):format(side, n, C.count(#need, "unit"),
    #parts > 0 and (" (" .. table.concat(parts, "; ") .. ")") or ""))
  return cut, back
end

-- 8.2.1.B, 17.1.B: the USIR hex 3743 German and linked by friendly railroad hexes, not blocked by
-- Soviet units or their un-negated ZOC, to a Berlin urban hex.
function M.usir_linked()
  if C.controller(T.usir_hex) ~= C.GERMAN or not C.RAIL[T.usir_hex] then return false end
  local ez, soviet_units = zoc.unnegated(C.GERMAN), units.hexset { side = C.SOVIET, on_map = true }
  if ez[T.usir_hex] or soviet_units[T.usir_hex] then return false end
  local berlin = {}
  for h in pairs(C.BERLIN) do berlin[#berlin + 1] = h end
  table.sort(berlin)
  -- (the Soviet's hexes blocked as well: only railroad hexes are entered)
  local d = map.reach { from = T.usir_hex, paths = { railroad = 1 }, paths_only = true, blocked = { ez, soviet_units, C.soviet_hexes() },
                        targets = berlin, routes = false }
  return next(d) ~= nil
end

-- 15.0: German units in fortress, coastal and Haff hexes count as supplied for attrition.
function M.attrition_exempt(u)
  return u.side == C.GERMAN and (C.FORTRESS[u.hex] or C.COAST[u.hex] or C.HAFF[u.hex]) and true or false
end

return M
