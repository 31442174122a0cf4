-- retreat: a retreat one hex at a time, the owner choosing among the hexes the rules allow.
--
--   local retreat = require "retreat"
--   local path, left = retreat.walk {
--     side = "Soviet", from = "3722", hexes = 2, rule = "11.26",
--     allowed = function(from, to, visited) return true end,   -- the game's own limits
--     rank = function(from, to) return 0 end,                  -- optional: lower is better (offered first)
--     prefer = function(from, to, i) return true end,          -- optional: hexes offered only if some are preferred
--     prompt = "retreat 21A,4TC",                               -- optional (or a function, below)
--     enter = function(from, to, i, chosen) return true end,   -- optional: each hex as it is entered
--     can_split = function(from, i) return true end,           -- optional, with split: may the stack split here? (default yes)
--     split = function(from, options, i, path) end,            -- optional: the stack splits (each part retreats on its own)
--   }
--
-- Each step offers the neighbours of the current hex that `allowed` accepts, never a hex already
-- on the path (no hex twice); with one option it is taken, with several the owner is asked
-- (`umpire.ask`, kind "hex"; default the best ranked, then the lowest id). The walk stops when no
-- hex is allowed. Returns the hexes entered (not the start) and how many could not be retreated.
-- The rulesets put their rules in `allowed` (away from the battle hex, enemy units and ZOCs, the
-- map edge, terrain) and in `rank` (toward supply, straightest), and move the units themselves.
--
-- Hooks for a retreat that happens hex by hex (Stargard Solstice):
-- - `prompt` as a function `(i, path)` gives the whole question asked for hex `i` (`path`: the
--   hexes entered so far); a string is put in the default question "<prompt>, hex i of n: to
--   which hex?".
-- - `enter(from, to, i, chosen)` is called as each hex is entered (`chosen`: the owner chose it
--   among several), for the game to move its units and apply what entering costs; when it
--   returns false the walk ends there with nothing left to retreat (the units are gone).
-- - `split(from, options, i, path)`: when the owner is asked and `can_split(from, i)` holds (or
--   is not given), the question has one more answer, "split"; choosing it calls `split` with the
--   hexes offered, and the walk ends: `split` retreats each part on its own (a walk of its own,
--   for instance). The walk then returns its path, 0 and true.
local M = {}

-- The neighbours of `cur` the rules allow for hex `i` (the preferred ones where some are), in
-- the order offered: by rank, then by id.
---@param spec table the walk's spec
---@param cur Umpire.Hex
---@param visited table<Umpire.Hex, boolean>
---@param i integer
---@return Umpire.Hex[]
local function options_from(spec, cur, visited, i)
  local options = {}
  for _, n in ipairs(map.neighbours(cur)) do
    if not visited[n] and spec.allowed(cur, n, visited, i) then options[#options + 1] = n end
  end
  if #options == 0 then return options end
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
  return options
end

-- The owner's choice among several hexes for hex `i` (or "split", when the stack may split).
---@param spec table the walk's spec
---@param cur Umpire.Hex
---@param options Umpire.Hex[]
---@param i integer
---@param path Umpire.Hex[]
---@return string
local function ask(spec, cur, options, i, path)
  local prompt
  if type(spec.prompt) == "function" then
    prompt = spec.prompt(i, path)
  else
    local done = #path > 0 and (" (so far " .. spec.from .. " → " .. table.concat(path, " → ") .. ")") or ""
    prompt = ("%s, hex %d of %d: to which hex?%s"):format(spec.prompt or "retreat", i, spec.hexes, done)
  end
  local choices = options
  if spec.split and (not spec.can_split or spec.can_split(cur, i)) then
    choices = { table.unpack(options) }
    choices[#choices + 1] = "split"
  end
  return umpire.ask { prompt = prompt, side = spec.side, rule = spec.rule, kind = "hex", options = choices, default = options[1] }
end

---@param spec table see the head of this file
---@return Umpire.Hex[] path the hexes entered
---@return integer left the hexes that could not be retreated
---@return boolean? split whether the stack split (each part retreated on its own)
function M.walk(spec)
  local cur, path, visited = spec.from, {}, { [spec.from] = true }
  for i = 1, spec.hexes do
    local options = options_from(spec, cur, visited, i)
    if #options == 0 then return path, spec.hexes - i + 1 end
    local to = options[1]
    if #options > 1 then
      to = ask(spec, cur, options, i, path)
      if to == "split" then
        spec.split(cur, options, i, path)
        return path, 0, true
      end
    end
    path[#path + 1] = to
    visited[to] = true
    local from = cur
    cur = to
    if spec.enter and spec.enter(from, to, i, #options > 1) == false then return path, 0 end
  end
  return path, 0
end

return M
