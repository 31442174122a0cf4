-- Stargard Solstice 13.0 Air Units: support of an attack (13.1), grounding and refit (13.2, 2.1).
local M = {}

local home = { German = "luftflotte6", Soviet = "airarmy16" }
M.home = home

-- `attack ... air 1JG full Rudel normal`: parses air words into { unit, points, full }.
-- 13.1: at most two air units per attack; 13.0: at most four air points per side per turn.
function M.parse(side, words)
  local out, i = {}, 1
  while i <= #words do
    local u = units.find(words[i])
    umpire.check(u ~= nil, "13.1", "no air unit '%s'", words[i])
    umpire.check(u.kind == "air" and u.side == side, "13.1", "%s is not a %s air unit", u.id, side)
    umpire.check(u.box == home[side], "13.1", "%s is not available (it is in %s)", u.id, u.box or "play")
    local mode = words[i + 1]
    umpire.check(mode == "full" or mode == "normal", "13.1", "say `full` (+2, then grounded) or `normal` (+1) after %s", u.id)
    out[#out + 1] = { unit = u, full = mode == "full", points = mode == "full" and 2 or 1 }
    i = i + 2
  end
  umpire.check(#out <= 2, "13.1", "at most two air units may support one attack")
  local used = (vars.get("air_points") or {})[side] or 0
  local n = 0
  for _, a in ipairs(out) do n = n + a.points end
  umpire.check(used + n <= 4, "13.0", "%s may use at most 4 air points a turn (%d used)", side, used)
  return out
end

-- 13.1.1: a full attack grounds the unit; a normal attack sends it to Refit.
function M.spend(list)
  if #list == 0 then return end
  local pts = vars.get("air_points") or {}
  for _, a in ipairs(list) do
    pts[a.unit.side] = (pts[a.unit.side] or 0) + a.points
    a.unit:put_in(a.full and "grounded" or "refit")
    log.rule("13.1.1", a.unit.id .. (a.full and " is grounded after a full attack" or " returns to Refit after a normal attack"))
  end
  vars.set("air_points", pts)
end

-- 2.1 Air Unit Phase: Refit → air boxes (2.1.1), Grounded → Refit (2.1.2).
function M.phase()
  for _, u in ipairs(units.in_box("refit")) do
    u:put_in(home[u.side])
    log.rule("2.1.1", u.id .. " returns from Refit")
  end
  for _, u in ipairs(units.in_box("grounded")) do
    u:put_in("refit")
    log.rule("2.1.2", u.id .. " moves from Grounded to Refit")
  end
  vars.set("air_points", nil)
end

-- 19.1.10: each side grounds one air unit, from its air box, else from Refit.
function M.ground_one(side)
  local pool = units.in_box(home[side])
  if #pool == 0 then pool = units.in_box("refit") end
  local options = {}
  for _, u in ipairs(pool) do if u.side == side then options[#options + 1] = u.id end end
  if #options == 0 then return end
  local pick = options[1]
  if #options > 1 then
    pick = umpire.ask { prompt = "which air unit is grounded?", side = side, rule = "19.1.10", kind = "unit", options = options }
  end
  units.get(pick):put_in("grounded")
  log.rule("19.1.10", pick .. " is grounded")
end

return M
