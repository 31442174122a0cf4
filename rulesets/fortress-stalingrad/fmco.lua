-- Fortress Stalingrad 14: the Fuhrer-Mandated Counter Offensive. Declared by the German at the
-- start of turn 10, 11 or 12 (14.1); from then on German attacks get one column (14.2, in
-- combat.lua) and German attackers take results as steps only (14.3, combat.lua); German losses
-- score nothing and Soviet losses cost the Soviet a point each (14.4, 15.6, common.lua); and each
-- German player turn must hold four attacks, mobile or prepared, or the game is forfeit (14.5).
local C = require "common"
local T = require "tables"

local M = {}

function M.declared() return (vars.get("fmco_turn") or 0) > 0 end

umpire.command {
  usage = "fmco",
  help = "declare the Fuhrer-Mandated Counter Offensive (the start of turn 10, 11 or 12; 14.1)",
  rule = "14.1", phases = { "initial_supply" },
  run = function()
    local turn = umpire.clock().turn
    umpire.check(not M.declared(), "14.1", "the FMCO was declared on turn %d", vars.get("fmco_turn") or 0)
    umpire.check(C.contains(T.fmco.turns, turn), "14.1", "the FMCO may be declared only at the start of turn 10, 11 or 12 (this is turn %d)", turn)
    vars.set("fmco_turn", turn)
    log.rule("14.1", ("the German declares the FMCO on turn %d (%s)"):format(turn, T.turn_names[turn]))
    log.rule("14.2", "from now on every German mobile and prepared assault gets one column in the attacker's favour")
    log.rule("14.3", "German/Axis attackers absorb every result as steps")
    log.rule("14.4", "German/Axis losses no longer score; every Soviet step lost takes a point off the Soviet")
    log.rule("14.5", ("each German player turn must hold at least %d attacks, or the German forfeits the game"):format(T.fmco.attacks))
  end,
}

-- 14.5: the count of German attacks in a German player turn.
function M.begin_german_turn() if M.declared() then vars.set("fmco_attacks", 0) end end

function M.end_german_turn()
  if not M.declared() then return end
  local n = vars.get("fmco_attacks") or 0
  if n < T.fmco.attacks then
    local result = ("Soviet victory: the German made %d attack%s in his player turn during the FMCO, fewer than %d (14.5)"):format(n, n == 1 and "" or "s", T.fmco.attacks)
    vars.set("forfeit", result)
    log.rule("14.5", result)
    umpire.game_over(result)
  else
    log.rule("14.5", ("the German made %d attacks this player turn (at least %d during the FMCO)"):format(n, T.fmco.attacks))
  end
end

return M
