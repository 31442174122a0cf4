-- Red Storm over the Reich: the game's tables as data (a designer edits them here; validate.lua
-- checks every one of them once the rule files have loaded, see the end of this file). Values the
-- rulebook states are cited with their rule; APPROX marks what it does not give (the printed
-- charts are not in the rulebook; DATA.md lists every invented value and the points of the text
-- each table is built around).
local validate = require "validate"

local T = {}

-- 2.5, 3.5.B: the Turn Record Track. Turn 1 is Jan I, 2 Jan II, 3 Feb I (3.5.B's example); a turn
-- is half a month (2.5), so the later names follow.
T.turn_names = { "Jan I", "Jan II", "Feb I", "Feb II", "Mar I", "Mar II", "Apr I", "Apr II",
                 "May I", "May II", "Jun I", "Jun II" }

-- 9.1: the weather is fixed: Frost on turns 1-2, Mud on 3-4, Clear from 5 on.
T.weather = { "frost", "frost", "mud", "mud" }
T.weather_later = "clear"

-- 10.2.A, 9.1.C, 9.3: modifiers of the Soviet command die roll (cumulative).
T.command_mod = { frost = 1, mud = -1, clear = 0, sls = -1 }

-- 10.2.B: the Movement Point Track: the modified command roll gives the infantry (rifle) and the
-- mechanized allowance. Known points (Soviet): 2 → 4/8 (10.2.B), 6 → 6/12 (extended example),
-- a roll giving 4/10 (the bridgehead example's exploitation), one giving rifle 5 (10.6.C's
-- example). APPROX: every other cell, and the German row (the fuel example has a German
-- mechanized allowance of 6).
T.mp_track = {
  min = -1, max = 7,      -- modified rolls below/above read the end boxes
  Soviet = {
    [-1] = { inf = 2, mech = 4 }, [0] = { inf = 2, mech = 5 }, [1] = { inf = 3, mech = 6 },
    [2] = { inf = 4, mech = 8 },  [3] = { inf = 4, mech = 10 }, [4] = { inf = 5, mech = 10 },
    [5] = { inf = 5, mech = 11 }, [6] = { inf = 6, mech = 12 }, [7] = { inf = 6, mech = 13 },
  },
  German = {
    [-1] = { inf = 2, mech = 4 }, [0] = { inf = 2, mech = 4 }, [1] = { inf = 3, mech = 5 },
    [2] = { inf = 3, mech = 6 },  [3] = { inf = 4, mech = 6 },  [4] = { inf = 4, mech = 7 },
    [5] = { inf = 5, mech = 8 },  [6] = { inf = 5, mech = 9 },  [7] = { inf = 5, mech = 9 },
  },
}
-- 10.3.B.1: Guards rifle corps always have 6 MP; 10.2.C: on turn 1 every Soviet movement segment
-- adds 1 to the rifle and guards rifle markers and 2 to the mechanized marker (so guards 7).
T.guards_ma = 6
T.first_turn_bonus = { rifle = 1, guards = 1, mech = 2 }
-- 10.3.C: declaring more than this in the Soviet assault flips all Soviet artillery to Used.
T.artillery_declare_max = 3
-- 17.6: with Zossen Soviet-occupied, the German rolled MPs (not the roll) are 1 lower.
T.zossen_penalty = 1
T.zossen = "0429"

-- 10.5, 9.1.A, the Terrain Effects Chart: the cost to enter a hex by its terrain, by movement class
-- and weather. APPROX: the TEC is not in the rulebook; clear costs 1 (10.5.1, the bridgehead
-- example); swamps change with the weather (9.1.A); jaeger pay less in mountains (2.2.A).
T.move_cost = {
  inf = {
    frost = { clear = 1, forest = 2, broken = 2, swamp = 1, mountain = 3, urban = 1 },
    mud   = { clear = 1, forest = 2, broken = 2, swamp = 3, mountain = 3, urban = 1 },
    clear = { clear = 1, forest = 2, broken = 2, swamp = 2, mountain = 3, urban = 1 },
  },
  jaeger = {
    frost = { clear = 1, forest = 2, broken = 1, swamp = 1, mountain = 2, urban = 1 },
    mud   = { clear = 1, forest = 2, broken = 1, swamp = 3, mountain = 2, urban = 1 },
    clear = { clear = 1, forest = 2, broken = 1, swamp = 2, mountain = 2, urban = 1 },
  },
  mech = {
    frost = { clear = 1, forest = 3, broken = 2, swamp = 1, mountain = 4, urban = 1 },
    mud   = { clear = 1, forest = 3, broken = 3, swamp = "no", mountain = 5, urban = 1 },
    clear = { clear = 1, forest = 3, broken = 2, swamp = 3, mountain = 4, urban = 1 },
  },
}
-- Terrain no unit enters (7.1 "non-prohibited terrain", 10.4.B, 10.7.3).
T.prohibited_terrain = { sea = true, lake = true, prohibited = true }

-- 10.5.2, 9.1.A: hexside costs by weather (added to the hex entered). Lake and Haff hexsides cost
-- +1 in Frost and are closed otherwise (10.5.2's play note); Soviet major-river crossings in Mud
-- and Clear follow 10.7.1 (movement.lua), German ones cost this. A minor river costs +1 in Frost
-- like the lake and Haff hexsides 9.1.A treats as minor rivers then (DATA.md R39). APPROX: the
-- numbers.
T.hexside_cost = {
  frost = { minor_river = 1, major_river = 1, lake = 1, haff = 1, sea = "no" },
  mud   = { minor_river = 2, major_river = 2, lake = "no", haff = "no", sea = "no" },
  clear = { minor_river = 1, major_river = 2, lake = "no", haff = "no", sea = "no" },
}
-- 10.7.1.A.3, 10.7.1.B: a Soviet crossing of a major river in Mud or Clear costs the hex entered +1.
T.soviet_major_river = 1
-- 10.7.1.C: with no supplied German combat unit this close to the hex entered, the river counts as
-- a minor one.
T.behind_lines = 10

-- 5.2: stacking limits.
T.stack = { combat = 3, soviet_mech = 2, support_each = 1 }

-- 7.1: supply line lengths; 7.3: the north-edge hex that is no Soviet source, the rail hex the
-- Soviet may not use for rail supply.
T.supply = { line = 10, port_line = 5, not_soviet_source = "4601", not_soviet_rail = "5201" }

-- 10.8.2, 17.5: rail movement.
T.rail = { hexes = 25, entrained = 6, thunderclap_removed = 2 }
T.dresden = "0536"
T.thunderclap_turn = 4

-- 10.8.1.C: the Evacuation Table (die roll → result).
T.evacuation = { "success", "success", "success", "delayed", "delayed", "sunk" }

-- 9.2: fuel markers, from turn 2.
T.fuel = { from_turn = 2, supply = 2, shortage = 6 }

-- 9.3: the Soviet Logistical Strain lasts this many turns.
T.sls_turns = 3

-- 10.7.1.A: bridgehead markers.
T.bridgeheads = 7

-- 13.4, the Combat Results Table: a side's total strength gives its column; its modified die roll
-- the steps the other side loses ("-" none; "*": a German infantry division eliminated may leave
-- its Kampfgruppe, 16.1.A). APPROX: the table is not in the rulebook; it is built so that the 13.6
-- example holds (the Soviet stack fires a 4, the three panzer divisions a 1 on rolls "as good as
-- the Soviets can hope for") and the 1945 casualty rates are of the right size.
T.crt_columns = { { 1, 2 }, { 3, 4 }, { 5, 7 }, { 8, 11 }, { 12, 16 }, { 17, 23 }, { 24, 32 }, { 33 } }
T.crt_rolls = { min = 0, max = 7 }  -- modified rolls below/above read the end rows
T.crt = {
  -- net roll:  <=0    1     2     3     4     5     6     7+
  { "-",  "-",  "-",  "-",  "-",  "1",  "1",  "1"  },   -- 1-2
  { "-",  "-",  "-",  "-",  "1",  "1",  "1*", "2"  },   -- 3-4
  { "-",  "-",  "-",  "1",  "1",  "1*", "2",  "2"  },   -- 5-7
  { "-",  "-",  "1",  "1",  "1*", "2",  "2*", "3"  },   -- 8-11
  { "-",  "1",  "1",  "1*", "2",  "2*", "3",  "3"  },   -- 12-16
  { "1",  "1",  "1*", "2",  "2*", "3",  "3*", "4"  },   -- 17-23
  { "1",  "1*", "2",  "2*", "3",  "3*", "4",  "4*" },   -- 24-32
  { "1*", "2",  "2*", "3",  "3*", "4",  "4*", "5"  },   -- 33+
}

-- 13.7.A: die roll modifiers of combat. The attacker's by the defender's hex (terrain, features)
-- and by the hexsides crossed; they add up (a forest hex across a river: -2).
T.combat_drm = {
  hex = { broken = -1, forest = -1, swamp = -1, city = -1, dw = -1, mountain = -2, urban = -2, fortress = -2 },
  river = -1,            -- across a major or minor river (if any attacking stack is)
  lake_frost = -1,       -- across a lake or Haff hexside in Frost
  disrupted = -1,        -- the defender's, if any defending unit is disrupted
  immobile = -1,         -- a side with an Immobile unit in the combat
  tactical_air = 1,      -- one tactical air unit per side (13.7.C, 17.4.C)
  sls = -1,              -- every Soviet combat and overrun roll under the strain (9.3)
}
-- 13.7.B: Panzerfausts: a Soviet modified roll of this, against these hexes, costs the Soviet a step.
T.panzerfaust = { roll = 1, hexes = { town = true, city = true, urban = true, fortress = true } }

-- 11.1, the Barrage Table: barrage class by net die roll. "D": the target hex's units are
-- disrupted; a number: that many steps lost (the owner's choice) and the survivors disrupted
-- ("*" as on the CRT). Known points (class A): a net 4 gives 1*, a 2 and a 1 give D (extended
-- example, items 10-12); a "-" exists (10.8.2). APPROX: every other cell.
T.barrage_rolls = { min = 0, max = 7 }
T.barrage = {
  --  <=0   1    2    3    4     5     6    7+
  A = { "-", "D", "D", "D", "1*", "1*", "2", "2*" },
  B = { "-", "-", "D", "D", "D",  "1",  "1*", "2" },
  C = { "-", "-", "-", "D", "D",  "D",  "1", "1*" },
}
-- 11.1: modifiers: -1 with no friendly combat unit next to the target; -1 or -2 for the target
-- hex's terrain (the forest and the defensive works of items 10 and 11 are -1 each). APPROX: the
-- terrain list follows the combat modifiers (13.7.A); the terrain part is at most -2.
T.barrage_drm = { alone = -1, terrain_max = -2 }

-- 3.2.C.1: Soviet-controlled VP hexes for an automatic victory at the end of turns 1-4.
T.automatic_victory = { 2, 4, 5, 6 }
-- 3.3.C: Operation Sleigh Ride: the Soviet counts one VP hex more (for automatic victory only).
T.sleigh_ride_bonus = 1
-- 3.2.C.2: the German needs this many VP when The Bunker is gone; 3.4.C: Guderian's VP hexes.
T.german_vp_needed = 5
T.guderian_vp_hexes = 2
T.bunker_hex = "0425"
T.usir_hex = "3743"

-- 17.7: Hitler Mandated Attacks from turn 2 (a die halved, rounded up).
T.hma_from_turn = 2

-- 17.1.C: the USIR is to be evacuated when the Soviet holds Oppeln or is across the Oder here.
T.oppeln = "3140"
T.usir_oder = { "2637", "2638", "2738", "2839", "2939", "3040" }

-- 8.1.3: flak units are placed in or west of this column; 3.3.A: Sleigh Ride applies on or south of
-- this row.
T.flak_column = 20
T.sleigh_row = 14
T.sleigh_hexes = 6
T.sleigh_kgs = 3

-- 11.5, 17.3.B: Rudel on turn 3 only; Heinrici from turn 6, cancelling one or two barrages within
-- this many hexes of each other.
T.rudel_turn = 3
T.heinrici_from = 6
T.heinrici_spread = 3
-- 8.1.1.A: the Soviet reinforcement on turn 6.
T.soviet_reinforcement_turn = 6

-- 2.1.D, 6.8, 3.3.A, 13.5: the Retreat Compasses (APPROX: the printed compasses are not in the
-- rulebook; the 13.6 example's retreat 4640-4540-4441-4340 goes SW, SW, NW).
T.compass = { German = { "NW", "SW" }, Soviet = { "NE", "SE" } }

-- ---- reinforce.lua / special.lua (8, 16.2, 17) ----------------------------------------------
-- 8.1.1.B: the M code's hex (Memel's road); 8.2.1.B: four infantry KGs drawn a turn, two
-- mechanized steps, two more with the USIR linked to Berlin (17.1.B).
T.reinforce = { memel = "4601", kg_draws = 4, mech_steps = 2, usir_steps = 2 }

-- validate.lua checks every table above (umpire.validate) once the rule files have loaded, at
-- `umpire check`, `new`, `reload` and `load`: a bad entry is reported at its line here (a map
-- terrain neither priced nor prohibited, at move_cost), and the game does not start with it (a
-- `reload` keeps the rules it had).
validate.register(T)

return T
