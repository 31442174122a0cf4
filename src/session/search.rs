//! The `search` bot: a one-command expectimax over the listed actions, within a budget of work.
//!
//! It tries many more of the listed commands than `greedy` (every group's, in turn), and a
//! command that rolls dice is tried under several rolls of its own (up to [`SEARCH_DICE`]), its
//! score the mean: an attack is judged by what it gives on average, not by one lucky or unlucky
//! roll. It plays the command that gains most over the position now by the ruleset's
//! `umpire.evaluate`. When none gains where the rules weigh `next` below 1 (ending the step
//! forfeits what is left undone in it: Red Storm's movement and combat segments) and they do not
//! say `sweep = false` on it (the side's idle units serve where they stand), it sweeps:
//! it plans a command that does not lose for each of up to [`SWEEP_UNITS`] units it has not
//! commanded yet in the step (of those, the one that takes the unit least far), and plays them
//! before it judges again (a player moves his units before ending the movement segment; a bot
//! that wandered at random or ended the step left most of them where they stood, and its zones
//! of control thin). When no such unit is left, it plays as `greedy` would among what does not
//! lose and `next` (so that a step ends even where what comes next costs the side). A driver
//! that asks [`Bot::planned`] first plays the plan without listing the whole game for each
//! command.
//!
//! Within one step of the sequence (a side's movement segment, say) most commands are judged
//! again and again: moving one unit changes little of what moving another gains. So the gains
//! judged are kept for the rest of the step ([`Memo`], in session/bot.rs), and a decision judges only commands not
//! judged before (up to [`NEW_NODES`]; all of [`SEARCH_NODES`] at the step's first decision)
//! and then, lazily, the best of the kept ones again until the best gain is one judged now (as
//! the lazy greedy of submodular maximisation: a gain judged earlier is taken to be at most what
//! it was). Around the best move it judges the same unit's moves to the hexes next to its
//! destination, climbing while one is better ([`REFINE_NODES`]): a sample of a unit's hundreds
//! of destinations often holds one a hex short of where it gains most. The budget is counted in
//! lookaheads (each a command executed, scored and taken back), never in time: a game is the
//! same for a seed on any machine.

use super::Session;
use super::bot::{Bot, EPSILON, Failure, Now, side_of};
use crate::contract::Action;
use crate::state::Location;
use std::collections::{BTreeMap, BTreeSet};

/// The lookaheads a decision may spend (its thinking budget).
pub const SEARCH_NODES: usize = 48;

/// The commands not judged before in the step that a decision judges, after the step's first.
pub const NEW_NODES: usize = 12;

/// The lookaheads a decision may spend on a local search around its best move: the same
/// unit's moves to the hexes next to the best destination judged, climbing while one is better
/// (a unit sampled one hex short of where it gains most, as a withdrawing unit beside its exit).
pub const REFINE_NODES: usize = 12;

/// The commands not judged before that a decision judges where none judged in the step so
/// far gains and the bot may sweep (most of a Red Storm movement segment): it will most likely
/// sweep ([`SWEEP_UNITS`]).
pub const QUIET_NODES: usize = 4;

/// The units a sweep plans a command for at most, before the bot judges again: where no
/// command gains and the rules weigh `next` below 1 (ending the step forfeits what is left
/// undone in it), the bot gives units not commanded yet in the step a command that does not
/// lose rather than end the step with them idle (a player moves his units before he ends
/// the movement segment).
pub const SWEEP_UNITS: usize = 8;

/// The commands of a unit a sweep judges at most, where none of its kept gains is 0 or more.
pub const SWEEP_TRIES: usize = 2;

/// The rolls a command that rolls dice is tried under at most.
pub const SEARCH_DICE: usize = 3;

/// The step of the sequence the game is in: the turn, step, phase and side to act (what the
/// bot commanded and planned in another step is forgotten).
fn step_key(s: &Session) -> String {
    let Some(g) = s.game.as_ref() else { return String::new() };
    let c = &g.state().clock;
    format!("{}\u{1f}{}\u{1f}{}\u{1f}{:?}", c.turn, c.step, c.phase, c.side)
}

/// Where the game is, for the memo: the step, and the question pending with its options, if
/// any (the gains of another step, or of another question's answers, which are often the same
/// words, `choose 1`, are forgotten).
fn memo_key(s: &Session) -> String {
    let Some(g) = s.game.as_ref() else { return String::new() };
    let mut key = step_key(s);
    if let Some(p) = &g.pending {
        let q = &p.question;
        key.push_str(&format!(
            "\u{1f}{}\u{1f}{:?}\u{1f}{}\u{1f}{}",
            q.prompt,
            q.side,
            q.options.join(","),
            g.history.len()
        ));
    }
    key
}

/// A command of the list judged for a decision: its index, its gain, and whether it was
/// judged in this decision (else its gain is kept from earlier in the step).
type Judged = (usize, f64, bool);

/// A command played [`REPEATS`] times among the last [`RECENT`] commands is not tried again.
const RECENT: usize = 8;
const REPEATS: usize = 3;

/// The last `n` commands of the game (their first lines), the latest last.
fn recent_commands(s: &Session, n: usize) -> Vec<String> {
    let Some(g) = &s.game else { return Vec::new() };
    g.history.iter().rev().take(n).filter_map(|e| e.lines.first().cloned()).collect()
}

impl Bot {
    /// The next command of the sweep the search bot planned ([`SWEEP_UNITS`]), if the game is
    /// still in the step it was planned for, the rules still list it and it still does not
    /// lose: asked for that unit (and hex) alone, which costs a driver (a playout) far less
    /// than listing the whole game. None when nothing is planned; a planned command no longer
    /// listed, or that loses now, is dropped. An error of the rules while it is judged is the
    /// driver's, as from [`Bot::choose`].
    pub fn planned(&mut self, s: &mut Session) -> Result<Option<String>, Failure> {
        if self.memo.plan.is_empty() {
            return Ok(None);
        }
        let Some(g) = s.game.as_ref() else { return Ok(None) };
        if step_key(s) != self.memo.step || g.pending.is_some() {
            self.memo.plan.clear();
            return Ok(None);
        }
        let listed = |s: &Session, a: &Action| {
            let filter = crate::contract::ActionFilter { unit: a.unit.clone(), hex: a.hex.clone() };
            matches!(s.game.as_ref().map(|g| g.actions(&filter)), Some(Ok(Some(l))) if l.iter().any(|x| x.cmd == a.cmd))
        };
        Ok(self.next_planned(s, listed)?.map(|a| a.cmd))
    }

    /// The next command of the plan that `listed` finds still listed and that does not lose
    /// in the position now (those before it are dropped), its unit marked commanded. Each
    /// was judged from where the sweep began, before the plan's earlier commands were played:
    /// moves that do not lose one by one may together (the last of several units negating an
    /// enemy ZOC on a supply line moved off), so each is judged again when its turn comes.
    fn next_planned(
        &mut self,
        s: &mut Session,
        listed: impl Fn(&Session, &Action) -> bool,
    ) -> Result<Option<Action>, Failure> {
        while let Some(a) = self.memo.plan.pop_front() {
            if listed(s, &a) && self.holds(s, &a)? {
                self.memo.played(&a);
                return Ok(Some(a));
            }
        }
        Ok(None)
    }

    /// Whether the planned command `a` does not lose in the position now (its gain, under its
    /// dice as any command, kept for the rest of the step).
    fn holds(&mut self, s: &mut Session, a: &Action) -> Result<bool, Failure> {
        Ok(self.gain(s, a, &mut Now::default(), SEARCH_DICE)?.0 >= -EPSILON)
    }

    /// The command to play of `list` (two or more, of weights above 0, some done by a side).
    pub(super) fn search(&mut self, s: &mut Session, list: &[Action]) -> Result<String, Failure> {
        if let Some(k) = self.enter(s, list)? {
            return Ok(list[k].cmd.clone());
        }
        // (the rules weigh `next` below 1 where ending the step forfeits what is left undone in
        // it, docs/lua-api.md §2.6: there units left idle are lost, and the bot sweeps, unless
        // they say `sweep = false`: the side's idle units serve where they stand)
        let sweeps = list.iter().any(Action::sweeps);
        let mut base = Now::default();
        let (mut tried, nodes) = self.judge(s, list, &mut base, sweeps)?;
        let mut listed = vec![false; list.len()];
        for t in &tried {
            listed[t.0] = true;
        }
        self.refine(s, list, &mut tried, &mut listed, &mut base)?;
        let tried: Vec<(usize, f64)> = tried.into_iter().map(|(i, g, _)| (i, g)).collect();
        let k = if sweeps
            && tried.iter().all(|t| t.1 <= EPSILON)
            && let Some(k) = self.sweep(s, list, &tried, &mut base)?
        {
            k
        } else {
            self.pick(list, &tried)
        };
        self.memo.played(&list[k]);
        super::bot::trace_decision(s, "search", &list[k].cmd, nodes, &tried, k);
        Ok(list[k].cmd.clone())
    }

    /// The memo brought to where the game is (a new step forgets what was commanded and
    /// planned; a new question, the gains); and the next command of the sweep planned, if any
    /// is still in `list`.
    fn enter(&mut self, s: &mut Session, list: &[Action]) -> Result<Option<usize>, Failure> {
        let step = step_key(s);
        if self.memo.step != step {
            self.memo.step = step;
            self.memo.commanded.clear();
            self.memo.plan.clear();
        }
        let key = memo_key(s);
        if self.memo.key != key {
            self.memo.key = key;
            self.memo.gains.clear();
        }
        let Some(a) = self.next_planned(s, |_, a| list.iter().any(|x| x.cmd == a.cmd))? else { return Ok(None) };
        Ok(list.iter().position(|x| x.cmd == a.cmd))
    }

    /// The commands of `list` judged for this decision (index, gain, judged now), the kept
    /// gains among them, and the lookaheads spent: new commands first, then the best kept
    /// gain again until the best is one judged now.
    fn judge(
        &mut self,
        s: &mut Session,
        list: &[Action],
        base: &mut Now,
        sweeps: bool,
    ) -> Result<(Vec<Judged>, usize), Failure> {
        let focus = focus_now(s)?;
        let order = self.candidates(list, &focus);
        // (a command played again and again lately is not tried: a chance command whose mean
        // gain is above 0 would otherwise be drawn for ever where the rules let it repeat)
        let recent = recent_commands(s, RECENT);
        let fresh: Vec<usize> =
            order.iter().copied().filter(|&i| recent.iter().filter(|c| **c == list[i].cmd).count() < REPEATS).collect();
        let order = if fresh.is_empty() { order } else { fresh };
        let new_budget = if self.memo.gains.is_empty() {
            SEARCH_NODES
        } else if sweeps && self.memo.gains.values().all(|&g| g <= EPSILON) {
            QUIET_NODES
        } else {
            NEW_NODES
        };
        let mut tried: Vec<Judged> = Vec::new();
        let mut nodes = 0;
        for i in order {
            if let Some(&gain) = self.memo.gains.get(&list[i].cmd) {
                tried.push((i, gain, false));
            } else if nodes < new_budget {
                let (gain, spent) = self.gain(s, &list[i], base, SEARCH_NODES - nodes)?;
                nodes += spent;
                tried.push((i, gain, true));
            }
        }
        while nodes < SEARCH_NODES {
            let Some(k) = best_of(&tried) else { break };
            // (a best that gains nothing is played by no gain: judging it again changes nothing)
            if tried[k].2 || tried[k].1 <= EPSILON {
                break;
            }
            let (gain, spent) = self.gain(s, &list[tried[k].0], base, SEARCH_NODES - nodes)?;
            nodes += spent;
            tried[k] = (tried[k].0, gain, true);
        }
        // with nothing to gain, what ending the step costs is judged now (a gain kept from
        // before would end it, or put it off, for ever)
        if best_of(&tried).is_none_or(|k| tried[k].1 <= EPSILON)
            && let Some(k) = tried.iter().position(|t| !t.2 && list[t.0].cmd == "next")
        {
            let (gain, _) = self.gain(s, &list[tried[k].0], base, 1)?;
            tried[k] = (tried[k].0, gain, true);
        }
        Ok((tried, nodes))
    }

    /// Where no command gains: commands for up to [`SWEEP_UNITS`] units of `list` not
    /// commanded yet in the step, in an order of the bot's drawing, each one that does not
    /// lose (a kept gain of 0 or more, else the first of up to [`SWEEP_TRIES`] of its commands
    /// judged now, under its dice as any command), and of those the one that takes the unit
    /// least far ([`reaches`]; its commands judged now, nearest first): where the rules'
    /// score cannot tell a unit's commands apart, a unit shifted a hex keeps its place in the
    /// line, where one marched off at random may outrun its supply. The first is returned,
    /// the others kept as the plan, played before anything is judged again. None when no
    /// such unit has one.
    fn sweep(
        &mut self,
        s: &mut Session,
        list: &[Action],
        tried: &[(usize, f64)],
        base: &mut Now,
    ) -> Result<Option<usize>, Failure> {
        let known: BTreeMap<usize, f64> = tried.iter().copied().collect();
        let mut units: Vec<&str> = Vec::new();
        for a in list {
            if let Some(u) = a.unit.as_deref()
                && !self.memo.commanded.contains(u)
                && !units.contains(&u)
            {
                units.push(u);
            }
        }
        self.shuffle(&mut units);
        let mut plan: Vec<usize> = Vec::new();
        for u in units {
            if plan.len() == SWEEP_UNITS {
                break;
            }
            let of_unit: Vec<usize> = (0..list.len()).filter(|&i| list[i].unit.as_deref() == Some(u)).collect();
            let reach = reaches(s, u, list, &of_unit);
            let neutral: Vec<usize> =
                of_unit.iter().copied().filter(|i| known.get(i).is_some_and(|&g| g >= -EPSILON)).collect();
            if let Some(least) = neutral.iter().map(|i| reach[i]).min() {
                let nearest: Vec<usize> = neutral.into_iter().filter(|i| reach[i] == least).collect();
                plan.push(self.random_among(list, &nearest));
                continue;
            }
            let mut unknown: Vec<usize> = of_unit.into_iter().filter(|i| !known.contains_key(i)).collect();
            self.shuffle(&mut unknown);
            // (stable: among commands as near, the order drawn)
            unknown.sort_by_key(|i| reach[i]);
            for &j in unknown.iter().take(SWEEP_TRIES) {
                if self.gain(s, &list[j], base, SEARCH_DICE)?.0 >= -EPSILON {
                    plan.push(j);
                    break;
                }
            }
        }
        let Some((&first, rest)) = plan.split_first() else { return Ok(None) };
        self.memo.plan = rest.iter().map(|&i| list[i].clone()).collect();
        Ok(Some(first))
    }

    /// `items` in an order of the bot's drawing (Fisher-Yates).
    fn shuffle<T>(&mut self, items: &mut [T]) {
        for k in (1..items.len()).rev() {
            let j = self.below(k + 1);
            items.swap(k, j);
        }
    }

    /// The local search around the best gain of `tried`, if it moves a unit to a hex: the
    /// same unit's entries of its group to the hexes next to that one not judged yet, then
    /// around the better of them, within [`REFINE_NODES`] lookaheads.
    fn refine(
        &mut self,
        s: &mut Session,
        list: &[Action],
        tried: &mut Vec<Judged>,
        listed: &mut [bool],
        base: &mut Now,
    ) -> Result<(), Failure> {
        let mut nodes = 0;
        while nodes < REFINE_NODES {
            let Some(k) = best_of(tried) else { return Ok(()) };
            let (best, gain) = (tried[k].0, tried[k].1);
            if gain <= EPSILON {
                return Ok(());
            }
            let near = next_to(s, list, best, listed);
            if near.is_empty() {
                return Ok(());
            }
            for j in near {
                if nodes >= REFINE_NODES {
                    break;
                }
                let (g, spent) = self.gain(s, &list[j], base, REFINE_NODES - nodes)?;
                nodes += spent;
                tried.push((j, g, true));
                listed[j] = true;
            }
        }
        Ok(())
    }

    /// The gain of `a` for the side that does it over the position now (`base`; 0 for a
    /// command no side does), kept in the memo; and the lookaheads spent, within `budget`.
    fn gain(&mut self, s: &mut Session, a: &Action, base: &mut Now, budget: usize) -> Result<(f64, usize), Failure> {
        let who = side_of(s, a);
        if who.is_empty() {
            return Ok((0.0, 0));
        }
        let now = base.of(self, s, &who)?;
        let (mean, spent) = self.expected(s, &a.cmd, &who, budget)?;
        self.memo.gains.insert(a.cmd.clone(), mean - now);
        Ok((mean - now, spent))
    }

    /// The order the commands are tried in: the groups in turn (`move`, `attack`, `next`...),
    /// each group's commands in an order of the bot's own drawing, those to a hex of `focus`
    /// first (where the rules say the side's commands matter most now), so that a budget
    /// smaller than the list still sees every kind of command and the few that matter.
    fn candidates(&mut self, list: &[Action], focus: &BTreeSet<String>) -> Vec<usize> {
        let mut groups = Bot::groups(list);
        for g in &mut groups {
            self.shuffle(g);
            // (stable: among the focus's, and among the others, the order drawn)
            g.sort_by_key(|&i| !list[i].hex.as_ref().is_some_and(|h| focus.contains(h)));
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

    /// The command to play among those `tried` (index, gain): the best gain; with none, as
    /// `greedy`, at random among what does not lose and `next`.
    fn pick(&mut self, list: &[Action], tried: &[(usize, f64)]) -> usize {
        let best = tried.iter().copied().fold(None, |b: Option<(usize, f64)>, (i, g)| match b {
            Some((_, bg)) if bg >= g => b,
            _ => Some((i, g)),
        });
        match best {
            Some((i, g)) if g > EPSILON => return i,
            _ => {}
        }
        // (`next` is always among them, as for greedy: a bot must not put off the end of a step
        // for ever because what comes next costs it, wandering among commands that gain nothing)
        let neutral: Vec<usize> =
            tried.iter().filter(|&&(i, g)| g >= -EPSILON || list[i].cmd == "next").map(|&(i, _)| i).collect();
        if neutral.is_empty() {
            return best.map_or_else(|| self.random(list), |(i, _)| i);
        }
        self.random_among(list, &neutral)
    }
}

/// Where the rules say the side to act's commands matter most now (`umpire.focus`, docs/lua-api.md
/// §2.8): hex ids; none while a question is pending, or where the ruleset has no focus.
fn focus_now(s: &Session) -> Result<BTreeSet<String>, Failure> {
    let Some(g) = s.game.as_ref() else { return Ok(BTreeSet::new()) };
    let side = g.state().clock.side.clone().unwrap_or_default();
    if g.pending.is_some() || side.is_empty() {
        return Ok(BTreeSet::new());
    }
    match g.focus(&side) {
        Ok(h) => Ok(h.unwrap_or_default().into_iter().collect()),
        Err(e) => Err(Failure { kind: "rule error".into(), message: e.to_string(), command: "focus".into(), at: 0 }),
    }
}

/// The entries of `list` not judged yet (`listed` false) of the unit and group of `list[best]`
/// to the hexes next to its hex, in the list's order (none if it names no unit or hex).
fn next_to(s: &Session, list: &[Action], best: usize, listed: &[bool]) -> Vec<usize> {
    let (Some(g), Some(unit), Some(hex)) = (s.game.as_ref(), &list[best].unit, &list[best].hex) else {
        return Vec::new();
    };
    let grid = &g.scenario.map.grid;
    let Some(at) = grid.parse(hex) else { return Vec::new() };
    let group = &list[best].group;
    (0..list.len())
        .filter(|&j| !listed[j])
        .filter(|&j| list[j].unit.as_ref() == Some(unit) && list[j].group == *group)
        .filter(|&j| list[j].hex.as_deref().and_then(|h| grid.parse(h)).is_some_and(|h| grid.distance(h, at) == 1))
        .collect()
}

/// How far each command of `among` (indices into `list`) takes the unit `unit` from where it
/// stands: the hexes from its hex to the command's (0 where either has none: a unit off the
/// map, a command without a hex). A sweep gives a unit the nearest of its commands that do not
/// lose (see [`Bot::sweep`]).
fn reaches(s: &Session, unit: &str, list: &[Action], among: &[usize]) -> BTreeMap<usize, i32> {
    let at = s.game.as_ref().and_then(|g| match g.state().units.get(unit).map(|x| &x.loc) {
        Some(Location::Hex(h)) => Some((&g.scenario.map.grid, *h)),
        _ => None,
    });
    let reach = |i: usize| {
        let Some((grid, at)) = at else { return 0 };
        list[i].hex.as_deref().and_then(|h| grid.parse(h)).map_or(0, |h| grid.distance(h, at))
    };
    among.iter().map(|&i| (i, reach(i))).collect()
}

/// The entry of `tried` of the best gain (the first of several as good), if any.
fn best_of(tried: &[Judged]) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (k, t) in tried.iter().enumerate() {
        if best.is_none_or(|b| t.1 > tried[b].1) {
            best = Some(k);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fixture's game of seed 1 (tests/fixtures).
    fn fixture_game() -> Session {
        let mut s = Session::with_root(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures"));
        assert_eq!(s.execute("new fixture --seed 1").status, crate::Status::Ok);
        s
    }

    fn entry(cmd: &str, unit: &str, hex: &str) -> Action {
        Action {
            cmd: cmd.into(),
            group: "move".into(),
            unit: Some(unit.into()),
            hex: Some(hex.into()),
            ..Default::default()
        }
    }

    #[test]
    fn the_local_search_looks_at_the_same_units_moves_to_the_hexes_next_to_the_best() {
        let s = fixture_game();
        let list = vec![
            entry("move B1 0303", "B1", "0303"),
            entry("move B1 0302", "B1", "0302"), // next to 0303
            entry("move B1 0305", "B1", "0305"), // two hexes off
            entry("move B2 0304", "B2", "0304"), // next to it, another unit
            entry("move B1 0304", "B1", "0304"), // next to it
            Action { group: "attack".into(), ..entry("attack 0304 with B1", "B1", "0304") }, // another group
            entry("move B1 0403", "B1", "0403"), // next to it, judged already
            Action { cmd: "next".into(), group: "next".into(), ..Default::default() },
        ];
        let listed = [true, false, false, false, false, false, true, false];
        assert_eq!(next_to(&s, &list, 0, &listed), [1, 4]);
        // an entry of no unit or no hex has no neighbours
        assert!(next_to(&s, &list, 7, &listed).is_empty());
    }

    #[test]
    fn a_next_that_forfeits_has_the_bot_sweep_unless_the_rules_say_sweep_false() {
        let next = |weight: Option<f64>, sweep: Option<bool>| Action {
            cmd: "next".into(),
            group: "next".into(),
            weight,
            sweep,
            ..Default::default()
        };
        assert!(next(Some(0.5), None).sweeps());
        assert!(next(Some(0.5), Some(true)).sweeps());
        assert!(!next(Some(0.5), Some(false)).sweeps()); // (the side's idle units stand)
        assert!(!next(None, None).sweeps() && !next(Some(1.0), None).sweeps()); // nothing forfeited
        assert!(!Action { cmd: "rally B1".into(), weight: Some(0.5), ..Default::default() }.sweeps());
    }

    #[test]
    fn the_commands_to_a_hex_of_the_rules_focus_are_tried_first_in_their_group() {
        let list = vec![
            entry("move B1 0203", "B1", "0203"),
            entry("move B1 0205", "B1", "0205"),
            entry("move B2 0303", "B2", "0303"),
            entry("move B2 0205", "B2", "0205"),
            Action { group: "attack".into(), ..entry("attack 0304 with B1", "B1", "0304") },
            Action { cmd: "next".into(), group: "next".into(), ..Default::default() },
        ];
        let focus: BTreeSet<String> = ["0205".to_string()].into();
        for seed in 1..=8 {
            let mut bot = Bot::new(super::super::bot::Policy::Search, seed);
            let order = bot.candidates(&list, &focus);
            assert_eq!(order.len(), list.len());
            // each group's first round: a move to 0205 first, then the others' first
            assert!([1, 3].contains(&order[0]), "seed {seed}: {order:?}");
            let moves: Vec<usize> = order.iter().copied().filter(|&i| i < 4).collect();
            assert!(moves[..2].iter().all(|i| [1, 3].contains(i)), "seed {seed}: {moves:?}");
        }
        // no focus: the moves in the order drawn (some seed draws another first)
        let drawn = (1..=8)
            .map(|seed| Bot::new(super::super::bot::Policy::Search, seed).candidates(&list, &BTreeSet::new())[0]);
        assert!(drawn.clone().any(|i| ![1, 3].contains(&i)), "{:?}", drawn.collect::<Vec<_>>());
    }

    #[test]
    fn a_sweep_ranks_a_units_commands_by_how_far_they_take_it() {
        let s = fixture_game();
        // B1 stands in 0202
        let list = vec![
            entry("move B1 0203", "B1", "0203"),
            entry("move B1 0205", "B1", "0205"),
            entry("dig B1 0202", "B1", "0202"),
            Action { cmd: "rally B1".into(), unit: Some("B1".into()), ..Default::default() },
            entry("move R9 0205", "R9", "0205"),
        ];
        let reach = reaches(&s, "B1", &list, &[0, 1, 2, 3]);
        assert_eq!(reach.into_values().collect::<Vec<_>>(), [1, 3, 0, 0]);
        // a unit not on the map (or not in the game) is as near to every hex
        assert_eq!(reaches(&s, "R9", &list, &[4])[&4], 0);
    }

    #[test]
    fn a_planned_command_that_loses_in_the_position_now_is_dropped() {
        let mut s = fixture_game();
        assert_eq!(s.execute("choose 0101").status, crate::Status::Ok); // (BA's set-up, F12.1)
        // (the fixture's score: 3 for a unit of one's own in the objective 0605)
        assert_eq!(s.execute(r#"lua units.get("B1"):move_to("0605")"#).status, crate::Status::Ok);
        let mut bot = Bot::new(super::super::bot::Policy::Search, 1);
        bot.memo.step = step_key(&s);
        bot.memo.plan = [entry("move B1 0604", "B1", "0604"), entry("move B2 0204", "B2", "0204")].into();
        // B1 leaving the objective loses 3: dropped, its gain kept; B2's move is played
        assert_eq!(bot.planned(&mut s).unwrap().as_deref(), Some("move B2 0204"));
        assert_eq!(bot.memo.gains.get("move B1 0604"), Some(&-3.0));
        assert!(bot.memo.commanded.contains("B2") && !bot.memo.commanded.contains("B1"));
        assert!(bot.memo.plan.is_empty());
        // (the lookaheads took back what they did)
        assert_eq!(
            s.game.as_ref().unwrap().state().units.get("B1").map(|u| &u.loc),
            Some(&Location::Hex(s.game.as_ref().unwrap().scenario.map.grid.parse("0605").unwrap()))
        );
    }
}
