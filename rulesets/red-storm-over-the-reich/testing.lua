-- Helpers for command scripts and designers (`lua require("testing").clear()`); the rules never
-- use this module.
local kit = require "testkit"   -- rulesets/lib
local C = require "common"
local T = require "tables"
local allowance = require "allowance"
local movement = require "movement"
local resolution = require "resolution"
local reinforce = require "reinforce"
local M = {}

-- Takes every unit off the map (to the box "removed"), every unit marker off and every unit back
-- to full strength (but a unit that starts as its Kampfgruppe), so a script can build a
-- situation. Hex control stays as it is (3.5.A).
local function not_kg(u) return not u:attr("starts_kg") end
function M.clear() kit.clear { box = "removed", full_strength = not_kg } end

-- Places units: M.place { ["10GT"] = "5241", ... } (in id order).
function M.place(t) kit.place(t) end

-- What `next` at a terminal would warn is left undone now (8.1, 8.2.1), as one text.
M.unfinished = kit.unfinished

-- Sets hex control (3.5.A) of hexes: M.control({ "3813", "3812" }, "Soviet").
M.control = kit.control

-- Sets the control of every hex for which pred(hex, column, row) is true: M.control_where(function(h, c) return c >= 22 end, "Soviet").
function M.control_where(pred, side)
  local list = {}
  for _, h in ipairs(map.hexes()) do
    if pred(h, tonumber(h:sub(1, 2)), tonumber(h:sub(3, 4))) then list[#list + 1] = h end
  end
  M.control(list, side)
end

-- Skips the Sleigh Ride / Guderian set-up decisions (3.3.A, 3.4.A) for a script that tests
-- something else: the counts are deemed made and the Guderian units left unplaced leave the game.
function M.skip_setup()
  vars.set("setup_counts", { kg = 3, reduce = 1 })
  for _, u in ipairs(units.in_box("guderian")) do u:put_in("removed") end
end

-- The distance from `hex` to the nearest of `enemy_hexes` (a list; math.huge when empty).
---@param hex string
---@param enemy_hexes string[]
---@return number
local function near_enemy(hex, enemy_hexes)
  local d = math.huge
  for _, e in ipairs(enemy_hexes) do d = math.min(d, map.distance(hex, e)) end
  return d
end

-- 3.3.A, 3.4.A: the set-up decisions: three infantry divisions on or south of the Sleigh Ride row
-- to their KGs, one panzer division there reduced, and each Guderian unit waiting to a west-edge
-- hex (one unit each, not next to a Soviet unit).
---@param out string[] the commands planned so far (appended to)
local function plan_setup(out)
  local n = 0
  for _, u in ipairs(C.on_map(C.GERMAN)) do
    if n < T.sleigh_kgs and u:attr("kg") and u.step == 1 and tonumber(u.hex:sub(3, 4)) >= T.sleigh_row then
      out[#out + 1] = "kg " .. u.id; n = n + 1
    end
  end
  for _, u in ipairs(C.on_map(C.GERMAN)) do
    if u:attr("panzer") and u.step == 1 and tonumber(u.hex:sub(3, 4)) >= T.sleigh_row then
      out[#out + 1] = "reduce " .. u.id
      break
    end
  end
  local soviet = {}
  for _, e in ipairs(C.on_map(C.SOVIET)) do soviet[#soviet + 1] = e.hex end
  local used = {}
  local west = C.EDGE.German
  for i, u in ipairs(units.in_box("guderian")) do
    -- a west-edge hex, one unit each: far from the Soviet, supplied, within the limits
    local h = west[(i * 7) % #west + 1]
    local k = 0
    while (used[h] or near_enemy(h, soviet) <= 1) and k < #west do k = k + 1; h = west[(i * 7 + k) % #west + 1] end
    used[h] = true
    out[#out + 1] = ("deploy %s %s"):format(u.id, h)
  end
end

-- 8.1, 8.2: the hexes a placement is tried in: the map edges, the ports, Memel's road (8.1.1.B)
-- and the urban, city, town and fortress hexes (in hex order within each).
---@return string[]
local function placement_hexes()
  local cands = {}
  for _, h in ipairs(C.EDGE.German) do cands[#cands + 1] = h end
  for _, h in ipairs(C.PORT_LIST) do cands[#cands + 1] = h end
  for _, h in ipairs(C.SOUTH_EDGE) do cands[#cands + 1] = h end
  cands[#cands + 1] = "4601"
  for _, set in ipairs { C.URBAN, C.CITY, C.TOWN, C.FORTRESS } do
    local l = {}
    for h in pairs(set) do l[#l + 1] = h end
    table.sort(l)
    for _, h in ipairs(l) do cands[#cands + 1] = h end
  end
  return cands
end

-- 8.1, 8.2: up to twelve reinforcements due and replacements drawn, each in a hex it may go.
---@param out string[] the commands planned so far (appended to)
---@param side string the side placing
local function plan_placements(out, side)
  local cands = placement_hexes()
  local todo = reinforce.due(side)
  for _, id in ipairs(vars.get(side == C.GERMAN and "ger_repl" or "sov_repl") or {}) do
    local u = units.get(id)
    if u and not u.hex then todo[#todo + 1] = u end
  end
  local placed = 0
  for _, u in ipairs(todo) do
    if placed >= 12 then break end
    local k = reinforce.kind(u)
    if k then
      local legal = reinforce.legal(u, k, cands)
      if #legal > 0 then
        out[#out + 1] = ("place %s %s"):format(u.id, legal[(placed % #legal) + 1])
        placed = placed + 1
      end
    end
  end
end

-- 11.0: two ready artillery units of the side fire, each at the first enemy combat hex in range.
---@param out string[] the commands planned so far (appended to)
---@param side string the side firing
local function plan_barrages(out, side)
  local enemy = {}
  for _, e in ipairs(C.on_map(C.other(side))) do if C.is_combat(e) then enemy[e.hex] = true end end
  local n = 0
  for _, a in ipairs(units.all { side = side, kind = "artillery", on_map = true }) do
    if n >= 2 then break end
    if not a:marker("used") then
      local range = a:attr("range") or 0
      for _, h in ipairs(map.within(a.hex, range)) do
        if enemy[h] then out[#out + 1] = ("barrage %s %s"):format(a.id, h); n = n + 1; break end
      end
    end
  end
end

-- 13.1: up to three single-hex attacks from stacks next to the enemy, each at least as strong as
-- the defence.
---@param out string[] the commands planned so far (appended to)
---@param side string the attacker
local function plan_attacks(out, side)
  local n = 0
  local seen = {}
  for _, u in ipairs(C.on_map(side, C.is_combat)) do
    if n >= 3 then break end
    if not seen[u.hex] and not u:marker("attacked") then
      seen[u.hex] = true
      local mine = {}
      for _, x in ipairs(C.combat_at(u.hex, side)) do
        if (x:value("attack") or 0) > 0 and not x:marker("entrained") then mine[#mine + 1] = x end
      end
      if #mine >= 2 or (#mine == 1 and not C.is_infantry(mine[1])) then
        for _, h in ipairs(map.neighbours(u.hex)) do
          local def = resolution.defenders(h, C.other(side))
          if #def > 0 and resolution.strength(mine, "attack") >= resolution.strength(def, "defense") then
            out[#out + 1] = ("attack %s with %s"):format(h, C.ids(mine))
            n = n + 1
            break
          end
        end
      end
    end
  end
end

-- 10.4: two units of the side that may still move go to the hex they reach nearest the enemy
-- (not onto a hex holding two friendly units).
---@param out string[] the commands planned so far (appended to)
---@param side string the side moving
local function plan_moves(out, side)
  local enemies = {}
  for _, e in ipairs(C.on_map(C.other(side))) do enemies[e.hex] = true end
  -- the distance of every hex from the nearest enemy unit, in one search
  local dist = next(enemies) and map.reach { from = enemies, routes = false } or {}
  local function near(h) return dist[h] or math.huge end
  local zones = movement.zones(side)
  local friends = {}
  for h, stack in pairs(units.stacks()) do
    for _, x in ipairs(stack) do if x.side == side then friends[h] = (friends[h] or 0) + 1 end end
  end
  local n = 0
  for _, u in ipairs(C.on_map(side)) do
    if n >= 2 then break end
    if (C.is_combat(u) or C.is_artillery(u)) and not u:marker("moved") and not u:marker("immobile") and not u:marker("entrained") and movement.left(u) >= 1 then
      local ok, reach = pcall(map.reach, (movement.profile(u, u.hex, movement.left(u), zones)))
      if ok then
        local best, bd = nil, near(u.hex)
        for h in pairs(reach) do
          local d = near(h)
          if h ~= u.hex and (friends[h] or 0) < 2 and (d < bd or (d == bd and best and h < best)) then best, bd = h, d end
        end
        if best then out[#out + 1] = ("move %s %s"):format(u.id, best); n = n + 1 end
      end
    end
  end
end

local BARRAGE_STEPS = { sov_barrage = true, ger_barrage = true, sov_barrage_ger = true, ger_barrage_sov = true }

-- A simple player for smoke tests (tests/it/smoke.rs): the commands it would type now, one per
-- line, in a fixed order (read only: it looks at the state and says what to try; a refused
-- command is part of the test). It makes the set-up decisions, places reinforcements where they
-- may go, moves some units toward the nearest enemy, fires ready artillery at enemy hexes in range
-- and attacks from stacks next to the enemy.
---@return string
function M.plan()
  local clock = umpire.clock()
  local side, step = clock.side, clock.step
  local out = {}
  if not side then return "" end
  if step == "setup" then
    plan_setup(out)
  elseif step == "ger_place" or step == "sov_place" then
    plan_placements(out, side)
  elseif BARRAGE_STEPS[step] then
    plan_barrages(out, side)
  elseif step == "sov_combat" or step == "ger_combat" then
    plan_attacks(out, side)
  elseif allowance.segment() == "assault" or allowance.segment() == "exploitation" then
    plan_moves(out, side)
  end
  return table.concat(out, "\n")
end

-- Hexes matching a predicate, in order (lib/testkit.lua).
M.find = kit.find

return M
