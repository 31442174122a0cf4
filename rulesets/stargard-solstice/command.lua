-- Stargard Solstice 3.0 Command: the chit cup (1.4, 3.1), HQ activation and command range
-- (3.2, 3.3), special chits (3.1.4, 3.1.5), the turn-1 Soviet reaction (12.1).
local T = require "tables"
local C = require "common"
local victory = require "victory"
local M = {}

-- Special chits (1.4): any HQ of the owner's choice (3.1.4 the 1st Belorussian Front, 3.1.5 the
-- 11th and 3rd Armies). Names as in the scenario's cup; the turns they are in play come from the
-- scenario's side values `special_chits`.
M.special = {
  ["1-BRF"] = { side = "Soviet", rule = "3.1.4", gcc = true },
  ["11-Pz-AOK"] = { side = "German", rule = "3.1.5" },
  ["3-Pz-AOK"] = { side = "German", rule = "3.1.5", independents_anywhere = 2 },
}
M.first_chit = "3SS-Pz"   -- 2.3.1

local function special_turns(chit)
  local sp = M.special[chit]
  local span = (sides.get(sp.side, "special_chits") or {})[chit]
  if type(span) ~= "table" then return nil end
  return span[1], span[2]
end

local function special_in_play(chit)
  local first, last = special_turns(chit)
  local turn = umpire.clock().turn
  return first == nil or (turn >= first and turn <= last)
end

-- The HQ a chit belongs to (by the HQ's `chit` attribute), or nil.
function M.hq_of_chit(chit)
  for _, u in ipairs(units.all { kind = "hq" }) do
    if u:attr("chit") == chit then return u end
  end
  return nil
end

function M.side_of_chit(chit)
  if M.special[chit] then return M.special[chit].side end
  local hq = M.hq_of_chit(chit)
  return hq and hq.side
end

-- 1.2.2, 12.1, 19.1.9, 5.4.2, 12.6, 16.1: how many chits a side may activate this turn.
function M.limit(side)
  local turn = umpire.clock().turn
  local n = (sides.get(side, "chits_per_turn") or {})[turn] or 0
  local mods = vars.get("chit_mods") or {}
  for _, m in ipairs(mods) do
    if m.side == side and m.turn == turn then n = n + m.delta end
  end
  return math.max(n, 0)
end

local function counts()
  return vars.get("activations") or { German = 0, Soviet = 0 }
end

-- Units an HQ commands: same formation (3.3.1).
function M.commanded(hq)
  local out = {}
  for _, u in ipairs(units.all { side = hq.side, on_map = true, attr = { formation = hq.id } }) do
    if C.is_combat(u) then out[#out + 1] = u end
  end
  return out
end

-- 3.3.3: command range counts the unit's hex, not the HQ's: a plain hex distance. An HQ's
-- `range` attribute (19.1.3: Munzel reduced to 6) replaces the printed value.
function M.range(hq)
  return hq:attr("range") or hq:value("range") or 0
end

function M.in_range(hq, u)
  return map.distance(hq.hex, u.hex) <= M.range(hq)
end

-- the markers an activation leaves, cleared at its end (3.1.5 anywhere, 19.1.3 withdraw_move)
local ACTIVATION_MARKERS = { "active", "moved", "mp_spent", "attacked", "anywhere", "withdraw_move" }

local function clear_active()
  for _, u in ipairs(units.all { marked = ACTIVATION_MARKERS }) do
    for _, m in ipairs(ACTIVATION_MARKERS) do
      if u:marker(m) then u:set_marker(m, nil) end
    end
  end
  vars.set("attacked_hexes", nil)
  vars.set("active", nil)
end
M.clear_active = clear_active

-- Activates an HQ: its formation's units in range (all of them on turn 1, 3.3.3) and up to two
-- independents in range chosen by the owner (3.3.2).
function M.activate(hq, how, extra)
  local turn = umpire.clock().turn
  local ids = {}
  for _, u in ipairs(M.commanded(hq)) do
    if turn == 1 or M.in_range(hq, u) then
      u:set_marker("active", 1)
      ids[#ids + 1] = u.id
    else
      log.rule("3.3.5", ("%s is out of command (%d hexes from %s, range %d)"):format(u.id, map.distance(hq.hex, u.hex), hq.id, M.range(hq)))
    end
  end
  hq:set_marker("active", 1)
  log.rule("3.3.1", ("%s activated (%s): %s in command"):format(hq.id, how, C.count(#ids, "unit")))
  -- 3.3.2 two independents within range
  local chosen = {}
  for _ = 1, 2 do
    local options = {}
    for _, u in ipairs(units.all { side = hq.side, on_map = true }) do
      if C.is_combat(u) and u:attr("independent") and not u:marker("active") and not u:attr("festung")
          and M.in_range(hq, u) then
        options[#options + 1] = u.id
      end
    end
    if #options == 0 then break end
    options[#options + 1] = "none"
    local pick = umpire.ask { prompt = "activate an independent unit with " .. hq.id .. "?", side = hq.side, rule = "3.3.2",
      options = options, default = "none" }
    if pick == "none" then break end
    units.get(pick):set_marker("active", 1)
    chosen[#chosen + 1] = pick
    log.rule("3.3.2", pick .. " (independent) activated by " .. hq.id)
  end
  -- 3.1.5: the 3rd Army chit also lets two independents move anywhere
  for _ = 1, (extra and extra.anywhere or 0) do
    local options = {}
    for _, u in ipairs(units.all { side = hq.side, on_map = true }) do
      if C.is_combat(u) and u:attr("independent") and not u:marker("active") and not u:attr("festung") then
        options[#options + 1] = u.id
      end
    end
    if #options == 0 then break end
    options[#options + 1] = "none"
    local pick = umpire.ask { prompt = "an independent unit to move anywhere (3rd Army)?", side = "German", rule = "3.1.5",
      options = options, default = "none" }
    if pick == "none" then break end
    -- the marker also opens rail movement (5.5) and bars strategic movement (movement.move)
    units.get(pick):set_marker("active", 1)
    units.get(pick):set_marker("anywhere", 1)
    log.rule("3.1.5", pick .. " may move anywhere, by regular or rail movement (3rd Army chit)")
  end
  -- 12.5: the 1 BF chit also activates the 2nd Guards Cavalry Corps once it has entered
  if extra and extra.gcc then
    for _, u in ipairs(units.all { side = "Soviet", on_map = true, attr = { formation = "2GCC" } }) do
      u:set_marker("active", 1)
    end
  end
  if hq.side == "German" then M.withdrawal_moves(turn) end                    -- 19.1.3
  vars.set("active", { hq = hq.id, side = hq.side, how = how })
  vars.set("last_side", hq.side)
  vars.set("last_formation", hq.id)
  local done = vars.get("activated_hqs") or {}
  done[#done + 1] = hq.id
  vars.set("activated_hqs", done)
  umpire.set_side(hq.side)
end

local function count(side)
  local c = counts()
  c[side] = (c[side] or 0) + 1
  vars.set("activations", c)
end

-- 12.1: Soviet armies attacked on turn 1 react right after the German activation ends.
local function reaction()
  local queue = vars.get("reaction_queue") or {}
  while #queue > 0 do
    local id = table.remove(queue, 1)
    vars.set("reaction_queue", queue)
    local hq = units.get(id)
    local done = vars.get("reacted_hqs") or {}
    if hq and hq.hex and not C.contains(done, id) and not C.contains(vars.get("activated_hqs"), id) then
      done[#done + 1] = id
      vars.set("reacted_hqs", done)
      M.activate(hq, "reacting to the German attack, 12.1")
      return true
    end
  end
  return false
end

-- A chit of the cup can be activated now (its side's limit, 3.1.3, 12.1).
local function usable(chit)
  local side = M.side_of_chit(chit)
  if not side then return false end
  if counts()[side] >= M.limit(side) then return false end
  if M.special[chit] and not special_in_play(chit) then return false end
  local hq = M.hq_of_chit(chit)
  if hq and (not hq.hex or hq.id == vars.get("last_formation")) then return false end
  if hq and C.contains(vars.get("reacted_hqs"), hq.id) then return false end
  return true
end

-- Whether another activation can happen this turn (drives the Command Phase loop).
function M.more()
  if #(vars.get("reaction_queue") or {}) > 0 then return true end
  for _, chit in ipairs(cups.contents("chits")) do
    if usable(chit) then return true end
  end
  return false
end

-- 2.3.1 / 3.1.1 Command segment: draw a chit and activate its HQ.
function M.command_segment()
  clear_active()
  -- 12.1: attacked armies react right after the German activation (and one after another)
  if (vars.get("last_side") == "German" or vars.get("reacting")) and reaction() then
    vars.set("reacting", true)
    return
  end
  vars.set("reacting", nil)
  local turn = umpire.clock().turn
  while cups.count("chits") > 0 do
    local chit
    if turn == 1 and not vars.get("first_chit_drawn") then
      -- 2.3.1: on turn 1 the first chit is the 3rd SS Panzer Corps
      chit = M.first_chit
      cups.remove("chits", chit)
      vars.set("first_chit_drawn", true)
      log.rule("2.3.1", "turn 1: the first chit is " .. chit)
    else
      chit = cups.draw("chits", "command chit")
    end
    local side = M.side_of_chit(chit)
    local hq = M.hq_of_chit(chit)
    if not side then
      log.rule("3.1.1", "chit " .. chit .. " belongs to no HQ on the map: set aside")
      cups.add("set_aside", chit)
    elseif counts()[side] >= M.limit(side) then
      log.rule("3.1.2", ("%s chit %s: the %s limit of %s is reached; set aside"):format(side, chit, side, C.count(M.limit(side), "activation")))
      cups.add("set_aside", chit)
    elseif hq and not hq.hex then
      -- 3.1.1: the chit of an HQ that is off the map (12.2.2: it could not be relocated and comes
      -- back next turn) activates nothing
      log.rule("3.1.1", "chit " .. chit .. " belongs to no HQ on the map: set aside")
      cups.add("set_aside", chit)
    elseif hq and C.contains(vars.get("reacted_hqs"), hq.id) then
      -- 12.1: an army that already reacted is set aside when its chit is drawn, even right after
      -- its reaction (before 3.1.3, which would put it back in the cup)
      log.rule("12.1", hq.id .. " has already been activated this turn, reacting to the German attack: its chit " .. chit .. " is set aside")
      cups.add("set_aside", chit)
    elseif hq and hq.id == vars.get("last_formation") then
      -- 3.1.3: never the same formation twice in a row: back in the cup, draw again
      log.rule("3.1.3", chit .. " was activated in the previous segment: back in the cup")
      cups.add("chits", chit)
      local others = false
      for _, c in ipairs(cups.contents("chits")) do if c ~= chit and usable(c) then others = true end end
      if not others then
        cups.remove("chits", chit)
        cups.add("set_aside", chit)
        log.rule("3.1.3", "no other chit can be drawn: " .. chit .. " is set aside")
      end
    elseif M.special[chit] then
      local sp = M.special[chit]
      if not special_in_play(chit) then
        log.rule(sp.rule, chit .. " is not in play this turn: set aside")
        cups.add("set_aside", chit)
      else
        local options = {}
        for _, u in ipairs(units.all { side = side, kind = "hq", on_map = true }) do
          if u.id ~= vars.get("last_formation") then options[#options + 1] = u.id end
        end
        if #options == 0 then
          log.rule(sp.rule, chit .. ": no HQ of the side is on the map: set aside")
          cups.add("set_aside", chit)
        else
          log.rule(sp.rule, side .. " special chit " .. chit .. " drawn")
          local pick = umpire.ask { prompt = "which HQ does " .. chit .. " activate?", side = side, rule = sp.rule, kind = "unit", options = options }
          count(side)
          cups.add("drawn_" .. side, chit)
          M.activate(units.get(pick), "special chit " .. chit, { anywhere = sp.independents_anywhere, gcc = sp.gcc })
          return
        end
      end
    else
      count(side)
      cups.add("drawn_" .. side, chit)
      M.activate(hq, "chit " .. chit)
      return
    end
  end
  log.rule("2.3.3", "no chit left to activate this turn")
  umpire.set_side(nil)
end

-- 2.6.2: every available chit goes back into the cup; activations start again.
function M.turn_reset()
  for _, box in ipairs { "drawn_German", "drawn_Soviet", "set_aside" } do
    for _, c in ipairs(cups.contents(box)) do cups.add("chits", c) end
    cups.clear(box)
  end
  for _, c in ipairs(vars.get("next_turn_chits") or {}) do cups.add("chits", c) end
  vars.set("next_turn_chits", nil)
  vars.set("activations", nil)
  vars.set("activated_hqs", nil)
  vars.set("reacted_hqs", nil)
  vars.set("last_formation", nil)
  vars.set("last_side", nil)
  clear_active()
end

-- 19.1.3: on every German activation (whatever the chit) the withdrawing units may make a
-- regular or rail move (not strategic: movement.move), but command range still applies: a
-- withdrawing combat unit moves only if it is within range of its own HQ (3.3.3, measured now,
-- as the chit is drawn; Munzel's range is then 6). The 39th Panzer Corps HQ itself always may.
function M.withdrawal_moves(turn)
  for _, u in ipairs(units.all { side = "German", on_map = true, attr = { withdrawing = true } }) do
    local ok, why = true, nil
    if C.is_combat(u) and turn ~= 1 then
      local hq = u:attr("formation") and units.get(u:attr("formation"))
      if not (hq and hq.hex) then
        ok, why = false, "its HQ is not on the map"
      elseif not M.in_range(hq, u) then
        ok, why = false, ("%d hexes from %s, range %d"):format(map.distance(hq.hex, u.hex), hq.id, M.range(hq))
      end
    end
    if ok then
      u:set_marker("withdraw_move", 1)
    else
      log.rule("19.1.3", ("%s (withdrawing) is out of command and may not move now (%s)"):format(u.id, why))
    end
  end
end

-- 3.3.5: the markers of a unit that may move or attack in the current activation: activated,
-- a reinforcement, a withdrawing unit's move (19.1.3). `units.all { marked = ... }` finds them.
M.ACTIVE_MARKERS = { "active", "reinforcement", "withdraw_move" }

-- 3.3.5: may this unit move or attack in the current activation?
function M.is_active(u)
  for _, m in ipairs(M.ACTIVE_MARKERS) do
    if u:marker(m) ~= nil then return true end
  end
  return false
end

-- 12.1: record a Soviet army attacked on turn 1 (in the order attacked).
function M.note_attacked(defenders)
  if umpire.clock().turn ~= 1 then return end
  local q = vars.get("reaction_queue") or {}
  for _, u in ipairs(defenders) do
    local f = u:attr("formation")
    -- each army is activated once a turn, by reaction or by its chit (12.1)
    local once = C.contains(vars.get("reacted_hqs"), f) or C.contains(vars.get("activated_hqs"), f)
    if u.side == "Soviet" and f and not C.contains(q, f) and not once then
      local hq = units.get(f)
      if hq and hq.hex then
        q[#q + 1] = f
        log.rule("12.1", f .. " was attacked: it reacts after this German activation")
      elseif hq then
        local arriving = vars.get("reactive_arrivals") or {}
        if not C.contains(arriving, f) then
          arriving[#arriving + 1] = f
          vars.set("reactive_arrivals", arriving)
          log.rule("12.1", f .. " was attacked but its HQ is not on the map: it arrives in this turn's reinforcement phase")
        end
      end
    end
  end
  vars.set("reaction_queue", q)
end

-- 12.6 Zhukov's report (turns 8-9) / 16.1 Stavka orders (turns 2-3, optional): the Soviet
-- player sets one chit of the cup aside this turn, during the command phase, for -1 VP.
---@param chit string
function M.withdraw(chit)
  local clock = umpire.clock()
  local turn = clock.turn
  local stavka = umpire.option("op16_1") and (turn == 2 or turn == 3)
  umpire.check(turn == 8 or turn == 9 or stavka, "12.6", "a chit may be withdrawn only on turns 8 and 9 (2 and 3 with optional rule 16.1)")
  -- 12.6 / 16.1: during the command phase (its movement and combat segments, where the players act)
  umpire.check(clock.step == "movement" or clock.step == "combat", stavka and "16.1" or "12.6",
    "a chit may be withdrawn only during the command phase, not in the %s", clock.phase ~= "" and clock.phase or "set-up")
  umpire.check(M.side_of_chit(chit) == "Soviet", "12.6", "%s is not a Soviet chit", chit)
  umpire.check(not vars.get("withdrawn_" .. turn), "12.6", "one chit a turn")
  umpire.check(cups.remove("chits", chit), "12.6", "%s is not in the cup", chit)
  cups.add("set_aside", chit)
  vars.set("withdrawn_" .. turn, chit)
  victory.adjust(-1, stavka and "Stavka orders (16.1)" or "Zhukov's report (12.6)")
  log.rule(stavka and "16.1" or "12.6", "the Soviet player withdraws a chit this turn: -1 VP")
end

-- ------------------------------------------------------------------ verbs
umpire.command {
  usage = "withdraw <word>",
  help = "Soviet: during the command phase, set a command chit aside this turn (12.6 on turns 8-9; 16.1 Stavka on turns 2-3), -1 VP",
  example = "withdraw 61",
  rule = "12.6, 16.1",
  run = function(chit) M.withdraw(chit) end,
}

return M
