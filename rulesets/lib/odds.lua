-- odds: combat odds columns shared by the rulesets.
--
--   local odds = require "odds"
--   local cols = odds.columns { "1-3", "1-2", "1-1", "2-1", "3-1", "4-1", "5-1", "6-1", "7-1", "8-1" }
--   local col = odds.column(26, 8, cols)            --> 5 (3-1): 26/8 rounded in the defender's favour
--   col = odds.shift(col, 1, cols)                   -- one column up, clamped to the table
--   cols[col].name                                   --> "4-1"
--
-- A column is the ratio attack:defence it needs. The odds of a battle are the highest column
-- whose ratio the strengths reach, so any remainder goes to the defender (26 against 8 is 3-1,
-- not 3.25-1). Below the lowest column the answer is nil (no attack at these odds) unless
-- `below = "clamp"` (the lowest column). A defence of 0 or less is the highest column.
-- Integer arithmetic only: att * d >= def * a for a column a-d.
local M = {}

---@class Odds.Column
---@field name string as written ("3-1")
---@field a integer the attack part of the ratio
---@field d integer the defence part

-- Parses "3-1", "1:2", "7-1+" into { name =, a =, d = }. A bad name is a bug of the ruleset.
local function parse(name)
  local a, d = tostring(name):match("^%s*(%d+)%s*[-:]%s*(%d+)%+?%s*$")
  if not a then error(("odds: '%s' is not a ratio column (write it like 3-1 or 1:2)"):format(tostring(name)), 3) end
  return { name = name, a = tonumber(a), d = tonumber(d) }
end

-- The columns of a table from their names, lowest odds first.
---@param names string[]
---@return Odds.Column[]
function M.columns(names)
  local out = {}
  for i, n in ipairs(names) do
    out[i] = parse(n)
    if i > 1 and out[i].a * out[i - 1].d <= out[i - 1].a * out[i].d then
      error(("odds: column %s does not follow %s (columns go from the lowest odds up)"):format(n, names[i - 1]), 2)
    end
  end
  return out
end

-- The column of `att` against `def` (see above). opts.below = "clamp" clamps low odds to the first
-- column; otherwise odds below it give nil.
---@param att integer
---@param def integer
---@param cols Odds.Column[]
---@param opts? { below?: "clamp" }
---@return integer|nil column
function M.column(att, def, cols, opts)
  if def <= 0 then return #cols end
  local best
  for i, c in ipairs(cols) do
    if att * c.d >= def * c.a then best = i end
  end
  if not best and opts and opts.below == "clamp" then best = 1 end
  return best
end

-- `col` moved by `n` columns (positive: towards higher odds), clamped to the table.
---@param col integer
---@param n integer
---@param cols Odds.Column[]
---@return integer
function M.shift(col, n, cols)
  return math.max(1, math.min(#cols, col + n))
end

-- The plain ratio, reduced in the defender's favour, for messages: "3-1" or "1-3".
---@param att integer
---@param def integer
---@return string
function M.ratio(att, def)
  if def <= 0 then return "no defence" end
  if att >= def then return ("%d-1"):format(att // def) end
  if att <= 0 then return "0-1" end
  return ("1-%d"):format((def + att - 1) // att)
end

return M
