-- Stargard Solstice 11.0 Supply and Isolation.
local T = require "tables"
local C = require "common"
local M = {}

-- 11.1: a supply line runs over clear terrain, Roll-Bahn, roads, trails, railways or friendly
-- units, free of enemy units and EZOCs (a friendly unit negates the EZOC in its hex, 4.5), not
-- across unbridged major rivers, impassable or water hexsides (11.1.1). Traced in Rust from all
-- the sources at once; returns distance by hex.
-- With `strict`, no EZOC hex is crossed even where a friendly unit stands (14.1.2: a line
-- "free of enemy units and their ZOCs").
function M.trace(side, sources, strict)
  local ez = C.ezoc(side)
  local friendly = C.occupied(side)
  local blocked = {}
  for h in pairs(C.occupied(C.enemy(side))) do blocked[#blocked + 1] = h end
  for h in pairs(ez) do if strict or not friendly[h] then blocked[#blocked + 1] = h end end
  local open = {}
  for h in pairs(friendly) do open[h] = 1 end
  return map.reach {
    from = sources,
    terrain = { clear = 1, town = 1, city = 1, forest = "no", swamp = "no", lake = "no", restrictive = "no" },
    paths = { rollbahn = 1, road = 1, trail = 1, railroad = 1 },
    hexsides = { major_river = "no", impassable = "no" }, cancels = T.cancels,
    hex_cost = open, blocked = blocked,
  }
end

-- 12.3: a Festung supplies the German units stacked beneath it.
local function festung_below(u)
  if u.side ~= "German" or not u.hex then return false end
  local above = true
  for _, x in ipairs(units.at(u.hex)) do
    if x.id == u.id then return false end
    if x:attr("festung") then return true end
  end
  return false
end

-- Whether a unit can trace supply now (cached traces by source group).
function M.check(u, cache)
  if u:attr("festung") or festung_below(u) then return true end           -- 12.3
  local key = u.side .. ":" .. table.concat(C.sources(u), ",")
  cache[key] = cache[key] or M.trace(u.side, C.sources(u))
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
          if u:marker("oos") or u:marker("isolated") then log.rule("11.0", u.id .. " is back in supply") end
          u:set_marker("oos", nil)
          u:set_marker("isolated", nil)
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
