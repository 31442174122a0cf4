-- Stargard Solstice 12.2 Headquarters: relocation (12.2.2) after an overrun (12.2.6), the loss
-- of every combat unit stacked with it (12.2.1), or being out of supply (11.3.1).
local C = require "common"
local zoc = require "zoc"
local supply = require "supply"
local M = {}

-- 12.2.2: the shortest relocation that is at least 5 hexes from the old hex, not in an EZOC and
-- able to trace supply; among those, the hexes nearest a friendly supply source; the owner
-- chooses among the equally good hexes.
---@param hq UnitRef
function M.relocate(hq)
  local old = hq.hex
  local reach = supply.trace(hq.side, C.sources(hq))
  local ez = zoc.ezoc(hq.side)
  local enemy = C.occupied(C.other(hq.side))
  local best = C.best()
  for h, d in pairs(reach) do
    local away = map.distance(old, h)
    if away >= 5 and not ez[h] and not enemy[h] and not map.has(h, "transit") then
      local has_hq = false
      for _, u in ipairs(units.at(h)) do if C.is_hq(u) and u.id ~= hq.id then has_hq = true end end
      if not has_hq then best:offer(h, { away, d }) end
    end
  end
  local options = best.options
  if #options == 0 then
    -- cannot be relocated: it comes back as a reinforcement next turn at a supply source
    hq:put_in("reinforcements")
    hq:set_attr("arrives", umpire.clock().turn + 1)
    hq:set_attr("entry", "source")
    log.rule("12.2.2", hq.id .. " cannot be relocated: it returns next turn at a supply source")
    return
  end
  local to = options[1]
  if #options > 1 then
    to = umpire.ask { prompt = "relocate " .. hq.id .. " to which hex?", side = hq.side, rule = "12.2.2", kind = "hex", options = options }
  end
  hq:move_to(to)
  log.rule("12.2.2", ("%s relocated %s → %s (%s away, %d from a supply source)"):format(hq.id, old, to, C.count(best.score[1], "hex", "hexes"), best.score[2]))
end

return M
