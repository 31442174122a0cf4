-- Red Storm over the Reich: what may be done now (umpire.actions, docs/lua-api.md §2.6). Every
-- command listed passes its verb's checks: the list asks the verbs' own checks where they are
-- functions (movement.may_move, combat.may_attack, overrun.may_overrun) and searches each
-- unit's moves once with the segment's own profile (movement.profile; map.moves searches the
-- units in a row that share a profile's tables in one call; the zones computed once a list and
-- what the checks ask again and again kept in their `known`).
--
-- Listed: moves in the eight movement segments (10.4-10.8.5; a Soviet unit into a hex holding
-- only refugees too, 6.11, 10.8.1.C; an out-of-supply German unit's moves as a roving cauldron
-- where only they reach, 6.8, 10.8.4; a neighbour whose one-hex step the verb refuses but two
-- steps reach for all that is left, along those two hexes, 10.4.B); attacks in the combat
-- segments (13.1, one per target with every unit that may join, and the same with the first
-- ready tactical air unit, 17.4.C); Zhukov's second attack (17.3.A, with the units of the attack
-- with him); overruns in the exploitation segments (14.2, one per target and hex of overrunners,
-- with tactical air, 17.4.C, and on turn 3 with Rudel, 11.5); the advance after combat into the
-- vacated hex (13.6.A, each unit within the stacking limits) and a mechanized unit's follow-up
-- along the retreat path (13.6.B, one entry a length); barrages (11.0-11.4; with Heinrici,
-- 17.3.B, declared then `fire`); the Fuel Supply and Fuel Shortage markers (9.2.A); bridgehead
-- markers placed (10.7.1.A.1) and removed, whenever the Soviet acts (10.7.1.A.2); the placement
-- of each reinforcement due and replacement drawn in every hex its kind allows (8.1, 8.2.1: the
-- verb's own checks, reinforce.may_place); the Soviet replacements (8.2.1.A); the German
-- mechanized steps on reduced divisions and mechanized KGs (8.2.1.B, 16.1.B); disbanding generic
-- garrisons in the German Placement Segment (16.2); the strategic movement: Entrained markers,
-- sea transport and refugee evacuation in the Strategic Segment (10.8.2, 10.8.1.B, 10.8.1.C), rail
-- moves in the German movement segments and detraining in the Detrain Segments (10.8.2); the
-- Sleigh Ride and Guderian set-up (3.3.A `withdraw` to every hex a withdrawal reaches, up to six
-- hexes; `kg` and `reduce`; 3.4.A `deploy` of the first Guderian unit waiting, or of the unit
-- asked for, in every hex it may be placed); and `next` when the segment may end (not while a
-- promised hex of a multi-hex attack can still be attacked, 13.1.B; not before the set-up's
-- decisions are made, 3.3.A, 3.4.A).
--
-- Left out, though a listed entry reaches the same result (each verb still works when typed):
-- * a tactical air unit other than the first ready one (17.4.C): a side's tactical air units are
--   alike (one counter type a side, each +1 to one fire a turn, 13.7.C, 17.4.C: Used when
--   committed, all Ready again together in the Joint Disruption Removal Segment,
--   barrage.joint_removal);
-- * a naval barrage from a chosen coastal hex (11.3): the hex the ship fires from enters no
--   modifier (11.1 reads the target hex and its neighbours), the ship goes back to the holding box
--   once it has fired, and the verb takes a chosen hex exactly when the nearest free one lies in
--   range, which the listed entry uses: only the log line differs;
-- * Fuel Shortage markers on several units at once, entraining or detraining several units in
--   one command (9.2.A, 10.8.2): each verb checks each unit alone and the markers in use against
--   the total, and sets one marker a unit, with no roll: one at a time (listed) does the same;
-- * moving several units in one command (`move A,B hex`, 10.4): the verb moves them one by one
--   with the same zones (friendly moves change no enemy zone), as the listed moves one at a time;
-- * a withdrawal along given hexes (`withdraw X a b`, 3.3.A): it changes nothing on the hexes it
--   passes (the set-up verb takes no control on the way), so the listed withdrawal to the same
--   hex is the same.
-- Left out, and not reached otherwise (the verb takes them when typed):
-- * moves along hexes other than the search's path (`move X a b c`), where the path changes the
--   ruling only by what passing through a hex does: control (3.5.A, every hex by our reading,
--   DATA.md), defensive works destroyed (17.8), Fuel Supply markers lifted (9.2.D), refugees
--   eliminated (6.11, 10.8.1.C), or a roving cauldron's compass path (6.8) where a plain one
--   exists. Each destination is listed once, by the cheapest path, which leaves the most MPs (a
--   dearer path is only worth it for the hexes it passes); a path for each set of hexes passed
--   would be a search a hex, in Lua, for hundreds of units, a cost the list cannot bear.
local C = require "common"
local T = require "tables"
local sets = require "sets"             -- rulesets/lib
local allowance = require "allowance"
local movement = require "movement"
local combat = require "combat"
local resolution = require "resolution"
local overrun = require "overrun"
local stacking = require "stacking"
local barrage = require "barrage"
local supply = require "supply"
local logistics = require "logistics"
local reinforce = require "reinforce"
local zoc = require "zoc"
local scenarios = require "scenarios"
local kg = require "kg"
local transport = require "transport"
local special = require "special"

local M = {}

local function wanted(opts, u) return opts.unit == nil or opts.unit == u.id end

-- (`actions <hex>` and `actions <unit>` as a hint for attacks and overruns: a target is listed
-- for a hex only as itself, and for a unit only next to it, where every attacker stands)
local function targets_wanted(opts)
  local u = opts.unit and units.get(opts.unit)
  local near = u and u.hex
  return function(hex)
    if opts.hex and opts.hex ~= hex then return false end
    return not near or map.distance(near, hex) == 1
  end
end

-- 10.8.5: the distance of every hex from the nearest Soviet unit (the reaction's condition), in
-- one search.
local function soviet_distances()
  local from = {}
  for _, u in ipairs(C.on_map(C.SOVIET)) do from[u.hex] = true end
  if not next(from) then return {} end
  return map.reach { from = from, routes = false }
end

-- 6.8, 17.3.A: an enemy unit next to `hex` (enemy: the set of hexes holding enemy units).
local function enemy_next_to(hex, enemy)
  for _, n in ipairs(map.neighbours(hex)) do
    if enemy[n] then return true end
  end
  return false
end

-- The part of a movement profile (movement.profile) that units may share: what map.moves reads
-- once for several units (their own hexes, allowances and crossings aside).
local SHARED = { "terrain", "hexsides", "blocked", "stop", "default", "directions" }
local function shared_part(prof)
  local out = { routes = false }
  for _, k in ipairs(SHARED) do out[k] = prof[k] end
  return out
end
local function shares(a, b)
  for _, k in ipairs(SHARED) do
    if a[k] ~= b[k] then return false end
  end
  return true
end

-- 6.8, 10.8.4: an out-of-supply German unit's moves as a roving cauldron: the hexes the verb
-- reaches only that way (it tries the roving profile, Soviet ZOCs ignored along the German
-- Retreat Compass, only where the plain search reaches no path), not next to a Soviet unit. One
-- plain search more (the unit's own, `prof`, whose hexes are left out) and the roving one, in
-- Rust. Returns whether the unit has such moves and no plain one (a mover the batch did not count).
---@param u Unit
---@param from string
---@param left number its MPs left
---@param prof table its plain profile (movement.profile)
---@param exclude table[] the hexes left out of its plain moves
---@param z table the zones (movement.zones)
---@param near_soviet table the hexes next to a Soviet unit
---@param add fun(action: table) collects an action
---@return boolean
local function roving(u, from, left, prof, exclude, z, near_soviet, add)
  local plain = map.reach(prof)
  local rove = movement.profile(u, from, left, z, { rove = true })
  rove.routes = false
  local skip = { plain, near_soviet }
  for _, set in ipairs(exclude) do skip[#skip + 1] = set end
  local listed = map.moves(rove, { unit = u.id, cmd = "move {unit} {hex}", group = "move", note = "{cost} MP, a roving cauldron (6.8)", exclude = skip })
  add(listed)
  return #listed > 0 and next(plain, next(plain)) == nil
end

-- 10.4.B: a neighbour left out as a one-hex move the verb refuses (`dear`) may also be reached by
-- two steps for all that is left, a tie with the one-hex step that the verb's search may settle
-- either way: listed along the two steps (`move <unit> <n> <hex>`, the path the verb follows as
-- given). No way of three steps or more ties: it costs at least 2 MP more than entering the hex
-- (every hex costs 1 MP or more, T.move_cost), the one-hex step at most 2 more (the dearest
-- hexside, T.hexside_cost, T.soviet_major_river), and that is more than is left.
---@param u Unit
---@param from string
---@param left number its MPs left
---@param prof table its profile (movement.profile)
---@param dear table<string, number> the neighbours left out (their one-hex step refused)
---@param exclude table[] the hexes where the move may not end
---@param add fun(action: table) collects an action
local function detours(u, from, left, prof, dear, exclude, add)
  local hexes = {}
  for h in pairs(dear) do hexes[#hexes + 1] = h end
  table.sort(hexes)
  for _, h in ipairs(hexes) do
    local ok = true
    for _, set in ipairs(exclude) do if set[h] then ok = false end end
    for _, n in ipairs(ok and map.neighbours(h) or {}) do
      local cost = map.direction(from, n) and map.path_cost(prof, { from, n, h })
      if cost and cost >= left then
        add { cmd = ("move %s %s %s"):format(u.id, n, h), group = "move", unit = u.id, hex = h, note = map.fmt_cost(cost) .. " MP" }
        break
      end
    end
  end
end

-- 10.4: each unit's moves in a movement segment.
---@param side string
---@param opts table the filters asked for (unit, hex)
---@param add fun(action: table) collects an action
---@param z table? the zones found once a list (movement.zones)
---@return integer movers the units with a move listed (what `next` forfeits, 10.4.A)
local function moves(side, opts, add, z)
  local seg = allowance.segment()
  local dist = seg == "reaction" and soviet_distances() or nil
  local stacks = units.stacks()
  local refugees, friendly_combat, cost_text = {}, {}, {}
  for h, stack in pairs(stacks) do
    for _, v in ipairs(stack) do
      if v.side == side and C.is_refugee(v) then refugees[h] = true end
      if v.side == side and C.is_combat(v) then friendly_combat[h] = true end
    end
  end
  -- 17.3.A: the hexes next to an enemy unit with no friendly combat unit (where Zhukov may not end)
  local exposed
  local near_soviet   -- (6.8: the hexes next to a Soviet unit, where a roving cauldron may not end)
  local breakthrough = side == C.SOVIET and seg == "breakthrough"
  local known = {}   -- (what movement.may_move finds once for all its questions)
  -- (units in a row whose profiles share their cost and hex tables are searched in one
  -- map.moves, the profile read once; each keeps its hex, allowance, crossings and exclusions)
  local batch
  local movers = 0
  local function flush()
    if batch then
      local listed = map.moves(batch.prof, { units = batch.units, cmd = "move {unit} {hex}", group = "move", note = "{cost} MP" })
      add(listed)
      -- (the units of a batch that lists no move at all count for none)
      if #listed > 0 then movers = movers + #batch.units end
    end
    batch = nil
  end
  for _, u in ipairs(units.all { side = side, on_map = true }) do
    local mp = wanted(opts, u) and movement.may_move(u, side, seg, known) and allowance.allowance(u, seg)
    if mp then
      local from, left = u.hex, movement.left(u, mp)
      local prof, info = movement.profile(u, from, left, z)
      prof.routes = false
      -- 10.4.B: a step dearer than what is left is one-hex movement, which the verb refuses
      -- across a major river from the start hex (10.7.1.B) and in the Soviet breakthrough:
      -- such a neighbour is left out when the search reaches it only for all that is left
      local dear = {}
      if breakthrough or next(info.crossing) then
        -- (what one step costs without the allowance: the profile's costs alone, its blocked
        -- and stopping hexes aside, which the search does not list anyway)
        local steps = map.step_costs { from = from, terrain = prof.terrain, hexsides = prof.hexsides,
          side_cost = prof.side_cost, default = prof.default, directions = prof.directions }
        for h, real in pairs(steps) do
          if (breakthrough or info.crossing[from .. ">" .. h] == "start") and real > left then dear[h] = left end
        end
      end
      local exclude = {}
      if C.is_leader(u) then
        if not exposed then
          exposed = map.adjacent { from = z.enemy_hexes }
          for h in pairs(friendly_combat) do exposed[h] = nil end
        end
        exclude[#exclude + 1] = exposed
      end
      if C.is_refugee(u) then exclude[#exclude + 1] = refugees end          -- 10.8.3: one a hex
      if next(dear) then detours(u, from, left, prof, dear, exclude, add) end
      if side == C.GERMAN and not dist and u:marker("oos") then
        near_soviet = near_soviet or map.adjacent { from = z.enemy_hexes, as_set = true }
        if roving(u, from, left, prof, exclude, z, near_soviet, add) then movers = movers + 1 end
      end
      if not dist then
        if batch and not shares(batch.prof, prof) then flush() end
        batch = batch or { prof = shared_part(prof), units = {} }
        table.insert(batch.units, { unit = u.id, from = from, mp = left, exclude = exclude, dear = dear,
          side_cost = prof.side_cost, always_one = prof.always_one })
      else
        -- 10.8.5: a reacting unit ends next to a Soviet unit or nearer to the nearest one
        local skip, any = {}, false
        for _, set in ipairs(exclude) do for h in pairs(set) do skip[h] = true end end
        for h, cost in pairs(map.reach(prof)) do
          local before, after = dist[from] or math.huge, dist[h] or math.huge
          if h ~= from and not skip[h] and not (dear[h] and cost >= dear[h]) and (after <= 1 or after < before) then
            cost_text[cost] = cost_text[cost] or (map.fmt_cost(cost) .. " MP")
            add { cmd = "move " .. u.id .. " " .. h, group = "move", unit = u.id, hex = h, note = cost_text[cost] }
            any = true
          end
        end
        if any then movers = movers + 1 end
      end
    end
  end
  flush()
  return movers
end

-- The units of `side` in `hex` that pass a predicate.
local function units_in(stacks, hex, side, pred)
  local out = {}
  for _, v in ipairs(stacks[hex] or {}) do
    if v.side == side and pred(v) then out[#out + 1] = v end
  end
  return out
end

-- 13.1.A: may `u` take part in an attack at all now (not having attacked, not entrained or
-- disrupted, a kind that attacks)?
local function may_join(u)
  return (C.is_combat(u) or C.is_artillery(u) or C.is_flak(u) or C.is_leader(u)) and not C.is_garrison(u)
    and not u:marker("entrained") and not (C.disrupted(u) and not C.is_artillery(u)) and not u:marker("attacked")
end

-- 13.1.A: of the units `l` of one hex, those that may attack from it (a single infantry unit
-- alone there does not, unless stacked with Zhukov, 17.3.A, whose attack combat.may_attack
-- then judges; attack-0 units only with an attacking unit of attack 1 or more).
local function from_hex(l, h, side)
  local with_zhukov = false
  for _, u in ipairs(l) do if C.is_leader(u) then with_zhukov = true end end
  local kept = {}
  for _, u in ipairs(l) do
    if with_zhukov or not (C.is_infantry(u) and #C.combat_at(h, side) == 1) then kept[#kept + 1] = u end
  end
  local strong = false
  for _, u in ipairs(kept) do if (u:value("attack") or 0) >= 1 then strong = true end end
  local out = {}
  for _, u in ipairs(kept) do
    if strong or C.is_leader(u) then out[#out + 1] = u end
  end
  -- (Zhukov alone is no attack)
  for _, u in ipairs(out) do if not C.is_leader(u) then return out end end
  return {}
end

-- The hexes holding a unit of `side`, in hex order.
local function held_by(stacks, side)
  local hexes = {}
  for h, stack in pairs(stacks) do
    for _, v in ipairs(stack) do
      if v.side == side then hexes[#hexes + 1] = h break end
    end
  end
  table.sort(hexes)
  return hexes
end

-- 13.1, 17.4.C: the attack on `hex` with `list`, and the same with the side's first ready
-- tactical air unit when one may fly against it (resolution.ready_air, what the verb's `air` asks).
---@param hex string
---@param list Unit[]
---@param side string
---@param add fun(action: table) collects an action
local function add_attack(hex, list, side, add)
  local l = sets.ids(list)
  local cmd = ("attack %s with %s"):format(hex, table.concat(l, ","))
  local tc = resolution.strength and resolution.strength(list, "attack")
  local note = tc and ("%s against %s"):format(tc, resolution.strength(resolution.defenders(hex, C.other(side)), "defense")) or nil
  add { cmd = cmd, group = "attack", units = l, hex = hex, note = note }
  local ready = resolution.ready_air(side, hex, true)
  if #ready > 0 then
    add { cmd = cmd .. " air", group = "attack", units = l, hex = hex, note = note and (note .. ", tactical air " .. ready[1].id) or nil }
  end
end

-- 17.3.A: Zhukov's second attack: the units of the last attack with Zhukov, still on the map,
-- on the same hex while it holds defenders (combat.may_attack, the verb's own checks).
---@param side string
---@param opts table the filters asked for (unit, hex)
---@param add fun(action: table) collects an action
local function second_attack(side, opts, add)
  local z = combat.segment_state().zhukov
  if not z or not targets_wanted(opts)(z.hex) then return end
  local list = {}
  for _, id in ipairs(z.units) do
    local u = units.get(id)
    if u and u.exists and u.hex and map.distance(u.hex, z.hex) == 1 then list[#list + 1] = u end
  end
  -- (Zhukov alone is no attack)
  local fighting = false
  for _, u in ipairs(list) do if not C.is_leader(u) then fighting = true end end
  if fighting and combat.may_attack(z.hex, list, side) then add_attack(z.hex, list, side, add) end
end

-- 13.1: one attack a target, with every unit that may join it (13.1.B: from several hexes only
-- those holding a mechanized unit, or Zhukov's and next to it).
---@param side string
---@param opts table the filters asked for (unit, hex)
---@param add fun(action: table) collects an action
local function attacks(side, opts, add)
  local enemy = C.other(side)
  local stacks = units.stacks()
  local done = combat.segment_state().hexes or {}
  local hexes = held_by(stacks, enemy)
  local wanted_target = targets_wanted(opts)
  for _, hex in ipairs(hexes) do
    if wanted_target(hex) and (done[hex] or 0) == 0 and #resolution.defenders(hex, enemy) > 0 then
      local groups, zhukov = {}, nil
      for _, n in ipairs(map.neighbours(hex)) do
        if resolution.hexside_open(n, hex) then
          local l = from_hex(units_in(stacks, n, side, may_join), n, side)
          if #l > 0 then
            groups[#groups + 1] = { hex = n, units = l }
            for _, u in ipairs(l) do if C.is_leader(u) then zhukov = n end end
          end
        end
      end
      local function try(gs)
        local list = {}
        for _, g in ipairs(gs) do for _, u in ipairs(g.units) do list[#list + 1] = u end end
        if #list > 0 and combat.may_attack(hex, list, side) then return list end
        return nil
      end
      local list = try(groups)
      if not list and #groups > 1 then
        -- 13.1.B: only the hexes with a mechanized unit (or Zhukov's and next to it)
        local mech = {}
        for _, g in ipairs(groups) do
          local m = zhukov and (g.hex == zhukov or map.distance(g.hex, zhukov) == 1)
          for _, u in ipairs(g.units) do if C.is_mech(u) then m = true end end
          if m then mech[#mech + 1] = g end
        end
        if #mech > 1 then list = try(mech) end
        -- otherwise from the one hex with the most units
        if not list then
          local best
          for _, g in ipairs(groups) do
            if not best or #g.units > #best.units then best = g end
          end
          list = try { best }
        end
      end
      if list then add_attack(hex, list, side, add) end
    end
  end
  second_attack(side, opts, add)
end

-- 13.6.B: a mechanized survivor of the last attack follows up beyond the vacated hex along the
-- defenders' retreat path, one entry a length (what combat.advance checks: no enemy units on the
-- way, 13.6; in Mud or Dry no major river crossed before the last hex; the stacking limits at the
-- end, 5.1; flak never into an urban hex, 17.2.C).
---@param u Unit
---@param last table the last combat (combat.segment_state().last)
---@param side string
---@param add fun(action: table) collects an action
local function follow_ups(u, last, side, add)
  local path = last.path or {}
  if not C.is_mech(u) or #path == 0 then return end
  local frost = C.weather() == "frost"
  local full = { u.hex, last.hex }
  for k = 1, #path do
    local prev, h = full[#full], path[k]
    if C.stops(side, last.hex) or C.stops(side, h) then return end
    if not frost and C.contains(map.hexside(full[#full - 1], prev), "major_river") then return end
    full[#full + 1] = h
    if not (C.is_flak(u) and C.URBAN[h]) and not stacking.problem(h, side, { u }) then
      local cmd = ("advance %s %s %s"):format(u.id, last.hex, table.concat(path, " ", 1, k))
      add { cmd = cmd, group = "advance", unit = u.id, hex = h }
    end
  end
end

-- 13.6.A: each survivor of the last attack into the vacated defenders' hex (within the
-- stacking limits, flak never into an urban hex); 13.6.B: a mechanized one on along the retreat path.
---@param side string
---@param opts table the filters asked for (unit, hex)
---@param add fun(action: table) collects an action
local function advances(side, opts, add)
  local last = combat.segment_state().last
  if not last or not last.cleared or #C.at(last.hex, C.other(side)) > 0 then return end
  local list = {}
  for _, id in ipairs(last.units or {}) do
    local u = units.get(id)
    if u and u.exists and u.hex and not u:marker("advanced") and not C.is_garrison(u)
      and not (C.is_flak(u) and C.URBAN[last.hex]) and u.hex ~= last.hex then
      -- (a step across a major river into the hex is allowed: it is the last hex of the path)
      if map.direction(u.hex, last.hex) then list[#list + 1] = u end
    end
  end
  if #list == 0 then return end
  for _, u in ipairs(list) do
    -- (each unit alone within the stacking limits: together they may not be)
    if not stacking.problem(last.hex, side, { u }) then
      add { cmd = ("advance %s %s"):format(u.id, last.hex), group = "advance", unit = u.id, hex = last.hex }
    end
    follow_ups(u, last, side, add)
  end
end

-- 11.5, 14.2: Rudel, when the German may add him to an overrun (what the `overrun` verb asks:
-- turn 3, not flown yet, in the holding box).
---@param side string
---@return Unit?
local function rudel_ready(side)
  if side ~= C.GERMAN or umpire.clock().turn ~= T.rudel_turn then return nil end
  local r = units.get("RUDEL")
  if r and r.exists and not r.hex and r.box ~= "removed" and not r:marker("used") then return r end
  return nil
end

-- 14.2, 17.4.C: the overrun of `hex` by the units `l` (ids), the same with the side's first
-- ready tactical air unit when one may fly against it, and with Rudel when he may (11.5: he
-- leaves the game after it, the tactical air unit staying ready).
---@param hex string
---@param l string[]
---@param side string
---@param add fun(action: table) collects an action
---@param rudel Unit? Rudel, when ready (rudel_ready)
local function add_overrun(hex, l, side, add, rudel)
  local cmd = ("overrun %s with %s"):format(hex, table.concat(l, ","))
  local unit = #l == 1 and l[1] or nil
  add { cmd = cmd, group = "overrun", unit = unit, units = l, hex = hex }
  local ready = resolution.ready_air(side, hex, true)
  if #ready > 0 then
    add { cmd = cmd .. " air", group = "overrun", unit = unit, units = l, hex = hex, note = "tactical air " .. ready[1].id }
  end
  if rudel then
    add { cmd = cmd .. " air " .. rudel.id, group = "overrun", unit = unit, units = l, hex = hex, note = "Rudel (11.5)" }
  end
end

-- 14.2: an overrun of each enemy hex from each adjacent hex, with the mechanized units there
-- that may overrun it together.
---@param side string
---@param opts table the filters asked for (unit, hex)
---@param add fun(action: table) collects an action
---@param z table? the zones found once a list (movement.zones)
local function overruns(side, opts, add, z)
  local enemy = C.other(side)
  local stacks = units.stacks()
  local known = { zones = z }   -- (what overrun.may_overrun finds once for all its questions)
  local hexes = held_by(stacks, enemy)
  local wanted_target = targets_wanted(opts)
  local rudel = rudel_ready(side)
  for _, hex in ipairs(hexes) do
    local t = map.terrain(hex)
    if wanted_target(hex) and (t == "clear" or t == "broken") and #resolution.defenders(hex, enemy) > 0 then
      for _, n in ipairs(map.neighbours(hex)) do
        local l = units_in(stacks, n, side, function(u)
          return C.is_mech(u) and C.supplied(u) and not C.disrupted(u) and not u:marker("fuel_shortage") and not u:marker("entrained")
        end)
        if #l > 0 then
          -- units overrun together only if they began the segment stacked together: the
          -- group of the first one's start hex, each alone when the group does not pass
          local by = {}
          for _, u in ipairs(l) do
            local s = overrun.start_hex(u, known)
            if s then by[s] = by[s] or {}; table.insert(by[s], u) end
          end
          local starts = {}
          for s in pairs(by) do starts[#starts + 1] = s end
          table.sort(starts)
          for _, s in ipairs(starts) do
            local g = by[s]
            if overrun.may_overrun(hex, g, side, known) then
              local l2 = sets.ids(g)
              add_overrun(hex, l2, side, add, rudel)
            elseif #g > 1 then
              for _, u in ipairs(g) do
                if overrun.may_overrun(hex, { u }, side, known) then
                  add_overrun(hex, { u.id }, side, add, rudel)
                end
              end
            end
          end
        end
      end
    end
  end
end

-- 11.0-11.4, 17.3.B: each ready barrage unit of the side firing now at each enemy hex it may
-- barrage (M.why_not, the verb's own checks; with Heinrici available a Soviet barrage is
-- declared, once a unit and once a hex, then `fire` fires them). Naval units are listed from
-- the nearest coastal hex only (no `from`).
---@param side string
---@param opts table the filters asked for (unit, hex)
---@param add fun(action: table) collects an action
local function barrages(side, opts, add)
  local firing = barrage.FIRING[umpire.clock().step]
  if firing ~= side then return end
  local declaring = barrage.declaring()
  local declared = vars.get("heinrici_declared") or {}
  local by_unit, by_hex = {}, {}
  for _, d in ipairs(declared) do by_unit[d.unit] = true; by_hex[d.hex] = true end
  local enemy = C.other(side)
  local targets = {}
  for h, stack in pairs(units.stacks()) do
    for _, v in ipairs(stack) do
      if v.side == enemy and (C.is_combat(v) or C.is_flak(v) or C.is_garrison(v) or C.is_artillery(v)) then
        targets[#targets + 1] = h break
      end
    end
  end
  table.sort(targets)
  local known = {}   -- (what barrage.why_not finds once for all the checks)
  for _, u in ipairs(units.all { side = side }) do
    if wanted(opts, u) and barrage.is_barrage_unit(u) and not u:marker("used") and not (declaring and by_unit[u.id]) then
      local range = u:attr("range") or 0
      for _, h in ipairs(targets) do
        if (opts.hex == nil or opts.hex == h) and not (C.is_artillery(u) and u.hex and map.distance(u.hex, h) > range)
          and not (declaring and by_hex[h]) then
          if barrage.why_not(u, h, nil, known) == nil then
            add { cmd = ("barrage %s %s"):format(u.id, h), group = "barrage", unit = u.id, hex = h }
          end
        end
      end
    end
  end
  if declaring and #declared > 0 then add { cmd = "fire", group = "fire" } end
end

-- 9.2.A: the German's Fuel Supply markers (listed only in hexes holding a German mechanized
-- unit, where they count, 9.2.B; the verb takes any friendly supplied hex).
---@param side string
---@param opts table the filters asked for (unit, hex)
---@param add fun(action: table) collects an action
local function fuel(side, opts, add)
  local placed = map.marked("fuel_supply")
  local n = 0
  for _ in pairs(placed) do n = n + 1 end
  if n >= T.fuel.supply then return end
  local cand, seen = {}, {}
  for _, u in ipairs(C.on_map(C.GERMAN, C.is_mech)) do
    local h = u.hex
    if not seen[h] and not placed[h] and not C.PROHIBITED[h] and C.controller(h) == C.GERMAN and #C.at(h, C.SOVIET) == 0 then
      seen[h] = true; cand[#cand + 1] = h
    end
  end
  table.sort(cand)
  if #cand == 0 then return end
  local ok = supply.traceable(C.GERMAN, cand)
  for _, h in ipairs(cand) do
    if ok[h] then add { cmd = "fuel " .. h, group = "fuel", hex = h } end
  end
end

-- 9.2.A, 9.2.B: a Fuel Shortage marker on each German mechanized unit that may take one.
---@param side string
---@param opts table the filters asked for (unit, hex)
---@param add fun(action: table) collects an action
local function shortage(side, opts, add)
  local have = 0
  for _, u in ipairs(units.all { side = C.GERMAN }) do if u:marker("fuel_shortage") then have = have + 1 end end
  if have + 1 > T.fuel.shortage then return end
  for _, u in ipairs(C.on_map(C.GERMAN, C.is_mech)) do
    if wanted(opts, u) and not u:marker("fuel_shortage") and not logistics.near_fuel(u.hex) then
      add { cmd = "shortage " .. u.id, group = "shortage", unit = u.id, hex = u.hex }
    end
  end
end

-- 10.7.1.A.2: the Soviet may take a bridgehead marker off at any time (`bridgehead remove`, a
-- verb of any step): each marker on the map, whenever the Soviet acts. Weight for bots (§2.6):
-- a small one, for a marker comes back only at the end of a breakthrough, exploitation or
-- redeployment segment and only where a supplied, undisrupted combat unit holds it (10.7.1.A.1).
local REMOVE_WEIGHT = 0.1
---@param marked table<string, integer> the bridgehead markers (map.marked)
---@param opts table the filters asked for (unit, hex)
---@param add fun(action: table) collects an action
local function bridgehead_removals(marked, opts, add)
  local hexes = {}
  for h in pairs(marked) do
    if opts.hex == nil or opts.hex == h then hexes[#hexes + 1] = h end
  end
  table.sort(hexes)
  for _, h in ipairs(hexes) do
    add { cmd = "bridgehead remove " .. h, group = "bridgehead", hex = h, weight = REMOVE_WEIGHT }
  end
end

-- 10.7.1.A.1: a bridgehead marker in each hex next to a major river held by a supplied,
-- undisrupted Soviet combat unit (at the end of the breakthrough, exploitation and redeployment
-- segments).
---@param side string
---@param opts table the filters asked for (unit, hex)
---@param add fun(action: table) collects an action
---@param marked table<string, integer> the bridgehead markers (map.marked)
local function bridgeheads(side, opts, add, marked)
  local n = 0
  for _ in pairs(marked) do n = n + 1 end
  if n >= T.bridgeheads then return end
  local seen = {}
  for _, u in ipairs(C.on_map(C.SOVIET, C.is_combat)) do
    local h = u.hex
    if not seen[h] and C.supplied(u) and not C.disrupted(u) then
      seen[h] = true
      if not map.marker(h, "bridgehead") and movement.next_to_major_river(h) then
        add { cmd = "bridgehead " .. h, group = "bridgehead", unit = u.id, hex = h }
      end
    end
  end
end

-- 8.1, 8.2.1: each unit the side may place now (a reinforcement due, a replacement drawn) in
-- every hex its kind of placement allows (reinforce.may_place, the verb's own checks; the
-- supply of the candidate hexes traced once a side).
---@param side string
---@param opts table the filters asked for (unit, hex)
---@param add fun(action: table) collects an action
local function placements(side, opts, add)
  local known = { supplied = {} }
  local hexes_of, placing = {}, {}
  for _, u in ipairs(units.all { side = side, on_map = false }) do
    local k = wanted(opts, u) and reinforce.kind(u)
    if k then
      placing[#placing + 1] = { u = u, k = k }
      hexes_of[k] = hexes_of[k] or reinforce.candidates(k, side)
    end
  end
  if #placing == 0 then return end
  -- (the supply of every candidate hex traced once)
  local all = {}
  for _, list in pairs(hexes_of) do for _, h in ipairs(list) do all[#all + 1] = h end end
  known.supplied[side] = supply.traceable(side, all)
  for _, p in ipairs(placing) do
    local u, k = p.u, p.k
    for _, h in ipairs(hexes_of[k]) do
      if (opts.hex == nil or opts.hex == h) and reinforce.may_place(u, k, h, known) then
        add { cmd = ("place %s %s"):format(u.id, h), group = "place", unit = u.id, hex = h }
      end
    end
  end
end

-- 8.2.1.A: the Soviet replacements, once a game, not on a turn of the strain (9.3).
---@param add fun(action: table) collects an action
local function soviet_replacements(add)
  if not vars.get("soviet_replacements_taken") and not logistics.sls_active() then
    add { cmd = "replacements", group = "replacements" }
  end
end

-- 16.1.B: does a mechanized division wait in a holding box for the mechanized KG `u` (what the
-- `rebuild` verb looks for: the division in the KG's own box, else one in a box without a KG)?
---@param u Unit
---@return boolean
local function division_waiting(u)
  local box = u:attr("box")
  if box then
    for _, d in ipairs(units.in_box(box)) do if d.id ~= u.id and not d:attr("mech_kg") then return true end end
  end
  for _, b in ipairs(kg.KG_BOXES) do
    local inside, has_kg = units.in_box(b), false
    for _, x in ipairs(inside) do if x:attr("mech_kg") then has_kg = true end end
    if not has_kg and #inside > 0 then return true end
  end
  return false
end

-- 8.2.1.B: a German mechanized step on each reduced, supplied mechanized division on the map,
-- and on each supplied mechanized KG whose division waits in a holding box (16.1.B).
---@param opts table the filters asked for (unit, hex)
---@param add fun(action: table) collects an action
local function rebuilds(opts, add)
  if umpire.clock().turn < 2 or (vars.get("mech_steps") or 0) <= 0 then return end
  for _, u in ipairs(C.on_map(C.GERMAN, C.is_mech)) do
    if wanted(opts, u) and C.supplied(u) and (u:attr("mech_kg") and division_waiting(u) or (not u:attr("mech_kg") and u.step > 1)) then
      add { cmd = "rebuild " .. u.id, group = "rebuild", unit = u.id, hex = u.hex }
    end
  end
end

-- 16.2: the German disbands a generic garrison outside a Soviet ZOC (the verb takes it at any
-- time; listed in the German Placement Segment, where it comes back as a replacement at once).
---@param opts table the filters asked for (unit, hex)
---@param add fun(action: table) collects an action
local function disbands(opts, add)
  local z
  for _, u in ipairs(C.on_map(C.GERMAN)) do
    if wanted(opts, u) and u:attr("garrison") == "generic" then
      z = z or zoc.zoc(C.SOVIET)
      if not z[u.hex] then add { cmd = "disband " .. u.id, group = "disband", unit = u.id, hex = u.hex } end
    end
  end
end

-- 10.8.2: an Entrained marker on each German artillery, mechanized or infantry unit in a railroad
-- hex (what the `entrain` verb checks), while markers are left.
---@param opts table the filters asked for (unit, hex)
---@param add fun(action: table) collects an action
local function entrains(opts, add)
  if #transport.entrained() >= transport.markers_total() then return end
  for _, u in ipairs(C.on_map(C.GERMAN)) do
    if wanted(opts, u) and (C.is_artillery(u) or C.is_mech(u) or C.is_infantry(u)) and C.RAIL[u.hex]
      and not u:marker("entrained") and not u:marker("immobile") then
      add { cmd = "entrain " .. u.id, group = "entrain", unit = u.id, hex = u.hex }
    end
  end
end

-- 10.8.2: each entrained German unit that has not moved, by rail to each railroad hex the `rail`
-- verb's search reaches (up to 25 hexes of friendly railroad linked to a supply source, never
-- into a Soviet ZOC nor through one, within the stacking limits).
---@param opts table the filters asked for (unit, hex)
---@param add fun(action: table) collects an action
local function rails(opts, add)
  local known = {}
  for _, u in ipairs(transport.entrained()) do
    if wanted(opts, u) and not u:marker("moved") then
      for _, h in ipairs(transport.rail_destinations(u, known)) do
        if opts.hex == nil or opts.hex == h then add { cmd = ("rail %s %s"):format(u.id, h), group = "rail", unit = u.id, hex = h } end
      end
    end
  end
end

-- 10.8.2: the Entrained markers taken off, one unit at a time (a Detrain Segment).
---@param opts table the filters asked for (unit, hex)
---@param add fun(action: table) collects an action
local function detrains(opts, add)
  for _, u in ipairs(transport.entrained()) do
    if wanted(opts, u) then add { cmd = "detrain " .. u.id, group = "detrain", unit = u.id, hex = u.hex } end
  end
end

-- 10.8.1.B, 10.8.1.C: with a Sea Transport ready, each German combat unit in a port (not moved,
-- not entrained) to each other German-controlled port it fits in; each refugee unit in a port
-- tries its evacuation (a transport waiting there will do too). What the `sea` and `evacuate`
-- verbs check.
---@param opts table the filters asked for (unit, hex)
---@param add fun(action: table) collects an action
local function sea(opts, add)
  local ready = transport.ready_transport()
  local ports = {}
  for _, h in ipairs(C.PORT_LIST) do
    if C.controller(h) == C.GERMAN and #C.at(h, C.SOVIET) == 0 then ports[#ports + 1] = h end
  end
  table.sort(ports)
  for _, u in ipairs(C.on_map(C.GERMAN)) do
    if wanted(opts, u) and C.PORT[u.hex] and not u:marker("moved") then
      if ready and C.is_combat(u) and not u:marker("entrained") then
        for _, h in ipairs(ports) do
          if h ~= u.hex and (opts.hex == nil or opts.hex == h) and stacking.room(h, u) then
            add { cmd = ("sea %s %s"):format(u.id, h), group = "sea", unit = u.id, hex = h }
          end
        end
      end
      if C.is_refugee(u) and (ready or #C.at(u.hex, C.GERMAN, C.is_transport) > 0) then
        add { cmd = "evacuate " .. u.id, group = "evacuate", unit = u.id, hex = u.hex }
      end
    end
  end
end

-- 3.3.A: each German unit on or south of row 14 that has not withdrawn, to each hex a withdrawal
-- reaches (up to six hexes: the verb takes every one of them, and which path it took changes
-- nothing). The search is the `withdraw` verb's (scenarios.lua), with its profile: along the
-- German Retreat Compass, terrain ignored, never into Soviet units, stopping in a Soviet ZOC and
-- not from one into another; the units are searched in one map.moves, each from its hex with its
-- own ZOC-to-ZOC steps closed, the entries made in Rust.
---@param opts table the filters asked for (unit, hex)
---@param add fun(action: table) collects an action
---@return integer units the units with a withdrawal listed (what `next` forfeits, 3.3.A)
local function withdrawals(opts, add)
  local ez, runs = nil, {}
  for _, u in ipairs(C.on_map(C.GERMAN)) do
    if wanted(opts, u) and not C.is_refugee(u) and not C.is_garrison(u) and not u:marker("withdrawn")
      and tonumber(u.hex:sub(3, 4)) >= T.sleigh_row then
      ez = ez or zoc.zoc(C.SOVIET)
      local side_cost = {}
      if ez[u.hex] then
        for _, n in ipairs(map.neighbours(u.hex)) do if ez[n] then side_cost[u.hex .. ">" .. n] = "no" end end
      end
      runs[#runs + 1] = { unit = u.id, from = u.hex, mp = T.sleigh_hexes, side_cost = side_cost }
    end
  end
  if #runs == 0 then return 0 end
  local blocked = {}
  for _, s in ipairs(C.on_map(C.SOVIET)) do blocked[s.hex] = true end
  local prof = { terrain = { sea = "no", lake = "no", prohibited = "no" }, default = 1, hexsides = { sea = "no" },
    blocked = map.hexset(blocked), stop = map.hexset(ez), directions = T.compass.German, routes = false }
  local listed = map.moves(prof, { units = runs, cmd = "withdraw {unit} {hex}", group = "withdraw" })
  add(listed)
  -- (the units of a search that lists no withdrawal at all count for none)
  return #listed > 0 and #runs or 0
end

-- 3.3.A, 3.4.A: the set-up decisions of Sleigh Ride and Guderian (the verbs' own checks).
---@param opts table the filters asked for (unit, hex)
---@param add fun(action: table) collects an action
---@return boolean may_end whether the set-up may end now (3.3.A, 3.4.A)
---@return integer withdrawers the units with a withdrawal listed
local function setup(opts, add)
  local withdrawers = withdrawals(opts, add)
  for _, u in ipairs(C.on_map(C.GERMAN)) do
    if wanted(opts, u) then
      if C.passes(function(check) scenarios.check_kg(u, check) end) then add { cmd = "kg " .. u.id, group = "kg", unit = u.id, hex = u.hex } end
      if C.passes(function(check) scenarios.check_reduce(u, check) end) then add { cmd = "reduce " .. u.id, group = "reduce", unit = u.id, hex = u.hex } end
    end
  end
  -- (the Guderian units are placed one at a time: without a unit asked for, the hexes of the
  -- first one waiting; thousands of hexes for each of fifty units would be a list no one reads)
  local waiting = {}
  for _, u in ipairs(units.in_box("guderian")) do
    if wanted(opts, u) and (opts.unit or #waiting == 0) then waiting[#waiting + 1] = u end
  end
  if #waiting > 0 then
    -- the hexes where a Guderian unit may go: supplied (one trace for the whole map), with no
    -- Soviet unit next to them, and passing the verb's checks (the same for every unit waiting
    -- but for stacking)
    local supplied = supply.traceable(C.GERMAN, map.hexes())
    local soviet = {}
    for _, u in ipairs(C.on_map(C.SOVIET)) do soviet[u.hex] = true end
    local exposed = next(soviet) and map.adjacent { from = soviet } or {}
    local known = { supplied = supplied, soviet = soviet, near_soviet = exposed, control = map.marked("ctl") }
    -- (in hex order: pairs walks the hex ids in order)
    local hexes = {}
    if C.passes(function(check) scenarios.check_deploy_unit(waiting[1], check) end) then
      for h in pairs(supplied) do
        if not exposed[h] and not soviet[h] and (opts.hex == nil or opts.hex == h)
          and C.passes(function(check) scenarios.check_deploy_hex(h, check, known) end) then
          hexes[#hexes + 1] = h
        end
      end
    end
    -- (one unit alone is within every limit of 5.2: only hexes holding units are checked)
    local stacks = units.stacks()
    for _, u in ipairs(waiting) do
      for _, h in ipairs(hexes) do
        if not stacks[h] or not stacking.problem(h, C.GERMAN, { u }) then
          add { cmd = ("deploy %s %s"):format(u.id, h), group = "deploy", unit = u.id, hex = h }
        end
      end
    end
  end
  return C.passes(function(check) scenarios.check_end(check) end), withdrawers
end

-- Weights for bots (docs/lua-api.md §2.6, DATA.md "Weights for bots"): what ending the segment
-- throws away. `next` forfeits for good the listed entries of these groups: a unit's move, rail
-- move or overrun in this segment (10.4.A: a unit moves once a segment; 10.8.2; 14.2), an attack
-- or an advance not made in the combat segment (13.1, 13.6), a reinforcement or replacement not
-- placed (8.1, 8.2.1.A-B: forfeited at the end of the Placement Segment), a withdrawal of the
-- Sleigh Ride set-up (3.3.A: only then; its units counted with the movers, for map.moves lists
-- them). Each counts once by what it concerns: the unit, or the target hex of an attack or overrun.
-- (Entraining, evacuating and the once-a-game Soviet replacements can wait for a later turn.)
local FORFEITED = { attack = "hex", overrun = "hex", advance = "unit", rail = "unit", place = "unit", rebuild = "unit" }

-- 11.2-11.4: a barrage not fired is lost, counted by its unit, only in the German Combat
-- Segment's barrage steps. A unit that holds its fire in the Soviet Combat Segment may still fire
-- in the German's; after the German's comes the Replenishment Segment, which readies Used units
-- (supplied artillery out of enemy ZOCs, air and naval units always), so a shot held then is lost
-- for the turn (DATA.md 3a).
local LAST_BARRAGES = { ger_barrage = true, ger_barrage_sov = true }
local FORFEITED_LAST = setmetatable({ barrage = "unit" }, { __index = FORFEITED })

-- How many things `next` would forfeit now: the units with a move or withdrawal listed (`movers`) and the
-- distinct units or targets of the groups `groups` forfeits among the table entries of `out`.
local function forfeited(out, movers, groups)
  local seen, n = {}, movers
  for _, a in ipairs(out) do
    local by = type(a) == "table" and a.group and groups[a.group]
    local key = by and (a.group .. ":" .. tostring(a[by] or a.cmd))
    if key and not seen[key] then seen[key] = true; n = n + 1 end
  end
  return n
end

-- `next`'s weight: 1 when it forfeits nothing, else 1/(1+n) for n things forfeited, but never
-- below 0.1 (modest: a bot choosing at random does some ten things of a large segment before it
-- ends it, not every one). Unweighted, the groups weigh alike: with `move` and `next` alone,
-- `next` was picked at one command in two, ending each segment with almost every unit unmoved
-- and most combats unfought. The entries themselves are not weighted: which move or attack to
-- make is the bot's choice (umpire.evaluate's, for the greedy bot).
local NEXT_FLOOR = 0.1
local function next_weight(out, movers, step)
  return math.max(NEXT_FLOOR, 1 / (1 + forfeited(out, movers, LAST_BARRAGES[step] and FORFEITED_LAST or FORFEITED)))
end

-- Whether a search bot moves the idle units before it ends a step where `next` forfeits
-- something (docs/lua-api.md §2.6, `sweep`): yes, but in the Soviet Redeployment Movement
-- Segment (4.2.V.b). After it come only the German's redeployment and the joint supply check
-- of 15.0: his units that gain nothing by a move hold the hexes his lines run through (7.2: a
-- unit negates the German ZOC in its hex for supply; 6.6: its ZOC stops a German move), and a
-- unit shifted a hex aside opens a line to a German move deep behind them (DATA.md 3a).
local STANDS = { sov_redeploy = true }

-- What `side` may do now (umpire.actions, docs/lua-api.md §2.6).
---@param side string?
---@param opts? table the filters asked for (unit, hex)
---@return table[]
function M.list(side, opts)
  opts = opts or {}
  local out = {}
  local function add(a) out[#out + 1] = a end
  local step = umpire.clock().step
  local seg = allowance.segment()
  local may_end, withdrawers = true, 0
  if step == "setup" then may_end, withdrawers = setup(opts, add) end
  -- (the zones of control and the sets the movement profiles share, found once for the moves
  -- and the overruns)
  local z = side and seg and movement.zones(side) or nil
  local movers = withdrawers
  if side and seg then movers = movers + moves(side, opts, add, z) end
  if side and (step == "sov_combat" or step == "ger_combat") then
    advances(side, opts, add)
    attacks(side, opts, add)
  end
  if side and (step == "sov_exploit" or step == "ger_exploit") then overruns(side, opts, add, z) end
  if side then barrages(side, opts, add) end
  if side == C.GERMAN and step == "fuel_supply" then fuel(side, opts, add) end
  if side == C.SOVIET and step == "fuel_shortage" then shortage(side, opts, add) end
  if side == C.SOVIET and step == "sov_place" then soviet_replacements(add) end
  if (side == C.SOVIET and step == "sov_place") or (side == C.GERMAN and step == "ger_place") then placements(side, opts, add) end
  if side == C.GERMAN and step == "ger_place" then rebuilds(opts, add) end
  if side == C.GERMAN and step == "ger_place" then disbands(opts, add) end
  if side == C.GERMAN and step == "ger_strategic" then entrains(opts, add); sea(opts, add) end
  if side == C.GERMAN and (step == "ger_assault" or step == "ger_exploit" or step == "ger_redeploy") then rails(opts, add) end
  if side == C.GERMAN and (step == "ger_detrain" or step == "ger_detrain_x" or step == "ger_detrain_r") then detrains(opts, add) end
  if side == C.SOVIET then
    local marked = map.marked("bridgehead")
    if step == "sov_breakthrough" or step == "sov_exploit" or step == "sov_redeploy" then bridgeheads(side, opts, add, marked) end
    if next(marked) then bridgehead_removals(marked, opts, add) end
  end
  -- 17.1.C: a German movement segment ends only once the units that must leave the USIR have
  -- (or cannot)
  if side == C.GERMAN and seg and #special.usir_stuck() > 0 then may_end = false end
  -- 13.1.B: a combat segment ends only once the promised hexes are attacked (or cannot be)
  if side and (step == "sov_combat" or step == "ger_combat") and #combat.open_promises(side) > 0 then may_end = false end
  if may_end then
    local e = { cmd = "next", group = "next", weight = next_weight(out, movers, step) }
    if STANDS[step] then e.sweep = false end
    add(e)
  end
  return out
end

return M
