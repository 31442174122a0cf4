-- Fortress Stalingrad: the game's tables as data (a designer edits them here; validate.lua checks
-- them when the rules load). Values the rulebook states are cited; APPROX marks what it does not
-- give (see DATA.md).
local validate = require "validate"

local T = {}

-- Turn record (1.0, 7.36, 9.4): 12 turns of a third of a month, NOV III to MAR II (the turn names
-- follow from turn 8 = FEB I and turn 11 = MAR I).
T.turns = 12
T.turn_names = { "NOV III", "DEC I", "DEC II", "DEC III", "JAN I", "JAN II", "JAN III", "FEB I", "FEB II", "FEB III", "MAR I", "MAR II" }

-- Units the rules name (scenario ids).
T.units = {
  army62 = "62A",        -- 12.3, 10.19
  army28 = "28A",        -- 12.1
  tigers = "503",        -- 11.21 and the note after 11.24
  flak = "9Flak",        -- 11.22
  manstein = "Manstein", -- 11.16
}

-- 10.11-10.16: the cost to enter a hex by its natural terrain, by unit class. 10.8: no ground
-- action in all-sea hexes.
T.move_cost = {
  leg      = { clear = 1, broken = 1, woods = 1, marsh = 1, steppe = 1, mountain = 3, sea = "no" },
  mountain = { clear = 1, broken = 1, woods = 1, marsh = 1, steppe = 1, mountain = 2, sea = "no" },
  mech     = { clear = 1, broken = 2, woods = 2, marsh = 2, steppe = 1, mountain = 4, sea = "no" },
}
-- 10.17: crossing a major river costs 1 more; a minor river nothing. 10.9: all-sea hexsides
-- only at the Kerch Straits, for half the printed movement factor (supply.lua and movement.lua
-- price `kerch`).
T.river_cost = { major_river = 1, minor_river = 0 }
T.kerch_fraction = { 1, 2 }       -- 10.9: half the printed movement factor
T.volga_closed_through = 2        -- 10.19: no move or attack across the Volga on turns 1 and 2

-- 13.4: German/Axis movement factors halved on turn 1, rounded up.
T.first_turn_axis_halved = true

-- 7.3, 7.10, 7.12, 7.30, 7.31: supply. A Soviet supply length is 3 hexes; AS levels by line
-- length; each AS or OOS level costs 1 MF and 10% of the combat factors.
T.supply_length = 3
T.as_max = 3                      -- >3: over three lengths or no line
T.german_line_max = 12            -- 7.26
T.german_extra_sources = { ["1501"] = 1, ["4401"] = 7 }   -- 7.27: hex = the count its hex takes
T.supply_penalty = { move = 1, percent = 10 }            -- per level (7.12, 7.30, 7.31)
T.oos_max_countryside = 3         -- 7.33, 4.2.V.C: Axis units away from a city go at OOS-3
T.oos_max_city = 6                -- 7.31, 4.2.V.D
T.oos_no_zoc = 4                  -- 5.12, 7.32: OOS 4-6 project no ZOC, no MA, no 503rd/FLAK bonus
T.air_supply = { from_turn = 8, steps = 8, mech_step = 2 }   -- 7.36
T.sea_supply_per_turn = 1         -- 7.22
T.supply_move = { one = 1, two = 2 }   -- 7.20, 10.7: one land hex; one 0-0-1 a turn two

-- 8.3, 8.9, 8.11: air power.
T.air = { max_per_hex = { German = 4, Soviet = 2 }, cap = 2, range = 10 }

-- 6.2: stacking.
T.stack_limit = 2

-- 9.17, 9.21, 9.22, 9.25: replacement steps per turn (from turn 2; 9.16).
T.replacements = {
  Soviet = { { from = 2, to = 5, mech = 1, leg = 2 }, { from = 6, to = 12, mech = 1, leg = 1 } },
  German = { { from = 2, to = 12, mech = 1, leg = 1 } },
}
T.replacement_multiplier_trans_don = 2   -- 9.25
T.millerovo = "3316"                     -- 9.22
T.millerovo_phases = 2                   -- 9.22: no mechanized step for two German phases

-- 11.24 note: the 503rd/65th enters on a die roll of at most this on the turn.
T.tiger_roll = { [3] = 1, [4] = 2, [5] = 3, [6] = 6 }

-- 11.3, 11.10: the odds columns of the Combat Results Table (lowest first), and the table itself by
-- die roll: "attacker/defender" result numbers, or "Dx" (11.12: the defenders destroyed).
-- APPROX: the rulebook states two cells, 3-1 with a 3 → 1/2 and 3-1 with a 1 → 0/3 (11.4,
-- 11.12); the rest is built around them (the attacker's number rises and the defender's falls
-- with the die and with lower odds; 8-1 is all Dx, so Manstein's shift from it matters, 11.16).
T.crt_columns = { "1-3", "1-2", "1-1", "2-1", "3-1", "4-1", "5-1", "6-1", "7-1", "8-1" }
T.crt = {
  --  1-3    1-2    1-1    2-1    3-1    4-1    5-1    6-1    7-1    8-1
  { "2/1", "1/1", "1/2", "0/2", "0/3", "0/3", "0/4", "0/4", "0/5", "Dx" },   -- die 1
  { "2/0", "2/1", "1/1", "1/2", "0/2", "0/3", "0/3", "0/4", "0/4", "Dx" },   -- die 2
  { "3/0", "2/0", "2/1", "1/1", "1/2", "1/2", "0/3", "0/3", "0/4", "Dx" },   -- die 3
  { "3/0", "3/0", "2/0", "2/1", "1/1", "1/2", "1/2", "0/3", "0/3", "Dx" },   -- die 4
  { "4/0", "3/0", "3/0", "2/1", "2/1", "1/1", "1/2", "1/2", "0/3", "Dx" },   -- die 5
  { "4/0", "4/0", "3/0", "3/0", "2/1", "2/1", "1/1", "1/2", "1/2", "Dx" },   -- die 6
}

-- 10.12-10.32: what the terrain of the defender's hex does to the defender's result number.
T.result_terrain = { broken = -1, woods = -1 }          -- 10.12, 10.13 (natural terrain)
T.result_features = { town = -1 }                       -- 10.22 (a city's effects are on factors, 10.23)
T.result_entrenchment = -1                              -- 10.28: intact friendly entrenchment
T.result_weather = -1                                   -- 10.32: south of the Weather Line
T.result_concentric = 1                                 -- 11.17
T.result_tigers = 1                                     -- 11.21
T.result_flak_attacker = 1                              -- 11.22: the Soviet attacker's result
T.result_city_attacker = 1                              -- 10.23: the attacker's result
T.result_satellites_attacker = -1                       -- 11.15: the Soviet attacker's result
T.result_amphibious = { 0, 1 }                          -- 11.18: the first cancels the weather; the second "+2" (DATA.md)

-- 10.13-10.18, 10.23, 10.9: percentages off the attack factor, added up and taken once (10.33).
T.attack_terrain = {
  woods = { mech = 10 }, marsh = { mech = 10 },        -- 10.13, 10.14
  steppe = { mech = 50, leg = 50, mountain = 50 },     -- 10.15: into or out of
  mountain = { mech = 50, leg = 25, mountain = 0 },    -- 10.16
}
T.attack_city = { mech = 25 }                           -- 10.23
T.attack_hexside = { minor_river = 10, major_river = 20, kerch = 50 }   -- 10.18, 10.9
T.katyusha_factor = 2                                   -- 11.20

-- 11.29-11.32: retreats and advances.
T.retreat_max = { defender = 4, attacker = 1 }
T.advance_max = { mech = 4, leg = 2, mountain = 2, satellite = 1 }

-- 15.4: victory points.
T.vp_kills = { satellite_unit = 1, german_leg_step = 2, german_mech_step = 3, german_leg_corps = 1, german_mech_corps = 2 }
T.vp_crimea = 20                 -- 15.3
T.vp_levels = { soviet_win = 111, draw = 100 }   -- 15.9: 111+ Soviet, 100-110 draw, below 100 German
T.stalingrad = { "3427", "3527" } -- 10.24: the Soviet needs both hexes for the city's points

-- 12: FMCO.
T.fmco = { turns = { 10, 11, 12 }, shift = 1, attacks = 4 }   -- 14.1, 14.2, 14.5

-- Every table above is checked when the rules load (validate.lua): a bad entry is reported at
-- its line here, and the game does not start with it.
validate.register(T)

return T
