-- Stargard Solstice 8.0 Combat, 9.0 Retreats, 13.1 air support (10.0 Advance After Combat is
-- advance.lua's).
local T = require "tables"
local C = require "common"
local zoc = require "zoc"
local command = require "command"
local supply = require "supply"
local movement = require "movement"
local headquarters = require "hq"
local air = require "air"
local victory = require "victory"
local advance = require "advance"
local retreat = require "retreat"   -- rulesets/lib
local M = {}

-- 10.5: advance.lua's, kept under this name for the scripts that ask `require("combat").can_advance`.
M.can_advance = advance.can_advance

-- Parses a CRT result ("A1/Dr", "D1r2", "Ar", "-") into the two sides' effects (8.1).
function M.parse(result)
  local eff = { A = { loss = 0, retreat = 0 }, D = { loss = 0, retreat = 0 }, pinned = false }
  if result == "-" then return eff end
  for part in result:gmatch("[^/]+") do
    if part == "P" then
      eff.pinned = true
    else
      local who, rest = part:sub(1, 1), part:sub(2)
      local loss = tonumber(rest:match("^(%d+)") or "0")
      local r = rest:match("r(%d*)")
      eff[who].loss = loss
      if r then eff[who].retreat = tonumber(r ~= "" and r or "1") end
    end
  end
  return eff
end

-- 4.6: a unit may attack only into a hex it could enter in regular movement: what the map
-- costs (movement.terrain_profile: water, restrictive terrain off the paths, the unbridged Oder,
-- impassable hexsides), without units, ZOCs or MPs.
---@param from Umpire.Hex
---@param to Umpire.Hex
---@return boolean
local function can_attack_into(from, to)
  return map.path_cost(movement.terrain_profile(), { from, to }) ~= nil
end
M.can_attack_into = can_attack_into

-- 8.4.1 / 11.3: the factors of one unit's strength, each with its reason and rule: supply
-- (11.3.1 out of supply, 11.3.2 isolated) and, for an attacker, the river hexside it attacks
-- across (8.4.1, cumulative with supply; APPROX factor in tables). Returns the product and the
-- text ` ×1/2 (why, rule)...`.
---@param u UnitRef
---@param from? Umpire.Hex the attacker's hex (nil for a defender)
---@param to? Umpire.Hex the attacked hex
---@return number factor
---@return string why
local function factors(u, from, to)
  local f, why = supply.factor(u), {}
  if f < 1 then
    why[#why + 1] = (" ×%s (%s)"):format(C.num(f), u:marker("isolated") and "isolated, 11.3.2" or "out of supply, 11.3.1")
  end
  if from then
    local r, name = 1, nil
    for _, feat in ipairs(map.hexside(from, to)) do
      local x = T.river_attack_factor[feat]
      if x and x < r then r, name = x, feat end
    end
    if r < 1 then
      f = f * r
      why[#why + 1] = (" ×%s (%s hexside %s-%s, 8.4.1)"):format(C.num(r), name:gsub("_", " "), from, to)
    end
  end
  return f, table.concat(why)
end
M.factors = factors   -- (testing.lua's simple player weighs its attacks with them)

-- The checks on one unit attacking `hex` for `side`, in the order the attack refuses them;
-- `check` is umpire.check in the verb, a quiet one in the list of actions.
function M.check_attacker(u, side, hex, check)
  check = check or umpire.check
  local id, from = u.id, u.hex   -- (read once for all the checks)
  check(u.side == side and C.is_combat(u), "8.0", "%s cannot attack", id)
  check(from and map.distance(from, hex) == 1, "8.0", "%s is not adjacent to %s", id, hex)
  check(can_attack_into(from, hex), "4.6", "%s cannot attack across the hexside into %s", id, hex)
  check(command.is_active(u), "3.3.5", "%s is not activated: out of command units may not attack", id)
  check(not u:marker("attacked"), "8.3.1", "%s has already attacked in this combat segment", id)
  check(not u:marker("pinned"), "8.1.2", "%s is pinned and may not attack", id)
  check(not u:marker("no_attack"), "19.1.3", "%s is withdrawing (Defend the Reich) and may not attack", id)
end

-- The odds of an attack: strengths with every factor, the rounded totals, the column and its
-- shifts, each step logged with its rule. Returns the column index and context.
---@param hex Umpire.Hex the attacked hex
---@param attackers UnitRef[]
---@param support? table[] the air support (air.parse, 13.1)
---@return integer column the final column of the CRT
---@return UnitRef[] defenders
---@return boolean surprise whether 19.1.12 shifted it
function M.odds(hex, attackers, support)
  local side = attackers[1].side
  local defenders = {}
  for _, u in ipairs(units.at(hex)) do
    if not C.is_air(u) then defenders[#defenders + 1] = u end
  end
  -- 8.0: empty hexes and lone HQs may not be attacked
  local combat_def = 0
  for _, u in ipairs(defenders) do if C.is_combat(u) then combat_def = combat_def + 1 end end
  umpire.check(#defenders > 0 and defenders[1].side ~= side, "8.0", "there is no enemy unit in %s", hex)
  umpire.check(combat_def > 0, "8.0", "a lone HQ may not be attacked (it may be overrun, 12.2.6)")
  local attacked = vars.get("attacked_hexes") or {}
  umpire.check(not C.contains(attacked, hex), "8.3.1", "%s has already been attacked in this combat segment", hex)
  local parts = {}
  for _, u in ipairs(attackers) do
    M.check_attacker(u, side, hex)
    local f, why = factors(u, u.hex, hex)
    parts[#parts + 1] = { u = u, value = C.attack(u) * f, why = why }
  end
  local att, att_exact = C.total(parts, function(p) return p.value end)
  local dparts = {}
  for _, u in ipairs(defenders) do
    if C.is_combat(u) then
      local f, why = factors(u)
      dparts[#dparts + 1] = { u = u, value = C.defense(u) * f, why = why }
    end
  end
  -- 1.1.4 fog of war: before an attack is committed (`odds`), only the top unit of the
  -- defending stack may be examined (`u.hidden`: the core's predicate, the one `show`, `units`
  -- and the maps use)
  if umpire.is_probe() then
    local seen = {}
    for _, p in ipairs(dparts) do if not p.u.hidden then seen[#seen + 1] = p end end
    local hidden = #dparts - #seen
    if hidden > 0 and #seen == 0 then
      umpire.refuse("1.1.4", ("fog of war: the top of the stack in %s is not a combat unit and the units under it may not be examined: the odds are known only once the attack is committed"):format(hex))
    end
    if hidden > 0 then
      dparts = seen
      log.rule("1.1.4", ("fog of war: only the top unit is counted; %d more unit%s in the stack %s hidden until the attack is committed"):format(hidden, hidden > 1 and "s" or "", hidden > 1 and "are" or "is"))
    end
  end
  local def, def_exact = C.total(dparts, function(p) return p.value end)
  local function describe(list, key)
    local t = {}
    for _, p in ipairs(list) do
      t[#t + 1] = ("%s %s%s%s"):format(p.u.id, C.num(p.u:value(key) or 0), p.why, (p.why ~= "" and #list > 1) and (" = " .. C.num(p.value)) or "")
    end
    return table.concat(t, " + ")
  end
  log.rule("8.4", ("attack %s = %s, rounded down to %d (1.1.3)"):format(describe(parts, "attack"), C.num(att_exact), att))
  log.rule("8.4", ("defence %s = %s, rounded down to %d (1.1.3)"):format(describe(dparts, "defense"), C.num(def_exact), def))
  local col = C.column(att, def)
  if not col then umpire.refuse("1.1.3", ("%d to %d is below 1:2: the attack is cancelled"):format(att, def)) end
  log.rule("8.4", ("ratio %d:%d, column %s"):format(att, def, T.columns[col]))
  local shift = 0
  local terrain = map.terrain(hex)
  if (T.defence_shift[terrain] or 0) ~= 0 then
    shift = shift + T.defence_shift[terrain]
    log.rule("1.2.3", ("defender in %s: %+d column (TEC)"):format(terrain, T.defence_shift[terrain]))
  end
  for _, u in ipairs(defenders) do
    if u:marker("pinned") then
      shift = shift + 1
      log.rule("8.1.2", "defender pinned: +1 column")
      break
    end
  end
  local surprise = false
  if vars.get("german_surprise") and side == "German" and umpire.clock().turn == 1 then
    local act = vars.get("active")
    if act and units.get(act.hq) and units.get(act.hq):attr("chit") == "3SS-Pz" then
      shift = shift + 1
      surprise = true
      log.rule("19.1.12", "German surprise: +1 column on the first 3rd SS Panzer Corps attack")
    end
  end
  for _, a in ipairs(support or {}) do
    shift = shift + a.points
    log.rule("13.1", ("air unit %s, %s attack: +%d column%s"):format(a.unit.id, a.full and "full" or "normal", a.points, a.points > 1 and "s" or ""))
  end
  local final = math.max(1, math.min(#T.columns, col + shift))
  if shift ~= 0 then log.rule("8.2", ("final column %s"):format(T.columns[final])) end
  return final, defenders, surprise
end

-- 8.6: step losses. The first from the strongest unit (attack for the attacker, defence for the
-- defender; the owner breaks ties), the rest as the owner chooses.
local function take_losses(list, n, role, rule, any)
  local key = role == "A" and "attack" or "defense"
  for i = 1, n do
    local alive = {}
    for _, u in ipairs(list) do if u.hex and C.is_combat(u) then alive[#alive + 1] = u end end
    if #alive == 0 then return end
    local options = {}
    if i == 1 and not any then
      local best = -1
      for _, u in ipairs(alive) do
        local v = u:value(key) or 0
        if v > best then best, options = v, { u.id } elseif v == best then options[#options + 1] = u.id end
      end
    else
      for _, u in ipairs(alive) do options[#options + 1] = u.id end
    end
    local pick = options[1]
    if #options > 1 then
      pick = umpire.ask { prompt = "which unit takes " .. (i == 1 and "the first" or "the next") .. " step loss?",
        side = alive[1].side, rule = any and rule or (i == 1 and "8.6.1" or "8.6.2"), kind = "unit", options = options }
    end
    local u = units.get(pick)
    local gone = u:lose_steps(1)
    if gone then
      -- a loss of the CRT result is allocated by 8.6.1 / 8.6.2; a loss of a retreat (9.1.2 an
      -- EZOC entered, 9.4 a hex that cannot be retreated) is logged under its own rule
      M.eliminate(u, rule or (i == 1 and "8.6.1" or "8.6.2"))
    else
      log.rule(rule or (i == 1 and "8.6.1" or "8.6.2"), ("%s loses a step (reduced)"):format(u.id))
    end
  end
end
M.take_losses = take_losses

-- 8.6.4: eliminated units leave the map (12.4: Volksturm go to their box).
function M.eliminate(u, rule)
  if u:attr("volksturm") then
    u:put_in("volksturm")
    u:set_step(1)
    log.rule("12.4", u.id .. " is eliminated and goes to the Volksturm box")
  else
    u:put_in("dead")
    log.rule(rule or "8.6.4", u.id .. " is eliminated")
  end
end

-- 9.2.1: distance in hexes from every hex to the nearest of `sources`. Retreats count hexes,
-- not MPs (9.1.3), so every hex the units could retreat through costs 1: no lakes, restrictive
-- terrain only along a road, trail or rail line (5.2.5), no unbridged major river or impassable
-- hexside (9.1.3, 9.4). Units and ZOCs are left out: the nearest source is a matter of the map,
-- and EZOCs are weighed second (9.2.2).
-- The profile is the regular-movement one (movement.terrain_profile) with every allowed step
-- priced 1: what is prohibited stays prohibited, other costs count as one hex.
---@param sources Umpire.Hex[]
---@return table<Umpire.Hex, number>
function M.retreat_distance(sources)
  local base = movement.terrain_profile()
  local function hexes(costs, keep_allowed)
    local out = {}
    for k, c in pairs(costs) do
      if c == "no" then out[k] = "no" elseif keep_allowed then out[k] = 1 end
    end
    return out
  end
  return map.reach {
    from = sources, default = 1, terrain = hexes(base.terrain, true), paths = hexes(base.paths, true),
    hexsides = hexes(base.hexsides, false), cancels = base.cancels, routes = false,
  }
end

-- 1.2.1 / 5.3.1: whether a hex beyond the map edge next to `cur` lies `k` hexes from `origin`
-- (a place the retreat would have to go).
local function off_map_step(cur, origin, k)
  for _, d in ipairs(map.beyond_edge(cur, origin)) do
    if d == k then return true end
  end
  return false
end
M.off_map_step = off_map_step

-- 6.2: the retreating units still in an overstacked hex are eliminated, one by one, until the hex
-- is within the limit (DATA.md: the units beyond the limit, not the whole stack).
---@param group UnitRef[]
---@param hex Umpire.Hex
local function eliminate_overstacked(group, hex)
  for _, u in ipairs(group) do
    if u.hex == hex and C.is_combat(u) and movement.stacking_problem(hex, {}) then M.eliminate(u, "6.2") end
  end
end

-- 9.0: retreat `n` hexes. Each hex farther from the combat hex (9.2), toward the nearest
-- friendly supply source (9.2.1), avoiding EZOCs if possible (9.2.2); each EZOC hex entered
-- costs the stack one step (9.1.2, 4.4); each hex that cannot be retreated costs a step (9.4);
-- a stack that can only go on across the map edge is destroyed (1.2.1, 5.3.1). Where the owner
-- has a choice of hexes, the stack may split (9.1.4): each part then retreats on its own, as a
-- stack of its own (one step per EZOC hex it enters). The walk hex by hex is lib/retreat.lua's.
-- `combat_hex`: for the one hex more of 6.2, the hex the retreat began from: the extra hex is part
-- of the retreat, so it too lies farther from that hex than the hex before it (9.2).
--
-- The steps below share what one retreat knows (`r`): the side, the hexes to retreat (`n`),
-- where it began, the enemy's ZOCs and units as they stood, and the parts' routes as they end.

-- The units of a group still on the map.
---@param group UnitRef[]
---@return UnitRef[]
local function alive_of(group)
  local out = {}
  for _, u in ipairs(group) do if u.hex then out[#out + 1] = u end end
  return out
end

-- 9.2.1: the distances to the sources of the group's first combat unit (11.2.2, 11.2.4).
---@param r table the retreat
---@param group UnitRef[]
---@return table<Umpire.Hex, number>
local function dist_of(r, group)
  local lead = group[1]
  for _, u in ipairs(group) do if C.is_combat(u) then lead = u break end end
  local area = C.source_area(lead)
  r.dists[area] = r.dists[area] or M.retreat_distance(C.sources(lead))
  return r.dists[area]
end

-- 9.0: what one retreat knows as it begins: `stack` (the retreating units, not empty) retreats
-- `n` hexes from `origin` (the one hex more of 6.2 when `combat_hex` is given).
---@param stack UnitRef[]
---@param n integer
---@param origin Umpire.Hex
---@param combat_hex? Umpire.Hex
---@return table
local function begin_retreat(stack, n, origin, combat_hex)
  local side = stack[1].side
  local r = {
    side = side, n = n, origin = origin, extra = combat_hex ~= nil,
    -- 9.2: every hex of the retreat is one hex farther from the combat hex than the one before
    from_hex = combat_hex or origin, base = combat_hex and map.distance(combat_hex, origin) or 0,
    -- 8.6.1: the first step lost goes by attack for the attacker, by defence for the defender
    role = side == sides.active() and "A" or "D",
    ids = {}, ez = zoc.ezoc(side), enemy = C.occupied(C.other(side)), dists = {},
    ended = {},      -- each part's route as it ended: { group =, hex =, path = }
    split = false,   -- 9.1.4: whether the stack split
    chosen = {},     -- hexes of the retreat the owner chose (the others had no alternative)
  }
  for _, u in ipairs(stack) do r.ids[u.id] = true end
  return r
end

-- 9.2, 9.4, 9.1.3, 5.2.5, 6.2: the hexes `group` may retreat into from `cur` as hex `k` of the
-- retreat, the best of them only, in the map's order of neighbours.
---@param r table the retreat
---@param group UnitRef[]
---@param cur Umpire.Hex
---@param k integer
---@return Umpire.Hex[]
local function best_hexes(r, group, cur, k)
  local dist = dist_of(r, group)
  local combat_units = false
  for _, u in ipairs(group) do if C.is_combat(u) and C.attack(u) > 0 then combat_units = true end end
  local best = C.best()
  for _, h in ipairs(map.neighbours(cur)) do
    -- 9.4: only hexes the units could enter in regular movement; 9.3.2 / 12.2.6: a lone
    -- enemy HQ may be overrun by retreating combat units
    local overrun = combat_units and movement.lone_hq(h, r.side)
    -- 5.2.5: restrictive terrain only along a road, trail or rail line; never end in a transit hex
    local along = false
    for _, f in ipairs(map.hexside(cur, h)) do if T.path_cost[f] then along = true end end
    local t = map.terrain(h)
    local ok = map.distance(r.from_hex, h) == r.base + k and (not r.enemy[h] or overrun) and t ~= "lake"
      and (t ~= "restrictive" or along) and not (k == r.n and map.has(h, "transit"))
    if ok then
      for _, f in ipairs(map.hexside(cur, h)) do
        if (f == "major_river" or f == "impassable") and not C.contains(map.hexside(cur, h), "bridge") then ok = false end -- 9.1.3
      end
    end
    -- 6.2: the one hex more is a legal one only where the units may stack
    if ok and r.extra and movement.stacking_problem(h, group) then ok = false end
    if ok then
      -- 9.2.1 toward the nearest source: the hexes nearest to it (one hex nearer than the
      -- hex left where possible, else as near as can be); then 9.2.2 outside EZOCs if
      -- possible; the owner chooses among equals (two sources equally near included)
      best:offer(h, { dist[h] or math.huge, r.ez[h] and 1 or 0 })
    end
  end
  return best.options
end

-- 9.1.2, 9.3.2: one hex of retreat for a group from `cur` into `to`: the units move, a lone
-- enemy HQ there is overrun (12.2.6), an EZOC entered costs a step (4.4).
---@param r table the retreat
---@param group UnitRef[]
---@param cur Umpire.Hex
---@param to Umpire.Hex
local function enter_hex(r, group, cur, to)
  local lone = movement.lone_hq(to, r.side)
  for _, u in ipairs(group) do if u.hex == cur then u:move_to(to) end end
  if lone then
    log.rule("9.3.2", group[1].id .. " overruns the lone HQ " .. lone.id .. " while retreating (12.2.6)")
    headquarters.relocate(lone)
  end
  if r.ez[to] then
    log.rule("9.1.2", "the retreating stack enters an enemy ZOC in " .. to .. ": one step lost")
    take_losses(group, 1, r.role, "9.1.2")
  end
end

-- The question of a retreat hex names the hexes already retreated (`path`), and which were
-- taken automatically (the only hex 9.2 allowed) rather than chosen.
---@param r table the retreat
---@param path Umpire.Hex[]
---@return string
local function done_so_far(r, path)
  if #path == 0 then return "" end
  local t = {}
  for _, h in ipairs(path) do t[#t + 1] = h .. (r.chosen[h] and " (chosen)" or " (automatic: the only hex allowed)") end
  return (" (%d of %s done: %s → %s)"):format(#path, C.count(r.n, "hex", "hexes"), r.origin, table.concat(t, " → "))
end

local route

-- 9.1.4: the stack in `cur` retreats by separate routes at the owner's discretion: a hex among
-- `options` for each combat unit, the other units (HQs, 9.3.1) with the combat units going to
-- a hex of their owner's choice; each part goes on from there as a stack of its own, from hex
-- `k` + 1 of the retreat. `path`: the hexes retreated before `cur`'s next one.
---@param r table the retreat
---@param group UnitRef[]
---@param cur Umpire.Hex
---@param options Umpire.Hex[]
---@param k integer
---@param path Umpire.Hex[]
local function split_stack(r, group, cur, options, k, path)
  r.split = true
  local done = done_so_far(r, path)
  local parts, order, said = {}, {}, {}
  ---@param u UnitRef
  ---@param h Umpire.Hex
  local function join(u, h)
    if not parts[h] then parts[h] = {} order[#order + 1] = h end
    table.insert(parts[h], u)
  end
  for _, u in ipairs(group) do
    if C.is_combat(u) then
      join(u, umpire.ask { prompt = "retreat " .. u.id .. " to which hex?" .. done, side = r.side, rule = "9.1.4", kind = "hex", options = options })
    end
  end
  for _, u in ipairs(group) do
    if not C.is_combat(u) then
      local h = order[1]
      if #order > 1 then
        h = umpire.ask { prompt = u.id .. " retreats with the units going to which hex?", side = r.side, rule = "9.3.1", kind = "hex", options = order }
      end
      join(u, h)
    end
  end
  for _, h in ipairs(order) do r.chosen[h] = true end
  for _, h in ipairs(order) do
    local names = {}
    for _, u in ipairs(parts[h]) do names[#names + 1] = u.id end
    said[#said + 1] = table.concat(names, ", ") .. " to " .. h
  end
  log.rule("9.1.4", ("the stack in %s retreats by separate routes: %s"):format(cur, table.concat(said, "; ")))
  for _, h in ipairs(order) do
    local p = { table.unpack(path) }
    p[#p + 1] = h
    enter_hex(r, parts[h], cur, h)
    route(r, parts[h], k + 1, h, p)
  end
end

-- 1.2.1 / 5.3.1, 6.2, 9.4: `group` can retreat no farther from `cur` at hex `k`. Across the map
-- edge it is destroyed (returns false: no route ends); for the one hex more of 6.2 the caller
-- eliminates what still overstacks; else each hex not retreated costs a step.
---@param r table the retreat
---@param group UnitRef[]
---@param cur Umpire.Hex
---@param k integer
---@return boolean ended whether the group's route ends in `cur`
local function blocked(r, group, cur, k)
  if not r.extra and off_map_step(cur, r.from_hex, r.base + k) then
    -- 1.2.1 / 5.3.1: the only way on lies across the map edge, a hard limit: forced off,
    -- the units are destroyed (14.2's exit is a move of its own, not a retreat)
    log.rule("5.3.1", ("%s cannot retreat on inside the map: forced across the map edge from %s"):format(group[1].id, cur))
    for _, u in ipairs(group) do M.eliminate(u, "1.2.1") end
    return false
  end
  if r.extra then
    -- 6.2: no hex for the one hex more: the caller eliminates what still overstacks
    log.rule("6.2", ("%s cannot retreat one hex more from %s"):format(group[1].id, cur))
    return true
  end
  local left = r.n - k + 1
  log.rule("9.4", ("%s cannot retreat %d more hex%s: %d step%s lost"):format(group[1].id, left, left > 1 and "es" or "", left, left > 1 and "s" or ""))
  take_losses(group, left, r.role, "9.4", true)
  return true
end

-- 9.2: `group` retreats from `cur` hexes `k0`..n of the retreat (lib/retreat.lua walks it: the
-- best hexes of 9.2 in the map's order, the owner asked where there are several, 9.1.4 a split
-- offered to a stack of several combat units); `path`: the hexes retreated before `cur`.
---@param r table the retreat
---@param group UnitRef[]
---@param k0 integer
---@param cur Umpire.Hex
---@param path Umpire.Hex[]
function route(r, group, k0, cur, path)
  if k0 <= r.n then
    group = alive_of(group)
    if #group == 0 then return end
  end
  local gone = false
  local memo = {}
  -- the best hexes from `from` for hex `i` of this walk, found once a step
  ---@param from Umpire.Hex
  ---@param i integer
  ---@return table<Umpire.Hex, integer> rank
  local function best(from, i)
    if memo.from ~= from or memo.i ~= i then
      memo = { from = from, i = i, rank = {} }
      for pos, h in ipairs(best_hexes(r, group, from, k0 + i - 1)) do memo.rank[h] = pos end
    end
    return memo.rank
  end
  -- the hexes of the retreat so far: those before `cur`, then `p` (this walk's)
  ---@param p Umpire.Hex[]
  ---@return Umpire.Hex[]
  local function so_far(p)
    local full = { table.unpack(path) }
    for _, h in ipairs(p) do full[#full + 1] = h end
    return full
  end
  local walked, left, split = retreat.walk {
    from = cur, hexes = r.n - k0 + 1, rule = "9.2.1",
    allowed = function(from, to, _, i) return best(from, i)[to] ~= nil end,
    rank = function(from, to) return memo.rank[to] end,
    prompt = function(_, p) return r.side .. ": retreat to which hex?" .. done_so_far(r, so_far(p)) end,
    enter = function(from, to, i, chosen)
      if chosen then r.chosen[to] = true end
      enter_hex(r, group, from, to)
      group = alive_of(group)
      -- a group gone before its last hex ends the walk: no route ends for it
      gone = #group == 0 and k0 + i - 1 < r.n
      return not gone
    end,
    can_split = function()
      local count = 0
      for _, u in ipairs(group) do if C.is_combat(u) then count = count + 1 end end
      return count > 1
    end,
    split = function(from, options, i, p) split_stack(r, group, from, options, k0 + i - 1, so_far(p)) end,
  }
  if split or gone then return end
  for _, h in ipairs(walked) do path[#path + 1] = h end
  local last = walked[#walked] or cur
  if left > 0 and not blocked(r, group, last, r.n - left + 1) then return end
  r.ended[#r.ended + 1] = { group = alive_of(group), hex = last, path = path }
end

-- 9.0, 9.3.1: each part's route as it ended, in the log (the units named when the stack split).
---@param r table the retreat
---@param rule? string
local function log_routes(r, rule)
  for _, e in ipairs(r.ended) do
    if #e.path > 0 and #e.group > 0 then
      local who = ""
      if r.split then
        local names = {}
        for _, u in ipairs(e.group) do names[#names + 1] = u.id end
        who = " (" .. table.concat(names, ", ") .. ")"
      end
      log.rule(rule or "9.0", ("retreat %s → %s%s"):format(r.origin, table.concat(e.path, " → "), who))
      for _, u in ipairs(e.group) do
        if C.is_hq(u) and u.hex == e.hex then log.rule("9.3.1", u.id .. " retreats with its stack to " .. e.hex) end
      end
    end
  end
end

-- 6.3, 6.2: where a part's retreat ended: an HQ retreating onto another HQ is relocated; a hex
-- overstacked at the end of a retreat sends the part one hex more, and the units that still
-- overstack a hex then (there or where they could not leave) are eliminated.
---@param r table the retreat
---@param e table a part's route: { group =, hex =, path = }
local function end_of_route(r, e)
  local cur, alive, origin = e.hex, alive_of(e.group), r.origin
  if #alive > 0 and cur ~= origin then
    -- 6.3: an HQ retreating onto another HQ: the one that moved in is relocated
    for _, u in ipairs(alive) do
      if C.is_hq(u) then
        for _, x in ipairs(units.at(cur)) do
          if C.is_hq(x) and x.id ~= u.id and not r.ids[x.id] then
            log.rule("6.3", u.id .. " ends its retreat with another HQ: it is relocated")
            headquarters.relocate(u)
            break
          end
        end
      end
    end
    -- 6.2: overstacked at the end of a retreat: one hex more; units that still overstack a hex
    -- then (there or where they could not leave) are eliminated
    if movement.stacking_problem(cur, {}) then
      if r.extra then
        eliminate_overstacked(alive, cur)
      else
        local names = {}
        for _, u in ipairs(alive) do names[#names + 1] = u.id end
        log.rule("6.2", ("%s is overstacked at the end of the retreat: %s must retreat one more hex"):format(cur, table.concat(names, ", ")))
        M.retreat(alive, 1, cur, "6.2", r.from_hex)
        eliminate_overstacked(alive, cur)
      end
    end
  end
end

---@param list UnitRef[] the units of the stack (12.3: a Festung among them ignores the retreat)
---@param n integer hexes to retreat
---@param origin Umpire.Hex where the stack stands
---@param rule? string the rule of the log line (9.0 by default)
---@param combat_hex? Umpire.Hex for 6.2's one hex more, where the retreat began
function M.retreat(list, n, origin, rule, combat_hex)
  local stack = {}
  for _, u in ipairs(list) do if u.hex == origin and not u:attr("festung") then stack[#stack + 1] = u end end
  if #stack == 0 or n <= 0 then return end
  local r = begin_retreat(stack, n, origin, combat_hex)
  route(r, stack, 1, origin, {})
  log_routes(r, rule)
  for _, e in ipairs(r.ended) do end_of_route(r, e) end
end

-- 8.3.1: the attackers are marked as having attacked and the hex as attacked this segment.
-- Returns the hexes the attack came from and the hex of each attacker (for 12.2.1, 12.2.4).
---@param hex Umpire.Hex
---@param attackers UnitRef[]
---@return Umpire.Hex[] attack_hexes
---@return table<string, Umpire.Hex> start_hex
local function mark_attack(hex, attackers)
  local attack_hexes, seen, start_hex = {}, {}, {}
  for _, u in ipairs(attackers) do
    start_hex[u.id] = u.hex
    if not seen[u.hex] then seen[u.hex] = true attack_hexes[#attack_hexes + 1] = u.hex end
  end
  for _, u in ipairs(attackers) do u:set_marker("attacked", 1) end
  local attacked = vars.get("attacked_hexes") or {}
  attacked[#attacked + 1] = hex
  vars.set("attacked_hexes", attacked)
  return attack_hexes, start_hex
end

-- 8.1 the defender's half of the result: 8.7 a city ignores the first step lost, 9.5 a village
-- or city the first hex of retreat, 12.3 a Festung every retreat; then the defender's HQs go with
-- their stack (9.3.1, 12.2.3) or, their combat units gone, are relocated (12.2.1).
---@param hex Umpire.Hex the attacked hex
---@param defenders UnitRef[]
---@param eff table the result (M.parse)
local function defender_effects(hex, defenders, eff)
  local hqs_with = {}
  for _, u in ipairs(defenders) do if C.is_hq(u) then hqs_with[#hqs_with + 1] = u end end
  local loss, retreat = eff.D.loss, eff.D.retreat
  if loss > 0 and map.terrain(hex) == "city" then
    loss = loss - 1
    log.rule("8.7", "defender in a city ignores the first step loss")
  end
  if retreat > 0 and (map.terrain(hex) == "city" or map.has(hex, "village")) then
    retreat = retreat - 1
    log.rule("9.5", "defender in a village or city ignores the first hex of retreat")
  end
  if loss > 0 then take_losses(defenders, loss, "D") end
  for _, u in ipairs(defenders) do
    if u:attr("festung") and retreat > 0 then log.rule("12.3", u.id .. " (Festung) ignores the retreat") end
  end
  if retreat > 0 then M.retreat(defenders, retreat, hex, "9.0") end
  -- 9.3.1 / 12.2.3 HQs retreat with their stack; 12.2.1 an HQ whose stacked combat units
  -- were all eliminated (losses, a blocked retreat, an EZOC on the way) is relocated
  for _, hq in ipairs(hqs_with) do
    local alive_at
    for _, u in ipairs(defenders) do if C.is_combat(u) and u.hex then alive_at = alive_at or u.hex end end
    if not alive_at then
      log.rule("12.2.1", "the units stacked with " .. hq.id .. " are gone: it is relocated")
      headquarters.relocate(hq)
    elseif hq.hex == hex and alive_at ~= hex then
      hq:move_to(alive_at)
      log.rule("9.3.1", hq.id .. " retreats with its stack to " .. alive_at)
    end
  end
end

-- 8.1 the attacker's half of the result: its step losses, then its retreat, each attacking stack
-- from its own hex (9.0); 9.5.1 an attacker in a village or city retreats in full.
---@param attackers UnitRef[]
---@param eff table the result (M.parse)
local function attacker_effects(attackers, eff)
  if eff.A.loss > 0 then take_losses(attackers, eff.A.loss, "A") end
  if eff.A.retreat > 0 then
    -- 9.0: each attacking stack retreats from its own hex; 9.5.1: an attacker in a village or
    -- city does not ignore the first hex, as a defender would (9.5)
    local groups = {}
    for _, u in ipairs(attackers) do
      if u.hex then groups[u.hex] = groups[u.hex] or {}; table.insert(groups[u.hex], u) end
    end
    for h, list in pairs(groups) do
      if map.terrain(h) == "city" or map.has(h, "village") then
        log.rule("9.5.1", ("the attacker in %s (a %s) retreats in full: only a defender ignores the first hex"):format(h,
          map.terrain(h) == "city" and "city" or "village"))
      end
      M.retreat(list, eff.A.retreat, h, "9.0")
    end
  end
end

-- 8.1, 8.1.1: the result carried out: the defender's half first, the attacker's first on double
-- results; 8.1.2 a P result pins the defenders still on the map.
---@param hex Umpire.Hex the attacked hex
---@param attackers UnitRef[]
---@param defenders UnitRef[]
---@param eff table the result (M.parse)
local function apply_result(hex, attackers, defenders, eff)
  if eff.A.loss + eff.A.retreat > 0 and eff.D.loss + eff.D.retreat > 0 then
    attacker_effects(attackers, eff)     -- 8.1.1: on double results the attacker executes first
    defender_effects(hex, defenders, eff)
  else
    defender_effects(hex, defenders, eff)     -- 8.1: the defender executes first
    attacker_effects(attackers, eff)
  end
  if eff.pinned then
    for _, u in ipairs(defenders) do if u.hex then u:set_marker("pinned", 1) end end
  end
end

-- 12.2.1: an attacking HQ whose stacked combat units were all eliminated is relocated.
---@param side string the attacker
---@param attackers UnitRef[]
---@param attack_hexes Umpire.Hex[]
---@param start_hex table<string, Umpire.Hex> each attacker's hex as the attack began
local function relocate_bereft_hqs(side, attackers, attack_hexes, start_hex)
  for _, h in ipairs(attack_hexes) do
    local had, left = false, false
    for _, u in ipairs(attackers) do
      if start_hex[u.id] == h then
        had = true
        if u.hex then left = true end
      end
    end
    if had and not left then
      for _, u in ipairs(units.at(h)) do
        if C.is_hq(u) and u.side == side then
          log.rule("12.2.1", "the units stacked with " .. u.id .. " are gone: it is relocated")
          headquarters.relocate(u)
        end
      end
    end
  end
end

-- The attack itself (8.2): declared, odds, die, result applied, advance offered.
---@param hex Umpire.Hex
---@param attackers UnitRef[]
---@param air_words? string[] the air support named (13.1)
---@return string result the CRT result
function M.attack(hex, attackers, air_words)
  local side = attackers[1].side
  local air_support = air.parse(side, air_words or {})
  local col, defenders, surprise = M.odds(hex, attackers, air_support)
  if surprise then vars.set("german_surprise", nil) end          -- 19.1.12: the first attack only
  local die = dice.roll("1d6", "combat at " .. hex)
  local result = umpire.outcome(T.crt[die][col])   -- 8.2: odds needs no more than the CRT
  log.rule("8.2", ("die %d on %s: %s"):format(die, T.columns[col], result))
  local attack_hexes, start_hex = mark_attack(hex, attackers)
  air.spend(air_support)
  command.note_attacked(defenders)
  apply_result(hex, attackers, defenders, M.parse(result))
  relocate_bereft_hqs(side, attackers, attack_hexes, start_hex)
  advance.offer(hex, side, attackers, defenders, attack_hexes)            -- 10.0
  victory.check_sudden_death()
  return result
end

-- ------------------------------------------------------------------ verbs
umpire.command {
  usage = "attack <hex> with <units> [air] [<word>...]",
  help = "attack an enemy stack with activated adjacent units; air support: `air 1JG full Rudel normal`",
  example = "attack 16.09 with 4Pz/4SS,8/4SS air Rudel full",
  rule = "8.2", phases = { "combat" }, odds = true,
  run = function(hex, attackers, _, words) return M.attack(hex, attackers, words) end,
}

return M
