//! umpire as a player: the sides of a game it plays (`opponent`, `play --opponent`), each by a
//! bot. After a player's command, the bots play their sides' commands, and answer the questions
//! their sides are asked, until a player is to act, the game ends, or a bot cannot go on (it
//! says why). Their commands are the game's like any other: the log, `why` and saves show them,
//! and the player's `undo` takes them back with the player's command before them.

use super::bot::{Bot, Lineup, Policy};
use super::{Reply, Session, Status};
use crate::contract::ActionFilter;
use crate::error::{Error, Result};

/// The most commands umpire plays in a row before it hands back to the players (a guard
/// against rules that never pass the turn; a whole Red Storm turn is a few hundred).
pub const MAX_IN_A_ROW: usize = 5_000;

/// The bot of an `opponent` command or `--opponent` when none is named.
pub const DEFAULT_BOT: Policy = Policy::Search;

/// `opponent`: who umpire plays; `opponent <side> [bot|off]` sets or ends it for one side.
pub(super) fn cmd_opponent(s: &mut Session, rest: &str, _line: &str) -> Result<Reply> {
    let g = s.game_mut()?;
    let words: Vec<&str> = rest.split_whitespace().collect();
    let Some(&typed) = words.first() else {
        return Ok(Reply::ok(vec![shown(&g.opponents)]));
    };
    let sides = g.sides();
    let side = sides.iter().find(|x| x.eq_ignore_ascii_case(typed)).cloned().ok_or_else(|| {
        Error::Usage(format!(
            "no side '{typed}' in this game (sides are {}); usage: opponent <side> [bot|off]",
            sides.join(", ")
        ))
    })?;
    match words.get(1..).unwrap_or_default() {
        ["off"] => {
            g.opponents.remove(&side);
            Ok(Reply::ok(vec![format!("{side} is played at this keyboard; {}", shown(&g.opponents))]))
        }
        [] | [_] => {
            let bot = match words.get(1) {
                Some(b) => b.parse::<Policy>().map_err(Error::Usage)?,
                None => DEFAULT_BOT,
            };
            if g.opponents.len() + usize::from(!g.opponents.contains_key(&side)) == sides.len() {
                return Err(Error::Usage(
                    "umpire would play every side, leaving none to a player (for games of bots alone: `umpire playout`)".into(),
                ));
            }
            g.opponents.insert(side.clone(), bot.to_string());
            Ok(Reply::ok(vec![shown(&g.opponents)]))
        }
        _ => Err(Error::Usage("usage: opponent [<side> [bot|off]] (bots: search, the default, greedy, random)".into())),
    }
}

/// `umpire plays Soviet (greedy)`, or that it plays no side.
fn shown(opponents: &std::collections::BTreeMap<String, String>) -> String {
    if opponents.is_empty() {
        return "umpire plays no side (`opponent <side> [bot]` to have it play one)".into();
    }
    let list: Vec<String> = opponents.iter().map(|(side, bot)| format!("{side} ({bot})")).collect();
    format!("umpire plays {}", list.join(", "))
}

/// Whether `verb` hands the game on (after it, umpire plays if its side is to act): anything
/// but taking back (`undo`, `redo`: the player looks at the position undone).
pub(super) fn hands_on(verb: &str) -> bool {
    !matches!(verb, "undo" | "redo")
}

/// After a player's command (the history `len` long before it, a decision pending or not): a
/// player's answer that completes a command umpire started leaves that command umpire's;
/// any other command of the player's is the player's.
pub(super) fn players_turn(s: &mut Session, len: usize, was_pending: bool) {
    let Some(g) = s.game.as_mut() else { return };
    if s.opponent_started && was_pending {
        for e in g.history.iter_mut().skip(len) {
            e.by_bot = true;
        }
    }
    s.opponent_started &= was_pending && g.pending.is_some();
}

/// The side umpire plays that is to act now (the one a pending question asks, else the side
/// to act), with its bot; None when a player is to act or the game is over.
fn to_act(s: &Session) -> Option<(String, Policy)> {
    let g = s.game.as_ref()?;
    if g.opponents.is_empty() || g.state().clock.over.is_some() {
        return None;
    }
    let side = super::bot::acting_side(s);
    let bot = g.opponents.get(&side)?.parse().ok()?;
    Some((side, bot))
}

/// Plays umpire's sides while one of them is to act, adding their commands and what the
/// commands printed to `r`.
pub(super) fn play(s: &mut Session, r: &mut Reply) {
    if play_on(s, r) > 0
        && let Some(p) = &s.progress
    {
        p("");
    }
}

/// [`play`], returning how many commands umpire played.
fn play_on(s: &mut Session, r: &mut Reply) -> usize {
    let mut played = 0;
    while let Some((side, policy)) = to_act(s) {
        if played == MAX_IN_A_ROW {
            r.out.push(format!("umpire stops: {played} commands for {side} in a row without a player to act (the rules may never pass the turn)"));
            return played;
        }
        if let Some(p) = &s.progress {
            p(&format!("umpire plays {side} ({policy}): {played} commands"));
        }
        let cmd = match choose(s, &side, policy) {
            Ok(cmd) => cmd,
            Err(why) => {
                r.out.push(format!("umpire stops playing {side}: {why}; play it yourself or `opponent {side} off`"));
                return played;
            }
        };
        r.out.push(format!("{side} (umpire) › {cmd}"));
        let (len, answering) = s.game.as_ref().map_or((0, false), |g| (g.history.len(), g.pending.is_some()));
        // (a command umpire started is umpire's, answers and all; an answer umpire gives to a
        // player's command leaves that command the player's)
        let umpires = !answering || s.opponent_started;
        let done = s.execute(&cmd);
        r.out.extend(done.out);
        if let Status::Error(e) = done.status {
            r.out.push(format!("umpire stops playing {side}: its command `{cmd}` failed: {e}"));
            return played;
        }
        if let Some(g) = s.game.as_mut() {
            for e in g.history.iter_mut().skip(len) {
                e.by_bot = umpires;
            }
            s.opponent_started = umpires && g.pending.is_some();
        }
        played += 1;
    }
    played
}

/// The command the bot of `side` plays now, or why there is none.
fn choose(s: &mut Session, side: &str, policy: Policy) -> std::result::Result<String, String> {
    let g = s.game.as_ref().ok_or("no game")?;
    let list = match g.actions(&ActionFilter::default()) {
        Ok(Some(list)) => list,
        Ok(None) => return Err(format!("the rules of {} list no actions for a bot to choose from", g.ruleset.id)),
        Err(e) => return Err(format!("the rules failed to list its actions: {e}")),
    };
    let list: Vec<_> = list.into_iter().filter(|a| a.side.as_deref().is_none_or(|x| x == side)).collect();
    if list.is_empty() {
        return Err("nothing is listed for it now".into());
    }
    // (its generator seeded by where the game is: the same game gives the same choices)
    let seed = g.state().commands as u64;
    let mut bot = Bot::of(Lineup::of_all(policy), seed);
    bot.memo = std::mem::take(&mut s.opponent_memo);
    let chosen = bot.choose(s, &list).map_err(|f| f.message);
    s.opponent_memo = bot.memo;
    chosen
}
