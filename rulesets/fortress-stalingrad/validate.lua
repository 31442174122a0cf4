-- Fortress Stalingrad: the checks of tables.lua, run when the rules load (umpire.validate), so that
-- a bad edit of a table is reported at its line by `umpire check`, `new` and `reload` instead of
-- failing later in the rule that reads it. tables.lua calls M.register with its table.
local S = require "schema"

-- 11.4, 11.12: a CRT cell is "attacker/defender" numbers or "Dx".
local result = S.test('a combat result ("a/d" with whole numbers, or "Dx"; 11.12)', function(v)
  return type(v) == "string" and (v == "Dx" or v:match("^%d+/%d+$") ~= nil)
end)
-- 11.3, 11.10: an odds column "a-d" (rounded for the defender)
local column = S.test('an odds column such as "3-1" or "1-3"', function(v)
  return type(v) == "string" and v:match("^%d+%-%d+$") ~= nil
end)
-- 10.11-10.16: a movement cost is a whole number of MP, or "no"
local mp = S.number { min = 0, integer = true }
local cost = S.either(mp, S.one_of({ "no" }, '"no" (no ground action, 10.8)'))
local pct = S.number { min = 0, max = 100, integer = true }
local mod = S.number { min = -3, max = 3, integer = true }
local count = S.number { min = 0, integer = true }
local TERRAINS = { "clear", "broken", "woods", "marsh", "steppe", "mountain", "sea" }

local M = {}

-- Registers the checks of the tables T (umpire.validate).
function M.register(T)
  umpire.validate(function()
    local c = S.checker("tables")
    c:check("turns", T.turns, S.number { min = 1, integer = true })
    c:check("units", T.units, S.map(S.string(), S.string()))
    c:check("first_turn_axis_halved", T.first_turn_axis_halved, S.either(S.one_of { true, false }))
    c:check("millerovo", T.millerovo, S.string { pattern = "^%d%d%d%d$", what = "a hex id" })
    c:check("millerovo_phases", T.millerovo_phases, count)
    c:check("stalingrad", T.stalingrad, S.list(S.string { pattern = "^%d%d%d%d$", what = "a hex id" }, { min = 1 }))
    c:check("turn_names", T.turn_names, S.list(S.string(), { len = type(T.turns) == "number" and T.turns or nil }))
    -- 10.11-10.16: every terrain of the map priced for every class
    local row = {}
    for _, t in ipairs(TERRAINS) do row[t] = cost end
    c:check("move_cost", T.move_cost, S.record { leg = S.record(row), mountain = S.record(row), mech = S.record(row) })
    c:check("river_cost", T.river_cost, S.record { major_river = mp, minor_river = mp })
    c:check("kerch_fraction", T.kerch_fraction, S.tuple { S.number { min = 1, integer = true }, S.number { min = 1, integer = true } })
    c:check("volga_closed_through", T.volga_closed_through, count)
    -- 7.3-7.36: supply
    c:check("supply_length", T.supply_length, S.number { min = 1, integer = true })
    c:check("as_max", T.as_max, S.number { min = 1, integer = true })
    c:check("german_line_max", T.german_line_max, S.number { min = 1, integer = true })
    c:check("german_extra_sources", T.german_extra_sources, S.map(S.string { pattern = "^%d%d%d%d$", what = "a hex id" }, count))
    c:check("supply_penalty", T.supply_penalty, S.record { move = count, percent = pct })
    c:check("oos_max_countryside", T.oos_max_countryside, count)
    c:check("oos_max_city", T.oos_max_city, count)
    c:check("oos_no_zoc", T.oos_no_zoc, count)
    c:check("air_supply", T.air_supply, S.record { from_turn = count, steps = count, mech_step = count })
    c:check("supply_move", T.supply_move, S.record { one = count, two = count })
    c:check("air", T.air, S.record { max_per_hex = S.record { German = count, Soviet = count }, cap = count, range = count })
    c:check("stack_limit", T.stack_limit, S.number { min = 1, integer = true })
    -- 9.17-9.25: replacement rates by turn
    local rate = S.record { from = count, to = count, mech = count, leg = count }
    c:check("replacements", T.replacements, S.record { Soviet = S.list(rate, { min = 1 }), German = S.list(rate, { min = 1 }) })
    c:check("tiger_roll", T.tiger_roll, S.map(S.number { min = 1, integer = true }, S.number { min = 0, max = 6, integer = true }))
    -- 11.4, 11.10: the odds columns, lowest first, and a CRT row of as many cells for each die face
    c:check("crt_columns", T.crt_columns, S.list(column, { min = 1 }))
    local cols = type(T.crt_columns) == "table" and #T.crt_columns or nil
    c:check("crt", T.crt, S.list(S.list(result, { len = cols }), { len = 6 }))
    -- 10.12-10.32, 11.14-11.22: result modifiers and attack percentages
    c:check("result_terrain", T.result_terrain, S.map(S.one_of(TERRAINS), mod))
    c:check("result_features", T.result_features, S.map(S.string(), mod))
    for _, k in ipairs { "result_entrenchment", "result_weather", "result_concentric", "result_tigers", "result_flak_attacker", "result_city_attacker", "result_satellites_attacker" } do
      c:check(k, T[k], mod)
    end
    c:check("result_amphibious", T.result_amphibious, S.list(mod, { len = 2 }))
    local by_class = S.map(S.one_of { "leg", "mountain", "mech" }, pct)
    c:check("attack_terrain", T.attack_terrain, S.map(S.one_of(TERRAINS), by_class))
    c:check("attack_city", T.attack_city, by_class)
    c:check("attack_hexside", T.attack_hexside, S.map(S.one_of { "minor_river", "major_river", "kerch" }, pct))
    c:check("katyusha_factor", T.katyusha_factor, S.number { min = 1, integer = true })
    c:check("retreat_max", T.retreat_max, S.record { defender = count, attacker = count })
    c:check("advance_max", T.advance_max, S.record { mech = count, leg = count, mountain = count, satellite = count })
    -- 15.3-15.9
    c:check("vp_kills", T.vp_kills, S.record { satellite_unit = count, german_leg_step = count, german_mech_step = count, german_leg_corps = count, german_mech_corps = count })
    c:check("vp_crimea", T.vp_crimea, count)
    c:check("vp_levels", T.vp_levels, S.record { soviet_win = count, draw = count })
    if type(T.vp_levels) == "table" and type(T.vp_levels.soviet_win) == "number" and type(T.vp_levels.draw) == "number"
      and T.vp_levels.draw >= T.vp_levels.soviet_win then
      c:report({ "vp_levels", "draw" }, "a draw needs fewer points than a Soviet victory (15.9)")
    end
    c:check("fmco", T.fmco, S.record { turns = S.list(count, { min = 1 }), shift = count, attacks = count })
    return c:problems()
  end)
end

return M
