-- Red Storm over the Reich: the checks of tables.lua, run when the rules load (umpire.validate), so
-- that a bad edit of a table is reported at its line by `umpire check`, `new` and `reload` instead
-- of failing later in the rule that reads it. tables.lua registers them with its table
-- (M.register); M.problems lists what is wrong with a table like it (a script may try a broken
-- copy: views.ump).
local S = require "schema"   -- rulesets/lib

local M = {}

local count = S.number { min = 0, integer = true }
local positive = S.number { min = 1, integer = true }
local int = S.number { integer = true }
local drm = S.number { min = -3, max = 3, integer = true }
-- 10.5: a movement cost is a number of MP (a multiple of 1/60, as the host counts them), or "no"
local mp = S.number { min = 0, step = 1 / 60, step_text = "1/60" }
local cost = S.either(mp, S.one_of({ "no" }, '"no" (closed, 10.5.2, 9.1.A)'))
local hex = S.test("a hex of the map", function(v) return type(v) == "string" and map.hex(v) ~= nil end)
local turn = S.number { min = 1, max = 12, integer = true }
local WEATHERS = { "frost", "mud", "clear" }
local weather = S.one_of(WEATHERS)
-- 10.5: the terrains a unit may enter, priced on the Terrain Effects Chart
local TERRAINS = { "clear", "forest", "broken", "swamp", "mountain", "urban" }
-- 13.4.B, 11.1: a CRT cell is "-" or a number of steps with or without "*" (16.1.A); a Barrage Table
-- cell may also be "D" (12.1)
local crt_result = S.test('a combat result ("-", or steps such as "2" or "1*"; 13.4.B)', function(v)
  return type(v) == "string" and (v == "-" or v:match("^%d+%*?$") ~= nil)
end)
local barrage_result = S.test('a barrage result ("-", "D", or steps such as "1" or "1*"; 11.1)', function(v)
  return type(v) == "string" and (v == "-" or v == "D" or v:match("^%d+%*?$") ~= nil)
end)
local direction = S.one_of { "N", "NE", "SE", "S", "SW", "NW" }

-- A row for every weather of a record for every terrain (or hexside) named.
local function by_weather(keys, value)
  local row = {}
  for _, k in ipairs(keys) do row[k] = value end
  return S.record { frost = S.record(row), mud = S.record(row), clear = S.record(row) }
end

-- The rows a die table needs: one for each modified roll from min to max.
local function rows_of(r)
  if type(r) ~= "table" or math.type(r.min) ~= "integer" or math.type(r.max) ~= "integer" or r.max < r.min then return nil end
  return r.max - r.min + 1
end

-- 10.2.B: the Movement Point Track has a box for every modified roll from min to max, on each row.
local function check_mp_track(c, t)
  local allowance = S.record { inf = positive, mech = positive }
  c:check("mp_track", t, S.record { min = int, max = int, Soviet = S.map(int, allowance), German = S.map(int, allowance) })
  if type(t) ~= "table" or math.type(t.min) ~= "integer" or math.type(t.max) ~= "integer" then return end
  for _, side in ipairs { "Soviet", "German" } do
    for n = t.min, t.max do
      if type(t[side]) == "table" and t[side][n] == nil then
        c:report({ "mp_track", side }, ("no box for the modified roll %d (every roll from %d to %d reads a box, 10.2.B)"):format(n, t.min, t.max))
      end
    end
  end
end

-- 13.4.A: the strength columns run from 1 up without gaps, the last one open.
local function check_columns(c, cols)
  c:check("crt_columns", cols, S.list(S.either(S.tuple { positive, positive }, S.tuple { positive }), { min = 1 }))
  if type(cols) ~= "table" then return end
  local next_low = 1
  for i, col in ipairs(cols) do
    if type(col) == "table" and math.type(col[1]) == "integer" then
      if col[1] ~= next_low then
        c:report({ "crt_columns", i }, ("the column starts at %d: the one before ends at %d (no gap, no overlap, 13.4.A)"):format(col[1], next_low - 1))
      end
      if col[2] == nil and i < #cols then c:report({ "crt_columns", i }, "only the last column is open-ended (13.4.A)") end
      if col[2] ~= nil and i == #cols then c:report({ "crt_columns", i }, "the last column is open-ended (33+, 13.4.A)") end
      next_low = (col[2] or col[1]) + 1
    end
  end
end

-- 10.5: every terrain on the map is priced on the TEC or closed to every unit.
local function check_map_terrains(c, T)
  local seen = {}
  for _, h in ipairs(map.hexes()) do seen[map.terrain(h)] = true end
  for t in pairs(seen) do
    local priced = type(T.move_cost) == "table" and type(T.move_cost.inf) == "table" and type(T.move_cost.inf.frost) == "table"
      and T.move_cost.inf.frost[t] ~= nil
    if not priced and not (type(T.prohibited_terrain) == "table" and T.prohibited_terrain[t]) then
      c:report({ "move_cost" }, ("the map's terrain %q is neither priced nor prohibited (10.5)"):format(t))
    end
  end
end

-- Every problem of the tables `T` (as tables.lua writes them): { file, path, msg } each.
function M.problems(T)
  local c = S.checker("tables")
  -- 2.5, 9.1: the turns and their weather
  c:check("turn_names", T.turn_names, S.list(S.string(), { min = 8 }))
  c:check("weather", T.weather, S.list(weather, { min = 1 }))
  c:check("weather_later", T.weather_later, weather)
  c:check("command_mod", T.command_mod, S.record { frost = drm, mud = drm, clear = drm, sls = drm })
  -- 10.2, 10.3, 10.6, 17.6: the allowances
  check_mp_track(c, T.mp_track)
  c:check("guards_ma", T.guards_ma, positive)
  c:check("first_turn_bonus", T.first_turn_bonus, S.record { rifle = count, guards = count, mech = count })
  c:check("artillery_declare_max", T.artillery_declare_max, count)
  c:check("zossen_penalty", T.zossen_penalty, count)
  c:check("zossen", T.zossen, hex)
  -- 10.5, 9.1.A, 10.7.1: the Terrain Effects Chart
  c:check("move_cost", T.move_cost, S.record { inf = by_weather(TERRAINS, cost), jaeger = by_weather(TERRAINS, cost), mech = by_weather(TERRAINS, cost) })
  c:check("prohibited_terrain", T.prohibited_terrain, S.map(S.string(), S.one_of { true }))
  check_map_terrains(c, T)
  c:check("hexside_cost", T.hexside_cost, by_weather({ "minor_river", "major_river", "lake", "haff", "sea" }, cost))
  c:check("soviet_major_river", T.soviet_major_river, mp)
  c:check("behind_lines", T.behind_lines, positive)
  -- 5.2, 7.1, 7.3, 10.8, 17.5, 9.2, 9.3, 10.7.1.A
  c:check("stack", T.stack, S.record { combat = positive, soviet_mech = positive, support_each = positive })
  c:check("supply", T.supply, S.record { line = positive, port_line = positive, not_soviet_source = hex, not_soviet_rail = hex })
  c:check("rail", T.rail, S.record { hexes = positive, entrained = positive, thunderclap_removed = count })
  c:check("dresden", T.dresden, hex)
  c:check("thunderclap_turn", T.thunderclap_turn, turn)
  c:check("evacuation", T.evacuation, S.list(S.one_of { "success", "delayed", "sunk" }, { len = 6 }))
  c:check("fuel", T.fuel, S.record { from_turn = turn, supply = count, shortage = count })
  c:check("sls_turns", T.sls_turns, positive)
  c:check("bridgeheads", T.bridgeheads, positive)
  -- 13.4, 13.7: the Combat Results Table and its modifiers
  check_columns(c, T.crt_columns)
  c:check("crt_rolls", T.crt_rolls, S.record { min = int, max = int })
  local cols = type(T.crt_columns) == "table" and #T.crt_columns or nil
  c:check("crt", T.crt, S.list(S.list(crt_result, { len = rows_of(T.crt_rolls) }), { len = cols }))
  local features = { broken = true, forest = true, swamp = true, town = true, city = true, dw = true, mountain = true, urban = true, fortress = true }
  c:check("combat_drm", T.combat_drm, S.record { hex = S.map(S.one_of(features, "a terrain or feature of the map (13.7.A)"), drm),
    river = drm, lake_frost = drm, disrupted = drm, immobile = drm, tactical_air = drm, sls = drm })
  c:check("panzerfaust", T.panzerfaust, S.record { roll = int, hexes = S.map(S.one_of(features, "a terrain or feature of the map"), S.one_of { true }) })
  -- 11.1: the Barrage Table and its modifiers
  c:check("barrage_rolls", T.barrage_rolls, S.record { min = int, max = int })
  local barrage_row = S.list(barrage_result, { len = rows_of(T.barrage_rolls) })
  c:check("barrage", T.barrage, S.record { A = barrage_row, B = barrage_row, C = barrage_row })
  c:check("barrage_drm", T.barrage_drm, S.record { alone = drm, terrain_max = drm })
  -- 3.2-3.5: victory
  c:check("automatic_victory", T.automatic_victory, S.list(positive, { min = 1 }))
  c:check("sleigh_ride_bonus", T.sleigh_ride_bonus, count)
  c:check("german_vp_needed", T.german_vp_needed, positive)
  c:check("guderian_vp_hexes", T.guderian_vp_hexes, positive)
  c:check("bunker_hex", T.bunker_hex, hex)
  c:check("usir_hex", T.usir_hex, hex)
  -- 17: special rules
  c:check("hma_from_turn", T.hma_from_turn, turn)
  c:check("oppeln", T.oppeln, hex)
  c:check("usir_oder", T.usir_oder, S.list(hex, { min = 1 }))
  c:check("flak_column", T.flak_column, positive)
  c:check("sleigh_row", T.sleigh_row, positive)
  c:check("sleigh_hexes", T.sleigh_hexes, count)
  c:check("sleigh_kgs", T.sleigh_kgs, count)
  c:check("rudel_turn", T.rudel_turn, turn)
  c:check("heinrici_from", T.heinrici_from, turn)
  c:check("heinrici_spread", T.heinrici_spread, positive)
  c:check("soviet_reinforcement_turn", T.soviet_reinforcement_turn, turn)
  -- 2.1.D: the Retreat Compasses
  c:check("compass", T.compass, S.record { German = S.list(direction, { min = 1 }), Soviet = S.list(direction, { min = 1 }) })
  -- 8.1.1.B, 8.2.1.B, 17.1.B
  c:check("reinforce", T.reinforce, S.record { memel = hex, kg_draws = count, mech_steps = count, usir_steps = count })
  return c:problems()
end

-- Checks `T` when the rules load (umpire.validate: `umpire check`, `new`, `reload`).
function M.register(T)
  umpire.validate(function() return M.problems(T) end)
end

return M
