-- Stargard Solstice 5.0 Movement, 6.0 Stacking, 4.1 EZOC costs, 5.6 / 12.2.6 overrun of lone HQs.
local T = require "tables"
local C = require "common"
local command = require "command"
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
local function lone_hq(hex, side)
  local stack = units.at(hex)
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

-- What the map itself costs in regular movement (5.2, TEC): terrain, features, paths and
-- hexsides, with no unit, ZOC or MP limit. The base of every regular-movement profile, and of
-- the checks of what a unit could enter (10.5).
function M.terrain_profile()
  return { terrain = T.terrain_cost, features = T.feature_cost, paths = T.path_cost,
           hexsides = T.hexside_cost, cancels = T.cancels }
end

-- The movement profile of a side (5.1.2, 5.2, 4.1), for regular or strategic movement.
function M.profile(side, from, mp, opts)
  opts = opts or {}
  local ez = C.ezoc(side)
  local enter, leave, blocked = {}, {}, {}
  for h in pairs(ez) do enter[h] = T.ezoc_enter; leave[h] = T.ezoc_leave end        -- 4.1
  for h in pairs(C.occupied(C.enemy(side))) do                                      -- 5.3
    if not (opts.overrun and lone_hq(h, side)) then blocked[#blocked + 1] = h end
  end
  if opts.strategic then                                                            -- 5.4.1
    for h in pairs(ez) do blocked[#blocked + 1] = h end
    return { from = from, mp = mp, paths = T.strategic_cost, paths_only = true, hexsides = T.hexside_cost,
      cancels = T.cancels, terrain = T.terrain_cost, blocked = blocked }
  end
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

-- 6.0 stacking at the end of a move: two combat units and one HQ; never with enemy units;
-- HQs never together (6.3).
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
  if combat > 2 then return "6.0", ("%d combat units would stand in %s; the limit is 2"):format(combat, hex) end
  if hqs > 1 then return "6.3", "two HQs may not stack together in " .. hex end
  return nil
end

-- 14.1: Soviet combat units able to control (ZOC, defense 1+) take VP hexes they enter;
-- German units take them back.
function M.entered(u, hexes)
  local victory = require "victory"
  for _, h in ipairs(hexes) do victory.enter(u, h) end
end

-- 5.5 rail movement (reinforcements only): along rail lines, unblocked by enemy units; entering
-- an EZOC stops the move (5.5.2); the stacking limit holds at every hex (5.5.3).
function M.rail_profile(side, from)
  local ez = C.ezoc(side)
  local stop, blocked = {}, {}
  for h in pairs(ez) do stop[#stop + 1] = h end
  for h in pairs(C.occupied(C.enemy(side))) do blocked[#blocked + 1] = h end
  return { from = from, paths = { railroad = 0 }, paths_only = true, hexsides = T.hexside_cost, cancels = T.cancels,
    terrain = T.terrain_cost, stop = stop, blocked = blocked }
end

-- Moves units (one stack at a time) along the cheapest route or the hexes given.
function M.move(list, to, via, strategic, rail)
  local side = list[1].side
  local from = list[1].hex
  local turn = umpire.clock().turn
  local mp = math.huge
  for _, u in ipairs(list) do
    umpire.check(u.hex ~= nil, "5.1", "%s is not on the map", u.id)
    -- 5.5 rail movement is for reinforcements; also for the 3rd Army's two independents (3.1.5)
    -- and for withdrawing units (19.1.3)
    umpire.check(not rail or u:marker("reinforcement") or u:marker("anywhere") or u:attr("withdrawing"), "5.5",
      "only reinforcements may use rail movement (%s is not one)", u.id)
    umpire.check(u.side == sides.active() or u:marker("reinforcement"), "5.3", "only the active player's units move now (%s is %s)", u.id, u.side)
    umpire.check(u.hex == from, "5.1", "units moved together must start in the same hex (%s is in %s)", u.id, u.hex)
    umpire.check(not C.is_air(u), "13.0", "air units do not move on the map")
    umpire.check(not u:attr("festung"), "12.3", "a Festung may not move")
    umpire.check(command.is_active(u), "3.3.5", "%s is not activated: out of command units may not move", u.id)
    umpire.check(not u:marker("moved"), "5.1", "%s has already moved in this activation", u.id)
    umpire.check(not u:marker("pinned"), "5.3", "%s is pinned and may not move (8.1.2)", u.id)
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
  local overrun = true
  for _, u in ipairs(list) do if not C.is_combat(u) or C.attack(u) <= 0 then overrun = false end end
  umpire.check(not (rail and strategic), "5.5.3", "a move is either by rail or strategic, not both")
  local prof = rail and M.rail_profile(side, from) or M.profile(side, from, mp, { strategic = strategic, overrun = overrun })
  if strategic then
    umpire.check(on_road(from), "5.4.1", "strategic movement must begin in a road hex")
    umpire.check(not C.ezoc(side)[from], "5.4.1", "strategic movement may not begin in an enemy ZOC")
  end
  local who = #list == 1 and list[1].id or "the stack"
  -- 5.2.6: never into a water hex (the map has no impassable hexside; a hex off the map cannot
  -- even be named in a move, 5.7)
  for _, h in ipairs { to, table.unpack(via or {}) } do
    umpire.check(map.terrain(h) ~= "lake", "5.2.6", "%s is a water hex: units may not enter it", h)
  end
  local cost, path
  if via and #via > 0 then
    path = { from, to }
    for _, h in ipairs(via) do path[#path + 1] = h end
    local why
    cost, why = map.path_cost(prof, path)
    if not cost then
      -- 5.5.2: a rail move ends in the first EZOC hex it enters
      if rail and why:find("the move must end in", 1, true) then umpire.refuse("5.5.2", why .. " (an enemy ZOC)") end
      umpire.refuse("5.1.2", why)
    end
  else
    cost, path = map.route(prof, to)
    if not cost and rail then
      -- 5.5.2: a rail move ends in the first EZOC hex it enters: name it when that is what stops
      -- the unit short of `to`
      local free = M.rail_profile(side, from)
      free.stop = nil
      local _, free_path = map.route(free, to)
      if free_path then
        local ez = C.ezoc(side)
        for i = 2, #free_path - 1 do
          if ez[free_path[i]] then
            umpire.refuse("5.5.2", ("a move by rail stops on entering an enemy ZOC: %s would have to stop in %s, short of %s"):format(who, free_path[i], to))
          end
        end
      end
      umpire.refuse("5.5", ("%s cannot reach %s by rail"):format(who, to))
    end
    if not cost then
      umpire.refuse("5.1.1", ("%s cannot reach %s with %s MP"):format(who, to, map.fmt_cost(mp)))
    end
  end
  local dest = path[#path]
  umpire.check(not map.has(dest, "transit"), "5.2.5", "%s is a transit hex: units may pass through but not stop there", dest)
  local rule, why = M.stacking_problem(dest, list)
  if rule then umpire.refuse(rule, why) end
  if rail then
    -- 5.5.2 a unit that starts in an EZOC may leave it by rail but must end away from the enemy
    if C.ezoc(side)[from] then
      for _, n in ipairs(map.neighbours(dest)) do
        umpire.check(not C.occupied(C.enemy(side))[n], "5.5.2", "leaving an EZOC by rail, the move must end away from enemy units")
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
    if side == "German" then
      -- 5.4.2 fuel: one chit fewer next turn (the same turn on turn 10), at most one
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
  end
  -- 5.6 / 12.2.6 overrun: a lone enemy HQ in the destination is relocated
  local hq = lone_hq(dest, side)
  for _, u in ipairs(list) do
    u:move_to(dest)
    u:set_marker("moved", 1)
    -- MP spent, in 1/60 MP, for a later exit off the map (14.2.1); none left after a rail or
    -- strategic move (14.2.1: no strategic movement off the map)
    u:set_marker("mp_spent", (rail or strategic) and 60 * 1000 or math.floor(cost * 60 + 0.5))
  end
  log.rule(rail and "5.5" or strategic and "5.4" or "5.1", ("%s %s %s → %s for %s MP%s"):format(
    #list == 1 and list[1].id or table.concat((function() local t = {} for i, u in ipairs(list) do t[i] = u.id end return t end)(), ","),
    rail and "moves by rail" or strategic and "moves strategically" or "moves", from, dest, map.fmt_cost(cost),
    #path > 2 and (" via " .. table.concat(path, " ", 2, #path - 1)) or ""))
  if hq then
    log.rule("12.2.6", list[1].id .. " overruns the lone HQ " .. hq.id)
    require("hq").relocate(hq)
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
  require("victory").check_sudden_death()
end

return M
