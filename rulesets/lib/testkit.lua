-- testkit: helpers that the rulesets' testing modules share (command scripts and designers use
-- them through `require("testing")`; the rules never do).
local M = {}

-- Hexes matching a predicate, in order.
function M.find(pred, limit)
  local out = {}
  for _, h in ipairs(map.hexes()) do
    if pred(h) then
      out[#out + 1] = h
      if limit and #out >= limit then break end
    end
  end
  return out
end

return M
