-- Fortress Stalingrad 3.3: hex control. Every land hex belongs to one side, by priority:
-- (1) a unit of the side stands there, (2) the side's uncontested ZOC reaches it, (3) the side
-- was the last to do either, (4) it started the game the side's. The marker `ctl` (1 Soviet,
-- 2 German) holds priorities 3 and 4: it starts from the area german_start (3.3's entrenchment
-- and cross lines), and after every command (umpire.after_command) every hex under priority 1
-- or 2 is written into it, so the marker is always the hex's controller.
local C = require "common"
local zoc = require "zoc"

local M = {}

-- 3.3 priority 4: the territory each side held at the start.
function M.init()
  local start = {}
  for _, h in ipairs(map.area("german_start")) do start[h] = true end
  local ctl = {}
  for _, h in ipairs(map.hexes()) do
    if not C.SEA[h] then ctl[h] = start[h] and 2 or 1 end
  end
  map.set_markers("ctl", ctl)
end

function M.owner(hex)
  local n = map.marker(hex, "ctl")
  return n and C.SIDE_OF[n] or nil
end

function M.is(hex, side) return map.marker(hex, "ctl") == C.SIDE_NO[side] end

-- Intact entrenchments of a side in a hex (10.26: wrecked once an enemy ground unit entered).
function M.intact_entrenchment(hex, side)
  return C.ENTRENCH_SET[side][hex] == true and not map.marker(hex, "wrecked")
end

-- Who controls each hex under priorities 1 and 2 right now: { [hex] = side number }.
function M.current()
  local occ = {}            -- hex -> { Soviet = bool, German = bool } of units that occupy
  local supply_only = {}    -- hexes whose only Soviet ground units are 0-0-1s (7.19)
  for _, side in ipairs { C.SOVIET, C.GERMAN } do
    for _, u in ipairs(C.on_map(side, true)) do
      if C.is_combat(u) then
        occ[u.hex] = occ[u.hex] or {}
        occ[u.hex][side] = true
      elseif C.is_supply_unit(u) then
        supply_only[u.hex] = true
      end
    end
  end
  local zs, zg = zoc.zoc(C.SOVIET), zoc.zoc(C.GERMAN)
  local out = {}
  for h, o in pairs(occ) do
    -- both sides in one hex happens only inside a command (a mobile assault): the hex is not
    -- decided until it ends
    if o.Soviet and not o.German then out[h] = 1 elseif o.German and not o.Soviet then out[h] = 2 end
  end
  -- 7.19: a lone 0-0-1 gives the Soviet control unless an Axis unit or ZOC is there
  for h in pairs(supply_only) do
    if not occ[h] and not zg[h] then out[h] = 1 end
  end
  -- priority 2: an uncontested ZOC — into a hex without enemy units or intact enemy
  -- entrenchments, and with no enemy ZOC
  local function uncontested(z, ez, side)
    local enemy = C.other(side)
    for h in pairs(z) do
      if not out[h] and not ez[h] and not (occ[h] and occ[h][enemy]) and not (supply_only[h] and enemy == C.SOVIET)
        and not M.intact_entrenchment(h, enemy) then
        out[h] = C.SIDE_NO[side]
      end
    end
  end
  uncontested(zs, zg, C.SOVIET)
  uncontested(zg, zs, C.GERMAN)
  return out
end

-- Writes control { [hex] = side number } where it changes, and logs the towns and cities that
-- change hands (their victory points, 15.2). Returns every hex's controller as now written.
local function write(now)
  local changed, w = {}, {}
  local cur = map.marked("ctl")
  for h, n in pairs(now) do
    if cur[h] ~= n then
      w[h] = n
      changed[#changed + 1] = h
    end
  end
  if #changed == 0 then return cur end
  map.set_markers("ctl", w)
  for h, n in pairs(w) do cur[h] = n end
  for _, h in ipairs(changed) do
    if C.TOWN_SET[h] then
      log.rule("3.3", ("%s is now controlled by the %s"):format(C.hex_label(h), C.SIDE_OF[w[h]]))
    end
  end
  return cur
end

-- Hexes a side's units passed through during a move: "last to occupy" (3.3 priority 3; DATA.md:
-- passing through a hex occupies it).
function M.passed(hexes, side)
  local t = {}
  for _, h in ipairs(hexes) do
    if not C.SEA[h] then t[h] = C.SIDE_NO[side] end
  end
  write(t)
end

-- Called after every command: writes priorities 1-2 into the marker. Returns every hex's
-- controller { [hex] = side number } (what map.marked("ctl") now gives).
function M.update()
  return write(M.current())
end

-- Hexes set to a side by a rule (15.8: hexes vacated by the final removals become Soviet).
function M.give(hexes, side) M.passed(hexes, side) end

return M
