-- Stargard Solstice 7.0 Reinforcements, 7.3 Replacements, 12.4 Volksturm, 19.1.5 Corps Tettau,
-- 19.1.3 Defend the Reich.
local T = require "tables"
local C = require "common"
local zoc = require "zoc"
local command = require "command"
local movement = require "movement"
local combat = require "combat"
local supply = require "supply"
local air = require "air"
local victory = require "victory"
local M = {}

-- 7.1.2: where a reinforcement may be placed: its entry hexes not occupied by the enemy nor in
-- an EZOC (friendly units do not negate it); if all are blocked, within 10 hexes along the same
-- map edge (5 hexes, in any direction, for an interior entry point), nearest first.
-- `area` is an area name or a list of hexes (a fixed entry hex such as the 163rd's 37.21).
-- `known` may carry the side's EZOC and enemy hexes ({ezoc=, enemy=}) when placing many units.
---@param side string
---@param area string|Umpire.Hex[]
---@param known? table
---@return Umpire.Hex[] hexes
---@return string rule
function M.entry_hexes(side, area, known)
  local hexes = type(area) == "table" and area or map.area(area) or {}
  local ez = known and known.ezoc or zoc.ezoc(side)
  local enemy = known and known.enemy or C.occupied(C.other(side))
  local ok = {}
  for _, h in ipairs(hexes) do
    if not ez[h] and not enemy[h] and map.terrain(h) ~= "lake" then ok[#ok + 1] = h end
  end
  if #ok > 0 or #hexes == 0 then return ok, "7.1" end
  local edge
  for _, e in ipairs { "edge:N", "edge:S", "edge:E", "edge:W" } do
    if map.in_area(e, hexes[1]) then edge = e end
  end
  local range = edge and 10 or 5
  local order = {}
  for i, h in ipairs(map.within(hexes[1], range)) do
    if (not edge or map.in_area(edge, h)) and not ez[h] and not enemy[h] and map.terrain(h) ~= "lake" then
      ok[#ok + 1] = h
      order[h] = i
    end
  end
  -- nearest to the entry hex first (ties in the map's order)
  table.sort(ok, function(a, b)
    local da, db = map.distance(hexes[1], a), map.distance(hexes[1], b)
    if da ~= db then return da < db end
    return order[a] < order[b]
  end)
  return ok, "7.1.2"
end

-- Places a unit at the first free entry hex (stacking 6.2 may be exceeded on placement);
-- 7.1.3: a unit that cannot enter at all is eliminated.
---@param u UnitRef
---@param area string|Umpire.Hex[]
---@param known? table
---@return boolean placed
function M.place(u, area, known)
  local options, rule = M.entry_hexes(u.side, area, known)
  if #options == 0 then
    u:put_in("dead")
    log.rule("7.1.3", u.id .. " cannot enter the map and is eliminated")
    return false
  end
  -- the first entry hex with room (6.0); if none, the first one (6.2: overstacking is allowed on
  -- placement, but must be mended by the end of the segment)
  local where = options[1]
  for _, h in ipairs(options) do
    if not movement.stacking_problem(h, { u }) then where = h break end
  end
  u:move_to(where)
  u:set_marker("reinforcement", 1)
  log.rule(rule, ("%s enters at %s (entry %s)"):format(u.id, where, type(area) == "table" and table.concat(area, ",") or area))
  return true
end

-- 6.2 / 7.1: once the reinforcements are placed, each hex they overstack is named with what
-- follows: it must be legal when their movement ends, or 6.2.1 applies there.
function M.warn_overstacks()
  local seen = {}
  for _, u in ipairs(units.all { on_map = true, marked = { "reinforcement" } }) do
    local h = u.hex
    if not seen[h] then
      seen[h] = true
      local n = 0
      for _, x in ipairs(units.at(h)) do if C.is_combat(x) and not x:attr("festung") then n = n + 1 end end
      if n > T.stacking.combat then
        log.rule("6.2", ("%s holds %d combat units, over the limit of %d (6.0): allowed on placement, but unless it is within the limit when the reinforcements' movement ends, its strongest unit loses a step and retreats one hex, or is eliminated (6.2.1)"):format(
          h, n, T.stacking.combat))
      end
    end
  end
end

-- 2.5 Reinforcement segment: units due this turn enter at their entry area; the chits of HQs
-- arriving go to the cup for the next turn (7.2, 7.2.1).
function M.phase()
  local turn = umpire.clock().turn
  local arriving = vars.get("reactive_arrivals") or {}
  -- placing friendly units changes neither side's view of the enemy: computed once
  local known = {}
  for _, side in ipairs { "German", "Soviet" } do
    known[side] = { ezoc = zoc.ezoc(side), enemy = C.occupied(C.other(side)) }
  end
  for _, u in ipairs(units.in_box("reinforcements")) do
    local due = (u:attr("arrives") == turn or C.contains(arriving, u.id)) and not u:attr("option")
    if due then
      local area = u:attr("entry")
      if area == "source" then area = u.side == "German" and "supply_german" or "supply_soviet" end
      if area and map.area(area) == nil and map.area("entry_" .. area) then area = "entry_" .. area end
      if u.kind == "air" then
        u:put_in(air.home[u.side])
        log.rule("7.0", u.id .. " (air) joins its air box")
      elseif area then
        M.place(u, area, known[u.side])
      else
        -- a fixed entry hex (15.3, e.g. the 163rd at 37.21): 7.1.2 applies to it like an entry
        -- area; when it is held or covered by the enemy, the unit shifts (M.place)
        local hex = u:attr("hex")
        local k = known[u.side]
        if k.ezoc[hex] or k.enemy[hex] then
          M.place(u, { hex }, k)
        else
          u:move_to(hex)
          u:set_marker("reinforcement", 1)
          log.rule("7.0", u.id .. " arrives at " .. hex)
        end
      end
      -- 7.2 (not for an HQ coming back after 12.2.2, whose chit never left the game)
      local chit_known = false
      if u.kind == "hq" and u:attr("chit") then
        for _, box in ipairs { "chits", "drawn_German", "drawn_Soviet", "set_aside" } do
          if C.contains(cups.contents(box), u:attr("chit")) then chit_known = true end
        end
      end
      if u.kind == "hq" and u:attr("chit") and not chit_known then
        local next_chits = vars.get("next_turn_chits") or {}
        next_chits[#next_chits + 1] = u:attr("chit")
        vars.set("next_turn_chits", next_chits)
        log.rule("7.2", u:attr("chit") .. " chit goes into the cup for the next turn")
      end
    end
  end
  vars.set("reactive_arrivals", nil)
  M.warn_overstacks()
  -- 16.3: with the option, the 234/80 replaces the 234/77 exactly (place, step, markers)
  if umpire.option("op16_3") then
    for _, u in ipairs(units.all { attr = { option = "op16_3" } }) do
      local old = units.find(u:attr("replaces") or "")
      if u:attr("swap_turn") == turn and old and u.box == "reinforcements" then
        if old.hex then
          u:move_to(old.hex)
          u:set_step(old.step)
          for name, v in pairs(old:markers()) do u:set_marker(name, v) end
          old:put_in("withdrawn")
          log.rule("16.3", u.id .. " replaces " .. old.id .. " in " .. u.hex)
        else
          u:put_in("withdrawn")
          log.rule("16.3", old.id .. " has been eliminated: no exchange")
        end
      end
    end
  end
  for _, c in ipairs(vars.get("arriving_chits") or {}) do
    if c.turn == turn then
      local next_chits = vars.get("next_turn_chits") or {}
      next_chits[#next_chits + 1] = c.chit
      vars.set("next_turn_chits", next_chits)
      log.rule("7.2.1", c.chit .. " chit goes into the cup for the next turn")
    end
  end
  umpire.set_side(nil)
end

-- 6.2.1: in each hex over the combat-unit limit, the strongest unit (attack; Festungs do not
-- count) loses a step and retreats one hex, or is eliminated if it cannot, until the hex is legal.
local function combat_units_in(hex)
  local n = 0
  for _, x in ipairs(units.at(hex)) do if C.is_combat(x) and not x:attr("festung") then n = n + 1 end end
  return n
end

function M.mend_overstacks()
  for h in pairs(units.stacks()) do
    while combat_units_in(h) > T.stacking.combat do
      local strongest
      for _, x in ipairs(units.at(h)) do
        if C.is_combat(x) and not x:attr("festung") and (not strongest or C.attack(x) > C.attack(strongest)) then strongest = x end
      end
      log.rule("6.2.1", ("%s is overstacked: %s loses a step and retreats one hex"):format(h, strongest.id))
      local gone = strongest:lose_steps(1)
      if gone then
        combat.eliminate(strongest, "6.2.1")
      else
        combat.retreat({ strongest }, 1, h, "6.2.1")
        if strongest.hex == h then
          combat.eliminate(strongest, "6.2.1")
        end
      end
    end
  end
end

-- End of the reinforcement segment: reinforcements must now be legally stacked (6.2, 7.1).
function M.end_of_reinforcements()
  for _, u in ipairs(units.all { on_map = true }) do
    if u:marker("reinforcement") then u:set_marker("reinforcement", nil) end
  end
  M.mend_overstacks()
end

-- 19.1.5: Corps Tettau arrives at H (BÄRW units and the HQ) and I (POM units), one die per
-- unit: 1 lost, 2-4 reduced, 5-6 full; then the 2nd Guards Cavalry Corps at H; then the Tettau
-- chit goes into the cup (usable this turn).
function M.tettau()
  if vars.get("tettau_arrived") then return end
  vars.set("tettau_arrived", true)
  for _, u in ipairs(units.in_box("tettau")) do
    local area = u:attr("entry") or "H"
    if not map.area(area) and map.area("entry_" .. area) then area = "entry_" .. area end
    if u.kind == "hq" then
      M.place(u, area)
      if u:attr("chit") then cups.add("chits", u:attr("chit")) end
    else
      local r = T.tettau_die[dice.roll("1d6", "Tettau arrival of " .. u.id)]
      if r == "lost" then
        u:put_in("dead")
        log.rule("19.1.5", u.id .. " is lost on the way")
      else
        if r == "reduced" and u.steps > 1 then u:set_step(2) end
        if M.place(u, area) then u:set_marker("no_strategic", 1) end
        log.rule("19.1.5", ("%s arrives at %s strength"):format(u.id, r))
      end
    end
  end
  M.warn_overstacks()
  -- the German moves Tettau's units first; the cavalry enters when that movement is over
  vars.set("arrivals_side", "German")
  log.rule("19.1.5", "Corps Tettau has arrived and moves now; the Tettau chit is in the cup")
end

-- End of a 19.1.5 arrival movement: after Tettau's, the 2nd Guards Cavalry Corps enters at H and
-- moves; after the cavalry's, play goes on.
function M.end_of_arrivals()
  for _, u in ipairs(units.all { on_map = true }) do
    if u:marker("reinforcement") then u:set_marker("reinforcement", nil) end
    if u:marker("no_strategic") and u.side == vars.get("arrivals_side") then u:set_marker("no_strategic", nil) end -- only on arrival
  end
  M.mend_overstacks()   -- 19.1.5: arrivals are reinforcements, 6.2 at the end of their movement
  if vars.get("arrivals_side") == "German" and #units.in_box("gcc2") > 0 then
    for _, u in ipairs(units.in_box("gcc2")) do
      if M.place(u, map.area("entry_H") and "entry_H" or "H") then u:set_marker("no_strategic", 1) end
    end
    M.warn_overstacks()
    log.rule("19.1.5", "the 2nd Guards Cavalry Corps enters at H and moves")
    vars.set("arrivals_side", "Soviet")
  else
    vars.set("arrivals_side", nil)
  end
end

-- 19.1.3 Defend the Reich: the listed divisions and the 39th Panzer Corps HQ must leave via
-- Stettin (07.16) by the end of next turn; their chit leaves the cup; no more attacks; Munzel's
-- range drops to 6.
M.reich_formations = { "10SS", "4SS", "28SS", "FB", "FG", "233" }
function M.defend_the_reich(turn)
  if vars.get("defend_reich") then return end
  vars.set("defend_reich", { turn = turn })
  for _, u in ipairs(units.all { side = "German" }) do
    local id = u.id
    for _, f in ipairs(M.reich_formations) do
      if id:sub(-#f - 1) == "/" .. f then u:set_attr("withdrawing", true) u:set_marker("no_attack", 1) end
    end
  end
  local hq = units.find("39-Pz-HQ")
  if hq then
    hq:set_attr("withdrawing", true)
    if hq:attr("chit") then cups.remove("chits", hq:attr("chit")) end
  end
  -- 19.1.3: a withdrawing unit already in 07.16 has reached it: picked up at once (DATA.md)
  for _, u in ipairs(units.at("07.16")) do
    if u:attr("withdrawing") then
      u:put_in("withdrawn")
      log.rule("19.1.3", u.id .. " is in 07.16 and is withdrawn")
    end
  end
  local munzel = units.find("Munzel-HQ")
  if munzel then
    munzel:set_attr("range", 6)           -- the reduced counter
    log.rule("19.1.3", "Munzel HQ's command range drops from 8 to 6")
  end
  log.rule("19.1.3", "Defend the Reich: the divisions must leave via Stettin (07.16) by the end of next turn")
end

-- 2.6: at the end of the turn after the event, withdrawing units still on the map are
-- eliminated and give the Soviet player 1 VP each (14.3.2).
---@param turn integer
function M.reich_deadline(turn)
  local d = vars.get("defend_reich")
  if not d or d.turn + 1 ~= turn then return end
  local n = 0
  for _, u in ipairs(units.all { side = "German", on_map = true, attr = { withdrawing = true } }) do
    u:put_in("dead")
    n = n + 1
  end
  if n > 0 then
    victory.adjust(n, "Defend the Reich (14.3.2)")
    log.rule("14.3.2", ("%d withdrawing unit%s still on the map: eliminated, %d VP to the Soviet player"):format(n, n > 1 and "s" or "", n))
  end
end

-- 12.4 / 2.5.2: a Volksturm unit is placed in a German-controlled town or city at least 5 hexes
-- from any Soviet unit, alone, not behind Soviet lines.
---@param u UnitRef
---@param hex Umpire.Hex
function M.volksturm(u, hex)
  umpire.check(u:attr("volksturm") and u.box == "volksturm", "12.4", "%s is not in the Volksturm box", u.id)
  local t = map.terrain(hex)
  umpire.check(t == "town" or t == "city" or map.has(hex, "village"), "2.5.2", "%s is not a town, village or city", hex)
  umpire.check(not map.marker(hex, "soviet_vp"), "2.5.2", "%s is not German-controlled", hex)
  for _, s in ipairs(units.all { side = "Soviet", on_map = true }) do
    umpire.check(map.distance(s.hex, hex) >= 5, "12.4", "%s is only %s from %s (5 needed)", hex, C.count(map.distance(s.hex, hex), "hex", "hexes"), s.id)
  end
  umpire.check(#units.at(hex) == 0, "12.4", "Volksturm units may not be stacked with other units")
  -- 12.4 / 2.5.2: not behind the Soviet front line. INTERPRETATION (the rulebook does not define
  -- the front line): a hex is behind Soviet lines when no German supply line (11.1) can be traced
  -- to it from the unit's own supply sources (11.2), i.e. Soviet units and their ZOCs cut it off
  -- from the German rear. The 5-hex rule keeps the hex itself clear of Soviet ZOCs.
  local reach = supply.trace("German", C.sources(u), false, nil, { hex })
  umpire.check(reach[hex] ~= nil, "12.4", "%s is behind Soviet lines: no German supply line reaches it", hex)
  u:move_to(hex)
  log.rule("12.4", u.id .. " deploys in " .. hex)
end

-- 7.3 / 19.1.11 / 19.1.13: replacement points are kept in pools by kind, so that every point
-- keeps the kind it was granted with:
--  * the Soviet schedule points of the turn (7.3, 7.3.1: any unit, 2 RP a mechanized step), set
--    by the Soviet replacement segment in vars "rp" and dropped when it ends (7.3: not kept);
--  * each event's points (19.1.11 non-mechanized, 19.1.13 mechanized: 1 point, 1 step, for a
--    unit on the map, in supply, in command, not in an EZOC), in vars "rp_events", one pool per
--    event rule. They never merge with the schedule points (the segment's fresh points do not
--    overwrite them) nor with each other (a 19.1.11 point stays non-mechanized beside a 19.1.13
--    point). INTERPRETATION: the events give no expiry; 7.3 (replacements in general, which 7.3.4
--    extends to the German event points) forbids keeping them, so an event's points lapse at
--    the end of the turn they are granted (pools of an earlier turn are ignored and dropped).
-- vars "rp"[side] also carries a summary for display and older scripts: points (all pools),
-- and mech/rule when every pool agrees.
local function schedule_points(side)
  local r = (vars.get("rp") or {})[side]
  if not r then return 0 end
  if r.schedule ~= nil then return r.schedule end   -- the summary written below
  if r.rule == nil then return r.points or 0 end    -- set by the Soviet replacement segment (7.3)
  return 0
end

local function save_pools(side, schedule, events)
  local all = vars.get("rp_events") or {}
  local kept = {}
  local turn = umpire.clock().turn
  for _, p in ipairs(events) do if p.points > 0 and p.turn == turn then kept[#kept + 1] = p end end
  all[side] = kept
  vars.set("rp_events", all)
  local summary = { points = schedule, schedule = schedule }
  local kinds = {}
  if schedule > 0 then kinds[1] = { mech = nil, rule = nil } end
  for _, p in ipairs(kept) do
    summary.points = summary.points + p.points
    kinds[#kinds + 1] = { mech = p.mech, rule = p.rule }
  end
  if #kinds > 0 then
    summary.mech, summary.rule = kinds[1].mech, kinds[1].rule
    for _, k in ipairs(kinds) do
      if k.mech ~= summary.mech then summary.mech = nil end
      if k.rule ~= summary.rule then summary.rule = nil end
    end
  end
  local rp = vars.get("rp") or {}
  rp[side] = summary
  vars.set("rp", rp)
end

-- The pools a side may spend now: the event pools (in the order granted), then the schedule
-- points ({ points =, mech = true/false/nil, rule = "19.1.11"/"19.1.13"/nil }).
function M.rp_pools(side)
  local out = {}
  local turn = umpire.clock().turn
  for _, p in ipairs((vars.get("rp_events") or {})[side] or {}) do
    if p.turn == turn then out[#out + 1] = { points = p.points, mech = p.mech, rule = p.rule } end   -- 7.3
  end
  local s = schedule_points(side)
  if s > 0 then out[#out + 1] = { points = s, schedule = true } end
  return out
end

-- 19.1.11 / 19.1.13: an event grants `n` points of one kind (events.grant_rp).
function M.grant_points(side, n, mech, rule)
  local events = (vars.get("rp_events") or {})[side] or {}
  local turn = umpire.clock().turn
  local pool
  for _, p in ipairs(events) do if p.rule == rule and p.mech == mech and p.turn == turn then pool = p end end
  if pool then
    pool.points = pool.points + n
  else
    events[#events + 1] = { points = n, mech = mech, rule = rule, turn = turn }
  end
  save_pools(side, schedule_points(side), events)
end

M.rp_kinds = { ["7.3"] = true, ["19.1.11"] = true, ["19.1.13"] = true }

-- 7.3.2, 7.3.3: a Soviet unit of the dead pile (not with an event's point) is rebuilt on or next
-- to its HQ (on a Soviet supply source when it has none on the map), never in an EZOC: at full
-- strength for 2 RP, reduced for 1 (7.3.1; a mechanized unit one step a turn). Returns the RP.
---@param u UnitRef
---@param mine table the pool of points spent (M.rp_pools)
---@param mech boolean
---@param cost integer the RP of one step
---@param event boolean whether the point is an event's (19.1.11, 19.1.13)
---@return integer cost
local function rebuild(u, mine, mech, cost, event)
  umpire.check(u.side == "Soviet" and not event, "7.3.2", "%s cannot return from the dead pile", u.id)
  if u:attr("rebuild_hq") then
    local only = units.get(u:attr("rebuild_hq"))
    umpire.check(only and only.hex, "7.3.2", "%s may only be rebuilt by %s, which is not on the map", u.id, u:attr("rebuild_hq"))
  end
  local hq = units.get(u:attr("rebuild_hq") or u:attr("formation") or "")
  local ez = zoc.ezoc(u.side)
  local where
  if hq and hq.hex then
    -- 7.3.2 on or next to its HQ; 7.3.3 not in an EZOC
    local spots = { hq.hex }
    for _, n in ipairs(map.neighbours(hq.hex)) do spots[#spots + 1] = n end
    for _, h in ipairs(spots) do
      if not ez[h] and not movement.stacking_problem(h, { u }) and not C.occupied(C.other(u.side))[h] then
        where = h
        break
      end
    end
  else
    -- 7.3.2 on a Soviet supply source; 7.3.3 not in an EZOC; 6.0 within the stacking limit
    for _, h in ipairs(map.area("supply_soviet") or {}) do
      if not ez[h] and not C.occupied("German")[h] and not movement.stacking_problem(h, { u }) then where = h break end
    end
  end
  umpire.check(where ~= nil, "7.3.3", "there is no hex for %s: rebuilt units may not be placed in an EZOC", u.id)
  u:move_to(where)
  -- 7.3.1: a non-mechanized unit comes back at full strength for 2 RP (1 RP: reduced); a
  -- mechanized one regains one step a turn, for 2 RP
  if not mech and mine.points >= 2 then
    u:set_step(1)
    cost = 2
  else
    u:set_step(2)
  end
  log.rule("7.3.2", ("%s is rebuilt at %s, %s, for %d RP"):format(u.id, where, u.step == 1 and "full strength" or "reduced", cost))
  return cost
end

-- 7.3.1, 7.3.3 (19.1.11): a step back for a reduced unit on the map, not in an enemy ZOC.
---@param u UnitRef
---@param mine table the pool of points spent (M.rp_pools)
---@param event boolean whether the point is an event's (19.1.11, 19.1.13)
local function restore_step(u, mine, event)
  umpire.check(u.hex ~= nil and u.step > 1, "7.3", "%s has no lost step to replace", u.id)
  umpire.check(not zoc.ezoc(u.side)[u.hex], event and mine.rule or "7.3.3", "%s is in an enemy ZOC", u.id)   -- 7.3.3, 19.1.11
  u:restore_steps(1)
  log.rule("7.3.1", u.id .. " regains a step")
end

-- 7.3 / 19.1.11 / 19.1.13: spend a replacement point on a unit; `which` names the pool ("7.3",
-- "19.1.11", "19.1.13"); by default the first pool of the unit's kind (an event's point first,
-- except for a unit in the dead pile, which only the 7.3 points can bring back).
---@param u UnitRef
---@param which? string the kind of point: 7.3, 19.1.11 or 19.1.13
function M.replace(u, which)
  local pools = M.rp_pools(u.side)
  local total = 0
  for _, p in ipairs(pools) do total = total + p.points end
  umpire.check(total > 0, "7.3", "%s has no replacement points now", u.side)
  umpire.check(u.steps > 1, "7.3", "%s has one step: it cannot be rebuilt", u.id)
  local mech = C.is_mech(u)
  local mine
  if which then
    for _, p in ipairs(pools) do if (p.rule or "7.3") == which then mine = p end end
    umpire.check(mine ~= nil, "7.3", "%s has no %s replacement point now", u.side, which)
  else
    local fits = {}
    for _, p in ipairs(pools) do if p.mech == nil or p.mech == mech then fits[#fits + 1] = p end end
    mine = fits[1] or pools[1]
    if not u.hex then
      for _, p in ipairs(fits) do if p.schedule then mine = p end end
    end
  end
  local event = mine.rule ~= nil                                          -- 19.1.11 / 19.1.13
  if mine.mech ~= nil then
    umpire.check(mine.mech == mech, mine.rule or "7.3", "this replacement point is for a %smechanized unit", mine.mech and "" or "non-")
  end
  local cost = (mech and not event) and 2 or 1                            -- 7.3.1
  umpire.check(mine.points >= cost, "7.3.1", "a mechanized step costs 2 RP (%d left)", mine.points)
  local turn = umpire.clock().turn
  if mech and not event then
    umpire.check(u:attr("replaced_turn") ~= turn, "7.3.1", "a mechanized unit regains at most one step a turn")
  end
  if event then
    -- on the map, in supply, in command (activated or within its HQ's range), not in an EZOC
    umpire.check(u.hex ~= nil, mine.rule, "%s must be on the map", u.id)
    umpire.check(not u:marker("oos") and not u:marker("isolated"), mine.rule, "%s must be in supply", u.id)
    local hq = units.get(u:attr("formation") or "")
    local in_command = u:attr("independent") or (hq and hq.hex and command.in_range(hq, u))
    umpire.check(in_command, mine.rule, "%s must be in command", u.id)
  end
  if u.box == "dead" then
    cost = rebuild(u, mine, mech, cost, event)
  else
    restore_step(u, mine, event)
  end
  if mech then u:set_attr("replaced_turn", turn) end
  -- take the points from the pool spent
  local schedule = schedule_points(u.side)
  local events = (vars.get("rp_events") or {})[u.side] or {}
  if event then
    for _, p in ipairs(events) do
      if p.rule == mine.rule and p.mech == mine.mech and p.turn == turn then p.points = p.points - cost end
    end
  else
    schedule = schedule - cost
  end
  save_pools(u.side, schedule, events)
end

-- 7.3: the Soviet Replacements segment: the points of the turn's schedule (vars rp, spent by
-- `replace`), cleared when the segment ends.
function M.begin_soviet_replacements()
  local n = sides.get("Soviet", "replacement_points")[umpire.clock().turn]
  local rp = vars.get("rp") or {}
  rp.Soviet = { points = n }
  vars.set("rp", rp)
  log.rule("7.3", ("the Soviet player receives %s (replace <unit>)"):format(C.count(n, "replacement point")))
end

function M.end_soviet_replacements()
  local rp = vars.get("rp") or {} rp.Soviet = nil vars.set("rp", rp)
end

-- ------------------------------------------------------------------ verbs
umpire.command {
  usage = "volksturm <unit> <hex>",
  help = "deploy a Volksturm unit from its box",
  rule = "12.4", phases = { "volksturm" },
  run = function(u, hex) M.volksturm(u, hex) end,
}

umpire.command {
  usage = "replace <unit> [<word>]",
  help = "spend a replacement point to restore a step; name the kind of point (7.3, 19.1.11 or 19.1.13) when a side holds several: by default the first of the unit's kind, an event's point first",
  example = "replace 65GT/9GT      replace 65GT/9GT 7.3",
  rule = "7.3, 19.1.11, 19.1.13", phases = { "replacements", "reinforcement" },
  run = function(u, which)
    umpire.check(which == nil or M.rp_kinds[which], "7.3", "%s is not a kind of replacement point (7.3, 19.1.11, 19.1.13)", tostring(which))
    M.replace(u, which)
  end,
}

return M
