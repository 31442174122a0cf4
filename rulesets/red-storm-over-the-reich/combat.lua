-- Red Storm over the Reich 13 (and 6.9, 10.8.2, 12.1, 16.2, 17.1.C, 17.3.A, 17.4.C, 17.7): combat.
-- The attack verb (who may attack what, 13.1), multi-hex attacks and their promise (13.1.B, 6.9),
-- Zhukov's second attack (17.3.A), Hitler Mandated Attacks made (17.7), the advance after combat
-- (13.6) and the end of the segment. The combat itself (13.3-13.5, 13.7) is resolution.lua's
-- (resolution.resolve, shared with the overruns of overrun.lua, 14.2).
--
-- State of a combat segment (vars "cs"): hexes attacked, promised hexes (13.1.B), the last combat
-- (for the advance), Zhukov's second attack. Unit markers: `attacked` (attacked this segment),
-- `defended` (was attacked), `retreated` (retreated into its hex this segment, 13.5), `advanced`.
local C = require "common"
local zoc = require "zoc"
local stacking = require "stacking"
local movement = require "movement"
local resolution = require "resolution"

local M = {}

local MARKERS = { "attacked", "defended", "retreated", "advanced", "overran" }

-- The state of the combat segment (vars "cs").
---@return table
local function state() return vars.get("cs") or { hexes = {}, promised = {} } end
---@param s table
local function save(s) vars.set("cs", s) end

-- 13.0: a combat segment of `side` begins: last segment's combat markers come off.
---@param side string
function M.begin_segment(side)
  for _, u in ipairs(units.all {}) do
    for _, m in ipairs(MARKERS) do if u:marker(m) then u:set_marker(m, nil) end end
  end
  vars.set("cs", { hexes = {}, promised = {}, side = side })
end

-- 13.1.B, 6.9: the enemy hexes in the ZOC of the attacking units, other than the target.
---@param attackers Unit[]
---@param target string
---@param side string the attacker
---@return string[]
local function zoc_hexes(attackers, target, side)
  local from = {}
  for _, u in ipairs(attackers) do
    if zoc.projects(u) and not C.URBAN[u.hex] and not C.FORTRESS[u.hex] then from[u.hex] = true end
  end
  local out = {}
  if not next(from) then return out end
  local z = map.adjacent { from = from, not_across = zoc.not_across(), not_into = { "urban", "fortress", "sea", "lake", "prohibited" } }
  for h in pairs(z) do
    if h ~= target and #resolution.defenders(h, C.other(side)) > 0 then out[#out + 1] = h end
  end
  table.sort(out)
  return out
end

-- May the side still attack `hex` (some friendly unit not yet attacked could)?
---@param hex string
---@param side string
---@return boolean
local function could_attack(hex, side)
  for _, n in ipairs(map.neighbours(hex)) do
    if resolution.hexside_open(n, hex) then
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
---@param hex string the target
---@param list Unit[] the attackers
---@param side string
---@param s table the segment's state
---@param check? function umpire.check, or the checker of C.passes
---@return string[] hexes
---@return Unit|false zhukov
---@return boolean multi
---@return boolean second (Zhukov's second attack, 17.3.A)
local function check_attack(hex, list, side, s, check)
  check = check or umpire.check
  local enemy = C.other(side)
  local defenders = resolution.defenders(hex, enemy)
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
  local zhukov, hexes, by_hex = false, {}, {}
  for _, u in ipairs(list) do
    check(u.side == side, "13.1", "%s is %s: the %s attacks now", u.id, u.side, side)
    check(u.hex ~= nil, "13.1", "%s is not on the map", u.id)
    check(not C.is_garrison(u), "16.2", "%s is a garrison: garrisons never attack", u.id)
    check(C.is_combat(u) or C.is_artillery(u) or C.is_flak(u) or C.is_leader(u), "13.1", "%s (%s) does not attack", u.id, u.kind)
    check(not u:marker("entrained"), "10.8.2", "%s is entrained: entrained units may not attack", u.id)
    check(not (C.disrupted(u) and not C.is_artillery(u)), "12.1", "%s is disrupted: disrupted units may not attack", u.id)
    if not second then
      check(not u:marker("attacked"), "13.1.A", "%s has attacked this combat segment (one attack a unit)", u.id)
    end
    check(map.direction(u.hex, hex) ~= nil, "13.1", "%s in %s is not next to %s", u.id, u.hex, hex)
    local ok, what = resolution.hexside_open(u.hex, hex)   -- (it reads the weather where it matters)
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
    -- 13.1.A: attack-0 units only with an attacking unit of attack 1+ of their hex (reading): in a
    -- hex without one, every attacking unit but Zhukov has an attack of 0
    if not strong then
      for _, u in ipairs(l) do
        check(C.is_leader(u), "13.1.A", "%s has an attack strength of 0: it attacks only stacked with an attacking unit of attack 1 or more", u.id)
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
---@param hex string
---@param list Unit[]
---@param side string
---@return boolean
function M.may_attack(hex, list, side)
  return C.passes(function(check) check_attack(hex, list, side, state(), check) end)
end

-- 13.1.B: the promised hexes still to attack before the segment may end (what end_segment refuses).
---@param side string
---@return string[]
function M.open_promises(side)
  local s = state()
  local open = {}
  for h in pairs(s.promised or {}) do
    if not (s.hexes or {})[h] and #resolution.defenders(h, C.other(side)) > 0 and could_attack(h, side) then open[#open + 1] = h end
  end
  table.sort(open)
  return open
end

-- The hexes attacked this segment, and the last combat (for the advance, 13.6).
---@return table
function M.segment_state() return state() end

-- 13.1: the verb `attack`: checks the attack, records it (and the promise of a multi-hex attack,
-- 13.1.B), resolves it (resolution.resolve) and says what may advance (13.6).
---@param hex string
---@param list Unit[]
---@param air_flag? string "air"
---@param air_unit? Unit
---@return string the outcome
function M.attack(hex, list, air_flag, air_unit)
  local side = umpire.clock().side
  local enemy = C.other(side)
  local s = state()
  s.hexes = s.hexes or {}
  s.promised = s.promised or {}
  local hexes, zhukov, multi, second = check_attack(hex, list, side, s)
  -- the attacker's tactical air (17.4.C, 13.7.C, 17.1.A)
  local air
  if air_flag or air_unit then air = resolution.attacker_air(side, hex, air_unit) end
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
  log.rule("13.1", ("%s attacks %s (%s) from %s with %s%s%s%s"):format(side, hex, C.ids(resolution.defenders(hex, enemy)), table.concat(hexes, ", "), C.ids(list),
    air and (", tactical air " .. air.id) or "", second and ": Zhukov's second attack (17.3.A)" or "",
    #promised > 0 and ("; promised (13.1.B): " .. table.concat(promised, ", ") .. " will be attacked") or ""))
  local out = resolution.resolve { hex = hex, side = side, attackers = list, air = air, on_result = mandated }
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
---@param list Unit[]
---@param path string[]
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
    if #path > 1 then
      -- reading: only mechanized units follow up (cavalry and Zhukov enter the defenders' hex only)
      umpire.check(C.is_mech(u), "13.6", "%s is not a mechanized unit: it advances into the defenders' hex %s only (13.6.A, 13.6.B)", u.id, hex)
      local most = math.max(#(last.path or {}), 1)   -- (the defenders' hex at least)
      umpire.check(#path <= #(last.path or {}), "13.6.B", "%s may advance %d %s (the length of the retreat)", u.id, most, C.plural(most, "hex", "hexes"))
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
---@param side string
function M.end_segment(side)
  local s = state()
  local open, lapsed = {}, {}
  for h in pairs(s.promised or {}) do
    if not (s.hexes or {})[h] and #resolution.defenders(h, C.other(side)) > 0 then
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
