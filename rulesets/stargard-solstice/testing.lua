-- Helpers for command scripts and designers (`lua require("testing").clear()`); the rules never
-- use this module.
local kit = require "testkit"   -- rulesets/lib
local C = require "common"
local movement = require "movement"
local combat = require "combat"
local checks = require "checks"   -- rulesets/lib
local reinforce = require "reinforce"
local supply = require "supply"
local zoc = require "zoc"
local M = {}

-- Takes every unit off the map (to the box "offboard"), so a script can build a situation.
function M.clear() kit.clear { box = "offboard" } end

-- Places units: M.place { ["4Pz/4SS"] = "17.14", ... } (in a fixed order).
function M.place(t) kit.place(t) end

-- Activates units as if their HQ had been drawn, with the side to act.
function M.activate(side, ids)
  for _, id in ipairs(ids) do units.get(id):set_marker("active", 1) end
  vars.set("active", { hq = "test", side = side, how = "test" })
  umpire.set_side(side)
end

-- Neighbours of a hex across hexsides without a river into land: places to attack from
-- without a river between.
function M.open_neighbours(hex)
  local out = {}
  for _, n in ipairs(map.neighbours(hex)) do
    local t = map.terrain(n)
    local river = false
    for _, f in ipairs(map.hexside(hex, n)) do
      if f == "river" or f == "major_river" or f == "impassable" then river = true end
    end
    if not river and t ~= "lake" and t ~= "restrictive" then out[#out + 1] = n end
  end
  return out
end

-- Hexes matching a predicate, in order (lib/testkit.lua).
M.find = kit.find

-- ------------------------------------------------------------------ a simple player
-- A simple player for smoke games (tests/it/smoke.rs): the commands it would type now, one per
-- line, in a fixed order, each one the rules accept as the state stands when the plan is made
-- (a command may still be refused once an earlier one changed the state: part of the test). It
-- moves the units that may move toward the nearest enemy unit, attacks where the list of
-- actions offers an attack at printed odds of 1:1 or better, bombards what it may, spends the
-- Soviet replacement points and deploys the Volksturm. Read only: it looks and says what to try.

-- 5.1: each unit that may move now (the move verb's checks, movement.why_not_now), to the hex
-- of its reach nearest an enemy unit (then the lowest id), not held by the enemy, not a transit
-- hex, within the stacking limit and not taken by an earlier move of the plan; at most six.
---@param out string[] the commands so far
local function plan_moves(out)
  local enemy_hexes = { German = {}, Soviet = {} }
  for _, u in ipairs(units.all { on_map = true }) do
    if not C.is_air(u) then table.insert(enemy_hexes[C.other(u.side)], u.hex) end
  end
  local taken, n = {}, 0
  for _, u in ipairs(units.all { on_map = true }) do
    if n >= 6 then break end
    if C.is_combat(u) and movement.why_not_now(u) == nil then
      local enemy = C.occupied(C.other(u.side))
      local best, bd
      for h in pairs(movement.reach(u)) do
        if h ~= u.hex and not enemy[h] and not taken[h] and not map.has(h, "transit")
            and not movement.stacking_problem(h, { u }) then
          local d = math.huge
          for _, e in ipairs(enemy_hexes[u.side]) do d = math.min(d, map.distance(h, e)) end
          if not best or d < bd or (d == bd and h < best) then best, bd = h, d end
        end
      end
      if best then
        out[#out + 1] = ("move %s %s"):format(u.id, best)
        taken[best] = true
        n = n + 1
      end
    end
  end
end

-- 8.0-8.4: an attack on each enemy stack holding a combat unit, not attacked yet this segment,
-- by every unit that may join it (the attack's own checks, combat.check_attacker) and is in no
-- other attack of the plan, when the strengths with their factors (combat.factors: supply,
-- rivers) give 1:1 or better; at most three.
---@param side string
---@param out string[] the commands so far
local function plan_attacks(side, out)
  local stacks = units.stacks()
  local done = {}
  for _, h in ipairs(vars.get("attacked_hexes") or {}) do done[h] = true end
  local hexes = {}
  for h in pairs(stacks) do hexes[#hexes + 1] = h end
  table.sort(hexes)
  local used, n = {}, 0
  for _, hex in ipairs(hexes) do
    if n >= 3 then break end
    local def = 0
    for _, u in ipairs(stacks[hex]) do
      if u.side ~= side and C.is_combat(u) then def = def + C.defense(u) * combat.factors(u) end
    end
    if not done[hex] and stacks[hex][1].side ~= side and def > 0 then
      local ids, att = {}, 0
      for _, nb in ipairs(map.neighbours(hex)) do
        for _, u in ipairs(stacks[nb] or {}) do
          if not used[u.id] and checks.passes(function(check) combat.check_attacker(u, side, hex, check) end) then
            ids[#ids + 1] = u.id
            att = att + C.attack(u) * combat.factors(u, u.hex, hex)
          end
        end
      end
      if #ids > 0 and math.floor(att + 1e-9) >= math.floor(def + 1e-9) then
        for _, id in ipairs(ids) do used[id] = true end
        out[#out + 1] = ("attack %s with %s"):format(hex, table.concat(ids, ","))
        n = n + 1
      end
    end
  end
end

-- 8.5.1: a bombardment attack on each enemy stack next to a friendly combat unit (of Stell II
-- for 19.1.2), as many as the roll gave.
---@param out string[] the commands so far
local function plan_bombardment(out)
  local b = vars.get("bombardment")
  if not b then return end
  local left = b.left
  local hexes = {}
  for h in pairs(units.stacks()) do hexes[#hexes + 1] = h end
  table.sort(hexes)
  for _, h in ipairs(hexes) do
    if left <= 0 then break end
    local stack = units.at(h)
    if stack[1].side ~= b.side and not C.contains(b.targets, h) then
      local adjacent = false
      for _, n in ipairs(map.neighbours(h)) do
        for _, u in ipairs(units.at(n)) do
          if u.side == b.side and C.is_combat(u) and (b.restriction ~= "stell2" or u:attr("formation") == "Stell-II-HQ") then adjacent = true end
        end
      end
      if adjacent then
        out[#out + 1] = "bombard " .. h
        left = left - 1
      end
    end
  end
end

-- 7.3: a step back for reduced non-mechanized units on the map, in supply and out of enemy ZOCs,
-- while the side's points by schedule last (1 RP a step; the points of events are left unspent).
---@param side string
---@param out string[] the commands so far
local function plan_replacements(side, out)
  local points = 0
  for _, p in ipairs(reinforce.rp_pools(side)) do
    if p.rule == nil and p.mech ~= true then points = points + p.points end
  end
  local ez = zoc.ezoc(side)
  for _, u in ipairs(units.all { side = side, on_map = true }) do
    if points <= 0 then break end
    if C.is_combat(u) and not C.is_mech(u) and u.steps > 1 and u.step > 1 and not ez[u.hex]
        and not u:marker("oos") and not u:marker("isolated") then
      out[#out + 1] = "replace " .. u.id .. " 7.3"
      points = points - 1
    end
  end
end

-- 12.4: each Volksturm unit of the box into the first empty German town, village or city (in id
-- order) five hexes or more from every Soviet unit that a German supply line reaches.
---@param out string[] the commands so far
local function plan_volksturm(out)
  local soviets = units.all { side = "Soviet", on_map = true }
  local taken = {}
  for _, u in ipairs(units.in_box("volksturm")) do
    local reach = supply.trace("German", C.sources(u))
    for _, h in ipairs(M.find(function(h)
      local t = map.terrain(h)
      return t == "town" or t == "city" or map.has(h, "village")
    end)) do
      local far = true
      for _, s in ipairs(soviets) do if map.distance(s.hex, h) < 5 then far = false break end end
      if far and not taken[h] and #units.at(h) == 0 and not map.marker(h, "soviet_vp") and reach[h] then
        out[#out + 1] = ("volksturm %s %s"):format(u.id, h)
        taken[h] = true
        break
      end
    end
  end
end

---@return string lines the commands, one a line
function M.plan()
  local clock = umpire.clock()
  local step, side = clock.step, clock.side
  local out = {}
  if step == "movement" or step == "arrivals" or step == "reinforcement" then
    plan_moves(out)
  elseif step == "combat" and side then
    plan_attacks(side, out)
  elseif step == "bombardment" then
    plan_bombardment(out)
  elseif step == "replacements" and side then
    plan_replacements(side, out)
  elseif step == "volksturm" then
    plan_volksturm(out)
  end
  return table.concat(out, "\n")
end

return M
