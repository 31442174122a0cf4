-- Red Storm over the Reich 13 (and 6.9, 10.8.2, 17.1.A, 17.1.C, 17.2.A, 17.2.C, 17.3.A, 17.4.C,
-- 17.7, 17.8): combat. The attack verb (who may attack what, 13.1), multi-hex attacks and their
-- promise (13.1.B, 6.9), the firing order (13.3), the procedure (13.4: strengths, columns, one die
-- each, the modifiers of 13.7.A, the losses the owner chooses), Panzerfausts and flak (13.7.B,
-- 17.2.C), mechanized retreats (13.5), the advance after combat (13.6) and Zhukov (17.3.A).
-- M.resolve is shared with the overruns of overrun.lua (14.2).
--
-- State of a combat segment (vars "cs"): hexes attacked, promised hexes (13.1.B), the last combat
-- (for the advance), Zhukov's second attack. Unit markers: `attacked` (attacked this segment),
-- `defended` (was attacked), `retreated` (retreated into its hex this segment, 13.5), `advanced`.
local C = require "common"
local T = require "tables"
local zoc = require "zoc"
local kg = require "kg"
local losses = require "losses"
local retreat = require "retreat"
local stacking = require "stacking"
local reduce = require "reduce"
local supply = require "supply"
local logistics = require "logistics"
local movement = require "movement"

local M = {}

local MARKERS = { "attacked", "defended", "retreated", "advanced", "overran" }

local function state() return vars.get("cs") or { hexes = {}, promised = {} } end
local function save(s) vars.set("cs", s) end

function M.begin_segment(side)
  for _, u in ipairs(units.all {}) do
    for _, m in ipairs(MARKERS) do if u:marker(m) then u:set_marker(m, nil) end end
  end
  vars.set("cs", { hexes = {}, promised = {}, side = side })
end

-- Units that take part in a combat as defenders: everything on the map but air, naval and sea
-- transport units (they are never in a hex's stack for combat).
local function defends(u)
  return not (C.is_air(u) or C.is_tacair(u) or C.is_naval(u) or C.is_transport(u))
end
function M.defenders(hex, side) return C.at(hex, side, defends) end

-- 13.1: may units cross this hexside to attack (no sea; lake and Haff only in Frost)?
function M.hexside_open(a, b, weather)
  weather = weather or C.weather()
  local s = map.hexside(a, b)
  if C.contains(s, "sea") then return false, "sea" end
  if weather ~= "frost" and (C.contains(s, "lake") or C.contains(s, "haff")) then
    return false, C.contains(s, "lake") and "lake" or "Haff"
  end
  return true
end

-- 17.4.C, 13.7.C, 17.1.A: the ready tactical air units `side` may commit against `hex`.
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
local function rudel_ready()
  if umpire.clock().turn ~= T.rudel_turn then return nil end
  local r = units.get("RUDEL")
  if r and r.exists and not r.hex and r.box ~= "removed" and r.box ~= "eliminated" and not r:marker("used") then return r end
  return nil
end

-- 13.4.A: the column of a total strength (nil: 0, no fire).
function M.column(total)
  for i, c in ipairs(T.crt_columns) do
    if total >= c[1] and (c[2] == nil or total <= c[2]) then return i end
  end
  return nil
end

local function col_name(i)
  local c = T.crt_columns[i]
  if not c then return "none" end
  return c[2] and (c[1] .. "-" .. c[2]) or (c[1] .. "+")
end

-- 13.4.B: the result on column `col` for net roll `net` (clamped to the table's rows).
function M.read(col, net)
  if not col then return "-" end
  local r = math.max(T.crt_rolls.min, math.min(T.crt_rolls.max, net))
  return T.crt[col][r - T.crt_rolls.min + 1]
end

-- 13.4.A, 13.7.D, 7.5: a side's strength: supplied units in full, the out-of-supply units' total
-- halved (rounded down), separately. `key` is "attack" or "defense". Units that retreated into
-- the hex this segment add nothing (13.5). Returns total, text.
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
    if C.weather() == "frost" and (C.contains(s, "lake") or C.contains(s, "haff")) then lake = true end
  end
  if river then d = d + T.combat_drm.river; parts[#parts + 1] = ("%d across a river"):format(T.combat_drm.river) end
  if lake then d = d + T.combat_drm.lake_frost; parts[#parts + 1] = ("%d across a lake/Haff in Frost"):format(T.combat_drm.lake_frost) end
  return d
end

-- Modifiers common to both sides' rolls: Immobile (reading: any Immobile unit of the side in the
-- combat), tactical air, the strain.
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

local function alive(list)
  local out = {}
  for _, u in ipairs(list) do if u.exists and u.hex then out[#out + 1] = u end end
  return out
end

local function nres(r) return tonumber((r or "-"):match("%d+") or "0") end

-- 13.4.C, 17.2.A, 16.1: `n` steps from the `side` units of `list` in `hex`, the owner choosing (the
-- Vistula division first); German losses from Soviet fire may leave Kampfgruppen ("*").
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
local function may_retreat(list)
  if #list == 0 then return false end
  for _, u in ipairs(list) do
    if not (C.is_mech(u) or C.is_leader(u)) then return false, "not stacked with infantry or support units only" end
    if not C.supplied(u) then return false, "out of supply (7.5)" end
  end
  return true
end

-- 13.3: a combat where every attacking unit attacks across a major river in Mud or Clear.
local function defender_first(hex, attackers)
  if C.weather() == "frost" then return false end
  for _, u in ipairs(attackers) do
    if not C.contains(map.hexside(u.hex, hex), "major_river") then return false end
  end
  return #attackers > 0
end

-- 13.4: resolves a combat or an overrun. spec: hex, side (attacker), attackers, air (the
-- attacker's tactical air unit or nil), overrun (14.2), rule. Returns a table: result strings,
-- losses, cleared, path (the defenders' retreat).
function M.resolve(spec)
  local hex, side = spec.hex, spec.side
  local enemy = C.other(side)
  local rule = spec.overrun and "14.2" or "13.4"
  local attackers = spec.attackers
  local defenders = M.defenders(hex, enemy)
  local from_hexes, seen = {}, {}
  for _, u in ipairs(attackers) do
    if not seen[u.hex] then seen[u.hex] = true; from_hexes[#from_hexes + 1] = u.hex end
  end
  -- 13.5 (as the stack stood at the start of the combat)
  local can_retreat, why_not = may_retreat(defenders)
  if spec.overrun then can_retreat, why_not = false, "defenders do not retreat from an overrun (14.2)" end
  local by_mech = false
  for _, u in ipairs(attackers) do if C.is_mech(u) then by_mech = true end end
  -- 17.4.C, 13.7.C, 17.1.A: the defender may commit one ready tactical air unit (and Rudel
  -- against an overrun, 14.2)
  local def_air
  local ready = M.ready_air(enemy, hex, false)
  local options = { "none" }
  for _, a in ipairs(ready) do options[#options + 1] = a.id end
  if spec.overrun and enemy == C.GERMAN then
    local r = rudel_ready()
    if r then options[#options + 1] = r.id end
  end
  if #options > 1 then
    local pick = umpire.ask { prompt = ("defending %s: commit a tactical air unit (+1 to the defender's roll)?"):format(hex),
      side = enemy, rule = "17.4.C", kind = "choice", options = options, default = "none", odds = true }
    if pick ~= "none" then def_air = units.get(pick) end
  end
  -- 10.8.2: entrained defenders attacked by the Soviet lose their markers
  local notes = {}
  for _, u in ipairs(defenders) do
    if u:marker("entrained") then
      u:set_marker("entrained", nil)
      notes[#notes + 1] = u.id .. " loses its Entrained marker (10.8.2)"
    end
  end
  for _, u in ipairs(defenders) do u:set_marker("defended", 1) end
  local air = spec.air
  for _, a in pairs { att = air or false, def = def_air or false } do
    if a then
      a:set_marker("used", 1)
      if a:attr("only_turn") or a:attr("rudel") then a:put_in("removed") end
    end
  end
  if #notes > 0 then log.rule("10.8.2", table.concat(notes, "; ")) end

  -- the attacker's roll
  local function attack_total()
    local list = alive(attackers)
    local total, text = M.strength(list, "attack")
    if spec.overrun then
      local mech = false
      for _, d in ipairs(alive(defenders)) do if C.is_mech(d) then mech = true end end
      if mech then
        local h = reduce.half(total, "up")
        text = ("%s, halved (rounded up) against mechanized defenders (14.2) = %d"):format(text, h)
        total = h
      end
    end
    return total, text, list
  end
  local function attack_prep()
    local total, text, list = attack_total()
    local parts = {}
    local drm = hex_drm(hex, side, from_hexes, parts) + side_drm(side, list, air, parts)
    return { total = total, text = text, drm = drm, parts = parts, col = M.column(total) }
  end
  local function defend_prep()
    local list = alive(defenders)
    local total, text = M.strength(list, "defense")
    local parts = {}
    local drm = 0
    for _, u in ipairs(list) do
      if C.disrupted(u) then drm = drm + T.combat_drm.disrupted; parts[#parts + 1] = ("%d disrupted %s (12.1)"):format(T.combat_drm.disrupted, u.id); break end
    end
    drm = drm + side_drm(enemy, list, def_air, parts)
    return { total = total, text = text, drm = drm, parts = parts, col = M.column(total) }
  end
  local function prep_say(who, r)
    log.rule(rule, ("%s: strength %s, column %s%s"):format(who, r.text, col_name(r.col),
      #r.parts > 0 and ("; modifiers " .. table.concat(r.parts, ", ") .. (" (%+d)"):format(r.drm)) or "; no modifier"))
  end
  local function read(r, die)
    r.die = die
    r.net = r.die + r.drm
    r.res = M.read(r.col, r.net)
  end
  local function roll(who, r, purpose) read(r, dice.d6(purpose)) end
  local function say(who, r)
    log.rule(rule, ("%s: die %d%s = %d: %s"):format(who, r.die, r.drm ~= 0 and (" %+d"):format(r.drm) or "", r.net, r.res == "-" and "no effect" or r.res))
  end
  -- 13.7.B, 17.2.C: extra Soviet steps
  local function extras(a)
    local pf, flak = 0, 0
    if side == C.SOVIET then
      local town = false
      for k in pairs(T.panzerfaust.hexes) do if map.has(hex, k) then town = true end end
      if town and a.net == T.panzerfaust.roll then pf = 1 end
      for _, d in ipairs(defenders) do if C.is_flak(d) then flak = 1 end end
    end
    return pf, flak
  end

  local first = not spec.overrun and defender_first(hex, attackers)
  local a, d
  local out = { hex = hex }
  -- losses of the defending side: retreat conversion (13.5), steps (13.4.C)
  local function defender_losses(res)
    local n = nres(res)
    local texts = {}
    local list = alive(defenders)
    if n <= 0 then return texts, 0 end
    -- 13.5: units that retreated into this hex are eliminated by any step loss
    local newcomers, others = {}, {}
    for _, u in ipairs(list) do
      if u:marker("retreated") then newcomers[#newcomers + 1] = u else others[#others + 1] = u end
    end
    local hexes, steps = 0, n
    if can_retreat and #others > 0 then
      local max = by_mech and n - 1 or n
      hexes, steps = losses.split { side = enemy, n = n, max_hexes = max, rule = by_mech and "13.5.B" or "13.5.A" }
    end
    local star = res:find("*", 1, true) ~= nil
    if #others == 0 then
      -- 13.5: only units that retreated here this segment: all eliminated (reading: no KG)
      for _, u in ipairs(newcomers) do
        local t
        while u.exists and u.hex do t = kg.lose_step(u, { no_kg = "it retreated here this segment: no KG, 13.5" }) end
        texts[#texts + 1] = t .. " (it retreated here this segment, 13.5)"
      end
      return texts, 0
    end
    for _, t in ipairs(take_steps(enemy, #others > 0 and others or newcomers, steps, { by = side, star = star, hex = hex, rule = "13.4.C",
      current = function()
        local cur = {}
        for _, u in ipairs(M.defenders(hex, enemy)) do if #others == 0 or not u:marker("retreated") then cur[#cur + 1] = u end end
        return cur
      end })) do texts[#texts + 1] = t end
    if #others > 0 and steps > 0 then
      for _, u in ipairs(newcomers) do
        if u.exists and u.hex then
          local t
          while u.exists and u.hex do t = kg.lose_step(u, { no_kg = "it retreated here this segment: no KG, 13.5" }) end
          texts[#texts + 1] = t .. " (it retreated here this segment, 13.5)"
        end
      end
    end
    return texts, hexes
  end
  local function attacker_losses(res, pf, flak)
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
  local hexes = 0
  local A, D = side .. " (attacker)", enemy .. " (defender)"
  if first then
    log.rule("13.3", ("every attacking unit attacks across a major river in %s: the defender fires first"):format(C.weather()))
    d = defend_prep()
    prep_say(D, d)
    roll(D, d, ("%s's fire from %s"):format(enemy, hex))
    say(D, d)
    local at = attacker_losses(d.res, 0, 0)
    if #at > 0 then log.rule("13.4.C", side .. ": " .. table.concat(at, "; ")) end
    a = attack_prep()
    prep_say(A, a)
    roll(A, a, ("%s's fire on %s"):format(side, hex))
    say(A, a)
  else
    -- reading: the attacker's die is rolled first, then the defender's
    a = attack_prep()
    d = defend_prep()
    prep_say(A, a)
    prep_say(D, d)
  end
  local function outcome(pf, flak)
    return ("%s loses %s, %s loses %d%s%s"):format(enemy, a.res == "-" and "0" or a.res, side, nres(d.res),
      pf > 0 and " +1 Panzerfaust" or "", flak > 0 and " +1 flak" or "")
  end
  local pf, flak
  if first then
    pf, flak = extras(a)
    out.outcome = umpire.outcome(outcome(pf, flak))
  else
    -- both results read off the two dice (odds tabulates the 36 pairs in one run)
    out.outcome, pf, flak = umpire.outcome_of({ { "1d6", ("%s's fire on %s"):format(side, hex) }, { "1d6", ("%s's fire from %s"):format(enemy, hex) } },
      function(da, dd)
        read(a, da)
        read(d, dd)
        local p, f = extras(a)
        return outcome(p, f), p, f
      end)
    say(A, a)
    say(D, d)
  end
  if spec.on_result then spec.on_result() end   -- (after the outcome: `odds` never sees it)
  local dt
  dt, hexes = defender_losses(a.res)
  local at = attacker_losses(first and "-" or d.res, pf, flak)
  if #dt > 0 then log.rule("13.4.C", enemy .. ": " .. table.concat(dt, "; ")) end
  if #at > 0 then log.rule("13.4.C", side .. ": " .. table.concat(at, "; ")) end
  -- 13.5: the retreat
  out.path = {}
  if hexes > 0 then
    local list = alive(defenders)
    if #list > 0 then
      local path, left = retreat_units(list, hex, hexes, enemy)
      out.path = path
      log.rule("13.5", ("%s retreat%s %s%s"):format(C.ids(list), #list == 1 and "s" or "", #path > 0 and (hex .. " → " .. table.concat(path, " → ")) or "nowhere",
        left > 0 and ("; %d %s cannot be retreated and %s taken as steps (reading)"):format(left, C.plural(left, "hex", "hexes"), left == 1 and "is" or "are") or ""))
      if left > 0 then
        local lt = take_steps(enemy, list, left, { by = side, rule = "13.5" })
        if #lt > 0 then log.rule("13.5", table.concat(lt, "; ")) end
      end
      stacking.enforce(enemy, "the end of a retreat (5.1)")
    end
  end
  out.cleared = #M.defenders(hex, enemy) == 0
  out.a, out.d = a, d
  return out
end

-- 13.1.B, 6.9: the enemy hexes in the ZOC of the attacking units, other than the target.
local function zoc_hexes(attackers, target, side)
  local from = {}
  for _, u in ipairs(attackers) do
    if zoc.projects(u) and not C.URBAN[u.hex] and not C.FORTRESS[u.hex] then from[u.hex] = true end
  end
  local out = {}
  if not next(from) then return out end
  local z = map.adjacent { from = from, not_across = zoc.not_across(), not_into = { "urban", "fortress", "sea", "lake", "prohibited" } }
  for h in pairs(z) do
    if h ~= target and #M.defenders(h, C.other(side)) > 0 then out[#out + 1] = h end
  end
  table.sort(out)
  return out
end

-- May the side still attack `hex` (some friendly unit not yet attacked could)?
local function could_attack(hex, side)
  for _, n in ipairs(map.neighbours(hex)) do
    if M.hexside_open(n, hex) then
      local ok = {}
      for _, u in ipairs(C.combat_at(n, side)) do
        if not u:marker("attacked") and not u:marker("entrained") and not C.disrupted(u) and (u:value("attack") or 0) > 0 then
          ok[#ok + 1] = u
        end
      end
      if #ok > 1 or (#ok == 1 and not (C.is_infantry(ok[1]) and #C.combat_at(n, side) == 1)) then return true end
    end
  end
  return false
end

-- 13.1.A, 13.1.B, 13.1.C, 17.3.A, 10.8.2, 12.1, 16.2, 17.1.C: checks an attack; returns the
-- attacking hexes and whether Zhukov takes part.
local function check_attack(hex, list, side, s, check)
  check = check or umpire.check
  local enemy = C.other(side)
  local defenders = M.defenders(hex, enemy)
  check(#defenders > 0, "13.1", "%s holds no %s unit to attack", hex, enemy)
  if side == C.GERMAN then
    check(not (vars.get("usir_closed") and C.USIR[hex]), "17.1.C", "the USIR is being evacuated: no German attack into a USIR hex this turn")
  end
  local z = s.zhukov
  local second = z and z.hex == hex
  if (s.hexes[hex] or 0) > 0 then
    check(second, "13.1.A", "%s has been attacked this combat segment (a hex is attacked once, except Zhukov's second attack, 17.3.A)", hex)
    for _, u in ipairs(list) do
      check(C.contains(z.units, u.id), "17.3.A", "%s did not take part in the attack with Zhukov on %s: only those units attack it again", u.id, hex)
    end
  end
  local weather = C.weather()
  local zhukov, hexes, by_hex = false, {}, {}
  for _, u in ipairs(list) do
    check(u.side == side, "13.1", "%s is %s: the %s attacks now", u.id, u.side, side)
    check(u.hex ~= nil, "13.1", "%s is not on the map", u.id)
    check(C.is_combat(u) or C.is_artillery(u) or C.is_flak(u) or C.is_leader(u), "13.1", "%s (%s) does not attack", u.id, u.kind)
    check(not C.is_garrison(u), "16.2", "%s is a garrison: garrisons never attack", u.id)
    check(not u:marker("entrained"), "10.8.2", "%s is entrained: entrained units may not attack", u.id)
    check(not (C.disrupted(u) and not C.is_artillery(u)), "12.1", "%s is disrupted: disrupted units may not attack", u.id)
    if not second then
      check(not u:marker("attacked"), "13.1.A", "%s has attacked this combat segment (one attack a unit)", u.id)
    end
    check(map.direction(u.hex, hex) ~= nil, "13.1", "%s in %s is not next to %s", u.id, u.hex, hex)
    local ok, what = M.hexside_open(u.hex, hex, weather)
    check(ok, "13.1", "%s in %s attacks across a %s hexside: prohibited%s", u.id, u.hex, what or "?", what ~= "sea" and " except in Frost (10.5.2)" or "")
    if C.is_leader(u) then zhukov = u end
    if not by_hex[u.hex] then by_hex[u.hex] = {}; hexes[#hexes + 1] = u.hex end
    table.insert(by_hex[u.hex], u)
  end
  for _, d in ipairs(defenders) do
    if not second and not d:marker("retreated") then   -- 13.5: a unit that retreated here may be attacked again
      check(not d:marker("defended"), "13.1.A", "%s in %s has been attacked this combat segment (a unit is attacked once, except Zhukov's second attack, 17.3.A)", d.id, hex)
    end
  end
  table.sort(hexes)
  local multi = #hexes > 1
  for _, h in ipairs(hexes) do
    local l = by_hex[h]
    local strong, combat, mech, has_zhukov = false, 0, false, false
    for _, u in ipairs(l) do
      if (u:value("attack") or 0) >= 1 then strong = true end
      if C.is_combat(u) then combat = combat + 1 end
      if C.is_mech(u) then mech = true end
      if C.is_leader(u) then has_zhukov = true end
    end
    for _, u in ipairs(l) do
      -- 13.1.A: attack-0 units only with an attacking unit of attack 1+ of their hex (reading)
      if (u:value("attack") or 0) < 1 and not C.is_leader(u) then
        check(strong, "13.1.A", "%s has an attack strength of 0: it attacks only stacked with an attacking unit of attack 1 or more", u.id)
      end
    end
    -- 13.1.A: a single infantry unit in a hex (reading: the only friendly combat unit there; support
    -- units do not count) never attacks, except stacked with Zhukov in a multi-hex attack
    for _, u in ipairs(l) do
      if C.is_infantry(u) and #C.combat_at(h, side) == 1 then
        check(has_zhukov and multi, "13.1.A", "%s is the only combat unit in %s: a single infantry unit may not attack, not even with other hexes (unless stacked with Zhukov in a multi-hex attack, 17.3.A)", u.id, h)
      end
    end
    by_hex[h].mech = mech
  end
  if multi then
    -- 13.1.B, 6.9, 17.3.A
    for _, h in ipairs(hexes) do
      local near_z = zhukov and (h == zhukov.hex or map.distance(h, zhukov.hex) == 1)
      check(by_hex[h].mech or near_z, "13.1.B", "a multi-hex attack: %s has no attacking mechanized unit%s (6.9)", h,
        zhukov and " and is not Zhukov's hex or next to it (17.3.A)" or " (Zhukov not with it, 17.3.A)")
    end
  end
  return hexes, zhukov, multi, second
end

-- (the same checks, as a question: would `attack <hex> with <list>` pass them now? actions.lua)
function M.may_attack(hex, list, side)
  return C.passes(function(check) check_attack(hex, list, side, state(), check) end)
end

-- 13.1.B: the promised hexes still to attack before the segment may end (what end_segment refuses).
function M.open_promises(side)
  local s = state()
  local open = {}
  for h in pairs(s.promised or {}) do
    if not (s.hexes or {})[h] and #M.defenders(h, C.other(side)) > 0 and could_attack(h, side) then open[#open + 1] = h end
  end
  table.sort(open)
  return open
end

-- The hexes attacked this segment, and the last combat (for the advance, 13.6).
function M.segment_state() return state() end

-- The verb.
function M.attack(hex, list, air_flag, air_unit)
  local side = umpire.clock().side
  local enemy = C.other(side)
  local s = state()
  s.hexes = s.hexes or {}
  s.promised = s.promised or {}
  local hexes, zhukov, multi, second = check_attack(hex, list, side, s)
  -- the attacker's tactical air (17.4.C, 13.7.C, 17.1.A)
  local air
  if air_flag or air_unit then air = M.attacker_air(side, hex, air_unit) end
  -- 13.1.B, 6.9: the promise of a multi-hex attack
  local promised = {}
  if multi then
    for _, h in ipairs(zoc_hexes(list, hex, side)) do
      if not s.hexes[h] then promised[#promised + 1] = h; s.promised[h] = true end
    end
  end
  for _, u in ipairs(list) do u:set_marker("attacked", 1) end
  s.hexes[hex] = (s.hexes[hex] or 0) + 1
  s.promised[hex] = nil
  s.zhukov = nil
  s.last = nil
  if zhukov and not second then
    local ids = {}
    for _, u in ipairs(list) do ids[#ids + 1] = u.id end
    s.zhukov = { hex = hex, units = ids }
  end
  save(s)
  -- 17.7: a Hitler Mandated Attack, counted once the attack is fought (after its dice, so that
  -- `odds` does not show it made)
  local mandated
  if side == C.GERMAN then
    local all_sup, div = true, false
    for _, u in ipairs(list) do
      if not C.supplied(u) then all_sup = false end
      if u:attr("division") then div = true end
    end
    if all_sup and div and vars.get("hma") then
      mandated = function()
        local hma = vars.get("hma")
        hma.made = (hma.made or 0) + 1
        vars.set("hma", hma)
        log.rule("17.7", ("a Hitler Mandated Attack (supplied, with a division): %d of %d made"):format(hma.made, hma.required or 0))
      end
    end
  end
  log.rule("13.1", ("%s attacks %s (%s) from %s with %s%s%s%s"):format(side, hex, C.ids(M.defenders(hex, enemy)), table.concat(hexes, ", "), C.ids(list),
    air and (", tactical air " .. air.id) or "", second and ": Zhukov's second attack (17.3.A)" or "",
    #promised > 0 and ("; promised (13.1.B): " .. table.concat(promised, ", ") .. " will be attacked") or ""))
  local out = M.resolve { hex = hex, side = side, attackers = list, air = air, on_result = mandated }
  -- 13.6: what may advance
  s = state()
  local survivors = {}
  for _, u in ipairs(list) do if u.exists and u.hex then survivors[#survivors + 1] = u.id end end
  s.last = { hex = hex, units = survivors, path = out.path, cleared = out.cleared }
  save(s)
  if out.cleared and #survivors > 0 then
    log.rule("13.6", ("%s is vacated: %s may advance after combat (advance <units> %s%s)"):format(hex, table.concat(survivors, ","), hex,
      #out.path > 0 and (" [up to " .. #out.path .. " " .. C.plural(#out.path, "hex", "hexes") .. " along " .. hex .. " → " .. table.concat(out.path, " → ") .. " for mechanized units]") or ""))
  end
  if zhukov and not second and #C.at(hex, enemy) > 0 then
    log.rule("17.3.A", ("the units of the attack with Zhukov may attack %s again now (attack %s with ...)"):format(hex, hex))
  end
  return out.outcome
end

umpire.command {
  usage = "attack <hex> with <units> [air] [<unit>]",
  help = "attack the enemy units in a hex with adjacent units (from one hex, or from several per 13.1.B); 'air' commits a ready tactical air unit (the first ready one unless named)",
  example = "attack 4640 with 8GT,5GR,7GM,8GM air TAC1",
  rule = "13.1", phases = { "sov_combat", "ger_combat" }, odds = true,
  run = function(hex, list, air, unit) return M.attack(hex, list, air, unit) end,
}

-- 13.6: the advance after combat.
function M.advance(list, path)
  local s = state()
  local last = s.last
  umpire.check(last ~= nil, "13.6", "no combat to advance after: advances come right after a combat")
  local hex = last.hex
  local side = umpire.clock().side
  umpire.check(#C.at(hex, C.other(side)) == 0, "13.6", "%s is not vacated by the defenders", hex)
  umpire.check(path[1] == hex, "13.6.A", "the first hex of an advance is the defenders' hex %s", hex)
  local weather = C.weather()
  for _, u in ipairs(list) do
    umpire.check(C.contains(last.units, u.id) and u.exists and u.hex ~= nil, "13.6", "%s did not survive the last attack as an attacker (on %s)", u.id, hex)
    umpire.check(not u:marker("advanced"), "13.6", "%s has advanced after this combat", u.id)
    umpire.check(not C.is_garrison(u), "16.2", "garrisons do not advance")
    if #path > 1 then
      -- reading: only mechanized units follow up (cavalry and Zhukov enter the defenders' hex only)
      umpire.check(C.is_mech(u), "13.6", "%s is not a mechanized unit: it advances into the defenders' hex %s only (13.6.A, 13.6.B)", u.id, hex)
      umpire.check(#path <= #(last.path or {}), "13.6.B", "%s may advance %d %s (the length of the retreat)", u.id, #(last.path or {}) > 0 and #last.path or 1,
        C.plural(#(last.path or {}) > 0 and #last.path or 1, "hex", "hexes"))
      for i = 2, #path do
        umpire.check(path[i] == last.path[i - 1], "13.6.B", "a mechanized follow-up goes along the retreat path %s → %s", hex, table.concat(last.path, " → "))
      end
    end
    local from = u.hex
    local full = { from, table.unpack(path) }
    for i = 2, #full do
      umpire.check(not C.stops(side, full[i]), "13.6", "%s holds enemy units", full[i])   -- (refugees aside, 6.11)
      if i < #full and weather ~= "frost" and C.contains(map.hexside(full[i - 1], full[i]), "major_river") then
        umpire.refuse("13.6", ("%s crosses the major river %s/%s in %s: it stops in %s"):format(u.id, full[i - 1], full[i], weather, full[i]))
      end
    end
    if C.is_flak(u) and C.URBAN[path[#path]] then umpire.refuse("17.2.C", "flak units never enter urban hexes") end
  end
  -- 13.6, 5.1: the stacking limits at the end of the advance
  local rule, what = stacking.problem(path[#path], side, list)
  if rule then umpire.refuse(rule, ("the advance would overstack %s: %s (13.6)"):format(path[#path], what)) end
  local notes = {}
  for _, u in ipairs(list) do
    local from = u.hex
    local full = { from, table.unpack(path) }
    u:move_to(path[#path])
    u:set_marker("advanced", 1)
    for i = 2, #full do
      if weather ~= "frost" and C.contains(map.hexside(full[i - 1], full[i]), "major_river") and side == C.SOVIET then
        u:set_marker("immobile", 1)
        notes[#notes + 1] = u.id .. " crossed a major river: Immobile (10.7.1.B)"
      end
    end
    movement.entered(full, side, { u })
  end
  log.rule("13.6", ("%s advance%s %s (no MP; enemy ZOC ignored)%s"):format(C.ids(list), #list == 1 and "s" or "", table.concat(path, " → "),
    #notes > 0 and ("; " .. table.concat(notes, "; ")) or ""))
  stacking.enforce(side, "the end of an advance after combat (5.1)")
end

umpire.command {
  usage = "advance <units> <hex> [<hex>...]",
  help = "advance surviving attackers of the last combat into the vacated hex (mechanized units on along the defenders' retreat path)",
  example = "advance 8GT,7GM 4640 4540",
  rule = "13.6", phases = { "sov_combat", "ger_combat" },
  run = function(list, hex, more)
    local path = { hex }
    for _, h in ipairs(more or {}) do path[#path + 1] = h end
    M.advance(list, path)
  end,
}

-- 13.1.B, 6.9: at the end of the segment every promised hex has been attacked, or nobody could.
function M.end_segment(side)
  local s = state()
  local open, lapsed = {}, {}
  for h in pairs(s.promised or {}) do
    if not (s.hexes or {})[h] and #M.defenders(h, C.other(side)) > 0 then
      if could_attack(h, side) then open[#open + 1] = h else lapsed[#lapsed + 1] = h end
    end
  end
  table.sort(open); table.sort(lapsed)
  if #open > 0 then
    umpire.refuse("13.1.B", ("a multi-hex attack promised that %s would be attacked this combat segment (6.9): attack %s first"):format(
      table.concat(open, ", "), #open == 1 and "it" or "them"))
  end
  if #lapsed > 0 then
    log.rule("13.1.B", ("reading: the promise to attack %s lapses: no %s unit can still attack %s"):format(table.concat(lapsed, ", "), side, #lapsed == 1 and "it" or "them"))
  end
  stacking.enforce(C.SOVIET, "the end of the combat segment (5.1)")
  stacking.enforce(C.GERMAN, "the end of the combat segment (5.1)")
  vars.set("cs", nil)
end

return M
