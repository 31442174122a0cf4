//! The `search` bot: a one-command expectimax over the listed actions, within a budget of work.
//!
//! It tries many more of the listed commands than `greedy` (every group's, in turn, up to
//! [`SEARCH_NODES`] lookaheads), and a command that rolls dice is tried under several rolls of
//! its own (up to [`SEARCH_DICE`]), its score the mean: an attack is judged by what it gives on
//! average, not by one lucky or unlucky roll. It plays the command that gains most over the
//! position now by the ruleset's `umpire.evaluate`; when none gains, it ends the segment
//! (`next`) rather than wander, if `next` loses nothing; else it plays as `greedy` would among
//! what does not lose. The budget is counted in lookaheads (each a command executed, scored
//! and taken back), never in time: a game is the same for a seed on any machine.

use super::Session;
use super::bot::{Bot, Failure, Now, side_of};
use crate::contract::Action;

/// The lookaheads a decision may spend (its thinking budget).
pub const SEARCH_NODES: usize = 48;

/// The rolls a command that rolls dice is tried under at most.
pub const SEARCH_DICE: usize = 3;

/// A command played [`REPEATS`] times among the last [`RECENT`] commands is not tried again.
const RECENT: usize = 8;
const REPEATS: usize = 3;

/// The last `n` commands of the game (their first lines), the latest last.
fn recent_commands(s: &Session, n: usize) -> Vec<String> {
    let Some(g) = &s.game else { return Vec::new() };
    g.history.iter().rev().take(n).filter_map(|e| e.lines.first().cloned()).collect()
}

/// A gain below this is no gain (scores are sums of weighted counts).
const EPSILON: f64 = 1e-9;

impl Bot {
    /// The command to play of `list` (two or more, of weights above 0, some done by a side).
    pub(super) fn search(&mut self, s: &mut Session, list: &[Action]) -> Result<String, Failure> {
        let order = self.candidates(list);
        // (a command played again and again lately is not tried: a chance command whose mean
        // gain is above 0 would otherwise be drawn for ever where the rules let it repeat)
        let recent = recent_commands(s, RECENT);
        let fresh: Vec<usize> =
            order.iter().copied().filter(|&i| recent.iter().filter(|c| **c == list[i].cmd).count() < REPEATS).collect();
        let order = if fresh.is_empty() { order } else { fresh };
        let mut base = Now::default();
        let mut tried: Vec<(usize, f64)> = Vec::new();
        let mut nodes = 0;
        for i in order {
            if nodes >= SEARCH_NODES {
                break;
            }
            let who = side_of(s, &list[i]);
            if who.is_empty() {
                tried.push((i, 0.0));
                continue;
            }
            let now = base.of(self, s, &who)?;
            let (mean, spent) = self.expected(s, &list[i].cmd, &who, SEARCH_NODES - nodes)?;
            nodes += spent;
            tried.push((i, mean - now));
        }
        Ok(list[self.pick(list, &tried)].cmd.clone())
    }

    /// The order the commands are tried in: the groups in turn (`move`, `attack`, `next`...),
    /// each group's commands in an order of the bot's own drawing, so that a budget smaller than
    /// the list still sees every kind of command.
    fn candidates(&mut self, list: &[Action]) -> Vec<usize> {
        let mut groups = Bot::groups(list);
        for g in &mut groups {
            for k in (1..g.len()).rev() {
                let j = self.below(k + 1);
                g.swap(k, j);
            }
        }
        let longest = groups.iter().map(Vec::len).max().unwrap_or(0);
        (0..longest).flat_map(|k| groups.iter().filter_map(move |g| g.get(k).copied())).collect()
    }

    /// The mean score for `who` after `cmd` under up to [`SEARCH_DICE`] rolls (one if it rolls
    /// nothing), within `budget` lookaheads; and the lookaheads spent.
    fn expected(&mut self, s: &mut Session, cmd: &str, who: &str, budget: usize) -> Result<(f64, usize), Failure> {
        let (first, rolled) = self.look_ahead_rolls(s, cmd, who)?;
        let (mut sum, mut n) = (first, 1);
        while rolled && n < SEARCH_DICE.min(budget) {
            sum += self.look_ahead_rolls(s, cmd, who)?.0;
            n += 1;
        }
        Ok((sum / n as f64, n))
    }

    /// The command to play among those `tried` (index, gain): the best gain; with none, `next`
    /// if it loses nothing; else as `greedy`, at random among what does not lose.
    fn pick(&mut self, list: &[Action], tried: &[(usize, f64)]) -> usize {
        let best = tried.iter().copied().fold(None, |b: Option<(usize, f64)>, (i, g)| match b {
            Some((_, bg)) if bg >= g => b,
            _ => Some((i, g)),
        });
        match best {
            Some((i, g)) if g > EPSILON => return i,
            _ => {}
        }
        let neutral: Vec<usize> = tried.iter().filter(|(_, g)| *g >= -EPSILON).map(|&(i, _)| i).collect();
        if neutral.is_empty() {
            return best.map_or_else(|| self.random(list), |(i, _)| i);
        }
        self.random_among(list, &neutral)
    }
}
