-- Stargard Solstice 5.0 Movement, 6.0 Stacking, 5.6 / 12.2.6 overrun of lone HQs, 14.2.1 the
-- German exit (the EZOC costs of 4.1 are zoc.lua's).
local T = require "tables"
local C = require "common"
local zoc = require "zoc"
local command = require "command"
local victory = require "victory"
local headquarters = require "hq"
local checks = require "checks"
local M = {}

-- Hexes of the map that a road-like path leaves (for 5.4.1: strategic movement starts on a road).
local function on_road(hex)
  for _, n in ipairs(map.neighbours(hex)) do
    for _, f in ipairs(map.hexside(hex, n)) do
      if T.strategic_cost[f] then return true end
    end
  end
  return false
end
M.on_road = on_road

-- Lone enemy HQs (no combat unit with them) may be overrun by combat units (5.3, 5.6).
-- `stacks` (units.stacks()) may be given when the caller has them.
local function lone_hq(hex, side, stacks)
  local stack = stacks and (stacks[hex] or {}) or units.at(hex)
  if #stack == 0 then return nil end
  local hq
  for _, u in ipairs(stack) do
    if u.side == side then return nil end
    if C.is_combat(u) then return nil end
    if C.is_hq(u) then hq = u end
  end
  return hq
end
M.lone_hq = lone_hq

-- 5.6 / 12.2.6: the hexes of `enemy` (C.occupied of `side`'s enemy) holding a lone HQ, which
-- units that may overrun it may enter.
function M.lone_hqs(side, enemy, stacks)
  local lone = {}
  for h in pairs(enemy) do
    if lone_hq(h, side, stacks) then lone[h] = true end
  end
  return lone
end

-- What the map itself costs in regular movement (5.2, TEC): terrain, features, paths and
-- hexsides, with no unit, ZOC or MP limit. The base of every regular-movement profile, and of
-- the checks of what a unit could enter (10.5).
function M.terrain_profile()
  return { terrain = T.terrain_cost, features = T.feature_cost, paths = T.path_cost,
           hexsides = T.hexside_cost, cancels = T.cancels }
end

-- The movement profile of a side (5.1.2, 5.2, 4.1), for regular or strategic movement.
-- `opts` may give what the caller has found already (a list of actions makes several profiles
-- of a side): `ezoc` (zoc.ezoc), `enter` and `leave` (zoc.costs of it), `enemy` (the hexes
-- the enemy holds, C.occupied), `lone` (M.lone_hqs of them) and `stacks` (units.stacks()).
---@param side string
---@param from Umpire.Hex
---@param mp number
---@param opts? table
---@return table profile
function M.profile(side, from, mp, opts)
  opts = opts or {}
  -- (the stacks read once, when the EZOC or the lone HQs are not given)
  local stacks = opts.stacks
  local function stacks_now() stacks = stacks or units.stacks() return stacks end
  local ez = opts.ezoc or zoc.ezoc(side, stacks_now())
  local enemy = opts.enemy or C.occupied(C.other(side))
  local lone = opts.overrun and (opts.lone or M.lone_hqs(side, enemy, stacks_now())) or {}
  local blocked = {}
  for h in pairs(enemy) do                                                          -- 5.3
    if not lone[h] then blocked[#blocked + 1] = h end
  end
  if opts.strategic then                                                            -- 5.4.1
    for h in pairs(ez) do blocked[#blocked + 1] = h end
    return { from = from, mp = mp, paths = T.strategic_cost, paths_only = true, hexsides = T.hexside_cost,
      cancels = T.cancels, terrain = T.terrain_cost, blocked = blocked }
  end
  local enter, leave = opts.enter, opts.leave
  if not enter then enter, leave = zoc.costs(ez) end                              -- 4.1
  local p = M.terrain_profile()
  p.from, p.mp, p.enter_extra, p.leave_extra, p.blocked = from, mp, enter, leave, blocked
  return p
end

-- 14.2.1: leaving the map costs what the occupied hex costs (terrain and features, the dearest);
-- a road through the hex gives its reduced cost. APPROX: the printed map would show which roads
-- run off the edge; here any path hexside of the hex counts.
function M.exit_cost(hex)
  local cost = T.terrain_cost[map.terrain(hex)]
  if type(cost) ~= "number" then return nil end
  for f, c in pairs(T.feature_cost) do
    if map.has(hex, f) then cost = math.max(cost, c) end
  end
  for _, n in ipairs(map.neighbours(hex)) do
    for _, f in ipairs(map.hexside(hex, n)) do
      local c = T.path_cost[f]
      if type(c) == "number" and c < cost then cost = c end
    end
  end
  return cost
end

-- 5.1.1 movement allowance, 5.3 isolated units halved.
function M.allowance(u)
  local ma = u:value("move") or 0
  if u:marker("isolated") then ma = ma / 2 end
  return ma
end

-- 6.0 the stacking limit: two combat units (a Festung not counted, a reading of 12.3) and one HQ
-- a hex; 6.3 never two HQs together. Returns the rule and the reason when `moving` would break it
-- in `hex` (6.1: the limit holds when a move, retreat or advance ends).
function M.stacking_problem(hex, moving)
  local combat, hqs = 0, 0
  local ids = {}
  for _, u in ipairs(moving) do ids[u.id] = true end
  local all = {}
  for _, u in ipairs(units.at(hex)) do if not ids[u.id] then all[#all + 1] = u end end
  for _, u in ipairs(moving) do all[#all + 1] = u end
  for _, u in ipairs(all) do
    if C.is_combat(u) and not u:attr("festung") then combat = combat + 1 end
    if C.is_hq(u) then hqs = hqs + 1 end
  end
  if combat > T.stacking.combat then
    return "6.0", ("%d combat units would stand in %s; the limit is %d combat units and %d HQ a hex"):format(
      combat, hex, T.stacking.combat, T.stacking.hq)
  end
  if hqs > T.stacking.hq then return "6.3", "two HQs may not stack together in " .. hex .. " (6.0: one HQ a hex)" end
  return nil
end

-- 14.1: Soviet combat units able to control (ZOC, defense 1+) take VP hexes they enter;
-- German units take them back.
---@param u UnitRef
---@param hexes Umpire.Hex[]
function M.entered(u, hexes)
  for _, h in ipairs(hexes) do victory.enter(u, h) end
end

-- 5.5 rail movement (reinforcements only): along rail lines, unblocked by enemy units; entering
-- an EZOC stops the move (5.5.2); the stacking limit holds at every hex (5.5.3).
---@param side string
---@param from Umpire.Hex
---@return table profile
function M.rail_profile(side, from)
  local ez = zoc.ezoc(side)
  local stop, blocked = {}, {}
  for h in pairs(ez) do stop[#stop + 1] = h end
  for h in pairs(C.occupied(C.other(side))) do blocked[#blocked + 1] = h end
  return { from = from, paths = { railroad = 0 }, paths_only = true, hexsides = T.hexside_cost, cancels = T.cancels,
    terrain = T.terrain_cost, stop = stop, blocked = blocked }
end

-- A copy of a profile without its MP limit (to tell "too far" from "no path").
local function unlimited(prof)
  local p = {}
  for k, v in pairs(prof) do p[k] = v end
  p.mp = nil
  return p
end

-- The path features of the a/b hexside the profile prices, and the cheapest of them.
local function path_of(prof, a, b)
  local best, cost
  for _, f in ipairs(map.hexside(a, b)) do
    local c = prof.paths and prof.paths[f]
    if type(c) == "number" and (cost == nil or c < cost) then best, cost = f, c end
  end
  return best, cost
end

local path_rule = { rail = "5.5", strategic = "5.4", regular = "5.2.1" }
local path_name = { rollbahn = "Roll-Bahn", road = "road", trail = "trail", railroad = "rail line" }

-- 5.1.2: one line per hex entered along a chosen path: its cost (computed by the search in Rust,
-- map.path_cost on the one step) and the rule of each part of it (terrain 5.2, road 5.2.1,
-- river 5.2.2 / bridge 5.2.4, EZOC 4.1, strategic 5.4, rail 5.5). Explains one path after the
-- search; the search itself never calls Lua.
-- The hex-keyed parts of a profile kept for the hexes of `on` only: a table `{hex = mp}` (EZOC
-- extras) and the blocked hexes (a list, or a set).
local function amounts_on(amounts, on)
  if not amounts then return nil end
  local kept = {}
  for h in pairs(on) do kept[h] = amounts[h] end
  return kept
end
local function blocked_on(blocked, on)
  if not blocked then return nil end
  local kept = {}
  if blocked[1] ~= nil then
    for _, h in ipairs(blocked) do if on[h] then kept[#kept + 1] = h end end
  else
    for h in pairs(blocked) do if on[h] then kept[#kept + 1] = h end end
  end
  return kept
end

-- `prof` with no MP limit and no stop, its hex-keyed tables cut to the hexes of `path`: a step
-- A→B is priced from A and B alone (blocked B, entering B, leaving A), so each step's price is
-- the same and map.path_cost reads a few hexes instead of the whole front's EZOC.
local function along(prof, path)
  local on = {}
  for _, h in ipairs(path) do on[h] = true end
  local free = unlimited(prof)
  free.stop = nil
  free.enter_extra, free.leave_extra = amounts_on(prof.enter_extra, on), amounts_on(prof.leave_extra, on)
  free.blocked = blocked_on(prof.blocked, on)
  return free
end

function M.explain_path(prof, path, kind)
  local free = along(prof, path)
  local run
  local function flush()
    if not run then return end
    if run.n == 1 then
      log.rule(run.rule, ("%s → %s: %s"):format(run.from, run.to, run.what))
    else
      log.rule(run.rule, ("%s → %s (%d hexes): %s each"):format(run.from, run.to, run.n, run.what))
    end
    run = nil
  end
  for i = 2, #path do
    local a, b = path[i - 1], path[i]
    local cost = map.path_cost(free, { a, b })
    local parts, rule = {}, "5.2"
    local f, c = path_of(prof, a, b)
    if f then
      rule = path_rule[kind]
      parts[#parts + 1] = ("%s %s (%s%s)"):format(path_name[f] or f, map.fmt_cost(c), rule,
        kind == "regular" and ", instead of the hex and hexside costs" or "")
    else
      local t = map.terrain(b)
      local tc = prof.terrain and prof.terrain[t]
      local text = ("%s %s"):format(t, type(tc) == "number" and map.fmt_cost(tc) or tostring(tc))
      for feat, fc in pairs(prof.features or {}) do
        if map.has(b, feat) and type(fc) == "number" then
          text = text .. (", %s %s: the dearer counts"):format(feat, map.fmt_cost(fc))
        end
      end
      parts[#parts + 1] = text .. " (5.2)"
      local sides = map.hexside(a, b)
      local bridged = C.contains(sides, "bridge")
      for _, x in ipairs(sides) do
        local hc = prof.hexsides and prof.hexsides[x]
        if type(hc) == "number" then
          if bridged then
            parts[#parts + 1] = ("bridged %s +0 (5.2.4)"):format(x)
          else
            parts[#parts + 1] = ("unbridged %s +%s (5.2.2)"):format(x, map.fmt_cost(hc))
          end
        end
      end
    end
    if prof.leave_extra and prof.leave_extra[a] then
      parts[#parts + 1] = ("leaving an EZOC +%s (4.1)"):format(map.fmt_cost(prof.leave_extra[a]))
    end
    if prof.enter_extra and prof.enter_extra[b] then
      parts[#parts + 1] = ("entering an EZOC +%s (4.1)"):format(map.fmt_cost(prof.enter_extra[b]))
    end
    local stops = ""
    for _, s in ipairs(prof.stop or {}) do if s == b then stops = "; an EZOC: the move stops here (5.5.2)" end end
    local what = ("%s = %s MP%s"):format(table.concat(parts, " + "), cost and map.fmt_cost(cost) or "?", stops)
    -- hexes entered alike in a row (a rail line, a road) make one line
    if run and run.what == what and run.rule == rule then
      run.to, run.n = b, run.n + 1
    else
      flush()
      run = { from = a, to = b, n = 1, what = what, rule = rule }
    end
  end
  flush()
end

-- 5.1: every hex the unit could reach now by regular movement, with its cost (the `map reach`
-- overlay and Tab after `move <unit> `); one search in Rust.
function M.reach(u)
  return (map.reach(M.profile(u.side, u.hex, M.allowance(u), { overrun = C.attack(u) > 0 })))
end

-- Why `to` cannot be reached: names the real reason (5.3 enemy units, 5.1.1 too far, 5.4.1 an
-- EZOC or no road for strategic movement, 5.2.x terrain) and refuses under its rule.
---@param prof table
---@param side string
---@param from Umpire.Hex
---@param to Umpire.Hex
---@param mp number
---@param who string
---@param strategic? boolean
local function refuse_unreachable(prof, side, from, to, mp, who, strategic)
  local free = unlimited(prof)
  local need, path = map.route(free, to)
  local ez = zoc.ezoc(side)
  if need and strategic then
    -- 5.4.1: within reach but for the EZOCs it may not enter?
    local open = unlimited(prof)
    open.mp, open.blocked = mp, {}
    for h in pairs(C.occupied(C.other(side))) do open.blocked[#open.blocked + 1] = h end
    local near, near_path = map.route(open, to)
    if near then
      local through = {}
      for i = 2, #near_path - 1 do if ez[near_path[i]] then through[#through + 1] = near_path[i] end end
      umpire.refuse("5.4.1", ("%s cannot reach %s by strategic movement: the road within its %s MP passes through enemy ZOCs (%s), which strategic movement may not enter; around them it needs %s MP"):format(
        who, to, map.fmt_cost(mp), table.concat(through, ", "), map.fmt_cost(need)))
    end
  end
  if need then
    umpire.refuse("5.1.1", ("%s cannot reach %s: it needs %s MP by the cheapest path (%s) and has %s MP"):format(
      who, to, map.fmt_cost(need), table.concat(path, " → "), map.fmt_cost(mp)))
  end
  -- no path at any cost: lift the enemy units, then (strategic) the EZOCs, to see what blocks it
  free.blocked = {}
  if strategic then
    for h in pairs(ez) do free.blocked[#free.blocked + 1] = h end
  end
  if map.route(free, to) then
    umpire.refuse("5.3", ("%s cannot reach %s: every path to it passes through hexes held by the enemy, which units may not enter"):format(who, to))
  end
  if strategic then
    umpire.check(not ez[to], "5.4.1", "%s is in an enemy ZOC: strategic movement may not enter or end in one", to)
    free.blocked = {}
    if map.route(free, to) then
      umpire.refuse("5.4.1", ("%s cannot reach %s by strategic movement: every road to it enters an enemy ZOC"):format(who, to))
    end
    umpire.refuse("5.4.1", ("%s cannot reach %s by strategic movement: no road leads there (strategic movement follows roads only)"):format(who, to))
  end
  if map.terrain(to) == "restrictive" then
    umpire.refuse("5.2.5", ("%s is restrictive terrain: it may be entered only along a Roll-Bahn, road, trail or rail line, and none leads there from %s"):format(to, from))
  end
  umpire.refuse("5.2.6", ("%s cannot reach %s: every way there crosses prohibited terrain or hexsides (water, the unbridged Oder 5.2.3, restrictive terrain 5.2.5)"):format(who, to))
end

-- 5.3: enemy-occupied hexes may not be entered (a lone HQ may be overrun by combat units with
-- an attack strength, 5.6 / 12.2.6).
local function check_enemy_hex(h, side, overrun, who)
  local enemy = {}
  for _, u in ipairs(units.at(h)) do
    if u.side ~= side and not C.is_air(u) then enemy[#enemy + 1] = u.id end
  end
  if #enemy == 0 then return end
  if lone_hq(h, side) then
    umpire.check(overrun, "5.3", "%s holds only the enemy HQ %s: only combat units with an attack strength may overrun it (5.6, 12.2.6)", h, enemy[1])
    return
  end
  umpire.refuse("5.3", ("%s is held by the enemy (%s): %s may not enter an enemy-occupied hex"):format(h, table.concat(enemy, ", "), who))
end

-- The checks on one unit of a stack moving from `from` (`rail`: by rail), in the order the
-- verb refuses them; `check` is umpire.check in the verb, a quiet one in the list of actions.
function M.check_mover(u, from, rail, check)
  check = check or umpire.check
  -- (the unit's id, hex and side, and the active side, read once for all the checks)
  local id, hex, side, active = u.id, u.hex, u.side, sides.active()
  check(hex ~= nil, "5.1", "%s is not on the map", id)
  -- 5.5 rail movement is for reinforcements; also for the 3rd Army's two independents (3.1.5)
  -- and for withdrawing units (19.1.3)
  check(not rail or u:marker("reinforcement") or u:marker("anywhere") or u:attr("withdrawing"), "5.5",
    "only reinforcements may use rail movement (%s is not one)", id)
  -- 5.3: only friendly units move in a friendly phase; in the reinforcement phase no side is
  -- active and the reinforcements of both sides move (2.5, 7.1.1)
  check(side == active or u:marker("reinforcement"), "5.3", "only %s move now (%s is %s)",
    active and ("the " .. active .. " player's units") or "reinforcements", id,
    active and side or ("a " .. side .. " unit, not a reinforcement"))
  check(hex == from, "5.1", "units moved together must start in the same hex (%s is in %s)", id, hex)
  check(not C.is_air(u), "13.0", "air units do not move on the map")
  check(not u:attr("festung"), "12.3", "a Festung may not move")
  check(command.is_active(u), "3.3.5", "%s is not activated: out of command units may not move", id)
  check(not u:marker("moved"), "5.1", "%s has already moved in this activation", id)
  check(not u:marker("pinned"), "5.3", "%s is pinned and may not move (8.1.2)", id)
end

-- The steps in which units move: the Movement Segment of an activation (2.3.2), the Reinforcement
-- Phase (7.1.1) and the arrivals of 19.1.5 (the `move` verb's phases).
M.STEPS = { "movement", "reinforcement", "arrivals" }

-- Why `u` cannot move now, for `show` (nil when it may): the wrong segment, or the first check
-- of the move verb that refuses the unit (not activated, already moved, pinned...) with its rule.
function M.why_not_now(u)
  local clock = umpire.clock()
  local now = false
  for _, s in ipairs(M.STEPS) do if s == clock.step then now = true end end
  if not now then
    return "2.3.2", ("units move in the Movement Segment of an activation, the arrivals (19.1.5) and the Reinforcement Phase (7.1.1), not in %s"):format(
      clock.phase ~= "" and clock.phase or "no phase")
  end
  return checks.first_failure(function(check) M.check_mover(u, u.hex, false, check) end)
end

-- 5.1, 12.1, 19.1.3-19.1.5, 3.1.5: the checks on each unit of a moving stack (by strategic
-- movement, those that may not use it). Returns the stack's allowance: the least of its units'.
---@param list UnitRef[]
---@param from Umpire.Hex
---@param strategic? boolean
---@param rail? boolean
---@return number mp
local function check_movers(list, from, strategic, rail)
  local side = list[1].side
  local turn = umpire.clock().turn
  local mp = math.huge
  for _, u in ipairs(list) do
    M.check_mover(u, from, rail)
    if strategic then
      umpire.check(not (side == "Soviet" and turn == 1), "12.1", "no Soviet strategic movement on turn 1")
      umpire.check(not ((u.id == "2GT-HQ" or u:attr("formation") == "2GT-HQ") and vars.get("gta_out_of_fuel") == turn), "19.1.4",
        "the 2nd Guards Tank Army is out of fuel this turn")
      umpire.check(not u:marker("no_strategic"), "19.1.5", "%s may not use strategic movement on arrival", u.id)
      umpire.check(not u:attr("withdrawing"), "19.1.3", "%s is withdrawing (Defend the Reich): regular or rail movement only", u.id)
      umpire.check(not u:marker("anywhere"), "3.1.5", "%s moves with the 3rd Army chit: regular or rail movement only", u.id)
    end
    mp = math.min(mp, M.allowance(u))
  end
  return mp
end

-- 5.6 / 12.2.6: a stack may overrun a lone enemy HQ when every unit of it is a combat unit with
-- an attack strength.
---@param list UnitRef[]
---@return boolean
local function may_overrun(list)
  local overrun = true
  for _, u in ipairs(list) do if not C.is_combat(u) or C.attack(u) <= 0 then overrun = false end end
  return overrun
end

-- 5.5.2: a rail move that cannot reach `to`: when a rail line leads there but enters an enemy
-- ZOC on the way, the move would stop there (named); else no rail line leads there (5.5).
---@param side string
---@param from Umpire.Hex
---@param to Umpire.Hex
---@param who string the stack's name in refusals
local function refuse_rail(side, from, to, who)
  local free = M.rail_profile(side, from)
  free.stop = nil
  local _, free_path = map.route(free, to)
  if free_path then
    local ez = zoc.ezoc(side)
    for i = 2, #free_path - 1 do
      if ez[free_path[i]] then
        umpire.refuse("5.5.2", ("a move by rail stops on entering an enemy ZOC: %s would have to stop in %s, short of %s"):format(who, free_path[i], to))
      end
    end
  end
  umpire.refuse("5.5", ("%s cannot reach %s by rail"):format(who, to))
end

-- 5.1.2: the path of a move, along the hexes named (`to`, then `via`, as typed) or by the
-- cheapest route to `to`, and its cost; a path the profile refuses is refused with the
-- rule that stops it (5.5.2 an EZOC on a rail line, 5.1.1 too far, 5.1.2 otherwise; a route
-- not found: refuse_rail, refuse_unreachable).
---@param prof table the movement profile
---@param list UnitRef[]
---@param from Umpire.Hex
---@param to Umpire.Hex
---@param via? Umpire.Hex[]
---@param mp number
---@param who string the stack's name in refusals
---@param strategic? boolean
---@param rail? boolean
---@return number cost
---@return Umpire.Hex[] path
local function find_path(prof, list, from, to, via, mp, who, strategic, rail)
  local side = list[1].side
  local cost, path
  if via and #via > 0 then
    path = { from, to }
    for _, h in ipairs(via) do path[#path + 1] = h end
    local why
    cost, why = map.path_cost(prof, path)
    if not cost then
      -- 5.5.2: a rail move ends in the first EZOC hex it enters
      if rail and why:find("the move must end in", 1, true) then umpire.refuse("5.5.2", why .. " (an enemy ZOC)") end
      if why:find("more than the", 1, true) then umpire.refuse("5.1.1", why) end
      umpire.refuse("5.1.2", why)
    end
  else
    cost, path = map.route(prof, to)
    -- 5.5.2: a rail move ends in the first EZOC hex it enters: name it when that is what stops
    -- the unit short of `to`
    if not cost and rail then refuse_rail(side, from, to, who) end
    if not cost then refuse_unreachable(prof, side, from, to, mp, who, strategic) end
  end
  return cost, path
end

-- 5.2.5, 6.0, 5.5.2, 5.5.3, 5.4.1: where the path may end and what it may pass: never a transit
-- hex at its end, the stacking limit at its end (and at every hex of a rail or strategic move),
-- a rail move from an EZOC ending away from enemy units.
---@param list UnitRef[]
---@param from Umpire.Hex
---@param path Umpire.Hex[]
---@param strategic? boolean
---@param rail? boolean
local function check_path(list, from, path, strategic, rail)
  local side = list[1].side
  local dest = path[#path]
  umpire.check(not map.has(dest, "transit"), "5.2.5", "%s is a transit hex: units may pass through but not stop there", dest)
  local rule, why = M.stacking_problem(dest, list)
  if rule then umpire.refuse(rule, why) end
  if rail then
    -- 5.5.2 a unit that starts in an EZOC may leave it by rail but must end away from the enemy
    if zoc.ezoc(side)[from] then
      for _, n in ipairs(map.neighbours(dest)) do
        umpire.check(not C.occupied(C.other(side))[n], "5.5.2", "leaving an EZOC by rail, the move must end away from enemy units")
      end
    end
    for i = 2, #path - 1 do
      local r, w = M.stacking_problem(path[i], list)
      if r then umpire.refuse("5.5.3", "rail movement may not pass over the stacking limit: " .. w) end
    end
  end
  if strategic then
    -- 5.4.1 the stacking limit holds at every hex of a strategic move
    for i = 2, #path - 1 do
      local r, w = M.stacking_problem(path[i], list)
      if r then umpire.refuse("5.4.1", "strategic movement may not pass over the stacking limit: " .. w) end
    end
  end
end

-- 5.4.2 fuel: German strategic movement costs one chit next turn (the same turn on turn 10), at
-- most one a turn.
local function german_fuel()
  local turn = umpire.clock().turn
  local mods = vars.get("chit_mods") or {}
  local t = turn == 10 and 10 or turn + 1
  local already = false
  for _, m in ipairs(mods) do if m.fuel and m.turn == t then already = true end end
  if not already then
    mods[#mods + 1] = { side = "German", turn = t, delta = -1, fuel = true }
    vars.set("chit_mods", mods)
    log.rule("5.4.2", ("German strategic movement: one chit fewer on turn %d"):format(t))
  end
end

-- 5.1.2: the stack moves along `path` (the MP spent kept for a later exit, 14.2.1), each hex
-- entered logged with its cost, then the move with its total; a lone enemy HQ at the end is
-- overrun (5.6, 12.2.6); the hexes entered are taken for victory (14.1); withdrawing units
-- reaching Altdamm leave (19.1.3).
---@param list UnitRef[]
---@param prof table the movement profile
---@param from Umpire.Hex
---@param path Umpire.Hex[]
---@param cost number
---@param strategic? boolean
---@param rail? boolean
local function carry_out(list, prof, from, path, cost, strategic, rail)
  local dest = path[#path]
  -- 5.6 / 12.2.6 overrun: a lone enemy HQ in the destination is relocated
  local hq = lone_hq(dest, list[1].side)
  for _, u in ipairs(list) do
    u:move_to(dest)
    u:set_marker("moved", 1)
    -- MP spent, in 1/60 MP, for a later exit off the map (14.2.1); none left after a rail or
    -- strategic move (14.2.1: no strategic movement off the map)
    u:set_marker("mp_spent", (rail or strategic) and 60 * 1000 or math.floor(cost * 60 + 0.5))
  end
  -- 5.1.2: each hex entered with its cost, then the move with its total (the last entry)
  M.explain_path(prof, path, rail and "rail" or strategic and "strategic" or "regular")
  local ids = {}
  for i, u in ipairs(list) do ids[i] = u.id end
  log.rule(rail and "5.5" or strategic and "5.4" or "5.1", ("%s %s %s → %s for %s MP%s"):format(
    #list == 1 and list[1].id or table.concat(ids, ","),
    rail and "moves by rail" or strategic and "moves strategically" or "moves", from, dest, map.fmt_cost(cost),
    #path > 2 and (" via " .. table.concat(path, " ", 2, #path - 1)) or ""))
  if hq then
    log.rule("12.2.6", list[1].id .. " overruns the lone HQ " .. hq.id)
    headquarters.relocate(hq)
  end
  for _, u in ipairs(list) do M.entered(u, { table.unpack(path, 2) }) end
  -- 19.1.3: withdrawing units are picked up at Altdamm (07.16)
  if dest == "07.16" then
    for _, u in ipairs(list) do
      if u:attr("withdrawing") then
        u:put_in("withdrawn")
        log.rule("19.1.3", u.id .. " reaches 07.16 and is withdrawn")
      end
    end
  end
end

-- Moves units (one stack at a time) along the cheapest route or the hexes given: the units'
-- checks, the profile of the kind of move (regular 5.1, strategic 5.4, rail 5.5), the hexes
-- named (5.2.6, 5.3), the path and where it ends, then the move itself.
---@param list UnitRef[]
---@param to Umpire.Hex
---@param via? Umpire.Hex[]
---@param strategic? boolean
---@param rail? boolean
function M.move(list, to, via, strategic, rail)
  local side = list[1].side
  local from = list[1].hex
  local mp = check_movers(list, from, strategic, rail)
  local overrun = may_overrun(list)
  umpire.check(not (rail and strategic), "5.5.3", "a move is either by rail or strategic, not both")
  local prof = rail and M.rail_profile(side, from) or M.profile(side, from, mp, { strategic = strategic, overrun = overrun })
  if strategic then
    umpire.check(on_road(from), "5.4.1", "strategic movement must begin in a road hex")
    umpire.check(not zoc.ezoc(side)[from], "5.4.1", "strategic movement may not begin in an enemy ZOC")
  end
  local who = #list == 1 and list[1].id or "the stack"
  -- 5.2.6: never into a water hex (the map has no impassable hexside; a hex off the map cannot
  -- even be named in a move, 5.7)
  for _, h in ipairs { to, table.unpack(via or {}) } do
    umpire.check(map.terrain(h) ~= "lake", "5.2.6", "%s is a water hex: units may not enter it", h)
    check_enemy_hex(h, side, overrun and not rail, who)
  end
  local cost, path = find_path(prof, list, from, to, via, mp, who, strategic, rail)
  check_path(list, from, path, strategic, rail)
  if strategic and side == "German" then german_fuel() end                  -- 5.4.2
  carry_out(list, prof, from, path, cost, strategic, rail)
  victory.check_sudden_death()
end

-- 14.2.1: a mechanized unit of the 3rd SS Panzer Corps leaves the map via the Landsberg edge
-- (turns 1-3, in supply, activated, once Arnswalde is relieved), paying what the hex it leaves
-- costs; what three such exits win is victory.lua's (victory.exited).
---@param u UnitRef
function M.exit_map(u)
  local turn = umpire.clock().turn
  umpire.check(turn <= 3, "14.2.1", "units may exit only on turns 1-3")
  umpire.check(u.side == "German" and C.is_mech(u) and u:attr("formation") == "3SS-PZ-HQ", "14.2.1",
    "only mechanized units of the 3rd SS Panzer Corps may exit")
  umpire.check(not u:marker("oos") and not u:marker("isolated"), "14.2", "%s must be in supply and not isolated", u.id)
  umpire.check(command.is_active(u), "3.3.5", "%s is not activated: out of command units may not move", u.id)
  umpire.check(map.in_area("landsberg_edge", u.hex), "14.2.1", "%s is not on the Landsberg edge (15.01-35.01)", u.id)
  -- 14.2.1: the exit costs what the occupied hex costs, from what is left of the allowance
  -- (a unit may move to the edge and then leave)
  local cost = M.exit_cost(u.hex)
  local left = M.allowance(u) - (u:marker("mp_spent") or 0) / 60
  umpire.check(cost ~= nil and cost <= left + 1e-9, "14.2.1", "%s has %s MP left; leaving from %s costs %s",
    u.id, map.fmt_cost(math.max(left, 0)), u.hex, cost and map.fmt_cost(cost) or "?")
  umpire.check(vars.get("arnswalde_relieved"), "14.2.1", "the siege of Arnswalde must be lifted first (14.1.2)")
  u:put_in("exited")
  log.rule("14.2.1", u.id .. " leaves the map via the Landsberg supply line")
  victory.exited()
end

-- ------------------------------------------------------------------ verbs
umpire.command {
  usage = "move <units> <hex> [<hex>...] [strategic] [rail]",
  help = "move a unit or a stack to a hex by the cheapest route, or along the hexes given; `strategic` for strategic movement, `rail` for reinforcements by rail",
  example = "move 4Pz/4SS 13.12      move 44Pz/233 16.16 17.16 strategic      move 234P/163 30.20 rail",
  rule = "5.1, 5.4, 5.5", phases = M.STEPS,
  run = function(list, to, via, strategic, rail) M.move(list, to, via, strategic, rail) end,
}

umpire.command {
  usage = "exit <unit>",
  help = "German: move a mechanized 3rd SS unit off the map via the Landsberg edge (14.2.1)",
  rule = "14.2.1", phases = { "movement" },
  run = function(u) M.exit_map(u) end,
}

return M
