-- Fortress Stalingrad 11 (and 10.10-10.33, 10.38-10.49 through assault.lua): battles. Strengths
-- with supply and terrain reductions, odds rounded for the defender on a 1-3 ... 8-1 table, result
-- modifiers with the air cap, Manstein and the FMCO's column shifts, TOAST and the result each side
-- absorbs (as steps and hexes of retreat: retreats.lua); the Prepared Assault verb (the amphibious
-- assault it may call: amphibious.lua) and the Katyushas. A battle is one call of M.resolve,
-- shared by prepared and mobile assaults.
local C = require "common"
local T = require "tables"
local control = require "control"
local supply = require "supply"
local retreats = require "retreats"
local amphibious = require "amphibious"
local reduce = require "reduce"   -- rulesets/lib
local odds = require "odds"       -- rulesets/lib

local M = {}

-- Scripts (scripts/fortress-stalingrad) ask these of combat: they are retreats.lua's.
M.retreat_allowed = retreats.retreat_allowed
M.open_defenders_advance = retreats.open_defenders_advance
M.close_advance = retreats.close_advance

M.COLS = odds.columns(T.crt_columns)

local function has(list, f) return C.contains(list, f) end

-- 10.13-10.18, 10.23, 10.9, 10.33: the percentage off `u`'s attack when it attacks from `from` into
-- `d`, every terrain penalty that applies added up (10.33): desert-steppe's 50% once, whether the
-- attack goes into it, out of it or both (10.15, DATA.md), and the target hex's own terrain besides;
-- a city; the hexside crossed. Returns the percentage and the reasons.
function M.attack_penalty(u, from, d)
  local cls = C.class(u)
  local pct, why = 0, {}
  local function add(p, text)
    if p and p > 0 then pct = pct + p why[#why + 1] = ("%s -%d%%"):format(text, p) end
  end
  local td, tf = map.terrain(d), map.terrain(from)
  if td == "steppe" or tf == "steppe" then
    add(T.attack_terrain.steppe[cls], td == "steppe" and "into desert-steppe (10.15)" or "out of desert-steppe (10.15)")
  end
  local row = td ~= "steppe" and T.attack_terrain[td]
  if row then
    local rules = { woods = "10.13", marsh = "10.14", mountain = "10.16" }
    add(row[cls], ("%s, %s (%s)"):format(td, cls == "mech" and "mechanized" or cls == "mountain" and "mountain infantry" or "straight-leg", rules[td]))
  end
  if map.has(d, "city") then add(T.attack_city[cls], "into a city, mechanized (10.23)") end
  local side = map.hexside(from, d)
  if has(side, "kerch") then add(T.attack_hexside.kerch, "across the Kerch Straits (10.9)")
  elseif has(side, "major_river") then add(T.attack_hexside.major_river, "across a major river (10.18)")
  elseif has(side, "minor_river") then add(T.attack_hexside.minor_river, "across a minor river (10.18)") end
  return pct, why
end

-- 11.7, 10.33: in a battle against several hexes every attacker attacks into each of them (it is
-- next to all); its percentage is that of the hex, with the hexside crossed into it, worst for it
-- (DATA.md: the reading that gives the defender his best hex, 11.7), whatever the order the hexes
-- are named in. Returns the percentage and the reasons.
function M.battle_penalty(u, from, hexes)
  local sorted = {}
  for _, d in ipairs(hexes) do sorted[#sorted + 1] = d end
  table.sort(sorted)
  local worst, why, at
  for _, d in ipairs(sorted) do
    local pct, w = M.attack_penalty(u, from, d)
    if worst == nil or pct > worst then worst, why, at = pct, w, d end
  end
  if #sorted > 1 and worst > 0 then why[#why] = why[#why] .. (" (into %s, the worst of %s, 11.7)"):format(at, table.concat(sorted, ",")) end
  return worst, why
end

-- 7.14: units with the same key (supply level, and what else reduces them alike) are added
-- together before their reductions. `items` = { u =, key =, level =, value =, note = }; for each
-- group, in key order: its sum, reduced by its supply level (7.12, 7.30), then `finish(group,
-- value, text)` for what follows it. Returns the total and a line per group saying how.
local function grouped_total(items, finish, cite_7_14)
  table.sort(items, function(x, y) if x.key ~= y.key then return x.key < y.key end return x.u.id < y.u.id end)
  local total, lines, i = 0, {}, 1
  while i <= #items do
    local g = { items[i] }
    while items[i + #g] and items[i + #g].key == items[i].key do g[#g + 1] = items[i + #g] end
    local sum, names = 0, {}
    for _, it in ipairs(g) do
      sum = sum + it.value
      names[#names + 1] = ("%s %d%s"):format(it.u.id, it.value, it.note and (" (" .. it.note .. ")") or "")
    end
    local x, text = sum, table.concat(names, " + ")
    if #g > 1 then text = text .. " = " .. sum end
    local level = g[1].level
    if level > 0 then
      x = reduce.percent(x, level * T.supply_penalty.percent)
      text = text .. ("; %s -%d%% → %d (%s)"):format(C.supply_label(g[1].u, level), level * T.supply_penalty.percent, x,
        g[1].u.side == C.SOVIET and (cite_7_14 and #g > 1 and "7.12, 7.14" or "7.12") or "7.30")
    end
    x, text = finish(g[1], x, text)
    lines[#lines + 1] = text
    total = total + x
    i = i + #g
  end
  return total, lines
end

-- 11.3, 7.14, 10.33, 11.20: the attack total. `list` = { { u = unit, from = hex } ... }, `hexes`
-- the defenders' hex or hexes (11.7). Units with the same supply level and the same terrain
-- percentage are added together before each reduction (7.14), supply first, then terrain (11.25).
-- Returns the total and the lines saying how.
function M.attack_strength(list, hexes)
  if type(hexes) == "string" then hexes = { hexes } end
  local items = {}
  for _, a in ipairs(list) do
    local u = a.u
    local base, note = u:value("attack") or 0, nil
    if u:marker("katyusha") then
      base = base * T.katyusha_factor
      note = "doubled by a Katyusha (11.20)"
    end
    local level = C.supply_level(u)
    local pct, why = M.battle_penalty(u, a.from, hexes)
    items[#items + 1] = { u = u, key = ("%d/%03d"):format(level, pct), level = level, pct = pct, value = base, why = why, note = note }
  end
  return grouped_total(items, function(g, x, text)
    if g.pct > 0 then
      x = reduce.percent(x, g.pct)
      text = text .. ("; %s → %d (10.33)"):format(table.concat(g.why, ", "), x)
    end
    return x, text
  end, true)
end

-- 10.29: the intrinsic defence of an intact Soviet entrenchment with no Soviet unit of positive
-- defence in it.
function M.intrinsic(hex)
  if not control.intact_entrenchment(hex, C.SOVIET) then return false end
  for _, u in ipairs(C.combat_at(hex, C.SOVIET)) do
    if (u:value("defense") or 0) > 0 then return false end
  end
  return true
end

-- 11.34: a unit that retreated from a prepared assault this phase into a hex where other friendly
-- units stand (ones that did not just arrive) adds nothing to their defence.
function M.new_arrival(u)
  if not u:marker("retreated") or not u.hex then return false end
  for _, x in ipairs(C.combat_at(u.hex, u.side)) do
    if not x:marker("retreated") then return true end
  end
  return false
end

-- 11.3, 10.23, 12.2, 11.34, 7.14, 10.29: the defence total of the units in `hexes`: each supply
-- level reduced (7.14), then doubled in a city (not a 0-3-0), and an empty intact Soviet
-- entrenchment's intrinsic 1.
function M.defense_strength(defenders, hexes)
  local items, skipped = {}, {}
  for _, u in ipairs(defenders) do
    if M.new_arrival(u) then
      skipped[#skipped + 1] = ("%s retreated here earlier this phase: it adds nothing (11.34)"):format(u.id)
    else
      local in_city = map.has(u.hex, "city")
      local city = in_city and not C.is_garrison(u)
      local level = C.supply_level(u)
      items[#items + 1] = { u = u, key = ("%d/%s"):format(level, city and "c" or "-"), level = level, city = city, value = u:value("defense") or 0,
        note = in_city and C.is_garrison(u) and "a 0-3-0 is not doubled in a city, 12.2" or nil }
    end
  end
  local total, lines = grouped_total(items, function(g, x, text)
    if g.city then
      x = x * 2
      text = text .. ("; doubled in a city → %d (10.23)"):format(x)
    end
    return x, text
  end, false)
  for i = #skipped, 1, -1 do table.insert(lines, 1, skipped[i]) end
  for _, h in ipairs(hexes) do
    if M.intrinsic(h) and #C.combat_at(h, C.SOVIET) == 0 then
      total = total + 1
      lines[#lines + 1] = ("the intact Soviet entrenchment in %s: 1 (10.29)"):format(h)
    end
  end
  return total, lines
end

-- The air units of a side in some hexes (8.4, 8.14: they stay with the stack they support).
function M.air_in(hexes, side)
  local n = 0
  for _, h in ipairs(hexes) do
    for _, u in ipairs(units.at(h)) do
      if u.side == side and C.is_air(u) then n = n + 1 end
    end
  end
  return n
end

-- 11.17: attacked from two opposite hexes, or three with a gap between each, or more than three.
-- Directions clockwise, as map.direction names them: the map is pointy-topped, in rows (DATA.md
-- §2), so W first.
local CLOCK = { W = 1, NW = 2, NE = 3, E = 4, SE = 5, SW = 6 }
function M.concentric(d, from_hexes)
  local dirs, seen = {}, {}
  for _, h in ipairs(from_hexes) do
    local k = CLOCK[map.direction(d, h) or ""]
    if k and not seen[k] then seen[k] = true dirs[#dirs + 1] = k end
  end
  if #dirs > 3 then return true end
  if #dirs == 2 then return (dirs[1] - dirs[2]) % 6 == 3 end
  if #dirs == 3 then
    table.sort(dirs)
    return dirs[2] - dirs[1] == 2 and dirs[3] - dirs[2] == 2
  end
  return false
end

local function satellites_only(list)
  if #list == 0 then return false end
  for _, u in ipairs(list) do if not C.is_satellite(u) then return false end end
  return true
end

local function oos_high(u) return u.side == C.GERMAN and C.supply_level(u) >= T.oos_no_zoc end

-- 10.12, 10.13, 10.22, 10.28, 10.32: the terrain modifiers of the defender's hex, as { n, text }
-- pairs: with several defender hexes, those of the hex best for the defender.
local function terrain_modifiers(b)
  local best, best_lines
  for _, h in ipairs(b.hexes) do
    local n, l = 0, {}
    local t = map.terrain(h)
    if T.result_terrain[t] then n = n + T.result_terrain[t] l[#l + 1] = { T.result_terrain[t], ("%s in %s (%s)"):format(t, h, t == "broken" and "10.12" or "10.13") } end
    for f, v in pairs(T.result_features) do
      if map.has(h, f) then n = n + v l[#l + 1] = { v, ("a %s in %s (10.22)"):format(f, h) } end
    end
    if control.intact_entrenchment(h, b.defender) and (#C.combat_at(h, b.defender) > 0 or M.intrinsic(h)) then
      n = n + T.result_entrenchment l[#l + 1] = { T.result_entrenchment, ("intact %s entrenchment in %s (10.28)"):format(b.defender, h) }
    end
    if map.in_area("south_of_weather_line", h) and not b.amphibious then
      n = n + T.result_weather l[#l + 1] = { T.result_weather, ("%s is south of the Weather Line (10.32)"):format(h) }
    end
    if not best or n < best then best, best_lines = n, l end
  end
  return best_lines or {}
end

-- 10.12-10.32, 11.14-11.24, 8.7-8.9: the result modifiers of a battle, air last. Returns the
-- defender's and the attacker's modifier and the lines saying why.
function M.modifiers(b)
  local dm, am, lines = 0, 0, {}
  local function d(n, text) if n ~= 0 then dm = dm + n lines[#lines + 1] = ("defender's result %+d: %s"):format(n, text) end end
  local function a(n, text) if n ~= 0 then am = am + n lines[#lines + 1] = ("attacker's result %+d: %s"):format(n, text) end end
  for _, x in ipairs(terrain_modifiers(b)) do d(x[1], x[2]) end
  if b.amphibious then
    d(T.result_amphibious[b.amphibious], ("amphibious assault %d: the weather modifier is cancelled%s (11.18)"):format(b.amphibious, b.amphibious == 2 and ", +1 more" or ""))
    if T.result_amphibious[b.amphibious] == 0 and map.in_area("south_of_weather_line", b.hexes[1]) then
      lines[#lines + 1] = "amphibious assault: the Weather Line's -1 does not apply (11.18)"
    end
  end
  if b.kind == "pa" and #b.hexes == 1 and M.concentric(b.hexes[1], b.from_hexes) then
    d(T.result_concentric, "concentric prepared assault (11.17)")
  end
  -- 11.21: the 503rd/65th stacked with an attacking German Panzer Corps
  for _, h in ipairs(b.from_hexes) do
    local tiger, pz
    for _, x in ipairs(b.attackers) do
      if x.from == h and C.is_tiger(x.u) and not oos_high(x.u) then tiger = true end
      if x.from == h and C.is_panzer_corps(x.u) and not oos_high(x.u) then pz = true end
    end
    if tiger and pz then d(T.result_tigers, "the 503rd/65th attacks with a Panzer Corps (11.21)") break end
  end
  -- 11.22: the 9th FLAK stacked with another German unit, attacked by the Soviet
  if b.attacker == C.SOVIET then
    for _, h in ipairs(b.hexes) do
      local flak, other
      for _, u in ipairs(C.combat_at(h, C.GERMAN)) do
        if C.is_flak(u) and not oos_high(u) then flak = true elseif C.is_german(u) then other = true end
      end
      if flak and other then a(T.result_flak_attacker, "the 9th FLAK defends with a German unit (11.22)") break end
    end
  end
  for _, h in ipairs(b.hexes) do
    if map.has(h, "city") then a(T.result_city_attacker, ("attacking into the city %s (10.23)"):format(C.hex_label(h))) break end
  end
  if b.attacker == C.SOVIET and satellites_only(b.defenders) then
    a(T.result_satellites_attacker, "the Soviet attacks Axis satellite units alone (11.15)")
  end
  -- 8.7-8.9, 11.23: air last — each attacking air unit +1 to the defender's result, each defending
  -- one -1, opposing ones cancel, never more than 2 either way
  local att_air, def_air = M.air_in(b.from_hexes, b.attacker), M.air_in(b.hexes, b.defender)
  if att_air > 0 or def_air > 0 then
    local net = att_air - def_air
    local capped = math.max(-T.air.cap, math.min(T.air.cap, net))
    lines[#lines + 1] = ("air: %d attacking, %d defending, net %+d%s (8.7-8.9)"):format(att_air, def_air, net,
      capped ~= net and (", capped at " .. ("%+d"):format(capped)) or "")
    dm = dm + capped
  end
  return dm, am, lines
end

-- Parses "1/2" → 1, 2; "Dx" → nil, "Dx".
function M.parse(cell)
  if cell == "Dx" then return 0, "Dx" end
  local a, d = cell:match("^(%d+)/(%d+)$")
  return tonumber(a), tonumber(d)
end

local function lose_one(rule) return function(u) C.lose_steps(u, 1, rule) end end

-- 11.16: Manstein may join one battle a turn with an overland-supplied German unit in it.
local function manstein_available(b)
  local m = units.get(T.units.manstein)
  if not m or not m.exists or m.box ~= "manstein" then return false end
  if (vars.get("manstein_used") or 0) == umpire.clock().turn then return false end
  local list = b.attacker == C.GERMAN and b.attacking_units or b.defenders
  for _, u in ipairs(list) do
    if C.is_german(u) and C.supply_level(u) == 0 and not u:marker("air_supplied") then return true end
  end
  return false
end

-- 11.10: whether odds of `att` to `def`, rounded for the defender, lie beyond the table's
-- extreme columns (below 1-3, or above 8-1 once rounded down).
function M.beyond_table(att, def)
  local low, high = M.COLS[1], M.COLS[#M.COLS]
  if def <= 0 then return false end
  return att * low.d < def * low.a or att // def > high.a
end

-- Resolves a battle. b = { kind = "pa"|"ma", attacker =, defender =, attackers = { {u=, from=} },
-- hexes = defender hexes, from_hexes, amphibious = nil|1|2 }. Returns a summary table.
function M.resolve(b)
  b.attacking_units = {}
  for _, a in ipairs(b.attackers) do b.attacking_units[#b.attacking_units + 1] = a.u end
  b.defenders = C.combat_in(b.hexes, b.defender)
  local rule = b.kind == "ma" and "10.38" or "11.3"
  -- 11.25: supply, terrain, odds
  local att, alines = M.attack_strength(b.attackers, b.hexes)
  local def, dlines = M.defense_strength(b.defenders, b.hexes)
  log.rule(rule, ("attack %d: %s"):format(att, table.concat(alines, " | ")))
  log.rule(rule, ("defence %d: %s"):format(def, #dlines > 0 and table.concat(dlines, " | ") or "nothing"))
  local col = odds.column(att, def, M.COLS, { below = "clamp" })
  local beyond = M.beyond_table(att, def)
  log.rule("11.3", ("odds %d to %d (%s, rounded for the defender): %s%s"):format(att, def, odds.ratio(att, def), M.COLS[col].name,
    beyond and " (beyond the table: its extreme column, 11.10)" or ""))
  local shift = 0
  if b.attacker == C.GERMAN and (vars.get("fmco_turn") or 0) > 0 then
    shift = shift + T.fmco.shift
    log.rule("14.2", "the FMCO: one column in the German attacker's favour")
  end
  local dm, am, mlines = M.modifiers(b)
  for _, l in ipairs(mlines) do log.rule("11.13", l) end
  -- 11.16: Manstein, an instant before the roll
  if manstein_available(b) then
    local yes = umpire.ask { side = "German", prompt = ("commit Manstein to this battle (one column in the German's favour, once a turn)? odds now %s"):format(
      M.COLS[odds.shift(col, shift, M.COLS)].name), rule = "11.16", kind = "yesno", options = { "yes", "no" }, default = "no" }
    if yes then
      shift = shift + (b.attacker == C.GERMAN and 1 or -1)
      vars.set("manstein_used", umpire.clock().turn)
      log.rule("11.16", ("Manstein joins the battle: one column in the German %s's favour"):format(b.attacker == C.GERMAN and "attacker" or "defender"))
    end
  end
  local final = odds.shift(col, shift, M.COLS)
  if final ~= col then log.rule("11.16", ("final column %s"):format(M.COLS[final].name)) end
  local die = dice.roll("1d6", "combat (11.4)")
  local cell = T.crt[die][final]
  local ar, dr = M.parse(cell)
  local result
  if dr == "Dx" then
    result = "Dx"
  else
    ar, dr = math.max(0, ar + am), math.max(0, dr + dm)
    result = ("%d/%d"):format(ar, dr)
  end
  log.rule("11.4", ("die %d on %s: %s%s"):format(die, M.COLS[final].name, cell, result ~= cell and (", modified " .. result) or ""))
  umpire.outcome(result)
  return M.apply(b, result, ar, dr)
end

-- 11.12: a Dx destroys every defender (and the intrinsic defence of an entrenchment, 10.29).
local function destroy_defenders(b)
  for _, u in ipairs(b.defenders) do C.eliminate(u, "11.12", "Dx") end
  for _, h in ipairs(b.hexes) do if M.intrinsic(h) then log.rule("10.29", "the intrinsic defence of " .. h .. " is destroyed") end end
end

-- 11.34: units that retreated here earlier this phase add nothing and die on any result; the
-- defenders left fighting.
local function new_arrivals_die(defenders, dr)
  local fighting = {}
  for _, u in ipairs(defenders) do
    if M.new_arrival(u) and dr > 0 then
      C.eliminate(u, "11.34", "it retreated into this hex earlier this phase and the stack suffers a result above 0")
    elseif u.hex then
      fighting[#fighting + 1] = u
    end
  end
  return fighting
end

-- 11.14 TOAST: satellite units not stacked with a German unit, a result above their steps.
local function toast(hexes, fighting, dr)
  for _, h in ipairs(hexes) do
    local here, german, steps = {}, false, 0
    for _, u in ipairs(fighting) do
      if u.hex == h then
        here[#here + 1] = u
        if C.is_german(u) then german = true end
        steps = steps + u.steps_left
      end
    end
    if #here > 0 and not german and satellites_only(here) and dr > steps then
      for _, u in ipairs(here) do
        C.eliminate(u, "11.14", ("TOAST: satellite troops without a German unit, result %d, more than their %d step%s"):format(dr, steps, steps > 1 and "s" or ""))
      end
    end
  end
end

-- The stacks of `list` in each of `hexes` (those with a unit left), each retreating on its own.
local function groups_in(hexes, list)
  local groups = {}
  for _, h in ipairs(hexes) do
    local g = { hex = h, units = {} }
    for _, u in ipairs(list) do if u.hex == h then g.units[#g.units + 1] = u end end
    if #g.units > 0 then groups[#groups + 1] = g end
  end
  return groups
end

-- 11.11, 11.14, 11.34, 11.29, 11.18: the defender absorbs his number `dr` first; the hexes he
-- retreated.
local function defender_absorbs(b, dr)
  local drule = "11.11"
  local fighting = new_arrivals_die(b.defenders, dr)
  toast(b.hexes, fighting, dr)
  local alive = {}
  for _, u in ipairs(fighting) do if u.hex then alive[#alive + 1] = u end end
  if dr > 0 and #alive == 0 then
    for _, h in ipairs(b.hexes) do
      if M.intrinsic(h) then log.rule("10.29", ("the intrinsic defence of %s is destroyed (it returns next turn unless the hex is entered)"):format(h)) end
    end
  end
  if dr > 0 and #alive > 0 then
    local groups = groups_in(b.hexes, alive)
    local max = b.amphibious and 0 or T.retreat_max.defender                                    -- 11.18, 11.29
    return retreats.absorb(b.defender, dr, alive, max, groups, nil, drule, lose_one(drule), b.kind)
  end
  return 0
end

-- 11.33, 11.30, 10.42, 14.3: the attacker absorbs his number `ar` second; the hexes he retreated.
local function attacker_absorbs(b, ar)
  local attackers = {}
  for _, a in ipairs(b.attackers) do if a.u.hex then attackers[#attackers + 1] = a.u end end
  if ar and ar > 0 and #attackers > 0 then
    local max = T.retreat_max.attacker                                                         -- 11.30
    if b.attacker == C.GERMAN and (vars.get("fmco_turn") or 0) > 0 then
      max = 0
      log.rule("14.3", "during the FMCO German/Axis attackers absorb every result as steps")
    end
    local groups = groups_in(b.from_hexes, attackers)
    return retreats.absorb(b.attacker, ar, attackers, max, groups, b.hexes, b.kind == "ma" and "10.42" or "11.30", lose_one(b.kind == "ma" and "10.42" or "11.30"), b.kind)
  end
  return 0
end

-- Applies a result (11.11-11.14, 11.29-11.35): the defender first.
function M.apply(b, result, ar, dr)
  local summary = { result = result, defender_hexes = 0, attacker_hexes = 0 }
  if result == "Dx" then
    destroy_defenders(b)
    summary.destroyed = true
    ar = 0
  else
    summary.defender_hexes = defender_absorbs(b, dr)
  end
  summary.attacker_hexes = attacker_absorbs(b, ar)
  summary.cleared = #C.combat_in(b.hexes, b.defender) == 0
  -- 11.32: defenders destroyed, by Dx or otherwise (TOAST, steps): the full advance
  if summary.cleared and summary.defender_hexes == 0 then summary.destroyed = true end
  return summary
end

-- ---------------------------------------------------------------- the Prepared Assault Phase

-- 11.5: one attack per unit and per defender each phase (markers `attacked`, `defended`).
local function clear_phase_markers()
  for _, u in ipairs(units.all { on_map = true }) do
    for _, m in ipairs { "attacked", "defended", "retreated", "katyusha" } do
      if u:marker(m) then u:set_marker(m, nil) end
    end
  end
  for _, k in ipairs(units.all { kind = "katyusha" }) do
    if k.hex then k:put_in("offboard") end
  end
  vars.set("advance", nil)
  vars.set("battles", 0)
end
M.clear_phase_markers = clear_phase_markers

-- 10.9, 10.19: whether a unit in `from` may attack into `d` at all.
local function attack_blocked(u, from, d, kind)
  local hs = map.hexside(from, d)
  if has(hs, "sea") and not has(hs, "kerch") then return "10.9", ("%s/%s is an all-sea hexside"):format(from, d) end
  if has(hs, "kerch") and kind == "ma" then return "10.44", "no mobile assault across the Kerch Straits" end
  if has(hs, "volga") and umpire.clock().turn <= T.volga_closed_through then
    return "10.19", ("%s/%s is a Volga hexside: no attack across the Volga on turns 1 and 2"):format(from, d)
  end
end
M.attack_blocked = attack_blocked

-- 11.2, 11.3, 11.5, 11.7, 12.2: why `u` may not join a prepared assault of `side` on `hexes`
-- (rule, text), or nil when it may (the attack verb and the list of actions, actions.lua).
function M.attacker_refusal(u, side, hexes)
  if u.side ~= side then return "11.2", ("%s is not a %s unit"):format(u.id, side) end
  if u.hex == nil then return "11.1", ("%s is not on the map"):format(u.id) end
  if not (C.is_combat(u) and not C.is_garrison(u)) then
    return "12.2", ("%s may not attack%s"):format(u.id, C.is_garrison(u) and " (0-3-0 garrisons never take part in attacks)" or "")
  end
  if not ((u:value("attack") or 0) > 0) then return "11.3", ("%s has no attack factor"):format(u.id) end
  if u:marker("attacked") then return "11.5", ("%s has already attacked this phase"):format(u.id) end
  for _, h in ipairs(hexes) do
    if map.distance(u.hex, h) ~= 1 then
      return "11.7", ("%s in %s is not next to %s: every attacker must be adjacent to every defender"):format(u.id, u.hex, h)
    end
    local r, why = attack_blocked(u, u.hex, h, "pa")
    if r then return r, ("%s: %s"):format(u.id, why) end
  end
  return nil
end

-- 11.1, 11.5, 11.6, 11.34: the hexes attacked hold enemy units (or an empty intact Soviet
-- entrenchment, 10.31) not yet attacked this phase.
local function check_targets(hexes, enemy)
  umpire.check(#hexes > 0, "11.1", "name the hex (or hexes) attacked")
  local seen = {}
  for _, h in ipairs(hexes) do
    umpire.check(not seen[h], "11.6", "%s is named twice", h)
    seen[h] = true
    local here = C.combat_at(h, enemy)
    local empty_works = #here == 0 and enemy == C.SOVIET and M.intrinsic(h)
    umpire.check(#here > 0 or empty_works, "11.1", "there is no %s unit in %s to attack", enemy, h)
    -- 11.5: no unit is attacked twice in a phase; 11.34: a stack that units retreated into may
    -- be, for the units that were there (the arrivals die on any result)
    local fresh = #here == 0
    for _, u in ipairs(here) do
      if not u:marker("defended") then fresh = true end
    end
    umpire.check(fresh, "11.5", "%s in %s has already been attacked this phase", here[1] and here[1].id or "?", h)
  end
end

-- 11.2-11.7, 12.2: the attackers ({ u =, from = }) and the hexes they attack from, in order.
local function gather_attackers(list, side, hexes)
  local attackers, from_hexes, fh = {}, {}, {}
  for _, u in ipairs(list) do
    local r, why = M.attacker_refusal(u, side, hexes)
    if r then umpire.refuse(r, why) end
    attackers[#attackers + 1] = { u = u, from = u.hex }
    if not fh[u.hex] then fh[u.hex] = true from_hexes[#from_hexes + 1] = u.hex end
  end
  table.sort(from_hexes)
  return attackers, from_hexes
end

-- 11.20: the Katyushas of this attack are removed.
local function remove_katyushas(attackers)
  for _, a in ipairs(attackers) do
    if a.u:marker("katyusha") then
      a.u:set_marker("katyusha", nil)
      for _, k in ipairs(units.all { kind = "katyusha" }) do
        if k.hex == a.from then k:put_in("offboard") end
      end
    end
  end
end

-- 11.31, 11.32: advance after combat, opened for the attackers that stayed in their hexes when
-- the defenders' hexes are clear, or for the defenders when the attackers retreated.
local function open_advance(side, hexes, attackers, from_hexes, s)
  if s.cleared then
    local left = {}
    for _, a in ipairs(attackers) do
      if a.u.hex == a.from then left[#left + 1] = a.u.id end
    end
    if #left > 0 then
      vars.set("advance", { side = side, hexes = hexes, max = s.destroyed and 99 or s.defender_hexes, units = left })
      log.rule("11.31", ("the defenders' hex%s %s %s clear: %s may advance after combat (advance <units> <hex>...)"):format(
        #hexes > 1 and "es" or "", table.concat(hexes, ","), #hexes > 1 and "are" or "is", table.concat(left, ",")))
    end
  elseif s.attacker_hexes > 0 then
    retreats.open_defenders_advance(side, hexes, from_hexes)
  end
end

umpire.command {
  usage = "attack <hex>... with <units>",
  help = "a prepared assault on one or more adjacent enemy hexes (11.1-11.7); the result is absorbed by each side as steps and hexes of retreat",
  example = "attack 3427 with 62A,64A      attack 3716,3717 with 1GA,21A",
  rule = "11.1", phases = { "assault" }, odds = true,
  run = function(hexes, list)
    local side = umpire.clock().side
    local enemy = C.other(side)
    check_targets(hexes, enemy)
    table.sort(hexes)   -- 11.7: one battle, whatever the order the hexes are named in
    local attackers, from_hexes = gather_attackers(list, side, hexes)
    local amph = amphibious.call(side, hexes)                                                   -- 11.18
    for _, a in ipairs(attackers) do a.u:set_marker("attacked", 1) end
    for _, u in ipairs(C.combat_in(hexes, enemy)) do u:set_marker("defended", 1) end
    vars.set("battles", (vars.get("battles") or 0) + 1)
    vars.set("advance", nil)
    log.rule("11.1", ("prepared assault on %s by %s"):format(table.concat(hexes, ","), C.list_ids(list)))
    local s = M.resolve { kind = "pa", attacker = side, defender = enemy, attackers = attackers, hexes = hexes, from_hexes = from_hexes, amphibious = amph }
    remove_katyushas(attackers)
    if (vars.get("fmco_turn") or 0) > 0 and side == C.GERMAN then vars.set("fmco_attacks", (vars.get("fmco_attacks") or 0) + 1) end
    open_advance(side, hexes, attackers, from_hexes, s)
  end,
}

-- 11.20, 7.13: why no Katyusha may be placed on `u` now (rule, text), or nil and the free
-- Katyusha (the katyusha verb and the list of actions). `lengths`: the Soviet supply lines
-- (supply.soviet_trace), traced here when not given.
function M.katyusha_refusal(u, lengths)
  local clock = umpire.clock()
  if clock.side ~= C.SOVIET then return "11.20", "the Katyushas are Soviet" end
  if (vars.get("battles") or 0) ~= 0 then return "11.20", "the Katyushas are placed at the start of the phase, before the first battle" end
  if not (u.side == C.SOVIET and C.is_combat(u) and u.hex ~= nil) then return "11.20", ("%s is not a Soviet ground combat unit on the map"):format(u.id) end
  if u:marker("moved") then return "11.20", ("%s moved in the Movement Phase"):format(u.id) end
  if not (C.supply_level(u, clock.turn) < T.as_max) then return "7.13", ("%s is at >3 AS: no Katyusha"):format(u.id) end
  lengths = lengths or supply.soviet_trace()
  if not (lengths[u.hex] ~= nil or clock.turn == 1) then return "11.20", ("%s has no open supply line now"):format(u.id) end
  if u:marker("katyusha") then return "11.20", ("%s already has a Katyusha"):format(u.id) end
  for _, k in ipairs(units.all { kind = "katyusha" }) do
    if k.hex == u.hex then return "11.20", ("a Katyusha (%s) is already in %s: one per hex"):format(k.id, u.hex) end
  end
  local free
  for _, k in ipairs(units.all { kind = "katyusha", side = C.SOVIET }) do
    if k.box == "offboard" and not free then free = k end
  end
  if free == nil then return "11.20", "both Katyushas are placed" end
  return nil, nil, free
end

-- 11.20: the Katyushas, placed at the start of the Soviet Prepared Assault Phase.
umpire.command {
  usage = "katyusha <unit>",
  help = "place a Katyusha on a Soviet unit that did not move this turn, before any battle (doubles its attack; 11.20)",
  example = "katyusha 21A",
  rule = "11.20", phases = { "assault" },
  run = function(u)
    local r, why, free = M.katyusha_refusal(u)
    if r then umpire.refuse(r, why) end
    free:move_to(u.hex)
    u:set_marker("katyusha", 1)
    log.rule("11.20", ("%s placed on %s in %s: its attack is doubled in its next prepared assault this phase"):format(free.id, u.id, u.hex))
  end,
}

return M
