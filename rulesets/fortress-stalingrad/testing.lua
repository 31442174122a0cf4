-- Helpers for command scripts and designers (`lua require("testing").clear()`); the rules never
-- use this module.
local C = require "common"
local control = require "control"
local stacking = require "stacking"
local reinforce = require "reinforce"
local movement = require "movement"
local combat = require "combat"
local kit = require "testkit"   -- rulesets/lib

local M = {}

-- Takes every unit off the map (to the box "offboard"), every unit marker off and every unit back
-- to full strength, so a script can build a situation. Hex control stays as it is (3.3). Air
-- units on the map go to the box "air_spent", set aside (8.4), where the next Air Power Phase
-- picks them up again (air.begin_phase).
function M.clear()
  local air = units.all { on_map = true, kind = "air" }
  kit.clear { box = "offboard", full_strength = true }
  for _, a in ipairs(air) do a:put_in("air_spent") end
end

-- Places units: M.place { ["5TA"] = "3722", ... } (in id order), and notes the hex as the start
-- of this Movement Phase (10.35) so that they may move.
local function origin(u, hex) u:set_marker("origin", tonumber(hex)) end
function M.place(t) kit.place(t, origin) end

-- Sets hex control (3.3) of hexes: M.control({ "3813", "3812" }, "German").
M.control = kit.control

-- What unit `id` pays to move from `a` into the next hex `b` (10.11-10.17): M.cost("5TA", "1709", "1609").
function M.cost(id, a, b)
  return map.path_cost(movement.profile(units.get(id), a, 9), { a, b })
end

-- The first hex (in id order) exactly `d` hexes from the nearest of the side's air bases as 8.11
-- names them (German-controlled towns and cities; the Soviet's 0-0-1s).
function M.hex_from_air_bases(side, d)
  local bases = {}
  if side == C.GERMAN then
    for _, h in ipairs(C.TOWNS) do if control.is(h, C.GERMAN) then bases[#bases + 1] = h end end
  else
    for _, u in ipairs(C.on_map(C.SOVIET, true)) do if C.is_supply_unit(u) then bases[#bases + 1] = u.hex end end
  end
  local hexes = map.hexes()
  table.sort(hexes)
  for _, h in ipairs(hexes) do
    local near = math.huge
    for _, b in ipairs(bases) do near = math.min(near, map.distance(h, b)) end
    if near == d then return h end
  end
end

-- 9.1, 9.16: the plan of a Reinforcement and Replacement Phase: enter the first reinforcements
-- due (4 at most) where they may, replace steps of reduced units (8 commands in all).
local function plan_reinforcement(side, out)
  local due = reinforce.due(side)
  local hexes = map.hexes()
  for i, u in ipairs(due) do
    if i > 4 then break end
    for _, h in ipairs(hexes) do
      if reinforce.entry_cost(u, h) and not stacking.problem(h, side, { u }) then
        out[#out + 1] = ("enter %s %s"):format(u.id, h)
        break
      end
    end
  end
  for _, u in ipairs(C.on_map(side)) do
    if u.step > 1 and #out < 8 then out[#out + 1] = "replace " .. u.id end
  end
end

-- 10.1: the plan of a Movement Phase: up to 6 units each to the hex it can reach nearest an enemy.
local function plan_movement(side, out)
  local enemies = {}
  for _, e in ipairs(C.on_map(C.other(side))) do enemies[#enemies + 1] = e.hex end
  local n = 0
  for _, u in ipairs(C.on_map(side)) do
    if n >= 6 then break end
    if not C.is_garrison(u) and not u:marker("halted") and movement.left(u) > 0 then
      local reach = map.reach(movement.profile(u, u.hex, movement.left(u)))
      local best, bd
      for h in pairs(reach) do
        if h ~= u.hex then
          local d = math.huge
          for _, e in ipairs(enemies) do d = math.min(d, map.distance(h, e)) end
          if not best or d < bd or (d == bd and h < best) then best, bd = h, d end
        end
      end
      if best then
        out[#out + 1] = ("move %s %s"):format(u.id, best)
        n = n + 1
      end
    end
  end
end

-- 11.1: the plan of a Prepared Assault Phase: every enemy hex next to the side's units attacked
-- by every unit next to it that may, when the strengths are at least 1-1.
local function plan_assault(side, out)
  local seen = {}
  for _, u in ipairs(C.on_map(side)) do
    for _, h in ipairs(map.neighbours(u.hex)) do
      local defenders = C.combat_at(h, C.other(side))
      if #defenders > 0 and not seen[h] then
        seen[h] = true
        local att, ids = {}, {}
        for _, n in ipairs(map.neighbours(h)) do
          for _, a in ipairs(C.combat_at(n, side)) do
            if (a:value("attack") or 0) > 0 and not C.is_garrison(a) and not a:marker("attacked") and not combat.attack_blocked(a, n, h, "pa") then
              att[#att + 1] = { u = a, from = n }
              ids[#ids + 1] = a.id
            end
          end
        end
        if #att > 0 then
          local a = combat.attack_strength(att, h)
          local d = combat.defense_strength(defenders, { h })
          if a >= d then out[#out + 1] = ("attack %s with %s"):format(h, table.concat(ids, ",")) end
        end
      end
    end
  end
end

-- A simple player for smoke tests (tests/it/smoke.rs): the commands it would type in this phase,
-- one per line, in a fixed order. It enters every reinforcement due where it may, moves some
-- units towards the nearest enemy, and attacks next to them when the odds are at least 1-1. Read
-- only: it looks at the state and says what to try (a refused command is part of the test).
function M.plan()
  local clock = umpire.clock()
  local side, step = clock.side, clock.step
  local out = {}
  if step == "reinforcement" and side then
    plan_reinforcement(side, out)
  elseif step == "movement" and side then
    plan_movement(side, out)
  elseif step == "assault" and side then
    plan_assault(side, out)
  end
  return table.concat(out, "\n")
end

-- Hexes matching a predicate, in order (lib/testkit.lua).
M.find = kit.find

return M
