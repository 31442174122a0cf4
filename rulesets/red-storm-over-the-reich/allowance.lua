-- Red Storm over the Reich 10.1-10.3, 10.6, 13.2: movement allowances. The command roll at the
-- start of each assault, exploitation and redeployment segment read on the Movement Point Track
-- (10.2), the turn-1 bonus (10.2.C), the guards' fixed 6 (10.3.B.1), the Soviet declaration of the
-- assault MPs (10.6.A) and the combat duration (13.2) that lower the markers (10.2.D), printed
-- allowances (10.3), the halvings (7.5, 9.2.C, 12.1) and Zossen (17.6).
--
-- The markers are the tracks sov_rifle, sov_guards, sov_mech, ger_inf, ger_mech and ger_reaction
-- (0 = the marker is off the track); rolled_inf, rolled_guards and rolled_mech keep what the
-- segment's roll gave (10.6.A: units whose marker the declaration removed move up to it).
local C = require "common"
local T = require "tables"
local reduce = require "reduce"   -- rulesets/lib
local logistics = require "logistics"

local M = {}

M.TRACKS = { Soviet = { "sov_rifle", "sov_guards", "sov_mech" }, German = { "ger_inf", "ger_mech" } }

-- The kind of segment the clock is in: "assault", "breakthrough", "reaction", "exploitation",
-- "redeployment" (nil outside movement).
local SEGMENT = {
  sov_assault = "assault", sov_breakthrough = "breakthrough", ger_reaction = "reaction",
  ger_assault = "assault", sov_exploit = "exploitation", ger_exploit = "exploitation",
  sov_redeploy = "redeployment", ger_redeploy = "redeployment",
}
function M.segment() return SEGMENT[umpire.clock().step] end

local function clamp(n) return math.max(T.mp_track.min, math.min(T.mp_track.max, n)) end

-- 17.6: Zossen occupied by a Soviet unit (once, for the rest of the game).
function M.zossen_lost() return vars.get("zossen_lost") == true end

-- 10.2.A, 10.2.B: the command roll of `side` at the start of a segment; sets the markers.
---@param side string
---@param segment string the kind of segment (allowance.segment)
function M.roll(side, segment)
  local turn = umpire.clock().turn
  local die = dice.d6(side .. " command roll (10.2.A)")
  local mods, why = 0, {}
  if side == C.SOVIET then
    local w = C.weather(turn)
    if T.command_mod[w] ~= 0 then
      mods = mods + T.command_mod[w]
      why[#why + 1] = ("%+d %s (9.1.C)"):format(T.command_mod[w], w)
    end
    if logistics.sls_active(turn) then
      mods = mods + T.command_mod.sls
      why[#why + 1] = ("%+d logistical strain (9.3)"):format(T.command_mod.sls)
    end
  end
  local net = clamp(die + mods)
  local box = T.mp_track[side][net]
  local inf, mech = box.inf, box.mech
  local notes = {}
  if side == C.SOVIET then
    local guards = T.guards_ma
    if turn == 1 then
      inf, mech, guards = inf + T.first_turn_bonus.rifle, mech + T.first_turn_bonus.mech, guards + T.first_turn_bonus.guards
      notes[#notes + 1] = ("turn 1 bonus +%d rifle and guards, +%d mechanized (10.2.C)"):format(T.first_turn_bonus.rifle, T.first_turn_bonus.mech)
    end
    tracks.set("sov_rifle", inf); tracks.set("sov_guards", guards); tracks.set("sov_mech", mech)
    tracks.set("rolled_inf", inf); tracks.set("rolled_guards", guards); tracks.set("rolled_mech", mech)
    log.rule("10.2.B", ("Soviet command roll %d%s = %d: rifle %d, guards rifle %d, mechanized %d MP%s"):format(
      die, #why > 0 and (" " .. table.concat(why, " ")) or "", net, inf, guards, mech,
      #notes > 0 and ("; " .. table.concat(notes, "; ")) or ""))
  else
    if M.zossen_lost() then
      inf, mech = math.max(0, inf - T.zossen_penalty), math.max(0, mech - T.zossen_penalty)
      notes[#notes + 1] = ("-%d MP: Zossen is lost (17.6)"):format(T.zossen_penalty)
    end
    tracks.set("ger_inf", inf); tracks.set("ger_mech", mech)
    tracks.set("rolled_inf", inf); tracks.set("rolled_guards", 0); tracks.set("rolled_mech", mech)
    log.rule("10.2.B", ("German command roll %d: infantry %d, mechanized %d MP%s"):format(
      die, inf, mech, #notes > 0 and ("; " .. table.concat(notes, "; ")) or ""))
  end
  vars.set("segment_of", segment)
end

-- 10.2.D: at the end of a breakthrough, exploitation or redeployment segment the markers come off.
function M.clear(side)
  for _, t in ipairs(M.TRACKS[side]) do tracks.set(t, 0) end
  if side == C.GERMAN then tracks.set("ger_reaction", 0) end
  for _, t in ipairs { "rolled_inf", "rolled_guards", "rolled_mech" } do tracks.set(t, 0) end
end

-- 10.6.A: the Soviet declaration: markers lowered by n (a marker at 0 or below is removed, those
-- units moving up to what was rolled); more than 3 flips every Soviet artillery unit (10.3.C);
-- 10.6.B: with no rifle MP left there is no combat, reaction or breakthrough.
function M.declare(n)
  local rolled = { rifle = tracks.get("rolled_inf"), guards = tracks.get("rolled_guards"), mech = tracks.get("rolled_mech") }
  for _, t in ipairs(M.TRACKS.Soviet) do
    local v = tracks.get(t) - n
    tracks.set(t, v > 0 and v or 0)
  end
  vars.set("declared", n)
  local notes = {}
  if n > T.artillery_declare_max then
    local flipped = {}
    for _, a in ipairs(units.all { side = C.SOVIET, kind = "artillery" }) do
      if not a:marker("used") then a:set_marker("used", 1); flipped[#flipped + 1] = a end
    end
    notes[#notes + 1] = ("more than %d MP: every Soviet artillery unit is Used%s (10.3.C)"):format(
      T.artillery_declare_max, #flipped > 0 and (" (" .. C.ids(flipped) .. ")") or "")
  end
  local combat = tracks.get("sov_rifle") >= 1
  vars.set("combat", combat)
  if not combat then
    notes[#notes + 1] = "no rifle MP is left: no Soviet combat, German reaction or Soviet breakthrough this turn (10.6.B)"
  end
  log.rule("10.6.A", ("the Soviet declares %d MP for the assault movement: markers rifle %d, guards rifle %d, mechanized %d (rolled %d/%d/%d)%s"):format(
    n, tracks.get("sov_rifle"), tracks.get("sov_guards"), tracks.get("sov_mech"), rolled.rifle, rolled.guards, rolled.mech,
    #notes > 0 and ("; " .. table.concat(notes, "; ")) or ""))
end

-- The bots' weights of the declarations (docs/lua-api.md §2.6; DATA.md "Weights for bots"): the
-- default most, any other that keeps a rifle MP for combat (10.6.B) less, one that spends them
-- all (no attack this segment, 13.1) seldom.
local function declaration_weights(options, default)
  local rifle = tracks.get("sov_rifle")
  local weights = {}
  for i, o in ipairs(options) do
    local n = tonumber(o)
    weights[i] = (n == default and 4) or (n < rifle and 1) or 0.1
  end
  return weights
end

-- 10.6.A: the Soviet declaration, asked at the start of the assault movement once the markers are
-- set (before any unit moves): 0 up to the mechanized marker, 1 rifle MP kept for combat by default
-- (10.6.B), at most 3 unless the artillery is to flip (10.3.C).
function M.ask_declaration()
  local mech = tracks.get("sov_mech")
  local options = {}
  for i = 0, mech do options[#options + 1] = tostring(i) end
  local default = math.max(0, math.min(T.artillery_declare_max, tracks.get("sov_rifle") - 1))
  local n = umpire.ask { prompt = ("declare the MPs of the assault movement (0-%d; keep 1 rifle MP for combat, 10.6.B; more than %d flips the artillery, 10.3.C)"):format(mech, T.artillery_declare_max),
    rule = "10.6.A", kind = "number", options = options, default = tostring(default),
    weights = declaration_weights(options, default) }
  M.declare(math.tointeger(n))
end

-- 13.2: the combat duration: a die halved, rounded up, off every Soviet marker; the German
-- reaction allowance is twice it.
function M.duration()
  local die = dice.d6("combat duration (13.2.A)")
  local d = reduce.half(die, "up")
  for _, t in ipairs(M.TRACKS.Soviet) do
    local v = tracks.get(t) - d
    tracks.set(t, v > 0 and v or 0)
  end
  vars.set("duration", d)
  tracks.set("ger_reaction", 2 * d)
  log.rule("13.2", ("combat duration: die %d halved, rounded up = %d; Soviet markers now rifle %d, guards rifle %d, mechanized %d; German reaction allowance %d (13.2.B)"):format(
    die, d, tracks.get("sov_rifle"), tracks.get("sov_guards"), tracks.get("sov_mech"), 2 * d))
  return d
end

-- The variable allowance's class of a unit: "inf" (Soviet rifle / German infantry), "guards",
-- "mech", or nil (a printed allowance).
function M.class(u)
  local ma = u:attr("ma")
  if ma == "rifle" or ma == "inf" then return "inf" end
  if ma == "guards" then return "guards" end
  if ma == "mech" then return "mech" end
  return nil
end

local TRACK_OF = { Soviet = { inf = "sov_rifle", guards = "sov_guards", mech = "sov_mech" },
                   German = { inf = "ger_inf", mech = "ger_mech" } }

-- What the segment's roll gave a class (10.6.A: rolled_inf, rolled_guards, rolled_mech).
local ROLLED = { rifle = "rolled_inf", guards = "rolled_guards", mech = "rolled_mech" }
local function rolled(class) return tracks.get(ROLLED[class]) end

-- The movement allowance of `u` in the current segment before halving, and why; nil, reason when
-- it may not move in this segment at all (seg: the segment, M.segment(), where the caller has it).
function M.base(u, seg)
  seg = seg or M.segment()
  if not seg then return nil, "4.2", "this is not a movement segment" end
  local class = M.class(u)
  local printed = C.printed_ma(u)
  if u.side == C.SOVIET then
    if seg == "assault" then
      local declared = vars.get("declared")
      if declared == nil then return nil, "10.6.A", "the Soviet declares the MPs of the assault movement first (declare <MP>)" end
      if C.is_cavalry(u) or C.is_artillery(u) or C.is_leader(u) then return printed or 0, "full printed allowance (10.3.B.2, 10.3.C, 17.3.A)" end
      if class == nil then return math.min(printed or 0, declared), "printed allowance, at most the declared MPs (10.3.B.3)" end
      if class == "mech" then return declared, "the declared MPs (10.6.A)" end
      local r = rolled(class == "inf" and "rifle" or "guards") or 0
      return math.min(declared, r), declared > r and "the allowance rolled: the declaration is above it (10.6.A)" or "the declared MPs (10.6.A)"
    elseif seg == "breakthrough" then
      if u:marker("immobile") then return nil, "10.6.C", u.id .. " is Immobile: it does not move in the breakthrough" end
      if C.is_artillery(u) then return nil, "10.3.C", "Soviet artillery does not move in the breakthrough" end
      if C.is_cavalry(u) then return printed or 0, "full printed allowance, not having moved in the assault (10.3.B.2)" end
      if C.is_leader(u) then return printed or 0, "his printed allowance less what he used in the assault (17.3.A)" end
      if class == nil then return nil, "10.3.B.3", u.id .. " is a rifle unit with a printed allowance: it moves only in the assault movement" end
      return tracks.get(TRACK_OF.Soviet[class]), "what the marker shows after the declaration and the combat duration (10.6.C)"
    else
      if class == nil then return printed or 0, "printed allowance (10.3.A)" end
      if class == "guards" then return T.guards_ma + (umpire.clock().turn == 1 and T.first_turn_bonus.guards or 0), "guards rifle (10.3.B.1)" end
      return rolled(class == "inf" and "rifle" or "mech") or 0, "the allowance rolled (10.2.B)"
    end
  else
    if seg == "reaction" then
      if not C.is_mech(u) then return nil, "10.8.5", "only mechanized units move in the reaction movement" end
      return tracks.get("ger_reaction"), "twice the combat duration (13.2.B)"
    end
    if class == nil then return printed or 0, "printed allowance (10.3.A)" end
    return tracks.get(TRACK_OF.German[class] or "ger_inf"), "the allowance rolled (10.2.B)"
  end
end

-- The allowance after 7.5 (out of supply: halved, down), 9.2.C (fuel shortage: halved, down) and
-- 12.1 (disrupted: halved, up); halved once when several apply (rounded down if out of supply or
-- short of fuel: DATA.md). Returns mp, why (or nil, rule, reason). seg as in M.base.
function M.allowance(u, seg)
  local mp, why, reason = M.base(u, seg)
  if mp == nil then return nil, why, reason end
  local down = u:marker("oos") and not C.always_supplied(u)
  local fuel = C.is_mech(u) and u:marker("fuel_shortage")
  local disrupted = C.disrupted(u)
  local halves = {}
  if down then halves[#halves + 1] = "out of supply (7.5)" end
  if fuel then halves[#halves + 1] = "fuel shortage (9.2.C)" end
  if disrupted then halves[#halves + 1] = "disrupted (12.1)" end
  if #halves > 0 then
    local round = (down or fuel) and "down" or "up"
    mp = reduce.half(mp, round)
    why = ("%s, halved once (%s), rounded %s"):format(why, table.concat(halves, ", "), round)
  end
  return mp, why
end

return M
