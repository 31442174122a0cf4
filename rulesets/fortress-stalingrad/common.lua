-- Fortress Stalingrad: what every rule area asks of a unit or a hex (sides, nations, classes,
-- the supply state a unit is in this turn, elimination with its victory points).
local T = require "tables"
local sets = require "sets"     -- rulesets/lib
local words = require "words"   -- rulesets/lib

local C = {}

C.SOVIET, C.GERMAN = "Soviet", "German"

function C.other(side) return side == C.SOVIET and C.GERMAN or C.SOVIET end
-- A count with its noun: "1 step", "2 steps" (`many` for an irregular plural).
C.count = words.count

-- The map never changes: what the rules look up often is listed once, when the rules load (the
-- lists are read-only during play).
local set_of = sets.set_of
C.SEA = set_of(map.having("sea"))
C.TERRAIN = {}                                 -- each hex's terrain (map.terrain)
for _, h in ipairs(map.hexes()) do C.TERRAIN[h] = map.terrain(h) end
C.CITIES = map.having("city")
C.TOWNS = {}
do
  local t = set_of(map.having("town"))
  for _, h in ipairs(C.CITIES) do t[h] = true end
  for h in pairs(t) do C.TOWNS[#C.TOWNS + 1] = h end
  table.sort(C.TOWNS)
end
C.ENTRENCH = { Soviet = map.having("entrench_soviet"), German = map.having("entrench_german") }
C.ENTRENCH_SET = { Soviet = set_of(C.ENTRENCH.Soviet), German = set_of(C.ENTRENCH.German) }
C.TOWN_SET = set_of(C.TOWNS)
C.VP = {}                                      -- 15.4: the points of the towns and cities
for h, v in pairs(map.valued("vp")) do C.VP[h] = math.tointeger(v) or v end
C.EDGE = {}                                    -- the map's edges (the areas north_edge ... west_edge) as sets
for _, e in ipairs { "north", "east", "south", "west" } do C.EDGE[e .. "_edge"] = set_of(map.area(e .. "_edge") or {}) end
C.COAST = {}
for _, a in ipairs { "coast_black_sea", "coast_azov" } do
  for _, h in ipairs(map.area(a) or {}) do C.COAST[h] = true end
end

-- Hex control is stored as a number in the hex marker `ctl` (3.3).
C.SIDE_NO = { Soviet = 1, German = 2 }
C.SIDE_OF = { "Soviet", "German" }

-- 2.7, 2.9: the German player commands German, SS and the satellite armies.
C.SATELLITES = { romanian = true, italian = true, hungarian = true }

function C.nation(u) return u:attr("nation") or "" end
function C.is_satellite(u) return C.SATELLITES[C.nation(u)] == true end
-- "German unit" in the rules (8.6, 11.14, 11.22): the German Army, Air Force and SS, not the satellites.
function C.is_german(u) return u.side == C.GERMAN and not C.is_satellite(u) end

-- 2.5: mechanized or straight-leg; mountain infantry is straight-leg with its own mountain cost (10.16).
function C.is_mech(u) return u.kind == "mech" end
function C.class(u)
  if u.kind == "mech" then return "mech" end
  if u.kind == "mountain" then return "mountain" end
  return "leg"
end

-- Ground combat units: those that fight, occupy, take steps and negate enemy zones of control
-- (5.7): every unit but the 0-0-1s, Katyushas, air units and Manstein.
local NOT_COMBAT = { supply = true, katyusha = true, air = true, leader = true }
function C.is_combat(u) return not NOT_COMBAT[u.kind] end
function C.is_supply_unit(u) return u.kind == "supply" end
function C.is_air(u) return u.kind == "air" end
function C.is_garrison(u) return u:attr("garrison") == true end
function C.is_tiger(u) return u:attr("heavy") == true end
function C.is_flak(u) return u.id == T.units.flak end
function C.is_panzer_corps(u) return u.kind == "mech" and C.is_german(u) and u:attr("size") == "corps" end

-- 6.2, 6.3: the units that count against the two-unit limit.
function C.counts_for_stacking(u)
  return C.is_combat(u) and u:attr("stacks") ~= false
end

-- The ground units of a side in a hex (combat units and 0-0-1s; not air, Katyushas, Manstein).
function C.ground_at(hex, side)
  local out = {}
  for _, u in ipairs(units.at(hex)) do
    if (side == nil or u.side == side) and (C.is_combat(u) or C.is_supply_unit(u)) then out[#out + 1] = u end
  end
  return out
end

function C.combat_at(hex, side)
  local out = {}
  for _, u in ipairs(units.at(hex)) do
    if (side == nil or u.side == side) and C.is_combat(u) then out[#out + 1] = u end
  end
  return out
end

-- The combat units of `side` in the hexes `hexes` (the defenders of a battle), hex by hex.
function C.combat_in(hexes, side)
  local out = {}
  for _, h in ipairs(hexes) do
    for _, u in ipairs(C.combat_at(h, side)) do out[#out + 1] = u end
  end
  return out
end

-- Every unit of a side on the map, combat units only unless `all`.
function C.on_map(side, all)
  local out = {}
  for _, u in ipairs(units.all { side = side, on_map = true }) do
    if all or C.is_combat(u) then out[#out + 1] = u end
  end
  return out
end

-- The supply state a unit has this turn (7.11, 7.34): the AS level of a Soviet unit (0 = full
-- supply, 1..3 for >1 >2 >3), the OOS level of an Axis unit (0..6). Turn 1 everyone is supplied
-- (13.3); a reinforcement on its turn of entry is supplied (9.13); a sea- or air-supplied unit
-- is supplied for the turn (7.22, 7.36).
function C.supply_level(u, turn)
  local level = u.side == C.SOVIET and (u:marker("as") or 0) or (u:marker("oos") or 0)
  if level == 0 then return 0 end            -- no AS or OOS marker: the exceptions change nothing
  turn = turn or umpire.clock().turn
  if turn == 1 then return 0 end
  if u:marker("entered") == turn then return 0 end
  if u:marker("sea_supplied") or u:marker("air_supplied") then return 0 end
  return level
end

-- How a supply level is printed: ">2" for AS, "OOS-4" for Axis.
function C.supply_label(u, level)
  level = level or C.supply_level(u)
  if level == 0 then return "full supply" end
  if u.side == C.SOVIET then return ">" .. level .. " AS" end
  return "OOS-" .. level
end

function C.hex_label(hex)
  local h = map.hex(hex)
  if h and h.name then return ("%s (%s)"):format(hex, h.name) end
  return hex
end

function C.list_ids(list)
  local ids = {}
  for i, u in ipairs(list) do ids[i] = u.id end
  return table.concat(ids, ",")
end

function C.contains(list, x)
  for _, y in ipairs(list) do if y == x then return true end end
  return false
end

-- Hex ids as integers, for unit markers (a marker holds an integer): "3427" <-> 3427.
function C.hex_no(hex) return tonumber(hex) end
function C.hex_of(n) return n and ("%04d"):format(n) or nil end

-- 15.4, 14.4: victory points for what is destroyed. A German/Axis unit destroyed gives the Soviet
-- its steps' points (before the FMCO; after it none), a Soviet step lost after the FMCO takes one
-- point off. `steps` is how many steps were lost, `whole` whether the unit is gone.
function C.score_losses(u, steps, whole, rule)
  if steps <= 0 and not whole then return end
  local fmco = (vars.get("fmco_turn") or 0) > 0
  if u.side == C.SOVIET then
    if fmco and steps > 0 then
      tracks.add("vp_kills", -steps)
      log.rule("15.6", ("%s loses %d step%s after the FMCO: %d VP to the Soviet"):format(u.id, steps, steps > 1 and "s" or "", -steps))
    end
    return
  end
  if fmco then return end   -- 14.4, 15.6: no points for Axis losses once the FMCO is declared
  local vp, why = 0, {}
  if C.is_satellite(u) then
    if whole then vp, why = T.vp_kills.satellite_unit, { "a satellite unit destroyed" } end
  else
    local per = C.is_mech(u) and T.vp_kills.german_mech_step or T.vp_kills.german_leg_step
    vp = steps * per
    why[#why + 1] = ("%d %s step%s × %d"):format(steps, C.is_mech(u) and "mechanized" or "straight-leg", steps > 1 and "s" or "", per)
    if whole and u:attr("size") == "corps" then
      local extra = C.is_mech(u) and T.vp_kills.german_mech_corps or T.vp_kills.german_leg_corps
      vp = vp + extra
      why[#why + 1] = ("the whole corps +%d"):format(extra)
    end
  end
  if vp ~= 0 then
    tracks.add("vp_kills", vp)
    log.rule(rule or "15.4", ("%s: %s = %d VP to the Soviet"):format(u.id, table.concat(why, ", "), vp))
  end
end

-- A unit leaves play. Destroyed German units go to `destroyed` (never recreated) when they were
-- out of overland supply (7.35, 9.23) or are one-step German units or satellites (9.16);
-- everything else to `dead`, where replacements may recreate it. Air units are never destroyed
-- (8.4): they are set aside. Returns nothing; logs under `rule`.
function C.eliminate(u, rule, why)
  local steps = u.steps_left
  local permanent
  if u.side == C.GERMAN then
    if C.is_satellite(u) or u.steps == 1 then
      permanent = "satellite and one-step German units are never replaced, 9.16"
    elseif C.supply_level(u) > 0 or u:marker("air_supplied") ~= nil then
      permanent = "destroyed without an open overland supply line, 7.35, 9.23"
    end
  end
  log.rule(rule, ("%s is destroyed%s%s"):format(u.id, why and (": " .. why) or "",
    permanent and (" (it may not be recreated: " .. permanent .. ")") or ""))
  C.score_losses(u, steps, true, "15.4")
  for _, m in ipairs { "as", "oos", "mp_used", "origin", "halted", "ma_retreated", "volga_slide", "infiltrated", "moved", "attacked", "retreated", "entered", "sea_supplied", "air_supplied", "cut" } do
    if u:marker(m) then u:set_marker(m, nil) end
  end
  u:put_in(permanent and "destroyed" or "dead")
end

-- Loses `n` steps (7.37: supply never costs steps; only combat does). Returns the steps lost.
function C.lose_steps(u, n, rule)
  local left = u.steps_left
  if n >= left then
    C.eliminate(u, rule, ("%d step%s lost"):format(left, left > 1 and "s" or ""))
    return left
  end
  u:lose_steps(n)
  log.rule(rule, ("%s loses %d step%s (now %d-%d-%d)"):format(u.id, n, n > 1 and "s" or "", u:value("attack"), u:value("defense"), u:value("move")))
  C.score_losses(u, n, false, "15.4")
  return n
end

return C
