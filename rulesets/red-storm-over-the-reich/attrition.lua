-- Red Storm over the Reich 15.0: attrition. After the joint supply check (and the strain's,
-- 9.3), every unit out of supply loses a step: no Kampfgruppe forms, nor does a German infantry
-- division or KG go to the KG pool (16.1.C, DATA.md R43); a KG dies only when
-- next to a Soviet unit; German units in fortress, coastal and Haff hexes count as supplied; a
-- reduced Soviet guard cavalry corps is not eliminated (17.2.B).
local C = require "common"
local kg = require "kg"
local supply = require "supply"

local M = {}

local function next_to_soviet(hex)
  for _, n in ipairs(map.neighbours(hex)) do
    if #C.at(n, C.SOVIET) > 0 then return true end
  end
  return false
end

function M.segment()
  local lost, spared = {}, {}
  for _, u in ipairs(units.all { on_map = true }) do
    if u:marker("oos") and not C.always_supplied(u) then
      local last = u.steps_left <= 1 and not (u:attr("kg") and u.step == 1)
      if supply.attrition_exempt(u) then
        spared[#spared + 1] = u.id .. " (fortress, coastal or Haff hex)"
      elseif C.is_kg(u) and not next_to_soviet(u.hex) then
        spared[#spared + 1] = u.id .. " (a KG not next to a Soviet unit)"
      elseif C.is_cavalry(u) and u.side == C.SOVIET and last then
        spared[#spared + 1] = u.id .. " (reduced guard cavalry, 17.2.B)"
      else
        lost[#lost + 1] = kg.lose_step(u, { no_kg = "attrition: out of supply, it cannot form a KG, 15.0" })
      end
    end
  end
  if #lost == 0 and #spared == 0 then
    log.rule("15.0", "attrition: no unit is out of supply")
    return
  end
  if #lost > 0 then log.rule("15.0", "attrition: " .. table.concat(lost, "; ")) end
  if #spared > 0 then log.rule("15.0", "spared by attrition: " .. table.concat(spared, ", ")) end
end

return M
