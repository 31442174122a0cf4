-- Red Storm over the Reich 13.3-13.5, 13.7 (and 10.8.2, 14.2, 16.1, 17.1.A, 17.2.A, 17.2.C,
-- 17.4.C, 17.8): the resolution of a combat, shared by the attacks of combat.lua (13.1) and the
-- overruns of overrun.lua (14.2). The firing order (13.3), the procedure (13.4: strengths,
-- columns, one die each, the modifiers of 13.7.A, the losses the owner chooses), Panzerfausts and
-- flak (13.7.B, 17.2.C), mechanized retreats (13.5), tactical air (17.4.C); and what the attack
-- and the overrun ask of it: the defenders of a hex, the hexsides open to attack (13.1), the
-- ready tactical air units. M.resolve follows the procedure one step a function.
local C = require "common"
local T = require "tables"
local zoc = require "zoc"
local kg = require "kg"
local stacking = require "stacking"
local supply = require "supply"
local logistics = require "logistics"
local movement = require "movement"
local losses = require "losses"     -- rulesets/lib
local retreat = require "retreat"   -- rulesets/lib
local reduce = require "reduce"     -- rulesets/lib

local M = {}

-- Units that take part in a combat as defenders: everything on the map but air, naval and sea
-- transport units (they are never in a hex's stack for combat).
---@param u Unit
---@return boolean
local function defends(u)
  return not (C.is_air(u) or C.is_tacair(u) or C.is_naval(u) or C.is_transport(u))
end
---@param hex string
---@param side string
---@param stack? Unit[] the units in `hex`, where the caller has them (C.at)
---@return Unit[]
function M.defenders(hex, side, stack) return C.at(hex, side, defends, stack) end

-- 13.1: may units cross this hexside to attack (no sea; lake and Haff only in Frost)?
---@param a string the hex attacked (or retreated) from
---@param b string the hex attacked (or entered)
---@param weather? string (default: this turn's, 9.1)
---@return boolean open
---@return string? what closes it: "sea", "lake" or "Haff"
function M.hexside_open(a, b, weather)
  local s = map.hexside(a, b)
  if C.contains(s, "sea") then return false, "sea" end
  -- (the weather is read only for a lake or Haff hexside: umpire.clock builds the whole clock)
  if (C.contains(s, "lake") or C.contains(s, "haff")) and (weather or C.weather()) ~= "frost" then
    return false, C.contains(s, "lake") and "lake" or "Haff"
  end
  return true
end

-- 17.4.C, 13.7.C, 17.1.A: the ready tactical air units `side` may commit against `hex`.
---@param side string
---@param hex string the hex attacked or defended
---@param attacking boolean
---@return Unit[] ready
---@return string? the rule that grounds them all ("13.7.C", "17.1.A")
function M.ready_air(side, hex, attacking)
  local out = {}
  if side == C.SOVIET and C.weather() == "mud" then return out, "13.7.C" end
  if side == C.SOVIET and attacking and C.USIR[hex] and C.URBAN[hex] then return out, "17.1.A" end
  for _, u in ipairs(units.all { side = side, kind = "tacair" }) do
    if not u.hex and u.box ~= "removed" and u.box ~= "eliminated" and u.box ~= "reinforcements" and not u:marker("used") then
      out[#out + 1] = u
    end
  end
  return out
end

-- 17.4.C, 13.7.C, 17.1.A: the tactical air unit the attacker (or overrunner) of `hex` commits:
-- air_unit if given, else the first ready one; `extra` lists more units that may fly (Rudel for
-- an overrun, 11.5).
---@param side string
---@param hex string
---@param air_unit? Unit
---@param extra? Unit[]
---@return Unit
function M.attacker_air(side, hex, air_unit, extra)
  local ready, why = M.ready_air(side, hex, true)
  if why == "13.7.C" then umpire.refuse("13.7.C", "no Soviet tactical air on turns 3 and 4 (Mud, 17.4.A)") end
  if why == "17.1.A" then umpire.refuse("17.1.A", "no Soviet tactical air supports an attack on a USIR urban hex") end
  for _, u in ipairs(extra or {}) do ready[#ready + 1] = u end
  if air_unit then
    umpire.check(C.contains(ready, air_unit), "17.4.C", "%s is not a ready %s tactical air unit", air_unit.id, side)
    return air_unit
  end
  umpire.check(#ready > 0, "17.4.C", "the %s has no ready tactical air unit", side)
  return ready[1]
end

-- 11.5, 14.2 (reading): Rudel may support a German defence against an overrun on turn 3 only, if
-- he has not flown; he then leaves the game.
---@return Unit?
local function rudel_ready()
  if umpire.clock().turn ~= T.rudel_turn then return nil end
  local r = units.get("RUDEL")
  if r and r.exists and not r.hex and r.box ~= "removed" and r.box ~= "eliminated" and not r:marker("used") then return r end
  return nil
end

-- 13.4.A: the column of a total strength (nil: 0, no fire).
---@param total integer
---@return integer?
function M.column(total)
  for i, c in ipairs(T.crt_columns) do
    if total >= c[1] and (c[2] == nil or total <= c[2]) then return i end
  end
  return nil
end

---@param i integer?
---@return string
local function col_name(i)
  local c = T.crt_columns[i]
  if not c then return "none" end
  return c[2] and (c[1] .. "-" .. c[2]) or (c[1] .. "+")
end

-- 13.4.B: the result on column `col` for net roll `net` (clamped to the table's rows).
---@param col integer?
---@param net integer
---@return string
function M.read(col, net)
  if not col then return "-" end
  local r = math.max(T.crt_rolls.min, math.min(T.crt_rolls.max, net))
  return T.crt[col][r - T.crt_rolls.min + 1]
end

-- 13.4.A, 13.7.D, 7.5: a side's strength: supplied units in full, the out-of-supply units' total
-- halved (rounded down), separately. `key` is "attack" or "defense". Units that retreated into
-- the hex this segment add nothing (13.5). Returns total, text.
---@param list Unit[]
---@param key "attack"|"defense"
---@return integer total
---@return string text
function M.strength(list, key)
  local full, oos, parts = 0, 0, {}
  for _, u in ipairs(list) do
    local v = u:value(key) or 0
    if u:marker("retreated") and key == "defense" then v = 0 end
    if C.supplied(u) then full = full + v else oos = oos + v end
  end
  local total = full + reduce.half(oos, "down")
  local text = tostring(full)
  if oos > 0 then text = ("%d + %d out of supply halved (7.5, 13.7.D) = %d"):format(full, oos, total) end
  return total, text
end

-- 13.7.A: the attacker's modifiers by the defender's hex and the hexsides crossed.
---@param hex string the defender's hex
---@param side string the attacker
---@param from_hexes string[] the hexes attacked from
---@param parts string[] the modifiers' texts (appended to)
---@return integer
local function hex_drm(hex, side, from_hexes, parts)
  local d = 0
  local t = map.terrain(hex)
  if T.combat_drm.hex[t] then
    d = d + T.combat_drm.hex[t]; parts[#parts + 1] = ("%d %s"):format(T.combat_drm.hex[t], t)
  end
  for _, f in ipairs { "city", "urban", "fortress" } do
    if f ~= t and map.has(hex, f) and T.combat_drm.hex[f] then
      d = d + T.combat_drm.hex[f]; parts[#parts + 1] = ("%d %s"):format(T.combat_drm.hex[f], f)
    end
  end
  -- 17.8: intact German defensive works against Soviet attacks (once: 17.8 repeats 13.7.A)
  if side == C.SOVIET and supply.intact_dw(hex) then
    d = d + T.combat_drm.hex.dw; parts[#parts + 1] = ("%d defensive works (17.8)"):format(T.combat_drm.hex.dw)
  end
  local river, lake = false, false
  for _, f in ipairs(from_hexes) do
    local s = map.hexside(f, hex)
    if C.contains(s, "major_river") or C.contains(s, "minor_river") then river = true end
    if (C.contains(s, "lake") or C.contains(s, "haff")) and C.weather() == "frost" then lake = true end
  end
  if river then d = d + T.combat_drm.river; parts[#parts + 1] = ("%d across a river"):format(T.combat_drm.river) end
  if lake then d = d + T.combat_drm.lake_frost; parts[#parts + 1] = ("%d across a lake/Haff in Frost"):format(T.combat_drm.lake_frost) end
  return d
end

-- Modifiers common to both sides' rolls: Immobile (reading: any Immobile unit of the side in the
-- combat), tactical air, the strain.
---@param side string
---@param list Unit[] the side's units in the combat
---@param air Unit? its tactical air unit
---@param parts string[] the modifiers' texts (appended to)
---@return integer
local function side_drm(side, list, air, parts)
  local d = 0
  for _, u in ipairs(list) do
    if u:marker("immobile") then
      d = d + T.combat_drm.immobile; parts[#parts + 1] = ("%d Immobile %s"):format(T.combat_drm.immobile, u.id); break
    end
  end
  if air then d = d + T.combat_drm.tactical_air; parts[#parts + 1] = ("+%d tactical air %s"):format(T.combat_drm.tactical_air, air.id) end
  if side == C.SOVIET and logistics.sls_active() then
    d = d + T.combat_drm.sls; parts[#parts + 1] = ("%d Soviet Logistical Strain (9.3)"):format(T.combat_drm.sls)
  end
  return d
end

-- The units of `list` still on the map.
---@param list Unit[]
---@return Unit[]
local function alive(list)
  local out = {}
  for _, u in ipairs(list) do if u.exists and u.hex then out[#out + 1] = u end end
  return out
end

-- The steps a result takes ("2*" → 2, "-" → 0).
---@param r string?
---@return integer
local function nres(r) return tonumber((r or "-"):match("%d+") or "0") end

-- 13.4.C, 17.2.A, 16.1: `n` steps from the `side` units of `list` in `hex`, the owner choosing (the
-- Vistula division first); German losses from Soviet fire may leave Kampfgruppen ("*").
---@param side string the side losing
---@param list Unit[]
---@param n integer
---@param opts? table by (the side firing), rule, prompt, eligible (a preference), current (the units that may lose now), star and hex (16.1.A)
---@return string[] what each step did
local function take_steps(side, list, n, opts)
  opts = opts or {}
  local texts = {}
  if n <= 0 then return texts end
  local ctx = { combat = side == C.GERMAN and opts.by == C.SOVIET, eliminated = {} }
  for i = 1, n do
    -- the units that may lose the step now (a mechanized KG that took a division's place, 16.1.B)
    local now = opts.current and opts.current() or list
    local taken = losses.allocate { side = side, n = 1, units = now, rule = opts.rule or "13.4.C",
      prompt = (opts.prompt or ("%s loses %d %s"):format(side, n, C.plural(n, "step"))) .. (n > 1 and (" — step %d of %d"):format(i, n) or ""),
      eligible = function(v)
        if opts.eligible and not opts.eligible(v) then
          -- the preference holds only while someone meets it
          for _, w in ipairs(now) do if w.exists and w.hex and opts.eligible(w) then return false end end
        end
        if side == C.GERMAN and not v:attr("vistula") then
          for _, w in ipairs(now) do
            if w.exists and w.hex and w:attr("vistula") then return false end   -- 17.2.A
          end
        end
        return true
      end,
      lose = function(v) texts[#texts + 1] = kg.lose_step(v, ctx) end }
    if taken == 0 then break end
  end
  if opts.star and ctx.combat and opts.hex then
    local t = kg.form_kg(opts.hex, ctx.eliminated)
    if t then texts[#texts + 1] = t end
  end
  return texts
end

-- 13.5: the retreat of the defenders of `hex` (a list) by `hexes` hexes along the owner's Retreat
-- Compass. Returns the path (hexes entered) and the hexes that could not be retreated.
---@param list Unit[]
---@param hex string
---@param hexes integer
---@param side string the defenders' side
---@return string[] path
---@return integer left
local function retreat_units(list, hex, hexes, side)
  local weather = C.weather()
  local blocked = zoc.unnegated(side, weather)
  local dirs = T.compass[side]
  local path, left = retreat.walk { side = side, from = hex, hexes = hexes, rule = "13.5",
    prompt = ("retreat %s from %s"):format(C.ids(list), hex),
    allowed = function(from, to)
      if not C.contains(dirs, map.direction(from, to)) then return false end
      if C.PROHIBITED[to] then return false end
      if not M.hexside_open(from, to, weather) then return false end
      if C.stops(side, to) then return false end   -- (a Soviet unit may enter refugees, 6.11)
      if blocked[to] then return false end
      if list[1] and C.is_flak(list[1]) and C.URBAN[to] then return false end
      return true
    end }
  local dest = path[#path]
  if dest then
    for _, u in ipairs(list) do
      u:move_to(dest)
      u:set_marker("retreated", 1)
    end
    movement.entered({ hex, table.unpack(path) }, side, list)
  end
  return path, left
end

-- 13.5: may the defenders of a hex convert losses into hexes (all of them supplied mechanized
-- units or Zhukov, none out of supply, no infantry or support unit with them at the start)?
-- reading: the stack converts as a whole; a stack with any other unit takes steps only.
---@param list Unit[]
---@return boolean
---@return string? why not
local function may_retreat(list)
  if #list == 0 then return false end
  for _, u in ipairs(list) do
    if not (C.is_mech(u) or C.is_leader(u)) then return false, "not stacked with infantry or support units only" end
    if not C.supplied(u) then return false, "out of supply (7.5)" end
  end
  return true
end

-- 13.3: a combat where every attacking unit attacks across a major river in Mud or Clear.
---@param hex string
---@param attackers Unit[]
---@return boolean
local function defender_first(hex, attackers)
  if C.weather() == "frost" then return false end
  for _, u in ipairs(attackers) do
    if not C.contains(map.hexside(u.hex, hex), "major_river") then return false end
  end
  return #attackers > 0
end


-- ---- M.resolve, one step of the procedure a function ------------------------------------------

---@class Fight a combat or an overrun being resolved (sides_of)
---@field hex string the defenders' hex
---@field side string the attacker
---@field enemy string the defender
---@field rule string "13.4", or "14.2" for an overrun
---@field overrun boolean?
---@field attackers Unit[]
---@field defenders Unit[] as they stood at the start
---@field from_hexes string[] the hexes attacked from, in the attackers' order
---@field can_retreat boolean whether the defenders may convert losses into hexes (13.5)
---@field by_mech boolean whether a mechanized unit attacks (13.5.B)
---@field air Unit? the attacker's tactical air unit
---@field def_air Unit? the defender's
---@field A string the attacker's label in the log
---@field D string the defender's

-- 13.4: the two sides of a combat or an overrun as they stand at its start: the attackers and the
-- hexes they attack from, the defenders, whether these may retreat instead of losing steps (13.5,
-- as the stack stood at the start of the combat) and whether a mechanized unit attacks (13.5.B).
---@param spec table see M.resolve
---@return Fight
local function sides_of(spec)
  local hex, side = spec.hex, spec.side
  local enemy = C.other(side)
  local attackers = spec.attackers
  local defenders = M.defenders(hex, enemy)
  local from_hexes, seen = {}, {}
  for _, u in ipairs(attackers) do
    if not seen[u.hex] then seen[u.hex] = true; from_hexes[#from_hexes + 1] = u.hex end
  end
  -- 13.5 (as the stack stood at the start of the combat)
  local can_retreat = may_retreat(defenders)
  if spec.overrun then can_retreat = false end   -- defenders do not retreat from an overrun (14.2)
  local by_mech = false
  for _, u in ipairs(attackers) do if C.is_mech(u) then by_mech = true end end
  return { hex = hex, side = side, enemy = enemy, rule = spec.overrun and "14.2" or "13.4", overrun = spec.overrun,
    attackers = attackers, defenders = defenders, from_hexes = from_hexes, can_retreat = can_retreat, by_mech = by_mech,
    air = spec.air, A = side .. " (attacker)", D = enemy .. " (defender)" }
end

-- 17.4.C, 13.7.C, 17.1.A: the defender may commit one ready tactical air unit (and Rudel
-- against an overrun, 14.2, 11.5): the unit committed, or nil.
---@param f Fight
---@return Unit?
local function defender_air(f)
  local hex, enemy = f.hex, f.enemy
  local ready = M.ready_air(enemy, hex, false)
  local options = { "none" }
  for _, a in ipairs(ready) do options[#options + 1] = a.id end
  if f.overrun and enemy == C.GERMAN then
    local r = rudel_ready()
    if r then options[#options + 1] = r.id end
  end
  if #options > 1 then
    local pick = umpire.ask { prompt = ("defending %s: commit a tactical air unit (+1 to the defender's roll)?"):format(hex),
      side = enemy, rule = "17.4.C", kind = "choice", options = options, default = "none", odds = true }
    if pick ~= "none" then return units.get(pick) end
  end
  return nil
end

-- 10.8.2, 13.1.A, 17.4.C: before the dice: entrained defenders lose their markers, the defenders
-- are marked as attacked this segment, the tactical air committed is Used (a unit of one turn
-- and Rudel leave the game, 11.5).
---@param f Fight
local function mark_combatants(f)
  local defenders = f.defenders
  -- 10.8.2: entrained defenders attacked by the Soviet lose their markers
  local notes = {}
  for _, u in ipairs(defenders) do
    if u:marker("entrained") then
      u:set_marker("entrained", nil)
      notes[#notes + 1] = u.id .. " loses its Entrained marker (10.8.2)"
    end
  end
  for _, u in ipairs(defenders) do u:set_marker("defended", 1) end
  for _, a in pairs { att = f.air or false, def = f.def_air or false } do
    if a then
      a:set_marker("used", 1)
      if a:attr("only_turn") or a:attr("rudel") then a:put_in("removed") end
    end
  end
  if #notes > 0 then log.rule("10.8.2", table.concat(notes, "; ")) end
end

-- 13.4.A, 14.2: the attacker's strength: the surviving attackers' total, halved (rounded up) in
-- an overrun against mechanized defenders. Returns total, text, the units.
---@param f Fight
---@return integer total
---@return string text
---@return Unit[] list
local function attack_total(f)
  local list = alive(f.attackers)
  local total, text = M.strength(list, "attack")
  if f.overrun then
    local mech = false
    for _, d in ipairs(alive(f.defenders)) do if C.is_mech(d) then mech = true end end
    if mech then
      local h = reduce.half(total, "up")
      text = ("%s, halved (rounded up) against mechanized defenders (14.2) = %d"):format(text, h)
      total = h
    end
  end
  return total, text, list
end

-- 13.4.A, 13.7.A: the attacker's fire before its die: strength, column, modifiers.
---@param f Fight
---@return table fire total, text, drm, parts, col
local function attack_prep(f)
  local total, text, list = attack_total(f)
  local parts = {}
  local drm = hex_drm(f.hex, f.side, f.from_hexes, parts) + side_drm(f.side, list, f.air, parts)
  return { total = total, text = text, drm = drm, parts = parts, col = M.column(total) }
end

-- 13.4.A, 13.7.A, 12.1: the defender's fire before its die (-1 if a defending unit is disrupted).
---@param f Fight
---@return table fire total, text, drm, parts, col
local function defend_prep(f)
  local list = alive(f.defenders)
  local total, text = M.strength(list, "defense")
  local parts = {}
  local drm = 0
  for _, u in ipairs(list) do
    if C.disrupted(u) then drm = drm + T.combat_drm.disrupted; parts[#parts + 1] = ("%d disrupted %s (12.1)"):format(T.combat_drm.disrupted, u.id); break end
  end
  drm = drm + side_drm(f.enemy, list, f.def_air, parts)
  return { total = total, text = text, drm = drm, parts = parts, col = M.column(total) }
end

-- 13.4: a side's strength, column and modifiers, in the log.
---@param f Fight
---@param who string
---@param r table its fire (attack_prep, defend_prep)
local function prep_say(f, who, r)
  log.rule(f.rule, ("%s: strength %s, column %s%s"):format(who, r.text, col_name(r.col),
    #r.parts > 0 and ("; modifiers " .. table.concat(r.parts, ", ") .. (" (%+d)"):format(r.drm)) or "; no modifier"))
end

-- 13.4.B: a fire's result for its die.
---@param r table its fire
---@param die integer
local function read_fire(r, die)
  r.die = die
  r.net = r.die + r.drm
  r.res = M.read(r.col, r.net)
end

-- 13.4.B: a fire's die and result, in the log.
---@param f Fight
---@param who string
---@param r table its fire
local function say(f, who, r)
  log.rule(f.rule, ("%s: die %d%s = %d: %s"):format(who, r.die, r.drm ~= 0 and (" %+d"):format(r.drm) or "", r.net, r.res == "-" and "no effect" or r.res))
end

-- 13.7.B, 17.2.C: extra Soviet steps: Panzerfausts (a modified roll of 1 against a town, city,
-- urban or fortress hex) and flak among the defenders. Returns pf, flak (0 or 1 each).
---@param f Fight
---@param a table the attacker's fire
---@return integer pf
---@return integer flak
local function extras(f, a)
  local pf, flak = 0, 0
  if f.side == C.SOVIET then
    local town = false
    for k in pairs(T.panzerfaust.hexes) do if map.has(f.hex, k) then town = true end end
    if town and a.net == T.panzerfaust.roll then pf = 1 end
    for _, d in ipairs(f.defenders) do if C.is_flak(d) then flak = 1 end end
  end
  return pf, flak
end

-- 13.4: the outcome of both fires, as `odds` tabulates it.
---@param f Fight
---@param a table the attacker's fire
---@param d table the defender's fire
---@param pf integer
---@param flak integer
---@return string
local function outcome_text(f, a, d, pf, flak)
  return ("%s loses %s, %s loses %d%s%s"):format(f.enemy, a.res == "-" and "0" or a.res, f.side, nres(d.res),
    pf > 0 and " +1 Panzerfaust" or "", flak > 0 and " +1 flak" or "")
end

-- 13.5: a unit that retreated into the hex this segment is eliminated by any step loss (no KG).
---@param u Unit
---@param texts string[] what the losses did (appended to)
local function eliminate_newcomer(u, texts)
  local t
  while u.exists and u.hex do t = kg.lose_step(u, { no_kg = "it retreated here this segment: no KG, 13.5" }) end
  texts[#texts + 1] = t .. " (it retreated here this segment, 13.5)"
end

-- losses of the defending side: retreat conversion (13.5), steps (13.4.C). Returns what they did
-- and the hexes to retreat.
---@param f Fight
---@param res string the attacker's result
---@return string[] texts
---@return integer hexes
local function defender_losses(f, res)
  local hex, side, enemy = f.hex, f.side, f.enemy
  local n = nres(res)
  local texts = {}
  local list = alive(f.defenders)
  if n <= 0 then return texts, 0 end
  -- 13.5: units that retreated into this hex are eliminated by any step loss
  local newcomers, others = {}, {}
  for _, u in ipairs(list) do
    if u:marker("retreated") then newcomers[#newcomers + 1] = u else others[#others + 1] = u end
  end
  local hexes, steps = 0, n
  if f.can_retreat and #others > 0 then
    local max = f.by_mech and n - 1 or n
    hexes, steps = losses.split { side = enemy, n = n, max_hexes = max, rule = f.by_mech and "13.5.B" or "13.5.A" }
  end
  local star = res:find("*", 1, true) ~= nil
  if #others == 0 then
    -- 13.5: only units that retreated here this segment: all eliminated (reading: no KG)
    for _, u in ipairs(newcomers) do eliminate_newcomer(u, texts) end
    return texts, 0
  end
  -- (the defenders still in the hex but the newcomers, each time a step is taken)
  for _, t in ipairs(take_steps(enemy, others, steps, { by = side, star = star, hex = hex, rule = "13.4.C",
    current = function()
      local cur = {}
      for _, u in ipairs(M.defenders(hex, enemy)) do if not u:marker("retreated") then cur[#cur + 1] = u end end
      return cur
    end })) do texts[#texts + 1] = t end
  if steps > 0 then
    for _, u in ipairs(newcomers) do
      if u.exists and u.hex then eliminate_newcomer(u, texts) end
    end
  end
  return texts, hexes
end

-- 13.4.C, 13.7.B, 17.2.C: the attacking side's losses: its result's steps, then a step for the
-- Panzerfausts (from a mechanized unit if possible) and one for the flak.
---@param f Fight
---@param res string the defender's result
---@param pf integer
---@param flak integer
---@return string[] texts
local function attacker_losses(f, res, pf, flak)
  local side, enemy, attackers = f.side, f.enemy, f.attackers
  local texts = {}
  local n = nres(res)
  for _, t in ipairs(take_steps(side, attackers, n, { by = enemy })) do texts[#texts + 1] = t end
  if pf > 0 then
    for _, t in ipairs(take_steps(side, attackers, pf, { by = enemy, rule = "13.7.B", prompt = "Panzerfausts: one more Soviet step (from a mechanized unit if possible)", eligible = C.is_mech })) do texts[#texts + 1] = t .. " (Panzerfausts, 13.7.B)" end
  end
  if flak > 0 then
    for _, t in ipairs(take_steps(side, attackers, flak, { by = enemy, rule = "17.2.C", prompt = "flak: one more Soviet step" })) do texts[#texts + 1] = t .. " (flak, 17.2.C)" end
  end
  return texts
end

-- 13.3: every attacking unit attacks across a major river in Mud or Clear: the defender fires
-- first, the attacker takes his losses at once and fires with what is left. Returns both fires.
---@param f Fight
---@return table a the attacker's fire
---@return table d the defender's fire
local function defender_fires_first(f)
  local hex, side, enemy = f.hex, f.side, f.enemy
  log.rule("13.3", ("every attacking unit attacks across a major river in %s: the defender fires first"):format(C.weather()))
  local d = defend_prep(f)
  prep_say(f, f.D, d)
  read_fire(d, dice.d6(("%s's fire from %s"):format(enemy, hex)))
  say(f, f.D, d)
  local at = attacker_losses(f, d.res, 0, 0)
  if #at > 0 then log.rule("13.4.C", side .. ": " .. table.concat(at, "; ")) end
  local a = attack_prep(f)
  prep_say(f, f.A, a)
  read_fire(a, dice.d6(("%s's fire on %s"):format(side, hex)))
  say(f, f.A, a)
  return a, d
end

-- 13.4: both sides fire at once (reading: the attacker's die is rolled first, then the
-- defender's); both results are read off the two dice (odds tabulates the 36 pairs in one run).
-- Returns both fires, the outcome and the extra Soviet steps (13.7.B, 17.2.C).
---@param f Fight
---@return table a the attacker's fire
---@return table d the defender's fire
---@return string outcome
---@return integer pf
---@return integer flak
local function both_fire(f)
  local hex, side, enemy = f.hex, f.side, f.enemy
  local a = attack_prep(f)
  local d = defend_prep(f)
  prep_say(f, f.A, a)
  prep_say(f, f.D, d)
  local outcome, pf, flak = umpire.outcome_of({ { "1d6", ("%s's fire on %s"):format(side, hex) }, { "1d6", ("%s's fire from %s"):format(enemy, hex) } },
    function(da, dd)
      read_fire(a, da)
      read_fire(d, dd)
      local p, fl = extras(f, a)
      return outcome_text(f, a, d, p, fl), p, fl
    end)
  say(f, f.A, a)
  say(f, f.D, d)
  return a, d, outcome, pf, flak
end

-- 13.4.C: both sides' losses, the defender's first (a defender who fired first, 13.3, has had
-- the attacker take his already). Returns the hexes the defenders are to retreat (13.5).
---@param f Fight
---@param a table the attacker's fire
---@param d table the defender's fire
---@param first boolean whether the defender fired first (13.3)
---@param pf integer
---@param flak integer
---@return integer hexes
local function take_losses(f, a, d, first, pf, flak)
  local dt, hexes = defender_losses(f, a.res)
  local at = attacker_losses(f, first and "-" or d.res, pf, flak)
  if #dt > 0 then log.rule("13.4.C", f.enemy .. ": " .. table.concat(dt, "; ")) end
  if #at > 0 then log.rule("13.4.C", f.side .. ": " .. table.concat(at, "; ")) end
  return hexes
end

-- 13.5: the retreat of the surviving defenders by `hexes` hexes; the hexes they cannot retreat
-- are taken as steps (reading); then the stacking limits (5.1). Returns the path.
---@param f Fight
---@param hexes integer
---@return string[]
local function retreat_defenders(f, hexes)
  local hex, side, enemy = f.hex, f.side, f.enemy
  local out_path = {}
  if hexes > 0 then
    local list = alive(f.defenders)
    if #list > 0 then
      local path, left = retreat_units(list, hex, hexes, enemy)
      out_path = path
      log.rule("13.5", ("%s retreat%s %s%s"):format(C.ids(list), #list == 1 and "s" or "", #path > 0 and (hex .. " → " .. table.concat(path, " → ")) or "nowhere",
        left > 0 and ("; %d %s cannot be retreated and %s taken as steps (reading)"):format(left, C.plural(left, "hex", "hexes"), left == 1 and "is" or "are") or ""))
      if left > 0 then
        local lt = take_steps(enemy, list, left, { by = side, rule = "13.5" })
        if #lt > 0 then log.rule("13.5", table.concat(lt, "; ")) end
      end
      stacking.enforce(enemy, "the end of a retreat (5.1)")
    end
  end
  return out_path
end

-- 13.4: resolves a combat or an overrun. spec: hex, side (attacker), attackers, air (the
-- attacker's tactical air unit or nil), overrun (14.2), on_result (called once the dice are read,
-- before the losses). Returns a table: outcome, a and d (the fires), cleared, path (the
-- defenders' retreat).
---@param spec { hex: string, side: string, attackers: Unit[], air: Unit?, overrun: boolean?, on_result: fun()? }
---@return table
function M.resolve(spec)
  local f = sides_of(spec)
  f.def_air = defender_air(f)
  mark_combatants(f)
  local first = not spec.overrun and defender_first(f.hex, f.attackers)
  local out = { hex = f.hex }
  local a, d, pf, flak
  if first then
    a, d = defender_fires_first(f)   -- 13.3
    pf, flak = extras(f, a)
    out.outcome = umpire.outcome(outcome_text(f, a, d, pf, flak))
  else
    a, d, out.outcome, pf, flak = both_fire(f)
  end
  if spec.on_result then spec.on_result() end   -- (after the outcome: `odds` never sees it)
  local hexes = take_losses(f, a, d, first, pf, flak)
  out.path = retreat_defenders(f, hexes)   -- 13.5
  out.cleared = #M.defenders(f.hex, f.enemy) == 0
  out.a, out.d = a, d
  return out
end

return M
