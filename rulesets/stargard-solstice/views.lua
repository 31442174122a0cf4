-- Stargard Solstice: what helps a player find things. The states `units` filters by, the
-- lines `status` adds, the charts `table` prints, what `next` at a terminal warns is left
-- undone, the Tab candidates of move, attack and bombard, the map overlays (zoc, reach, supply,
-- command) and the rules' lines of `show` (umpire.describe). Everything here only looks.
local T = require "tables"
local C = require "common"
local zoc = require "zoc"
local command = require "command"
local air = require "air"
local combat = require "combat"
local movement = require "movement"
local supply = require "supply"
local victory = require "victory"
local labels = require "labels"
local M = {}

-- ------------------------------------------------------------------ unit states
local function on_map_combat(u) return u.hex ~= nil and C.is_combat(u) end

-- 3.3, 3.3.5: activated (or moving as a reinforcement) in the current activation.
function M.activated(u)
  return u.hex ~= nil and command.is_active(u)
end

-- 5.1, 5.3, 3.3.5, 12.3: may still move in this activation.
function M.can_move(u)
  return M.activated(u) and not C.is_air(u) and not u:attr("festung") and not u:marker("moved")
    and not u:marker("pinned") and (u.side == sides.active() or u:marker("reinforcement") ~= nil)
end

-- The enemy stacks next to a unit that it could attack (8.0: combat units; 4.6: a hex it could
-- enter, combat.can_attack_into, the check the attack itself makes).
local function targets_of(u)
  local out = {}
  for _, n in ipairs(map.neighbours(u.hex)) do
    local stack = units.at(n)
    local enemy_combat = false
    for _, x in ipairs(stack) do
      if x.side ~= u.side and C.is_combat(x) then enemy_combat = true end
    end
    if enemy_combat and combat.can_attack_into(u.hex, n) then out[#out + 1] = n end
  end
  return out
end

-- 8.0, 8.3.1, 8.1.2, 19.1.3: may still attack in this activation (an enemy stack next to it).
function M.can_attack(u)
  if not (on_map_combat(u) and command.is_active(u) and C.attack(u) > 0) then return false end
  if u:marker("attacked") or u:marker("pinned") or u:marker("no_attack") then return false end
  local attacked = vars.get("attacked_hexes") or {}
  for _, h in ipairs(targets_of(u)) do
    if not C.contains(attacked, h) then return true end
  end
  return false
end

umpire.unit_filter { name = "activated", help = "in command in the current activation (3.3, 3.3.5)", test = M.activated }
umpire.unit_filter { name = "can-move", help = "activated and not yet moved, not pinned (5.1, 5.3, 3.3.5)", test = M.can_move }
umpire.unit_filter { name = "can-attack", help = "activated, not yet attacked, next to an enemy stack it may attack (8.0, 8.3.1)", test = M.can_attack }

-- ------------------------------------------------------------------ status
local function list(xs) return #xs > 0 and table.concat(xs, ", ") or "none" end

umpire.status(function()
  local lines = {}
  local a = vars.get("active")
  lines[#lines + 1] = "activation [3.3]: " .. (a and ("%s (%s, %s)"):format(a.hq, a.side, a.how) or "none")
  local done = vars.get("activations") or {}
  for _, side in ipairs { "German", "Soviet" } do
    lines[#lines + 1] = ("%s chits [3.1.2]: %d of %d activated, drawn: %s"):format(side, done[side] or 0,
      command.limit(side), list(cups.contents("drawn_" .. side)))
  end
  lines[#lines + 1] = ("chits in the cup [3.1]: %d (%s); set aside: %s"):format(cups.count("chits"),
    list(cups.contents("chits")), list(cups.contents("set_aside")))
  local pts = vars.get("air_points") or {}
  for _, side in ipairs { "German", "Soviet" } do
    local where = {}
    for _, u in ipairs(units.all { side = side, kind = "air" }) do where[#where + 1] = u.id .. " " .. tostring(u.box) end
    lines[#lines + 1] = ("%s air [13.0]: %d of 4 points used; %s"):format(side, pts[side] or 0, list(where))
  end
  -- 14.1: the VP hexes the Soviet player holds and the adjustments so far
  local vp, held = 0, {}
  for h, v in pairs(map.marked("soviet_vp")) do
    vp = vp + v
    held[#held + 1] = ("%s %d"):format(map.hex(h).name or h, v)
  end
  for _, x in ipairs(vars.get("vp_adjust") or {}) do vp = vp + x.vp end
  lines[#lines + 1] = ("Soviet VP so far [14.1]: %s (hexes held: %s)"):format(C.num(vp), list(held))
  return lines
end)

-- ------------------------------------------------------------------ what is left undone
local function ids(pred)
  local out = {}
  local side = sides.active()
  for _, u in ipairs(units.all { on_map = true }) do
    if (side == nil or u.side == side or u:marker("reinforcement")) and pred(u) then out[#out + 1] = u.id end
  end
  return out
end

function M.unfinished()
  local step = umpire.clock().step
  if step == "movement" or step == "arrivals" or step == "reinforcement" then
    local left = ids(M.can_move)
    if #left > 0 then return { ("%s %s not moved [5.1]: %s"):format(C.count(#left, "activated unit"), #left == 1 and "has" or "have", list(left)) } end
  elseif step == "combat" then
    local left = ids(M.can_attack)
    if #left > 0 then return { ("%s next to the enemy %s not attacked [8.0]: %s"):format(C.count(#left, "activated unit"), #left == 1 and "has" or "have", list(left)) } end
  elseif step == "bombardment" then
    local b = vars.get("bombardment")
    if b and b.left > 0 then return { ("%s left [8.5.1]: bombard <hex>"):format(C.count(b.left, "bombardment attack")) } end
  end
  return nil
end
umpire.unfinished(M.unfinished)

-- ------------------------------------------------------------------ Tab completion
-- move <units>: the units that may still move
-- move <units> <hex>: then the hexes the first unit can reach (the `map reach` overlay's search)
umpire.complete("move", function(index, words)
  if index == 1 then return ids(M.can_move) end
  local first = index == 2 and words[1] and units.find(words[1]:match("^[^,]*"))
  if first and first.hex and M.can_move(first) then
    local out = {}
    for h in pairs(movement.reach(first)) do if h ~= first.hex then out[#out + 1] = h end end
    table.sort(out)
    return out
  end
end)

-- attack <hex> with <units>: enemy hexes next to units that may attack, then those units
umpire.complete("attack", function(index, words)
  local attacked = vars.get("attacked_hexes") or {}
  if index == 1 then
    local seen, out = {}, {}
    for _, id in ipairs(ids(M.can_attack)) do
      for _, h in ipairs(targets_of(units.get(id))) do
        if not seen[h] and not C.contains(attacked, h) then seen[h] = true out[#out + 1] = h end
      end
    end
    table.sort(out)
    return out
  elseif index == 3 then
    local out = {}
    for _, id in ipairs(ids(M.can_attack)) do
      if C.contains(targets_of(units.get(id)), words[1]) then out[#out + 1] = id end
    end
    return out
  end
end)

-- bombard <hex>: enemy stacks next to the bombarding side's combat units, not yet bombarded (8.5.1)
umpire.complete("bombard", function(index)
  local b = vars.get("bombardment")
  if index ~= 1 or not b then return nil end
  local seen, out = {}, {}
  for _, u in ipairs(units.all { side = b.side, on_map = true }) do
    if C.is_combat(u) and (b.restriction ~= "stell2" or u:attr("formation") == "Stell-II-HQ") then
      for _, n in ipairs(map.neighbours(u.hex)) do
        local top = units.at(n)[1]
        if top and top.side ~= b.side and not seen[n] and not C.contains(b.targets or {}, n) then
          seen[n] = true
          out[#out + 1] = n
        end
      end
    end
  end
  table.sort(out)
  return out
end)

-- ------------------------------------------------------------------ the charts (tables.lua)
local function shown(v) return type(v) == "number" and C.num(v) or tostring(v) end

local crt_rows = {}
for die, row in ipairs(T.crt) do
  local r = { tostring(die) }
  for _, x in ipairs(row) do r[#r + 1] = x end
  crt_rows[#crt_rows + 1] = r
end
local crt_columns = { "die" }
for _, c in ipairs(T.columns) do crt_columns[#crt_columns + 1] = c end
umpire.table { name = "crt", title = "Combat Results Table", rule = "8.1", columns = crt_columns, rows = crt_rows,
  notes = { "A/D: attacker/defender; a number is steps lost, r# hexes of retreat (Dr: 1 hex); - no effect [8.1]" } }

local brt = {}
for die, n in ipairs(T.brt) do brt[#brt + 1] = { tostring(die), tostring(n), T.bombardment[die] } end
umpire.table { name = "bombardment", title = "Bombardment Roll Table and bombardment results", rule = "8.5",
  columns = { "die", "attacks", "result" }, rows = brt,
  notes = { "attacks: how many bombardment attacks a bombardment event gives [8.5.1]; P: pinned [8.1.2]" } }

local tec = {}
for _, t in ipairs { "clear", "town", "city", "forest", "swamp", "lake", "restrictive" } do
  local shift = T.defence_shift[t]
  tec[#tec + 1] = { t, shown(T.terrain_cost[t]), shift and (shift == 0 and "none" or ("%+d column"):format(shift)) or "-" }
end
for f, c in pairs(T.feature_cost) do tec[#tec + 1] = { f .. " (feature)", shown(c) .. " (the larger cost applies)", "-" } end
for f, c in pairs(T.path_cost) do
  tec[#tec + 1] = { f, shown(c) .. (T.strategic_cost[f] and (", strategic " .. shown(T.strategic_cost[f])) or ""), "-" }
end
for f, c in pairs(T.hexside_cost) do
  local att = T.river_attack_factor[f]
  tec[#tec + 1] = { f .. " (hexside)", c == "no" and "no" or ("+" .. shown(c)), att and ("attacker x" .. shown(att)) or "-" }
end
tec[#tec + 1] = { "enemy ZOC", ("+%d to enter, +%d to leave"):format(T.ezoc_enter, T.ezoc_leave), "-" }
umpire.table { name = "tec", title = "Terrain Effects Chart", rule = "5.2, 8.4", columns = { "terrain", "movement (MP)", "combat" },
  rows = tec, notes = { "a road cost replaces the hex and hexside costs along the road [5.2.1]; a bridge cancels a river [5.2.4]" } }

local ev = {}
for turn, row in ipairs(T.events) do
  for die, e in ipairs(row) do ev[#ev + 1] = { tostring(turn), tostring(die), T.event_names[e] or e } end
end
umpire.table { name = "events", title = "Random Event Table", rule = "19.0", columns = { "turn", "die", "event" }, rows = ev,
  notes = { ("when the event happened on the turn before: %s [19.0]"):format(T.event_names[T.secondary]) } }

local tettau = {}
for die, r in ipairs(T.tettau_die) do tettau[#tettau + 1] = { tostring(die), r } end
umpire.table { name = "tettau", title = "Corps Tettau arrival", rule = "19.1.5", columns = { "die", "arrives" }, rows = tettau }

local levels = {}
for _, row in ipairs(T.victory) do
  levels[#levels + 1] = { row[1] == -math.huge and "fewer" or (row[1] .. " or more"), row[2] }
end
umpire.table { name = "victory", title = "Victory levels", rule = "14.3", columns = { "Soviet VP", "result" }, rows = levels }

-- 1.2.2, 7.3: the turn track's chits and replacement points are scenario data (side values)
umpire.table { name = "turns", title = "Turn track: activations and replacement points", rule = "1.2.2, 7.3",
  columns = { "turn", "German chits", "Soviet chits", "Soviet replacement points" },
  rows = function()
    local out = {}
    local g, s = sides.get("German", "chits_per_turn") or {}, sides.get("Soviet", "chits_per_turn") or {}
    local rp = sides.get("Soviet", "replacement_points") or {}
    for turn = 1, 10 do
      out[#out + 1] = { tostring(turn), tostring(g[turn] or 0), tostring(s[turn] or 0), tostring(rp[turn] or 0) }
    end
    return out
  end }

-- 15.3: the reinforcement schedule is scenario data (unit attributes `arrives`, `entry`/`hex`)
umpire.table { name = "reinforcements", title = "Reinforcement schedule", rule = "15.3",
  columns = { "turn", "side", "unit", "enters at", "now" },
  rows = function()
    local list = {}
    for _, u in ipairs(units.all()) do
      if u:attr("arrives") then list[#list + 1] = u end
    end
    table.sort(list, function(a, b)
      if a:attr("arrives") ~= b:attr("arrives") then return a:attr("arrives") < b:attr("arrives") end
      if a.side ~= b.side then return a.side < b.side end
      return a.id < b.id
    end)
    local out = {}
    for _, u in ipairs(list) do
      local at = u:attr("hex") or (u:attr("entry") and ("area " .. u:attr("entry"))) or "-"
      if u:attr("option") then at = at .. " (option " .. tostring(u:attr("option")) .. ")" end
      out[#out + 1] = { tostring(u:attr("arrives")), u.side, u.id, at, u.box == "reinforcements" and "to come" or "arrived" }
    end
    return out
  end }

-- ------------------------------------------------------------------ map overlays
umpire.overlay {
  usage = "zoc <side>", help = "hexes in the side's zone of control", rule = "4.2",
  run = function(side) local z = {} for h in pairs(zoc.ezoc(C.other(side))) do z[h] = "Z" end return z end,
}
umpire.overlay {
  usage = "reach <unit>", help = "every hex the unit could reach now by regular movement, with its cost", rule = "5.1",
  run = function(u)
    umpire.check(u.hex, "5.1", "%s is not on the map (it is in %s): it has no reach", u.id, tostring(u.box))
    return movement.reach(u)
  end,
}
umpire.overlay {
  usage = "supply <side>", help = "hexes a supply line of the side reaches", rule = "11.1",
  run = function(side)
    local src = map.area(side == "German" and "supply_german" or "supply_soviet")
    local out = {}
    for h in pairs(supply.trace(side, src)) do out[h] = "S" end
    return out
  end,
}
umpire.overlay {
  usage = "command <unit>", help = "the hexes within the HQ's command range", rule = "3.3.3",
  run = function(hq)
    umpire.check(hq.hex, "3.3.3", "%s is not on the map (it is in %s): it commands no hexes", hq.id, tostring(hq.box))
    local out = {}
    for _, h in ipairs(map.within(hq.hex, command.range(hq))) do out[h] = "C" end
    return out
  end,
}

-- `show`: every marker and attribute in the player's terms (labels.lua), then what follows from them

umpire.describe {
  -- `moves`: why a unit has no move listed (2.3.2, 3.3.5, 5.1...)
  cannot_move = function(u)
    local rule, why = movement.why_not_now(u)
    return rule and ("%s [%s]"):format(why, rule) or nil
  end,
  marker = labels.marker,
  attr = labels.attr,
  unit = function(u)
    local lines = {}
    if C.is_combat(u) then
      lines[#lines + 1] = zoc.has_zoc(u) and "exerts a ZOC [4.2]" or "no ZOC (attack 0) [4.2.1]"
      if u.hex then
        local left = movement.allowance(u) - (u:marker("mp_spent") or 0) / 60
        local rule, why = movement.why_not_now(u)
        if not command.is_active(u) then
          lines[#lines + 1] = "not activated: may not move or attack now [3.3.5]"
        elseif not rule then
          lines[#lines + 1] = ("may move: %s MP [5.1.1]"):format(map.fmt_cost(movement.allowance(u)))
        else
          lines[#lines + 1] = ("cannot move now: %s [%s]"):format(why, rule)
          if u:marker("moved") and left > 0 then
            lines[#lines + 1] = ("moved: %s of %s MP unspent, which may not be saved [5.3]"):format(map.fmt_cost(left), map.fmt_cost(movement.allowance(u)))
          end
        end
      end
    elseif C.is_hq(u) then
      lines[#lines + 1] = ("command range %d [3.3.3]"):format(command.range(u))
    end
    return lines
  end,
  hex = function(hex)
    local lines = {}
    for _, side in ipairs { "German", "Soviet" } do
      if zoc.ezoc(C.other(side))[hex] then lines[#lines + 1] = "in the ZOC of " .. side .. " units [4.2]" end
    end
    if map.hex(hex).values.vp then lines[#lines + 1] = ("worth %d VP now [14.3.1]"):format(victory.vp_value(hex)) end
    return lines
  end,
}

return M
