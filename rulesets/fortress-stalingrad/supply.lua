-- Fortress Stalingrad 7: supply. Soviet lines to the 0-0-1 Frontal Supply units and the north,
-- east and south edges, measured in 3-hex supply lengths (attenuated supply, AS); German/Axis
-- lines of at most 12 hexes to railroad towns and cities connected to the west edge, and to
-- 1501 and 4401; out-of-supply levels 1-6; the removals of the Terminal Supply Phase; supply by
-- sea and by air. The searches run in Rust (map.reach); Lua only assembles the profiles.
local C = require "common"
local T = require "tables"
local zoc = require "zoc"
local control = require "control"

local M = {}

-- 7.4-7.7, 7.38: what a supply line of `side` may not enter. Enemy-occupied hexes and intact
-- enemy entrenchments (7.6; DATA.md: 7.7 read as allowing enemy-owned hexes only when empty of
-- enemy ZOC, entrenchments and units), enemy ZOC not negated by a friendly combat unit (7.4),
-- and for the German any hex holding a 0-0-1 (7.7).
local function blocked_for(side)
  local enemy = C.other(side)
  local b = zoc.unnegated_ezoc(side)
  for _, u in ipairs(C.on_map(enemy, true)) do
    if C.is_combat(u) then b[u.hex] = true end
    if side == C.GERMAN and C.is_supply_unit(u) then b[u.hex] = true end
  end
  for _, h in ipairs(control.intact_entrenchments(enemy)) do b[h] = true end
  return b
end
M.blocked_for = blocked_for

-- A supply-line profile: one per hex whatever the terrain (7.5), never into all-sea hexes or
-- across all-sea hexsides except the three of the Kerch Straits (7.5).
local function line_profile(side, blocked)
  return {
    terrain = { sea = "no" }, default = 1,
    hexsides = { sea = "no" }, cancels = { kerch = { "sea" } },
    blocked = blocked or blocked_for(side),
  }
end
M.line_profile = line_profile

local function hexes_of(list)
  local t = {}
  for _, u in ipairs(list) do t[u.hex] = true end
  return t
end

-- 7.8, 7.40: the Soviet-controlled north, east and south edge hexes a line can enter.
local SOVIET_EDGES = {}
for _, a in ipairs { "north_edge", "east_edge", "south_edge" } do
  for _, h in ipairs(map.area(a) or {}) do SOVIET_EDGES[#SOVIET_EDGES + 1] = h end
end
function M.soviet_edges(blocked)
  local out, soviet = {}, map.marked("ctl", { value = C.SIDE_NO[C.SOVIET] })
  for _, h in ipairs(SOVIET_EDGES) do
    if soviet[h] and not blocked[h] then out[h] = true end
  end
  return out
end

-- The Soviet trace: which 0-0-1s connect to an edge (7.38, any length), and each Soviet
-- combat unit's line length from them (0: in a 0-0-1's hex) or from an edge hex (counted as
-- hex one, 7.40; DATA.md). Returns lengths { [hex] = n }, connected { [id] = true }, and the
-- set of hexes the edges reach (where a cut-off 0-0-1 could be put back).
function M.soviet_trace(all_reached)
  -- all_reached: true for every hex the edges reach, or a set of hexes to learn about besides
  -- the 0-0-1s
  local blocked = blocked_for(C.SOVIET)
  local edges = M.soviet_edges(blocked)
  blocked = map.hexset(blocked)                  -- read once for the two searches below
  local connected, reached = {}, {}
  local from = {}
  local supply_units, supply_hexes = {}, {}
  for _, u in ipairs(C.on_map(C.SOVIET, true)) do
    if C.is_supply_unit(u) then supply_units[#supply_units + 1] = u supply_hexes[u.hex] = true end
  end
  if next(edges) then
    local p = line_profile(C.SOVIET, blocked)
    p.from, p.routes = edges, false
    if all_reached ~= true then                             -- only whether the 0-0-1s connect
      local t = {}
      for h in pairs(supply_hexes) do t[h] = true end
      for h in pairs(type(all_reached) == "table" and all_reached or {}) do t[h] = true end
      p.targets = t
    end
    reached = map.reach(p)
    for h in pairs(edges) do from[h] = 1 end
  end
  for _, u in ipairs(supply_units) do
    if reached[u.hex] then
      connected[u.id] = true
      from[u.hex] = 0
    end
  end
  local lengths = {}
  if next(from) then
    local p = line_profile(C.SOVIET, blocked)
    p.from, p.routes, p.targets = from, false, hexes_of(C.on_map(C.SOVIET))
    lengths = map.reach(p)
  end
  return lengths, connected, reached
end

-- 7.10: the AS level of a line of `len` hexes (nil: no line).
function M.as_level(len)
  if not len then return T.as_max end
  local n = (math.tointeger(len) + T.supply_length - 1) // T.supply_length - 1
  return math.max(0, math.min(T.as_max, n))
end

-- The west-edge hexes a railroad runs off the map from (the map is fixed: found when the rules load).
local RAIL_ENTRIES = {}
for _, h in ipairs(map.area("west_edge") or {}) do
  for _, n in ipairs(map.neighbours(h)) do
    if C.contains(map.hexside(h, n), "railroad") then RAIL_ENTRIES[#RAIL_ENTRIES + 1] = h break end
  end
end
function M.rail_entries() return RAIL_ENTRIES end

-- 7.25, 7.27: the German sources — railroad towns and cities whose railroad runs through
-- German-controlled hexes (and no 0-0-1) off the west edge, each at count 0, and the extra
-- sources 1501 and 4401 at their counts, when German-controlled. Returns { [hex] = count }.
function M.german_sources()
  local blocked = map.marked("ctl", { except = C.SIDE_NO[C.GERMAN] })
  for _, u in ipairs(C.on_map(C.SOVIET, true)) do blocked[u.hex] = true end
  local entries = {}
  for _, h in ipairs(M.rail_entries()) do
    if not blocked[h] then entries[h] = true end
  end
  local out = {}
  if next(entries) then
    local net = map.reach { from = entries, paths = { railroad = 1 }, paths_only = true, blocked = blocked, routes = false }
    for _, h in ipairs(C.TOWNS) do
      if net[h] then out[h] = 0 end
    end
  end
  for h, n in pairs(T.german_extra_sources) do
    if control.is(h, C.GERMAN) and not blocked[h] then out[h] = math.min(out[h] or n, n) end
  end
  return setmetatable(out, {})   -- the metatable keeps german_lines' trace (pairs walks the sources)
end

-- Each German/Axis unit's line length (7.26: the source's hex not counted, the unit's counted),
-- up to 12: { [hex] = n }. `targets`: the hexes wanted instead of the units' (a set), or true for
-- every hex a line reaches. `sources`: german_sources() as it stands now, found here when not given.
function M.german_trace(targets, sources)
  sources = sources or M.german_sources()
  if not next(sources) then return {}, sources end
  local p = line_profile(C.GERMAN)
  p.from, p.mp, p.routes = sources, T.german_line_max, false
  if targets ~= true then p.targets = targets or hexes_of(C.on_map(C.GERMAN)) end
  return map.reach(p), sources
end

-- 7.26: the German lines from `sources` (a table german_sources made) to every hex they reach,
-- traced once for that table and kept in its metatable: a caller asking about many hexes (the
-- ad hoc units' towns of a list of actions, 9.9) passes the same sources each time.
function M.german_lines(sources)
  local memo = getmetatable(sources)
  if not memo then return (M.german_trace(true, sources)) end
  if not memo.lines then memo.lines = (M.german_trace(true, sources)) end
  return memo.lines
end

local function group_log(rule, title, by_level, label)
  local keys = {}
  for k in pairs(by_level) do keys[#keys + 1] = k end
  table.sort(keys)
  for _, k in ipairs(keys) do
    table.sort(by_level[k])
    log.rule(rule, ("%s %s: %s"):format(title, label(k), table.concat(by_level[k], ", ")))
  end
end

-- 7.21, 7.38: a 0-0-1 that cannot trace to a Soviet edge is moved east to the first
-- Soviet-controlled hex from which it can (the nearest such hex at or east of its position;
-- failing that the nearest anywhere).
local function relocate(u, reached)
  local here = u.hex
  local pos = tonumber(here:sub(3, 4))
  local best, bd, beast
  for h in pairs(reached) do
    if control.is(h, C.SOVIET) and #C.ground_at(h, C.GERMAN) == 0 then
      local east = tonumber(h:sub(3, 4)) >= pos
      local d = map.distance(here, h)
      if best == nil or (east and not beast) or (east == beast and (d < bd or (d == bd and h < best))) then
        best, bd, beast = h, d, east
      end
    end
  end
  if best then
    u:move_to(best)
    log.rule("7.38", ("%s cannot trace a line to a Soviet-controlled edge hex: moved east to %s"):format(u.id, C.hex_label(best)))
  else
    log.rule("7.38", ("%s cannot trace a line to a Soviet-controlled edge hex, and no Soviet hex can: it stays"):format(u.id))
  end
end

-- I. Initial Supply Phase (4.2, 7.10, 7.28, 7.34): the states set here last the whole turn.
function M.initial()
  local turn = umpire.clock().turn
  for _, u in ipairs(units.all { on_map = true }) do
    for _, m in ipairs { "sea_supplied", "air_supplied" } do
      if u:marker(m) then u:set_marker(m, nil) end
    end
  end
  if turn == 1 then
    log.rule("13.3", "turn 1: every unit of both sides is in full supply")
    return
  end
  -- 7.39: a 0-0-1 pushed off the map comes back once its exit hex is Soviet again
  for _, u in ipairs(units.in_box("offboard")) do
    local exit = u:marker("exit")
    if C.is_supply_unit(u) and exit and control.is(C.hex_of(exit), C.SOVIET) and #C.combat_at(C.hex_of(exit), C.GERMAN) == 0 then
      u:move_to(C.hex_of(exit))
      u:set_marker("exit", nil)
      log.rule("7.39", ("%s re-enters the map in %s, its exit hex, Soviet again"):format(u.id, C.hex_of(exit)))
    end
  end
  -- Soviet: 0-0-1s that are cut off move first (7.38), then every unit's AS level
  local lengths, connected = M.soviet_trace()
  local moved = false
  for _, u in ipairs(C.on_map(C.SOVIET, true)) do
    if C.is_supply_unit(u) and not connected[u.id] then
      local _, _, reached = M.soviet_trace(true)
      relocate(u, reached)
      moved = true
    end
  end
  if moved then lengths = M.soviet_trace() end
  local by = {}
  for _, u in ipairs(C.on_map(C.SOVIET)) do
    local level = M.as_level(lengths[u.hex])
    if u:marker("cut") then
      level = T.as_max                                  -- 7.17: no line at the last Terminal phase
      u:set_marker("cut", nil)
    end
    u:set_marker("as", level > 0 and level or nil)
    if level > 0 then
      by[level] = by[level] or {}
      by[level][#by[level] + 1] = u.id .. (lengths[u.hex] and (" (" .. C.count(math.tointeger(lengths[u.hex]), "hex", "hexes") .. ")") or " (no line)")
    end
  end
  group_log("7.10", "Soviet attenuated supply", by, function(k) return ">" .. k end)
  -- German/Axis: no line of 12 or fewer hexes → one OOS level more (7.28)
  local glen = M.german_trace()
  local oos = {}
  for _, u in ipairs(C.on_map(C.GERMAN)) do
    if glen[u.hex] then
      if u:marker("oos") then
        log.rule("7.28", ("%s is in supply again (line of %s): its OOS marker is removed"):format(u.id, C.count(math.tointeger(glen[u.hex]), "hex", "hexes")))
        u:set_marker("oos", nil)
      end
    else
      local n = math.min(T.oos_max_city, (u:marker("oos") or 0) + 1)
      u:set_marker("oos", n)
      oos[n] = oos[n] or {}
      oos[n][#oos[n] + 1] = u.id
    end
  end
  group_log("7.28", "out of supply", oos, function(k) return "OOS-" .. k end)
end

-- 7.31: in or next to a German-controlled city.
function M.near_german_city(hex)
  for _, h in ipairs(map.within(hex, 1)) do
    if map.has(h, "city") and control.is(h, C.GERMAN) then return true end
  end
  return false
end

local function exempt(u, turn)
  return u:marker("entered") == turn or u:marker("sea_supplied") or u:marker("air_supplied")
end

-- V. Terminal Supply Phase (4.2.V A-D, 7.15-7.17, 7.29, 7.31-7.33).
function M.terminal()
  local turn = umpire.clock().turn
  if turn == 1 then
    log.rule("13.3", "turn 1: every unit is in full supply; no unit is removed")
    return
  end
  -- A: Soviet units at >3 with no line of any length; lower levels without a line go to >3 next turn
  local lengths = M.soviet_trace()
  for _, u in ipairs(C.on_map(C.SOVIET)) do
    if not exempt(u, turn) and not lengths[u.hex] then
      if (u:marker("as") or 0) >= T.as_max then
        C.eliminate(u, "7.15", "at >3 AS with no supply line of any length (4.2.V.A)")
      else
        u:set_marker("cut", 1)
        log.rule("7.17", ("%s has no supply line: it will be at >3 AS next turn"):format(u.id))
      end
    end
  end
  local glen = M.german_trace()
  for _, u in ipairs(C.on_map(C.GERMAN)) do
    local level = u:marker("oos") or 0
    if not exempt(u, turn) and level > 0 and not glen[u.hex] then
      local near = M.near_german_city(u.hex)
      if C.is_satellite(u) then
        -- B (7.29 over 4.2.V.B's city exception, DATA.md)
        C.eliminate(u, "7.29", "a satellite unit at OOS-1 with no supply line of 12 hexes or fewer (4.2.V.B)")
      elseif level >= T.oos_max_countryside and not near then
        C.eliminate(u, "7.33", ("at OOS-%d with no supply line and not in or next to a German-controlled city (4.2.V.C)"):format(level))
      elseif level >= T.oos_max_city then
        C.eliminate(u, "7.31", "at OOS-6 with no supply line, in or next to a German-controlled city (4.2.V.D)")
      end
    end
  end
end

function M.azov_open()
  for _, h in ipairs(map.area("kerch_straits")) do
    if not control.is(h, C.SOVIET) then return false end
  end
  return true
end

umpire.command {
  usage = "seasupply <unit>",
  help = "supply one Soviet unit in a coastal hex by sea this turn (7.22)",
  example = "seasupply 47A",
  rule = "7.22", phases = { "initial_supply" },
  run = function(u)
    local turn = umpire.clock().turn
    umpire.check(u.side == C.SOVIET and C.is_combat(u), "7.22", "only a Soviet combat unit is supplied by sea; %s is not one", u.id)
    umpire.check(u.hex ~= nil, "7.22", "%s is not on the map", u.id)
    umpire.check((vars.get("sea_supplied_turn") or 0) < turn, "7.22", "the Soviet has already supplied one unit by sea this turn (%s)", vars.get("sea_supplied_unit") or "?")
    local black = map.in_area("coast_black_sea", u.hex)
    local azov = map.in_area("coast_azov", u.hex)
    umpire.check(black or azov, "7.22", "%s is in %s, not a coastal hex", u.id, u.hex)
    if azov and not black then
      umpire.check(M.azov_open(), "7.22", "a unit on the Sea of Azov is supplied by sea only while the Soviet controls every hex of both sides of the Kerch Straits (%s)", table.concat(map.area("kerch_straits"), ", "))
    end
    u:set_marker("sea_supplied", turn)
    u:set_marker("as", nil)
    u:set_marker("cut", nil)
    vars.set("sea_supplied_turn", turn)
    vars.set("sea_supplied_unit", u.id)
    log.rule("7.22", ("%s in %s is supplied by sea this turn: fully supplied; it may move only into and through coastal hexes"):format(u.id, C.hex_label(u.hex)))
  end,
}

-- 7.36: German supply by air from turn 8.
umpire.command {
  usage = "airsupply <units>",
  help = "supply German/Axis units by air this turn (from turn 8, 8 steps, a mechanized step counts 2; 7.36)",
  example = "airsupply XIVPz,LI",
  rule = "7.36", phases = { "initial_supply" },
  run = function(list)
    local turn = umpire.clock().turn
    umpire.check(turn >= T.air_supply.from_turn, "7.36", "supply by air begins on turn %d (%s); this is turn %d", T.air_supply.from_turn, T.turn_names[T.air_supply.from_turn], turn)
    local used = (vars.get("air_supply_turn") == turn) and (vars.get("air_supply_used") or 0) or 0
    local cost = 0
    for _, u in ipairs(list) do
      umpire.check(u.side == C.GERMAN and C.is_combat(u), "7.36", "%s is not a German/Axis ground unit", u.id)
      umpire.check(u.hex ~= nil, "7.36", "%s is not on the map", u.id)
      umpire.check(not u:marker("air_supplied"), "7.36", "%s is already supplied by air this turn", u.id)
      cost = cost + u.steps_left * (C.is_mech(u) and T.air_supply.mech_step or 1)
    end
    umpire.check(used + cost <= T.air_supply.steps, "7.36", "%s %d step%s by air (a mechanized step counts %d); %d of the %d steps %s left this turn",
      #list > 1 and "these units are" or (list[1].id .. " counts"), cost, cost == 1 and "" or "s", T.air_supply.mech_step, T.air_supply.steps - used, T.air_supply.steps,
      T.air_supply.steps - used == 1 and "is" or "are")
    for _, u in ipairs(list) do
      u:set_marker("air_supplied", turn)
      u:set_marker("oos", nil)
    end
    vars.set("air_supply_turn", turn)
    vars.set("air_supply_used", used + cost)
    log.rule("7.36", ("%s supplied by air: %d step%s (%d of %d used this turn)"):format(C.list_ids(list), cost, cost > 1 and "s" or "", used + cost, T.air_supply.steps))
  end,
}

return M
