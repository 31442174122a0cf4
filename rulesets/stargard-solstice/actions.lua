-- Stargard Solstice: what may be done now (umpire.actions; docs/lua-api.md §2.6). Every command
-- listed is one the verbs accept: the checks are the rules' own (movement.lua, combat.lua).
--
-- Listed: each activated unit's regular moves, one unit at a time, to every hex its movement
-- search reaches (5.1, 5.2, 4.1), that it may end in (5.2.5 transit, 5.2.6 water, 6.0
-- stacking) and that holds no enemy unit (5.3); one attack on each enemy stack with every
-- activated unit that may join it, when the odds reach 1:2 (8.0-8.4, the same odds the attack
-- works out); each attacker's advance alone into the hex an attack vacated (10.0); and `next`.
-- Not listed yet: stacks moving together, strategic and rail moves (5.4, 5.5), overruns of lone
-- HQs (5.6), air support (13.0), advances of a second hex (10.3) or of an HQ with its stack
-- (12.2.4), bombardments (8.5), Volksturm (12.4), replacements (7.3), withdrawals (12.6, 16.1)
-- and exits (14.2.1): each may be typed; the list leaves out what it cannot check beforehand
-- rather than offer one the rules refuse.
local T = require "tables"
local C = require "common"
local zoc = require "zoc"
local movement = require "movement"
local combat = require "combat"
local advance = require "advance"
local command = require "command"
local air = require "air"
local sets = require "sets"     -- rulesets/lib
local checks = require "checks" -- rulesets/lib

local M = {}

-- 5.1: may `u` move now, alone and by regular movement? (the verb's own checks)
local function may_move(u)
  return u.hex ~= nil and checks.passes(function(check) movement.check_mover(u, u.hex, false, check) end)
end

-- 6.0, 6.3 for a unit moving alone into `h` (not its own hex): what movement.stacking_problem
-- checks, counted once per call from the stacks (two combat units, a Festung not counted; one HQ).
-- Returns, for a unit, the set of hexes it may not end in (made once per kind of unit).
local function stacking(stacks)
  local combat, hqs = {}, {}
  for h, stack in pairs(stacks) do
    for _, u in ipairs(stack) do
      if C.is_combat(u) and not u:attr("festung") then combat[h] = (combat[h] or 0) + 1 end
      if C.is_hq(u) then hqs[h] = (hqs[h] or 0) + 1 end
    end
  end
  local full = {}
  -- at most 2 combat units and 1 HQ with `u` (T.stacking)
  return function(u)
    local max_c = T.stacking.combat - ((C.is_combat(u) and not u:attr("festung")) and 1 or 0)
    local max_q = T.stacking.hq - (C.is_hq(u) and 1 or 0)
    local key = max_c * 10 + max_q
    if not full[key] then
      local set = {}
      for h, n in pairs(combat) do if n > max_c then set[h] = true end end
      for h, n in pairs(hqs) do if n > max_q then set[h] = true end end
      full[key] = set
    end
    return full[key]
  end
end

-- 5.3 / 5.6 / 12.2.6: the enemy-held hexes a move may not end in: all of them, but those holding
-- only an enemy HQ for units that may overrun it (the move the verb accepts)
local function ends_barred(side, enemy, overrun, stacks)
  if not overrun then return enemy end
  local barred = {}
  for h in pairs(enemy) do
    if not movement.lone_hq(h, side, stacks) then barred[h] = true end
  end
  return barred
end

---@param side string
---@param opts table the options of umpire.actions
---@param out table the list being made
local function moves(side, opts, out)
  -- only units with a marker of 3.3.5 may move (check_mover asks command.is_active)
  local movers = {}
  for _, u in ipairs(units.all { on_map = true, marked = command.ACTIVE_MARKERS }) do
    if (opts.unit == nil or opts.unit == u.id) and may_move(u) then movers[#movers + 1] = u end
  end
  if #movers == 0 then return end
  local stacks = units.stacks()
  local full_of = stacking(stacks)
  local transit = sets.set_of(map.having("transit"))                 -- 5.2.5: pass through only
  -- each side's EZOC and enemy hexes found once per call
  local of_side = {}
  ---@param s string a side
  ---@param overrun boolean
  ---@return table opts of movement.profile
  local function side_opts(s, overrun)
    if not of_side[s] then
      local ez = zoc.ezoc(s, stacks)
      local enter, leave = zoc.costs(ez)
      of_side[s] = { ezoc = ez, enter = enter, leave = leave, enemy = C.occupied(C.other(s)) }
    end
    local o = of_side[s]
    return { overrun = overrun, ezoc = o.ezoc, enter = o.enter, leave = o.leave, enemy = o.enemy, stacks = stacks }
  end
  -- the side's profile made once per call (its EZOC and blocked hexes are the side's), with and
  -- without the overrun of lone HQs; the searches of the units with the same profile are one
  -- call (each from its hex with its allowance): the units that may overrun first
  local runs, keys = {}, {}
  for _, u in ipairs(movers) do
    local overrun = C.is_combat(u) and C.attack(u) > 0
    local key = (overrun and "+" or "-") .. u.side
    if not runs[key] then
      local o = side_opts(u.side, overrun)
      runs[key] = { profile = movement.profile(u.side, u.hex, 0, o), enemy = ends_barred(u.side, o.enemy, overrun, stacks) }
      keys[#keys + 1] = key
    end
    local run = runs[key]
    run[#run + 1] = { unit = u.id, from = u.hex, mp = movement.allowance(u), exclude = full_of(u) }
  end
  table.sort(keys)
  for _, key in ipairs(keys) do
    -- every hex a search reaches but enemy-held, transit-only and full ones (water is prohibited
    -- terrain in the profile: the search never reaches it, 5.2.6)
    local run = runs[key]
    out[#out + 1] = map.moves(run.profile, { units = run, cmd = "move {unit} {hex}", group = "move",
      note = "{cost} MP", exclude = { run.enemy, transit } })
  end
end

-- 8.0, 4.6, 3.3.5, 8.3.1, 8.1.2, 19.1.3: may `u` join an attack on `hex` now? (the attack's own
-- checks on each unit)
local function may_attack(u, side, hex)
  return checks.passes(function(check) combat.check_attacker(u, side, hex, check) end)
end

---@param side string
---@param out table the list being made
local function attacks(side, out)
  -- only units with a marker of 3.3.5 may attack (check_attacker asks command.is_active)
  local active = {}
  for _, u in ipairs(units.all { on_map = true, marked = command.ACTIVE_MARKERS }) do active[u.id] = true end
  if next(active) == nil then return end
  local stacks = units.stacks()
  local done = {}
  for _, h in ipairs(vars.get("attacked_hexes") or {}) do done[h] = true end
  local no_air = air.parse(side, {})
  for hex, stack in pairs(stacks) do
    if not done[hex] and stack[1].side ~= side then
      local with, ids = {}, {}
      for _, n in ipairs(map.neighbours(hex)) do
        for _, u in ipairs(stacks[n] or {}) do
          if active[u.id] and may_attack(u, side, hex) then with[#with + 1] = u; ids[#ids + 1] = u.id end
        end
      end
      -- the attack's own checks and odds (a refusal, 8.0 or 1.1.3, leaves it out)
      if #with > 0 and pcall(combat.odds, hex, with, no_air) then
        out[#out + 1] = { cmd = ("attack %s with %s"):format(hex, table.concat(ids, ",")), group = "attack",
          units = ids, hex = hex }
      end
    end
  end
end

-- 10.0: after an attack vacated a hex, each attacker that may advance into it alone (the verb's
-- own checks: advance.check_advance)
---@param opts table the options of umpire.actions
---@param out table the list being made
local function advances(opts, out)
  local adv = vars.get("advance")
  if not adv then return end
  for _, id in ipairs(adv.units) do
    local u = units.get(id)
    if u and (opts.unit == nil or opts.unit == id)
        and checks.passes(function(check) advance.check_advance({ u }, nil, check) end) then
      out[#out + 1] = { cmd = "advance " .. id, group = "advance", unit = id, hex = adv.hex }
    end
  end
end

function M.list(side, opts)
  local out = {}
  local step = umpire.clock().step
  if step == "movement" or step == "reinforcement" or step == "arrivals" then moves(side, opts, out) end
  if step == "combat" then
    advances(opts, out)
    attacks(side, out)
  end
  out[#out + 1] = "next"
  return out
end

return M
