-- retreat: a retreat one hex at a time, the owner choosing among the hexes the rules allow.
--
--   local retreat = require "retreat"
--   local path, left = retreat.walk {
--     side = "Soviet", from = "3722", hexes = 2, rule = "11.26",
--     allowed = function(from, to, visited) return true end,   -- the game's own limits
--     rank = function(from, to) return 0 end,                  -- optional: lower is better (offered first)
--     prefer = function(from, to, i) return true end,          -- optional: hexes offered only if some are preferred
--     prompt = "retreat 21A,4TC",                               -- optional
--   }
--
-- Each step offers the neighbours of the current hex that `allowed` accepts, never a hex already
-- on the path (no hex twice); with one option it is taken, with several the owner is asked
-- (`umpire.ask`, kind "hex"; default the best ranked, then the lowest id). The walk stops when no
-- hex is allowed. Returns the hexes entered (not the start) and how many could not be retreated.
-- The rulesets put their rules in `allowed` (away from the battle hex, enemy units and ZOCs, the
-- map edge, terrain) and in `rank` (toward supply, straightest), and move the units themselves.
local M = {}

function M.walk(spec)
  local cur, path, visited = spec.from, {}, { [spec.from] = true }
  for i = 1, spec.hexes do
    local options = {}
    for _, n in ipairs(map.neighbours(cur)) do
      if not visited[n] and spec.allowed(cur, n, visited, i) then options[#options + 1] = n end
    end
    if #options == 0 then return path, spec.hexes - i + 1 end
    if spec.prefer then
      local preferred = {}
      for _, n in ipairs(options) do if spec.prefer(cur, n, i) then preferred[#preferred + 1] = n end end
      if #preferred > 0 then options = preferred end
    end
    table.sort(options, function(a, b)
      local ra, rb = spec.rank and spec.rank(cur, a) or 0, spec.rank and spec.rank(cur, b) or 0
      if ra ~= rb then return ra < rb end
      return a < b
    end)
    local to = options[1]
    if #options > 1 then
      local done = #path > 0 and (" (so far " .. spec.from .. " → " .. table.concat(path, " → ") .. ")") or ""
      to = umpire.ask { prompt = ("%s, hex %d of %d: to which hex?%s"):format(spec.prompt or "retreat",
          i, spec.hexes, done), side = spec.side, rule = spec.rule, kind = "hex", options = options, default = options[1] }
    end
    path[#path + 1] = to
    visited[to] = true
    cur = to
  end
  return path, 0
end

return M
