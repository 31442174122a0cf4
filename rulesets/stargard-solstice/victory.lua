-- Stargard Solstice 14.0 How to Win: VP hexes (14.1, 14.3.1), Arnswalde and Bahn (14.1.2), the
-- sudden deaths (14.2), other VP sources (14.3.2, 12.6, 16.1, 16.2, 16.4), victory levels (14.3).
local T = require "tables"
local C = require "common"
local zoc = require "zoc"
local supply = require "supply"
local M = {}

local function vp_value(hex)
  local h = map.hex(hex)
  local v = h.values.vp
  if not v then return nil end
  local later = h.values.vp_later or v
  local flip = h.values.vp_turn
  -- 1.5.5 the marker shows its later value once its turn has passed; 14.1.2 a relieved
  -- Festung city shows its lower value
  if map.marker(hex, "relieved") then return later end
  if flip and umpire.clock().turn > flip then return later end
  return v
end
M.vp_value = vp_value

-- 14.1 / 14.1.1: a unit with a ZOC and a defence of 1+ entering a VP hex takes it for its side;
-- the Soviet player keeps the marker's value at the time of capture.
---@param u UnitRef
---@param hex Umpire.Hex
function M.enter(u, hex)
  if not map.hex(hex) or not map.hex(hex).values.vp then return end
  if not (zoc.has_zoc(u) and C.defense(u) >= 1) then return end
  local held = map.marker(hex, "soviet_vp")
  if u.side == "Soviet" and not held then
    local v = vp_value(hex)
    map.set_marker(hex, "soviet_vp", v)
    log.rule("14.1", ("%s takes %s: %d VP"):format(u.id, map.hex(hex).name or hex, v))
  elseif u.side == "German" and held then
    map.set_marker(hex, "soviet_vp", nil)
    log.rule("14.1", ("%s retakes %s"):format(u.id, map.hex(hex).name or hex))
  end
end

-- 14.2.2: a supplied Soviet combat unit in a Stettin hex ends the game at once.
function M.check_sudden_death()
  for _, h in ipairs(map.area("stettin") or {}) do
    for _, u in ipairs(units.at(h)) do
      if u.side == "Soviet" and C.is_combat(u) and not u:marker("oos") and not u:marker("isolated") then
        log.rule("14.2.2", u.id .. " stands in Stettin (" .. h .. ") in supply")
        umpire.game_over("Soviet sudden death victory (14.2.2)")
        return true
      end
    end
  end
  return false
end

-- 14.1.2: during the VP marker segment, an EZOC-free German supply line into Arnswalde or Bahn
-- flips its marker to the lower value.
function M.vp_segment()
  local reach = supply.trace("German", map.area("supply_german"), true)
  for _, name in ipairs { "Arnswalde", "Bahn" } do
    local hexes = map.place(name)
    local h = hexes and hexes[1]
    if h and not map.marker(h, "relieved") and reach[h] then
      map.set_marker(h, "relieved", 1)
      log.rule("14.1.2", name .. " is relieved: its VP marker shows its lower value")
      if name == "Arnswalde" then vars.set("arnswalde_relieved", true) end
    end
  end
  -- 1.5.5: markers dated this turn flip (their value is read from the turn, see vp_value)
  for h in pairs(map.valued("vp_turn")) do
    local hx = map.hex(h)
    if hx.values.vp_turn == umpire.clock().turn then
      log.rule("1.5.5", ("%s's VP marker flips to %d"):format(hx.name or h, hx.values.vp_later or hx.values.vp))
    end
  end
end

-- 14.1: the Soviet VP now, before 16.4's rounding: the VP hexes held plus the other sources
-- (12.6, 14.3.2, 16.1, 16.2, 16.4). Only reads the state (the evaluation calls it too); with
-- `lines`, also what each point comes from, and how many VP hexes are held.
function M.tally(lines)
  local total, hexes = 0, 0
  for h, v in pairs(map.marked("soviet_vp")) do
    total = total + v
    hexes = hexes + 1
    if lines then lines[#lines + 1] = ("%s %d"):format(map.hex(h).name or h, v) end
  end
  for _, a in ipairs(vars.get("vp_adjust") or {}) do
    total = total + a.vp
    if lines then lines[#lines + 1] = ("%s %+g"):format(a.why, a.vp) end
  end
  return total, hexes
end

-- 14.3: the victory level of a final score.
function M.level(total)
  for _, row in ipairs(T.victory) do
    if total >= row[1] then return row[2] end
  end
end

-- 14.1, 14.3: the final score and the victory level.
function M.score()
  local lines = {}
  local total = math.ceil((M.tally(lines)))                            -- 16.4 round fractions up
  log.rule("14.1", ("Soviet VPs: %s = %d"):format(#lines > 0 and table.concat(lines, ", ") or "none", total))
  tracks.set("soviet_vp", total)
  local level = M.level(total)
  log.rule("14.3", ("%d VP: %s"):format(total, level))
  return level
end

function M.adjust(vp, why)
  local a = vars.get("vp_adjust") or {}
  a[#a + 1] = { vp = vp, why = why }
  vars.set("vp_adjust", a)
end

-- 14.2.1: three units off the map via the Landsberg edge are a German sudden death victory;
-- with optional rule 16.2, 3 VP to the German player instead.
function M.exited()
  if #units.in_box("exited") >= 3 then
    if umpire.option("op16_2") then
      if not vars.get("german_exit_vp") then
        vars.set("german_exit_vp", true)
        M.adjust(-3, "German exit (16.2)")
        log.rule("16.2", "three units have left the map: 3 VP to the German player")
      end
    else
      umpire.game_over("German sudden death victory (14.2.1)")
    end
  end
end

-- 16.4 (optional): 1/2 VP to the Soviet player at the start of each turn from turn 5 while
-- Defend the Reich has not fired (the event is rolled later in the turn, so the turn it fires
-- still counts); 3 VP over turns 5-10.
---@param turn integer
function M.delayed_withdrawal(turn)
  if umpire.option("op16_4") and turn >= 5 and not vars.get("defend_reich") then
    M.adjust(0.5, "Delayed withdrawal of the 39th Panzer Corps (16.4), turn " .. turn)
    log.rule("16.4", ("turn %d: the 39th Panzer Corps has not been withdrawn: 1/2 VP to the Soviet player"):format(turn))
  end
end

return M
