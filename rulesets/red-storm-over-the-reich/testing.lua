-- Helpers for command scripts and designers (`lua require("testing").clear()`); the rules never
-- use this module.
local M = {}

-- Takes every unit off the map (to the box "removed"), every unit marker off and every unit back
-- to full strength, so a script can build a situation. Hex control stays as it is (3.5.A).
function M.clear()
  for _, u in ipairs(units.all { on_map = true }) do u:put_in("removed") end
  for _, u in ipairs(units.all()) do
    for name in pairs(u:markers()) do u:set_marker(name, nil) end
    if u.step ~= 1 and not u:attr("starts_kg") then u:set_step(1) end
  end
end

-- Places units: M.place { ["10GT"] = "5241", ... } (in id order).
function M.place(t)
  for id, hex in pairs(t) do
    local u = assert(units.get(id), "no unit " .. id)
    u:move_to(hex)
  end
end

-- Sets hex control (3.5.A) of hexes: M.control({ "3813", "3812" }, "Soviet").
function M.control(hexes, side)
  local t = {}
  for _, h in ipairs(hexes) do t[h] = side == "Soviet" and 1 or 2 end
  map.set_markers("ctl", t)
end

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

M.find = require("testkit").find

return M
