-- Fortress Stalingrad 10.1-10.37, 12.2, 12.3, 7.18, 7.20: movement. Costs by unit class, rivers,
-- the Kerch Straits at half the printed movement factor, the Volga on turns 1-2, entrenchments,
-- zones of control (stop on entry, infiltration), stack-by-stack movement, the 0-0-1s.
local C = require "common"
local T = require "tables"
local zoc = require "zoc"
local control = require "control"
local stacking = require "stacking"
local air = require "air"
local reduce = require "reduce"   -- rulesets/lib
local checks = require "checks"   -- rulesets/lib

local M = {}

local UNIT = 60   -- MP are kept in the unit marker `mp_used` in 1/60ths (exact for halves)

-- 10.1, 7.12, 7.30, 13.4: the movement factor this turn: printed, halved (rounded up) for the
-- Axis on turn 1, less one per AS or OOS level (never below 0).
function M.mf(u)
  local printed = u:value("move") or 0
  local mf, why = printed, {}
  if u.side == C.GERMAN and T.first_turn_axis_halved and umpire.clock().turn == 1 then
    mf = reduce.half(mf, "up")
    why[#why + 1] = ("halved on turn 1, rounded up (13.4)")
  end
  local level = C.supply_level(u)
  if level > 0 then
    mf = math.max(0, mf - level * T.supply_penalty.move)
    why[#why + 1] = ("%s: -%d (%s)"):format(C.supply_label(u, level), level * T.supply_penalty.move, u.side == C.SOVIET and "7.12" or "7.30")
  end
  return mf, why
end

-- MP still to spend this phase.
function M.left(u)
  return M.mf(u) - (u:marker("mp_used") or 0) / UNIT
end

-- What every unit of `side` that moves now meets alike: the turn (10.19), the hexes of the
-- enemy's combat units (`enemy`), the hexes it may not enter (`blocked`: those, and for the German
-- the intact Soviet entrenchments, 10.4) and the enemy zone of control that stops it (`ez`, 5.4,
-- 5.5). Hexsets (map.hexset), for a caller that searches for many units and passes them to each;
-- plain sets when `once` (a single search reads them as fast as it would copy a hexset).
function M.zones(side, once)
  local set = once and function(t) return t end or map.hexset
  local enemy_hexes, blocked = {}, {}
  for _, e in ipairs(C.on_map(C.other(side))) do enemy_hexes[e.hex], blocked[e.hex] = true, true end   -- 10.4
  if side == C.GERMAN then
    for _, h in ipairs(control.intact_entrenchments(C.SOVIET)) do blocked[h] = true end                -- 10.4
  end
  return { turn = umpire.clock().turn, enemy = set(enemy_hexes), blocked = set(blocked),
           ez = set(zoc.zoc(C.other(side))) }
end

-- 10.19, 12.3: on turns 1-2 the 62nd Army may slide from 3428 across the Volga into an empty
-- 3427, and its move ends there (DATA.md): a stop cost, so no path goes on beyond 3427.
function M.slides(u, from, turn)
  return u.id == T.units.army62 and from == "3428" and turn <= T.volga_closed_through and #units.at("3427") == 0
end

-- The movement profile of unit `u` starting at `from` with `mp` to spend. `z`: M.zones(u.side)
-- (found here when not given).
function M.profile(u, from, mp, z)
  local side, enemy = u.side, C.other(u.side)
  z = z or M.zones(side, true)
  local turn = z.turn
  local printed = u:value("move") or 0
  local hexsides = {
    major_river = T.river_cost.major_river, minor_river = T.river_cost.minor_river,   -- 10.17
    sea = "no",                                                                        -- 10.9
    kerch = printed * T.kerch_fraction[1] / T.kerch_fraction[2],                      -- 10.9
  }
  if turn <= T.volga_closed_through then hexsides.volga = "no" end                   -- 10.19
  local blocked = z.blocked                                                          -- 10.4
  if u:marker("sea_supplied") then                                                   -- 7.22
    local inland = {}
    for _, h in ipairs(map.hexes()) do
      if not C.COAST[h] and not C.SEA[h] then inland[h] = true end
    end
    blocked = map.hexset { z.blocked, inland }
  end
  local ez = z.ez                                                                    -- 5.4, 5.5
  local side_cost = {}
  -- 10.27: no infiltration (a step from a starting EZOC hex straight into another) into an
  -- intact enemy entrenchment
  if ez[from] then
    for _, n in ipairs(map.neighbours(from)) do
      if ez[n] and control.intact_entrenchment(n, enemy) then side_cost[from .. ">" .. n] = "no" end
    end
  end
  if M.slides(u, from, turn) then                                                    -- 10.19, 12.3
    side_cost["3428>3427"] = { cost = T.river_cost.major_river, stop = true }
  end
  return {
    from = from, mp = mp,
    terrain = T.move_cost[C.class(u)],
    hexsides = hexsides, cancels = { kerch = { "sea" } },
    blocked = blocked, stop = ez, side_cost = side_cost,
  }, ez
end

-- 7.20, 10.7: a 0-0-1 moves one land hex (or two, one of them a turn) whatever the terrain. `z`
-- as for M.profile.
function M.supply_profile(u, from, hexes, z)
  z = z or M.zones(u.side, true)
  return {
    from = from, mp = hexes, terrain = { sea = "no" }, default = 1,
    hexsides = { sea = "no" }, cancels = { kerch = { "sea" } },
    blocked = z.enemy, stop = z.ez,
  }
end

-- 10.34-10.37: movement is stack by stack. The stack a unit started the phase in is its parent
-- stack (marker `origin`); once another parent stack has begun to move, the earlier ones are done.
function M.parent_check(u, check)
  check = check or umpire.check
  local origin = u:marker("origin")
  local done = vars.get("stacks_done") or {}
  for _, o in ipairs(done) do
    check(o ~= origin, "10.37", "%s belongs to the stack that started in %s, whose movement is finished (another stack has moved since)", u.id, C.hex_of(origin))
  end
end

function M.begin_parent(origin)
  local cur = vars.get("moving_stack")
  if cur and cur ~= origin then
    local done = vars.get("stacks_done") or {}
    done[#done + 1] = cur
    vars.set("stacks_done", done)
  end
  vars.set("moving_stack", origin)
end

-- 10.1: start of a Movement Phase: every unit of the side notes its parent stack and has its
-- whole movement factor, except that a reinforcement that entered this turn has already spent
-- its entry hex's cost (9.2, 9.11: the entry hex is hex one of its movement).
function M.begin_phase(side)
  local turn = umpire.clock().turn
  for _, u in ipairs(C.on_map(side, true)) do
    u:set_marker("origin", C.hex_no(u.hex))
    for _, m in ipairs { "halted", "infiltrated", "moved", "volga_slide", "ma_retreated" } do u:set_marker(m, nil) end
    if u:marker("entered") ~= turn then u:set_marker("mp_used", nil) end
  end
  vars.set("moving_stack", nil)
  vars.set("stacks_done", nil)
  vars.set("supply_double", nil)
end

function M.end_phase(side)
  for _, u in ipairs(C.on_map(side, true)) do
    for _, m in ipairs { "origin", "mp_used", "halted", "infiltrated", "volga_slide", "ma_retreated" } do u:set_marker(m, nil) end
  end
  vars.set("moving_stack", nil)
  vars.set("stacks_done", nil)
  vars.set("advance", nil)   -- 11.32: an occupation after a mobile assault ends with the phase
end

-- Why `to` cannot be reached, after the route search failed.
local function why_not(u, from, to, prof, left)
  local enemy = C.other(u.side)
  if map.terrain(to) == "sea" then return "10.8", to .. " is an all-sea hex" end
  if u:marker("sea_supplied") and not C.COAST[to] then return M.inland(u, to) end
  if to ~= "3427" and M.slides(u, from, umpire.clock().turn) then return M.slide_ends(u, to) end
  if map.direction(from, to) then
    local side = map.hexside(from, to)
    if C.contains(side, "volga") and umpire.clock().turn <= T.volga_closed_through then
      return "10.19", ("%s/%s is a Volga hexside: no unit crosses the Volga on turns 1 and 2 (only the 62nd Army may slide into an empty 3427)"):format(from, to)
    end
    if prof.side_cost[from .. ">" .. to] == "no" then
      return "10.27", ("%s starts in an enemy zone of control and %s, also in one, holds intact %s entrenchments: no infiltration into them"):format(u.id, to, enemy)
    end
  end
  if #C.combat_at(to, enemy) > 0 then
    return "10.4", ("%s is held by the enemy (%s): only a mobile assault enters it"):format(to, C.list_ids(C.combat_at(to, enemy)))
  end
  if u.side == C.GERMAN and control.intact_entrenchment(to, C.SOVIET) then
    return "10.4", to .. " holds an intact Soviet entrenchment: German/Axis units enter it only by mobile assault"
  end
  local free = {}
  for k, v in pairs(prof) do free[k] = v end
  free.mp = nil
  local cost, path = map.route(free, to)
  if cost then
    return "10.6", ("%s needs %s MP by the cheapest path (%s) and has %s MP"):format(u.id, map.fmt_cost(cost), table.concat(path, " → "), map.fmt_cost(left))
  end
  free.stop = nil
  cost = map.route(free, to)
  if cost then
    return "5.4", ("every path to %s enters an enemy zone of control before it, and movement ends there"):format(to)
  end
  if u:marker("sea_supplied") then
    return "7.22", ("%s is supplied by sea this turn: it moves only through coastal hexes, and none of its paths to %s keeps to them"):format(u.id, to)
  end
  return "10.6", ("%s cannot reach %s (rivers closed, the sea, enemy units or entrenchments in the way)"):format(u.id, to)
end

-- 10.19, 12.3: the refusal of a hex beyond 3427 to the 62nd Army sliding into it.
function M.slide_ends(u, to)
  return "10.19", ("%s slides across the Volga from 3428 into 3427 on turns 1 and 2, and its move ends there: it does not go on to %s"):format(u.id, to)
end

-- 7.22: the refusal of an inland hex to a unit supplied by sea this turn.
function M.inland(u, h)
  return "7.22", ("%s is supplied by sea this turn: it moves only into and through coastal hexes (%s is inland)"):format(u.id, h)
end

-- 10.1, 10.34: the units of the stack `list` moving from `from`, each with its MP left and its
-- own profile, the fewest MP first (`z`: M.zones of their side, found here when not given).
function M.stack_movers(list, from, z)
  local per = {}
  z = z or M.zones(list[1].side)   -- the movers are of one side (check_mover)
  for _, u in ipairs(list) do
    local left = M.left(u)
    per[#per + 1] = { u = u, left = left, prof = M.profile(u, from, left, z) }
  end
  table.sort(per, function(a, b) if a.left ~= b.left then return a.left < b.left end return a.u.id < b.u.id end)
  return per
end

-- 10.34, 10.6: the path a stack (`per`, M.stack_movers) takes to `to` when no path is given: the
-- cheapest route of the first of its units that every other can follow too; nil when none is.
-- Quiet (the move verb and the list of actions ask it).
function M.stack_path(per, to)
  for _, p in ipairs(per) do
    local cost, route = map.route(p.prof, to)
    if cost then
      local ok = true
      for _, q in ipairs(per) do
        if not map.path_cost(q.prof, route) then ok = false break end
      end
      if ok then return route end
    end
  end
  return nil
end

-- The hexes and cost of a move of the stack `list` to `to` (or along `path`), checked for each
-- unit: returns path, costs { [id] = mp }.
local function plan(list, to, via)
  local from = list[1].hex
  local per = M.stack_movers(list, from)
  local path
  if via then
    path = { from, to }
    for _, h in ipairs(via) do path[#path + 1] = h end
  else
    path = M.stack_path(per, to)
    if not path then
      for _, p in ipairs(per) do
        if not map.route(p.prof, to) then umpire.refuse(why_not(p.u, from, to, p.prof, p.left)) end
      end
      umpire.refuse("10.3", ("the units have no path to %s that each of them can follow (%s)"):format(to, C.list_ids(list)))
    end
  end
  local costs = {}
  for _, p in ipairs(per) do
    local cost, why = map.path_cost(p.prof, path)
    if not cost then
      for i = 2, #path do
        if p.u:marker("sea_supplied") and not C.COAST[path[i]] and map.terrain(path[i]) ~= "sea" then umpire.refuse(M.inland(p.u, path[i])) end
      end
      if path[#path] == to and not via then umpire.refuse(why_not(p.u, from, to, p.prof, p.left)) end
      if path[2] == "3427" and M.slides(p.u, from, umpire.clock().turn) then umpire.refuse(M.slide_ends(p.u, path[#path])) end
      umpire.refuse("10.6", ("%s: %s"):format(p.u.id, why))
    end
    costs[p.u.id] = cost
  end
  return path, costs
end

-- The checks on one unit `u` of `side` moving with the stack of `first` from `from` (its parent
-- stack `origin`), in the order the verb refuses them; `check` is umpire.check in the verb, a
-- quiet one in the list of actions.
function M.check_mover(u, side, first, from, origin, check)
  check = check or umpire.check
  local own_side, hex, own_origin = u.side, u.hex, u:marker("origin")   -- (each read once)
  check(own_side == side, "10.2", "%s belongs to the %s; only %s units move now", u.id, own_side, side)
  check(hex ~= nil, "10.1", "%s is not on the map", u.id)
  check(hex == from, "10.35", "units moving together must be in one hex (%s is in %s, %s in %s)", first.id, from, u.id, hex)
  check(own_origin == origin, "10.35", "units move together only if they started the Movement Phase stacked together (%s started in %s, %s in %s)", first.id, C.hex_of(origin), u.id, C.hex_of(own_origin))
  check(C.is_combat(u) or C.is_supply_unit(u), "10.1", "%s is not a ground unit: %s", u.id, C.is_air(u) and "air units stay with the stack they support (8.4)" or "it does not move on the map")
  check(not C.is_garrison(u), "12.2", "%s is a 0-3-0 garrison: it never leaves its hex", u.id)
  check(not u:marker("volga_slide"), "10.19", "%s slid across the Volga into 3427 this turn: it moves no farther this turn (it may still attack, and retreat after combat)", u.id)
  check(not u:marker("ma_retreated"), "10.43", "%s retreated after its mobile assault this phase: its move ended in %s", u.id, hex)
  check(not u:marker("halted"), "5.4", "%s entered an enemy zone of control in %s this phase: it moves no farther%s", u.id, hex, C.is_mech(u) and " (a mechanized unit may still make mobile assaults, 10.38)" or "")
  check(not (u.id == T.units.army28 and u:marker("entered") == umpire.clock().turn), "12.1", "the 28th Army may not move on its turn of entry (only retreat after combat)")
  M.parent_check(u, check)
end

-- Why `u` may not move now, for `moves` (nil when it may): not the Movement Phase, or the first
-- of the move verb's checks that refuses it alone, with its rule.
function M.why_not_move(u)
  local clock = umpire.clock()
  if clock.step ~= "movement" then return "10.1", ("units move in the Movement Phase, not in %s"):format(clock.phase) end
  return checks.first_failure(function(check) M.check_mover(u, clock.side, u, u.hex, u:marker("origin"), check) end)
end

-- 7.18: an Axis unit entering a hex where only a 0-0-1 is: the 0-0-1 moves one hex east.
local function push_supply(hex)
  for _, s in ipairs(units.at(hex)) do
    if C.is_supply_unit(s) and s.side == C.SOVIET then
      -- east: the neighbour of the same row one position on (DATA.md), else the two of the
      -- rows above and below that lie east of the hex
      local pos = tonumber(hex:sub(3, 4))
      local best, bpos
      for _, n in ipairs(map.neighbours(hex)) do
        local npos = tonumber(n:sub(3, 4)) + (tonumber(n:sub(1, 2)) % 2 == 1 and 0.5 or 0) - (tonumber(hex:sub(1, 2)) % 2 == 1 and 0.5 or 0)
        if map.terrain(n) ~= "sea" and #C.combat_at(n, C.GERMAN) == 0 and npos > pos then
          if not best or npos > bpos or (npos == bpos and n < best) then best, bpos = n, npos end
        end
      end
      if best then
        s:move_to(best)
        log.rule("7.18", ("%s is pushed one hex east, %s → %s"):format(s.id, hex, best))
      else
        s:put_in("offboard")
        log.rule("7.39", ("%s cannot move east from %s: it leaves the map until its exit hex is Soviet again"):format(s.id, hex))
        s:set_marker("exit", C.hex_no(hex))
      end
    end
  end
end

-- 9.25: a German/Axis unit in a trans-Don or trans-Volga hex doubles the Soviet replacements for
-- the rest of the game, however it came there: a move, a mobile assault, a retreat or an advance
-- after combat, a placement (DATA.md). `how` says how, for the log.
function M.trans_don(hexes, side, u, how)
  if side ~= C.GERMAN or vars.get("enhanced_replacements") then return end
  for _, h in ipairs(hexes) do
    if map.in_area("trans_don", h) or map.in_area("trans_volga", h) then
      vars.set("enhanced_replacements", true)
      log.rule("9.25", ("%s %s %s, across the %s: the Soviet replacement rate is doubled for the rest of the game"):format(
        u.id, how or "enters", h, map.in_area("trans_volga", h) and "Volga" or "Don"))
      return
    end
  end
end

-- Effects of units of `side` entering the hexes of `path` (after the start), whether they move,
-- mobile-assault, retreat or advance: control (3.3), wrecked entrenchments (10.26), pushed 0-0-1s
-- (7.18), the trans-Don/Volga trigger (9.25).
function M.entered(path, side, list, how)
  local hexes = {}
  for i = 2, #path do hexes[#hexes + 1] = path[i] end
  control.passed(hexes, side)
  local enemy_works = side == C.SOVIET and "entrench_german" or "entrench_soviet"
  for _, h in ipairs(hexes) do
    if map.has(h, enemy_works) and not map.marker(h, "wrecked") then
      map.set_marker(h, "wrecked", 1)
      log.rule("10.26", ("%s %s the %s entrenchments in %s: they are wrecked for the rest of the game"):format(list[1].id, how or "enters", C.other(side), h))
    end
    if side == C.GERMAN then push_supply(h) end
  end
  M.trans_don(hexes, side, list[1], how)
end

local function move_supply(u, to, via)
  local from = u.hex
  local double = vars.get("supply_double")
  local hexes = (double == nil or double == u.id) and T.supply_move.two or T.supply_move.one
  local used = (u:marker("mp_used") or 0) // UNIT
  umpire.check(used < hexes, "7.20", "%s has moved its %d hex%s this turn", u.id, hexes, hexes > 1 and "es" or "")
  local prof = M.supply_profile(u, from, hexes - used)
  local path
  if via then
    path = { from, to }
    for _, h in ipairs(via) do path[#path + 1] = h end
    local c, why = map.path_cost(prof, path)
    if not c then umpire.refuse("7.20", why) end
  else
    local c, route = map.route(prof, to)
    if not c then
      umpire.refuse("7.20", ("%s moves %s (one 0-0-1 a turn two hexes, whatever the terrain; %s already used another's two)"):format(
        u.id, hexes - used == 1 and "one land hex" or "two land hexes", double or "none has"))
    end
    path = route
  end
  local n = #path - 1 + used
  if n > T.supply_move.one then vars.set("supply_double", u.id) end
  u:move_to(path[#path])
  u:set_marker("mp_used", n * UNIT)
  u:set_marker("moved", 1)
  control.passed({ path[#path] }, u.side)
  log.rule(n > 1 and "10.7" or "7.20", ("%s moves %s → %s (%d land hex%s, terrain ignored%s)"):format(
    u.id, from, path[#path], #path - 1, #path > 2 and "es" or "", n > 1 and "; its two hexes this turn" or ""))
end

-- 8.4, 8.5: the air units named with a moving stack go with it; the ground units move.
local function split_air(list, side)
  local air_units, ground = {}, {}
  for _, u in ipairs(list) do
    if C.is_air(u) then air_units[#air_units + 1] = u else ground[#ground + 1] = u end
  end
  umpire.check(#ground > 0, "8.4", "air units stay with the stack they support; name them with the ground units they go with")
  for _, a in ipairs(air_units) do
    umpire.check(a.side == side and a.hex == ground[1].hex, "8.5", "%s is not with %s", a.id, ground[1].id)
  end
  return air_units, ground
end

-- 10.1, 5.4, 5.9: the stack arrives at the end of `path`: its MP spent, moved, halted in an enemy
-- zone of control it entered, marked when it infiltrated from one into another.
local function arrive(list, path, costs, from, origin, start_ez)
  local dest = path[#path]
  for _, u in ipairs(list) do
    u:move_to(dest)
    u:set_marker("mp_used", (u:marker("mp_used") or 0) + math.tointeger(costs[u.id] * UNIT))
    u:set_marker("moved", 1)
    if start_ez[dest] then u:set_marker("halted", 1) end
    if start_ez[from] and start_ez[dest] and #path == 2 and C.hex_of(origin) == from then
      u:set_marker("infiltrated", 1)
    end
  end
end

-- 5.4, 5.9, 5.10, 6.6, 10.9: what the log adds about the move: a stop in an enemy zone of control,
-- a stack over the limit, a crossing of the Kerch Straits.
local function move_notes(list, path, from, origin, start_ez, side)
  local dest = path[#path]
  local notes = {}
  if start_ez[dest] then
    if start_ez[from] and #path == 2 and C.hex_of(origin) == from then
      notes[#notes + 1] = "infiltrates from one enemy zone of control into another: it stops (5.9)" ..
        (C.is_mech(list[1]) and "; no mobile assault this turn (5.10)" or "")
    else
      notes[#notes + 1] = "enters an enemy zone of control: it stops (5.4)"
    end
  end
  local over = stacking.warning(dest, side, "the end of the Movement Phase")
  if over then notes[#notes + 1] = over .. "; undo takes the move back" end
  for i = 2, #path do
    if C.contains(map.hexside(path[i - 1], path[i]), "kerch") then
      notes[#notes + 1] = ("crosses the Kerch Straits %s/%s for half its printed movement factor (10.9)"):format(path[i - 1], path[i])
    end
  end
  return notes
end

-- 10.1: what each unit paid and has left (once for the stack when they all paid the same).
local function costs_text(list, costs)
  local costs_txt = {}
  local same = true
  for _, u in ipairs(list) do if costs[u.id] ~= costs[list[1].id] then same = false end end
  if same then
    costs_txt[1] = ("%s MP, %s left"):format(map.fmt_cost(costs[list[1].id]), map.fmt_cost(M.left(list[1])))
  else
    for _, u in ipairs(list) do
      costs_txt[#costs_txt + 1] = ("%s %s MP, %s left"):format(u.id, map.fmt_cost(costs[u.id]), map.fmt_cost(M.left(u)))
    end
  end
  return costs_txt
end

umpire.command {
  usage = "move <units> <hex> [<hex>...]",
  help = "move a unit or stack to a hex by the cheapest path, or along the hexes given (the last is where it stops)",
  example = "move 5TA,26TC 3621      move 21A 3722 3723",
  rule = "10.1", phases = { "movement" },
  run = function(list, to, via)
    if via and #via == 0 then via = nil end
    local side = umpire.clock().side
    local air_units
    air_units, list = split_air(list, side)
    local from = list[1].hex
    local origin = list[1]:marker("origin")
    for _, u in ipairs(list) do M.check_mover(u, side, list[1], from, origin) end
    umpire.check(from ~= to, "10.1", "%s is already in %s", list[1].id, to)
    if C.is_supply_unit(list[1]) then
      umpire.check(#list == 1, "7.20", "a 0-0-1 moves on its own")
      M.begin_parent(origin)
      vars.set("advance", nil)   -- 11.32: an occupation not taken before this move is forgone
      return move_supply(list[1], to, via)
    end
    for _, u in ipairs(list) do
      umpire.check(not C.is_supply_unit(u), "7.20", "a 0-0-1 moves on its own, not with %s", list[1].id)
    end
    -- 12.3: the 62nd Army's first move out of 3428 is into 3427
    local has62 = from == "3428" and C.contains(list, units.get(T.units.army62)) and not vars.get("army62_left")
    local path, costs = plan(list, to, via)
    if has62 then
      umpire.check(path[2] == "3427", "12.3", "the 62nd Army leaves 3428 the first time only into 3427 (this path goes to %s)", path[2])
    end
    M.begin_parent(origin)
    vars.set("advance", nil)   -- 11.32: an occupation not taken before this move is forgone
    local start_ez = zoc.zoc(C.other(side))
    local dest = path[#path]
    arrive(list, path, costs, from, origin, start_ez)
    if has62 then vars.set("army62_left", true) end
    local notes = move_notes(list, path, from, origin, start_ez, side)
    -- 10.19: on turns 1-2 the only way from 3428 into 3427 is the 62nd Army's slide (M.slides)
    if from == "3428" and path[2] == "3427" and umpire.clock().turn <= T.volga_closed_through then
      notes[#notes + 1] = "slides across the Volga into 3427 and moves no farther this turn (10.19)"
      for _, u in ipairs(list) do u:set_marker("halted", 1) u:set_marker("volga_slide", 1) end
    end
    log.rule("10.1", ("%s %s → %s (%s)%s"):format(C.list_ids(list), from, table.concat(path, " → ", 2),
      table.concat(costs_text(list, costs), "; "), #notes > 0 and (": " .. table.concat(notes, "; ")) or ""))
    M.entered(path, side, list)
    for _, a in ipairs(air_units) do a:move_to(dest, "under") end
    if #air_units > 0 then log.rule("8.5", ("%s go%s with the stack to %s"):format(C.list_ids(air_units), #air_units > 1 and "" or "es", dest)) end
    air.follow(from, dest, side)
  end,
}

return M
