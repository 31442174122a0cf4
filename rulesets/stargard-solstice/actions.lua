-- Stargard Solstice: what may be done now (umpire.actions; docs/lua-api.md §2.6). Every command
-- listed is one the verbs accept: the checks are the rules' own (movement.lua, combat.lua,
-- advance.lua, air.lua); where a verb has no quiet form of its checks (bombard, replace,
-- volksturm, withdraw, exit, an advance's second hex) the same conditions are asked here, in the
-- verb's order, of the same helpers.
--
-- Listed: each activated unit's regular moves, alone, with the units of its hex that may move as
-- one stack (5.1) and with each part of that stack of two units or more, to every hex the movement
-- search reaches (5.1, 5.2, 4.1) that they may end in (5.2.5 transit, 5.2.6 water, 6.0 stacking)
-- and that holds no enemy unit but a lone HQ they may overrun (5.3, 5.6, 12.2.6); the same units'
-- strategic moves (5.4, 5.4.1: from a road hex out of an EZOC, never into one, not Soviet on turn
-- 1 12.1, 19.1.4, 19.1.5, 19.1.3, 3.1.5) and rail moves (5.5: reinforcements, 3.1.5, 19.1.3;
-- 5.5.2 the EZOC that stops them, the end away from the enemy when they start in one), to every
-- hex whose route, the one the verb takes (the cheapest, the search's own tie-break), passes over
-- no hex at the stacking limit (5.4.1, 5.5.3): a hex reached only round a full one is left out,
-- as the verb would refuse it; the exits of 3rd SS mechanized units (14.2.1); one attack on each
-- enemy stack with every activated unit that may join it, when the odds reach 1:2 (8.0-8.4, the
-- same odds the attack works out), and the same attack with air support (13.1: each air unit
-- normal or full, and two together); the advances after combat of each attacker alone, of the
-- attackers of one hex together, of an HQ with its stack (10.0, 10.2, 12.2.4) and on into a
-- second hex (10.3); bombardments (8.5.1); replacements with the point the verb picks by default
-- and with each other kind of point the side holds, named (7.3, 19.1.11, 19.1.13); Volksturm
-- deployments (12.4, the first unit of the box: they are alike); the Soviet chit withdrawals
-- (12.6, 16.1, in the Soviet player's own segments); `next`.
-- Not listed (compact forms; each may be typed, and the verb accepts it where the rules allow):
-- moves along hexes named (`move <unit> <hex> <hex>...`): one entry a unit and destination, by
-- the route the verb picks, so a strategic or rail move to a hex whose route passes a full hex
-- is left out though a route round it may fit (named hex by hex, the verb takes that one); the
-- parts of a stack of more than 4 movers (only reinforcements placed overstacked, 6.2), whose
-- units are listed alone.
local T = require "tables"
local C = require "common"
local zoc = require "zoc"
local movement = require "movement"
local combat = require "combat"
local advance = require "advance"
local command = require "command"
local air = require "air"
local reinforce = require "reinforce"
local supply = require "supply"
local sets = require "sets"     -- rulesets/lib
local checks = require "checks" -- rulesets/lib

local M = {}

-- 5.1: may `u` move now, alone and by regular movement? (the verb's own checks)
local function may_move(u)
  -- (a unit that has moved or is pinned fails them: asked first, before the others)
  if u:marker("moved") or u:marker("pinned") then return false end
  return u.hex ~= nil and checks.passes(function(check) movement.check_mover(u, u.hex, false, check) end)
end

-- 6.0, 6.3: what a unit counts towards the stacking limit: a combat unit (a Festung not
-- counted), an HQ (its kind read once).
---@return integer combat, integer hqs
local function counts(u)
  local kind = u.kind
  if kind == "hq" then return 0, 1 end
  if kind == "air" or u:attr("festung") then return 0, 0 end
  return 1, 0
end

-- 6.0, 6.3 for a unit moving alone into `h` (not its own hex): what movement.stacking_problem
-- checks, counted once per call from the stacks (two combat units, a Festung not counted; one HQ).
-- Returns, for a unit, the set of hexes it may not end in (made once per kind of unit).
local function stacking(stacks)
  -- over_c[k]: the hexes holding more than k combat units, in hex order; over_q[k] for HQs
  local over_c, over_q = {}, {}
  local function note(over, h, n)
    for k = 0, n - 1 do
      over[k] = over[k] or {}
      over[k][#over[k] + 1] = h
    end
  end
  for h, stack in pairs(stacks) do
    local nc, nq = 0, 0
    for _, u in ipairs(stack) do
      local c, q = counts(u)
      nc, nq = nc + c, nq + q
    end
    note(over_c, h, nc)
    note(over_q, h, nq)
  end
  local full = {}
  -- at most 2 combat units and 1 HQ with `u` (T.stacking), or with the units of a stack
  return function(u_or_list)
    local list = u_or_list.id and { u_or_list } or u_or_list
    local nc, nq = 0, 0
    for _, u in ipairs(list) do
      local c, q = counts(u)
      nc, nq = nc + c, nq + q
    end
    local max_c = T.stacking.combat - nc
    local max_q = T.stacking.hq - nq
    local key = max_c * 10 + max_q
    if not full[key] then
      local set = {}
      for _, h in ipairs(over_c[math.max(max_c, 0)] or {}) do set[h] = true end
      for _, h in ipairs(over_q[math.max(max_q, 0)] or {}) do set[h] = true end
      full[key] = set
    end
    return full[key]
  end
end

-- 5.3 / 5.6 / 12.2.6: the enemy-held hexes a move may not end in: all of them, but those holding
-- only an enemy HQ (`lone`, movement.lone_hqs), which units that may overrun it may end in (the
-- move the verb accepts; the others cannot reach them, steps_into)
local function ends_barred(enemy, lone)
  if next(lone) == nil then return enemy end
  local barred = {}
  for h in pairs(enemy) do
    if not lone[h] then barred[h] = true end
  end
  return barred
end

-- 5.3: the steps into the hexes of `lone` (lone enemy HQs), forbidden (map.moves' side_cost) to
-- a stack that may not overrun them: its search is that of the stacks that may, those hexes
-- blocked (nil when there are none)
local function steps_into(lone)
  if next(lone) == nil then return nil end
  local no = {}
  for h in pairs(lone) do
    for _, n in ipairs(map.neighbours(h)) do no[n .. ">" .. h] = "no" end
  end
  return no
end

-- 5.6 / 12.2.6: a stack may overrun a lone enemy HQ when every unit of it is a combat unit with
-- an attack strength (what the move verb asks)
local function may_overrun(list)
  for _, u in ipairs(list) do
    if not (C.is_combat(u) and C.attack(u) > 0) then return false end
  end
  return true
end

-- 6.0, 6.3: whether a stack by itself keeps the stacking limit (two combat units, a Festung not
-- counted; one HQ)
local function within_limit(list)
  local nc, nq = 0, 0
  for _, u in ipairs(list) do
    local c, q = counts(u)
    nc, nq = nc + c, nq + q
  end
  return nc <= T.stacking.combat and nq <= T.stacking.hq
end

-- The movers of each hex holding two or more of one side, in hex order (5.1: a stack moves
-- together from one hex).
local function stacks_of(movers)
  local by_hex, hexes = {}, {}
  for _, u in ipairs(movers) do
    local k = u.hex .. " " .. u.side
    if not by_hex[k] then by_hex[k] = {} hexes[#hexes + 1] = k end
    local g = by_hex[k]
    g[#g + 1] = u
  end
  table.sort(hexes)
  local out = {}
  for _, k in ipairs(hexes) do
    if #by_hex[k] >= 2 then out[#out + 1] = by_hex[k] end
  end
  return out
end

-- 5.1: the parts of a stack that may move without the rest, each of two units or more and
-- within the limit by itself (the whole stack and each unit alone are listed already). Only for
-- stacks of at most 4 movers: a legal stack holds 3 (two combat units and an HQ: 3 pairs); the
-- larger ones are reinforcements placed overstacked (6.2), whose parts are left out (a compact
-- form: they may be typed).
local function parts_of(list)
  local out = {}
  if #list > 4 then return out end
  for mask = 1, (1 << #list) - 2 do
    local part = {}
    for i, u in ipairs(list) do
      if mask & (1 << (i - 1)) ~= 0 then part[#part + 1] = u end
    end
    if #part >= 2 and within_limit(part) then out[#out + 1] = part end
  end
  return out
end

-- 5.4.1, 12.1, 19.1.4, 19.1.5, 19.1.3, 3.1.5: may the units of `list` move strategically now?
-- The conditions the verb asks of each unit (check_movers) and of the hex they start in, in its
-- order; `ez` is their side's EZOC.
local function may_go_strategic(list, ez, turn)
  local side = list[1].side
  for _, u in ipairs(list) do
    if side == "Soviet" and turn == 1 then return false end                          -- 12.1
    if (u.id == "2GT-HQ" or u:attr("formation") == "2GT-HQ") and vars.get("gta_out_of_fuel") == turn then
      return false                                                                   -- 19.1.4
    end
    if u:marker("no_strategic") then return false end                               -- 19.1.5
    if u:attr("withdrawing") or u:marker("anywhere") then return false end          -- 19.1.3, 3.1.5
  end
  return movement.on_road(list[1].hex) and not ez[list[1].hex]                       -- 5.4.1
end

-- 5.5: may the units of `list` move by rail now (reinforcements, the 3rd Army's independents,
-- withdrawing units)? The verb's checks on each unit with `rail`.
local function may_go_by_rail(list)
  for _, u in ipairs(list) do
    if not checks.passes(function(check) movement.check_mover(u, u.hex, true, check) end) then return false end
  end
  return true
end

-- A shallow copy of a table (a profile searched from another hex).
local function copy(t)
  local c = {}
  for k, v in pairs(t) do c[k] = v end
  return c
end

-- 5.4.1, 5.5.3: the hexes a strategic or rail move from `from` may not end in because the route
-- the verb takes there passes over the stacking limit: `full` are the hexes the movers may not
-- stand in. The verb takes map.route's route (the cheapest, ties broken by the search in hex
-- order) and refuses it when a hex on the way is full; map.reach's `from` is that same route, hex
-- by hex (no arrival of these profiles stops but in an EZOC of a rail move, which ends it), so
-- every hex whose route runs through a full hex before it is left out, even where another route
-- as cheap goes round it (the verb would not take that one). Returns `full` with those hexes
-- added. `known` keeps, for one profile, hex and allowance, the search's routes and the answer
-- for each set `full` (the units of a hex and their stacks share them).
---@param prof table the run's profile (the kind of move, the side)
---@param from Umpire.Hex
---@param mp number|nil the movers' allowance (nil by rail: any distance)
---@param full table<Umpire.Hex, boolean> (one table a kind of mover: stacking's)
---@param known table
local function off_route(prof, from, mp, full, known)
  if known[full] then return known[full] end
  local targets = {}
  for h in pairs(full) do if h ~= from then targets[#targets + 1] = h end end
  local p = copy(prof)
  p.from, p.mp, p.targets, p.routes = from, mp, targets, false
  -- no full hex on any route: none left out
  if #targets == 0 or next((map.reach(p))) == nil then
    known[full] = full
    return full
  end
  if not known.came then
    p.targets, p.routes = nil, nil
    local _, came = map.reach(p)
    known.came = came
  end
  local came = known.came
  -- through[h]: the route to a hex beyond h passes over a full hex (h itself or one before it)
  local through = { [from] = false }
  local function passes(h)
    local chain = {}
    while through[h] == nil do
      chain[#chain + 1] = h
      h = came[h]
      if h == nil then break end
    end
    local over = h ~= nil and through[h] or false
    for i = #chain, 1, -1 do
      over = over or full[chain[i]] == true
      through[chain[i]] = over
    end
    return over
  end
  local out = copy(full)
  for h, prev in pairs(came) do
    if passes(prev) then out[h] = true end
  end
  known[full] = out
  return out
end

-- 5.5.2: the hexes next to an enemy unit (HQs count), where a rail move leaving an EZOC may not end.
local function next_to_enemy(enemy)
  local near = {}
  for h in pairs(enemy) do
    for _, n in ipairs(map.neighbours(h)) do near[n] = true end
  end
  return near
end

-- 5.4.2: a German strategic move costs a chit of the next turn (the same turn on turn 10), the
-- first of a turn only: until that chit is spent a bot picks such moves rarely (weight 0.1).
local function fuel_spent()
  local turn = umpire.clock().turn
  local t = turn == 10 and 10 or turn + 1
  for _, m in ipairs(vars.get("chit_mods") or {}) do
    if m.fuel and m.turn == t then return true end
  end
  return false
end

local KIND_CMD = { regular = "move {unit} {hex}", strategic = "move {unit} {hex} strategic", rail = "move {unit} {hex} rail" }
-- the runs of regular moves listed first, then the strategic and the rail ones
local KIND_ORDER = { regular = "1", strategic = "2", rail = "3" }
local KIND_NOTE = { regular = "{cost} MP", strategic = "strategic, {cost} MP", rail = "rail" }

---@param side string
---@param opts table the options of umpire.actions
---@param out table the list being made
local function moves(side, opts, out)
  -- only units with a marker of 3.3.5 may move (check_mover asks command.is_active)
  local movers = {}
  for _, u in ipairs(units.all { on_map = true, marked = command.ACTIVE_MARKERS }) do
    if (opts.unit == nil or opts.unit == u.id) and may_move(u) then movers[#movers + 1] = u end
  end
  if #movers == 0 then return end
  local stacks = units.stacks()
  local full_of = stacking(stacks)
  local transit = sets.set_of(map.having("transit"))                 -- 5.2.5: pass through only
  local turn = umpire.clock().turn
  -- each side's EZOC, enemy hexes and lone enemy HQs found once per call
  local of_side = {}
  ---@param s string a side
  ---@param overrun boolean
  ---@return table opts of movement.profile
  local function side_opts(s, overrun)
    if not of_side[s] then
      local ez = zoc.ezoc(s, stacks)
      local enter, leave = zoc.costs(ez)
      local enemy = C.occupied(C.other(s))
      of_side[s] = { ezoc = ez, enter = enter, leave = leave, enemy = enemy, lone = movement.lone_hqs(s, enemy, stacks) }
    end
    local o = of_side[s]
    return { overrun = overrun, ezoc = o.ezoc, enter = o.enter, leave = o.leave, enemy = o.enemy, lone = o.lone,
      stacks = stacks }
  end
  -- the side's profile made once per call and kind of move (its EZOC and blocked hexes are the
  -- side's), with and without the overrun of lone HQs; the searches of the units with the same
  -- profile are one call (each from its hex with its allowance). Regular moves share one
  -- profile, that of the units that may overrun: the others' steps into a lone HQ are forbidden
  -- (steps_into), their search otherwise the same.
  local runs, keys, regular, into_lone = {}, {}, {}, {}
  ---@param list UnitRef[]
  ---@param name string the units as the verb reads them
  ---@param kind string regular (5.1), strategic (5.4) or rail (5.5)
  local function add(list, name, kind)
    local rail = kind == "rail"
    local overrun = not rail and may_overrun(list)       -- 5.6: no overrun by rail (check_enemy_hex)
    local s = list[1].side
    local key = KIND_ORDER[kind] .. (overrun and "+" or "-") .. s
    if not runs[key] then
      local o = side_opts(s, overrun)
      o.strategic = kind == "strategic"
      local prof, enemy
      if kind == "regular" then
        regular[s] = regular[s] or { profile = movement.profile(s, list[1].hex, 0, side_opts(s, true)),
          enemy = ends_barred(o.enemy, o.lone) }
        prof, enemy = regular[s].profile, regular[s].enemy
      elseif rail then
        prof, enemy = movement.rail_profile(s, list[1].hex), o.enemy   -- 5.3: by rail no enemy-held hex at all
      else
        prof, enemy = movement.profile(s, list[1].hex, 0, o), overrun and ends_barred(o.enemy, o.lone) or o.enemy
      end
      runs[key] = { profile = prof, enemy = enemy, kind = kind, side = s, ezoc = o.ezoc, known = {} }
      keys[#keys + 1] = key
    end
    local run = runs[key]
    local mp = math.huge
    for _, u in ipairs(list) do mp = math.min(mp, movement.allowance(u)) end    -- 5.1: the slowest
    if rail then mp = nil end                                                     -- 5.5: any distance
    local exclude = full_of(list)
    if kind ~= "regular" then
      local at = list[1].hex .. " " .. tostring(mp)
      run.known[at] = run.known[at] or {}
      exclude = off_route(run.profile, list[1].hex, mp, exclude, run.known[at])
    end
    if rail and run.ezoc[list[1].hex] then
      -- 5.5.2: leaving an EZOC by rail, the move ends next to no enemy unit
      run.near = run.near or next_to_enemy(run.enemy)
      exclude = copy(exclude)
      for h in pairs(run.near) do exclude[h] = true end
    end
    local side_cost
    if kind == "regular" and not overrun then
      into_lone[s] = into_lone[s] or { steps_into(side_opts(s, false).lone) }
      side_cost = into_lone[s][1]
    end
    run[#run + 1] = { unit = name, from = list[1].hex, mp = mp, exclude = exclude, side_cost = side_cost }
  end
  -- the lists of units that may move together: each unit alone; 5.1: the units of a hex that may
  -- move, as one stack, and its parts; not a stack over the limit by itself (6.2: reinforcements
  -- placed overstacked), which may end nowhere (6.0, 6.1)
  local lists = {}
  for _, u in ipairs(movers) do lists[#lists + 1] = { u } end
  for _, list in ipairs(stacks_of(movers)) do
    if within_limit(list) then lists[#lists + 1] = list end
    for _, part in ipairs(parts_of(list)) do lists[#lists + 1] = part end
  end
  for _, list in ipairs(lists) do
    local ids = {}
    for i, u in ipairs(list) do ids[i] = u.id end
    local name = table.concat(ids, ",")
    add(list, name, "regular")
    if may_go_strategic(list, side_opts(list[1].side, false).ezoc, turn) then add(list, name, "strategic") end
    if may_go_by_rail(list) then add(list, name, "rail") end
  end
  -- in the order of the keys, the runs next to each other with one profile are one call (the
  -- same moves, in the same order)
  table.sort(keys)
  local calls = {}
  for _, key in ipairs(keys) do
    local run, last = runs[key], calls[#calls]
    if not (last and last.run.profile == run.profile) then
      last = { run = run, units = {} }
      calls[#calls + 1] = last
    end
    for _, entry in ipairs(run) do last.units[#last.units + 1] = entry end
  end
  for _, call in ipairs(calls) do
    -- every hex a search reaches but enemy-held, transit-only and full ones (water is prohibited
    -- terrain in the profile: the search never reaches it, 5.2.6; no road or rail line of the
    -- map enters a water hex, so strategic and rail moves never reach one either)
    local run = call.run
    local weight
    if run.kind == "strategic" and run.side == "German" and not fuel_spent() then weight = 0.1 end
    out[#out + 1] = map.moves(run.profile, { units = call.units, cmd = KIND_CMD[run.kind], group = "move",
      note = KIND_NOTE[run.kind], exclude = { run.enemy, transit }, weight = weight })
  end
end

-- 14.2.1: the mechanized units of the 3rd SS Panzer Corps on the Landsberg edge that may leave
-- the map now (turns 1-3, in supply, activated, the MP the hex costs left, Arnswalde relieved):
-- the conditions movement.exit_map checks, in its order.
---@param opts table the options of umpire.actions
---@param out table the list being made
local function exits(opts, out)
  if umpire.clock().turn > 3 or not vars.get("arnswalde_relieved") then return end
  for _, u in ipairs(units.all { side = "German", on_map = true, marked = command.ACTIVE_MARKERS }) do
    if (opts.unit == nil or opts.unit == u.id) and C.is_mech(u) and u:attr("formation") == "3SS-PZ-HQ"
        and not u:marker("oos") and not u:marker("isolated") and command.is_active(u)
        and map.in_area("landsberg_edge", u.hex) then
      local cost = movement.exit_cost(u.hex)
      local left = movement.allowance(u) - (u:marker("mp_spent") or 0) / 60
      if cost ~= nil and cost <= left + 1e-9 then
        out[#out + 1] = { cmd = "exit " .. u.id, group = "exit", unit = u.id, note = map.fmt_cost(cost) .. " MP" }
      end
    end
  end
end

-- 8.0, 4.6, 3.3.5, 8.3.1, 8.1.2, 19.1.3: may `u` join an attack on `hex` now? (the attack's own
-- checks on each unit)
local function may_attack(u, side, hex)
  return checks.passes(function(check) combat.check_attacker(u, side, hex, check) end)
end

-- 13.0, 13.1: the air words an attack of `side` may name now, checked by the verb's own parser
-- (air.parse: the unit in its air box, at most two units, at most 4 points a turn): each available
-- unit in a normal (+1) or a full (+2) attack, and two units together, full if the points allow,
-- else normal. Not every combination: a bot picks among these.
---@param side string
---@return string[][] choices
local function air_support(side)
  local ready = {}
  for _, u in ipairs(units.in_box(air.home[side] or "")) do
    if u.side == side and C.is_air(u) then ready[#ready + 1] = u.id end
  end
  table.sort(ready)
  local tries = {}
  for _, id in ipairs(ready) do
    tries[#tries + 1] = { id, "normal" }
    tries[#tries + 1] = { id, "full" }
  end
  if #ready >= 2 then
    tries[#tries + 1] = { ready[1], "full", ready[2], "full" }
    tries[#tries + 1] = { ready[1], "normal", ready[2], "normal" }
  end
  local out, pair = {}, false
  for _, words in ipairs(tries) do
    -- one pair at most: the full one when it fits
    if (#words == 2 or not pair) and pcall(air.parse, side, words) then
      out[#out + 1] = words
      if #words == 4 then pair = true end
    end
  end
  return out
end

---@param side string
---@param out table the list being made
local function attacks(side, out)
  -- only units with a marker of 3.3.5 may attack (check_attacker asks command.is_active)
  -- (the side's units that have not attacked and are neither pinned nor withdrawing: the others
  -- fail check_attacker whatever the hex)
  local active, active_at = {}, {}
  for _, u in ipairs(units.all { side = side, on_map = true, marked = command.ACTIVE_MARKERS }) do
    if not (u:marker("attacked") or u:marker("pinned") or u:marker("no_attack")) then
      active[u.id] = true
      active_at[u.hex] = true
    end
  end
  if next(active) == nil then return end
  local stacks = units.stacks()
  local done = {}
  for _, h in ipairs(vars.get("attacked_hexes") or {}) do done[h] = true end
  -- (only the hexes next to one of those units may be attacked by them)
  local near = {}
  for h in pairs(active_at) do
    for _, n in ipairs(map.neighbours(h)) do near[n] = true end
  end
  local no_air = air.parse(side, {})
  local air_choices = air_support(side)
  for hex, stack in pairs(stacks) do
    if near[hex] and not done[hex] and stack[1].side ~= side then
      local with, ids = {}, {}
      for _, n in ipairs(map.neighbours(hex)) do
        -- (only the stacks holding such a unit)
        for _, u in ipairs(active_at[n] and stacks[n] or {}) do
          if active[u.id] and may_attack(u, side, hex) then with[#with + 1] = u; ids[#ids + 1] = u.id end
        end
      end
      -- the attack's own checks and odds (a refusal, 8.0 or 1.1.3, leaves it out)
      if #with > 0 and pcall(combat.odds, hex, with, no_air) then
        local cmd = ("attack %s with %s"):format(hex, table.concat(ids, ","))
        out[#out + 1] = { cmd = cmd, group = "attack", units = ids, hex = hex }
        -- 13.1: the same attack with air support (the shift only raises the column: the odds
        -- that passed without it pass with it)
        for _, words in ipairs(air_choices) do
          out[#out + 1] = { cmd = cmd .. " air " .. table.concat(words, " "), group = "attack", units = ids, hex = hex,
            note = "air support" }
        end
      end
    end
  end
end

-- 10.3, 10.3.1, 10.4, 11.3.3, 10.5, 10.5.1, 6.1: may `list` go on from the vacated hex into
-- `second`? The conditions advance's second_hex refuses, in its order (`crossed`: whether a unit
-- crossed an unbridged river into the vacated hex, as check_advance says; `enemy_of(side)`:
-- C.occupied of the side's enemy, found once a list).
local function may_go_second(list, adv, second, crossed, enemy_of)
  if not adv.retreated or crossed then return false end
  for _, u in ipairs(list) do
    if not (C.is_mech(u) or C.is_hq(u)) or u:marker("oos") or u:marker("isolated") then return false end
  end
  if map.terrain(adv.hex) == "city" or map.has(adv.hex, "village") then return false end
  if map.distance(adv.hex, second) ~= 1 then return false end
  local side = list[1].side
  if enemy_of(side)[second] and not movement.lone_hq(second, side) then return false end
  local feats = map.hexside(adv.hex, second)
  if C.contains(feats, "major_river") and not C.contains(feats, "bridge") then return false end
  if not advance.can_advance(adv.hex, second) then return false end
  -- 6.1 where the advance ends, the units counted there (they pass through the vacated hex)
  return movement.stacking_problem(second, list) == nil
end

-- The groups that may advance together (10.0, 10.2, 12.2.4): each attacker alone, the attackers
-- of each hex together, and each HQ with the attackers of its stack.
local function advance_groups(adv)
  local alone, by_hex, hexes = {}, {}, {}
  for _, id in ipairs(adv.units) do
    local u = units.get(id)
    if u and u.hex then
      if not C.is_hq(u) then alone[#alone + 1] = { u } end
      if not by_hex[u.hex] then by_hex[u.hex] = {} hexes[#hexes + 1] = u.hex end
      local g = by_hex[u.hex]
      g[#g + 1] = u
    end
  end
  table.sort(hexes)
  local groups = alone
  for _, h in ipairs(hexes) do
    local g = by_hex[h]
    local has_hq, combat = false, 0
    for _, u in ipairs(g) do
      if C.is_hq(u) then has_hq = true else combat = combat + 1 end
    end
    if combat >= 2 or (has_hq and combat >= 1) then groups[#groups + 1] = g end
    -- an HQ's stack without it too, when it holds two combat units
    if has_hq and combat >= 2 then
      local without = {}
      for _, u in ipairs(g) do if not C.is_hq(u) then without[#without + 1] = u end end
      groups[#groups + 1] = without
    end
  end
  return groups
end

-- 10.0, 10.3, 12.2.4: after an attack vacated a hex, each group that may advance into it (the
-- verb's own checks: advance.check_advance), and on into each second hex it may enter
---@param opts table the options of umpire.actions
---@param out table the list being made
local function advances(opts, out)
  local adv = vars.get("advance")
  if not adv then return end
  local enemy = {}
  local function enemy_of(side)
    enemy[side] = enemy[side] or C.occupied(C.other(side))
    return enemy[side]
  end
  for _, list in ipairs(advance_groups(adv)) do
    local ids = {}
    local mine = opts.unit == nil
    for i, u in ipairs(list) do
      ids[i] = u.id
      mine = mine or opts.unit == u.id
    end
    local what = table.concat(ids, ",")
    if mine and checks.passes(function(check) advance.check_advance(list, nil, check) end) then
      out[#out + 1] = { cmd = "advance " .. what, group = "advance", unit = #list == 1 and ids[1] or nil,
        units = ids, hex = adv.hex }
    end
    local crossed
    if mine and adv.retreated
        and checks.passes(function(check) crossed = advance.check_advance(list, true, check) end) then
      local next_hexes = map.neighbours(adv.hex)
      table.sort(next_hexes)
      for _, second in ipairs(next_hexes) do
        if may_go_second(list, adv, second, crossed, enemy_of) then
          out[#out + 1] = { cmd = ("advance %s %s"):format(what, second), group = "advance",
            unit = #list == 1 and ids[1] or nil, units = ids, hex = second, note = "10.3 second hex" }
        end
      end
    end
  end
end

-- 8.5.1, 19.1.2: the bombardment attacks of the Random Event Phase, once on each enemy stack
-- adjacent to a friendly combat unit (a Stell II one under 19.1.2): the conditions events.bombard
-- checks, asked of each hex.
---@param out table the list being made
local function bombardments(out)
  local b = vars.get("bombardment")
  if not (b and b.left > 0) then return end
  local done = sets.set_of(b.targets or {})
  local function supports(u)
    return u.side == b.side and C.is_combat(u)
      and (b.restriction ~= "stell2" or u:attr("formation") == "Stell-II-HQ")
  end
  local stacks = units.stacks()
  local hexes = {}
  for hex in pairs(stacks) do hexes[#hexes + 1] = hex end
  table.sort(hexes)
  for _, hex in ipairs(hexes) do
    local targets = stacks[hex]
    if #targets > 0 and targets[1].side ~= b.side and not done[hex] then
      local adjacent = false
      for _, n in ipairs(map.neighbours(hex)) do
        for _, u in ipairs(stacks[n] or {}) do adjacent = adjacent or supports(u) end
      end
      if adjacent then
        out[#out + 1] = { cmd = "bombard " .. hex, group = "bombard", hex = hex, side = b.side }
      end
    end
  end
end

-- 12.6, 16.1: on turns 8 and 9 (2 and 3 with optional rule 16.1) the Soviet player may set one
-- Soviet chit of the cup aside, once a turn, in the command phase: the conditions command.withdraw
-- checks. Listed in the Soviet player's own segments (the verb takes it in any segment of the phase).
---@param side string
---@param out table the list being made
local function withdrawals(side, out)
  if side ~= "Soviet" then return end
  local clock = umpire.clock()
  local turn = clock.turn
  local stavka = umpire.option("op16_1") and (turn == 2 or turn == 3)
  if not (turn == 8 or turn == 9 or stavka) or vars.get("withdrawn_" .. turn) then return end
  local chits = {}
  for _, chit in ipairs(cups.contents("chits")) do
    if command.side_of_chit(chit) == "Soviet" then chits[chit] = true end
  end
  local sorted = {}
  for chit in pairs(chits) do sorted[#sorted + 1] = chit end
  table.sort(sorted)
  for _, chit in ipairs(sorted) do
    out[#out + 1] = { cmd = "withdraw " .. chit, group = "withdraw", side = "Soviet",
      note = stavka and "16.1, -1 VP" or "12.6, -1 VP" }
  end
end

-- 7.3.2, 7.3.3: is there a hex where a Soviet unit of the dead pile may be rebuilt (on or next
-- to its HQ, else on a Soviet supply source; never in an EZOC, overstacked or on an enemy)? The
-- search reinforce's rebuild makes.
local function rebuild_hex(u, ez)
  if u:attr("rebuild_hq") then
    local only = units.get(u:attr("rebuild_hq"))
    if not (only and only.hex) then return nil end
  end
  local hq = units.get(u:attr("rebuild_hq") or u:attr("formation") or "")
  local enemy = C.occupied(C.other(u.side))
  local spots
  if hq and hq.hex then
    spots = { hq.hex }
    for _, n in ipairs(map.neighbours(hq.hex)) do spots[#spots + 1] = n end
  else
    spots = map.area("supply_soviet") or {}
  end
  for _, h in ipairs(spots) do
    if not ez[h] and not enemy[h] and not movement.stacking_problem(h, { u }) then return h end
  end
  return nil
end

-- 7.3, 19.1.11, 19.1.13: the pool the verb spends on `u` when no kind is named: the first of
-- the unit's kind (an event's point first), the schedule points for a unit off the map.
local function default_pool(u, pools)
  local mech = C.is_mech(u)
  local fits = {}
  for _, p in ipairs(pools) do if p.mech == nil or p.mech == mech then fits[#fits + 1] = p end end
  local mine = fits[1] or pools[1]
  if not u.hex then
    for _, p in ipairs(fits) do if p.schedule then mine = p end end
  end
  return mine
end

-- The kinds a point may be named by (`replace <unit> <kind>`), in the verb's words.
local RP_KINDS = { "7.3", "19.1.11", "19.1.13" }

-- 7.3, 19.1.11, 19.1.13: the pool of a kind named, as the verb finds it (the last of the kind).
local function named_pool(pools, which)
  local mine
  for _, p in ipairs(pools) do if (p.rule or "7.3") == which then mine = p end end
  return mine
end

-- 7.3, 7.3.1, 7.3.3, 19.1.11, 19.1.13: may `u` take a replacement point of the pool `mine` now?
-- The conditions reinforce.replace asks once it has the pool, in its order.
local function may_replace(u, mine, ez, turn)
  if u.steps <= 1 then return false end
  local mech = C.is_mech(u)
  local event = mine.rule ~= nil
  if mine.mech ~= nil and mine.mech ~= mech then return false end
  local cost = (mech and not event) and 2 or 1
  if mine.points < cost then return false end
  if mech and not event and u:attr("replaced_turn") == turn then return false end
  if event then
    if not u.hex or u:marker("oos") or u:marker("isolated") then return false end
    local hq = units.get(u:attr("formation") or "")
    if not (u:attr("independent") or (hq and hq.hex and command.in_range(hq, u))) then return false end
  end
  if u.box == "dead" then
    return u.side == "Soviet" and not event and rebuild_hex(u, ez) ~= nil
  end
  return u.hex ~= nil and u.step > 1 and not ez[u.hex]
end

-- 7.3: a replacement point spent on each unit that may take one now (a reduced unit on the map,
-- a Soviet unit of the dead pile): the point the verb picks by default, and each other kind the
-- side holds, named (`replace <unit> 19.1.11`), where the verb accepts it.
---@param side string
---@param out table the list being made
local function replacements(side, out)
  local pools = reinforce.rp_pools(side)
  local total = 0
  for _, p in ipairs(pools) do total = total + p.points end
  if total <= 0 then return end
  local ez = zoc.ezoc(side)
  local turn = umpire.clock().turn
  local candidates = {}
  for _, u in ipairs(units.all { side = side, on_map = true }) do
    if u.step > 1 then candidates[#candidates + 1] = u end
  end
  for _, u in ipairs(units.in_box("dead")) do
    if u.side == side then candidates[#candidates + 1] = u end
  end
  table.sort(candidates, function(a, b) return a.id < b.id end)
  for _, u in ipairs(candidates) do
    local note = u.box == "dead" and "rebuilt" or "a step back"
    local default = default_pool(u, pools)
    if may_replace(u, default, ez, turn) then
      out[#out + 1] = { cmd = "replace " .. u.id, group = "replace", unit = u.id, side = side, note = note }
    end
    for _, kind in ipairs(RP_KINDS) do
      local mine = named_pool(pools, kind)
      if mine and mine ~= default and may_replace(u, mine, ez, turn) then
        out[#out + 1] = { cmd = ("replace %s %s"):format(u.id, kind), group = "replace", unit = u.id, side = side,
          note = note .. ", a " .. kind .. " point" }
      end
    end
  end
end

-- 12.4, 2.5.2: a Volksturm unit placed alone in a German-controlled town, village or city at
-- least 5 hexes from every Soviet unit and reached by a German supply line (the conditions
-- reinforce.volksturm checks; one supply trace for all the hexes). The units are alike (one
-- type): the first in the box is offered for each hex.
---@param out table the list being made
local function volksturm(out)
  local box = {}
  for _, u in ipairs(units.in_box("volksturm")) do
    if u:attr("volksturm") then box[#box + 1] = u end
  end
  if #box == 0 then return end
  table.sort(box, function(a, b) return a.id < b.id end)
  local u = box[1]
  -- (the hexes of the Soviet units, each once, and the occupied hexes: read once)
  local soviet_hexes, seen = {}, {}
  for _, s in ipairs(units.all { side = "Soviet", on_map = true }) do
    local h = s.hex
    if not seen[h] then seen[h] = true soviet_hexes[#soviet_hexes + 1] = h end
  end
  local stacks = units.stacks()
  local candidates = {}
  for _, hex in ipairs(map.hexes()) do
    local t = map.terrain(hex)
    if (t == "town" or t == "city" or map.has(hex, "village")) and not map.marker(hex, "soviet_vp")
        and stacks[hex] == nil then
      local far = true
      for _, h in ipairs(soviet_hexes) do
        if map.distance(h, hex) < 5 then far = false break end
      end
      if far then candidates[#candidates + 1] = hex end
    end
  end
  if #candidates == 0 then return end
  local reach = supply.trace("German", C.sources(u), false, nil, candidates)
  table.sort(candidates)
  for _, hex in ipairs(candidates) do
    if reach[hex] ~= nil then
      out[#out + 1] = { cmd = ("volksturm %s %s"):format(u.id, hex), group = "volksturm", unit = u.id, hex = hex,
        side = "German" }
    end
  end
end

function M.list(side, opts)
  local out = {}
  local step = umpire.clock().step
  if step == "movement" or step == "reinforcement" or step == "arrivals" then moves(side, opts, out) end
  if step == "movement" then exits(opts, out) end
  if step == "combat" then
    advances(opts, out)
    attacks(side, out)
  end
  if step == "movement" or step == "combat" then withdrawals(side, out) end
  if step == "bombardment" then bombardments(out) end
  -- 7.3: the Soviet schedule points in their segment; 19.1.11, 19.1.13: an event's points, of
  -- either side, in the Reinforcement segment
  if step == "replacements" then replacements("Soviet", out) end
  if step == "reinforcement" then
    replacements("German", out)
    replacements("Soviet", out)
  end
  if step == "volksturm" then volksturm(out) end
  out[#out + 1] = "next"
  return out
end

return M
