-- overlays: map overlays the rulesets share (umpire.overlay, docs/lua-api.md §2.4).
local M = {}

-- `map reach <unit>`: every hex the unit can still reach, with its cost in MP. `spec.profile(u)`
-- gives the unit's movement profile from where it stands with what it has left; `spec.rule` and
-- `spec.help` are the overlay's.
---@param spec { profile: fun(u: UnitRef): Umpire.Profile, rule?: string, help?: string }
function M.reach(spec)
  umpire.overlay {
    usage = "reach <unit>", help = spec.help, rule = spec.rule,
    run = function(u)
      umpire.check(u.hex ~= nil, spec.rule, "%s is not on the map", u.id)
      return (map.reach(spec.profile(u)))
    end,
  }
end

return M
