-- Stargard Solstice 19.0 Random Events and 8.5 Bombardment.
local T = require "tables"
local C = require "common"
local air = require "air"
local combat = require "combat"
local command = require "command"
local reinforce = require "reinforce"
local M = {}

-- 2.2.1 / 19.0: roll on the table for this turn; the secondary event replaces a primary that
-- happened last turn.
function M.phase()
  local turn = umpire.clock().turn
  local row = T.events[turn]
  if not row then return end
  local die = dice.roll("1d6", "random event")
  local ev = row[die]
  local last = vars.get("last_event") or {}
  if last.turn == turn - 1 and last.event == ev then
    log.rule("19.0", ("%s happened last turn: the secondary event instead"):format(T.event_names[ev]))
    ev = T.secondary
  end
  vars.set("last_event", { turn = turn, event = ev })
  log.rule("19.0", ("die %d: %s"):format(die, T.event_names[ev]))
  local f = M.effects[ev]
  if f then f(turn) end
end

-- 8.5.1: the number of bombardment attacks comes from the BRT; each is then a `bombard`
-- command during this phase.
local function bombardment(side, restriction)
  return function()
    local n = T.brt[dice.roll("1d6", "bombardment roll table")]
    vars.set("bombardment", { side = side, left = n, restriction = restriction, targets = {} })
    log.rule("8.5.1", ("%s: %d bombardment attack%s (bombard <hex>)"):format(side, n, n > 1 and "s" or ""))
  end
end

M.effects = {
  german_bombardment = bombardment("German"),
  soviet_bombardment = bombardment("Soviet"),
  volks_artillery = bombardment("German", "stell2"),                                   -- 19.1.2
  german_surprise = function() vars.set("german_surprise", true) end,                  -- 19.1.12
  gta_out_of_fuel = function(turn) vars.set("gta_out_of_fuel", turn) end,              -- 19.1.4
  wenck = function(turn)                                                                -- 19.1.9
    local mods = vars.get("chit_mods") or {}
    mods[#mods + 1] = { side = "German", turn = turn, delta = -1 }
    vars.set("chit_mods", mods)
  end,
  aborted_air = function()                                                              -- 19.1.10
    air.ground_one("German")
    air.ground_one("Soviet")
  end,
  soviet_aa = function() M.remove_air("Rudel", "19.1.6") end,
  german_aa = function() M.remove_air("6GA", "19.1.7") end,
  improved_soviet_aa = function() M.remove_air("3JG", "19.1.8") end,
  scraping = function() M.grant_rp("German", 1, false, "19.1.11") end,
  mechanics = function()                                                                -- 19.1.13
    M.grant_rp("German", 1, true, "19.1.13")
    M.grant_rp("Soviet", 1, true, "19.1.13")
  end,
  tettau = function() reinforce.tettau() end,                                -- 19.1.5
  defend_reich = function(turn) reinforce.defend_the_reich(turn) end,        -- 19.1.3
}

function M.remove_air(id, rule)
  local u = units.find(id)
  if u then
    u:put_in("removed")
    log.rule(rule, u.id .. " is removed from the game")
  end
end

---@param side string
---@param n integer
---@param mech boolean
---@param rule string
function M.grant_rp(side, n, mech, rule)
  -- 19.1.11 / 19.1.13: the points go to a pool of their own kind (reinforce.grant_points), apart
  -- from the Soviet 7.3 points and from the other event's points
  reinforce.grant_points(side, n, mech, rule)
  log.rule(rule, ("%s receives %d %sreplacement point%s (replace <unit>)"):format(side, n, mech and "mechanized " or "", n > 1 and "s" or ""))
end

-- 8.5.1: a bombardment attack against a unit adjacent to a friendly combat unit, once per
-- target, rolled on the bombardment column of the CRT.
---@param hex Umpire.Hex
---@return string result the bombardment result
function M.bombard(hex)
  local b = vars.get("bombardment")
  umpire.check(b and b.left > 0, "8.5", "no bombardment attack is available now")
  local targets = units.at(hex)
  umpire.check(#targets > 0 and targets[1].side ~= b.side, "8.5.1", "there is no enemy unit in %s", hex)
  umpire.check(not C.contains(b.targets, hex), "8.5.1", "%s has already been bombarded", hex)
  local adjacent = false
  for _, n in ipairs(map.neighbours(hex)) do
    for _, u in ipairs(units.at(n)) do
      if u.side == b.side and C.is_combat(u) then
        if b.restriction ~= "stell2" or u:attr("formation") == "Stell-II-HQ" then adjacent = true end
      end
    end
  end
  umpire.check(adjacent, b.restriction and "19.1.2" or "8.5.1", "the target must be adjacent to a %s combat unit", b.restriction and "Stell II" or b.side)
  local die = dice.roll("1d6", "bombardment of " .. hex)
  local result = umpire.outcome(T.bombardment[die])   -- 8.5.1: odds needs no more
  log.rule("8.5.1", ("bombardment of %s: die %d, %s"):format(hex, die, result))
  local eff = combat.parse(result)
  local defenders = {}
  for _, u in ipairs(targets) do if C.is_combat(u) then defenders[#defenders + 1] = u end end
  if eff.D.loss > 0 then combat.take_losses(defenders, eff.D.loss, "D") end
  if eff.pinned then
    for _, u in ipairs(defenders) do
      if u.hex then u:set_marker("pinned", 1) log.rule("8.1.2", u.id .. " is pinned") end
    end
  end
  command.note_attacked(defenders)                                           -- 12.1
  b.left = b.left - 1
  b.targets[#b.targets + 1] = hex
  vars.set("bombardment", b)
  return result
end

-- ------------------------------------------------------------------ verbs
umpire.command {
  usage = "bombard <hex>",
  help = "a bombardment attack on an enemy stack adjacent to a friendly combat unit",
  example = "bombard 16.09",
  rule = "8.5", phases = { "bombardment" }, odds = true,
  run = function(hex) return M.bombard(hex) end,
}

return M
