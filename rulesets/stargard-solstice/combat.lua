-- Stargard Solstice 8.0 Combat, 9.0 Retreats, 10.0 Advance After Combat, 13.1 air support.
local T = require "tables"
local C = require "common"
local zoc = require "zoc"
local command = require "command"
local supply = require "supply"
local M = {}

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
local function can_attack_into(from, to)
  return map.path_cost(require("movement").terrain_profile(), { from, to }) ~= nil
end
M.can_attack_into = can_attack_into

-- 8.4.1 / 11.3: the factors of one unit's strength, each with its reason and rule: supply
-- (11.3.1 out of supply, 11.3.2 isolated) and, for an attacker, the river hexside it attacks
-- across (8.4.1, cumulative with supply; APPROX factor in tables). Returns the product and the
-- text ` ×1/2 (why, rule)...`.
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

-- The checks on one unit attacking `hex` for `side`, in the order the attack refuses them;
-- `check` is umpire.check in the verb, a quiet one in the list of actions.
function M.check_attacker(u, side, hex, check)
  check = check or umpire.check
  check(u.side == side and C.is_combat(u), "8.0", "%s cannot attack", u.id)
  check(u.hex and map.distance(u.hex, hex) == 1, "8.0", "%s is not adjacent to %s", u.id, hex)
  check(can_attack_into(u.hex, hex), "4.6", "%s cannot attack across the hexside into %s", u.id, hex)
  check(command.is_active(u), "3.3.5", "%s is not activated: out of command units may not attack", u.id)
  check(not u:marker("attacked"), "8.3.1", "%s has already attacked in this combat segment", u.id)
  check(not u:marker("pinned"), "8.1.2", "%s is pinned and may not attack", u.id)
  check(not u:marker("no_attack"), "19.1.3", "%s is withdrawing (Defend the Reich) and may not attack", u.id)
end

-- The odds of an attack: strengths with every factor, the rounded totals, the column and its
-- shifts, each step logged with its rule. Returns the column index and context.
function M.odds(hex, attackers, air)
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
  for _, a in ipairs(air or {}) do
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
      pick = umpire.ask { prompt = alive[1].side .. ": which unit takes " .. (i == 1 and "the first" or "the next") .. " step loss?",
        rule = any and rule or (i == 1 and "8.6.1" or "8.6.2"), kind = "unit", options = options }
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
function M.retreat_distance(sources)
  local base = require("movement").terrain_profile()
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
local function eliminate_overstacked(group, hex)
  local movement = require "movement"
  for _, u in ipairs(group) do
    if u.hex == hex and C.is_combat(u) and movement.stacking_problem(hex, {}) then M.eliminate(u, "6.2") end
  end
end

-- 9.0: retreat `n` hexes. Each hex farther from the combat hex (9.2), toward the nearest
-- friendly supply source (9.2.1), avoiding EZOCs if possible (9.2.2); each EZOC hex entered
-- costs the stack one step (9.1.2, 4.4); each hex that cannot be retreated costs a step (9.4);
-- a stack that can only go on across the map edge is destroyed (1.2.1, 5.3.1). Where the owner
-- has a choice of hexes, the stack may split (9.1.4): each part then retreats on its own, as a
-- stack of its own (one step per EZOC hex it enters).
-- `combat_hex`: for the one hex more of 6.2, the hex the retreat began from: the extra hex is part
-- of the retreat, so it too lies farther from that hex than the hex before it (9.2).
function M.retreat(list, n, origin, rule, combat_hex)
  local extra = combat_hex ~= nil
  -- 9.2: every hex of the retreat is one hex farther from the combat hex than the one before
  local from_hex = combat_hex or origin
  local base = combat_hex and map.distance(combat_hex, origin) or 0
  local stack = {}
  for _, u in ipairs(list) do if u.hex == origin and not u:attr("festung") then stack[#stack + 1] = u end end
  if #stack == 0 or n <= 0 then return end
  local side = stack[1].side
  -- 8.6.1: the first step lost goes by attack for the attacker, by defence for the defender
  local role = side == sides.active() and "A" or "D"
  local ids = {}
  for _, u in ipairs(stack) do ids[u.id] = true end
  local movement = require "movement"
  local ez = zoc.ezoc(side)
  local enemy = C.occupied(C.other(side))
  local dists = {}
  local function alive_of(group)
    local out = {}
    for _, u in ipairs(group) do if u.hex then out[#out + 1] = u end end
    return out
  end
  -- 9.2.1: the sources of the group's first combat unit (11.2.2, 11.2.4)
  local function dist_of(group)
    local lead = group[1]
    for _, u in ipairs(group) do if C.is_combat(u) then lead = u break end end
    local area = C.source_area(lead)
    dists[area] = dists[area] or M.retreat_distance(C.sources(lead))
    return dists[area]
  end
  local ended = {}
  local split = false
  local chosen = {}   -- hexes of the retreat the owner chose (the others had no alternative)
  -- one hex of retreat for a group from `cur` into `to`: moved, lone HQ overrun, EZOC cost
  local function enter(group, cur, to)
    local lone = movement.lone_hq(to, side)
    for _, u in ipairs(group) do if u.hex == cur then u:move_to(to) end end
    if lone then
      log.rule("9.3.2", group[1].id .. " overruns the lone HQ " .. lone.id .. " while retreating (12.2.6)")
      require("hq").relocate(lone)
    end
    if ez[to] then
      log.rule("9.1.2", "the retreating stack enters an enemy ZOC in " .. to .. ": one step lost")
      take_losses(group, 1, role, "9.1.2")
    end
  end
  local function route(group, k0, cur, path)
    for k = k0, n do
      group = alive_of(group)
      if #group == 0 then return end
      local dist = dist_of(group)
      local combat_units = false
      for _, u in ipairs(group) do if C.is_combat(u) and C.attack(u) > 0 then combat_units = true end end
      local best = C.best()
      for _, h in ipairs(map.neighbours(cur)) do
        -- 9.4: only hexes the units could enter in regular movement; 9.3.2 / 12.2.6: a lone
        -- enemy HQ may be overrun by retreating combat units
        local overrun = combat_units and movement.lone_hq(h, side)
        -- 5.2.5: restrictive terrain only along a road, trail or rail line; never end in a transit hex
        local along = false
        for _, f in ipairs(map.hexside(cur, h)) do if T.path_cost[f] then along = true end end
        local t = map.terrain(h)
        local ok = map.distance(from_hex, h) == base + k and (not enemy[h] or overrun) and t ~= "lake"
          and (t ~= "restrictive" or along) and not (k == n and map.has(h, "transit"))
        if ok then
          for _, f in ipairs(map.hexside(cur, h)) do
            if (f == "major_river" or f == "impassable") and not C.contains(map.hexside(cur, h), "bridge") then ok = false end -- 9.1.3
          end
        end
        -- 6.2: the one hex more is a legal one only where the units may stack
        if ok and extra and movement.stacking_problem(h, group) then ok = false end
        if ok then
          -- 9.2.1 toward the nearest source: the hexes nearest to it (one hex nearer than the
          -- hex left where possible, else as near as can be); then 9.2.2 outside EZOCs if
          -- possible; the owner chooses among equals (two sources equally near included)
          best:offer(h, { dist[h] or math.huge, ez[h] and 1 or 0 })
        end
      end
      local options = best.options
      if #options == 0 then
        if not extra and off_map_step(cur, from_hex, base + k) then
          -- 1.2.1 / 5.3.1: the only way on lies across the map edge, a hard limit: forced off,
          -- the units are destroyed (14.2's exit is a move of its own, not a retreat)
          log.rule("5.3.1", ("%s cannot retreat on inside the map: forced across the map edge from %s"):format(group[1].id, cur))
          for _, u in ipairs(group) do M.eliminate(u, "1.2.1") end
          return
        end
        if extra then
          -- 6.2: no hex for the one hex more: the caller eliminates what still overstacks
          log.rule("6.2", ("%s cannot retreat one hex more from %s"):format(group[1].id, cur))
          break
        end
        local left = n - k + 1
        log.rule("9.4", ("%s cannot retreat %d more hex%s: %d step%s lost"):format(group[1].id, left, left > 1 and "es" or "", left, left > 1 and "s" or ""))
        take_losses(group, left, role, "9.4", true)
        break
      end
      local to = options[1]
      if #options > 1 then
        -- the question names the hexes already retreated, and which were taken automatically
        -- (the only hex 9.2 allowed) rather than chosen
        local done = ""
        if #path > 0 then
          local t = {}
          for _, h in ipairs(path) do t[#t + 1] = h .. (chosen[h] and " (chosen)" or " (automatic: the only hex allowed)") end
          done = (" (%d of %s done: %s → %s)"):format(#path, C.count(n, "hex", "hexes"), origin, table.concat(t, " → "))
        end
        local choices = {}
        for _, h in ipairs(options) do choices[#choices + 1] = h end
        local combat = {}
        for _, u in ipairs(group) do if C.is_combat(u) then combat[#combat + 1] = u end end
        if #combat > 1 then choices[#choices + 1] = "split" end      -- 9.1.4
        to = umpire.ask { prompt = side .. ": retreat to which hex?" .. done, rule = "9.2.1", kind = "hex", options = choices }
        chosen[to] = true
        if to == "split" then
          -- 9.1.4: separate routes at the owner's discretion: a hex for each unit (HQs go with
          -- combat units, 9.3.1); each part goes on as a stack of its own
          split = true
          local parts, order, said = {}, {}, {}
          local function join(u, h)
            if not parts[h] then parts[h] = {} order[#order + 1] = h end
            table.insert(parts[h], u)
          end
          for _, u in ipairs(combat) do
            join(u, umpire.ask { prompt = side .. ": retreat " .. u.id .. " to which hex?" .. done, rule = "9.1.4", kind = "hex", options = options })
          end
          for _, u in ipairs(group) do
            if not C.is_combat(u) then
              local h = order[1]
              if #order > 1 then
                h = umpire.ask { prompt = side .. ": " .. u.id .. " retreats with the units going to which hex?", rule = "9.3.1", kind = "hex", options = order }
              end
              join(u, h)
            end
          end
          for _, h in ipairs(order) do chosen[h] = true end
          for _, h in ipairs(order) do
            local names = {}
            for _, u in ipairs(parts[h]) do names[#names + 1] = u.id end
            said[#said + 1] = table.concat(names, ", ") .. " to " .. h
          end
          log.rule("9.1.4", ("the stack in %s retreats by separate routes: %s"):format(cur, table.concat(said, "; ")))
          for _, h in ipairs(order) do
            local p = {}
            for _, x in ipairs(path) do p[#p + 1] = x end
            p[#p + 1] = h
            enter(parts[h], cur, h)
            route(parts[h], k + 1, h, p)
          end
          return
        end
      end
      enter(group, cur, to)
      path[#path + 1] = to
      cur = to
    end
    ended[#ended + 1] = { group = alive_of(group), hex = cur, path = path }
  end
  route(stack, 1, origin, {})
  for _, e in ipairs(ended) do
    if #e.path > 0 and #e.group > 0 then
      local who = ""
      if split then
        local names = {}
        for _, u in ipairs(e.group) do names[#names + 1] = u.id end
        who = " (" .. table.concat(names, ", ") .. ")"
      end
      log.rule(rule or "9.0", ("retreat %s → %s%s"):format(origin, table.concat(e.path, " → "), who))
      for _, u in ipairs(e.group) do
        if C.is_hq(u) and u.hex == e.hex then log.rule("9.3.1", u.id .. " retreats with its stack to " .. e.hex) end
      end
    end
  end
  for _, e in ipairs(ended) do
    local cur, alive = e.hex, alive_of(e.group)
    if #alive > 0 and cur ~= origin then
      -- 6.3: an HQ retreating onto another HQ: the one that moved in is relocated
      for _, u in ipairs(alive) do
        if C.is_hq(u) then
          for _, x in ipairs(units.at(cur)) do
            if C.is_hq(x) and x.id ~= u.id and not ids[x.id] then
              log.rule("6.3", u.id .. " ends its retreat with another HQ: it is relocated")
              require("hq").relocate(u)
              break
            end
          end
        end
      end
      -- 6.2: overstacked at the end of a retreat: one hex more; units that still overstack a hex
      -- then (there or where they could not leave) are eliminated
      if movement.stacking_problem(cur, {}) then
        if extra then
          eliminate_overstacked(alive, cur)
        else
          local names = {}
          for _, u in ipairs(alive) do names[#names + 1] = u.id end
          log.rule("6.2", ("%s is overstacked at the end of the retreat: %s must retreat one more hex"):format(cur, table.concat(names, ", ")))
          M.retreat(alive, 1, cur, "6.2", from_hex)
          eliminate_overstacked(alive, cur)
        end
      end
    end
  end
end

-- The attack itself (8.2): declared, odds, die, result applied, advance offered.
function M.attack(hex, attackers, air_words)
  local side = attackers[1].side
  local air = require("air").parse(side, air_words or {})
  local col, defenders, surprise = M.odds(hex, attackers, air)
  if surprise then vars.set("german_surprise", nil) end          -- 19.1.12: the first attack only
  local die = dice.roll("1d6", "combat at " .. hex)
  local result = umpire.outcome(T.crt[die][col])   -- 8.2: odds needs no more than the CRT
  log.rule("8.2", ("die %d on %s: %s"):format(die, T.columns[col], result))
  local attack_hexes, seen, start_hex = {}, {}, {}
  for _, u in ipairs(attackers) do
    start_hex[u.id] = u.hex
    if not seen[u.hex] then seen[u.hex] = true attack_hexes[#attack_hexes + 1] = u.hex end
  end
  for _, u in ipairs(attackers) do u:set_marker("attacked", 1) end
  local attacked = vars.get("attacked_hexes") or {}
  attacked[#attacked + 1] = hex
  vars.set("attacked_hexes", attacked)
  require("air").spend(air)
  command.note_attacked(defenders)
  local eff = M.parse(result)
  local hqs_with = {}
  for _, u in ipairs(defenders) do if C.is_hq(u) then hqs_with[#hqs_with + 1] = u end end
  local function defender_effects()
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
        require("hq").relocate(hq)
      elseif hq.hex == hex and alive_at ~= hex then
        hq:move_to(alive_at)
        log.rule("9.3.1", hq.id .. " retreats with its stack to " .. alive_at)
      end
    end
  end
  local function attacker_effects()
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
  if eff.A.loss + eff.A.retreat > 0 and eff.D.loss + eff.D.retreat > 0 then
    attacker_effects()     -- 8.1.1: on double results the attacker executes first
    defender_effects()
  else
    defender_effects()     -- 8.1: the defender executes first
    attacker_effects()
  end
  if eff.pinned then
    for _, u in ipairs(defenders) do if u.hex then u:set_marker("pinned", 1) end end
  end
  -- 12.2.1: an attacking HQ whose stacked combat units were all eliminated is relocated
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
          require("hq").relocate(u)
        end
      end
    end
  end
  -- 10.0: the attacker may advance into a vacated hex
  local left = false
  for _, u in ipairs(units.at(hex)) do if u.side ~= side and not C.is_air(u) then left = true end end
  if not left then
    local ids = {}
    for _, u in ipairs(attackers) do if u.hex then ids[#ids + 1] = u.id end end
    -- 12.2.4: an HQ stacked with the attackers may advance with them
    for _, h in ipairs(attack_hexes) do
      for _, u in ipairs(units.at(h)) do
        if C.is_hq(u) and u.side == side then ids[#ids + 1] = u.id end
      end
    end
    if #ids > 0 then
      local moved = false
      for _, u in ipairs(defenders) do if u.hex and u.hex ~= hex then moved = true end end
      vars.set("advance", { hex = hex, units = ids, retreated = moved })
      log.rule("10.0", hex .. " is vacated: the attackers may advance (advance <units> [<hex>])")
    end
  else
    vars.set("advance", nil)
  end
  require("victory").check_sudden_death()
  return result
end

-- 10.5: a hex an advancing unit could not enter from `from` by regular movement (terrain,
-- hexsides, a path needed for restrictive terrain); EZOCs, MPs and enemy units do not count
-- here (10.0: no MPs spent, EZOCs ignored).
function M.can_advance(from, to)
  return map.path_cost(require("movement").terrain_profile(), { from, to }) ~= nil
end

-- The checks of an advance into the vacated hex (10.0, 12.3, 12.2.4, 6.0, 10.5.1, 10.5), in the
-- order the verb refuses them; `check` is umpire.check in the verb, a quiet one in the list of
-- actions. `second`: the second hex named (12.2.4's check of HQs going on). Returns whether a
-- unit crosses an unbridged river (10.3.1).
function M.check_advance(list, second, check)
  local adv = vars.get("advance")
  check(adv ~= nil, "10.0", "no hex was vacated by the last combat")
  local ok_ids = {}
  for _, id in ipairs(adv.units) do ok_ids[id] = true end
  local movement = require "movement"
  for _, u in ipairs(list) do
    check(ok_ids[u.id] and u.hex, "10.0", "%s did not take part in the attack on %s", u.id, adv.hex)
    -- (an attacker that retreated, Ar, is no longer next to the vacated hex)
    check(map.distance(u.hex, adv.hex) == 1, "10.0", "%s is no longer next to %s: it advances only from the hex it attacked from", u.id, adv.hex)
  end
  for _, u in ipairs(list) do
    check(not u:attr("festung"), "12.3", "a Festung may not move")
  end
  -- 10.2, 12.2.4: an HQ advances only with combat units of its own stack (advancing now, or
  -- already advanced from it after this combat)
  local advanced_from = adv.advanced_from or {}
  for _, u in ipairs(list) do
    if C.is_hq(u) then
      local with = C.contains(advanced_from, u.hex)
      for _, x in ipairs(list) do
        if not C.is_hq(x) and x.hex == u.hex then with = true end
      end
      check(with, "12.2.4", "%s may advance only with combat units of its stack (10.2)", u.id)
    end
  end
  if second then
    -- 12.2.4: an HQ goes a second hex only with mechanized units of its stack doing the same
    for _, u in ipairs(list) do
      if C.is_hq(u) then
        local mech = false
        for _, x in ipairs(list) do
          if x.hex == u.hex and C.is_mech(x) and not C.is_hq(x) then mech = true end
        end
        check(mech, "12.2.4", "%s may advance a second hex only with mechanized units of its stack", u.id)
      end
    end
  end
  -- 6.1: the limit holds where the advance ends (a unit going on to a second hex may pass
  -- through a full vacated hex, as a regular move may; DATA.md 8)
  if not second then
    local rule, why = movement.stacking_problem(adv.hex, list)
    if rule then check(false, rule, "%s", why) end
  end
  local crossed_river = false
  for _, u in ipairs(list) do
    local side_feats = map.hexside(u.hex, adv.hex)
    local bridged = C.contains(side_feats, "bridge")
    for _, f in ipairs(side_feats) do
      check(not (f == "major_river" and not bridged), "10.5.1", "no advance across an unbridged major river")
      if f == "river" and not bridged then crossed_river = true end
    end
    check(M.can_advance(u.hex, adv.hex), "10.5", "%s could not enter %s by regular movement", u.id, adv.hex)
  end
  return crossed_river
end

-- 10.0 advance after combat: the first hex is the defender's; mechanized units may go a second
-- hex when the defender retreated (10.3), unless they crossed an unbridged river or entered a
-- village or city (10.3.1) or are OOS/isolated (11.3.3); EZOCs are ignored, no MPs spent.
function M.advance(list, second)
  local crossed_river = M.check_advance(list, second, umpire.check)
  local adv = vars.get("advance")
  local movement = require "movement"
  local advanced_from = adv.advanced_from or {}
  for _, u in ipairs(list) do
    if not C.is_hq(u) and not C.contains(advanced_from, u.hex) then advanced_from[#advanced_from + 1] = u.hex end
    u:move_to(adv.hex)
  end
  adv.advanced_from = advanced_from
  log.rule("10.0", ("%s advance%s into %s"):format(#list == 1 and list[1].id or (#list .. " units"), #list == 1 and "s" or "", adv.hex))
  movement.entered(list[1], { adv.hex })
  if second then
    umpire.check(adv.retreated, "10.3", "only when the defender retreated may mechanized units advance a second hex")
    for _, u in ipairs(list) do
      umpire.check(C.is_mech(u) or C.is_hq(u), "10.4", "%s is not mechanized: non-mechanized units advance one hex", u.id)
      umpire.check(not (u:marker("oos") or u:marker("isolated")), "11.3.3", "%s is out of supply: it advances only one hex", u.id)
    end
    umpire.check(not crossed_river, "10.3.1", "a mechanized unit that crossed an unbridged river must stop")
    umpire.check(not (map.terrain(adv.hex) == "city" or map.has(adv.hex, "village")), "10.3.1",
      "a mechanized unit that entered a village or city must stop")
    umpire.check(map.distance(adv.hex, second) == 1, "10.3", "%s is not adjacent to %s", second, adv.hex)
    local lone = movement.lone_hq(second, list[1].side)
    umpire.check(not C.occupied(C.other(list[1].side))[second] or lone, "10.5", "%s is occupied by the enemy", second)
    local second_side = map.hexside(adv.hex, second)
    umpire.check(not (C.contains(second_side, "major_river") and not C.contains(second_side, "bridge")), "10.5.1",
      "no advance across an unbridged major river")
    umpire.check(M.can_advance(adv.hex, second), "10.5", "no unit may advance into %s: it could not be entered by regular movement", second)
    local r, w = movement.stacking_problem(second, list)
    if r then umpire.refuse(r, w) end
    for _, u in ipairs(list) do u:move_to(second) end
    if lone then
      log.rule("12.2.6", list[1].id .. " overruns the lone HQ " .. lone.id .. " while advancing")
      require("hq").relocate(lone)
    end
    log.rule("10.3", ("%s advance%s a second hex into %s"):format(#list == 1 and list[1].id or (#list .. " units"), #list == 1 and "s" or "", second))
    movement.entered(list[1], { second })
  end
  local remaining = {}
  for _, id in ipairs(adv.units) do
    local moved = false
    for _, u in ipairs(list) do if u.id == id then moved = true end end
    if not moved then remaining[#remaining + 1] = id end
  end
  adv.units = remaining
  vars.set("advance", #remaining > 0 and adv or nil)
  require("victory").check_sudden_death()
end

-- ------------------------------------------------------------------ verbs
umpire.command {
  usage = "attack <hex> with <units> [air] [<word>...]",
  help = "attack an enemy stack with activated adjacent units; air support: `air 1JG full Rudel normal`",
  example = "attack 16.09 with 4Pz/4SS,8/4SS air Rudel full",
  rule = "8.2", phases = { "combat" }, odds = true,
  run = function(hex, attackers, _, words) return M.attack(hex, attackers, words) end,
}

umpire.command {
  usage = "advance <units> [<hex>]",
  help = "advance after combat into the vacated hex; mechanized units may name a second hex",
  example = "advance 4Pz/4SS 13.12",
  rule = "10.0", phases = { "combat" },
  run = function(list, second) M.advance(list, second) end,
}

return M
