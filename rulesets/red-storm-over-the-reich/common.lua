-- Red Storm over the Reich: what every rule area asks of a unit or a hex — sides, unit classes
-- (2.2), the weather (9.1), supply and disruption states, hex control, and the map's fixed sets,
-- built once when the rules load (the map never changes; the lists are read-only during play).
local T = require "tables"
local sets = require "sets"     -- rulesets/lib
local words = require "words"   -- rulesets/lib
local checks = require "checks" -- rulesets/lib

local C = {}

C.SOVIET, C.GERMAN = "Soviet", "German"
C.SIDES = { C.SOVIET, C.GERMAN }
-- The other side: the enemy of `side`.
---@param side string
---@return string
function C.other(side) return side == C.SOVIET and C.GERMAN or C.SOVIET end

local set_of = sets.set_of
C.set_of = set_of

-- The map's fixed sets.
C.URBAN = set_of(map.having("urban"))
C.CITY = set_of(map.having("city"))
C.TOWN = set_of(map.having("town"))
C.FORTRESS_LIST = map.having("fortress")
C.FORTRESS = set_of(C.FORTRESS_LIST)
C.PORT_LIST = map.having("port")
C.PORT = set_of(C.PORT_LIST)
C.RAIL_LIST = map.having("railroad")
C.RAIL = set_of(C.RAIL_LIST)
C.DW_LIST = map.having("dw")
C.DW = set_of(C.DW_LIST)
C.PROHIBITED = {}
for name in pairs(T.prohibited_terrain) do
  for _, h in ipairs(map.having(name)) do C.PROHIBITED[h] = true end
end
C.PROHIBITED_LIST = {}
for h in pairs(C.PROHIBITED) do C.PROHIBITED_LIST[#C.PROHIBITED_LIST + 1] = h end
local function area(name) return set_of(map.area(name) or {}) end
C.BERLIN = area("berlin")
C.USIR = area("usir")
C.WEST_OF_SLS = area("west_of_sls")
C.COAST = area("baltic_coast")
C.HAFF = area("haff_coast")
C.VP = {}
C.VP_LIST = {}
for h in pairs(map.valued("vp")) do C.VP[h] = true; C.VP_LIST[#C.VP_LIST + 1] = h end
table.sort(C.VP_LIST)
-- 7.3: the map-edge supply sources: the west edge for the German; the east and north land edges
-- for the Soviet, without 4601 (Memel's road, 8.1.1.B).
local function land(list)
  local out = {}
  for _, h in ipairs(list or {}) do if not C.PROHIBITED[h] then out[#out + 1] = h end end
  return out
end
C.EDGE = {
  German = land(map.area("edge:W")),
  Soviet = {},
}
for _, a in ipairs { "edge:E", "edge:N" } do
  for _, h in ipairs(land(map.area(a))) do
    if h ~= T.supply.not_soviet_source then C.EDGE.Soviet[#C.EDGE.Soviet + 1] = h end
  end
end
C.EDGE_SET = { German = set_of(C.EDGE.German), Soviet = set_of(C.EDGE.Soviet) }
C.SOUTH_EDGE = land(map.area("edge:S"))
-- Major-river hexsides, both ways ("A/B" and "B/A"), for 10.7.1.
C.HEXES = set_of(map.hexes())
C.MAJOR_RIVER = {}
C.MAJOR_RIVER_EDGE = {}   -- those along the map's edge (one hex off the map), by the hex on it
for _, s in ipairs(map.hexsides_having("major_river")) do
  if C.HEXES[s[1]] and C.HEXES[s[2]] then
    C.MAJOR_RIVER[#C.MAJOR_RIVER + 1] = s
  else
    C.MAJOR_RIVER_EDGE[C.HEXES[s[1]] and s[1] or s[2]] = true
  end
end

-- 3.2-3.4: the scenario's last turn (its var `turns`, 8 where a scenario does not set it).
function C.last_turn() return vars.get("turns") or 8 end

-- 9.1: the weather of a turn.
function C.weather(turn)
  turn = turn or umpire.clock().turn
  return T.weather[turn] or T.weather_later
end

-- 2.2.A: combat units are infantry, mechanized and anti-tank units (and the Soviet guard cavalry,
-- combat units that move as mechanized, 10.7.2); everything else is a support unit (2.2.B).
C.COMBAT_KINDS = { "infantry", "mech", "cavalry", "antitank" }   -- (for units.all to filter in Rust)
local COMBAT = {}
for _, k in ipairs(C.COMBAT_KINDS) do COMBAT[k] = true end
function C.is_combat(u) return COMBAT[u.kind] == true end
function C.is_mech(u) return u.kind == "mech" end
function C.is_infantry(u) return u.kind == "infantry" end
function C.is_cavalry(u) return u.kind == "cavalry" end
function C.is_artillery(u) return u.kind == "artillery" end
function C.is_garrison(u) return u.kind == "garrison" end
function C.is_flak(u) return u.kind == "flak" end
function C.is_refugee(u) return u.kind == "refugee" end
function C.is_leader(u) return u.kind == "leader" end
function C.is_air(u) return u.kind == "air" end
function C.is_tacair(u) return u.kind == "tacair" end
function C.is_naval(u) return u.kind == "naval" end
function C.is_transport(u) return u.kind == "transport" end
function C.is_guards_rifle(u) return u.kind == "infantry" and u:attr("ma") == "guards" end
function C.is_bunker(u) return u.id == "BUNKER" end
-- 10.3: a unit with a printed movement allowance (not read off the Movement Point Track).
function C.printed_ma(u) return u:value("move") end
-- 16.1: a German infantry division's Kampfgruppe face (the second of its two faces) or a unit
-- that begins as a Kampfgruppe; the mechanized Kampfgruppen of 16.1.B.
function C.is_kg(u)
  if u:attr("starts_kg") or u:attr("mech_kg") then return true end
  return u:attr("kg") ~= nil and u.step == 2
end

-- 7.4: units that are always in supply.
local ALWAYS = { air = true, garrison = true, leader = true, naval = true, refugee = true, tacair = true, transport = true }
function C.always_supplied(u) return ALWAYS[u.kind] == true end
-- The supply state found in the unit's side's last supply segment (7.0): marker `oos`.
function C.supplied(u) return C.always_supplied(u) or not u:marker("oos") end
function C.disrupted(u) return u:marker("disrupted") ~= nil end

-- Units on the map.
function C.on_map(side, pred)
  local all = units.all { side = side, on_map = true }
  if not pred then return all end
  local out = {}
  for _, u in ipairs(all) do
    if pred(u) then out[#out + 1] = u end
  end
  return out
end
-- The units of `side` (nil: any) in `hex` that pass `pred` (nil: all), top first (`stack`: the
-- hex's stack where the caller has it, units.stacks()[hex] or {}).
function C.at(hex, side, pred, stack)
  local out = {}
  for _, u in ipairs(stack or units.at(hex)) do
    if (side == nil or u.side == side) and (pred == nil or pred(u)) then out[#out + 1] = u end
  end
  return out
end
function C.combat_at(hex, side, stack) return C.at(hex, side, C.is_combat, stack) end

-- 10.4, 6.11, 10.8.1.C: do the enemy units in `hex` (its stack: `stack`, when the caller has it)
-- stop a unit of `side` from entering? Always, but for a Soviet unit entering a hex that holds
-- only refugees (6.11) and the Sea Transport waiting with them after a delayed evacuation
-- (10.8.1.C(ii)): it enters, and they are eliminated (control.passed).
local SOVIET_MAY_ENTER_KINDS = { "refugee", "transport" }
local SOVIET_MAY_ENTER = set_of(SOVIET_MAY_ENTER_KINDS)
-- (does the unit `u` alone stop a unit of `side` from entering its hex?)
function C.stops_entry(side, u)
  return u.side ~= side and (side ~= C.SOVIET or not SOVIET_MAY_ENTER[u.kind])
end
-- (the hexes of the units that stop a unit of `side` from entering, C.stops_entry filtered in
-- Rust: a map.hexset)
function C.stopping_hexes(side)
  return units.hexset { side = C.other(side), on_map = true, not_kind = side == C.SOVIET and SOVIET_MAY_ENTER_KINDS or nil }
end
function C.stops(side, hex, stack)
  for _, u in ipairs(stack or units.at(hex)) do
    if C.stops_entry(side, u) then return true end
  end
  return false
end

-- Hex control (B.4-4 of the design note; DATA.md): the hex marker `ctl`, 1 Soviet, 2 German.
C.SIDE_NO = { Soviet = 1, German = 2 }
C.SIDE_OF = { "Soviet", "German" }
function C.controller(hex) return C.SIDE_OF[map.marker(hex, "ctl") or 2] end
-- The Soviet hexes now, in one read of the map (for searches and loops over many hexes): a
-- map.hexset, handed to the searches without being read again.
function C.soviet_hexes() return map.marked("ctl", { value = C.SIDE_NO.Soviet, as_set = true }) end
-- The hexes of `hexes` (a hexset) that `side` controls now (C.controller's rule read as a set: a
-- hex is German unless marked Soviet), less those of the sets listed in `without`, if given: a
-- map.hexset.
function C.held(hexes, side, without)
  local soviet = C.soviet_hexes()
  if side == C.SOVIET then return map.hexset(hexes, { within = soviet, without = without }) end
  local out = { soviet }
  for _, s in ipairs(without or {}) do out[#out + 1] = s end
  return map.hexset(hexes, { without = out })
end

C.contains = sets.contains
function C.ids(list)
  local out = {}
  for _, u in ipairs(list) do out[#out + 1] = u.id end
  return table.concat(out, ",")
end
C.plural = words.plural
-- A count with its noun: "1 step", "2 steps" (rulesets/lib/words.lua).
C.count = words.count

-- Whether the checks of `fn` pass, without refusing (rulesets/lib/checks.lua).
C.passes = checks.passes

return C
