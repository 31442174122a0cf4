-- Stargard Solstice 15.0 Set-up: the units printed "w/i 1 of" a hex are placed by their owner
-- (15.1 German, 15.2 Soviet), within the stacking limits (15.0).
local C = require "common"
local movement = require "movement"
local M = {}

-- 15.1 / 15.2: the hexes a unit set up within `u:attr("within")` of `centre` may take: land a
-- unit may stop in (no water, restrictive terrain or transit hex), within the stacking limits
-- (15.0) and holding no enemy unit.
---@param u UnitRef
---@param centre Umpire.Hex
---@param side string
---@return Umpire.Hex[]
local function hexes_within(u, centre, side)
  local options = {}
  for _, h in ipairs(map.within(centre, u:attr("within"))) do
    local t = map.terrain(h)
    if t ~= "lake" and t ~= "restrictive" and not map.has(h, "transit") and not movement.stacking_problem(h, { u }) then
      local enemy = false
      for _, x in ipairs(units.at(h)) do if x.side ~= side then enemy = true end end
      if not enemy then options[#options + 1] = h end
    end
  end
  return options
end

-- 15.1 / 15.2: the side's units placed "w/i N of" a hex leave the map, then each is set up in
-- turn where its owner chooses (by default its printed hex).
---@param side string
local function place_side(side)
  local pending = {}
  for _, u in ipairs(units.all { side = side, on_map = true }) do
    if u:attr("within") then
      pending[#pending + 1] = { u = u, centre = u.hex }
      u:put_in("setup")
    end
  end
  local rule = side == "German" and "15.1" or "15.2"
  for _, p in ipairs(pending) do
    local u, centre = p.u, p.centre
    local options = hexes_within(u, centre, side)
    local default = options[1]
    for _, h in ipairs(options) do if h == centre then default = h end end
    local where = umpire.ask { prompt = "set up " .. u.id .. " within " .. u:attr("within") .. " of " .. centre,
      side = side, rule = rule, kind = "hex", options = options, default = default }
    u:move_to(where)
    log.rule(rule, u.id .. " set up in " .. where)
  end
end

-- 15.0: the set-up step, before the first turn's phases: the German units, then the Soviet.
function M.set_up()
  for _, side in ipairs { C.GERMAN, C.SOVIET } do place_side(side) end
  tracks.set("turn", 1)
end

return M
