-- Stargard Solstice: the charts and tables as data a designer edits.
-- The rulebook does not print the TEC, the CRT, the BRT, the turn track or most of the random
-- event table. Every value marked APPROX below is an approximation consistent with every number
-- the rulebook states; DATA.md lists them so that an owner of the game can correct them.
-- validate.lua checks every table when the rules load (`umpire check`, `new`, `reload`).
local T = {}

-- 1.2.4, 8.1, 1.1.3: CRT columns, 1:2 to 7-1+ (APPROX: column contents).
T.columns = { "1:2", "1:1", "2:1", "3:1", "4:1", "5:1", "6:1", "7-1+" }

-- Results (8.1): "-" no effect; D#/A# steps lost; r# hexes to retreat ("Dr" = 1 hex);
-- "A#/D#", "Ar/D1", "A1/Dr" affect both; "P" pinned (bombardment). APPROX: the table body.
T.crt = {
  --  1:2     1:1     2:1     3:1     4:1     5:1     6:1     7-1+
  { "A1",   "A1",   "Ar",   "-",    "Dr",   "Dr",   "D1",   "D1r2" }, -- 1
  { "A1",   "Ar",   "-",    "Dr",   "Dr",   "D1",   "D1r2", "D1r2" }, -- 2
  { "Ar",   "-",    "Dr",   "A1/Dr","D1",   "D1r2", "D1r2", "D2r2" }, -- 3
  { "-",    "Dr",   "Ar/D1","D1",   "D1r2", "D1r2", "D2r2", "D2r2" }, -- 4
  { "Dr",   "A1/Dr","D1",   "D1r2", "D1r2", "D2r2", "D2r2", "D2r3" }, -- 5
  { "A1/Dr","D1",   "D1r2", "D1r2", "D2r2", "D2r2", "D2r3", "D2r3" }, -- 6
}

-- 8.5: bombardment column of the CRT, by die (APPROX).
T.bombardment = { "-", "-", "P", "P", "D1", "D1/P" }
-- 1.2.5, 8.5.1: Bombardment Roll Table: number of bombardment attacks by die (APPROX).
T.brt = { 1, 1, 2, 2, 3, 3 }

-- 1.2.3, 5.2: Terrain Effects Chart, movement costs (APPROX, except where noted).
T.terrain_cost = {
  clear = 1, town = 1, city = 1, forest = 2, swamp = 3,
  lake = "no",          -- 5.2.6 water: prohibited
  restrictive = "no",   -- 5.2.5: only along a Roll-Bahn, road, trail or rail line
}
T.feature_cost = { village = 1 }
-- 5.2.1 roads: the road cost replaces the hex and hexside costs (APPROX: the costs).
T.path_cost = { rollbahn = 0.5, road = 0.5, trail = 1, railroad = 1 }
-- 5.4 strategic movement: reduced costs along roads only (APPROX: the costs).
T.strategic_cost = { rollbahn = 0.25, road = 1 / 3, trail = 0.5 }
-- 5.2.2 unbridged minor river +1; 5.2.3 the Oder (major) prohibited unbridged; 5.2.4 bridges
-- cancel both.
T.hexside_cost = { river = 1, major_river = "no", impassable = "no" }
T.cancels = { bridge = { "river", "major_river" } }
-- 4.1 EZOC: +2 to enter, +2 to leave (stated).
T.ezoc_enter, T.ezoc_leave = 2, 2
-- 6.0 stacking limit a hex: two combat units and one HQ (stated).
T.stacking = { combat = 2, hq = 1 }

-- Combat terrain (1.2.3 TEC, APPROX): column shifts for the defender's hex; 8.7 city and 9.5
-- village/city effects are rules, not table entries. Attacking across a river halves the
-- attacker (8.4.1 says river effects combine with supply effects; the factor is APPROX).
T.defence_shift = { forest = -1, swamp = -1, city = -1, town = 0, clear = 0 }
T.river_attack_factor = { river = 1 / 2, major_river = 1 / 2 }

-- 1.2.2 turn track: the chits each side may activate per turn, and 7.3 the Soviet replacement
-- points, are scenario data: side values `chits_per_turn` and `replacement_points` in
-- scenarios/stargard-solstice/campaign.toml.

-- 19 random event table: turn -> die -> primary event; `secondary` when the primary happened
-- last turn. Turn 1 and turn 2 (die 1-4) are stated; the rest is APPROX, built from 19.1.
T.events = {
  [1] = { "german_bombardment", "german_bombardment", "german_bombardment", "german_surprise", "german_surprise", "aborted_air" },
  [2] = { "gta_out_of_fuel", "soviet_bombardment", "german_bombardment", "german_bombardment", "volks_artillery", "aborted_air" },
  [3] = { "soviet_bombardment", "german_bombardment", "tettau", "soviet_aa", "mechanics", "wenck" },
  [4] = { "soviet_bombardment", "tettau", "defend_reich", "german_aa", "scraping", "volks_artillery" },
  [5] = { "soviet_bombardment", "tettau", "defend_reich", "improved_soviet_aa", "mechanics", "german_bombardment" },
  [6] = { "soviet_bombardment", "tettau", "defend_reich", "soviet_aa", "scraping", "aborted_air" },
  [7] = { "soviet_bombardment", "tettau", "defend_reich", "mechanics", "german_bombardment", "aborted_air" },
  [8] = { "soviet_bombardment", "soviet_bombardment", "defend_reich", "improved_soviet_aa", "scraping", "german_aa" },
  [9] = { "soviet_bombardment", "soviet_bombardment", "tettau", "mechanics", "german_bombardment", "aborted_air" },
  [10] = { "soviet_bombardment", "soviet_bombardment", "german_bombardment", "scraping", "aborted_air", "german_aa" },
}
-- APPROX: the secondary event used when the primary happened the turn before (19.0).
T.secondary = "aborted_air"
T.event_names = {
  german_bombardment = "German bombardment (19.1.1)", soviet_bombardment = "Soviet bombardment (19.1.1)",
  volks_artillery = "406th Volks Artillery Corps (19.1.2)", defend_reich = "Defend the Reich (19.1.3)",
  gta_out_of_fuel = "2nd Guards Tank Army out of fuel (19.1.4)", tettau = "Withdrawal of Corps Tettau (19.1.5)",
  soviet_aa = "Accurate Soviet AA fire (19.1.6)", german_aa = "Accurate German AA fire (19.1.7)",
  improved_soviet_aa = "Improved Soviet AA fire (19.1.8)", wenck = "General Wenck falls asleep (19.1.9)",
  aborted_air = "Aborted air operation (19.1.10)", scraping = "Scraping the barrel (19.1.11)",
  german_surprise = "German surprise (19.1.12)", mechanics = "The mechanics work wonders (19.1.13)",
}

-- 19.1.5 Corps Tettau arrival die: 1 lost, 2-4 reduced, 5-6 full (stated).
T.tettau_die = { "lost", "reduced", "reduced", "reduced", "full", "full" }

-- 14.3 victory levels (stated).
T.victory = {
  { 17, "Triumphant Soviet Victory" }, { 14, "Overwhelming Soviet Victory" }, { 7, "Major Soviet Victory" },
  { 5, "Minor Soviet Victory" }, { 2, "Draw" }, { -math.huge, "German Propaganda Victory" },
}

-- Every table above is checked when the rules load (validate.lua): a bad entry is reported at
-- its line here, and the game does not start with it.
require("validate")(T)

return T
