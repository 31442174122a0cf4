-- words: counts a player reads, with the noun in the number it takes ("1 step", "2 steps").
local M = {}

-- The noun for `n`: `one` for exactly 1, else `many` (default: `one` .. "s").
---@param n number
---@param one string
---@param many? string
---@return string
function M.plural(n, one, many) return n == 1 and one or (many or one .. "s") end

-- A count with its noun: "1 activation", "3 activations", "2.5 MPs" (a whole number shown
-- without its decimal point).
---@param n number
---@param one string
---@param many? string
---@return string
function M.count(n, one, many) return ("%s %s"):format(tostring(math.tointeger(n) or n), M.plural(n, one, many)) end

return M
