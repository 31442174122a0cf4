-- Red Storm over the Reich 5: stacking. Three combat units a hex, no more than two Soviet
-- mechanized (the guard cavalry is not mechanized for this), and one support unit of each kind
-- (garrison, artillery, flak, refugee, leader); air and naval units and markers are free (5.2).
-- Checked at placement, at the end of each movement segment and after retreats and advances
-- (5.1); the owner eliminates the excess, with no Kampfgruppe formed (5.3, 16.1.C): a German
-- infantry division or KG so eliminated does not go to the KG pool (DATA.md R43).
local C = require "common"
local T = require "tables"
local kg = require "kg"

local M = {}

local SUPPORT = { garrison = true, artillery = true, flak = true, refugee = true, leader = true }

-- 5.2.A, 5.2.B: the combat units, the Soviet mechanized units and the support units of each
-- kind in `list`.
local function count(list)
  local combat, mech, kinds = 0, 0, {}
  for _, u in ipairs(list) do
    if C.is_combat(u) then
      combat = combat + 1
      if C.is_mech(u) and u.side == C.SOVIET then mech = mech + 1 end
    elseif SUPPORT[u.kind] then
      kinds[u.kind] = (kinds[u.kind] or 0) + 1
    end
  end
  return combat, mech, kinds
end

-- What is over the limits in `hex` for `side` with `extra` units added: nil, or rule, text.
-- (stack: the hex's units where the caller has them, as for C.at)
function M.problem(hex, side, extra, stack)
  local list = C.at(hex, side, nil, stack)
  for _, u in ipairs(extra or {}) do
    if not C.contains(list, u) then list[#list + 1] = u end
  end
  local combat, mech, kinds = count(list)
  if combat > T.stack.combat then return "5.2.A", ("%d combat units in %s (at most %d)"):format(combat, hex, T.stack.combat) end
  if mech > T.stack.soviet_mech then return "5.2.A", ("%d Soviet mechanized units in %s (at most %d)"):format(mech, hex, T.stack.soviet_mech) end
  for k, n in pairs(kinds) do
    if n > T.stack.support_each then return "5.2.B", ("%d %s units in %s (one of each kind of support unit)"):format(n, k, hex) end
  end
  return nil
end

-- 5.3: the owner eliminates units until the hex is within the limits (no KG is formed).
function M.enforce(side, when)
  for hex, stack in pairs(units.stacks()) do
    local rule, what = M.problem(hex, side)
    while rule do
      local options = {}
      for _, u in ipairs(stack) do if u.side == side and u.exists and u.hex == hex then options[#options + 1] = u.id end end
      local pick = umpire.ask { prompt = ("%s is overstacked at %s (%s): which unit is eliminated?"):format(hex, when, what),
        side = side, rule = "5.3", kind = "unit", options = options, default = options[#options] }
      local text = kg.eliminate_unit(units.get(pick), "overstacked: no KG is formed, 5.3, 16.1.C")
      log.rule("5.3", ("%s overstacked at %s: %s"):format(hex, when, text))
      stack = units.at(hex)
      rule, what = M.problem(hex, side)
    end
  end
end

-- 5.3: how many of the side's units in `hex` the owner must eliminate to bring it within the
-- limits: the combat units over 3 (or the Soviet mechanized over 2, whichever is more), and each
-- support unit beyond the first of its kind.
local function excess(hex, side)
  local combat, mech, kinds = count(C.at(hex, side))
  local n = math.max(0, combat - T.stack.combat, mech - T.stack.soviet_mech)
  for _, k in pairs(kinds) do n = n + math.max(0, k - T.stack.support_each) end
  return n
end

-- 5.1, 5.2, 5.3: what the player is told at the move that leaves `hex` over the limits (nil: it is
-- not): the rule broken, that it is legal for now (`now`: "while moving") until `when` (5.1), and
-- what it will cost then (units of the owner's choice eliminated, with no KG for the German, 16.1.C).
function M.warning(hex, side, when, now)
  local rule, what = M.problem(hex, side)
  if not rule then return nil end
  local n = excess(hex, side)
  return ("over the stacking limits of %s: %s; allowed %s, but if it is still so at %s (5.1) the %s eliminates %d %s of his choice there (5.3%s)"):format(
    rule, what, now or "while moving", when, side, n, n == 1 and "unit" or "units", side == C.GERMAN and ", no KG formed, 16.1.C" or "")
end

-- 8.1.1, 8.2.1: may `u` be placed in `hex` within the limits?
function M.room(hex, u)
  return M.problem(hex, u.side, { u }) == nil
end

return M
