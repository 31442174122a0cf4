-- scoring: the skeleton of a game's evaluation (umpire.evaluate, docs/lua-api.md §2.7) that the
-- rulesets share: each side's steps on the map and supply trouble, the outcome's weight once the
-- game is over, the score turned to the side asking. A game's evaluate.lua keeps its own terms,
-- each citing the victory rule it follows, and takes the rest from here (the module is not named
-- `evaluate`: a ruleset's own evaluate.lua would shadow it).
--
--   local scoring = require "scoring"
--   local f = scoring.forces { C.GERMAN, C.SOVIET }
--   scoring.count(f, units.all { on_map = true }, C.is_combat,
--     function(u) return u:marker("oos") and 1 or 0 end)                  -- 7.0
--   local s = 10 * vp + (f.Soviet.steps - f.German.steps) + 0.5 * (f.German.trouble - f.Soviet.trouble)
--   return scoring.for_side(s, M.result(), WEIGHT, side, C.SOVIET)
local M = {}

---A fresh count of each side's forces: `steps` and `trouble` 0 for every side.
---@param sides string[] the sides counted (a unit of another side is a bug of the caller)
---@return table<string, { steps: integer, trouble: number }>
function M.forces(sides)
  local f = {}
  for _, side in ipairs(sides) do f[side] = { steps = 0, trouble = 0 } end
  return f
end

---Adds to `f` the units of `list` that `keep` accepts (every one when nil): the steps they have
---left, and `trouble(u)`, a number that grows with the unit's supply trouble (0 for none).
---@param f table<string, { steps: integer, trouble: number }> from M.forces
---@param list UnitRef[]
---@param keep? fun(u: UnitRef): boolean
---@param trouble fun(u: UnitRef): number
---@return table<string, { steps: integer, trouble: number }> f
function M.count(f, list, keep, trouble)
  for _, u in ipairs(list) do
    if not keep or keep(u) then
      local s = f[u.side]
      s.steps = s.steps + u.steps_left
      s.trouble = s.trouble + trouble(u)
    end
  end
  return f
end

---The figures of the steps on the map, `<side>_steps` for each side of `f` (`german_steps`,
---`soviet_steps`), added to `figures`.
---@param figures table<string, any>
---@param f table<string, { steps: integer, trouble: number }>
---@return table<string, any> figures
function M.steps_figures(figures, f)
  for side, s in pairs(f) do figures[side:lower() .. "_steps"] = s.steps end   -- one key each: no order
  return figures
end

---A result text with each word capitalised ("soviet victory" -> "Soviet Victory").
---@param text string
---@return string
function M.title(text)
  return (text:gsub("(%a)(%a*)", function(a, b) return a:upper() .. b end))
end

---The score of a position for `side`: `s`, counted for `for_side`, plus 1000 times the weight of
---the outcome `result` once the game is over (nil while it goes on; an outcome `weights` does not
---name weighs 0), negated when `side` is the other side.
---@param s number the score for `for_side` before the outcome
---@param result? string the outcome (the figure `result`)
---@param weights table<string, number> each outcome's weight for `for_side`, -1 to 1
---@param side string the side asking
---@param for_side string the side `s` and `weights` count for
---@return number
function M.for_side(s, result, weights, side, for_side)
  if result then s = s + 1000 * (weights[result] or 0) end
  return side == for_side and s or -s
end

---The worth of closing on `targets`: for each target hex (in the list's order), `weight(h)` for
---each hex that the nearest hex of `from` is nearer to it than `reach` (nothing when none is).
---Progress terms of a score (a bot looking one command ahead sees a move that pays later).
---@param targets Umpire.Hex[] the hexes to reach
---@param from Umpire.HexSet|table<Umpire.Hex, boolean> the hexes of the units that would take them
---@param reach integer a target farther than this from all of `from` adds nothing
---@param weight fun(h: Umpire.Hex): number the worth of one hex nearer to the target `h`
---@return number
function M.approach(targets, from, reach, weight)
  local worth = 0
  local ds = map.distances(targets, from)   -- (each target's distance to its nearest of `from`; none: {})
  for i = 1, #ds do
    local d = ds[i]
    if d < reach then worth = worth + weight(targets[i]) * (reach - d) end
  end
  return worth
end

---The worth of marching: for each hex of `hexes`, `per_hex` for each hex that the nearest of
---`targets` is nearer than `reach`.
---@param hexes Umpire.Hex[]|Umpire.HexSet the hexes of the marching units (a hexset in id order)
---@param targets Umpire.HexSet|table<Umpire.Hex, boolean>
---@param reach integer
---@param per_hex number
---@return number
function M.march(hexes, targets, reach, per_hex)
  local worth = 0
  local ds = map.distances(hexes, targets)   -- (each hex's distance to its nearest target)
  for i = 1, #ds do
    local d = ds[i]
    if d < reach then worth = worth + per_hex * (reach - d) end
  end
  return worth
end

return M
