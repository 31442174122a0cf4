-- Fortress Stalingrad: what may be done now (umpire.actions, docs/lua-api.md §2.6). Each entry
-- passes the checks of its verb as they stand now:
--   initial_supply: fmco (14.1), seasupply (7.22), airsupply one unit at a time (7.36);
--   air: each uncommitted air unit of the side to place, on each stack air.places allows (8.2-8.11)
--     and on each empty hex where a reinforcement due this turn may enter (8.15);
--   reinforcement: enter (9.1-9.12, 12.1) and replace (9.15-9.20, recreation in a hex 9.19);
--   movement: each unit's moves, from its own profile searched once (10.1-10.37, 7.20); the moves
--     of each parent stack, by its parts that move alike, one entry a destination (10.34-10.36);
--     one mobile assault per launch stack and target with every mechanized unit that can pay
--     (10.38), on an empty intact Soviet entrenchment too (10.31); the defenders' occupation of a
--     mobile assault's launch hex (11.32);
--   assault: air on turn 1 (8.1, 13.1), katyusha (11.20), one prepared assault per enemy hex, empty
--     intact Soviet entrenchment (10.31) and set of two or three such hexes (11.6, 11.7) with every
--     unit that may join it (11.1-11.7), the advance after combat of each unit to each hex it may
--     end in, by one shortest path (11.31, 11.32);
--   and `next` in every phase. Where the step has no side to act (the Initial Supply and Air
--   Power Phases), each entry names the side that does it (`side`: the greedy bot scores it so).
-- Weights for bots (docs/lua-api.md §2.6; DATA.md "Weights for bots"): the FMCO is rare (14.1,
-- 14.5), `next` is less likely while a prepared assault is listed and never picked while it would
-- end a German player turn of the FMCO short of its four attacks (14.5); every other entry 1.
-- Left out, to keep the list to hundreds of entries (each is a choice the list could offer, not a
-- rule it leaves unplayed): subsets of the units that may join an attack, a mobile assault or a
-- stack move (the whole group is listed; each unit also moves alone); a stack whose units price
-- terrain unlike (mechanized with leg) moving as one (its like parts are listed); within reach of
-- the Kerch Straits, a stack whose printed movement factors differ (10.9: the crossing's cost
-- differs, so one search cannot stand for all); the 62nd Army in a stack while in 3428 (12.3,
-- 10.19: a crossing of its own); moves and advances along a path other than the one listed;
-- stacks advancing together (each victor advances alone); attacks on four or more hexes at once.
local C = require "common"
local T = require "tables"
local movement = require "movement"
local checks = require "checks"       -- rulesets/lib
local combat = require "combat"
local stacking = require "stacking"
local air = require "air"
local supply = require "supply"
local reinforce = require "reinforce"
local assault = require "assault"
local control = require "control"
local fmco = require "fmco"

local M = {}

-- The bots' weights (the project's own figures, not the rulebook's; DATA.md "Weights for bots").
local WEIGHT = { fmco = 0.05, next_with_attacks = 0.3 }

local function add(out, a) out[#out + 1] = a end

-- 10.1-10.37: may `u` move now, alone? (the move verb's own checks, movement.check_mover)
local function may_move(u, side)
  return u.hex ~= nil and checks.passes(function(check) movement.check_mover(u, side, u, u.hex, u:marker("origin"), check) end)
end

local function list_moves(out, side, opts, z)
  local double = vars.get("supply_double")
  for _, u in ipairs(units.all { side = side, on_map = true }) do
    if (opts.unit == nil or opts.unit == u.id) and may_move(u, side) then
      local prof, supply_unit
      if C.is_supply_unit(u) then
        -- 7.20, 10.7: one hex, or two for one 0-0-1 a turn
        local hexes = (double == nil or double == u.id) and T.supply_move.two or T.supply_move.one
        local used = (u:marker("mp_used") or 0) // 60
        if used < hexes then prof, supply_unit = movement.supply_profile(u, u.hex, hexes - used, z), true end
      else
        local left = movement.left(u)
        if left > 0 then prof = movement.profile(u, u.hex, left, z) end
      end
      if prof then
        -- 12.3: the 62nd Army's first move out of 3428 goes through 3427 (checked on its route)
        local first62 = u.id == T.units.army62 and u.hex == "3428" and not vars.get("army62_left")
        local note = supply_unit and "{cost} hex" or "{cost} MP"
        if not first62 then
          -- every hex the search reaches, the moves built in Rust (map.moves)
          add(out, map.moves(prof, { unit = u.id, cmd = "move {unit} {hex}", group = "move", note = note }))
        else
          for h, cost in pairs(map.reach(prof)) do
            local _, route = map.route(prof, h)
            if h ~= u.hex and route ~= nil and route[2] == "3427" then
              add(out, { cmd = ("move %s %s"):format(u.id, h), group = "move", unit = u.id, hex = h,
                         note = note:gsub("{cost}", map.fmt_cost(cost)) })
            end
          end
        end
      end
    end
  end
end

-- 10.9: the hexes by the Kerch Straits, where the crossing costs half the printed movement factor.
local KERCH = { "1505", "1506", "1606", "1607" }

-- Whether the units of `g` price every path alike: the same printed movement factor, or too far
-- from the Kerch Straits to cross them with the MP they have (every hex costs 1 MP or more).
local function priced_alike(g)
  local move, reach = g[1]:value("move"), 0
  local same = true
  for _, u in ipairs(g) do
    if u:value("move") ~= move then same = false end
    reach = math.max(reach, movement.left(u))
  end
  if same then return true end
  for _, h in ipairs(KERCH) do
    if map.distance(g[1].hex, h) < reach then return false end
  end
  return true
end

-- 10.34-10.36: the moves of stacks. The units of a parent stack (marker `origin`) still in one hex
-- that move alike (one profile but for the MP: the same class, priced_alike, none supplied by sea,
-- 7.22, nor the 62nd Army in 3428, 12.3) go together: one entry a destination, found by
-- the search of the one with the fewest MP left, whose cheapest route the move verb tries first
-- and every other can follow (movement.lua plan). Stacks of units that move unlike are listed by
-- their like parts (a split, 10.36); 0-0-1s move alone (7.20).
local function list_stack_moves(out, side, z)
  local groups, keys = {}, {}
  for _, u in ipairs(units.all { side = side, on_map = true }) do
    local by3427 = u.id == T.units.army62 and u.hex == "3428"              -- 12.3, 10.19: its own crossing
    if not C.is_supply_unit(u) and not by3427 and not u:marker("sea_supplied") and may_move(u, side) and movement.left(u) > 0 then
      local key = ("%s/%s/%s"):format(u.hex, tostring(u:marker("origin")), C.class(u))
      if not groups[key] then groups[key] = {} keys[#keys + 1] = key end
      groups[key][#groups[key] + 1] = u
    end
  end
  table.sort(keys)
  for _, key in ipairs(keys) do
    local g = groups[key]
    if #g > 1 and priced_alike(g) then
      table.sort(g, function(a, b)
        local la, lb = movement.left(a), movement.left(b)
        if la ~= lb then return la < lb end
        return a.id < b.id
      end)
      local ids = {}
      for _, u in ipairs(g) do ids[#ids + 1] = u.id end
      local slow = g[1]
      add(out, map.moves(movement.profile(slow, slow.hex, movement.left(slow), z),
        { unit = slow.id, cmd = ("move %s {hex}"):format(table.concat(ids, ",")), group = "stack", note = "{cost} MP" }))
    end
  end
end

-- 10.38-10.42: one mobile assault per launch stack (units that started the phase together) and
-- adjacent enemy hex, with every mechanized unit of it that may pay the tripled cost.
local function list_assaults(out, side, stacks)
  local enemy = C.other(side)
  local done = vars.get("stacks_done") or {}
  for from, stack in pairs(stacks) do
    local groups, order = {}, {}
    for _, u in ipairs(stack) do
      if u.side == side and C.is_mech(u) and not u:marker("infiltrated")                    -- 5.10
        and not (u.side == C.GERMAN and C.supply_level(u) >= T.oos_no_zoc)                  -- 7.32
        and not C.contains(done, u:marker("origin")) then                                    -- 10.37
        local o = u:marker("origin") or -1
        if not groups[o] then groups[o] = {} order[#order + 1] = o end
        groups[o][#groups[o] + 1] = u
      end
    end
    if #order > 0 and not stacking.problem(from, side) then                                  -- 10.39
      for _, d in ipairs(map.neighbours(from)) do
        local held = false
        for _, e in ipairs(stacks[d] or {}) do
          if e.side == enemy and C.is_combat(e) then held = true end
        end
        if side == C.GERMAN and #C.combat_at(d, C.SOVIET) == 0 and combat.intrinsic(d) then held = true end   -- 10.31
        if held then
          for _, o in ipairs(order) do
            local with, ids = {}, {}
            for _, u in ipairs(groups[o]) do
              local c = assault.cost(u, from, d)
              if c and not combat.attack_blocked(u, from, d, "ma") and movement.left(u) >= c then  -- 10.42, 10.44
                with[#with + 1] = u
                ids[#ids + 1] = u.id
              end
            end
            if #with > 0 then
              add(out, { cmd = ("assault %s with %s"):format(d, table.concat(ids, ",")), group = "assault",
                         units = ids, hex = d, note = ("from %s"):format(from) })
            end
          end
        end
      end
    end
  end
end

-- 11.1, 11.5, 10.31: the hexes `side` may attack now, sorted: those holding enemy units not yet
-- attacked this phase, and (for the German) the empty intact Soviet entrenchments.
local function targets(side, stacks)
  local enemy, set, out = C.other(side), {}, {}
  for h, stack in pairs(stacks) do
    for _, u in ipairs(stack) do
      if u.side == enemy and C.is_combat(u) and not u:marker("defended") then set[h] = true end   -- 11.5
    end
  end
  if side == C.GERMAN then
    for _, h in ipairs(C.ENTRENCH[C.SOVIET]) do
      if #C.combat_at(h, C.SOVIET) == 0 and combat.intrinsic(h) then set[h] = true end            -- 10.31
    end
  end
  for h in pairs(set) do out[#out + 1] = h end
  table.sort(out)
  return out, set
end

-- 11.6, 11.7: the sets of two or three target hexes that some unit of `side` is next to all of,
-- sorted, each once (sets of four or more are left out, to keep the list short).
local function target_sets(side, stacks, set)
  local found, keys = {}, {}
  local froms = {}
  for h in pairs(stacks) do froms[#froms + 1] = h end
  table.sort(froms)
  for _, f in ipairs(froms) do
    local may = false
    for _, u in ipairs(stacks[f]) do
      if not combat.attacker_refusal(u, side, {}) then may = true end
    end
    if may then
      local near = {}
      for _, n in ipairs(map.neighbours(f)) do if set[n] then near[#near + 1] = n end end
      table.sort(near)
      for i = 1, #near do
        for j = i + 1, #near do
          local pairs_of = { { near[i], near[j] } }
          for k = j + 1, #near do pairs_of[#pairs_of + 1] = { near[i], near[j], near[k] } end
          for _, hs in ipairs(pairs_of) do
            local key = table.concat(hs, ",")
            if not found[key] then found[key] = hs keys[#keys + 1] = key end
          end
        end
      end
    end
  end
  table.sort(keys)
  local out = {}
  for _, k in ipairs(keys) do out[#out + 1] = found[k] end
  return out
end

-- 11.1-11.7: one prepared assault per target hex (or set of hexes, 11.6-11.7), with every unit
-- next to all of them that may join (the attack verb's own test, combat.attacker_refusal).
local function list_attacks(out, side, stacks)
  local list, set = targets(side, stacks)
  local sets = {}
  for _, h in ipairs(list) do sets[#sets + 1] = { h } end
  for _, hs in ipairs(target_sets(side, stacks, set)) do sets[#sets + 1] = hs end
  for _, hs in ipairs(sets) do
    local ids = {}
    for _, n in ipairs(map.neighbours(hs[1])) do
      for _, u in ipairs(stacks[n] or {}) do
        if u.side == side and not combat.attacker_refusal(u, side, hs) then ids[#ids + 1] = u.id end
      end
    end
    if #ids > 0 then
      local where = table.concat(hs, " ")
      add(out, { cmd = ("attack %s with %s"):format(where, table.concat(ids, ",")), group = "attack", units = ids, hex = hs[1],
                 note = #hs > 1 and ("%d hexes"):format(#hs) or nil })
    end
  end
end

-- 11.31, 10.8-10.9, 10.19, 10.30, 7.22: may `u` of `side` advance from `prev` into `h` as the
-- `i`-th hex of its advance (the advance verb's checks on each hex of the path).
local function may_advance_into(u, side, prev, h, i)
  if map.distance(prev, h) ~= 1 or map.terrain(h) == "sea" or #C.combat_at(h, C.other(side)) > 0 then return false end
  local hs = map.hexside(prev, h)
  if C.contains(hs, "volga") and umpire.clock().turn <= T.volga_closed_through then return false end   -- 10.19
  if C.contains(hs, "sea") and not (C.contains(hs, "kerch") and i == 1) then return false end          -- 10.9
  if side == C.GERMAN and i > 1 and control.intact_entrenchment(h, C.SOVIET) then return false end    -- 10.30
  if u:marker("sea_supplied") and not C.COAST[h] then return false end                                -- 7.22
  return true
end

-- 11.31, 11.32: the open advance after combat, one unit at a time: each hex it may end in, up to
-- its type's limit (and the defenders' hexes of retreat), by the shortest path that passes the
-- advance verb's checks from a hex the enemy left (12.2: garrisons are never among the victors).
local function list_advances(out)
  local adv = vars.get("advance")
  if not adv then return end
  for _, id in ipairs(adv.units) do
    local u = units.get(id)
    if u and u.hex then
      local cap = C.is_satellite(u) and T.advance_max.satellite or T.advance_max[C.class(u)]
      if adv.defenders then cap = 1 end
      local allowed = math.min(cap, adv.max)
      local path_to, order = {}, {}
      local layer = {}
      for _, h in ipairs(adv.hexes) do
        if allowed >= 1 and h ~= u.hex and not path_to[h] and may_advance_into(u, adv.side, u.hex, h, 1) then
          path_to[h] = { h } order[#order + 1] = h layer[#layer + 1] = h
        end
      end
      for i = 2, allowed do
        local nextl = {}
        for _, prev in ipairs(layer) do
          local ns = map.neighbours(prev)
          table.sort(ns)
          for _, h in ipairs(ns) do
            if h ~= u.hex and not path_to[h] and may_advance_into(u, adv.side, prev, h, i) then
              local p = { table.unpack(path_to[prev]) }
              p[#p + 1] = h
              path_to[h] = p order[#order + 1] = h nextl[#nextl + 1] = h
            end
          end
        end
        layer = nextl
      end
      for _, h in ipairs(order) do
        add(out, { cmd = ("advance %s %s"):format(u.id, table.concat(path_to[h], " ")), group = "advance", unit = u.id, hex = h,
                   note = #path_to[h] > 1 and C.count(#path_to[h], "hex", "hexes") or nil })
      end
    end
  end
end

-- 9.1-9.12, 9.19: the hexes where a unit may be placed, by what entry_cost looks at (side, entry,
-- the 28th Army, recreation); cached for one listing.
local function candidates(side, sources)
  local set = {}
  for _, a in ipairs { "north_edge", "east_edge", "south_edge", "west_edge" } do
    for _, h in ipairs(map.area(a) or {}) do set[h] = true end
  end
  for _, h in ipairs(C.TOWNS) do set[h] = true end
  for _, h in ipairs(C.ENTRENCH[side]) do set[h] = true end
  for _, s in ipairs(C.on_map(side, true)) do if C.is_supply_unit(s) then set[s.hex] = true end end
  for h in pairs(sources) do set[h] = true end
  local out = {}
  for h in pairs(set) do out[#out + 1] = h end
  table.sort(out)
  return out
end

local function list_placements(out, side, step)
  local cache, cands = {}, {}
  local sources                                              -- 7.25 (found once for the listing)
  local stacks = units.stacks()                              -- every stack, read once for the listing
  local function stack(h) return stacks[h] or {} end
  local function places(u, recreated)
    local key = ("%s/%s/%s/%s"):format(u.side, tostring(u:attr("entry")), tostring(recreated),
      tostring(u.id == T.units.army28 and not recreated))
    if not cache[key] then
      sources = sources or supply.german_sources()
      cands[u.side] = cands[u.side] or candidates(u.side, sources)
      local list = {}
      for _, h in ipairs(cands[u.side]) do
        local cost = reinforce.entry_cost(u, h, recreated, sources, stack(h))
        if cost then list[#list + 1] = { h, cost } end
      end
      cache[key] = list
    end
    return cache[key]
  end
  local due = {}
  if step == "reinforcement" then
    if not vars.get("rr_replaced") then                                              -- 9.1
      for _, u in ipairs(reinforce.due(side)) do
        if u:attr("entry") ~= "frontal" then due[#due + 1] = u end                   -- 9.5
      end
      local u28 = units.get(T.units.army28)
      if u28 and u28.box == "offboard" and u28.side == side then due[#due + 1] = u28 end
    end
  else
    for _, s in ipairs { C.SOVIET, C.GERMAN } do
      for _, u in ipairs(reinforce.due(s)) do
        if u:attr("entry") == "frontal" then due[#due + 1] = u end                   -- 9.5
      end
    end
  end
  for _, u in ipairs(due) do
    for _, p in ipairs(places(u, nil)) do
      if not stacking.problem(p[1], u.side, { u }, stack(p[1])) then                  -- 6.6
        add(out, { cmd = ("enter %s %s"):format(u.id, p[1]), group = "enter", unit = u.id, hex = p[1], side = u.side })
      end
    end
  end
  -- 9.15-9.20: replacement steps
  local r = vars.get("replacements")
  if step ~= "reinforcement" or not r or r.side ~= side or r.mech + r.leg <= 0 then return end
  local lengths
  for _, u in ipairs(units.all { side = side }) do
    if C.is_combat(u) and not C.is_garrison(u) and (r.mech > 0 or not C.is_mech(u)) then   -- 9.16, 9.17
      if u.hex then
        local ok = u.step > 1 and not (side == C.GERMAN and (C.is_satellite(u) or u.steps == 1))  -- 9.18, 9.16
        if ok and side == C.SOVIET then                                                -- 9.20
          lengths = lengths or supply.soviet_trace()
          ok = (C.supply_level(u) < T.as_max or u:marker("entered")) and lengths[u.hex] ~= nil
        end
        if ok then add(out, { cmd = "replace " .. u.id, group = "replace", unit = u.id, hex = u.hex, side = u.side }) end
      elseif reinforce.recreatable(u) then                                             -- 9.19
        for _, p in ipairs(places(u, true)) do
          if not stacking.problem(p[1], side, { u }, stack(p[1])) then
            add(out, { cmd = ("replace %s %s"):format(u.id, p[1]), group = "replace", unit = u.id, hex = p[1], side = u.side })
          end
        end
      end
    end
  end
end

-- 8.15, 8.16: the empty hexes where an air unit of `side` may wait for a reinforcement: those by
-- which a reinforcement due to `side` this turn may enter (reinforce.entry_cost) and that the air
-- verb takes as entry hexes (an edge hex, a German rail source, a hex with a friendly 0-0-1), with
-- no ground unit of `side` and room for another air unit (8.3).
local function entry_hexes(side)
  local due = {}
  for _, u in ipairs(reinforce.due(side)) do
    if u:attr("entry") ~= "frontal" then due[#due + 1] = u end                      -- 9.5
  end
  if #due == 0 then return {} end
  local sources = side == C.GERMAN and supply.german_sources() or {}          -- 9.12: German only
  local out = {}
  for _, h in ipairs(candidates(side, sources)) do
    local entry = map.in_area(side == C.GERMAN and "west_edge" or "north_edge", h) or map.in_area("east_edge", h)
      or map.in_area("south_edge", h) or (side == C.GERMAN and (sources[h] or -1) == 0)
    local airs = 0
    for _, x in ipairs(units.at(h)) do
      if C.is_supply_unit(x) and x.side == side then entry = true end
      if C.is_air(x) and x.side == side then airs = airs + 1 end
    end
    if entry and #C.combat_at(h, side) == 0 and airs < T.air.max_per_hex[side] then
      for _, u in ipairs(due) do
        if reinforce.entry_cost(u, h, nil, sources) then out[#out + 1] = h break end
      end
    end
  end
  return out
end

-- 8.2-8.11: each uncommitted air unit of `side` on each stack it may support; in the Air Power
-- Phase also on each empty hex where a reinforcement due may enter (8.15).
local function list_air(out, side, entries)
  local places = air.places(side)
  if entries then
    for _, h in ipairs(entry_hexes(side)) do places[#places + 1] = h end
  end
  for _, a in ipairs(air.available(side)) do
    for _, h in ipairs(places) do
      add(out, { cmd = ("air %s %s"):format(a.id, h), group = "air", unit = a.id, hex = h, side = side })
    end
  end
end

-- 7.22, 7.36, 14.1: the Initial Supply Phase's choices.
local function list_initial_supply(out)
  local turn = umpire.clock().turn
  -- 14.1, 14.5: declaring binds every later German player turn to four attacks on pain of
  -- forfeit; a player commits to that deliberately, so a bot rarely does (not never: 0.05)
  if not fmco.declared() and C.contains(T.fmco.turns, turn) then
    add(out, { cmd = "fmco", group = "fmco", side = C.GERMAN, weight = WEIGHT.fmco })
  end
  if (vars.get("sea_supplied_turn") or 0) < turn then
    local azov_open = supply.azov_open()
    for _, u in ipairs(C.on_map(C.SOVIET)) do
      local black, azov = map.in_area("coast_black_sea", u.hex), map.in_area("coast_azov", u.hex)
      if black or (azov and azov_open) then add(out, { cmd = "seasupply " .. u.id, group = "seasupply", unit = u.id, hex = u.hex, side = C.SOVIET }) end
    end
  end
  if turn >= T.air_supply.from_turn then
    local used = (vars.get("air_supply_turn") == turn) and (vars.get("air_supply_used") or 0) or 0
    for _, u in ipairs(C.on_map(C.GERMAN)) do
      local cost = u.steps_left * (C.is_mech(u) and T.air_supply.mech_step or 1)
      if not u:marker("air_supplied") and used + cost <= T.air_supply.steps then
        add(out, { cmd = "airsupply " .. u.id, group = "airsupply", unit = u.id, hex = u.hex, note = C.count(cost, "step"),
          side = C.GERMAN })
      end
    end
  end
end

-- Whether `out` lists a prepared assault (group "attack").
local function attack_listed(out)
  for _, a in ipairs(out) do
    if a.group == "attack" then return true end
  end
  return false
end

-- The bots' weight of `next` (docs/lua-api.md §2.6). Only the Prepared Assault Phase's `next` is
-- weighed: it ends the segment, and for the German his player turn (main.lua: the phase's leave
-- runs fmco.end_german_turn), after which no attack is possible until his next player turn.
--   14.5: during the FMCO, ending it with fewer than four attacks made (fmco_attacks counts the
--   mobile and prepared assaults since his Movement Phase began) forfeits the game: 0 while an
--   attack is still listed, so a bot attacks on (a player may still end it; the list keeps it).
--   11.1: attacking is voluntary, but a player rarely ends the phase with every listed attack
--   unmade; at 1 a bot would pass it by as readily as it attacks, so while an attack is listed
--   `next` weighs 0.3 (the project's own figure, modest: which attack is worth making is
--   umpire.evaluate's business, not the list's).
local function next_weight(out, step, side)
  if step ~= "assault" or not attack_listed(out) then return nil end
  if side == C.GERMAN and fmco.declared() and (vars.get("fmco_attacks") or 0) < T.fmco.attacks then
    return 0                                                                          -- 14.5
  end
  return WEIGHT.next_with_attacks                                                   -- 11.1
end

function M.list(side, opts)
  local out = {}
  local clock = umpire.clock()
  local step = clock.step
  side = side or clock.side
  if step == "initial_supply" then
    list_initial_supply(out)
    list_placements(out, side, step)
  elseif step == "air" then
    local who = air.next_side()                                                       -- 8.2
    if who then list_air(out, who, true) end
  elseif step == "reinforcement" then
    list_placements(out, side, step)
  elseif step == "movement" then
    local z = movement.zones(side)      -- 10.4, 5.4: what every mover meets alike, found once
    list_moves(out, side, opts, z)
    list_stack_moves(out, side, z)                                                    -- 10.34-10.36
    list_assaults(out, side, units.stacks())
    list_advances(out)                                                                -- 11.32
  elseif step == "assault" then
    if clock.turn == 1 and side == C.SOVIET and (vars.get("battles") or 0) == 0 then list_air(out, side) end  -- 8.1, 13.1
    if side == C.SOVIET and (vars.get("battles") or 0) == 0 then                     -- 11.20
      local lengths
      for _, u in ipairs(C.on_map(C.SOVIET)) do
        lengths = lengths or supply.soviet_trace()
        if not combat.katyusha_refusal(u, lengths) then add(out, { cmd = "katyusha " .. u.id, group = "katyusha", unit = u.id, hex = u.hex }) end
      end
    end
    list_attacks(out, side, units.stacks())
    list_advances(out)
  end
  add(out, { cmd = "next", group = "next", weight = next_weight(out, step, side) })
  return out
end

return M
