-- losses: step losses allocated by the owner, one step at a time, and the split of a numeric
-- combat result into steps and retreat hexes.
--
--   local losses = require "losses"
--   losses.allocate { side = "German", n = 2, units = list, rule = "11.11",
--     lose = function(u) ... end,              -- takes one step from u (the ruleset's own function)
--     eligible = function(u) return true end,  -- optional: who may take the next step
--     default = function(options) return options[1] end }   -- optional
--
-- Each step is a question to the owner (`umpire.ask`, kind "unit", side = the owner) unless only one unit can take
-- it. A unit that is gone (lose() put it in a box) is no longer offered. Returns the steps taken
-- and the steps that could not be taken (no unit left).
local M = {}

local function alive(u) return u.exists and u.hex ~= nil end

---@class Losses.AllocateSpec
---@field side string the owner, who chooses
---@field n integer the steps to take
---@field units UnitRef[] the units that may take them
---@field rule string
---@field lose fun(u: UnitRef) takes one step from u
---@field eligible? fun(u: UnitRef): boolean who may take the next step
---@field default? fun(options: string[], by_id: table<string, UnitRef>): string the default answer
---@field prompt? string

---@param spec Losses.AllocateSpec
---@return integer taken the steps taken
---@return integer left the steps no unit could take
function M.allocate(spec)
  local taken, left = 0, spec.n
  while left > 0 do
    local options, by_id = {}, {}
    for _, u in ipairs(spec.units) do
      if alive(u) and (not spec.eligible or spec.eligible(u)) then
        options[#options + 1] = u.id
        by_id[u.id] = u
      end
    end
    if #options == 0 then break end
    local pick = options[1]
    if #options > 1 then
      local default = spec.default and spec.default(options, by_id) or options[1]
      pick = umpire.ask { prompt = ("%s — which unit loses a step (%d of %d)?"):format(
          spec.prompt or "a step loss", taken + 1, spec.n),
        side = spec.side, rule = spec.rule, kind = "unit", options = options, default = default }
    end
    spec.lose(by_id[pick])
    taken, left = taken + 1, left - 1
  end
  return taken, left
end

-- How many of `n` result points a side may take as hexes of retreat: at most `max_hexes`, the
-- rest steps (0 hexes when the side may not retreat). Asks the owner when there is a choice;
-- default: as many hexes as allowed (`prefer = "steps"` makes the default all steps).
---@param spec { side: string, n: integer, max_hexes?: integer, rule: string, prefer?: "steps" }
---@return integer hexes
---@return integer steps
function M.split(spec)
  local most = math.max(0, math.min(spec.n, spec.max_hexes or spec.n))
  if most == 0 or spec.n == 0 then return 0, spec.n end
  local options = {}
  for h = most, 0, -1 do options[#options + 1] = tostring(h) end
  local default = spec.prefer == "steps" and "0" or tostring(most)
  local hexes = tonumber(umpire.ask { prompt = ("absorb %d — how many as hexes of retreat (0-%d; the rest as steps, taken first)?"):format(
      spec.n, most), side = spec.side, rule = spec.rule, kind = "choice", options = options, default = default })
  return hexes, spec.n - hexes
end

return M
