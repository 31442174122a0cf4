-- reduce: reductions of combat factors with named rounding policies, in integer arithmetic.
--
--   local reduce = require "reduce"
--   reduce.percent(16, 10)          --> 14: the loss 1.6 rounded up to 2, never below 1
--   reduce.percent(3, 50)           --> 1
--   reduce.percent(7, 50, { floor = 0 }) --> 3
--   reduce.half(5, "up")            --> 3
--
-- Floating point is not used: 10 * 0.3 is 3.0000000000000004 in floating point, so a rounded-up
-- loss of 30% of 10 would come out 4. Here the loss of x at p% rounded up is (x*p + 99) // 100.
local M = {}

-- x reduced by p percent: the loss rounded up (opts.loss = "up", the default) or down ("down")
-- or to nearest with halves up ("nearest"), and the result never below opts.floor (default 1; a
-- value already below the floor is left as it is). p is an integer percentage (0..100).
---@param x integer
---@param p integer
---@param opts? { loss?: "up"|"down"|"nearest", floor?: integer }
---@return integer
function M.percent(x, p, opts)
  opts = opts or {}
  if math.type(x) ~= "integer" or math.type(p) ~= "integer" then
    error(("reduce.percent: integer factor and percentage expected, got %s and %s"):format(tostring(x), tostring(p)), 2)
  end
  if p <= 0 or x <= 0 then return x end
  local floor = opts.floor or 1
  local loss
  if opts.loss == "down" then loss = x * p // 100
  elseif opts.loss == "nearest" then loss = (x * p + 50) // 100
  else loss = (x * p + 99) // 100 end
  local r = x - loss
  if r < floor then r = math.min(floor, x) end
  return r
end

-- Half of x rounded "up" or "down".
---@param x integer
---@param rounding "up"|"down"
---@return integer
function M.half(x, rounding)
  if rounding == "up" then return (x + 1) // 2 end
  if rounding == "down" then return x // 2 end
  error("reduce.half: rounding is \"up\" or \"down\"", 2)
end

return M
