-- Stargard Solstice: how the game stands, for bots and playouts (umpire.evaluate). Reads the
-- state only: no roll, no log, no track (the VP are victory.lua's own count, victory.tally).
--
-- Figures (the same for both sides): `soviet_vp`, the Soviet VP as 14.1 totals them (VP hexes
-- held plus the other sources, fractions rounded up, 16.4); `vp_hexes`, the VP hexes the Soviet
-- holds (14.1, 14.3.1); `german_steps` and `soviet_steps`, the steps of the combat units on the
-- map (HQs and air units aside); `result`, once the game is over, the victory level of 14.3 or
-- the sudden death of 14.2, without its numbers.
--
-- Score, for the Soviet (the German's is its negative): what is won already, and the progress
-- towards what can still be won, so that a bot looking one command ahead sees the worth of a
-- move that only pays some moves later.
--   Won: 10 a Soviet VP, unrounded (14.1); 1 a step of the Soviet's on the map, -1 a German
--   one; 0.5 an enemy unit out of supply (11.0), 1 if isolated, the reverse for one's own; once
--   the game is over, 1000 times the level's weight (Triumphant 1, Overwhelming 0.75, Major 0.5,
--   Minor 0.25, Draw 0, German Propaganda -1, a sudden death ±1; 14.2, 14.3).
--   Progress (M.progress): for each VP hex the Soviet does not hold, 0.25 × its VP for each hex
--   its nearest Soviet unit able to take it (14.1.1) is nearer than 12 hexes, and the same at
--   4 VP for the nearest Stettin hex (14.2.2); 0.05 for each hex a Soviet unit able to take a
--   VP hex is nearer than 12 to the nearest such target (14.1); -1 × its VP for a VP hex a
--   German combat unit stands in (14.1: the Soviet must enter it to take it); 0.1 × the odds
--   (up to 5) the adjacent Soviet units would attack a German stack at (the VP hexes and steps
--   of 14.1 are taken by attacking); 10 for a German unit withdrawing by Defend the Reich still
--   on the map, as the 1 VP it gives the Soviet if it does not leave in time, 0.2 for each
--   hex it is from Altdamm (07.16), where it leaves, and 0.2 for each hex it is beyond its HQ's
--   command range (it moves only within it; 20 once its HQ has left the map) (14.3.2, 19.1.3,
--   3.3.3; its steps are not counted); 0.1 for each hex a German combat unit is beyond its HQ's
--   command range, at most 10 a unit (10 if its HQ is gone), and the reverse for a Soviet one:
--   a unit out of command neither moves nor attacks when its HQ is activated (3.3.3, 3.3.5),
--   and the VP hexes and steps of 14.1 are taken and held by the units that do; 2 for each hex a
--   Stettin hex no German combat unit stands in is within 9 of its nearest Soviet taker (14.2.2:
--   a Soviet unit in supply entering one wins at once; a German unit in it bars the way).
-- The weights are the project's own, not the rulebook's (DATA.md).
local C = require "common"
local command = require "command"
local T = require "tables"
local victory = require "victory"
local scoring = require "scoring"   -- rulesets/lib

local M = {}

-- 14.2, 14.3: the weight of each outcome, for the Soviet.
local WEIGHT = {
  ["Triumphant Soviet Victory"] = 1, ["Overwhelming Soviet Victory"] = 0.75,
  ["Major Soviet Victory"] = 0.5, ["Minor Soviet Victory"] = 0.25, ["Draw"] = 0,
  ["German Propaganda Victory"] = -1,
  ["Soviet Sudden Death Victory"] = 1, ["German Sudden Death Victory"] = -1,
}
M.WEIGHT = WEIGHT   -- (read by evaluate.ump)

-- The progress weights (the project's own, DATA.md).
local REACH = 12          -- hexes: a target farther than this from every unit adds nothing
local APPROACH = 0.25     -- a VP of a target, for each hex its nearest taker is within REACH
local STETTIN_VP = 4      -- 14.2.2: Stettin, weighed as a target of this many VP
local OPEN = 2            -- 14.2.2: a Stettin hex no German combat unit holds, a hex its nearest
local OPEN_REACH = 9      -- taker is within this many of it (one move from a sudden death)
local MARCH = 0.05        -- a Soviet taker, for each hex it is within REACH of its nearest target
local GARRISON = 1        -- a VP of a VP hex a German combat unit holds
local THREAT = 0.1        -- an odds ratio a German stack is attacked at, up to MAX_ODDS
local MAX_ODDS = 5
local WITHDRAW_VP = 1     -- 14.3.2: the VP a withdrawing unit left on the map gives
local WITHDRAW_HEX = 0.2  -- a hex a withdrawing unit is from Altdamm
local ALTDAMM = "07.16"   -- 19.1.3: where withdrawing units leave
local WITHDRAW_COMMAND = 0.2  -- a hex a withdrawing unit is beyond its HQ's command range
local HQ_GONE = 20        -- the hexes counted so for a withdrawing unit whose HQ is off the map
local COMMAND = 0.1       -- a hex a combat unit is beyond its HQ's command range
local COMMAND_CAP = 10    -- hexes: at most this many counted a unit (also once its HQ is gone)

-- 14.3.1: the VP hexes, in the order of their ids (the map never changes).
local VP_HEXES = {}
for h in pairs(map.valued("vp")) do VP_HEXES[#VP_HEXES + 1] = h end
-- 14.2.2: the Stettin hexes.
local STETTIN = map.area("stettin") or {}

-- The outcome once the game is over: a level of 14.3 as the rules pick it, or a sudden death
-- (14.2.1, 14.2.2) named without its rule.
function M.result()
  local over = umpire.clock().over
  if not over then return nil end
  for _, row in ipairs(T.victory) do
    if over == row[2] then return over end
  end
  return scoring.title((over:gsub("%s*%b()", "")))
end

-- 11.0: an isolated unit is in worse trouble than one only out of supply.
local function trouble(u)
  if u:marker("isolated") then return 1 end
  if u:marker("oos") then return 0.5 end
  return 0
end

-- Steps on the map and supply states of the combat units, by side (one pass over the units).
local function forces()
  return scoring.count(scoring.forces { C.GERMAN, C.SOVIET }, units.all { on_map = true }, C.is_combat, trouble)
end

function M.figures()
  local vp, hexes = victory.tally()
  return scoring.steps_figures({
    soviet_vp = math.ceil(vp),                                            -- 14.1, 16.4
    vp_hexes = hexes,                                                     -- 14.1, 14.3.1
    result = M.result(),
  }, forces())
end

-- 3.3.3: how many hexes a combat unit is beyond its HQ's command range (nil once its HQ is off
-- the map; 0 for a unit of no formation). `hqs` keeps each HQ's hex and range for the survey.
local function out_of_command(u, hqs)
  local id = u:attr("formation")
  if not id then return 0 end
  local hq = hqs[id]
  if hq == nil then
    local h = units.get(id)
    hq = (h and h.hex) and { hex = h.hex, range = command.range(h) } or false
    hqs[id] = hq
  end
  if not hq then return nil end
  return math.max(0, map.distance(hq.hex, u.hex) - hq.range)
end

-- What the score reads of the combat units on the map: the German units withdrawing (19.1.3)
-- and the units in supply trouble (11.0), each found in Rust; then one pass over each side's:
-- its steps, the Soviet takers' hexes (14.1.1: a ZOC, 4.2, and a defence of 1 or more) and
-- attack strength by hex, the German defence by hex (its stacks in the order first met).
local function survey()
  local f = scoring.forces { C.GERMAN, C.SOVIET }
  local s = { takers = {}, taker_list = {}, attack = {}, attackers = {}, defence = {}, stacks = {}, withdrawing = {},
              out_of_command = 0, beyond = { [C.GERMAN] = 0, [C.SOVIET] = 0 } }
  local hqs = {}
  local function cohesion(u)                                             -- 3.3.3, 3.3.5
    s.beyond[u.side] = s.beyond[u.side] + math.min(out_of_command(u, hqs) or COMMAND_CAP, COMMAND_CAP)
  end
  local leaving = {}
  for _, u in ipairs(units.all { side = C.GERMAN, on_map = true, attr = { withdrawing = true } }) do
    if C.is_combat(u) then
      leaving[u] = true
      s.withdrawing[#s.withdrawing + 1] = u.hex                          -- 14.3.2: counted as VP
      s.out_of_command = s.out_of_command + (out_of_command(u, hqs) or HQ_GONE)  -- 19.1.3, 3.3.3
    end
  end
  for _, u in ipairs(units.all { on_map = true, marked = { "oos", "isolated" } }) do
    if C.is_combat(u) then f[u.side].trouble = f[u.side].trouble + trouble(u) end
  end
  local n = f[C.SOVIET]
  for _, u in ipairs(units.all { side = C.SOVIET, on_map = true }) do
    if C.is_combat(u) then
      n.steps = n.steps + u.steps_left
      cohesion(u)
      local a = C.attack(u)
      if a >= 1 then
        local hex = u.hex
        if not s.attack[hex] then s.attackers[#s.attackers + 1] = hex end
        s.attack[hex] = (s.attack[hex] or 0) + a
        if not s.takers[hex] and C.defense(u) >= 1 then
          s.takers[hex] = true
          s.taker_list[#s.taker_list + 1] = hex
        end
      end
    end
  end
  n = f[C.GERMAN]
  for _, u in ipairs(units.all { side = C.GERMAN, on_map = true }) do
    if C.is_combat(u) and not leaving[u] then
      local hex = u.hex
      n.steps = n.steps + u.steps_left
      cohesion(u)
      if not s.defence[hex] then s.stacks[#s.stacks + 1] = hex end
      s.defence[hex] = (s.defence[hex] or 0) + C.defense(u)
    end
  end
  return f, s
end

-- 14.1, 14.2.2: the targets the Soviet has yet to take, as a set, and their worth to him now:
-- his approach to each (its nearest taker, within REACH). (The sets are made hexsets once: each
-- is searched many times.)
local function approach(s, held)
  local targets, open = {}, {}
  local takers = map.hexset(s.takers)
  for _, h in ipairs(VP_HEXES) do
    if not held[h] then
      targets[h] = true
      open[#open + 1] = h
    end
  end
  local worth = scoring.approach(open, takers, REACH, function(h) return APPROACH * victory.vp_value(h) end)
  local best, open_worth = nil, 0
  for _, h in ipairs(STETTIN) do
    targets[h] = true
    local _, d = map.nearest(h, takers)
    if d and (not best or d < best) then best = d end
    if d and not s.defence[h] then open_worth = open_worth + OPEN * math.max(0, OPEN_REACH - d) end
  end
  if best and best < REACH then worth = worth + APPROACH * STETTIN_VP * (REACH - best) end
  return map.hexset(targets), worth, open_worth
end

-- 14.1: every Soviet taker marching on its nearest target.
local function march(s, targets)
  return scoring.march(s.taker_list, targets, REACH, MARCH)
end

-- 14.1: the German combat units standing in the VP hexes the Soviet has yet to take.
local function garrisons(s, held)
  local worth = 0
  for _, h in ipairs(VP_HEXES) do
    if s.defence[h] and not held[h] then worth = worth + GARRISON * victory.vp_value(h) end
  end
  return worth
end

-- 14.1: the German stacks within reach of Soviet attacks, by the odds they would be attacked at.
local function threats(s)
  local worth = 0
  local front = map.adjacent { from = s.attackers }   -- (only the stacks next to one are asked)
  for _, h in ipairs(s.stacks) do
    if front[h] then
      local a = 0
      for _, n in ipairs(map.neighbours(h)) do a = a + (s.attack[n] or 0) end
      worth = worth + THREAT * math.min(a / math.max(s.defence[h], 1), MAX_ODDS)
    end
  end
  return worth
end

-- 14.3.2, 19.1.3: the withdrawing German units still on the map.
local function withdrawals(s)
  local worth = 0
  for _, h in ipairs(s.withdrawing) do
    worth = worth + 10 * WITHDRAW_VP + WITHDRAW_HEX * map.distance(h, ALTDAMM)
  end
  return worth + WITHDRAW_COMMAND * s.out_of_command
end

-- The progress terms of the score, for the Soviet, by name (the header says what each counts):
-- `approach`, `march`, `garrison` (counted against him), `threat`, `withdrawal`, `command`,
-- `stettin`.
function M.terms(s)
  if not s then s = select(2, survey()) end
  local held = map.marked("soviet_vp")
  local targets, worth, open = approach(s, held)
  return { approach = worth, march = march(s, targets), garrison = garrisons(s, held),
           threat = threats(s), withdrawal = withdrawals(s),
           command = COMMAND * (s.beyond[C.GERMAN] - s.beyond[C.SOVIET]), stettin = open }
end

-- Their sum, for the Soviet.
function M.progress(s)
  local t = M.terms(s)
  return t.approach + t.march - t.garrison + t.threat + t.withdrawal + t.command + t.stettin
end

function M.score(side)
  local vp = victory.tally()
  local f, s = survey()
  local sc = 10 * vp + (f.Soviet.steps - f.German.steps)                 -- 14.1
    + (f.German.trouble - f.Soviet.trouble)                               -- 11.0
    + M.progress(s)                                                       -- 14.1, 14.2.2, 14.3.2
  return scoring.for_side(sc, M.result(), WEIGHT, side, C.SOVIET)       -- 14.2, 14.3
end

return M
