-- Fortress Stalingrad: the game's tables as data (a designer edits them here; validate.lua checks
-- them when the rules load). Values the rulebook states are cited; APPROX marks what it does not
-- give (see DATA.md).
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
T.trans_don_not = { "4612", "4712", "4812", "4813" }   -- 9.25 (also kept out of the area trans_don)

-- 11.24 note: the 503rd/65th enters on a die roll of at most this on the turn.
T.tiger_roll = { [3] = 1, [4] = 2, [5] = 3, [6] = 6 }

-- 15.4: victory points.
T.vp_kills = { satellite_unit = 1, german_leg_step = 2, german_mech_step = 3, german_leg_corps = 1, german_mech_corps = 2 }
T.vp_crimea = 20                 -- 15.3
T.vp_levels = { soviet_win = 111, draw = 100 }   -- 15.9: 111+ Soviet, 100-110 draw, below 100 German
T.stalingrad = { "3427", "3527" } -- 10.24: the Soviet needs both hexes for the city's points

-- 12: FMCO.
T.fmco = { turns = { 10, 11, 12 }, shift = 1, attacks = 4 }   -- 14.1, 14.2, 14.5

return T
