-- Red Storm over the Reich 3.5.A and the hexes "friendly" to a side (7.3, 8.1.2, 8.2.1, 10.8.2,
-- 11.4): hex control, and what happens when units pass through a hex (17.8 defensive works,
-- 9.2.D fuel supply markers, 6.11 refugees, 10.8.1.C delayed evacuations).
--
-- The rulebook defines control only for the VP hexes (3.5.A: a supplied combat unit occupying or
-- moving through takes one). Our reading (DATA.md) applies that rule to every hex: a side's
-- supplied combat unit in or passing through a hex gives it control; at the start each hex
-- belongs to the side of the nearer combat units (the front as set up), the German where they
-- are as near. Berlin's hex 0425 is Soviet only once The Bunker is gone and a Soviet unit is
-- there (3.5.A). Control is the hex marker `ctl` (1 Soviet, 2 German; absent: German).
local C = require "common"
local T = require "tables"

local M = {}

function M.is(hex, side) return C.controller(hex) == side end

-- 3.5.A: the start: the side of the nearest combat units.
function M.init()
  local from = { Soviet = {}, German = {} }
  for _, u in ipairs(units.all { on_map = true }) do
    if C.is_combat(u) then from[u.side][u.hex] = true end
  end
  local ds = next(from.Soviet) and map.reach { from = from.Soviet, routes = false } or {}
  local dg = next(from.German) and map.reach { from = from.German, routes = false } or {}
  local soviet = {}
  for h, d in pairs(ds) do
    if not C.PROHIBITED[h] and d < (dg[h] or math.huge) then soviet[h] = C.SIDE_NO.Soviet end
  end
  soviet[T.bunker_hex] = nil
  map.clear_markers("ctl")
  map.set_markers("ctl", soviet)
end

-- Can a unit of `side` in or through `hex` take it?
local function takes(u, hex)
  if not C.is_combat(u) or not C.supplied(u) then return false end
  if hex == T.bunker_hex and u.side == C.SOVIET then
    local b = units.get("BUNKER")
    return not (b and b.exists and b.hex)
  end
  return true
end

-- 6.11, 10.8.1.C(ii): a Soviet unit enters `hex`: the refugees there are eliminated, and with them
-- the Sea Transport waiting in the port after a delayed evacuation.
local function refugees_overrun(hex)
  local refugees, ships = C.at(hex, C.GERMAN, C.is_refugee), C.at(hex, C.GERMAN, C.is_transport)
  for _, u in ipairs(refugees) do u:put_in("eliminated") end
  for _, u in ipairs(ships) do u:put_in("eliminated") end
  if #ships > 0 then
    log.rule("10.8.1.C", ("a Soviet unit enters the port %s of a delayed evacuation: the refugees %s and the Sea Transport %s waiting with them are eliminated (10.8.1.C(ii), 6.11)"):format(
      hex, C.ids(refugees), C.ids(ships)))
  elseif #refugees > 0 then
    log.rule("6.11", ("a Soviet unit enters %s: the refugees %s are eliminated"):format(hex, C.ids(refugees)))
  end
end

-- Units `list` of `side` entered the hexes of `hexes` (moving, advancing or retreating): control,
-- defensive works destroyed (17.8), fuel supply markers removed (9.2.D), refugees eliminated
-- (6.11) and delayed evacuations lost (10.8.1.C).
function M.passed(hexes, side, list)
  for _, h in ipairs(hexes) do
    local taker
    for _, u in ipairs(list) do if takes(u, h) then taker = u break end end
    local ok = taker ~= nil
    if ok and C.controller(h) ~= side then
      map.set_marker(h, "ctl", C.SIDE_NO[side])
      if C.VP[h] then log.rule("3.5.A", ("%s takes the VP hex %s%s"):format(side, h, map.hex(h).name and (" (" .. map.hex(h).name .. ")") or "")) end
    end
    if side == C.SOVIET then
      if ok and C.DW[h] and not map.marker(h, "dw_gone") then
        map.set_marker(h, "dw_gone", 1)
        log.rule("17.8", ("%s passes through the defensive works in %s: they are destroyed"):format(taker.id, h))
      end
      if map.marker(h, "fuel_supply") then
        map.set_marker(h, "fuel_supply", nil)
        log.rule("9.2.D", ("a Soviet unit enters %s: the Fuel Supply marker there is removed (available again next turn)"):format(h))
      end
      refugees_overrun(h)
    end
  end
end

-- After every command: a hex held by one side's supplied combat units is that side's (3.5.A).
-- (Only a hex where a side's supplied combat units stand and the other side holds can change:
-- those are found in Rust, the Soviet's units outside his hexes and the German's within them,
-- then each is judged as before, in the order of the hex ids.)
function M.update()
  local soviet, parts = C.soviet_hexes(), {}
  for i, side in ipairs(C.SIDES) do
    local filter = { side = side, kind = C.COMBAT_KINDS, on_map = true, unmarked = "oos" }
    if side == C.SOVIET then filter.outside = soviet else filter.within = soviet end
    parts[i] = units.hexset(filter)
  end
  local changing = map.hexset(parts)
  for hex in pairs(changing) do
    local side, ok = nil, false
    for _, u in ipairs(units.at(hex)) do
      if C.is_combat(u) then
        if side and side ~= u.side then ok = false break end
        side = u.side
        ok = ok or takes(u, hex)
      end
    end
    if ok and C.controller(hex) ~= side then M.passed({ hex }, side, C.combat_at(hex, side)) end
  end
end

return M
