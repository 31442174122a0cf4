-- Fortress Stalingrad 6: stacking. Two units a hex (6.2) besides the exempt ones (6.3); the
-- satellite nationalities never rest together (6.8); checked only when units are placed, at the
-- end of the Movement and Prepared Assault Phases, after each retreat and advance, and in the
-- launch hex of a mobile assault (6.6, 6.7); an excess dies (6.4).
local C = require "common"
local T = require "tables"

local M = {}

-- What is wrong with the side's units in `hex`, or nil: the units that count, the nations.
-- `extra` are units about to be added (placement). `stack`: units.at(hex), if the caller has it
-- (a list of placements reads every stack once, units.stacks).
function M.problem(hex, side, extra, stack)
  local list = {}
  for _, u in ipairs(stack or units.at(hex)) do
    if u.side == side then list[#list + 1] = u end
  end
  for _, u in ipairs(extra or {}) do list[#list + 1] = u end
  local counting, nations, n = {}, {}, {}   -- n: the satellite nations present, each once
  for _, u in ipairs(list) do
    if C.counts_for_stacking(u) then counting[#counting + 1] = u.id end
    local nation = C.nation(u)
    if C.SATELLITES[nation] and not nations[nation] then nations[nation] = true n[#n + 1] = nation end
  end
  if #counting > T.stack_limit then
    return "6.2", ("%d units that count for stacking in %s (%s); the limit is %d"):format(#counting, hex, table.concat(counting, ", "), T.stack_limit)
  end
  if #n > 1 then
    table.sort(n)
    return "6.8", ("%s units may not rest together in %s (%s)"):format(table.concat(n, " and "), hex, side)
  end
  return nil
end

-- 6.4: the units of `side` in `hex` die until the hex is legal. The owner picks which, among the
-- violators: the units that `arrived` (a retreat, an advance), else those that moved this phase,
-- else any that count.
function M.enforce_hex(hex, side, rule, arrived)
  while true do
    local why_rule, why = M.problem(hex, side)
    if not why_rule then return end
    local all, late, moved = {}, {}, {}
    local came = {}
    for _, u in ipairs(arrived or {}) do came[u.id] = true end
    for _, u in ipairs(units.at(hex)) do
      if u.side == side and (C.counts_for_stacking(u) or (why_rule == "6.8" and C.is_satellite(u))) then
        all[#all + 1] = u.id
        if came[u.id] then late[#late + 1] = u.id end
        if u:marker("moved") then moved[#moved + 1] = u.id end
      end
    end
    local options = #late > 0 and late or (#moved > 0 and moved or all)
    local pick = options[1]
    if #options > 1 then
      pick = umpire.ask { prompt = ("%s — which unit is destroyed (6.4)?"):format(why), side = side, rule = "6.4",
        kind = "unit", options = options, default = options[1] }
    end
    C.eliminate(units.get(pick), "6.4", ("overstacked at %s (%s)"):format(rule or "6.6", why))
  end
end

-- Every hex of the side (6.6: at the end of a phase).
function M.enforce(side, rule)
  local seen, hexes = {}, {}
  for _, u in ipairs(C.on_map(side)) do
    if not seen[u.hex] then seen[u.hex] = true hexes[#hexes + 1] = u.hex end
  end
  table.sort(hexes)
  for _, h in ipairs(hexes) do M.enforce_hex(h, side, rule) end
end

-- 6.4: how many units must die for `hex` to be legal again (6.2: those over the limit; 6.8: all
-- but the largest satellite nation).
local function excess(hex, side, rule)
  local counting, by_nation, sat = 0, {}, 0
  for _, u in ipairs(units.at(hex)) do
    if u.side == side then
      if C.counts_for_stacking(u) then counting = counting + 1 end
      if C.is_satellite(u) then
        sat = sat + 1
        by_nation[C.nation(u)] = (by_nation[C.nation(u)] or 0) + 1
      end
    end
  end
  if rule == "6.2" then return counting - T.stack_limit end
  local most = 0
  for _, n in pairs(by_nation) do most = math.max(most, n) end
  return sat - most
end

-- 6.2, 6.8, 6.6, 6.4: what the player is told at the move that leaves `hex` over the limit, or
-- nil: the rule broken, when it is enforced (`when`: the end of the Movement Phase, 6.6) and what
-- it costs (the violators die, the owner picking among the units that moved in this phase).
function M.warning(hex, side, when)
  local rule, why = M.problem(hex, side)
  if not rule then return nil end
  local moved = {}
  for _, u in ipairs(units.at(hex)) do
    if u.side == side and u:marker("moved") and (C.counts_for_stacking(u) or (rule == "6.8" and C.is_satellite(u))) then moved[#moved + 1] = u.id end
  end
  table.sort(moved)
  local n = excess(hex, side, rule)
  local who = #moved > 0 and ("of the units that moved there this phase (%s)"):format(table.concat(moved, ", ")) or "of the units there"
  return ("%s (%s): if it is still so at %s (6.6), %d %s %s destroyed, the owner picking which (6.4)"):format(
    why, rule, when, n, who, n == 1 and "is" or "are")
end

-- The hexes of the side that are over the limit now, each with its warning (`next` repeats them).
function M.problems(side, when)
  local seen, out = {}, {}
  for _, u in ipairs(C.on_map(side)) do
    if not seen[u.hex] then
      seen[u.hex] = true
      local w = M.warning(u.hex, side, when)
      if w then out[#out + 1] = w end
    end
  end
  table.sort(out)
  return out
end

return M
