-- Red Storm over the Reich 6: zones of control — who has one (6.2, 6.3), where it reaches
-- (6.1, 6.4), negation (6.5), the "infantry-only" zones of 6.7 and the refugees' zones that stop
-- German units only (6.11).
local C = require "common"

local M = {}

local ZOC_KINDS = { "infantry", "mech", "cavalry" }   -- (the combat units, 2.2.A, but anti-tank)
local ZOC_KIND = {}
for _, k in ipairs(ZOC_KINDS) do ZOC_KIND[k] = true end
-- 7.0, 12.1, 10.8.2: the markers of a unit without a ZOC: out of supply, disrupted, entrained.
local NO_ZOC = { "oos", "disrupted", "entrained" }

-- 6.2, 6.3: a stack has a ZOC if one of its units has. Mechanized units (their Kampfgruppen too),
-- Soviet rifle and guards rifle units, German infantry divisions and Kampfgruppen with an attack
-- strength of 1 or more; the guard cavalry (6.7 counts its ZOC among the strong ones). Never a
-- printed attack of 0, a support unit, an out-of-supply, disrupted (12.1) or entrained (10.8.2)
-- unit. The anti-tank division is none of the kinds 6.2 names (DATA.md).
local function attacks(u) return (u:value("attack") or 0) >= 1 end
function M.projects(u)
  if not ZOC_KIND[u.kind] or not u.hex or not attacks(u) then return false end
  for _, m in ipairs(NO_ZOC) do
    if u:marker(m) then return false end
  end
  return true
end
-- 6.4: no ZOC comes out of an urban or fortress hex.
local NOT_OUT_OF = map.hexset { C.URBAN, C.FORTRESS }

-- The hexes of the side's units on the map that project a ZOC (M.projects, filtered in Rust:
-- no handle is made), but urban and fortress hexes (6.4); `more`, a narrower `kind` and an
-- `attr` (the strong units, 6.7), or the markers `marked` and `unmarked` instead of NO_ZOC
-- (M.dormant). A map.hexset.
local function sources(side, more)
  more = more or {}
  return units.hexset { side = side, kind = more.kind or ZOC_KINDS, attr = more.attr, on_map = true,
                       marked = more.marked, unmarked = more.unmarked or NO_ZOC, at_least = { attack = 1 },
                       outside = NOT_OUT_OF }
end

-- 6.2, 7.0: the hexes of the side's units that would project a ZOC but for their `oos` marker
-- alone (not disrupted, not entrained), but urban and fortress hexes (6.4). A map.hexset: the
-- units whose ZOC their side's next Supply Segment gives back if it finds them supplied.
local DORMANT = { marked = "oos", unmarked = { "disrupted", "entrained" } }
function M.dormant(side) return sources(side, DORMANT) end

-- 6.7: the units whose ZOC is not "infantry-only": mechanized, guard cavalry, guards rifle.
function M.strong(u)
  return C.is_mech(u) or C.is_cavalry(u) or C.is_guards_rifle(u)
end

-- 6.4: ZOCs reach neither into nor out of urban and fortress hexes, nor across major rivers in
-- Mud and Clear, nor across Haff, lake or sea hexsides (Haff and lake hexsides are minor rivers in
-- Frost, 9.1.A); never into water or the prohibited area.
local NOT_INTO = { "urban", "fortress", "sea", "lake", "prohibited" }
function M.not_across(weather)
  weather = weather or C.weather()
  if weather == "frost" then return { "sea" } end
  return { "sea", "haff", "lake", "major_river" }
end

-- (a map.hexset: the zones are only read)
local function reach(from, weather)
  return map.adjacent { from = from, not_across = M.not_across(weather), not_into = NOT_INTO, as_set = true }
end

-- 6.7: the kinds of the strong units (M.strong): mechanized and guard cavalry; guards rifle.
local STRONG = { { kind = { "mech", "cavalry" } }, { kind = "infantry", attr = { ma = "guards" } } }

-- The hexes the side's units project a ZOC into: all of them, and those of the strong units
-- (6.7). Returns two map.hexsets.
function M.zocs(side, weather)
  local strong = {}
  for i, more in ipairs(STRONG) do strong[i] = sources(side, more) end
  return reach(sources(side), weather), reach(strong, weather)
end

-- The hexes the side's units project a ZOC into (M.zocs' first set).
function M.zoc(side, weather)
  return reach(sources(side), weather)
end

-- 6.11: a refugee unit's ZOC covers its own hex and the six around it (terrain as in 6.4) and
-- affects German units only.
function M.refugee_zoc(weather)
  local from = units.hexset { side = C.GERMAN, kind = "refugee", on_map = true }
  return map.hexset { reach(from, weather), from }
end

-- 6.5: friendly combat and support units negate an enemy ZOC in their hex (for supply lines, the
-- USIR's rail link and mechanized retreats only). The enemy ZOC a side's supply lines, rail link
-- and mechanized retreats respect: the enemy's ZOC minus the hexes its own units stand in. With
-- `wide`, also the hexes next to that ZOC but those: where the enemy's ZOC reaches after a move
-- of one hex (what a line through them risks, evaluate.lua). `revived`, hexes of enemy units out
-- of supply whose ZOC counts as well (M.dormant's, found supplied now: evaluate.lua). Both
-- map.hexsets (made in Rust).
function M.unnegated(side, weather, wide, revived)
  local ez = M.zoc(C.other(side), weather)
  if revived and #revived > 0 then ez = map.hexset { ez, reach(revived, weather) } end
  local own = { without = units.hexset { side = side, on_map = true } }
  return map.hexset(ez, own), wide and map.hexset(reach(ez, weather), own) or nil
end

return M
