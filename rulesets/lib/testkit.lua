-- testkit: helpers that the rulesets' testing modules share (command scripts and designers use
-- them through `require("testing")`; the rules never do).
local M = {}

-- Takes every unit off the map to opts.box, and every unit marker off, so a script can build a
-- situation. With opts.full_strength, every unit not at step 1 goes back to it: all of them
-- (true), or those for which opts.full_strength(u) is true.
---@param opts { box: string, full_strength?: boolean|fun(u: UnitRef): boolean }
function M.clear(opts)
  local full = opts.full_strength
  for _, u in ipairs(units.all { on_map = true }) do u:put_in(opts.box) end
  for _, u in ipairs(units.all()) do
    for name in pairs(u:markers()) do u:set_marker(name, nil) end
    if full and u.step ~= 1 and (full == true or full(u)) then u:set_step(1) end
  end
end

-- Places units: place({ [id] = hex, ... }, placed), in the order of pairs; placed(u, hex), if
-- given, is called after each move.
---@param t table<string, Umpire.Hex>
---@param placed? fun(u: UnitRef, hex: Umpire.Hex)
function M.place(t, placed)
  for id, hex in pairs(t) do
    local u = assert(units.get(id), "no unit " .. id)
    u:move_to(hex)
    if placed then placed(u, hex) end
  end
end

-- Sets hex control of hexes in the hex marker `ctl` (1 Soviet, 2 German):
-- M.control({ "3813", "3812" }, "German").
---@param hexes Umpire.Hex[]
---@param side string "Soviet" or "German"
function M.control(hexes, side)
  local t = {}
  for _, h in ipairs(hexes) do t[h] = side == "Soviet" and 1 or 2 end
  map.set_markers("ctl", t)
end

-- Hexes matching a predicate, in order.
---@param pred fun(h: Umpire.Hex): boolean
---@param limit? integer at most this many
---@return Umpire.Hex[]
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

-- What `next` at a terminal would warn is left undone now: the lines of every function the
-- rules gave umpire.unfinished, joined by newlines ("" when nothing is), so that a script can
-- check those warnings (`expect require("testing").unfinished():find(...)`). (They are kept in
-- the host's table of hooks; only a script reads them there.)
function M.unfinished()
  local out = {}
  for _, f in ipairs(__umpire.unfinished or {}) do
    for _, line in ipairs(f() or {}) do out[#out + 1] = line end
  end
  return table.concat(out, "\n")
end

return M
