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

-- The hexes of the side's intact entrenchments (10.26).
function M.intact_entrenchments(side)
  local wrecked = map.marked("wrecked")
  local out = {}
  for _, h in ipairs(C.ENTRENCH[side]) do
    if not wrecked[h] then out[#out + 1] = h end
  end
  return out
end

-- Who controls each hex under priorities 1 and 2 right now: { [hex] = side number }, and the
-- list of those hexes. (Each step below decides a hex on what the earlier steps decided, never
-- on the other hexes of its own step: the hexes are taken in any order, lists being cheaper to
-- walk than sets.)
function M.current()
  local occ, occupied = {}, {}   -- hex -> { Soviet = bool, German = bool } of units that occupy
  local supply_only, lone = {}, {}   -- hexes whose only Soviet ground units are 0-0-1s (7.19)
  local projecting = { [C.SOVIET] = {}, [C.GERMAN] = {} }   -- the hexes of units with a ZOC (5.2)
  for _, u in ipairs(units.all { on_map = true }) do
    local h, side = u.hex, u.side
    if C.is_combat(u) then
      if not occ[h] then occ[h] = {} occupied[#occupied + 1] = h end
      occ[h][side] = true
      if zoc.projects(u) then table.insert(projecting[side], h) end
    elseif C.is_supply_unit(u) then
      if not supply_only[h] then supply_only[h] = true lone[#lone + 1] = h end
    end
  end
  local zs, zg = zoc.around(projecting[C.SOVIET]), zoc.around(projecting[C.GERMAN])
  local out, hexes = {}, {}
  local function decide(h, n)
    out[h] = n
    hexes[#hexes + 1] = h
  end
  for _, h in ipairs(occupied) do
    -- both sides in one hex happens only inside a command (a mobile assault): the hex is not
    -- decided until it ends
    local o = occ[h]
    if o.Soviet and not o.German then decide(h, 1) elseif o.German and not o.Soviet then decide(h, 2) end
  end
  -- 7.19: a lone 0-0-1 gives the Soviet control unless an Axis unit or ZOC is there
  for _, h in ipairs(lone) do
    if not occ[h] and not zg[h] then decide(h, 1) end
  end
  -- priority 2: an uncontested ZOC — into a hex without enemy units or intact enemy
  -- entrenchments, and with no enemy ZOC
  local function uncontested(z, ez, side)
    local enemy = C.other(side)
    for h in pairs(z) do
      if not out[h] and not ez[h] and not (occ[h] and occ[h][enemy]) and not (supply_only[h] and enemy == C.SOVIET)
        and not M.intact_entrenchment(h, enemy) then
        decide(h, C.SIDE_NO[side])
      end
    end
  end
  uncontested(zs, zg, C.SOVIET)
  uncontested(zg, zs, C.GERMAN)
  return out, hexes
end

-- Writes control `now` { [hex] = side number } (its hexes listed in `hexes`, each once) where it
-- changes, and logs the towns and cities that change hands, in hex order (their victory points,
-- 15.2). Returns every hex's controller as now written.
local function write(now, hexes)
  local changed, w = {}, {}
  local cur = map.marked("ctl")
  for _, h in ipairs(hexes) do
    if cur[h] ~= now[h] then
      w[h] = now[h]
      changed[#changed + 1] = h
    end
  end
  if #changed == 0 then return cur end
  table.sort(changed)
  map.set_markers("ctl", w)
  for _, h in ipairs(changed) do cur[h] = w[h] end
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
  local t, list = {}, {}
  for _, h in ipairs(hexes) do
    if not C.SEA[h] and not t[h] then
      t[h] = C.SIDE_NO[side]
      list[#list + 1] = h
    end
  end
  write(t, list)
end

-- Called after every command: writes priorities 1-2 into the marker. Returns every hex's
-- controller { [hex] = side number } (what map.marked("ctl") now gives).
function M.update()
  return write(M.current())   -- (the two results of current: control and its hexes)
end

-- Hexes set to a side by a rule (15.8: hexes vacated by the final removals become Soviet).
function M.give(hexes, side) M.passed(hexes, side) end

return M
