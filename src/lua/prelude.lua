-- umpire prelude: game-neutral Lua run before every ruleset.
-- It provides deterministic `pairs`, `umpire.ask`, the verb dispatcher and the walker of the
-- sequence of play. It names no game.

local U, I = umpire, __umpire
local raw_next, type, tostring, error, xpcall = next, type, tostring, error, xpcall
local yield = coroutine.yield
-- (the coroutine functions as Lua has them: the rules' own are wrapped below)
local raw_create, raw_resume, raw_status = coroutine.create, coroutine.resume, coroutine.status

-- pcall, xpcall and coroutine.resume do not catch what stops a command (the instruction
-- budget, the wall-clock backstop, Ctrl-C, the memory limit): a rule that loops on pcall would
-- otherwise run for ever, its budget spent and every stop caught. Such an error goes on up.
do
  local raw_pcall, raw_xpcall, raw_resume, stopping = pcall, xpcall, coroutine.resume, I.stopping
  -- (varargs, no table functions: those are charged, and a C call more a level would bring
  -- the C stack's limit nearer)
  local function passed(ok, ...)
    if not ok then
      -- (said afresh at the caller's line: a message handler may have failed on it; `passed`
      -- is called in a tail call, so level 2 is the caller of pcall)
      if ... == "not enough memory" then error("memory limit exceeded (not enough memory)", 2) end
      local why = stopping()
      if why then error(why, 2) end
    end
    return ok, ...
  end
  -- (the globals; the prelude's own `xpcall` local stays the raw one)
  _ENV.pcall = function(...) return passed(raw_pcall(...)) end
  _ENV.xpcall = function(...) return passed(raw_xpcall(...)) end
  coroutine.resume = function(...) return passed(raw_resume(...)) end
end

-- pairs in a fixed order (numbers, then strings, then booleans, then handles by their id),
-- whatever the hash seed. Tables and functions as keys have no fixed order: refused.
local rank_keys, pairs_step = I.sorted_keys, I.pairs_step
local function sorted_keys(t)
  local keys, bad = rank_keys(t)
  if not keys then
    error("pairs/next: a table keyed by " .. bad .. "s has no fixed order (key it by ids)", 3)
  end
  return keys
end
-- sealed tables (I.freeze below) are empty and read through this weak table of their contents
-- (Rust finds them as the `__sealed` field of the sealed table's metatable)
local frozen_real = setmetatable({}, { __mode = "k" })
-- (a map.hexset is walked in Rust, in the order of the printed ids)
local hexset_next = I.hexset_next
function pairs(t)
  if type(t) == "userdata" then return hexset_next, t, nil end
  local mt = getmetatable(t)
  if type(mt) == "table" and mt.__pairs then return mt.__pairs(t) end
  t = frozen_real[t] or t
  local keys = sorted_keys(t)
  -- (the step is a C function: keys[0] holds the table, keys[-1] the position reached)
  keys[0], keys[-1] = t, 0
  return pairs_step, keys, nil
end
-- `next` in the same fixed order (`next(t)` finds the first key in one pass; with a key, each
-- call sorts the keys: use pairs to walk a table).
local first_key = I.first_key
function next(t, k)
  if type(t) == "userdata" then return hexset_next(t, k) end
  t = frozen_real[t] or t
  if k == nil then
    if raw_next(t) == nil then return nil end
    local key, bad = first_key(t)
    if bad then error("pairs/next: a table keyed by " .. bad .. "s has no fixed order (key it by ids)", 2) end
    return key, t[key]
  end
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
-- default=, kind="choice"|"unit"|"hex"|"text"|"number"|"yesno", side= (who answers) }. Returns the answer
-- (a string; a unit id for kind "unit"; a printed hex id for kind "hex").
-- The coroutines the rules make (coroutine.create and wrap): a question asked inside one
-- would go back to that coroutine instead of to the player, so umpire.ask refuses there.
local rule_threads = setmetatable({}, { __mode = "k" })
do
  local create, resume = coroutine.create, coroutine.resume
  coroutine.create = function(f)
    local co = create(f)
    rule_threads[co] = true
    return co
  end
  -- (as Lua's own wrap: a text error gains the place of the call; varargs, no table functions)
  local function unwrapped(ok, ...)
    if not ok then
      local e = ...
      error(e, type(e) == "string" and 2 or 0)
    end
    return ...
  end
  coroutine.wrap = function(f)
    local co = create(f)
    rule_threads[co] = true
    return function(...) return unwrapped(resume(co, ...)) end
  end
end

-- coroutine.yield from the command's own code would suspend the command as if it asked the
-- player: refused at the rule's line (inside a coroutine the rules made it is theirs)
coroutine.yield = function(...)
  if not rule_threads[coroutine.running()] then
    error("coroutine.yield: outside a coroutine the rules made it would stop the command itself (to ask the player, use umpire.ask)", 2)
  end
  return yield(...)
end

local function not_in_rule_thread(what)
  if rule_threads[coroutine.running()] then
    error(what .. ": called inside a coroutine the rules made (coroutine.create or wrap): it would go back to that coroutine, not to the player; call it from the command's own code", 3)
  end
end

function U.ask(q)
  not_in_rule_thread("umpire.ask")
  if type(q) ~= "table" or type(q.prompt) ~= "string" then
    error("umpire.ask: expected a table with a prompt", 2)
  end
  if q.options and #q.options == 0 then
    error("umpire.ask: empty options list (" .. q.prompt .. ")", 2)
  end
  if q.side ~= nil then
    local known = sides.list()
    local found = false
    for _, s in ipairs(known) do found = found or s == q.side end
    if not found then
      error("umpire.ask: unknown side '" .. tostring(q.side) .. "' (sides are " .. table.concat(known, ", ") .. ")", 2)
    end
  end
  local answer = yield(q)
  if q.kind == "number" then return tonumber(answer) end
  if q.kind == "yesno" then return answer == "yes" end
  return answer
end

-- Declares the outcome of the running command (the result `odds` tabulates). In an `odds`
-- enumeration the run ends here: what follows only applies the result, which odds does not
-- need. Outside `odds` it keeps the outcome with the command (the history's tally of what
-- the tables gave, which playouts report) and returns it.
local outcome_seen = I.outcome_seen
function U.outcome(result)
  if U.is_probe() then
    not_in_rule_thread("umpire.outcome")
    yield({ __outcome = tostring(result) })
  end
  outcome_seen(tostring(result))
  return result
end

-- Rolls the dice `rolls` (a list: each a dice expression such as "1d6", or { expression,
-- purpose }) and returns what `decide(total1, total2, ...)` returns, its first result being the
-- command's outcome as umpire.outcome takes it. `decide` reads the dice off the tables and only
-- looks: no die, and the game state as it was when it returns (what follows applies the
-- result). Under `odds` no die is rolled: `decide` runs once for every combination of faces,
-- each on the same state, and the run ends with their distribution — one run of the command
-- where each combination would otherwise take one.
local outcome_table, decided = I.outcome_table, I.decided
function U.outcome_of(rolls, decide)
  if type(rolls) ~= "table" or type(decide) ~= "function" then
    error("umpire.outcome_of(rolls, decide): a list of dice and a function", 2)
  end
  local exprs, purposes = {}, {}
  for i, r in ipairs(rolls) do
    if type(r) == "table" then exprs[i], purposes[i] = r[1], r[2] else exprs[i] = r end
    if type(exprs[i]) ~= "string" then error("umpire.outcome_of: roll " .. i .. " is not a dice expression", 2) end
  end
  if U.is_probe() then
    outcome_table(exprs, decide)
    yield({ __outcome_table = true })
  end
  local totals = {}
  for i = 1, #exprs do totals[i] = (dice.roll(exprs[i], purposes[i])) end
  return decided(decide, table.unpack(totals, 1, #exprs))
end

-- Checks a condition, refusing with a rule number when it fails: umpire.check(ok, "5.1", "msg").
function U.check(ok, rule, msg, ...)
  if not ok then U.refuse(rule, select("#", ...) > 0 and msg:format(...) or msg) end
  return ok
end

-- ---------------------------------------------------------------- rule calls
-- Rule code runs in a coroutine of its own, so that its frames outlive an error: a memory
-- error (for which Lua calls no message handler) is then told where the rule was
-- (I.thread_error raises it), and any other text gains the traceback of the dead coroutine. A
-- question it asks goes up to the host and the answer comes back down.

-- The error a rule call ended with, as the caller sees it.
local function failure(co, e)
  local t = type(e)
  if t == "string" then return I.thread_error(co, e) end
  -- a table (or nil, a boolean...) raised as an error: not read (its metamethods could loop),
  -- said with the rule's line (the host names the rule frame under the prelude's place);
  -- numbers are texts, and refusals (userdata) pass as they are
  if t ~= "userdata" and t ~= "number" then
    return I.thread_error(co, ("<umpire prelude>:1: the rule raised a %s as its error, not a text (use error('...') or umpire.refuse)"):format(t))
  end
  return e
end

-- (varargs and tail calls: no table functions, which are charged)
local function finished(co, ok, ...)
  if raw_status(co) ~= "dead" then return finished(co, raw_resume(co, yield(...))) end
  if ok then return ... end
  error(failure(co, (...)), 0)
end

local function protected(f, ...)
  local co = raw_create(f)
  return finished(co, raw_resume(co, ...))
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
        ("%s is not allowed now (%s); it belongs to the %s"):format(name, clock.phase ~= "" and clock.phase or "no phase", I.step_labels(phases)))
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

-- The names of steps of the sequence, for messages, as the prompt shows them: a step inside a
-- named group with the group's name ("Command Phase › Combat", "Exploitation Phase › German
-- Detrain Segment"), each once, joined by "or"; a step without a name is shown by its id.
function I.step_labels(ids)
  local function label(n)
    local name = n.name
    if type(name) == "function" then
      local ok, v = pcall(name)
      name = ok and v or nil
    end
    return type(name) == "string" and name or nil
  end
  local function find(list, id, parent)
    for _, n in ipairs(list or {}) do
      if n.id == id then
        local own = label(n) or id
        return parent and (parent .. " › " .. own) or own
      end
      local r = n.steps and find(n.steps, id, label(n))
      if r then return r end
    end
  end
  local out, seen = {}, {}
  for _, id in ipairs(ids) do
    local l = (seq and find(seq.steps, id)) or id
    if not seen[l] then seen[l] = true; out[#out + 1] = l end
  end
  return table.concat(out, " or ")
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

-- The position, and whether it is the start of a turn (a `next --turn-start` stopped there
-- before anything of the turn was played).
local function load_frames()
  local c = U.clock()
  local frames = {}
  local pos = c.position
  if type(pos) == "table" and pos.frames then
    for d, f in ipairs(pos.frames) do frames[d] = { i = f.i, s = f.s, sides = f.sides } end
  end
  return frames, c.turn, type(pos) == "table" and pos.turn_start == true
end

-- Stops between two turns: the new turn's number is on the clock, nothing of it is played.
local function stop_at_turn_start(turn)
  U.set_clock { turn = turn, phase = "start of turn", step = "", side = false,
    position = { frames = {}, turn_start = true } }
end

local function game_end(turn)
  U.set_clock { turn = turn, phase = "end of game", step = "", side = false, position = { frames = {} } }
  local result = seq.finish and seq.finish() or "no result"
  if not U.clock().over then U.game_over(result) end
end

-- Walks to the next step that waits for the players. `leaving` is true when the current leaf
-- must be left first (the `next` command). `hold` stops at the start of the next turn, before
-- anything of it is played (`next --turn-start`, for `forward turn N`); `starting` resumes from
-- such a stop.
--   entering a step: resolve its sides (groups), publish, skip_if, enter, then either descend
--   (group), stop (a leaf that waits) or leave at once (an `auto` leaf);
--   when a group's steps are done: leave, then the next side, or repeat_while, or move on;
--   enter and leave bracket every pass of a group (each side, each repetition).
local function advance(frames, turn, leaving, hold, starting)
  if leaving and #frames > 0 then
    local leaf = node_at(frames, #frames)
    if leaf and leaf.leave then leaf.leave() end
  end
  while true do
    local d = #frames
    if d == 0 then
      if starting then
        starting = false
      else
        -- the turn is over
        if seq.turn_end then seq.turn_end(turn) end
        if U.clock().over then publish(frames, turn); return end
        if turn + 1 > last_turn() then return game_end(turn) end
        turn = turn + 1
        if hold then return stop_at_turn_start(turn) end
      end
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

-- The ids of the steps where play stops and waits (leaves that are not `auto`), in order.
function I.stop_ids()
  local out = {}
  local function walk(list)
    for _, n in ipairs(list or {}) do
      if n.steps then walk(n.steps) elseif not n.auto then out[#out + 1] = n.id end
    end
  end
  if seq then walk(seq.steps) end
  return out
end

function I.next(hold)
  if not seq then error("the ruleset defined no sequence of play (umpire.sequence)") end
  local clock = U.clock()
  if clock.over then U.refuse("end", "the game is over: " .. clock.over) end
  local frames, turn, starting = load_frames()
  return protected(advance, frames, turn, not starting, hold == true, starting)
end

-- Runs a designer's chunk inside a coroutine so that it may ask questions too.
function I.run_chunk(f)
  return protected(f)
end

-- ---------------------------------------------------------------- after every command
-- umpire.after_command(fn): fn() runs at the end of every command that finishes (a verb, `next`,
-- the set-up of `new`, an answer that completes a command, a designer's `lua` chunk), inside
-- the command's transaction: what it changes is part of the command, and an error in it takes
-- the whole command back. Keeps derived state (hex control, say) current after every change.
local after_hooks = {}
function U.after_command(fn)
  if not I.is_loading() then error("umpire.after_command may only be called while the rule files load", 2) end
  if type(fn) ~= "function" then error("umpire.after_command: expected a function", 2) end
  after_hooks[#after_hooks + 1] = fn
end
local pack, unpack = table.pack, table.unpack
local function with_after(f)
  return function(...)
    local r = pack(f(...))
    for i = 1, #after_hooks do protected(after_hooks[i]) end
    return unpack(r, 1, r.n)
  end
end
I.dispatch, I.start, I.next, I.run_chunk = with_after(I.dispatch), with_after(I.start), with_after(I.next), with_after(I.run_chunk)

-- ------------------------------------------------------------------ the VM holds no state
-- Metatables with finalizers would run rule code at unpredictable times: refused.
local raw_setmetatable = setmetatable
function setmetatable(t, mt)
  if type(mt) == "table" and rawget(mt, "__gc") ~= nil then
    error("setmetatable: finalizers (__gc) are not allowed in rules", 2)
  end
  if frozen_real[t] then
    error("setmetatable: module tables are read-only during play (data that changes belongs in vars or unit attributes)", 2)
  end
  return raw_setmetatable(t, mt)
end

-- Once the rule files have loaded, every table they can reach is sealed in place: the
-- libraries, the API, the modules' tables (nested ones, keys, metatables, tables held in
-- upvalues of their functions), the globals and the registrations. A rule that wrote one during
-- play would change later commands without being in the game state, so undo, saves and replays
-- would not see it. Sealing keeps each table's identity (every reference still points to it):
-- its contents move to a hidden table it reads through (`frozen_real`; the host finds it in the
-- metatable, `__sealed`) and writes raise an error at the writer's line.
local getupvalue, setupvalue, upvalueid, changed_upvalues = I.getupvalue, I.setupvalue, I.upvalueid, I.changed_upvalues
local raw_getmetatable, fninfo, where, seal_move = I.rawmeta, I.fninfo, I.where, I.seal_move
local raw_rawget, raw_rawset, raw_rawlen, raw_getmeta_checked = rawget, rawset, rawlen, getmetatable
I.getupvalue, I.setupvalue, I.upvalueid, I.rawmeta, I.fninfo, I.changed_upvalues = nil, nil, nil, nil, nil, nil
I.seal_move = nil
local loaded = I.loaded -- the modules `require` loaded, by name (stays writable: later requires)
I.loaded = nil
-- sealed table -> its metatable before the seal (false: none)
local sealed_meta = raw_setmetatable({}, { __mode = "k" })
-- what sealing cannot intercept: upvalues reassigned, and the `__` keys a sealed table keeps in
-- place (Lua looks metamethods up raw); checked and put back after every run of rule code
local watched = {}
local frozen = false
local string_meta_view -- (I.freeze)

-- (string methods are taken now: sealing the string library empties it for a moment)
local s_sub, s_match, s_format = string.sub, string.match, string.format
local t_sort = table.sort
-- (the text of each string key is made once: sealing asks for the same keys again and again)
local key_texts = {}
local function key_text(k)
  if type(k) == "string" then
    local text = key_texts[k]
    if text == nil then
      text = s_match(k, "^[%a_][%w_]*$") and "." .. k or s_format("[%q]", k)
      key_texts[k] = text
    end
    return text
  end
  return "[" .. tostring(k) .. "]"
end

local READ_ONLY = "module tables are read-only during play (data that changes belongs in vars or unit attributes)"
local API_READ_ONLY = "the libraries and the rules API are read-only"

-- Seals a table; returns the set of its keys that lead somewhere (a table or function as the
-- key or the value), gathered in the same pass for the walk below.
local function seal(t, path, message)
  -- the entries move to `real` (one host call); metamethod names stay in place too, so that a
  -- sealed table still works as the metatable of tables made during play
  local real, kept, leads = seal_move(t)
  if kept[1] == nil then kept = nil end
  local mt = raw_getmetatable(t)
  local m = {}
  if mt then
    for k, v in raw_next, mt do m[k] = v end
  end
  if kept then
    t_sort(kept)
    for i = 1, #kept do
      local k = kept[i]
      local v = real[k]
      raw_rawset(t, k, v)
      watched[#watched + 1] = { t = t, k = k, v = v, what = path .. key_text(k) }
    end
  end
  local old_index, old_len = mt and raw_rawget(mt, "__index"), mt and raw_rawget(mt, "__len")
  if type(old_index) == "function" then
    m.__index = function(_, k)
      local v = raw_rawget(real, k)
      if v ~= nil then return v end
      return old_index(t, k)
    end
  else
    if old_index ~= nil then raw_setmetatable(real, { __index = old_index }) end
    m.__index = real
  end
  m.__newindex = function(_, k)
    local existing = raw_rawget(real, k) ~= nil
    error(where() .. message(path .. key_text(k), k, existing), 0)
  end
  m.__len = old_len and function() return old_len(t) end or function() return #real end
  m.__metatable = false
  m.__sealed = real
  m.__gc, m.__mode = nil, nil
  frozen_real[t] = real
  sealed_meta[t] = mt or false
  raw_setmetatable(t, m)
  return leads
end

local function module_message(what) return what .. ": " .. READ_ONLY end

-- Walks what a value reaches, sealing tables and watching upvalues. `seen` holds tables,
-- functions and upvalue ids already visited.
local walk
local function walk_function(f, path, seen)
  local what, src, line = fninfo(f)
  -- C functions hold no rule data; the prelude's own functions keep their private state
  if what == "C" or src == "<umpire prelude>" then return end
  -- (s_format, not a method of the string: the string metatable is sealed by now)
  local where_defined
  for i = 1, 255 do
    local name, v = getupvalue(f, i)
    if name == nil then break end
    local id = upvalueid(f, i)
    if not seen[id] then
      seen[id] = true
      where_defined = where_defined or s_format("%s:%d", src, line)
      watched[#watched + 1] = { f = f, i = i, v = v, name = name, where = where_defined }
      walk(v, s_format("local %s (%s)", name, where_defined), seen)
    end
  end
end

-- tables known by a better name than the first path that reaches them (a module by its name)
local names = raw_setmetatable({}, { __mode = "k" })
function walk(v, path, seen)
  local tv = type(v)
  if tv ~= "table" and tv ~= "function" then return end
  if seen[v] then return end
  seen[v] = true
  path = names[v] or path
  if tv == "function" then return walk_function(v, path, seen) end
  if frozen_real[v] then return end
  local mt = raw_getmetatable(v)
  -- in the fixed order of `pairs` where there is one, so that a table is always named by the
  -- same path and an upvalue by the same function
  -- (only the keys that lead somewhere need an order: a set of hexes or a table of numbers is
  -- sealed without sorting its keys)
  local leads = seal(v, path, module_message)
  local keys = rank_keys(leads)
  if not keys then
    keys = {}
    for k in raw_next, leads do keys[#keys + 1] = k end
  end
  -- (the contents, now behind the seal; a path is only made for what is walked)
  local real = frozen_real[v]
  for _, k in ipairs(keys) do
    local x = raw_rawget(real, k)
    local tk, tx = type(k), type(x)
    if (tk == "table" or tk == "function") and not seen[k] then walk(k, path .. "[key]", seen) end
    if (tx == "table" or tx == "function") and not seen[x] then walk(x, path .. key_text(k), seen) end
  end
  if mt then walk(mt, "getmetatable(" .. path .. ")", seen) end
end

local LIBRARIES = { "string", "table", "math", "utf8", "coroutine",
                    "umpire", "units", "map", "dice", "cups", "tracks", "sides", "vars", "log" }

function I.freeze()
  local seen = raw_setmetatable({}, { __mode = "k" })
  seen[loaded], seen[_G], seen[frozen_real], seen[sealed_meta], seen[watched] = true, true, true, true, true
  -- the libraries and the API first, with their own message
  for _, name in ipairs(LIBRARIES) do
    local lib = _G[name]
    seen[lib] = true
    seal(lib, name, function(what) return what .. ": " .. API_READ_ONLY end)
  end
  -- the metatable every string shares (its __index is the string library): sealed like the
  -- libraries, so that no rule can change what methods of strings do
  local string_meta = raw_getmeta_checked("")
  seen[string_meta] = true
  seal(string_meta, "getmetatable('')", function(what) return what .. ": " .. API_READ_ONLY end)
  -- what getmetatable('') gives the rules: a view whose writes are refused at their line (the
  -- real one keeps `__index` in place, where Lua reads it, and a write there is only found
  -- after the command)
  string_meta_view = raw_setmetatable({}, {
    __index = string_meta,
    __newindex = function(_, k) error(where() .. "getmetatable('')" .. key_text(k) .. ": " .. API_READ_ONLY, 0) end,
    __metatable = false,
  })
  frozen_real[string_meta_view] = frozen_real[string_meta]
  local modules = sorted_keys(loaded)
  for _, name in ipairs(modules) do names[loaded[name]] = names[loaded[name]] or name end
  for _, name in ipairs(modules) do walk(loaded[name], name, seen) end
  walk(seq, "the sequence of play", seen)
  for _, name in ipairs(sorted_keys(_G)) do walk(raw_rawget(_G, name), name, seen) end
  -- the globals: none may be created or assigned during play
  seal(_G, "_G", function(_, k, existing)
    if existing then
      return ("global %s: globals are read-only during play (keep data in vars)"):format(tostring(k))
    end
    return ("global %s: rules may not create globals during play (keep data in vars)"):format(tostring(k))
  end)
  frozen = true
end

-- A module first required during play is sealed as soon as it has loaded (the host's
-- `require` calls this).
function I.seal_module(name, v)
  if frozen and (type(v) == "table" or type(v) == "function") and not frozen_real[v] then
    walk(v, tostring(name), raw_setmetatable({}, { __mode = "k" }))
  end
end

-- After every run of rule code: an upvalue reassigned or a kept `__` key written is put back,
-- and named (the first one) so the command fails.
-- (the upvalues are compared in one host call over three parallel lists, built once after the
-- seal and again when a module sealed later adds to `watched`)
local up_f, up_i, up_v, up_w, up_n, keys_kept = {}, {}, {}, {}, 0, {}
local function watched_lists()
  if up_n == #watched then return end
  for j = up_n + 1, #watched do
    local w = watched[j]
    if w.f then
      local k = #up_w + 1
      up_f[k], up_i[k], up_v[k], up_w[k] = w.f, w.i, w.v, w
    else
      keys_kept[#keys_kept + 1] = w
    end
  end
  up_n = #watched
end
function I.check_frozen()
  local first
  watched_lists()
  for _, k in ipairs(changed_upvalues(up_f, up_i, up_v)) do
    local w = up_w[k]
    setupvalue(w.f, w.i, w.v)
    first = first or ("%s: the local '%s' (an upvalue of the function defined there) changed during the command and was put back: %s"):format(w.where, w.name, READ_ONLY)
  end
  for _, w in ipairs(keys_kept) do
    if not rawequal(raw_rawget(w.t, w.k), w.v) then
      raw_rawset(w.t, w.k, w.v)
      first = first or (w.what .. ": written during the command and put back: " .. READ_ONLY)
    end
  end
  return first
end

-- The raw functions and the metatable functions see through a seal (and refuse to write).
function rawget(t, k)
  return raw_rawget(frozen_real[t] or t, k)
end
function rawlen(t)
  return raw_rawlen(frozen_real[t] or t)
end
function rawset(t, k, v)
  if frozen_real[t] then error(("rawset: %s"):format(READ_ONLY), 2) end
  return raw_rawset(t, k, v)
end
function getmetatable(v)
  if string_meta_view and type(v) == "string" then return string_meta_view end
  local mt = sealed_meta[v]
  if mt == nil then return raw_getmeta_checked(v) end
  if mt == false then return nil end
  local protected = raw_rawget(frozen_real[mt] or mt, "__metatable")
  if protected ~= nil then return protected end
  return mt
end

-- A fresh environment for a designer's chunk (`lua`, `=`, `expect`): it reads the globals,
-- and what it assigns is dropped with it.
function I.chunk_env()
  return raw_setmetatable({}, { __index = _G })
end
