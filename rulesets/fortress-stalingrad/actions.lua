-- Fortress Stalingrad: what may be done now (umpire.actions, docs/lua-api.md §2.6). Each entry
-- passes the checks of its verb as they stand now:
--   initial_supply: fmco (14.1), seasupply (7.22), airsupply one unit at a time (7.36);
--   air: each uncommitted air unit of the side to place, on each stack air.places allows (8.2-8.11)
--     and on each empty hex where a reinforcement due this turn may enter (8.15);
--   reinforcement: enter (9.1-9.12, 12.1) and replace (9.15-9.20, recreation in a hex 9.19);
--   movement: each unit's moves, from its own profile searched once (10.1-10.37, 7.20); the moves
--     of each parent stack as one, the whole stack and each of its parts of one class, one entry a
--     destination (10.34-10.36): mechanized with straight-leg (10.12-10.16), by the Kerch Straits
--     with unlike printed movement factors (10.9), with the one unit supplied by sea (7.22), the
--     62nd Army's stack out of 3428 by 3427 (12.3, 10.19); each unit or part that splits off a
--     stack with air units, with each group of them (8.5); a mobile assault per launch stack and
--     target by every group of the mechanized units that can pay (10.38, 10.41), on an empty
--     intact Soviet entrenchment too (10.31); the defenders' occupation of a mobile assault's
--     launch hex (11.32);
--   assault: air on turn 1 (8.1, 13.1), katyusha (11.20), prepared assaults on each enemy hex,
--     empty intact Soviet entrenchment (10.31) and set of two or more such hexes that some
--     attacker is next to all of (11.6, 11.7: four, five or six around one hex included), by every
--     unit that may join and by every group of them up to six (11.1-11.8); the advance after
--     combat of each victor, and of the victors of each hex together, to each hex it may end in,
--     by one shortest path, and by every other path that enters other hexes (11.31, 11.32);
--   and `next` in every phase. Where the step has no side to act (the Initial Supply and Air
--   Power Phases), each entry names the side that does it (`side`: the greedy bot scores it so).
-- Weights for bots (docs/lua-api.md §2.6; DATA.md "Weights for bots"): the FMCO is rare (14.1,
-- 14.5), `next` is less likely while a prepared assault is listed and never picked while it would
-- end a German player turn of the FMCO short of its four attacks (14.5); every other entry 1.
-- Compact forms: what the list gives once stands for choices it reaches with the same result.
--   Groups of a stack moving together (10.36): a stack of the two units that count for stacking
--     (6.2) and the 503rd and 9th FLAK (6.3) is listed whole and by class; any other group of it
--     ends as its units moved one after another to the same hex, each listed alone: each unit is
--     checked alone (10.35: same parent stack, so later mobile assaults together stay open, 10.41),
--     pays its own cheapest path, never more than the group's (10.6), stops in the same enemy zone
--     of control (5.4) and stacking counts only at the end of the phase (6.6); only the hexes
--     passed on the way may differ (the paths of a move, below).
--   Groups of the victors of one hex advancing together (11.31: after the first hex they may split
--     up): the whole and each alone are listed; any other group (a German stack with the 503rd or
--     9th FLAK) ends as its units advancing one after another along the same path (listed: the
--     advance verb checks each unit alone; no check of a path depends on who went before; stacking
--     counts at the end of each advance, 6.6, with the arrivals the violators either way).
--   Paths of an advance: one for each end and set of hexes entered (back through the start hex
--     too): what an advance does on its way, 3.3 control, 10.26 wrecking, 9.25, depends on the
--     hexes it enters, not their order; where a German advance enters a hex with a Soviet 0-0-1
--     (7.18: pushed east, again if the advance enters that hex later), every order is listed.
--   Mobile assaults: every group of the units that may make one together (at most three
--     mechanized units of one parent stack, 10.41, 6.2, 6.3).
-- Left out (a choice the list could offer, not a rule it leaves unplayed):
--   where seven or more units may join a prepared assault, a group of them other than the whole,
--     each alone, the whole but one and the units of each set of their hexes (11.8, 11.17: each is
--     a battle of its own; 2^n groups, 127 or more a target; random playouts never met more than
--     six);
--   a move along hexes given one by one (`move <units> <hex> <hex>...`) other than the path the
--     verb takes by itself (the cheapest, and for the 62nd Army the cheapest by 3427, 12.3): each
--     hex passed becomes the mover's (3.3, DATA.md), is wrecked (10.26), pushes a Soviet 0-0-1
--     (7.18) or triggers 9.25, so nearly every path rules differently, thousands a unit. Moves one
--     after another along the hexes reach the same hexes at the same cost (10.6) and stops (5.4),
--     but not the same ruling: after each command the zones of control of the units where they
--     stopped decide control (3.3 priority 2), and a 0-0-1 is pushed with the movers on the way,
--     not at the end (7.18).
local C = require "common"
local T = require "tables"
local sets = require "sets"             -- rulesets/lib
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

-- Every group of the units that may make a mobile assault together is listed up to this many
-- units (10.41: one parent stack's mechanized units, at most two that count for stacking and the
-- 503rd, 6.2, 6.3); every group of the units that may join a prepared assault up to this many
-- (11.6-11.8: 63 groups; random playouts never met more than six), beyond it the groups
-- groups_of names.
local MA_ALL_UPTO, PA_ALL_UPTO = 4, 6

local function add(out, a) out[#out + 1] = a end

-- The groups of `list` (units) a list offers for one attack: every group when there are at most
-- `all_upto` units (the whole first, then the larger groups first, each in the order of `list`);
-- otherwise the whole, each unit alone, the whole but each unit, and (`by_hex`) the units of each
-- set of the hexes they are in (11.17: which hexes attack decides a concentric assault). Each
-- group once.
local function groups_of(list, all_upto, by_hex)
  local out, seen = {}, {}
  local function put(g)
    if #g == 0 then return end
    local ids = {}
    for _, u in ipairs(g) do ids[#ids + 1] = u.id end
    local key = table.concat(ids, ",")
    if not seen[key] then seen[key] = true out[#out + 1] = g end
  end
  local n = #list
  if n <= all_upto then
    local masks = {}
    for m = 1, (1 << n) - 1 do masks[#masks + 1] = m end
    local function size(m) local c = 0 while m > 0 do c = c + (m & 1) m = m >> 1 end return c end
    table.sort(masks, function(a, b)
      local sa, sb = size(a), size(b)
      if sa ~= sb then return sa > sb end
      for i = 1, n do                                  -- the earlier units of `list` first
        local ba, bb = (a >> (i - 1)) & 1, (b >> (i - 1)) & 1
        if ba ~= bb then return ba > bb end
      end
      return false
    end)
    for _, m in ipairs(masks) do
      local g = {}
      for i = 1, n do if (m >> (i - 1)) & 1 == 1 then g[#g + 1] = list[i] end end
      put(g)
    end
    return out
  end
  put(list)
  for _, u in ipairs(list) do put { u } end
  for i = 1, n do
    local g = {}
    for j = 1, n do if j ~= i then g[#g + 1] = list[j] end end
    put(g)
  end
  if by_hex then
    local hexes, at = {}, {}
    for _, u in ipairs(list) do
      if not at[u.hex] then at[u.hex] = {} hexes[#hexes + 1] = u.hex end
      at[u.hex][#at[u.hex] + 1] = u
    end
    for m = 1, (1 << #hexes) - 1 do                    -- the units of each set of hexes
      local g = {}
      for i, h in ipairs(hexes) do
        if (m >> (i - 1)) & 1 == 1 then
          for _, u in ipairs(at[h]) do g[#g + 1] = u end
        end
      end
      put(g)
    end
  end
  return out
end

-- 10.1-10.37: may `u` move now, alone? (the move verb's own checks, movement.check_mover)
local function may_move(u, side)
  return u.hex ~= nil and checks.passes(function(check) movement.check_mover(u, side, u, u.hex, u:marker("origin"), check) end)
end

-- 8.5: the groups of the air units of `side` in the hex of the units `part` that may go with them
-- when they split off: none when no other ground combat unit of the side stays there (the air
-- units then follow the last to leave, air.follow, as if named); else every group of them (at
-- most four in a hex, 8.3: 15 groups). `stacks`: units.stacks().
local function air_groups(part, side, stacks)
  local airs, stays, moving = {}, false, {}
  for _, u in ipairs(part) do moving[u.id] = true end
  for _, x in ipairs(stacks[part[1].hex] or {}) do
    if x.side == side then
      if C.is_air(x) then airs[#airs + 1] = x
      elseif C.is_combat(x) and not moving[x.id] then stays = true end
    end
  end
  if #airs == 0 or not stays then return {} end
  table.sort(airs, function(a, b) return a.id < b.id end)
  local out = {}
  for _, g in ipairs(groups_of(airs, T.air.max_per_hex[side])) do out[#out + 1] = table.concat(sets.ids(g), ",") end
  return out
end

local function list_moves(out, side, opts, z, stacks)
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
        -- 12.3: the 62nd Army's first move out of 3428 goes through 3427 (checked on its route;
        -- on turns 1 and 2 its profile's slide into 3427 ends the move there, 10.19)
        local first62 = u.id == T.units.army62 and u.hex == "3428" and not vars.get("army62_left")
        local note = supply_unit and "{cost} hex" or "{cost} MP"
        local names = { u.id }                                   -- 8.5: and with air units
        if not supply_unit then
          for _, a in ipairs(air_groups({ u }, side, stacks)) do names[#names + 1] = u.id .. "," .. a end
        end
        if not first62 then
          -- every hex the search reaches, the moves built in Rust (map.moves)
          for _, name in ipairs(names) do
            add(out, map.moves(prof, { unit = u.id, cmd = "move " .. name .. " {hex}", group = "move", note = note }))
          end
        else
          local costs, hexes = map.reach(prof), {}
          for h in pairs(costs) do hexes[#hexes + 1] = h end
          table.sort(hexes)
          for _, name in ipairs(names) do
            for _, h in ipairs(hexes) do
              local _, route = map.route(prof, h)
              if h ~= u.hex and route ~= nil and route[2] == "3427" then
                add(out, { cmd = ("move %s %s"):format(name, h), group = "move", unit = u.id, hex = h,
                           note = note:gsub("{cost}", map.fmt_cost(costs[h])) })
              end
            end
          end
        end
      end
    end
  end
end

-- 10.9: the hexes by the Kerch Straits, where the crossing costs half the printed movement factor.
local KERCH = { "1505", "1506", "1606", "1607" }

-- 10.11-10.16: whether class `a` pays at least what class `b` pays for every terrain (where `b`
-- may go, `a` pays as much or may not go at all): mechanized over straight-leg over mountain.
local function pays_more(a, b)
  for t, cb in pairs(T.move_cost[b]) do
    local ca = T.move_cost[a][t]
    if ca ~= "no" and (cb == "no" or ca < cb) then return false end
  end
  return true
end

-- Whether the units of `g` may reach the Kerch Straits with the MP they have (every hex costs
-- 1 MP or more, 10.6).
local function near_kerch(g)
  local reach = 0
  for _, u in ipairs(g) do reach = math.max(reach, movement.left(u)) end
  for _, h in ipairs(KERCH) do
    if map.distance(g[1].hex, h) < reach then return true end
  end
  return false
end

-- 10.6, 10.9, 10.34: the unit of the stack `g` (sorted by MP left, then id) that pays at least
-- what each other pays on every path: its class pays more for every terrain, and its printed
-- movement factor (the Kerch crossing's price, 10.9) is the largest, or the Straits are out of
-- reach. Its cheapest route, which the move verb tries (movement.stack_path), costs the others
-- no more, so every hex its search reaches with the fewest MP of the stack is a move of the
-- whole stack. nil when none does (then the stack is listed hex by hex, list_stack_routes).
local function pacer(g)
  local kerch = near_kerch(g)
  for _, d in ipairs(g) do
    local ok = true
    for _, u in ipairs(g) do
      if not pays_more(C.class(d), C.class(u)) or (kerch and (u:value("move") or 0) > (d:value("move") or 0)) then ok = false break end
    end
    if ok then return d end
  end
  return nil
end

-- 7.22, 12.3: stacks whose units' profiles differ beyond their prices (a unit supplied by sea
-- moves only along the coast; the 62nd Army's first move out of 3428 goes by 3427).
local function first62(u) return u.id == T.units.army62 and u.hex == "3428" and not vars.get("army62_left") end
local function routed_apart(g)
  for _, u in ipairs(g) do
    if u:marker("sea_supplied") or (u.id == T.units.army62 and u.hex == "3428") then return true end   -- 7.22; 12.3, 10.19
  end
  return false
end

-- 10.34, 7.22, 10.9, 12.3: the moves of a stack no one unit paces (routed_apart, or no pacer by
-- the Straits), hex by hex: each hex every unit's own search reaches where the path the move verb
-- takes (movement.stack_path) suits every unit, and leaves 3428 by 3427 (12.3). A path the verb
-- does not take is reached by moves one after another along it (the stack into 3427, then on).
-- Only such stacks cost a search a hex: the 62nd Army stacked in 3428, a stack with the one unit
-- supplied by sea this turn (7.22).
local function list_stack_routes(out, g, name, z)
  local from = g[1].hex
  local per = movement.stack_movers(g, from, z)
  local by3427 = false
  for _, u in ipairs(g) do if first62(u) then by3427 = true end end
  local reached = nil
  for _, p in ipairs(per) do
    local costs = map.reach(p.prof)
    if reached == nil then
      reached = {}
      for h in pairs(costs) do if h ~= from then reached[h] = true end end
    else
      for h in pairs(reached) do if costs[h] == nil then reached[h] = nil end end
    end
  end
  local hexes = {}
  for h in pairs(reached) do hexes[#hexes + 1] = h end
  table.sort(hexes)
  local ids = sets.ids(g)
  for _, h in ipairs(hexes) do
    local path = movement.stack_path(per, h)
    if path and (not by3427 or path[2] == "3427") then
      add(out, { cmd = ("move %s %s"):format(name, h), group = "stack", unit = g[1].id, units = ids, hex = h })
    end
  end
end

-- 10.34-10.36: the moves of the stack `g` (two units or more of one parent stack in one hex) as
-- one: by the search of its pacer with the fewest MP of the stack (one entry a destination), or
-- hex by hex (list_stack_routes).
local function list_stack(out, g, z, stacks)
  table.sort(g, function(a, b)
    local la, lb = movement.left(a), movement.left(b)
    if la ~= lb then return la < lb end
    return a.id < b.id
  end)
  local ids = {}
  for _, u in ipairs(g) do ids[#ids + 1] = u.id end
  local names = { table.concat(ids, ",") }                      -- 8.5: and with air units
  for _, a in ipairs(air_groups(g, g[1].side, stacks)) do names[#names + 1] = names[1] .. "," .. a end
  local d = not routed_apart(g) and pacer(g)
  for _, name in ipairs(names) do
    if not d then
      list_stack_routes(out, g, name, z)
    else
      add(out, map.moves(movement.profile(d, d.hex, movement.left(g[1]), z),
        { unit = g[1].id, cmd = ("move %s {hex}"):format(name), group = "stack", note = "{cost} MP" }))
    end
  end
end

-- 10.34-10.36: the moves of stacks. The units of a parent stack (marker `origin`) still in one
-- hex move as one: the whole stack, and each of its parts of one class (straight-leg, mountain,
-- mechanized) when it has units of more than one; each unit also moves alone (list_moves).
-- 0-0-1s move alone (7.20).
local function list_stack_moves(out, side, z, stacks)
  local stacks, keys = {}, {}
  for _, u in ipairs(units.all { side = side, on_map = true }) do
    if not C.is_supply_unit(u) and may_move(u, side) and movement.left(u) > 0 then
      local key = ("%s/%s"):format(u.hex, tostring(u:marker("origin")))
      if not stacks[key] then stacks[key] = {} keys[#keys + 1] = key end
      stacks[key][#stacks[key] + 1] = u
    end
  end
  table.sort(keys)
  for _, key in ipairs(keys) do
    local g = stacks[key]
    if #g > 1 then
      local parts, classes = {}, {}
      for _, u in ipairs(g) do
        local c = C.class(u)
        if not parts[c] then parts[c] = {} classes[#classes + 1] = c end
        parts[c][#parts[c] + 1] = u
      end
      table.sort(classes)
      for _, c in ipairs(classes) do
        if #parts[c] > 1 then list_stack(out, parts[c], z, stacks) end
      end
      if #classes > 1 then list_stack(out, g, z, stacks) end
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
            local with = {}
            for _, u in ipairs(groups[o]) do
              local c = assault.cost(u, from, d)
              if c and not combat.attack_blocked(u, from, d, "ma") and movement.left(u) >= c then  -- 10.42, 10.44
                with[#with + 1] = u
              end
            end
            for _, g in ipairs(groups_of(with, MA_ALL_UPTO)) do                                    -- 10.41
              local ids = sets.ids(g)
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

-- 11.6, 11.7: the sets of two or more target hexes that some unit of `side` is next to all of
-- (every battle on several hexes has one: its attackers are next to every hex of it), sorted,
-- each once.
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
      for m = 1, (1 << #near) - 1 do
        local hs = {}
        for i = 1, #near do if (m >> (i - 1)) & 1 == 1 then hs[#hs + 1] = near[i] end end
        if #hs > 1 then
          local key = table.concat(hs, ",")
          if not found[key] then found[key] = hs keys[#keys + 1] = key end
        end
      end
    end
  end
  table.sort(keys)
  local out = {}
  for _, k in ipairs(keys) do out[#out + 1] = found[k] end
  return out
end

-- 11.1-11.8: the prepared assaults on each target hex (or set of hexes, 11.6-11.7): with every
-- unit next to all of them that may join (the attack verb's own test, combat.attacker_refusal),
-- and with the groups of them groups_of names (11.8: a unit may keep out of a battle).
local function list_attacks(out, side, stacks)
  local list, set = targets(side, stacks)
  local hex_sets = {}
  for _, h in ipairs(list) do hex_sets[#hex_sets + 1] = { h } end
  for _, hs in ipairs(target_sets(side, stacks, set)) do hex_sets[#hex_sets + 1] = hs end
  for _, hs in ipairs(hex_sets) do
    local may = {}
    for _, n in ipairs(map.neighbours(hs[1])) do
      for _, u in ipairs(stacks[n] or {}) do
        if u.side == side and not combat.attacker_refusal(u, side, hs) then may[#may + 1] = u end
      end
    end
    local where = table.concat(hs, " ")
    for _, g in ipairs(groups_of(may, PA_ALL_UPTO, true)) do
      local ids = sets.ids(g)
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

-- 11.31, 11.32, 12.2: how far `u` may advance now: its type's limit (satellites 1), no more hexes
-- than the defenders retreated, one for victorious defenders.
local function advance_cap(u, adv)
  local cap = C.is_satellite(u) and T.advance_max.satellite or T.advance_max[C.class(u)]
  if adv.defenders then cap = 1 end
  return math.min(cap, adv.max)
end

-- 11.31: whether the units `g` (in one hex) may advance together from `prev` into `h` as the
-- `i`-th hex of their advance (every unit passes the advance verb's checks), and how many hexes
-- they may advance (the least limit of theirs).
local function advance_rule(g, adv)
  local allowed = math.huge
  for _, u in ipairs(g) do allowed = math.min(allowed, advance_cap(u, adv)) end
  local function may(prev, h, i)
    for _, u in ipairs(g) do
      if not may_advance_into(u, adv.side, prev, h, i) then return false end
    end
    return true
  end
  return may, allowed
end

-- 11.31: the hexes the units `g` (in one hex) may advance to together, each by one shortest path
-- that passes the advance verb's checks for every unit of `g` from a hex the enemy left: the
-- hexes in the order found, and the path to each.
local function advance_paths(g, adv)
  local from = g[1].hex
  local may_into, allowed = advance_rule(g, adv)
  local function may(prev, h, i) return h ~= from and may_into(prev, h, i) end
  local path_to, order, layer = {}, {}, {}
  for _, h in ipairs(adv.hexes) do
    if allowed >= 1 and not path_to[h] and may(from, h, 1) then
      path_to[h] = { h } order[#order + 1] = h layer[#layer + 1] = h
    end
  end
  for i = 2, allowed do
    local nextl = {}
    for _, prev in ipairs(layer) do
      local ns = map.neighbours(prev)
      table.sort(ns)
      for _, h in ipairs(ns) do
        if not path_to[h] and may(prev, h, i) then
          local p = { table.unpack(path_to[prev]) }
          p[#p + 1] = h
          path_to[h] = p order[#order + 1] = h nextl[#nextl + 1] = h
        end
      end
    end
    layer = nextl
  end
  return order, path_to
end

-- 3.3, 10.26, 7.18, 9.25: what an advance along `path` (from `from`) does besides where it ends:
-- the hexes it enters (passing them), the start hex left out (its own). Two paths with the same
-- end and the same hexes entered rule alike, unless one enters a hex of `pushed` (7.18: a German
-- advance pushes a Soviet 0-0-1 east, again if it enters the hex pushed into later): then the
-- order counts too.
local function advance_key(path, from, pushed)
  local set, seen, order = {}, {}, false
  for _, h in ipairs(path) do
    if h ~= from and not seen[h] then seen[h] = true set[#set + 1] = h end
    if pushed[h] then order = true end
  end
  if order then return table.concat(path, ">") end
  table.sort(set)
  return path[#path] .. "|" .. table.concat(set, ",")
end

-- 7.18: the hexes where a German advance pushes a Soviet 0-0-1 (none for a Soviet advance).
local function pushed_hexes(side)
  local out = {}
  if side == C.GERMAN then
    for _, s in ipairs(units.all { side = C.SOVIET, kind = "supply", on_map = true }) do out[s.hex] = true end
  end
  return out
end

-- 11.31: the other paths of an advance of `g`: every walk of up to its limit from a hex the enemy
-- left that passes the advance verb's checks (back through the start hex too, never ending there),
-- once for each way of ruling not yet listed (`listed`, advance_key with `pushed`). In hex order
-- at each step.
local function advance_walks(g, adv, listed, pushed)
  local from = g[1].hex
  local may, allowed = advance_rule(g, adv)
  local out, path, nbrs = {}, {}, {}
  local function neighbours(h)
    if not nbrs[h] then nbrs[h] = map.neighbours(h) table.sort(nbrs[h]) end
    return nbrs[h]
  end
  local function go(prev, i, options)
    for _, h in ipairs(options) do
      if may(prev, h, i) then
        path[i] = h
        if h ~= from then
          local key = advance_key(path, from, pushed)
          if not listed[key] then listed[key] = true out[#out + 1] = { table.unpack(path, 1, i) } end
        end
        if i < allowed then go(h, i + 1, neighbours(h)) end
        path[i] = nil
      end
    end
  end
  if allowed >= 1 then go(from, 1, adv.hexes) end
  return out
end

-- 11.31, 11.32: the open advance after combat: each victor alone, and the victors of each hex
-- together (11.31: they advance as a stack or split up), to each hex they may end in, up to
-- their limit (the least of theirs for a stack), by one shortest path, then by every other path
-- that enters other hexes (advance_walks) (12.2: garrisons are never among the victors).
local function list_advances(out)
  local adv = vars.get("advance")
  if not adv then return end
  local alone, stacks, hexes = {}, {}, {}
  for _, id in ipairs(adv.units) do
    local u = units.get(id)
    if u and u.hex then
      alone[#alone + 1] = { u }
      if not stacks[u.hex] then stacks[u.hex] = {} hexes[#hexes + 1] = u.hex end
      stacks[u.hex][#stacks[u.hex] + 1] = u
    end
  end
  for _, h in ipairs(hexes) do
    if #stacks[h] > 1 then alone[#alone + 1] = stacks[h] end
  end
  local pushed = pushed_hexes(adv.side)
  for _, g in ipairs(alone) do
    local ids = table.concat(sets.ids(g), ",")
    local units_of = #g > 1 and sets.ids(g) or nil
    local function put(path)
      add(out, { cmd = ("advance %s %s"):format(ids, table.concat(path, " ")), group = "advance", unit = g[1].id,
                 units = units_of, hex = path[#path],
                 note = #path > 1 and C.count(#path, "hex", "hexes") or nil })
    end
    local order, path_to = advance_paths(g, adv)
    local listed = {}
    for _, h in ipairs(order) do
      put(path_to[h])
      listed[advance_key(path_to[h], g[1].hex, pushed)] = true
    end
    for _, path in ipairs(advance_walks(g, adv, listed, pushed)) do put(path) end
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
    local stacks = units.stacks()       -- every stack, read once
    list_moves(out, side, opts, z, stacks)
    list_stack_moves(out, side, z, stacks)                                            -- 10.34-10.36
    list_assaults(out, side, stacks)
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
