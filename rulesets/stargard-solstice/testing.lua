-- Helpers for command scripts and designers (`lua require("testing").clear()`); the rules never
-- use this module.
local kit = require "testkit"   -- rulesets/lib
local M = {}

-- Takes every unit off the map (to the box "offboard"), so a script can build a situation.
function M.clear() kit.clear { box = "offboard" } end

-- Places units: M.place { ["4Pz/4SS"] = "17.14", ... } (in a fixed order).
function M.place(t) kit.place(t) end

-- Activates units as if their HQ had been drawn, with the side to act.
function M.activate(side, ids)
  for _, id in ipairs(ids) do units.get(id):set_marker("active", 1) end
  vars.set("active", { hq = "test", side = side, how = "test" })
  umpire.set_side(side)
end

-- Neighbours of a hex across hexsides without a river into land: places to attack from
-- without a river between.
function M.open_neighbours(hex)
  local out = {}
  for _, n in ipairs(map.neighbours(hex)) do
    local t = map.terrain(n)
    local river = false
    for _, f in ipairs(map.hexside(hex, n)) do
      if f == "river" or f == "major_river" or f == "impassable" then river = true end
    end
    if not river and t ~= "lake" and t ~= "restrictive" then out[#out + 1] = n end
  end
  return out
end

-- Hexes matching a predicate, in order (lib/testkit.lua).
M.find = kit.find

return M
