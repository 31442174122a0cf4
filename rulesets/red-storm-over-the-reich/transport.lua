-- Red Storm over the Reich 10.8.1 and 10.8.2: German sea movement (sea transport from port to
-- port, refugee evacuation on the Evacuation Table) and rail movement (Entrained markers placed in
-- the Strategic Segment, up to 25 hexes a movement segment along friendly railroads connected to a
-- supply source, detraining in the Detrain Segments or when hit).
local C = require "common"
local T = require "tables"
local zoc = require "zoc"
local supply = require "supply"
local stacking = require "stacking"
local control = require "control"

local M = {}

-- 10.8.2, 17.5: Entrained markers in the game (6; two gone for good from turn 4).
function M.markers_total()
  return T.rail.entrained - (vars.get("thunderclap_done") and T.rail.thunderclap_removed or 0)
end

function M.entrained()
  local out = {}
  for _, u in ipairs(units.all { side = C.GERMAN, on_map = true }) do
    if u:marker("entrained") then out[#out + 1] = u end
  end
  return out
end

umpire.command {
  usage = "entrain <units>",
  help = "German: put Entrained markers on artillery, mechanized or infantry units in railroad hexes (6 markers; 4 from turn 4)",
  example = "entrain 19PZ,4PZART",
  rule = "10.8.2", phases = { "ger_strategic" },
  run = function(list)
    local have = #M.entrained()
    umpire.check(have + #list <= M.markers_total(), "10.8.2", "%d Entrained markers: %d in use, %d more asked", M.markers_total(), have, #list)
    for _, u in ipairs(list) do
      umpire.check(u.side == C.GERMAN and u.hex ~= nil, "10.8.2", "%s is not a German unit on the map", u.id)
      umpire.check(C.is_artillery(u) or C.is_mech(u) or C.is_infantry(u), "10.8.2", "%s is not an artillery, mechanized or infantry unit", u.id)
      umpire.check(C.RAIL[u.hex], "10.8.2", "%s is not in a railroad hex", u.id)
      umpire.check(not u:marker("entrained"), "10.8.2", "%s is entrained already", u.id)
      umpire.check(not u:marker("immobile"), "10.8.1.B", "%s came by sea: it may not move this Assault Phase", u.id)
      u:set_marker("entrained", 1)
    end
    log.rule("10.8.2", ("%s entrained (%d of %d markers): no ZOC; rail moves of up to %d hexes in the German movement segments"):format(
      C.ids(list), have + #list, M.markers_total(), T.rail.hexes))
  end,
}

local RAIL_SEGMENTS = { "ger_assault", "ger_exploit", "ger_redeploy" }

-- 10.8.2: whether rail movement may be made now (a German movement segment that allows it).
function M.rail_now()
  return C.contains(RAIL_SEGMENTS, umpire.clock().step)
end

-- 10.8.2: what a rail move may use: the German rail net (friendly railroad linked to a supply
-- source), the Soviet ZOC (friendly units do not negate it for rail movement), and the hexes a
-- rail move may not pass (railroad off the net, the Soviet ZOC, Soviet units).
local function rail_blocked()
  local net, ez, blocked = supply.rail_net(C.GERMAN), zoc.zoc(C.SOVIET), {}
  for h in pairs(C.RAIL) do if not net[h] then blocked[h] = true end end
  for h in pairs(ez) do blocked[h] = true end
  for _, v in ipairs(C.on_map(C.SOVIET)) do blocked[v.hex] = true end
  return net, ez, blocked
end

-- 10.8.2: the railroad hexes the entrained German unit `u` may move to by rail (the `rail`
-- verb's search: up to 25 hexes of friendly railroad linked to a supply source, never into a
-- Soviet ZOC nor through one, within the stacking limits), sorted. `known` keeps the rail net and
-- the hexes blocked for the units of one list.
---@param u UnitRef
---@param known? table
---@return string[]
function M.rail_destinations(u, known)
  known = known or {}
  if not known.net then known.net, known.ez, known.blocked = rail_blocked() end
  local net, ez, blocked = known.net, known.ez, known.blocked
  local hexes = {}
  if not net[u.hex] then return hexes end
  -- (the unit's own hex is never blocked: it may leave a Soviet ZOC)
  local own = blocked[u.hex]
  blocked[u.hex] = nil
  local reach = map.reach { from = u.hex, mp = T.rail.hexes, paths = { railroad = 1 }, paths_only = true, blocked = blocked, routes = false }
  blocked[u.hex] = own
  -- (pairs walks the hexes in the order of their ids: the list is sorted)
  for h in pairs(reach) do
    if h ~= u.hex and C.RAIL[h] and not ez[h] and stacking.room(h, u) then hexes[#hexes + 1] = h end
  end
  return hexes
end

umpire.command {
  usage = "rail <unit> <hex>",
  help = "German: move an entrained unit by rail up to 25 hexes along friendly railroads linked to a supply source, never into a Soviet ZOC",
  example = "rail 19PZ 0425",
  rule = "10.8.2", phases = RAIL_SEGMENTS,
  run = function(u, to)
    umpire.check(u.side == C.GERMAN and u.hex ~= nil, "10.8.2", "%s is not a German unit on the map", u.id)
    umpire.check(u:marker("entrained"), "10.8.2", "%s is not entrained (entrain it in the Strategic Segment)", u.id)
    umpire.check(not u:marker("moved"), "10.4.A", "%s has moved this segment", u.id)
    local from = u.hex
    umpire.check(from ~= to, "10.8.2", "%s is already in %s", u.id, to)
    local net, ez, blocked = rail_blocked()
    umpire.check(net[from], "10.8.2", "%s in %s is not on a friendly railroad linked to a supply source", u.id, from)
    umpire.check(C.RAIL[to], "10.8.2", "%s is not a railroad hex", to)
    blocked[from] = nil   -- (it may leave a Soviet ZOC)
    if ez[to] then umpire.refuse("10.8.2", ("%s is in a Soviet ZOC: entrained units may leave one but not enter one"):format(to)) end
    local cost, path = map.route({ from = from, mp = T.rail.hexes, paths = { railroad = 1 }, paths_only = true, blocked = blocked }, to)
    if not cost then
      local far = map.route({ from = from, paths = { railroad = 1 }, paths_only = true, blocked = blocked }, to)
      if far then umpire.refuse("10.8.2", ("%s is %d rail hexes from %s: at most %d a segment"):format(to, far, from, T.rail.hexes)) end
      umpire.refuse("10.8.2", ("no friendly railroad from %s to %s (linked to a supply source, clear of Soviet units and ZOCs%s)"):format(
        from, to, umpire.clock().turn == T.thunderclap_turn and ", not through Dresden this turn (17.5)" or ""))
    end
    umpire.check(stacking.room(to, u), "5.1", "%s would overstack %s at the end of the segment", u.id, to)
    u:move_to(to)
    u:set_marker("moved", 1)
    log.rule("10.8.2", ("%s moves by rail %s → %s (%s)"):format(u.id, from, to, C.count(cost, "rail hex", "rail hexes")))
    local hexes = {}
    for i = 2, #path do hexes[#hexes + 1] = path[i] end
    control.passed(hexes, C.GERMAN, { u })
  end,
}

umpire.command {
  usage = "detrain <units>",
  help = "German: take the Entrained markers off units (in a Detrain Segment)",
  example = "detrain 19PZ",
  rule = "10.8.2", phases = { "ger_detrain", "ger_detrain_x", "ger_detrain_r" },
  run = function(list)
    for _, u in ipairs(list) do
      umpire.check(u:marker("entrained"), "10.8.2", "%s is not entrained", u.id)
      u:set_marker("entrained", nil)
    end
    log.rule("10.8.2", ("%s detrained"):format(C.ids(list)))
  end,
}

-- 10.8.2: entrained units attacked or overrun by Soviet units defend normally but lose their
-- Entrained markers (a barrage with a result other than "-" does it too: barrage.apply). For
-- combat.lua and overrun.lua to call with the defending German units; `why` says what hit them.
function M.detrain_hit(list, why)
  local off = {}
  for _, u in ipairs(list) do
    if u:marker("entrained") then u:set_marker("entrained", nil); off[#off + 1] = u end
  end
  if #off > 0 then
    log.rule("10.8.2", ("%s %s: detrained involuntarily (Entrained markers removed)"):format(C.ids(off), why or "attacked"))
  end
  return off
end

-- 10.8.2: an entrained unit may not attack or overrun (for combat.lua and overrun.lua).
function M.check_may_attack(u, what)
  umpire.check(not u:marker("entrained"), "10.8.2", "%s is entrained: it may not %s", u.id, what or "attack")
end

-- 4.2.III.j: the German Detrain Segment also takes off every German Immobile marker.
function M.detrain_segment_end()
  local freed = {}
  for _, u in ipairs(units.all { side = C.GERMAN }) do
    if u:marker("immobile") then u:set_marker("immobile", nil); freed[#freed + 1] = u end
  end
  if #freed > 0 then log.rule("4.2.III.j", ("Immobile markers removed: %s"):format(C.ids(freed))) end
end

-- 10.8.1: a ready Sea Transport in the German holding box.
function M.ready_transport()
  for _, t in ipairs(units.in_box("german_box")) do
    if C.is_transport(t) and not t:marker("used") then return t end
  end
  return nil
end

local function friendly_port(h) return C.PORT[h] and C.controller(h) == C.GERMAN and #C.at(h, C.SOVIET) == 0 end

umpire.command {
  usage = "sea <unit> <port:hex>",
  help = "German: carry a combat unit that began the Strategic Segment in a port to another friendly port (one Sea Transport; the unit is then Immobile for the Assault Phase)",
  example = "sea 7PZ Stettin",
  rule = "10.8.1.B", phases = { "ger_strategic" },
  run = function(u, to)
    umpire.check(u.side == C.GERMAN and C.is_combat(u) and u.hex ~= nil, "10.8.1.B", "%s is not a German combat unit on the map", u.id)
    umpire.check(C.PORT[u.hex], "10.8.1.B", "%s is not in a port", u.id)
    umpire.check(not u:marker("moved"), "10.8.1.B", "%s has moved this segment", u.id)
    umpire.check(not u:marker("entrained"), "10.8.2", "%s is entrained: no sea movement", u.id)
    umpire.check(to ~= u.hex, "10.8.1.B", "%s is already in %s", u.id, to)
    umpire.check(friendly_port(to), "10.8.1.B", "%s is not a German-controlled port", to)
    umpire.check(stacking.room(to, u), "5.1", "%s would overstack %s", u.id, to)
    local t = M.ready_transport()
    umpire.check(t, "10.8.1", "no ready Sea Transport is in the holding box")
    local from = u.hex
    u:move_to(to)
    u:set_marker("immobile", 1)
    u:set_marker("moved", 1)
    t:set_marker("used", 1)
    log.rule("10.8.1.B", ("%s sails %s → %s on %s: Immobile for the rest of the Assault Phase"):format(u.id, from, to, t.id))
  end,
}

umpire.command {
  usage = "evacuate <unit>",
  help = "German: try to evacuate a refugee unit that began the Strategic Segment in a port (a Sea Transport and a die on the Evacuation Table)",
  example = "evacuate REF_THORN",
  rule = "10.8.1.C", phases = { "ger_strategic" },
  run = function(r)
    umpire.check(C.is_refugee(r) and r.hex ~= nil, "10.8.1.C", "%s is not a refugee unit on the map", r.id)
    umpire.check(C.PORT[r.hex], "10.8.1.C", "%s is not in a port (Königsberg is none)", r.id)
    umpire.check(not r:marker("moved"), "10.8.1.C", "%s has moved this segment", r.id)
    local hex = r.hex
    local t
    for _, x in ipairs(C.at(hex, C.GERMAN, C.is_transport)) do t = x end   -- one there from a delay
    t = t or M.ready_transport()
    umpire.check(t, "10.8.1", "no Sea Transport is ready in the holding box or waiting in %s", hex)
    local die = dice.d6("evacuation of " .. r.id)
    local result = T.evacuation[die]
    if result == "success" then
      r:put_in("evacuated")
      t:put_in("removed")
      log.rule("10.8.1.C", ("evacuation of %s from %s, die %d: successful — %s and %s leave the game; 1 VP to the German (3.5.C)"):format(r.id, hex, die, r.id, t.id))
    elseif result == "delayed" then
      t:move_to(hex)
      t:set_marker("used", 1)
      r:set_marker("moved", 1)
      log.rule("10.8.1.C", ("evacuation of %s from %s, die %d: delayed — %s waits in the port (Used) to try again next turn"):format(r.id, hex, die, t.id))
    else
      r:put_in("eliminated")
      t:put_in("eliminated")
      log.rule("10.8.1.C", ("evacuation of %s from %s, die %d: sunk — %s and %s are eliminated, no VP"):format(r.id, hex, die, r.id, t.id))
    end
  end,
}

return M
