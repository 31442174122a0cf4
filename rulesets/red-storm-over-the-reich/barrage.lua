-- Red Storm over the Reich 11 and 12: barrages by artillery, naval and air units on the Barrage
-- Table (11.0-11.5, 17.1.A, 17.4.B), and disruption: its effects, how it spreads to units that end
-- a move with a disrupted one, its removal, and the replenishment of Used support units (12.0-12.2,
-- 11.2-11.4, 9.3).
local C = require "common"
local T = require "tables"
local zoc = require "zoc"
local kg = require "kg"
local losses = require "losses"   -- rulesets/lib
local supply = require "supply"
local logistics = require "logistics"

local M = {}

-- 12.0: units that never become disrupted.
local IMMUNE = { leader = true, refugee = true, air = true, tacair = true, transport = true, naval = true }
-- 11.0: what a barrage affects.
local function affected(u)
  return C.is_combat(u) or C.is_flak(u) or C.is_garrison(u) or C.is_artillery(u)
end

-- 12.1: disrupts `u`; artillery is flipped to its Used side instead. Returns a word or nil.
function M.disrupt(u)
  if IMMUNE[u.kind] then return nil end
  if C.is_artillery(u) then
    if u:marker("used") then return nil end
    u:set_marker("used", 1)
    return u.id .. " (flipped to Used)"
  end
  if C.disrupted(u) then return nil end
  u:set_marker("disrupted", 1)
  return u.id
end

-- 12.0: a unit that ends its move stacked with a disrupted friendly unit is disrupted too.
function M.joined(u)
  if not u.hex or IMMUNE[u.kind] or C.disrupted(u) then return end
  for _, v in ipairs(C.at(u.hex, u.side)) do
    if v ~= u and C.disrupted(v) then
      local d = M.disrupt(u)
      if d then log.rule("12.0", ("%s ends its move with the disrupted %s: %s is disrupted"):format(u.id, v.id, d)) end
      return
    end
  end
end

-- The side whose barrage units fire in the current step.
local FIRING = { sov_barrage = "Soviet", sov_barrage_ger = "German", ger_barrage = "German", ger_barrage_sov = "Soviet" }
M.STEPS = { "sov_barrage", "sov_barrage_ger", "ger_barrage", "ger_barrage_sov" }

-- 2.2.B, 11.0: barrage units: artillery, air (Rudel among them) and the two naval units.
function M.is_barrage_unit(u)
  return (C.is_artillery(u) or C.is_air(u) or C.is_naval(u)) and u:attr("barrage") ~= nil
end

-- 11.4: the friendly-controlled, supplied urban, city and town hexes air barrages range from.
---@param side string
---@return table<string, boolean> the supplied ones
local function air_bases(side)
  local list, seen = {}, {}
  for _, set in ipairs { C.URBAN, C.CITY, C.TOWN } do
    for h in pairs(set) do
      if not seen[h] and C.controller(h) == side then seen[h] = true; list[#list + 1] = h end
    end
  end
  table.sort(list)
  return supply.traceable(side, list)
end

-- 11.3: the Baltic coastal hexes without Soviet units (where a naval unit may fire from; stacks:
-- the map's stacks where the caller has them).
local function free_coast(stacks)
  local out = {}
  for b in pairs(C.COAST) do
    if #C.at(b, C.SOVIET, nil, stacks and (stacks[b] or {})) == 0 then out[b] = true end
  end
  return out
end

-- Why `u` cannot barrage `hex` now (nil if it can), and the hex it fires from (the nearest base
-- within range; of two as near, the one whose id sorts first). `known`: a table a caller
-- checking many barrages keeps for all of them (actions.lua): the clock, the hexes barraged, the
-- map's stacks, the air bases of the firing side (11.4) and the coastal hexes a naval unit may
-- fire from (11.3) are found once and kept in it.
local NONE = {}
function M.why_not(u, hex, from, known)
  local many = known ~= nil
  known = known or {}
  known.clock = known.clock or umpire.clock()
  if many then known.stacks = known.stacks or units.stacks() end
  local side = FIRING[known.clock.step]
  local turn = known.clock.turn
  if not side then return "11.0", "barrages are fired in the barrage steps of the combat segments", nil end
  if u.side ~= side then return "11.0", ("%s is %s: now the %s barrage units fire (the active player first, then the other, 11.0)"):format(u.id, u.side, side) end
  if not M.is_barrage_unit(u) then return "11.0", u.id .. " is not a barrage unit (artillery, air barrage or naval, 2.2.B)" end
  if u:marker("used") then return "11.0", u.id .. " is on its Used side" end
  known.barraged = known.barraged or vars.get("barraged") or {}
  if known.barraged[hex] then return "11.0", hex .. " has been barraged this combat segment (one barrage a hex)" end
  local targets = C.at(hex, C.other(side), affected, known.stacks and (known.stacks[hex] or NONE))
  if #targets == 0 then return "11.0", ("%s holds no %s combat, flak, garrison or artillery unit to barrage"):format(hex, C.other(side)) end
  if side == C.SOVIET and C.USIR[hex] and C.URBAN[hex] then return "17.1.A", "the Soviet may not barrage a USIR urban hex" end
  local range = u:attr("range") or 0
  if C.is_artillery(u) then
    if not u.hex then return "11.2", u.id .. " is not on the map" end
    local d = map.distance(u.hex, hex)
    if d > range then return "11.2", ("%s is %d hexes from %s: its range is %d"):format(hex, d, u.hex, range) end
    return nil, nil, u.hex
  elseif C.is_air(u) then
    if side == C.SOVIET and C.weather(turn) == "mud" then return "9.1.C", "no Soviet air unit flies in Mud (turns 3 and 4, 11.4, 17.4.A)" end
    if u:attr("only_turn") and turn ~= u:attr("only_turn") then return "11.5", ("%s flies on turn %d only"):format(u.id, u:attr("only_turn")) end
    known.air_bases = known.air_bases or map.hexset(air_bases(side))   -- (read once for every target)
    local base, d = map.nearest(hex, known.air_bases)
    if not base or d > range then return "11.4", ("%s is not within %d hexes of a supplied %s-controlled urban, city or town hex"):format(hex, range, side) end
    return nil, nil, base
  else
    -- 11.3: from a Baltic coastal hex (not only a Haff one) without Soviet units
    if from then
      if not C.COAST[from] then return "11.3", from .. " is not a Baltic Sea coastal hex" end
      if #C.at(from, C.SOVIET) > 0 then return "11.3", from .. " holds Soviet units" end
      if map.distance(from, hex) > range then return "11.3", ("%s is more than %d hexes from %s"):format(hex, range, from) end
      return nil, nil, from
    end
    known.free_coast = known.free_coast or map.hexset(free_coast(known.stacks))
    local base, d = map.nearest(hex, known.free_coast)
    if not base or d > range then return "11.3", ("no Baltic coastal hex without Soviet units lies within %d hexes of %s"):format(range, hex) end
    return nil, nil, base
  end
end

-- 11.1: the terrain modifier of the target hex (-1 or -2).
---@param hex string the target
---@param side string the side firing
---@return integer
local function terrain_drm(hex, side)
  local d = T.combat_drm.hex[map.terrain(hex)] or 0
  for _, f in ipairs { "city", "fortress" } do
    if map.has(hex, f) then d = d + T.combat_drm.hex[f] end
  end
  if side == C.SOVIET and supply.intact_dw(hex) then d = d + T.combat_drm.hex.dw end
  return math.max(d, T.barrage_drm.terrain_max)
end

local function read(class, net)
  local row = T.barrage[class]
  net = math.max(T.barrage_rolls.min, math.min(T.barrage_rolls.max, net))
  return row[net - T.barrage_rolls.min + 1]
end

-- 11.1: fires `u` at `hex`. Returns the result ("no effect", "D", "1*"...), declared as the
-- outcome once the die is read (`odds barrage` stops there: docs/lua-api.md §2.3).
function M.fire(u, hex, from)
  local rule, why, base = M.why_not(u, hex, from)
  if rule then umpire.refuse(rule, why) end
  local side = u.side
  local enemy = C.other(side)
  local die = dice.d6(("barrage of %s on %s"):format(u.id, hex))
  local mods, parts = 0, {}
  local friend_next = false
  for _, n in ipairs(map.neighbours(hex)) do
    if #C.combat_at(n, side) > 0 then friend_next = true break end
  end
  if not friend_next then mods = mods + T.barrage_drm.alone; parts[#parts + 1] = ("%d no %s combat unit next to it"):format(T.barrage_drm.alone, side) end
  local t = terrain_drm(hex, side)
  if t ~= 0 then mods = mods + t; parts[#parts + 1] = ("%d terrain"):format(t) end
  local class = u:attr("barrage")
  local net = die + mods
  local result = read(class, net)
  umpire.outcome(result == "-" and "no effect" or result)
  local marked = vars.get("barraged") or {}
  marked[hex] = true
  vars.set("barraged", marked)
  log.rule("11.1", ("%s (class %s%s) barrages %s: die %d%s = %d: %s"):format(u.id, class,
    base ~= u.hex and (", from " .. base) or "", hex, die,
    #parts > 0 and (" " .. table.concat(parts, ", ")) or "", net, result == "-" and "no effect" or result))
  M.apply(hex, enemy, result, "11.1")
  -- 11.2-11.4: the barrage unit goes to its Used side (air and naval units back to the box)
  u:set_marker("used", 1)
  if not u.hex then
    log.rule(C.is_naval(u) and "11.3" or "11.4", ("%s returns to the holding box on its Used side"):format(u.id))
  end
  if u:attr("only_turn") then
    u:put_in("removed")
    log.rule("11.5", "Rudel has flown his one mission: removed from the game")
  end
  return result == "-" and "no effect" or result
end

-- 11.1, 12.1, 16.1.A: a Barrage Table result on the `side` units in `hex`: "D" disrupts them; a
-- number is steps lost (the owner's choice, the Vistula division first, 17.2.A) and the rest
-- disrupted (DATA.md); "*" may leave a Kampfgruppe. Entrained units hit lose their marker (10.8.2).
function M.apply(hex, side, result, rule)
  if result == "-" then return end
  local list = C.at(hex, side, affected)
  local n = tonumber(result:match("%d+") or "0")
  local star = result:find("*", 1, true) ~= nil
  local texts = {}
  if n > 0 then
    local ctx = { combat = side == C.GERMAN, eliminated = {} }
    losses.allocate { side = side, n = n, units = list, rule = rule,
      prompt = ("barrage result %s in %s"):format(result, hex),
      eligible = function(v)
        -- 17.2.A: the Vistula division goes first
        for _, w in ipairs(list) do
          if w.exists and w.hex == hex and w:attr("vistula") and w ~= v then return false end
        end
        return true
      end,
      lose = function(v) texts[#texts + 1] = kg.lose_step(v, ctx) end }
    if star and side == C.GERMAN then
      local t = kg.form_kg(hex, ctx.eliminated)
      if t then texts[#texts + 1] = t end
    end
  end
  local dis = {}
  for _, v in ipairs(C.at(hex, side, affected)) do
    local d = M.disrupt(v)
    if d then dis[#dis + 1] = d end
  end
  if #dis > 0 then texts[#texts + 1] = "disrupted: " .. table.concat(dis, ", ") .. " (12.1)" end
  for _, v in ipairs(C.at(hex, side)) do
    if v:marker("entrained") then
      v:set_marker("entrained", nil)
      texts[#texts + 1] = v.id .. " loses its Entrained marker (10.8.2)"
    end
  end
  if #texts > 0 then log.rule(rule, table.concat(texts, "; ")) end
end

-- 17.3.B: Heinrici. From turn 6 until he is used, the Soviet declares all his barrages of a
-- barrage step before any is fired (`barrage` records them, `fire` or the end of the step fires
-- them); the German may then cancel one Soviet artillery barrage, or two whose target hexes are
-- within 3 hexes of each other (reading: the distance is between the target hexes), and Heinrici
-- leaves the game. Reading: a cancelled barrage still costs the artillery its Ready side and
-- counts as the one barrage of its hex.
function M.heinrici_available()
  if umpire.clock().turn < T.heinrici_from then return false end
  local h = units.get("HEINRICI")
  return h ~= nil and h.box == "german_box"
end

M.FIRING = FIRING

local function declaring()
  return FIRING[umpire.clock().step] == C.SOVIET and M.heinrici_available()
end

function M.declare(u, hex, from)
  local list = vars.get("heinrici_declared") or {}
  for _, d in ipairs(list) do
    if d.unit == u.id then umpire.refuse("11.0", u.id .. " has declared a barrage already") end
    if d.hex == hex then umpire.refuse("11.0", hex .. " has a barrage declared on it already (one barrage a hex)") end
  end
  local rule, why = M.why_not(u, hex, from)
  if rule then umpire.refuse(rule, why) end
  list[#list + 1] = { unit = u.id, hex = hex, from = from }
  vars.set("heinrici_declared", list)
  log.rule("17.3.B", ("%s declares a barrage on %s (with Heinrici available every Soviet barrage is declared before any is fired; `fire` fires them)"):format(u.id, hex))
end

-- 17.3.B: the German's choice, then the declared barrages in their order.
function M.fire_declared()
  local list = vars.get("heinrici_declared")
  if not list or #list == 0 then vars.set("heinrici_declared", nil) return end
  vars.set("heinrici_declared", nil)
  local art = {}
  for i, d in ipairs(list) do
    if C.is_artillery(units.get(d.unit)) then art[#art + 1] = i end
  end
  local options, by = { "none" }, { none = {} }
  for a = 1, #art do
    local d = list[art[a]]
    local key = d.unit .. "@" .. d.hex
    options[#options + 1] = key; by[key] = { art[a] }
  end
  for a = 1, #art do
    for b = a + 1, #art do
      local d, e = list[art[a]], list[art[b]]
      if map.distance(d.hex, e.hex) <= T.heinrici_spread then
        local key = d.unit .. "@" .. d.hex .. "+" .. e.unit .. "@" .. e.hex
        options[#options + 1] = key; by[key] = { art[a], art[b] }
      end
    end
  end
  local cancel = {}
  if #options > 1 then
    local pick = umpire.ask { prompt = ("Heinrici: cancel one Soviet artillery barrage, or two whose targets are within %d hexes of each other (once a game)?"):format(T.heinrici_spread),
      side = C.GERMAN, rule = "17.3.B", options = options, default = "none" }
    for _, i in ipairs(by[pick]) do cancel[i] = true end
  end
  if next(cancel) then
    local texts = {}
    local marked = vars.get("barraged") or {}
    for i in pairs(cancel) do
      local d = list[i]
      units.get(d.unit):set_marker("used", 1)
      marked[d.hex] = true
      texts[#texts + 1] = ("%s on %s"):format(d.unit, d.hex)
    end
    vars.set("barraged", marked)
    units.get("HEINRICI"):put_in("removed")
    log.rule("17.3.B", ("Heinrici cancels the barrage%s of %s (the artillery goes to its Used side); Heinrici leaves the game"):format(
      #texts > 1 and "s" or "", table.concat(texts, " and ")))
  end
  for i, d in ipairs(list) do
    if not cancel[i] then
      local u = units.get(d.unit)
      local rule, why = M.why_not(u, d.hex, d.from)
      if rule then
        log.rule(rule, ("the declared barrage of %s on %s is not fired: %s"):format(d.unit, d.hex, why))
      else
        M.fire(u, d.hex, d.from)
      end
    end
  end
end

M.declaring = declaring

umpire.command {
  usage = "barrage <unit> <hex> [from] [<base:hex>]",
  help = "fire a ready artillery, air or naval barrage unit at a hex in range (a naval unit from a Baltic coastal hex: the nearest one unless given); with Heinrici available (turn 6 on) a Soviet barrage is only declared, then `fire`",
  example = "barrage ART3G 5038      barrage SCHEER 1610 from 1509",
  rule = "11.1", phases = M.STEPS, odds = true,
  run = function(u, hex, _, from)
    if declaring() then M.declare(u, hex, from) return nil end
    return M.fire(u, hex, from)
  end,
}

umpire.command {
  usage = "fire",
  help = "Soviet, with Heinrici available: fire the declared barrages (the German may first cancel one or two artillery barrages with Heinrici)",
  example = "fire",
  rule = "17.3.B", phases = { "sov_barrage", "ger_barrage_sov" },
  run = function()
    umpire.check(#(vars.get("heinrici_declared") or {}) > 0, "17.3.B", "no barrage has been declared")
    M.fire_declared()
  end,
}

-- The combat segment's barrages start afresh (one a hex, 11.0).
function M.begin_segment() vars.set("barraged", nil); vars.set("heinrici_declared", nil) end

-- Whether `side` has a barrage unit that could fire (to skip an empty barrage step).
function M.any_ready(side)
  for _, u in ipairs(units.all { side = side }) do
    if M.is_barrage_unit(u) and not u:marker("used") and u.box ~= "removed" and u.box ~= "reinforcements" and u.box ~= "eliminated" then
      return true
    end
  end
  return false
end

-- 12.2, 11.2, 11.3, 11.4, 10.8.1, 9.3: the Joint Disruption Removal and Artillery Replenishment
-- Segment.
function M.joint_removal()
  local ez = {}   -- each side's enemy ZOC
  for _, side in ipairs(C.SIDES) do ez[side] = zoc.zoc(C.other(side)) end
  local sls = logistics.sls_active()
  local cleared, ready, kept = {}, {}, {}
  for _, u in ipairs(units.all {}) do
    if u.hex and C.disrupted(u) and not ez[u.side][u.hex] then
      u:set_marker("disrupted", nil)
      cleared[#cleared + 1] = u
    end
    if u:marker("used") then
      if u.hex and C.is_artillery(u) then
        if not C.supplied(u) or ez[u.side][u.hex] then
          -- stays Used
        elseif sls and u.side == C.SOVIET and C.WEST_OF_SLS[u.hex] then
          kept[#kept + 1] = u
        else
          u:set_marker("used", nil); ready[#ready + 1] = u
        end
      elseif (not u.hex or C.is_transport(u)) and u.box ~= "removed" and u.box ~= "eliminated" then
        -- 11.2, 10.8.1: the holding box's support units, and every Sea Transport (one left
        -- in a port on a delayed evacuation too)
        u:set_marker("used", nil); ready[#ready + 1] = u
      end
    end
  end
  log.rule("12.2", ("disruption removed from %s not in an enemy ZOC%s"):format(C.count(#cleared, "unit"),
    #cleared > 0 and (" (" .. C.ids(cleared) .. ")") or ""))
  if #ready > 0 then log.rule("11.2", ("back to their Ready side: %s"):format(C.ids(ready))) end
  if #kept > 0 then log.rule("9.3", ("the logistical strain keeps %s Used (west of the SLS line)"):format(C.ids(kept))) end
end

return M
