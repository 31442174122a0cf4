-- Helpers for command scripts and designers (`lua require("testing").clear()`); the rules never
-- use this module.
local M = {}

-- Takes every unit off the map (to the box "offboard"), every unit marker off and every unit back
-- to full strength, so a script can build a situation. Hex control stays as it is (3.3).
function M.clear()
  for _, u in ipairs(units.all { on_map = true }) do u:put_in("offboard") end
  for _, u in ipairs(units.all()) do
    for name in pairs(u:markers()) do u:set_marker(name, nil) end
    if u.step ~= 1 then u:set_step(1) end
  end
end

-- Places units: M.place { ["5TA"] = "3722", ... } (in id order), and notes the hex as the start
-- of this Movement Phase (10.35) so that they may move.
function M.place(t)
  for id, hex in pairs(t) do
    local u = assert(units.get(id), "no unit " .. id)
    u:move_to(hex)
    u:set_marker("origin", tonumber(hex))
  end
end

-- Sets hex control (3.3) of hexes: M.control({ "3813", "3812" }, "German").
function M.control(hexes, side)
  local t = {}
  for _, h in ipairs(hexes) do t[h] = side == "Soviet" and 1 or 2 end
  map.set_markers("ctl", t)
end

-- Hexes matching a predicate, in order.
function M.find(pred, limit)
  local out = {}
  for _, h in ipairs(map.hexes()) do
    if pred(h) then
      out[#out + 1] = h
      if limit and #out >= limit then break end
    end
  end
  return out
end

return M
