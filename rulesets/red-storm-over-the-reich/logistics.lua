-- Red Storm over the Reich 9: weather and logistics. The fixed weather (9.1), the German Fuel
-- Supply and the Soviet Fuel Shortage markers from turn 2 (9.2), and the Soviet Logistical
-- Strain (9.3, checked in the Attrition Phase, 15.0).
local C = require "common"
local T = require "tables"
local supply = require "supply"

local M = {}

-- 9.1: the Weather Segment notes the turn's weather and what it does.
function M.weather_segment()
  local turn = umpire.clock().turn
  local w = C.weather(turn)
  local effects = {
    frost = "Frost: swamps frozen, Haff and lake hexsides crossable at +1 and crossed by ZOCs, Soviet command rolls +1 (9.1.A, 9.1.C)",
    mud = "Mud: swamps and rivers dear, no ZOC across major rivers, Soviet command rolls -1, no Soviet air units (9.1.A-C)",
    clear = "Clear: no ZOC across major rivers (9.1.A)",
  }
  log.rule("9.1", ("turn %d (%s): %s"):format(turn, T.turn_names[turn] or "", effects[w]))
end

-- 9.3: the turns marked with the strain (vars `sls`, a list of turn numbers).
function M.sls_active(turn)
  turn = turn or umpire.clock().turn
  return C.contains(vars.get("sls") or {}, turn)
end

function M.sls_segment()
  if M.sls_active() then
    log.rule("9.3", "the Soviet Logistical Strain is in effect this turn: command rolls -1, no Soviet replacements, Soviet combat and overrun rolls -1, Soviet artillery west of the SLS line stays Used")
  end
end

-- 9.3, 15.0: at the Attrition Phase, a Soviet rifle, guards rifle, mechanized or artillery unit
-- west of the SLS line marks the next three turns (once the markers are free again: DATA.md).
function M.check_sls()
  local turn = umpire.clock().turn
  for _, t in ipairs(vars.get("sls") or {}) do
    if t > turn then return end   -- the three markers are still on the track
  end
  local who
  for _, u in ipairs(C.on_map(C.SOVIET)) do
    if (C.is_infantry(u) or C.is_mech(u) or C.is_artillery(u)) and C.WEST_OF_SLS[u.hex] then who = u break end
  end
  if not who then return end
  local marked = {}
  for i = 1, T.sls_turns do marked[#marked + 1] = turn + i end
  vars.set("sls", marked)
  log.rule("9.3", ("%s is west of the SLS line in %s: the Soviet Logistical Strain marks turns %s"):format(
    who.id, who.hex, table.concat(marked, ", ")))
end

-- 9.2.B: a German mechanized unit with or next to a Fuel Supply marker.
function M.near_fuel(hex)
  if map.marker(hex, "fuel_supply") then return true end
  for _, n in ipairs(map.neighbours(hex)) do
    if map.marker(n, "fuel_supply") then return true end
  end
  return false
end

local function fuel_on() return umpire.clock().turn >= T.fuel.from_turn end

umpire.command {
  usage = "fuel <hex>",
  help = "German: place a Fuel Supply marker in a friendly, supplied hex (two a turn from turn 2)",
  example = "fuel 3838",
  rule = "9.2.A", phases = { "fuel_supply" },
  run = function(hex)
    local placed = map.marked("fuel_supply")
    local n = 0
    for _ in pairs(placed) do n = n + 1 end
    umpire.check(n < T.fuel.supply, "9.2.A", "both Fuel Supply markers are placed (%s)", table.concat((function()
      local l = {} for h in pairs(placed) do l[#l + 1] = h end return l end)(), ", "))
    umpire.check(not placed[hex], "9.2.A", "%s already has a Fuel Supply marker", hex)
    umpire.check(not C.PROHIBITED[hex], "9.2.A", "%s is not a land hex", hex)
    umpire.check(C.controller(hex) == C.GERMAN, "9.2.A", "%s is not German-controlled", hex)
    umpire.check(#C.at(hex, C.SOVIET) == 0, "9.2.A", "%s holds Soviet units", hex)
    umpire.check(supply.traceable(C.GERMAN, { hex })[hex], "9.2.A", "%s is not a supplied hex: no German supply line reaches it (7.1)", hex)
    map.set_marker(hex, "fuel_supply", 1)
    log.rule("9.2.A", ("Fuel Supply marker placed in %s (%d of %d)"):format(hex, n + 1, T.fuel.supply))
  end,
}

umpire.command {
  usage = "shortage <units>",
  help = "Soviet: put Fuel Shortage markers on German mechanized units (six a turn from turn 2; none with or next to a Fuel Supply marker)",
  example = "shortage 5PZ,BRANPZG",
  rule = "9.2.A", phases = { "fuel_shortage" },
  run = function(list)
    local have = 0
    for _, u in ipairs(units.all { side = C.GERMAN }) do if u:marker("fuel_shortage") then have = have + 1 end end
    umpire.check(have + #list <= T.fuel.shortage, "9.2.A", "only %d Fuel Shortage markers: %d placed, %d more asked", T.fuel.shortage, have, #list)
    for _, u in ipairs(list) do
      umpire.check(u.side == C.GERMAN and C.is_mech(u) and u.hex ~= nil, "9.2.A", "%s is not a German mechanized unit on the map", u.id)
      umpire.check(not u:marker("fuel_shortage"), "9.2.A", "%s already has a Fuel Shortage marker (one a unit)", u.id)
      umpire.check(not M.near_fuel(u.hex), "9.2.B", "%s is with or next to a Fuel Supply marker", u.id)
      u:set_marker("fuel_shortage", 1)
    end
    log.rule("9.2.A", ("Fuel Shortage on %s (%d of %d placed): movement halved, no reaction, no overrun (9.2.C)"):format(
      C.ids(list), have + #list, T.fuel.shortage))
  end,
}

-- 9.2.D: at the start of each German movement segment, shortage markers of units with or next to
-- a Fuel Supply marker come off.
function M.german_segment_start()
  local freed = {}
  for _, u in ipairs(C.on_map(C.GERMAN, C.is_mech)) do
    if u:marker("fuel_shortage") and M.near_fuel(u.hex) then
      u:set_marker("fuel_shortage", nil)
      freed[#freed + 1] = u
    end
  end
  if #freed > 0 then
    log.rule("9.2.D", ("Fuel Shortage removed from %s: with or next to a Fuel Supply marker"):format(C.ids(freed)))
  end
end

-- 9.2.D: the joint supply segment takes off every shortage marker; the End Turn Phase the supply
-- markers.
function M.clear_shortage()
  local n = 0
  for _, u in ipairs(units.all { side = C.GERMAN }) do
    if u:marker("fuel_shortage") then u:set_marker("fuel_shortage", nil); n = n + 1 end
  end
  if n > 0 then log.rule("9.2.D", ("%s removed"):format(n == 1 and "the Fuel Shortage marker is" or ("the %d Fuel Shortage markers are"):format(n))) end
end

function M.clear_supply()
  if next(map.marked("fuel_supply")) then
    map.clear_markers("fuel_supply")
    log.rule("9.2.D", "the Fuel Supply markers are removed (available again next turn)")
  end
end

function M.fuel_phase() return fuel_on() end

return M
