-- Fortress Stalingrad 10.38-10.49, 5.4, 5.10, 6.7, 7.18, 7.32: mobile assaults. Mechanized units
-- that started the Movement Phase stacked together attack an adjacent enemy hex by entering it at
-- three times its terrain cost (rivers not tripled), as often as their movement allows while they
-- take their results as steps; a retreat ends their move.
local C = require "common"
local T = require "tables"
local zoc = require "zoc"
local control = require "control"
local combat = require "combat"
local movement = require "movement"
local stacking = require "stacking"
local air = require "air"
local retreats = require "retreats"
local fmco = require "fmco"

local M = {}

local UNIT = 60

-- 10.38: what the mobile assault into `d` from `from` costs `u`: three times the terrain cost of
-- the hex for its class, plus the river crossing (not tripled). nil, rule, why when it may not.
function M.cost(u, from, d)
  local terrain = C.TERRAIN[d]
  local row = T.move_cost[C.class(u)]
  local c = row[terrain]
  if c == nil or c == "no" then return nil, "10.8", d .. " is an all-sea hex" end
  if terrain == "mountain" then return nil, "10.44", ("no mobile assault into mountains (%s)"):format(d) end
  local hs = map.hexside(from, d)
  local river = 0
  if C.contains(hs, "major_river") then river = T.river_cost.major_river end
  return 3 * c + river, nil, ("3 × %d (%s)%s"):format(c, terrain, river > 0 and (" + " .. river .. " (major river, not tripled)") or "")
end

-- 10.2, 10.38, 10.41, 10.43, 5.10, 7.32: the units may mobile-assault together from their hex.
local function check_assaulters(list, side, from, origin)
  umpire.check(from ~= nil, "10.38", "%s is not on the map", list[1].id)
  for _, u in ipairs(list) do
    umpire.check(u.side == side, "10.2", "%s belongs to the %s; only %s units move now", u.id, u.side, side)
    umpire.check(u.hex == from, "10.41", "units that mobile-assault together are in one hex (%s is in %s)", u.id, tostring(u.hex))
    umpire.check(C.is_mech(u), "10.38", "%s is not mechanized: only mechanized units make mobile assaults", u.id)
    umpire.check(u:marker("origin") == origin, "10.41", "units mobile-assault together only if they started the Movement Phase stacked together")
    umpire.check(not u:marker("ma_retreated"), "10.43", "%s retreated after a mobile assault this phase: its move has ended", u.id)
    umpire.check(not u:marker("infiltrated"), "5.10", "%s infiltrated from one enemy zone of control into another this phase: no mobile assault", u.id)
    umpire.check(not (u.side == C.GERMAN and C.supply_level(u) >= T.oos_no_zoc), "7.32", "%s is at %s: German mechanized units in OOS 4-6 make no mobile assaults", u.id, C.supply_label(u))
  end
end

-- 10.38, 10.9, 10.19, 10.44, 10.31, 7.18: `d`, next to `from`, holds enemy units to assault (or
-- an empty intact Soviet entrenchment).
local function check_target(list, from, d, enemy)
  umpire.check(map.distance(from, d) == 1, "10.38", "%s is not next to %s", d, from)
  local r, why = combat.attack_blocked(list[1], from, d, "ma")
  if r then umpire.refuse(r, why) end
  local here = C.combat_at(d, enemy)
  local works = #here == 0 and enemy == C.SOVIET and combat.intrinsic(d)
  if #here == 0 and not works then
    if #C.ground_at(d, enemy) > 0 then
      umpire.refuse("7.18", ("only a 0-0-1 is in %s: it is no mobile assault, moving in pushes it aside (use move)"):format(d))
    end
    umpire.refuse("10.38", ("there is no %s unit in %s"):format(enemy, d))
  end
end

-- 10.38, 10.42: every unit pays the tripled cost, and must have it left.
local function assault_costs(list, from, d)
  local costs = {}
  for _, u in ipairs(list) do
    local c, rule, text = M.cost(u, from, d)
    if not c then umpire.refuse(rule, text) end
    local left = movement.left(u)
    umpire.check(left >= c, "10.42", "%s has %s MP left; the mobile assault into %s costs %s MP (%s)", u.id, map.fmt_cost(left), d, map.fmt_cost(c), text)
    costs[u.id] = c
  end
  return costs
end

-- 10.43, 10.47, 10.48, 11.32: after the battle: a retreat ends the move; victors who cleared the
-- hex stand in it and may go on; otherwise they stay in the launch hex.
local function after_battle(list, s, side, enemy, from, d)
  local alive = {}
  for _, u in ipairs(list) do if u.hex then alive[#alive + 1] = u end end
  if s.attacker_hexes > 0 then
    -- 10.43, 10.47: a retreat (figured from the launch hex) ends the move
    for _, u in ipairs(alive) do u:set_marker("ma_retreated", 1) u:set_marker("mp_used", math.tointeger(movement.mf(u) * UNIT)) end
    if #alive > 0 then log.rule("10.43", ("%s retreated: %s move ends in %s"):format(C.list_ids(alive), #alive > 1 and "their" or "its", alive[1].hex)) end
    retreats.open_defenders_advance(side, { d }, { from })   -- 11.32: against mobile assaults too
  elseif s.cleared and #alive > 0 then
    -- 10.48: the hex is clear; the victors stand in it (DATA.md) and may go on
    local ez = zoc.zoc(enemy)
    for _, u in ipairs(alive) do
      u:move_to(d)
      if ez[d] then u:set_marker("halted", 1) end
    end
    log.rule("10.48", ("%s stand%s in %s and may go on moving and mobile-assaulting (%s MP left)%s"):format(C.list_ids(alive), #alive > 1 and "" or "s", d,
      map.fmt_cost(movement.left(alive[1])), ez[d] and "; it is in an enemy zone of control: only mobile assaults from here (5.4)" or ""))
    movement.entered({ from, d }, side, alive)
    air.follow(from, d, side)
  elseif #alive > 0 then
    log.rule("10.48", ("%s stay%s in %s (%s MP left)"):format(C.list_ids(alive), #alive > 1 and "" or "s", from, map.fmt_cost(movement.left(alive[1]))))
  end
end

umpire.command {
  usage = "assault <hex> with <units>",
  help = "a mobile assault (10.38): mechanized units that started the phase together enter an adjacent enemy hex for three times its terrain cost",
  example = "assault 3621 with 5TA,1TC",
  rule = "10.38", phases = { "movement" }, odds = true,
  run = function(d, list)
    local side = umpire.clock().side
    local enemy = C.other(side)
    local from = list[1].hex
    local origin = list[1]:marker("origin")
    check_assaulters(list, side, from, origin)
    check_target(list, from, d, enemy)
    -- 10.39, 6.7: the launch hex within the stacking limit at the instant of the assault
    local prob_rule, prob = stacking.problem(from, side)
    if prob_rule then umpire.refuse("10.39", ("the launch hex is over the stacking limit: %s"):format(prob)) end
    local costs = assault_costs(list, from, d)
    -- 10.34: this is part of the stack's movement
    for _, u in ipairs(list) do movement.parent_check(u) end
    movement.begin_parent(origin)
    retreats.close_advance()   -- 11.32: an occupation not taken before this assault is forgone
    for _, u in ipairs(list) do
      u:set_marker("mp_used", (u:marker("mp_used") or 0) + costs[u.id] * UNIT)
      u:set_marker("moved", 1)
    end
    log.rule("10.38", ("mobile assault on %s by %s from %s (%s MP each: %s)"):format(d, C.list_ids(list), from,
      map.fmt_cost(costs[list[1].id]), select(3, M.cost(list[1], from, d))))
    local attackers = {}
    for _, u in ipairs(list) do attackers[#attackers + 1] = { u = u, from = from } end
    local s = combat.resolve { kind = "ma", attacker = side, defender = enemy, attackers = attackers, hexes = { d }, from_hexes = { from } }
    if fmco.declared() and side == C.GERMAN then vars.set("fmco_attacks", (vars.get("fmco_attacks") or 0) + 1) end
    after_battle(list, s, side, enemy, from, d)
  end,
}

return M
