-- Fortress Stalingrad 11.18: the Soviet amphibious assaults. The Soviet has one from the start
-- (the count `amphibious`, DATA.md) and a second from the turn after he captures Novorossisk;
-- he calls one for a prepared assault on a Black Sea coastal hex (the attack verb, combat.lua),
-- whose defenders may then not retreat. The result modifiers are in combat.modifiers
-- (T.result_amphibious).
local C = require "common"
local control = require "control"

local M = {}

-- 11.18: the turn after the Soviet captures Novorossisk he has a second amphibious assault
-- (main.lua's after_command hook).
function M.novorossisk()
  if vars.get("amphibious_2_from") then return end
  if control.is("1309", C.SOVIET) then
    vars.set("amphibious_2", 1)
    vars.set("amphibious_2_from", umpire.clock().turn + 1)
    log.rule("11.18", "Novorossisk is Soviet: a second amphibious assault (+2) is available from next turn")
  end
end

-- 11.18: the amphibious assault `side` calls for its prepared assault on `hexes`, if the Soviet
-- has one and wants it (asked): 1 (the first), 2 (the second, +2) or nil. The one called is spent.
function M.call(side, hexes)
  local amph
  if side == C.SOVIET and #hexes == 1 and map.in_area("coast_black_sea", hexes[1]) then
    local have = vars.get("amphibious") or 0
    local second = (vars.get("amphibious_2") or 0) > 0 and (vars.get("amphibious_2_from") or 99) <= umpire.clock().turn
    if have > 0 or second then
      local opts = { "no" }
      if have > 0 then opts[#opts + 1] = "first" elseif second and (vars.get("amphibious_used_turn") or 0) ~= umpire.clock().turn then opts[#opts + 1] = "second" end
      if #opts > 1 then
        local pick = umpire.ask { prompt = "call the amphibious landing forces for this attack (11.18)?", side = "Soviet", rule = "11.18", kind = "choice", options = opts, default = "no" }
        if pick == "first" then
          amph = 1
          vars.set("amphibious", have - 1)
        elseif pick == "second" then
          amph = 2
          vars.set("amphibious_2", 0)
        end
        if amph then
          vars.set("amphibious_used_turn", umpire.clock().turn)
          log.rule("11.18", ("amphibious assault (%s): the defenders may not retreat"):format(amph == 1 and "the first" or "the second, +2"))
        end
      end
    end
  end
  return amph
end

return M
