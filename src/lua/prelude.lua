-- umpire prelude: game-neutral Lua run before every ruleset.
-- It provides deterministic `pairs`, `umpire.ask`, the verb dispatcher and the walker of the
-- sequence of play. It names no game.

local U, I = umpire, __umpire
local raw_next, type, tostring, error, xpcall = next, type, tostring, error, xpcall
local yield = coroutine.yield

-- pairs in a fixed order (numbers, then strings, then booleans, then handles by their id),
-- whatever the hash seed. Tables and functions as keys have no fixed order: refused.
local rank_keys = I.sorted_keys
local function sorted_keys(t)
  local keys, bad = rank_keys(t)
  if not keys then
    error("pairs/next: a table keyed by " .. bad .. "s has no fixed order (key it by ids)", 3)
  end
  return keys
end
-- the read-only proxies of the libraries and the API (I.freeze), by proxy: their metatables are
-- hidden, so `pairs` looks the real table up here
local frozen_real = setmetatable({}, { __mode = "k" })
function pairs(t)
  local mt = getmetatable(t)
  if type(mt) == "table" and mt.__pairs then return mt.__pairs(t) end
  t = frozen_real[t] or t
  local keys = sorted_keys(t)
  local i = 0
  return function()
    i = i + 1
    local k = keys[i]
    if k ~= nil then return k, t[k] end
  end, t, nil
end
-- `next` in the same fixed order (each call sorts the keys: use pairs to walk a table).
function next(t, k)
  t = frozen_real[t] or t
  local keys = sorted_keys(t)
  local i = 1
  if k ~= nil then
    i = nil
    for j, x in ipairs(keys) do if x == k then i = j + 1 break end end
    if not i then error("next: invalid key to 'next'", 2) end
  end
  local key = keys[i]
  if key == nil then return nil end
  return key, t[key]
end

-- string.rep asking for more than the memory allows is one C call: its memory error would name
-- no line of rule code. It is refused here instead, at the caller's line.
do
  local rep, max_string = string.rep, I.max_string
  string.rep = function(s, n, sep)
    local ts, tn = type(s), math.type(n)
    if (ts == "string" or ts == "number") and tn and n > 1 then
      local size = #tostring(s) * n
      if type(sep) == "string" or type(sep) == "number" then size = size + #tostring(sep) * (n - 1) end
      if size > max_string then
        error(("string.rep: a string of %.0f bytes is over the memory limit"):format(size), 2)
      end
    end
    return rep(s, n, sep)
  end
end

-- Asks a player and waits for `choose` or `auto`. q = { prompt=, rule=, options={...},
-- default=, kind="choice"|"unit"|"hex"|"text"|"number"|"yesno" }. Returns the answer
-- (a string; a unit id for kind "unit"; a printed hex id for kind "hex").
function U.ask(q)
  if type(q) ~= "table" or type(q.prompt) ~= "string" then
    error("umpire.ask: expected a table with a prompt", 2)
  end
  if q.options and #q.options == 0 then
    error("umpire.ask: empty options list (" .. q.prompt .. ")", 2)
  end
  local answer = yield(q)
  if q.kind == "number" then return tonumber(answer) end
  if q.kind == "yesno" then return answer == "yes" end
  return answer
end

-- Declares the outcome of the running command (the result `odds` tabulates). In an `odds`
-- enumeration the run ends here: what follows only applies the result, which odds does not
-- need. Outside `odds` it does nothing and returns the outcome.
function U.outcome(result)
  if U.is_probe() then yield({ __outcome = tostring(result) }) end
  return result
end

-- Checks a condition, refusing with a rule number when it fails: umpire.check(ok, "5.1", "msg").
function U.check(ok, rule, msg, ...)
  if not ok then U.refuse(rule, select("#", ...) > 0 and msg:format(...) or msg) end
  return ok
end

-- ---------------------------------------------------------------- message handler
local function msgh(e)
  if type(e) == "string" then return I.traceback(e) end
  return e
end
I.traceback = function(e) return e end -- replaced below by the host if available

local function protected(f, ...)
  local ok, res = xpcall(f, msgh, ...)
  if not ok then error(res, 0) end
  return res
end

-- ---------------------------------------------------------------- verbs
function I.dispatch(name, ...)
  local spec = I.verbs[name]
  if not spec then error("unknown verb " .. tostring(name)) end
  local clock = U.clock()
  if clock.over then U.refuse("end", "the game is over: " .. clock.over) end
  local phases = type(spec.phases) == "table" and spec.phases or { spec.phases }
  if spec.phases and #phases > 0 then
    local ok = false
    for _, p in ipairs(phases) do if p == clock.step then ok = true end end
    if not ok then
      U.refuse(spec.rule or "sequence",
        ("%s is not allowed now (%s); it belongs to: %s"):format(name, clock.phase ~= "" and clock.phase or "no phase", table.concat(phases, ", ")))
    end
  end
  return protected(spec.run, ...)
end

-- ---------------------------------------------------------------- sequence of play
-- umpire.sequence{ turns = N or function() -> N, first_turn = 1,
--   start = fn, turn_start = fn(turn), turn_end = fn(turn), finish = fn() -> result,
--   steps = { node... } }
-- node = { id=, name=, rule=, side=, sides = {..} or fn, repeat_while = fn, skip_if = fn,
--          enter = fn, leave = fn, auto = true, steps = { node... } }
local seq

local function check_nodes(list, where)
  if type(list) ~= "table" then error("umpire.sequence: " .. where .. ".steps must be a list", 3) end
  for i, n in ipairs(list) do
    if type(n) ~= "table" or type(n.id) ~= "string" then
      error(("umpire.sequence: %s.steps[%d] needs an id"):format(where, i), 3)
    end
    if n.sides and not n.steps then
      error(("umpire.sequence: step %s has sides but no steps (sides belong to groups)"):format(n.id), 3)
    end
    if n.steps then check_nodes(n.steps, n.id) end
  end
end

function U.sequence(spec)
  if not I.is_loading() then error("umpire.sequence may only be called while the rule files load", 2) end
  if type(spec) ~= "table" then error("umpire.sequence: expected a table", 2) end
  check_nodes(spec.steps, "sequence")
  seq = spec
end

local function resolve(v, ...)
  if type(v) == "function" then return v(...) end
  return v
end

local function last_turn()
  return resolve(seq.turns) or math.huge
end

-- frames[d] = { i = index in its parent's steps, sides = list, s = index } (sides on groups)
local function node_at(frames, d)
  local group, node = seq, nil
  for k = 1, d do node = group.steps[frames[k].i]; group = node end
  return node
end

local function sides_of(node)
  local s = resolve(node.sides)
  if type(s) ~= "table" then error("sequence step " .. node.id .. ": sides must be a list (or a function returning one)") end
  return s
end

-- Publishes the position: phase label, leaf id, active side (the innermost `sides` group's
-- current side, or a step's fixed `side`), and the frames for the next `next`.
local function publish(frames, turn)
  local names, side, leaf = {}, nil, nil
  for d = 1, #frames do
    local n = node_at(frames, d)
    if n then
      names[#names + 1] = resolve(n.name) or n.id
      if frames[d].sides then side = frames[d].sides[frames[d].s] end
      if n.side then side = resolve(n.side) end
      leaf = n
    end
  end
  local pos = {}
  for d, f in ipairs(frames) do pos[d] = { i = f.i, s = f.s, sides = f.sides } end
  U.set_clock { turn = turn, phase = table.concat(names, " › "), step = leaf and leaf.id or "",
    side = side or false, position = { frames = pos } }
end

local function load_frames()
  local c = U.clock()
  local frames = {}
  local pos = c.position
  if type(pos) == "table" and pos.frames then
    for d, f in ipairs(pos.frames) do frames[d] = { i = f.i, s = f.s, sides = f.sides } end
  end
  return frames, c.turn
end

local function game_end(turn)
  U.set_clock { turn = turn, phase = "end of game", step = "", side = false, position = { frames = {} } }
  local result = seq.finish and seq.finish() or "no result"
  if not U.clock().over then U.game_over(result) end
end

-- Walks to the next step that waits for the players. `leaving` is true when the current leaf
-- must be left first (the `next` command).
--   entering a step: resolve its sides (groups), publish, skip_if, enter, then either descend
--   (group), stop (a leaf that waits) or leave at once (an `auto` leaf);
--   when a group's steps are done: leave, then the next side, or repeat_while, or move on;
--   enter and leave bracket every pass of a group (each side, each repetition).
local function advance(frames, turn, leaving)
  if leaving and #frames > 0 then
    local leaf = node_at(frames, #frames)
    if leaf and leaf.leave then leaf.leave() end
  end
  while true do
    local d = #frames
    if d == 0 then
      -- the turn is over
      if seq.turn_end then seq.turn_end(turn) end
      if U.clock().over then publish(frames, turn); return end
      if turn + 1 > last_turn() then return game_end(turn) end
      turn = turn + 1
      U.set_clock { turn = turn }
      log.say(("Turn %d"):format(turn))
      if seq.turn_start then seq.turn_start(turn) end
      if U.clock().over then return end
      frames[1] = { i = 0 }
    else
      local parent = d == 1 and seq or node_at(frames, d - 1)
      local f = frames[d]
      f.i = f.i + 1
      f.sides, f.s = nil, nil
      local node = parent.steps[f.i]
      if node then
        local sides = node.sides and sides_of(node)
        if sides == nil or #sides > 0 then
          if sides then f.sides, f.s = sides, 1 end
          publish(frames, turn)
          if node.skip_if and node.skip_if() then
            f.sides, f.s = nil, nil
          else
            if node.enter then node.enter() end
            if U.clock().over then return end
            if node.steps then
              frames[d + 1] = { i = 0 }
            elseif not node.auto then
              publish(frames, turn)
              local c = U.clock()
              log.say(c.side and (c.side .. ": " .. c.phase) or c.phase)
              return
            elseif node.leave then
              node.leave()
            end
          end
        end
      else
        -- the parent group's steps are done
        frames[d] = nil
        if d > 1 then
          local pf = frames[d - 1]
          if parent.leave then parent.leave() end
          local again = false
          if pf.sides and pf.s < #pf.sides then
            pf.s = pf.s + 1
            again = true
          elseif parent.repeat_while and parent.repeat_while() then
            if pf.sides then pf.s = 1 end
            again = true
          end
          if again then
            frames[d] = { i = 0 }
            publish(frames, turn)
            if parent.enter then parent.enter() end
            if U.clock().over then return end
          else
            pf.sides, pf.s = nil, nil
          end
        end
      end
    end
  end
end

function I.start()
  if not seq then error("the ruleset defined no sequence of play (umpire.sequence)") end
  local turn = (seq.first_turn or 1)
  U.set_clock { turn = turn }
  if seq.start then protected(seq.start) end
  if turn > last_turn() then return protected(game_end, turn) end
  log.say(("Turn %d"):format(turn))
  if seq.turn_start then protected(seq.turn_start, turn) end
  local frames = { { i = 0 } }
  return protected(advance, frames, turn, false)
end

-- The ids of every step of the sequence (for `forward step ID`).
function I.step_ids()
  local out = {}
  local function walk(list)
    for _, n in ipairs(list or {}) do
      out[#out + 1] = n.id
      if n.steps then walk(n.steps) end
    end
  end
  if seq then walk(seq.steps) end
  return out
end

function I.next()
  if not seq then error("the ruleset defined no sequence of play (umpire.sequence)") end
  local clock = U.clock()
  if clock.over then U.refuse("end", "the game is over: " .. clock.over) end
  local frames, turn = load_frames()
  return protected(advance, frames, turn, true)
end

-- Runs a designer's chunk inside a coroutine so that it may ask questions too.
function I.run_chunk(f)
  return protected(f)
end

-- ------------------------------------------------------------------ the VM holds no state
-- Metatables with finalizers would run rule code at unpredictable times: refused.
local raw_setmetatable = setmetatable
function setmetatable(t, mt)
  if type(mt) == "table" and rawget(mt, "__gc") ~= nil then
    error("setmetatable: finalizers (__gc) are not allowed in rules", 2)
  end
  return raw_setmetatable(t, mt)
end

-- The libraries and the API are read-only for rules and designers' chunks (a rule that
-- replaced string.upper would change later commands without being in the game state).
function I.freeze()
  for _, name in ipairs { "string", "table", "math", "utf8", "coroutine",
                          "umpire", "units", "map", "dice", "cups", "tracks", "sides", "vars", "log" } do
    local real = _G[name]
    local proxy = raw_setmetatable({}, {
      __index = real,
      __newindex = function(_, k) error(("%s.%s: the libraries and the rules API are read-only"):format(name, tostring(k)), 2) end,
      __metatable = false,
    })
    frozen_real[proxy] = real
    _G[name] = proxy
  end
end

-- A fresh environment for a designer's chunk (`lua`, `=`, `expect`): it reads the globals,
-- and what it assigns is dropped with it.
function I.chunk_env()
  return raw_setmetatable({}, { __index = _G })
end
