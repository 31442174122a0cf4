-- Stargard Solstice: the checks of tables.lua, run when the rules load (umpire.validate), so that
-- a bad edit of a table is reported at its line by `umpire check`, `new` and `reload` instead of
-- failing later in the rule that reads it. tables.lua calls this with its table.
local S = require "schema"

-- A CRT or bombardment result is valid when combat.lua reads it back exactly: M.parse and the
-- result written again from what it read give the same text ("D2x3" reads as D2: refused).
local function canonical(eff)
  local parts = {}
  for _, who in ipairs { "A", "D" } do
    local e = eff[who]
    if e.loss > 0 or e.retreat > 0 then
      local r = e.retreat == 0 and "" or e.retreat == 1 and "r" or ("r" .. e.retreat)
      parts[#parts + 1] = who .. (e.loss > 0 and tostring(e.loss) or "") .. r
    end
  end
  if eff.pinned then parts[#parts + 1] = "P" end
  return #parts == 0 and "-" or table.concat(parts, "/")
end

local result = S.test('a combat result (8.1: "-", A#, D#, r# retreats, "Dr", "A1/Dr", "P" pinned)', function(v)
  if type(v) ~= "string" then return false end
  -- (required here: tables requires validate as it loads, and combat requires tables)
  local ok, eff = pcall(require("combat").parse, v)
  return ok and canonical(eff) == v
end)

-- 5.2: a movement cost is a number of MP (a multiple of 1/60, as the host counts them)
local mp = S.number { min = 0, step = 1 / 60, step_text = "1/60" }
local prohibited = S.one_of({ "no" }, '"no" (prohibited, 5.2.5, 5.2.6)')
local word = S.string { pattern = "^[%w_]+$", what = "a name" }

return function(T)
  umpire.validate(function()
    local c = S.checker("tables")
    -- (required here: tables requires validate as it loads, and events requires tables)
    local events = require "events"
    c:check("columns", T.columns, S.list(S.string(), { min = 1 }))
    local cols = type(T.columns) == "table" and #T.columns or nil
    c:check("crt", T.crt, S.list(S.list(result, { len = cols }), { len = 6 }))                     -- 8.1
    c:check("bombardment", T.bombardment, S.list(result, { len = 6 }))                              -- 8.5
    c:check("brt", T.brt, S.list(S.number { min = 0, integer = true }, { len = 6 }))                -- 8.5.1
    c:check("terrain_cost", T.terrain_cost, S.map(word, S.either(mp, prohibited)))                  -- 5.2
    c:check("feature_cost", T.feature_cost, S.map(word, mp))
    c:check("path_cost", T.path_cost, S.map(word, mp))                                              -- 5.2.1
    c:check("strategic_cost", T.strategic_cost, S.map(word, mp))                                    -- 5.4
    c:check("hexside_cost", T.hexside_cost, S.map(word, S.either(mp, prohibited)))                  -- 5.2.2-5.2.4
    c:check("cancels", T.cancels, S.map(word, S.list(word)))
    c:check("ezoc_enter", T.ezoc_enter, mp)                                                          -- 4.1
    c:check("ezoc_leave", T.ezoc_leave, mp)
    c:check("stacking", T.stacking, S.record { combat = S.number { min = 1, integer = true }, hq = S.number { min = 1, integer = true } }) -- 6.0
    c:check("defence_shift", T.defence_shift, S.map(word, S.number { integer = true }))             -- 1.2.3
    c:check("river_attack_factor", T.river_attack_factor, S.map(word, S.number { min = 0, max = 1 })) -- 8.4.1
    -- 19.0: each turn's row names six events, each with a name and an effect in events.lua
    local names = type(T.event_names) == "table" and T.event_names or {}
    local event = S.test("an event of 19.1 (a key of event_names with an effect in events.lua)", function(v)
      return type(v) == "string" and type(names[v]) == "string" and events.effects[v] ~= nil
    end)
    c:check("events", T.events, S.map(S.number { min = 1, integer = true }, S.list(event, { len = 6 })))
    c:check("secondary", T.secondary, event)
    c:check("event_names", T.event_names, S.map(word, S.string()))
    c:check("tettau_die", T.tettau_die, S.list(S.one_of { "lost", "reduced", "full" }, { len = 6 }))  -- 19.1.5
    -- 14.3: victory levels, from the highest VP threshold down
    c:check("victory", T.victory, S.list(S.tuple { S.number(), S.string() }, { min = 1 }))
    if type(T.victory) == "table" then
      for i = 2, #T.victory do
        local a, b = T.victory[i - 1], T.victory[i]
        if type(a) == "table" and type(b) == "table" and type(a[1]) == "number" and type(b[1]) == "number"
          and b[1] >= a[1] then
          c:report({ "victory", i }, ("%s VP is not below the level above it (%s VP): 14.3 levels go down"):format(b[1], a[1]))
        end
      end
    end
    return c:problems()
  end)
end
