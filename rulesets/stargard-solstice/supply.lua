-- Stargard Solstice 11.0 Supply and Isolation.
local T = require "tables"
local C = require "common"
local zoc = require "zoc"
local M = {}

-- 11.1: a supply line runs over clear terrain, Roll-Bahn, roads, trails, railways or friendly
-- units, free of enemy units and EZOCs (a friendly unit negates the EZOC in its hex, 4.5), not
-- across unbridged major rivers, impassable or water hexsides (11.1.1). Traced in Rust from all
-- the sources at once; returns distance by hex.
-- With `strict`, no EZOC hex is crossed even where a friendly unit stands (14.1.2: a line
-- "free of enemy units and their ZOCs").
-- `known` may carry the side's EZOC and the occupied hexes already computed ({ezoc=, own=, enemy=}).
---@param side string
---@param sources Umpire.Hex[]
---@param strict? boolean
---@param known? table
---@param targets? Umpire.Hex[]
---@return table<Umpire.Hex, number>
function M.trace(side, sources, strict, known, targets)
  known = known or {}
  local ez = known.ezoc or zoc.ezoc(side)
  local friendly = known.own or C.occupied(side)
  local enemy = known.enemy or C.occupied(C.other(side))
  return map.reach {
    from = sources,
    terrain = { clear = 1, town = 1, city = 1, forest = "no", swamp = "no", lake = "no", restrictive = "no" },
    paths = { rollbahn = 1, road = 1, trail = 1, railroad = 1 },
    hexsides = { major_river = "no", impassable = "no" }, cancels = T.cancels,
    open = friendly,                                  -- 11.1: through friendly units
    blocked = { enemy, ez },                          -- 11.1: not through enemy units or EZOCs,
    unblocked = (not strict) and friendly or nil,     -- 4.5: unless a friendly unit stands there
    routes = false, targets = targets,
  }
end

-- 12.3: a Festung supplies the German units stacked beneath it.
local function festung_below(u, stacks)
  if u.side ~= "German" or not u.hex then return false end
  for _, x in ipairs(stacks and stacks[u.hex] or units.at(u.hex)) do
    if x.id == u.id then return false end
    if x:attr("festung") then return true end
  end
  return false
end

-- Whether a unit can trace supply now (cached traces by source group).
---@param u UnitRef
---@param cache table
---@return boolean
function M.check(u, cache)
  cache.stacks = cache.stacks or units.stacks()
  if u:attr("festung") or festung_below(u, cache.stacks) then return true end           -- 12.3
  local key = u.side .. ":" .. C.source_area(u)
  if not cache[key] then
    -- the side's EZOC and units, once per supply phase
    local st = cache.stacks
    cache[u.side] = cache[u.side] or { ezoc = zoc.ezoc(u.side, st), own = C.occupied(u.side), enemy = C.occupied(C.other(u.side)) }
    -- only the hexes of the side's units are wanted
    cache[u.side .. ":targets"] = cache[u.side .. ":targets"] or (function()
      local t = {}
      for h in pairs(cache[u.side].own) do t[#t + 1] = h end
      return t
    end)()
    cache[key] = M.trace(u.side, C.sources(u), false, cache[u.side], cache[u.side .. ":targets"])
  end
  return cache[key][u.hex] ~= nil
end

-- 2.4 Supply Phase: OOS, then isolated (11.0); an OOS HQ makes its units OOS and is relocated
-- (11.3.1, 11.3.2).
function M.phase()
  local cache = {}
  local hq_status = {}
  for _, side in ipairs { "German", "Soviet" } do
    for _, u in ipairs(units.all { side = side, on_map = true }) do
      if not C.is_air(u) then
        local ok = M.check(u, cache)
        if ok then
          if u:marker("oos") or u:marker("isolated") then
            log.rule("11.0", u.id .. " is back in supply")
            u:set_marker("oos", nil)
            u:set_marker("isolated", nil)
          end
        elseif u:marker("oos") or u:marker("isolated") then
          if not u:marker("isolated") then log.rule("11.0", u.id .. " is still out of supply: isolated") end
          u:set_marker("oos", nil)
          u:set_marker("isolated", 1)
        else
          u:set_marker("oos", 1)
          log.rule("11.0", u.id .. " is out of supply")
        end
        if C.is_hq(u) and not ok then hq_status[u.id] = u:marker("isolated") and "isolated" or "oos" end
      end
    end
  end
  -- 11.3.2: an OOS HQ makes its commanded units OOS (isolated if it is)
  for _, hq in ipairs(units.all { kind = "hq", on_map = true }) do
    local st = hq_status[hq.id]
    if st then
      for _, u in ipairs(units.all { side = hq.side, on_map = true, attr = { formation = hq.id } }) do
        if st == "isolated" then
          u:set_marker("oos", nil); u:set_marker("isolated", 1)
        elseif not u:marker("isolated") then
          u:set_marker("oos", 1)
        end
      end
      log.rule("11.3.2", ("%s is %s: so are the units it commands"):format(hq.id, st == "isolated" and "isolated" or "out of supply"))
      -- (required here: hq requires supply, whose trace a relocation follows)
      require("hq").relocate(hq)                                              -- 11.3.1, 12.2.2
    end
  end
end

-- 11.3.1, 11.3.2: the supply factor on strength (isolated units are also halved, not quartered).
function M.factor(u)
  if u:marker("oos") or u:marker("isolated") then return 1 / 2 end
  return 1
end

return M
