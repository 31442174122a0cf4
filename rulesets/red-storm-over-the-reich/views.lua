-- Red Storm over the Reich: what helps a player find things — the words `show` uses for markers
-- and attributes, the lines `status` adds (the weather, the Movement Point Track, the strain, the
-- VP), the charts `table` prints, and the overlays of `map`. Everything here only looks (the
-- game has no hidden information).
local C = require "common"
local T = require "tables"
local zoc = require "zoc"
local allowance = require "allowance"
local movement = require "movement"
local describe = require "describe"   -- rulesets/lib
local sets = require "sets"           -- rulesets/lib
local overlays = require "overlays"   -- rulesets/lib
local supply = require "supply"
local logistics = require "logistics"
local victory = require "victory"

local M = {}

local UNIT_MARKERS = {
  oos = function() return "out of supply [7.5]" end,
  disrupted = function() return "disrupted [12.1]" end,
  used = function() return "on its Used side [11.0]" end,
  immobile = function() return "Immobile [2.2.D]" end,
  entrained = function() return "entrained [10.8.2]" end,
  fuel_shortage = function() return "fuel shortage: movement halved, no reaction, no overrun [9.2.C]" end,
  mp_used = function(v) return ("%s MP spent this segment [10.4]"):format(map.fmt_cost(v / 60)) end,
  attacked = function() return "has attacked this combat segment [13.1.A]" end,
  defended = function() return "attacked this combat segment [13.1.A]" end,
  overran = function() return "has overrun this exploitation phase [14.1]" end,
  moved = false, withdrawn = false,
}
local HEX_MARKERS = {
  ctl = function(v) return ("controlled by the %s [3.5.A]"):format(C.SIDE_OF[v] or "?") end,
  dw_gone = function() return "defensive works destroyed [17.8]" end,
  fuel_supply = function() return "Fuel Supply marker [9.2]" end,
  bridgehead = function() return "Soviet bridgehead [10.7.1.A]" end,
  thunderclap = function() return "Operation Thunderclap: no German rail or supply through here this turn [17.5]" end,
}

local ATTRS = {
  ma = function(v) return ({ rifle = "moves by the rifle marker [10.2]", guards = "guards rifle: 6 MP (7 on turn 1) [10.3.B.1]",
    mech = "moves by the mechanized marker [10.2]", inf = "moves by the infantry marker [10.2]" })[v] end,
  kg = function(v) return ("its Kampfgruppe (%s) on the back [16.1.A]"):format(v) end,
  barrage = function(v) return ("barrage class %s [11.1]"):format(v) end,
  range = function(v) return ("range %d [11.2]"):format(math.tointeger(v) or v) end,
  arrives = function(v) return ("arrives on turn %d [8.1]"):format(math.tointeger(v) or v) end,
  code = function(v) return ("placement code %s [8.1.1.B]"):format(v) end,
  guderian = function() return "a Guderian in Charge unit [3.4.A]" end,
  army = function(v) return ("of the %s"):format(v) end,
  ss = function() return "Waffen-SS" end,
  panzer = function() return "a panzer or panzergrenadier division [3.3.A, 16.1.B]" end,
  starts_kg = function() return "begins as a Kampfgruppe [16.1]" end,
  mech_kg = function() return "a mechanized Kampfgruppe [16.1.B]" end,
  jaeger = function() return "jaeger: mountain terrain as clear [2.2.A]" end,
  volkssturm = function() return "the Volksturm [8.1.4]" end,
  vistula = function() return "the Vistula division [17.2.A]" end,
  only_turn = function(v) return ("flies on turn %d only [11.5]"):format(math.tointeger(v) or v) end,
  -- (classes the rules read from the counter's kind; nothing to say twice)
  corps = false, division = false, guards = false, vg = false, refugee = false, naval = false, flak = false, entry = false,
}

-- `status` says the Movement Point Track in its own line (below): the tracks are hidden there,
-- but the VP deduction of 3.5.B.
local TRACKS = {
  hma_missed = function(v) return v > 0 and ("turns of Hitler Mandated Attacks not all made: %d (-%d German VP) [3.5.B]"):format(v, v) or false end,
}

umpire.describe {
  -- `moves`: why a unit has no move listed (10.4...)
  cannot_move = function(u)
    local rule, why = movement.why_not_move(u)
    return rule and ("%s [%s]"):format(why, rule) or nil
  end,
  -- 16.1.A: an infantry division is one step with its Kampfgruppe on the back, not a unit of
  -- two steps (the KG face is kept as the counter's second side)
  strength = function(u)
    local kg = u:attr("kg")
    if not kg then return nil end
    if u.step == 1 then return "1 step (KG on back)" end
    return "KG face (1 step)"
  end,
  track = function(name, value)
    local f = TRACKS[name]
    if f then return f(value) end
    return false
  end,
  marker = describe.markers(UNIT_MARKERS, HEX_MARKERS),
  attr = function(kind, name, value)
    if kind == "hex" then
      if name == "vp" then return "a VP hex [3.5]" end
      return nil
    end
    return describe.lookup(ATTRS, name, value)
  end,
  unit = function(u)
    local lines = {}
    if u.hex and allowance.segment() and u.side == umpire.clock().side then
      local mp, why, reason = allowance.allowance(u)
      if mp then
        local left = movement.left(u)
        lines[#lines + 1] = ("movement this segment: %s MP (%s), %s left [10.1]%s"):format(map.fmt_cost(mp), why,
          map.fmt_cost(left), (u:marker("moved") and left > 0) and "; it has moved: a unit moves once a segment [10.4.A]" or "")
      else
        lines[#lines + 1] = ("does not move this segment: %s [%s]"):format(reason, why)
      end
    end
    if u:attr("kg") and not C.is_kg(u) then
      lines[#lines + 1] = "one step: its loss eliminates the division, and its Kampfgruppe (the other face) may take its place; the Kampfgruppe is not a reduced side [16.1.A]"
    end
    if u.hex and C.is_combat(u) then
      lines[#lines + 1] = zoc.projects(u) and ("has a ZOC%s [6.2]"):format(zoc.strong(u) and "" or " (infantry-only, 6.7)") or "has no ZOC [6.3]"
    end
    return lines
  end,
  hex = function(hex)
    local lines = {}
    for _, side in ipairs(C.SIDES) do
      if zoc.zoc(side)[hex] then lines[#lines + 1] = ("in a %s zone of control [6.1]"):format(side) end
    end
    if C.WEST_OF_SLS[hex] then lines[#lines + 1] = "west of the SLS line [9.3]" end
    if C.DW[hex] then
      lines[#lines + 1] = map.marker(hex, "dw_gone") and "defensive works, destroyed [17.8]" or "German defensive works [17.8]"
    end
    return lines
  end,
}

-- 10.2, 13.2.B: the markers on the Movement Point Track by side, each named as the rulebook names
-- it, with its box (0: off the track, after the declaration or the combat duration took it off,
-- 10.2.D); a side's markers shown while any of them is on the track.
local TRACK_NAMES = {
  { side = "Soviet", markers = { { "sov_rifle", "rifle" }, { "sov_guards", "guards rifle" }, { "sov_mech", "mechanized" } } },
  { side = "German", markers = { { "ger_inf", "infantry" }, { "ger_mech", "mechanized" } } },
}
local function track_line()
  local parts = {}
  for _, row in ipairs(TRACK_NAMES) do
    local shown, any = {}, false
    for _, m in ipairs(row.markers) do
      local v = tracks.get(m[1]) or 0
      any = any or v > 0
      shown[#shown + 1] = v > 0 and ("%s %d"):format(m[2], v) or (m[2] .. " off the track")
    end
    if any then parts[#parts + 1] = ("%s %s"):format(row.side, table.concat(shown, ", ")) end
  end
  local reaction = tracks.get("ger_reaction") or 0
  if reaction > 0 then parts[#parts + 1] = ("German reaction allowance %d (13.2.B)"):format(reaction) end
  return #parts > 0 and table.concat(parts, "; ") or "no markers on the track"
end

umpire.status(function()
  local turn = umpire.clock().turn
  local lines = {
    ("%s, %s weather [9.1]%s"):format(T.turn_names[turn] or ("turn " .. turn), C.weather(turn),
      logistics.sls_active(turn) and "; Soviet Logistical Strain [9.3]" or ""),
    ("Movement Point Track: %s [10.2]"):format(track_line()),
  }
  if vars.get("declared") then lines[#lines + 1] = ("declared for the Soviet assault: %d MP [10.6.A]"):format(vars.get("declared")) end
  if vars.get("duration") then lines[#lines + 1] = ("combat duration: %d [13.2]"):format(vars.get("duration")) end
  local s, g = #victory.vp_hexes(C.SOVIET), #victory.vp_hexes(C.GERMAN)
  lines[#lines + 1] = ("VP hexes: Soviet %d, German %d; German VP now %d [3.5]"):format(s, g, (victory.german_vp(false)))
  return lines
end)

umpire.table {
  name = "mp", title = "Movement Point Track (APPROX but for the points the rulebook gives)", rule = "10.2.B",
  columns = { "modified roll", "Soviet rifle", "Soviet mech", "German infantry", "German mech" },
  rows = function()
    local rows = {}
    for n = T.mp_track.min, T.mp_track.max do
      local s, g = T.mp_track.Soviet[n], T.mp_track.German[n]
      rows[#rows + 1] = { tostring(n), tostring(s.inf), tostring(s.mech), tostring(g.inf), tostring(g.mech) }
    end
    return rows
  end,
  notes = { "Soviet rolls: Frost +1, Mud -1, strain -1 (9.1.C, 9.3); guards rifle always 6 (10.3.B.1); turn 1: +1 rifle and guards, +2 mech (10.2.C); Zossen lost: German MPs -1 (17.6)" },
}

umpire.table {
  name = "crt", title = "Combat Results Table (APPROX: built around the 13.6 example)", rule = "13.4",
  columns = { "strength", "<=0", "1", "2", "3", "4", "5", "6", "7+" },
  rows = function()
    local rows = {}
    for i, col in ipairs(T.crt_columns) do
      local r = { col[2] and ("%d-%d"):format(col[1], col[2]) or (col[1] .. "+") }
      for _, cell in ipairs(T.crt[i]) do r[#r + 1] = cell end
      rows[#rows + 1] = r
    end
    return rows
  end,
  notes = { "each side fires with its total (out-of-supply units halved as a total, 7.5) and loses the steps the other's roll gives", "* : a German infantry division eliminated may leave its KG (16.1.A)" },
}

umpire.table {
  name = "barrage", title = "Barrage Table (APPROX but for the class A cells 1, 2 and 4)", rule = "11.1",
  columns = { "class", "<=0", "1", "2", "3", "4", "5", "6", "7+" },
  rows = function()
    local rows = {}
    for _, c in ipairs { "A", "B", "C" } do
      local r = { c }
      for _, cell in ipairs(T.barrage[c]) do r[#r + 1] = cell end
      rows[#rows + 1] = r
    end
    return rows
  end,
  notes = { "-1 with no friendly combat unit next to the target; terrain -1 (broken, forest, swamp, city, defensive works) or -2 (mountain, urban, fortress), at most -2", "D: disrupted; a number: steps lost, the survivors disrupted" },
}

-- 10.5, 9.1.A, 10.7.1, 13.7.A, 11.1: the Terrain Effects Chart: the cost of each terrain and
-- hexside for each movement class in Frost, Mud and Clear, and its die modifier in combat and
-- barrage (tables.lua).
local function by_weather(row)
  local out = {}
  for _, w in ipairs { "frost", "mud", "clear" } do
    local v = row[w]
    out[#out + 1] = v == "no" and "no" or map.fmt_cost(v)
  end
  return table.concat(out, " / ")
end
local TEC_TERRAINS = { "clear", "forest", "broken", "swamp", "mountain", "urban" }
local TEC_HEXSIDES = { minor_river = "minor river", major_river = "major river", lake = "lake hexside", haff = "Haff hexside", sea = "sea hexside" }
umpire.table {
  name = "tec", title = "Terrain Effects Chart (APPROX but clear 1 and the hexsides' Frost/Mud rules: DATA.md)", rule = "10.5",
  columns = { "terrain", "infantry F / M / C", "jaeger F / M / C", "mechanized F / M / C", "combat and barrage DRM" },
  rows = function()
    local rows = {}
    local function class_costs(t)
      local row = {}
      for _, class in ipairs { "inf", "jaeger", "mech" } do
        local r = {}
        for _, w in ipairs { "frost", "mud", "clear" } do r[w] = T.move_cost[class][w][t] end
        row[#row + 1] = by_weather(r)
      end
      return row
    end
    for _, t in ipairs(TEC_TERRAINS) do
      local c = class_costs(t)
      local d = T.combat_drm.hex[t]
      rows[#rows + 1] = { t, c[1], c[2], c[3], d and tostring(d) or "-" }
    end
    local closed = {}
    for t in pairs(T.prohibited_terrain) do closed[#closed + 1] = t end
    table.sort(closed)
    rows[#rows + 1] = { table.concat(closed, ", "), "no", "no", "no", "-" }
    for _, f in ipairs { "city", "fortress" } do
      rows[#rows + 1] = { f .. " (feature)", "as its terrain", "", "", tostring(T.combat_drm.hex[f]) }
    end
    rows[#rows + 1] = { "defensive works", "as its terrain", "", "", ("%d (Soviet attacks, 17.8)"):format(T.combat_drm.hex.dw) }
    for _, k in ipairs { "minor_river", "major_river", "lake", "haff", "sea" } do
      local r = {}
      for _, w in ipairs { "frost", "mud", "clear" } do r[w] = T.hexside_cost[w][k] end
      local cost = "+" .. by_weather(r):gsub(" / (%d)", " / +%1")
      if by_weather(r) == "no / no / no" then cost = "no" end
      local drm = (k == "minor_river" or k == "major_river") and tostring(T.combat_drm.river)
        or (k == "lake" or k == "haff") and ("%d (Frost only)"):format(T.combat_drm.lake_frost) or "-"
      rows[#rows + 1] = { TEC_HEXSIDES[k], cost, "", "", drm }
    end
    return rows
  end,
  notes = {
    "a hex costs its terrain, a hexside adds its cost; \"no\": closed (9.1.A, 10.5.2); one hex may always be entered with an allowance of 1 or more (10.4.B)",
    ("a Soviet major-river crossing in Mud or Clear: into a held bridgehead (+%d, 10.7.1.A.3) or from the hex the unit began in (+%d, then it stops, 10.7.1.B) only; behind the lines a minor river (10.7.1.C)"):format(T.soviet_major_river, T.soviet_major_river),
    "combat: the attacker's die; barrage: the terrain part at most -2 (11.1); Zhukov pays 1 MP a hex (17.3.A)",
  },
}

-- ------------------------------------------------------------------ map overlays
umpire.overlay {
  usage = "control", help = "who controls each hex (S Soviet, G German)", rule = "3.5.A",
  run = function()
    local out = {}
    for _, h in ipairs(map.hexes()) do
      if not C.PROHIBITED[h] then out[h] = C.controller(h) == C.SOVIET and "S" or "G" end
    end
    return out
  end,
}
umpire.overlay {
  usage = "zoc <side>", help = "the hexes the side's units project a zone of control into (Z; R: the refugees' zone, German units only)", rule = "6.1",
  run = function(side)
    local out = sets.labelled(zoc.zoc(side), "Z")
    return side == C.GERMAN and sets.labelled(zoc.refugee_zoc(), "R", out) or out
  end,
}
umpire.overlay {
  usage = "supply <side>", help = "the hexes where a unit of the side would be in supply now", rule = "7.1",
  run = function(side) return sets.labelled(supply.traceable(side, map.hexes()), "S") end,
}
overlays.reach {
  help = "every hex the unit can still move to in this segment, with its cost in MP", rule = "10.4",
  profile = function(u)
    return movement.profile(u, u.hex, movement.left(u))
  end,
}

return M
