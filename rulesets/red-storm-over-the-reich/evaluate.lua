-- Red Storm over the Reich: how the game stands, for bots and playouts (umpire.evaluate). Reads
-- the state only: no roll, no log, no track (the VP are victory.lua's own counts).
--
-- Figures (the same for both sides): `soviet_vp`, the VP hexes the Soviet holds (3.5, what the
-- automatic victory of 3.2.C.1 counts, without 3.3.C's extra hex); `german_vp`, the German VP of
-- 3.5 (VP hexes, refugees surviving, less the turns of unmade mandated attacks; the refugees on
-- the map count once the game is over, 3.5.C); `german_steps` and `soviet_steps`, the steps of
-- the combat units on the map (2.2.A; a German infantry division and its Kampfgruppe face count
-- one each, 16.1.A); `bunker`, "standing" or "eliminated" (3.2.C.2, 16.2); `result`, once the
-- game is over, who won and how (3.2.C, 3.4.C), without the numbers.
--
-- Score, for the Soviet (the German's is its negative, but for the two terms below): what is won
-- already, and the progress towards what can still be won, so that a bot looking one command
-- ahead sees the worth of a move that only pays some moves later.
--   Won: 10 a Soviet VP, -10 a German one; 1 a step of the Soviet's on the map, -1 a German one;
--   1 an enemy combat unit out of supply (7.0: the step attrition takes of it, 15.0; the
--   Soviet's supply traced now, without the defensive works, the German's traced now in his own
--   score and as the last supply segment found it in the Soviet's), the reverse for one's own;
--   30 once The Bunker is gone; once the game is over, +1000 for a Soviet victory, -1000 for a
--   German one.
--   Progress (M.progress), towards the VP hexes the Soviet does not hold (3.5; the automatic
--   victory of 3.2.C.1 and the German VP of 3.2.C.2 count them): 0.25 for each hex the nearest
--   supplied Soviet combat unit (3.5.A: what takes a VP hex) is nearer than 16 to each such hex,
--   three times that for Berlin while The Bunker stands (3.2.C.2: the game ends when it falls);
--   0.05 for each hex such a unit is nearer than 16 to its nearest such hex; -1 for each such
--   hex a German combat unit stands in (3.5.A: the Soviet must enter it to take it); and the
--   German VP at stake while Hitler Mandated Attacks are owed this turn (17.7, 3.5.B: a VP lost
--   if not all are made), 10 times the share of the turn's attacks still owed, so that each
--   attack made is worth its part; an attack a supplied division stands ready to make (next to
--   a Soviet combat unit) counts half made, so that moving into place is worth something too.
-- So the German's score is not quite the negative of the Soviet's: his own units' supply is
-- traced now in his; and in the Soviet's only, -0.5 a Soviet combat unit supplied now whose
-- line the German could cut by a move of one hex (his ZOC a hex wider, 7.2: the joint supply
-- check of 15.0 comes after his redeployment). A German move that only threatens a line gains
-- him nothing; the cut, once made, counts in both. In the Soviet's score too, the German units
-- marked out of supply that he can trace supply to now have their ZOC in the Soviet's trace
-- (6.2, 7.0: his next Supply Segment, before 15.0's check, gives it back), so that a Soviet move
-- that reopens a German line shows what it costs.
-- The weights are the project's own, not the rulebook's (DATA.md).
local C = require "common"
local T = require "tables"
local victory = require "victory"
local special = require "special"
local supply = require "supply"
local zoc = require "zoc"
local scoring = require "scoring"   -- rulesets/lib

local M = {}

local WEIGHT = { ["Soviet Automatic Victory"] = 1, ["Soviet Victory"] = 1, ["German Victory"] = -1 }

-- 3.2.C, 3.4.C: the outcome once the game is over: the winner and the kind of victory, the
-- rules' text before its colon (`German victory: The Bunker is on the map ...`).
function M.result()
  local over = umpire.clock().over
  if not over then return nil end
  return scoring.title(over:match("^([^:]*)") or over)
end

local function bunker_standing()
  local b = units.get("BUNKER")
  return b ~= nil and b.hex ~= nil
end


local SIDES = { C.GERMAN, C.SOVIET }
-- The progress weights (the project's own, DATA.md).
local REACH = 16          -- hexes: a target farther than this from every taker adds nothing
local APPROACH = 0.25     -- a target, for each hex its nearest taker is within REACH
local BUNKER_TARGET = 3   -- 3.2.C.2: Berlin, while The Bunker stands, as this many targets
local MARCH = 0.05        -- a taker, for each hex it is within REACH of its nearest target
local GARRISON = 1        -- a target a German combat unit stands in
local RISK = 0.5          -- 7.2, 15.0: a Soviet unit whose line a German move of one hex could cut
local MANDATE = 10        -- 3.5.B: the German VP at stake while mandated attacks are owed
local READY = 0.5         -- 17.7: a mandated attack a division stands ready to make, as made

-- 7.0: the combat units of `side` on the map out of supply, counted: the Soviet's traced
-- now (supply.traceable's estimate, without the defensive works), since his advances outrun his
-- lines; the German's traced now too for the German's own score (`traced_german`: a move that
-- leaves his units cut off shows at once), else as the last supply segment found them, marker
-- `oos` (his lines run back to the west edge, his rail net and his ports, behind him; a trace
-- of them costs half as much again as the Soviet's, and the Soviet's score does without it).
-- `hexes`, the hexes they stand in (the trace's targets). The second value, the hexes of the
-- supplied ones (nil: those not marked); the third, for the Soviet when `risky`, how many are
-- supplied now by lines the German could cut by a move of one hex (supply.traceable's `risk`:
-- his ZOC a hex wider, 7.2). (Counted in Rust, units.count: no unit is read in Lua.)
local function out_of_supply(side, hexes, risky, traced_german)
  local function count(more)
    more.side, more.kind, more.on_map = side, C.COMBAT_KINDS, true
    return units.count(more)
  end
  if side == C.GERMAN and not traced_german then return count { marked = "oos" }, nil, 0 end
  local traced, safe = supply.traceable(side, hexes, { works = false, risk = risky, revive = risky })   -- (risky: the Soviet's score only)
  return count { outside = traced }, traced, safe and count { within = traced, outside = safe } or 0
end

-- Steps on the map and units out of supply, by side (2.2.A, 7.0); and what the progress terms
-- read of the same units: the hexes of the supplied Soviet combat units (3.5.A: they take VP
-- hexes) and the hexes German combat units stand in, as map.hexsets. The Soviet's
-- supply is traced now (out_of_supply), not read off the last segment's markers: a move that
-- outruns its lines, or a line cut, shows at once, as the step attrition takes of a unit out of
-- supply (15.0). (Read by hex and counted in Rust, units.hexset and units.count: no unit is
-- read in Lua.)
local function survey(risky, traced_german)
  local f = scoring.forces(SIDES)
  local s = { at_risk = 0 }
  for _, side in ipairs(SIDES) do
    local filter = { side = side, kind = C.COMBAT_KINDS, on_map = true }
    local hexes = units.hexset(filter)
    local fs = f[side]
    local supplied, at_risk
    fs.steps = units.count(filter, "steps")
    fs.trouble, supplied, at_risk = out_of_supply(side, hexes, risky, traced_german)
    s.at_risk = s.at_risk + at_risk
    if side == C.GERMAN then
      s.german = hexes
    else
      s.takers = supplied or hexes   -- (the trace answers only for the hexes asked)
    end
  end
  return f, s
end

local function forces() return (survey()) end

-- 7.2: how many Soviet combat units are supplied now by a line a German move of one hex could
-- cut (what the score counts RISK each).
function M.at_risk() return select(2, survey(true)).at_risk end

function M.figures()
  local over = umpire.clock().over ~= nil
  return scoring.steps_figures({
    soviet_vp = victory.soviet_vp(),                                      -- 3.5
    german_vp = (victory.german_vp(over)),                                -- 3.5, 3.5.C
    bunker = bunker_standing() and "standing" or "eliminated",
    result = M.result(),
  }, forces())                                                            -- 2.2.A, 16.1.A
end

-- 17.7: the supplied German divisions that stand next to a Soviet unit now, by hex (each could
-- make a mandated attack in the combat segment; 13.1: only units next to the defender attack).
local function divisions_ready()
  local divisions = units.hexes { side = C.GERMAN, on_map = true, attr = { division = true }, unmarked = "oos" }
  if not next(divisions) then return 0 end
  local near = map.adjacent { from = units.hexset { side = C.SOVIET, kind = C.COMBAT_KINDS, on_map = true }, as_set = true }
  local n = 0
  for h, k in pairs(divisions) do
    if near[h] then n = n + k end
  end
  return n
end

-- 17.7, 3.5.B: the share of this turn's Hitler Mandated Attacks still owed (0 when none is), an
-- attack a division stands ready to make (next to a Soviet unit, supplied) counted READY of one:
-- what a move into place gains, the attack itself the rest.
local function owed()
  local left = special.hma_left()      -- nil when no attack is mandated this turn
  if not left or left == 0 then return 0 end
  return (left - READY * math.min(left, divisions_ready())) / vars.get("hma").required
end

-- The progress terms of the score, for the Soviet, by name (the header says what each counts):
-- `approach`, `march`, `garrison` (counted against him), `mandate`.
function M.terms(s)
  if not s then s = select(2, survey()) end
  -- 3.5: the VP hexes the Soviet does not hold (3.5.A: the German's), a hexset in the order of
  -- their ids, and as a list for scoring.approach
  local targets, list = victory.vp_hexes(C.GERMAN), {}
  for h in pairs(targets) do list[#list + 1] = h end
  local standing = bunker_standing()
  local function worth(h) return APPROACH * ((h == T.bunker_hex and standing) and BUNKER_TARGET or 1) end
  return { approach = scoring.approach(list, s.takers, REACH, worth),
           march = scoring.march(s.takers, targets, REACH, MARCH),
           garrison = GARRISON * #map.hexset(targets, { within = s.german }),
           mandate = MANDATE * owed() }
end

-- Their sum, for the Soviet.
function M.progress(s)
  local t = M.terms(s)
  return t.approach + t.march - t.garrison + t.mandate
end

-- The hexes where commands of `side` could reopen lines now. While some of his combat units are
-- out of supply (7.0, traced now as his score traces them; 15.0's attrition takes a step of each
-- at the turn's end): the enemy ZOC hexes that block his lines (7.2, not negated, 6.5) next to
-- the hexes his lines reach and within a line's length (7.1) of those units. A unit of his that
-- enters one negates it there and may reopen their lines; where an enemy unit stands in one, an
-- attack on it may. Nothing while all are supplied.
function M.repairs(side)
  local hexes = units.hexset { side = side, kind = C.COMBAT_KINDS, on_map = true }
  local cut = map.hexset(hexes, { without = supply.traceable(side, hexes, { works = false }) })
  if #cut == 0 then return nil end
  local edge = map.adjacent { from = supply.net(side), as_set = true }
  local near = map.reach { from = cut, mp = T.supply.line, routes = false, as_set = true }
  return map.hexset(map.hexset(zoc.unnegated(side, C.weather()), { within = edge }), { within = near })
end

-- Where `side`'s commands matter most now (umpire.focus: the search bot tries commands to these
-- hexes first): the German's repairs (M.repairs). The Soviet has none: with them his seats did not
-- gain (the German cuts a mended pocket again before the joint check), DATA.md 3a.
function M.focus(side)
  if side ~= C.GERMAN then return nil end
  return M.repairs(side)
end

function M.score(side)
  local soviet = side == C.SOVIET
  local f, s = survey(soviet, not soviet)
  local sc = 10 * (victory.soviet_vp() - victory.german_vp(false))      -- 3.5
    + (f.Soviet.steps - f.German.steps) + (f.German.trouble - f.Soviet.trouble)   -- 15.0
    + M.progress(s)                                                       -- 3.5, 3.2.C
  if not bunker_standing() then sc = sc + 30 end                          -- 3.2.C.2, 16.2
  sc = scoring.for_side(sc, M.result(), WEIGHT, side, C.SOVIET)         -- 3.2.C, 3.4.C
  -- 7.2, 15.0: the lines at risk, the Soviet's own worry (a German move that only threatens a
  -- line gains him nothing: the cut, once made, counts in both scores)
  return soviet and sc - RISK * s.at_risk or sc
end

return M
