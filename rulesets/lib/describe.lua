-- describe: helpers for umpire.describe{marker=, attr=} that the rulesets share (how `show`
-- prints a marker or an attribute from tables of words).
local M = {}

-- The text for `name` in table t (name -> function(value, owner) -> text | false, or false):
-- the function's text, false for an entry false (the value is hidden), nil when t has no entry
-- (the value is printed as stored).
---@param t table<string, (fun(value: any, owner: UnitRef|Umpire.Hex): string|false|nil)|false>
---@param name string the marker's or attribute's name
---@param value any
---@param owner UnitRef|Umpire.Hex
---@return string|false|nil
function M.lookup(t, name, value, owner)
  local f = t[name]
  if f == false then return false end
  if f then return f(value, owner) end
  return nil
end

-- A function for umpire.describe{marker=} (or attr=): a unit's looked up in unit_table, a hex's
-- in hex_table.
---@param unit_table table<string, (fun(value: any, owner: UnitRef): string|false|nil)|false>
---@param hex_table table<string, (fun(value: any, owner: Umpire.Hex): string|false|nil)|false>
---@return fun(kind: "unit"|"hex", name: string, value: any, owner: UnitRef|Umpire.Hex): string|false|nil
function M.by_kind(unit_table, hex_table)
  return function(kind, name, value, owner)
    return M.lookup(kind == "unit" and unit_table or hex_table, name, value, owner)
  end
end
M.markers = M.by_kind

return M
