-- Stargard Solstice: what may be done now (umpire.actions; docs/lua-api.md §2.6). Every command
-- listed is one the verbs accept: the checks are the rules' own (movement.lua, combat.lua).
--
-- Listed: each activated unit's regular moves, one unit at a time, to every hex its movement
-- search reaches (5.1, 5.2, 4.1), that it may end in (5.2.5 transit, 5.2.6 water, 6.0
-- stacking) and that holds no enemy unit (5.3); one attack on each enemy stack with every
-- activated unit that may join it, when the odds reach 1:2 (8.0-8.4, the same odds the attack
-- works out); and `next`. Not listed yet: stacks moving together, strategic and rail moves
-- (5.4, 5.5), overruns of lone HQs (5.6), air support (13.0), advances after combat (10.0),
-- bombardments (8.5), Volksturm (12.4), replacements (7.3), withdrawals (12.6, 16.1) and exits
-- (14.2.1): each may be typed; the list leaves them out rather than offer one the rules refuse.
local C = require "common"
local command = require "command"
local movement = require "movement"
local combat = require "combat"

local M = {}

-- 5.1: may `u` move now? The preconditions of movement.move for a unit moving alone, by
-- regular movement.
local function may_move(u)
  return u.hex ~= nil and not C.is_air(u) and not u:attr("festung") and command.is_active(u)
    and not u:marker("moved") and not u:marker("pinned")
    and (u.side == sides.active() or u:marker("reinforcement") ~= nil)
end

local function moves(side, opts, out)
  local enemy = C.occupied(C.enemy(side))
  for _, u in ipairs(units.all { on_map = true }) do
    if (opts.unit == nil or opts.unit == u.id) and may_move(u) then
      local overrun = C.is_combat(u) and C.attack(u) > 0
      local reach = map.reach(movement.profile(u.side, u.hex, movement.allowance(u), { overrun = overrun }))
      for h, cost in pairs(reach) do
        if h ~= u.hex and not enemy[h] and map.terrain(h) ~= "lake" and not map.has(h, "transit")
          and movement.stacking_problem(h, { u }) == nil then
          out[#out + 1] = { cmd = ("move %s %s"):format(u.id, h), group = "move", unit = u.id, hex = h,
            note = map.fmt_cost(cost) .. " MP" }
        end
      end
    end
  end
end

-- 8.0, 8.3.1, 3.3.5, 8.1.2, 19.1.3, 4.6: may `u` attack `hex` now?
local function may_attack(u, side, hex)
  return u.side == side and C.is_combat(u) and command.is_active(u) and not u:marker("attacked")
    and not u:marker("pinned") and not u:marker("no_attack") and combat.can_attack_into(u.hex, hex)
end

local function attacks(side, out)
  local stacks = units.stacks()
  local done = {}
  for _, h in ipairs(vars.get("attacked_hexes") or {}) do done[h] = true end
  local no_air = require("air").parse(side, {})
  for hex, stack in pairs(stacks) do
    if not done[hex] and stack[1].side ~= side then
      local with, ids = {}, {}
      for _, n in ipairs(map.neighbours(hex)) do
        for _, u in ipairs(stacks[n] or {}) do
          if may_attack(u, side, hex) then with[#with + 1] = u; ids[#ids + 1] = u.id end
        end
      end
      -- the attack's own checks and odds (a refusal, 8.0 or 1.1.3, leaves it out)
      if #with > 0 and pcall(combat.odds, hex, with, no_air) then
        out[#out + 1] = { cmd = ("attack %s with %s"):format(hex, table.concat(ids, ",")), group = "attack",
          units = ids, hex = hex }
      end
    end
  end
end

function M.list(side, opts)
  local out = {}
  local step = umpire.clock().step
  if step == "movement" or step == "reinforcement" or step == "arrivals" then moves(side, opts, out) end
  if step == "combat" then attacks(side, out) end
  out[#out + 1] = "next"
  return out
end

return M
