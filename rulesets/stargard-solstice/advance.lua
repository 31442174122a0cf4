-- Stargard Solstice 10.0 Advance After Combat: the hex an attack vacated is offered to the
-- attackers (10.0, 12.2.4 with their HQs); the first hex, then a second for mechanized units when
-- the defender retreated (10.3, 10.3.1, 10.4, 11.3.3); never where regular movement could not
-- enter (10.5, 10.5.1); the stacking limit where the advance ends (6.1).
local C = require "common"
local movement = require "movement"
local headquarters = require "hq"
local victory = require "victory"
local M = {}

-- 10.0: after an attack on `hex`, a vacated hex may be advanced into by the attackers still on the
-- map and the HQs of their stacks (12.2.4): kept in vars `advance` until used or the segment ends.
---@param hex Umpire.Hex the attacked hex
---@param side string the attacker
---@param attackers UnitRef[]
---@param defenders UnitRef[]
---@param attack_hexes Umpire.Hex[] the hexes the attack came from
function M.offer(hex, side, attackers, defenders, attack_hexes)
  local left = false
  for _, u in ipairs(units.at(hex)) do if u.side ~= side and not C.is_air(u) then left = true end end
  if not left then
    local ids = {}
    for _, u in ipairs(attackers) do if u.hex then ids[#ids + 1] = u.id end end
    -- 12.2.4: an HQ stacked with the attackers may advance with them
    for _, h in ipairs(attack_hexes) do
      for _, u in ipairs(units.at(h)) do
        if C.is_hq(u) and u.side == side then ids[#ids + 1] = u.id end
      end
    end
    if #ids > 0 then
      local moved = false
      for _, u in ipairs(defenders) do if u.hex and u.hex ~= hex then moved = true end end
      vars.set("advance", { hex = hex, units = ids, retreated = moved })
      log.rule("10.0", hex .. " is vacated: the attackers may advance (advance <units> [<hex>])")
    end
  else
    vars.set("advance", nil)
  end
end

-- 10.5: a hex an advancing unit could not enter from `from` by regular movement (terrain,
-- hexsides, a path needed for restrictive terrain); EZOCs, MPs and enemy units do not count
-- here (10.0: no MPs spent, EZOCs ignored).
---@param from Umpire.Hex
---@param to Umpire.Hex
---@return boolean
function M.can_advance(from, to)
  return map.path_cost(movement.terrain_profile(), { from, to }) ~= nil
end

-- The checks of an advance into the vacated hex (10.0, 12.3, 12.2.4, 6.0, 10.5.1, 10.5), in the
-- order the verb refuses them; `check` is umpire.check in the verb, a quiet one in the list of
-- actions. `second`: the second hex named (12.2.4's check of HQs going on). Returns whether a
-- unit crosses an unbridged river (10.3.1).
---@param list UnitRef[] the advancing units
---@param second? Umpire.Hex
---@param check Umpire.CheckFn
---@return boolean crossed_river
function M.check_advance(list, second, check)
  local adv = vars.get("advance")
  check(adv ~= nil, "10.0", "no hex was vacated by the last combat")
  local ok_ids = {}
  for _, id in ipairs(adv.units) do ok_ids[id] = true end
  for _, u in ipairs(list) do
    check(ok_ids[u.id] and u.hex, "10.0", "%s did not take part in the attack on %s", u.id, adv.hex)
    -- (an attacker that retreated, Ar, is no longer next to the vacated hex)
    check(map.distance(u.hex, adv.hex) == 1, "10.0", "%s is no longer next to %s: it advances only from the hex it attacked from", u.id, adv.hex)
  end
  for _, u in ipairs(list) do
    check(not u:attr("festung"), "12.3", "a Festung may not move")
  end
  -- 10.2, 12.2.4: an HQ advances only with combat units of its own stack (advancing now, or
  -- already advanced from it after this combat)
  local advanced_from = adv.advanced_from or {}
  for _, u in ipairs(list) do
    if C.is_hq(u) then
      local with = C.contains(advanced_from, u.hex)
      for _, x in ipairs(list) do
        if not C.is_hq(x) and x.hex == u.hex then with = true end
      end
      check(with, "12.2.4", "%s may advance only with combat units of its stack (10.2)", u.id)
    end
  end
  if second then
    -- 12.2.4: an HQ goes a second hex only with mechanized units of its stack doing the same
    for _, u in ipairs(list) do
      if C.is_hq(u) then
        local mech = false
        for _, x in ipairs(list) do
          if x.hex == u.hex and C.is_mech(x) and not C.is_hq(x) then mech = true end
        end
        check(mech, "12.2.4", "%s may advance a second hex only with mechanized units of its stack", u.id)
      end
    end
  end
  -- 6.1: the limit holds where the advance ends (a unit going on to a second hex may pass
  -- through a full vacated hex, as a regular move may; DATA.md 8)
  if not second then
    local rule, why = movement.stacking_problem(adv.hex, list)
    if rule then check(false, rule, "%s", why) end
  end
  local crossed_river = false
  for _, u in ipairs(list) do
    local side_feats = map.hexside(u.hex, adv.hex)
    local bridged = C.contains(side_feats, "bridge")
    for _, f in ipairs(side_feats) do
      check(not (f == "major_river" and not bridged), "10.5.1", "no advance across an unbridged major river")
      if f == "river" and not bridged then crossed_river = true end
    end
    check(M.can_advance(u.hex, adv.hex), "10.5", "%s could not enter %s by regular movement", u.id, adv.hex)
  end
  return crossed_river
end

-- 10.3: the second hex of a mechanized advance from the vacated hex `adv.hex`: only when the
-- defender retreated (10.3), mechanized units and their HQs (10.4) in supply (11.3.3), not after
-- an unbridged river or into a village or city (10.3.1); an adjacent hex regular movement could
-- enter (10.5, 10.5.1), free of enemy units but a lone HQ overrun on the way (12.2.6), within
-- the stacking limit (6.1).
---@param list UnitRef[] the advancing units
---@param adv table vars `advance`
---@param second Umpire.Hex
---@param crossed_river boolean whether a unit crossed an unbridged river into adv.hex
local function second_hex(list, adv, second, crossed_river)
  umpire.check(adv.retreated, "10.3", "only when the defender retreated may mechanized units advance a second hex")
  for _, u in ipairs(list) do
    umpire.check(C.is_mech(u) or C.is_hq(u), "10.4", "%s is not mechanized: non-mechanized units advance one hex", u.id)
    umpire.check(not (u:marker("oos") or u:marker("isolated")), "11.3.3", "%s is out of supply: it advances only one hex", u.id)
  end
  umpire.check(not crossed_river, "10.3.1", "a mechanized unit that crossed an unbridged river must stop")
  umpire.check(not (map.terrain(adv.hex) == "city" or map.has(adv.hex, "village")), "10.3.1",
    "a mechanized unit that entered a village or city must stop")
  umpire.check(map.distance(adv.hex, second) == 1, "10.3", "%s is not adjacent to %s", second, adv.hex)
  local lone = movement.lone_hq(second, list[1].side)
  umpire.check(not C.occupied(C.other(list[1].side))[second] or lone, "10.5", "%s is occupied by the enemy", second)
  local second_side = map.hexside(adv.hex, second)
  umpire.check(not (C.contains(second_side, "major_river") and not C.contains(second_side, "bridge")), "10.5.1",
    "no advance across an unbridged major river")
  umpire.check(M.can_advance(adv.hex, second), "10.5", "no unit may advance into %s: it could not be entered by regular movement", second)
  local r, w = movement.stacking_problem(second, list)
  if r then umpire.refuse(r, w) end
  for _, u in ipairs(list) do u:move_to(second) end
  if lone then
    log.rule("12.2.6", list[1].id .. " overruns the lone HQ " .. lone.id .. " while advancing")
    headquarters.relocate(lone)
  end
  log.rule("10.3", ("%s advance%s a second hex into %s"):format(#list == 1 and list[1].id or (#list .. " units"), #list == 1 and "s" or "", second))
  movement.entered(list[1], { second })
end

-- 10.0 advance after combat: the first hex is the defender's; mechanized units may go a second
-- hex when the defender retreated (10.3, second_hex); EZOCs are ignored, no MPs spent. The units
-- that advanced are no longer offered the hex.
---@param list UnitRef[] the advancing units
---@param second? Umpire.Hex
function M.advance(list, second)
  local crossed_river = M.check_advance(list, second, umpire.check)
  local adv = vars.get("advance")
  local advanced_from = adv.advanced_from or {}
  for _, u in ipairs(list) do
    if not C.is_hq(u) and not C.contains(advanced_from, u.hex) then advanced_from[#advanced_from + 1] = u.hex end
    u:move_to(adv.hex)
  end
  adv.advanced_from = advanced_from
  log.rule("10.0", ("%s advance%s into %s"):format(#list == 1 and list[1].id or (#list .. " units"), #list == 1 and "s" or "", adv.hex))
  movement.entered(list[1], { adv.hex })
  if second then second_hex(list, adv, second, crossed_river) end
  local remaining = {}
  for _, id in ipairs(adv.units) do
    local moved = false
    for _, u in ipairs(list) do if u.id == id then moved = true end end
    if not moved then remaining[#remaining + 1] = id end
  end
  adv.units = remaining
  vars.set("advance", #remaining > 0 and adv or nil)
  victory.check_sudden_death()
end

-- ------------------------------------------------------------------ verbs
umpire.command {
  usage = "advance <units> [<hex>]",
  help = "advance after combat into the vacated hex; mechanized units may name a second hex",
  example = "advance 4Pz/4SS 13.12",
  rule = "10.0", phases = { "combat" },
  run = function(list, second) M.advance(list, second) end,
}

return M
