-- Red Storm over the Reich 16 (and 13.4.C, 17.3.A): step losses and what they leave behind.
-- German infantry divisions have one step and a Kampfgruppe on the back; eliminated, they (and their
-- KGs) go to the KG pool (box and cup `kg_pool`) unless they cannot form a KG (out of supply,
-- attrition, overstacking: 16.1.C, 15.0, 5.3; DATA.md R43), and a Soviet "*" result flips one of
-- those eliminated in the hex to its KG (16.1.A). Mechanized divisions have two steps, and when eliminated by the
-- Soviet may be swapped for a mechanized KG from its holding box (the "third step", 16.1.B).
-- Garrisons (16.2), The Bunker, Zhukov's State Funeral (17.3.A).
local C = require "common"

local M = {}

-- 16.1.B: the six holding boxes.
M.KG_BOXES = { "kg1", "kg2", "kg3", "kg4", "kg5", "kg6" }

local function eliminate(u, why)
  u:put_in("eliminated")
  u:set_marker("disrupted", nil)
  u:set_marker("oos", nil)
  u:set_marker("entrained", nil)
  u:set_marker("immobile", nil)
  u:set_marker("fuel_shortage", nil)
  return why
end

-- 16.1.A: into the KG pool (the division counter, its KG face up when drawn).
local function to_pool(u)
  u:put_in("kg_pool")
  for _, m in ipairs { "disrupted", "oos", "entrained", "immobile", "used" } do u:set_marker(m, nil) end
  u:set_step(2)
  cups.add("kg_pool", u.id)
end

-- 16.1.B: a mechanized KG in its holding box, free to use (the box holds no division).
function M.free_mech_kg()
  for _, b in ipairs(M.KG_BOXES) do
    local inside = units.in_box(b)
    if #inside == 1 and inside[1]:attr("mech_kg") then return inside[1], b end
  end
  return nil
end

-- 16.1.A: a German infantry division (its KG on the back) or that KG, not a unit that began the
-- game as a KG.
local function pooled_kind(u)
  return u:attr("kg") ~= nil and not u:attr("starts_kg") and not u:attr("mech_kg")
end

-- 16.1.A, 16.1.C, 15.0, 5.3 (DATA.md R43): why an eliminated infantry division or KG may not go to
-- the KG pool (nil: it goes): it cannot form a KG, being out of supply (16.1.C; attrition's losses
-- are, 15.0) or eliminated for overstacking (5.3, 16.1.C). `no_kg`: the caller's reason.
local function barred_from_pool(u, no_kg)
  if no_kg then return no_kg end
  if u:marker("oos") then return "out of supply: it cannot form a KG, 16.1.C" end
  return nil
end

-- 16.1.A: an infantry division or its KG leaves the map: to the KG pool, or for good when barred.
local function infantry_out(u, no_kg)
  local name = u.id
  if u.step == 2 then
    name = u:attr("kg")
    if not name:match("^KG ") then name = "KG " .. name end   -- ("KG 371ID", not "KG KG 371ID")
  end
  local barred = barred_from_pool(u, no_kg)
  if barred then
    eliminate(u)
    return ("%s is eliminated for good, not to the KG pool (%s)"):format(name, barred), false
  end
  to_pool(u)
  return ("%s is eliminated (%s the KG pool, 16.1.A)"):format(name, u.id == name and "to" or "back to"), true
end

-- 5.3, 17.5: `u` is eliminated outright (not by steps): an infantry division or its KG goes to the
-- KG pool unless barred (`no_kg`: the reason, as for overstacking). Returns a text.
function M.eliminate_unit(u, no_kg)
  if pooled_kind(u) then return (infantry_out(u, no_kg)) end
  eliminate(u)
  return ("%s is eliminated"):format(u.id)
end

-- Takes one step from `u`. `ctx`: { combat = true when the loss comes from Soviet fire (a barrage,
-- a combat, an overrun), no_kg = the reason no KG may be formed (16.1.C: overstacking; 15.0:
-- attrition; 13.5: retreated into the hex), eliminated = a list the infantry divisions eliminated
-- into the pool are added to (for a "*" result) }. Returns a text saying what happened.
function M.lose_step(u, ctx)
  ctx = ctx or {}
  local hex = u.hex
  if C.is_leader(u) then
    u:put_in("removed")
    return ("%s is lost: a Soviet State Funeral (17.3.A)"):format(u.id)
  end
  -- 16.1.A: a unit that begins the game as a KG is gone for good when it takes a step loss
  if u:attr("starts_kg") and not u:attr("mech_kg") then
    eliminate(u)
    return ("%s is eliminated (it began the game as a KG: permanently, 16.1.A)"):format(u.id)
  end
  -- a German infantry division (one step) or its Kampfgruppe face: to the pool (16.1.A)
  if pooled_kind(u) then
    local division, disrupted = u.step == 1, C.disrupted(u)
    local text, pooled = infantry_out(u, ctx.no_kg)
    if division and pooled and ctx.eliminated then
      ctx.eliminated[#ctx.eliminated + 1] = { unit = u, hex = hex, disrupted = disrupted }
    end
    return text
  end
  -- a mechanized KG eliminated: back to its box; the division in the box is gone (16.1.B)
  if u:attr("mech_kg") then
    local box = u:attr("box")
    if not box then   -- (a KG never deployed through kg.lua: the holding box with no KG in it)
      for _, b in ipairs(M.KG_BOXES) do
        local has_kg = false
        for _, x in ipairs(units.in_box(b)) do if x:attr("mech_kg") then has_kg = true end end
        if not has_kg then box = b break end
      end
    end
    local div
    for _, d in ipairs(units.in_box(box)) do if d.id ~= u.id then div = d end end
    u:put_in(box)
    u:set_marker("disrupted", nil)
    u:set_marker("oos", nil)
    if div then
      eliminate(div)
      return ("mechanized KG %s is eliminated: back to %s, and %s in the box is eliminated (16.1.B)"):format(u.id, box, div.id)
    end
    return ("mechanized KG %s is eliminated: back to %s (16.1.B)"):format(u.id, box)
  end
  if u.steps_left > 1 then
    u:lose_steps(1)
    return ("%s loses a step (%d left)"):format(u.id, u.steps_left)
  end
  -- the last step of a German mechanized division: a mechanized KG may take its place (16.1.B)
  if u.side == C.GERMAN and C.is_mech(u) and u:attr("division") and ctx.combat and not ctx.no_kg and C.supplied(u) then
    local kgu, box = M.free_mech_kg()
    if kgu then
      local yes = umpire.ask { prompt = ("%s is eliminated: replace it with the mechanized KG %s from %s?"):format(u.id, kgu.id, box),
        side = C.GERMAN, rule = "16.1.B", kind = "yesno", default = "yes" }
      if yes then
        local disrupted = C.disrupted(u)
        eliminate(u)
        u:put_in(box)
        kgu:set_attr("box", box)
        kgu:move_to(hex)
        if disrupted then kgu:set_marker("disrupted", 1) end   -- 16.1.C
        return ("%s is eliminated and replaced by the mechanized KG %s (%s goes into %s, 16.1.B)%s"):format(
          u.id, kgu.id, u.id, box, disrupted and "; the KG is disrupted (16.1.C)" or "")
      end
    end
  end
  if C.is_bunker(u) then
    eliminate(u)
    vars.set("bunker_gone", umpire.clock().turn)
    return "The Bunker is eliminated: the game ends at the end of this turn (16.2, 3.2.C.2)"
  end
  eliminate(u)
  return ("%s is eliminated"):format(u.id)
end

-- 16.1.A: after a "*" result from Soviet fire, one of the German infantry divisions eliminated in
-- the hex into the pool (supplied, 16.1.C) is flipped to its KG, which stays in the hex; the German
-- chooses.
function M.form_kg(hex, eliminated)
  local options, by = {}, {}
  for _, e in ipairs(eliminated or {}) do
    if e.hex == hex then options[#options + 1] = e.unit.id; by[e.unit.id] = e end
  end
  if #options == 0 then return nil end
  local pick = options[1]
  if #options > 1 then
    pick = umpire.ask { prompt = ("a \"*\" result in %s: which eliminated division leaves its Kampfgruppe?"):format(hex),
      side = C.GERMAN, rule = "16.1.A", kind = "unit", options = options, default = options[1] }
  end
  local e = by[pick]
  local u = e.unit
  cups.remove("kg_pool", u.id)
  u:set_step(2)
  u:move_to(hex)
  if e.disrupted then u:set_marker("disrupted", 1) end
  return ("%s's Kampfgruppe %s stays in %s (16.1.A)%s"):format(u.id, u:attr("kg"), hex, e.disrupted and ", disrupted (16.1.C)" or "")
end

return M
