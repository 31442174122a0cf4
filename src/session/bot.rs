//! The bots: policies that choose one of the listed actions.
//!
//! * `random`: a group of the list (`move`, `attack`, `next`, `answer`...) uniformly, then one
//!   of its commands uniformly — so that `next` is as likely as "some move" and a segment ends
//!   after a few commands, however many moves are listed. Where the rules weight their entries
//!   (`weight`, docs/lua-api.md §2.6), in proportion to the weights instead (a group's is its
//!   largest); what weighs 0 is never picked while anything weighs more.
//! * `greedy`: tries a sample of the listed commands (one of each group, then others, at most
//!   [`GREEDY_SAMPLE`]), each with a one-command lookahead — the command is executed, the
//!   questions it asks answered by their defaults, the state scored by the ruleset's
//!   `umpire.evaluate` for the side that does it (the side the list names for the command,
//!   else the side to act or the one a question asks), and everything taken back — and plays the
//!   best if it scores better than the position now; if none does, it chooses as the random bot
//!   among those tried that score no worse and `next` (so units still move and segments end).
//!   The lookahead rolls dice of its own (the game's generator reseeded from the bot's, then put
//!   back), so a bot never sees the roll the game will make.
//! * `search` (session/search.rs): many more lookaheads than `greedy`, a command that rolls
//!   dice tried under several rolls, within a budget of lookaheads.
//!
//! Under fog of war `greedy` and `search` look ahead on the game as their side sees it (the
//! enemy units hidden from it set aside). All draw from a generator seeded with the game's
//! seed: the same seed gives the same game.

use super::{Session, Status};
use crate::contract::Action;
use rand::{Rng, RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// Why a game could not be played to its end.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Failure {
    /// `rule error`, `refused`, `dead end`, `unfinished`, `setup`...
    pub kind: String,
    pub message: String,
    /// The command that failed (or the last one), and how many commands had been played.
    pub command: String,
    pub at: usize,
}

/// What the search bot (session/search.rs) judged earlier in the step of the sequence it is
/// in: the key of the question and the gains by command line; and, for the step, the units it
/// commanded and the commands it planned to play next (a sweep).
#[derive(Default)]
pub(super) struct Memo {
    pub(super) key: String,
    pub(super) gains: BTreeMap<String, f64>,
    pub(super) step: String,
    pub(super) commanded: BTreeSet<String>,
    pub(super) plan: VecDeque<Action>,
}

impl Memo {
    /// `a` is played: its unit, if any, is commanded in this step.
    pub(super) fn played(&mut self, a: &Action) {
        if let Some(u) = &a.unit {
            self.commanded.insert(u.clone());
        }
    }
}

/// The box where a bot's lookahead sets aside the units its side may not see.
const UNSEEN: &str = "unseen by the bot";

/// How many listed commands `greedy` tries before it chooses.
pub const GREEDY_SAMPLE: usize = 12;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    Random,
    Greedy,
    Search,
}

impl std::str::FromStr for Policy {
    type Err = String;
    fn from_str(s: &str) -> Result<Policy, String> {
        match s {
            "random" => Ok(Policy::Random),
            "greedy" => Ok(Policy::Greedy),
            "search" => Ok(Policy::Search),
            _ => Err(format!("unknown bot '{s}' (bots: random, greedy, search)")),
        }
    }
}

impl std::fmt::Display for Policy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Policy::Random => "random",
            Policy::Greedy => "greedy",
            Policy::Search => "search",
        })
    }
}

/// Which bot plays each side: one for every side (`--bot BOT`), or one a side (`--bot
/// SIDE=BOT`, repeated), the others playing the one given for all (random by default).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lineup {
    /// The bot of every side not named.
    pub all: Policy,
    /// The sides named, with their bots.
    pub sides: BTreeMap<String, Policy>,
}

impl Lineup {
    /// The same bot for every side.
    pub fn of_all(policy: Policy) -> Lineup {
        Lineup { all: policy, sides: BTreeMap::new() }
    }

    /// The lineup of the `--bot` arguments in order: `BOT` sets every side not named,
    /// `SIDE=BOT` one side (a side named twice is refused).
    pub fn parse(args: &[String]) -> Result<Lineup, String> {
        let mut out = Lineup::of_all(Policy::Random);
        for a in args {
            match a.split_once('=') {
                Some((side, bot)) => {
                    let side = side.trim();
                    if side.is_empty() {
                        return Err(format!("--bot {a}: which side? (SIDE=BOT)"));
                    }
                    if out.sides.insert(side.to_string(), bot.trim().parse()?).is_some() {
                        return Err(format!("--bot: the side {side} is given a bot twice"));
                    }
                }
                None => out.all = a.trim().parse()?,
            }
        }
        Ok(out)
    }

    /// The bot that plays `side`.
    pub fn of(&self, side: &str) -> Policy {
        self.sides.get(side).copied().unwrap_or(self.all)
    }

    /// Refuses a side the game does not have.
    pub fn check_sides(&self, sides: &[String]) -> Result<(), String> {
        match self.sides.keys().find(|k| !sides.contains(k)) {
            Some(k) => Err(format!("--bot {k}=...: no side {k} in this game (sides are {})", sides.join(", "))),
            None => Ok(()),
        }
    }
}

impl From<Policy> for Lineup {
    fn from(p: Policy) -> Lineup {
        Lineup::of_all(p)
    }
}

impl From<&Lineup> for Lineup {
    fn from(l: &Lineup) -> Lineup {
        l.clone()
    }
}

/// `random`, or `random, German=search, Soviet=greedy` (the sides in their order by name).
impl std::fmt::Display for Lineup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.all)?;
        for (side, p) in &self.sides {
            write!(f, ", {side}={p}")?;
        }
        Ok(())
    }
}

pub struct Bot {
    pub lineup: Lineup,
    pub(super) rng: ChaCha8Rng,
    /// Looking ahead with units set aside for fog of war ([`Bot::as_seen`]).
    fogged: bool,
    /// What the search bot judged earlier in the same step ([`Memo`]).
    pub(super) memo: Memo,
}

impl Bot {
    /// A bot of `policy` for every side, for the game of `seed`.
    pub fn new(policy: Policy, seed: u64) -> Bot {
        Bot::of(Lineup::of_all(policy), seed)
    }

    /// The bots of `lineup` for the game of `seed` (their generator is not the dice's: a
    /// different stream).
    pub fn of(lineup: Lineup, seed: u64) -> Bot {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(0xB07);
        Bot { lineup, rng, fogged: false, memo: Default::default() }
    }

    pub(super) fn below(&mut self, n: usize) -> usize {
        self.rng.random_range(0..n)
    }

    /// The groups of `list` in their first order, each with its commands' indices.
    pub(super) fn groups(list: &[Action]) -> Vec<Vec<usize>> {
        crate::contract::action_groups(list).into_iter().map(|(_, ix)| ix).collect()
    }

    /// A command of `list` (not empty) by the random policy: a group, then one of its commands,
    /// uniformly where the rules weight nothing; else in proportion to the weights (a group's is
    /// its largest), leaving out what weighs 0 while anything weighs more.
    pub(super) fn random(&mut self, list: &[Action]) -> usize {
        let groups = Bot::groups(list);
        if list.iter().all(|a| a.weight.is_none()) || list.iter().all(|a| a.weight() <= 0.0) {
            let g = &groups[self.below(groups.len())];
            return g[self.below(g.len())];
        }
        let of_group = |g: &Vec<usize>| g.iter().map(|&i| list[i].weight()).fold(0.0, f64::max);
        let g = &groups[self.weighted(groups.iter().map(of_group))];
        g[self.weighted(g.iter().map(|&i| list[i].weight()))]
    }

    /// An index of `among` (indices of `list`, not empty) drawn as the random bot draws.
    pub(super) fn random_among(&mut self, list: &[Action], among: &[usize]) -> usize {
        let kept: Vec<Action> = among.iter().map(|&i| list[i].clone()).collect();
        among[self.random(&kept)]
    }

    /// An index drawn in proportion to `weights` (their sum above 0).
    fn weighted(&mut self, weights: impl Iterator<Item = f64> + Clone) -> usize {
        let total: f64 = weights.clone().sum();
        let mut x = self.rng.random::<f64>() * total;
        let mut last = 0;
        for (i, w) in weights.enumerate() {
            if w > 0.0 {
                last = i;
                if x < w {
                    return i;
                }
                x -= w;
            }
        }
        last
    }

    /// The command to play now, one of `list` (not empty).
    pub fn choose(&mut self, s: &mut Session, list: &[Action]) -> Result<String, Failure> {
        match self.lineup.of(&acting_side(s)) {
            Policy::Random => Ok(list[self.random(list)].cmd.clone()),
            policy => {
                if list.len() == 1 {
                    return Ok(list[0].cmd.clone());
                }
                // (a set-up question no side answers has nothing to score for)
                if hides_while_deciding(s) || list.iter().all(|a| side_of(s, a).is_empty()) {
                    return Ok(list[self.random(list)].cmd.clone());
                }
                // (what the rules weight 0 is left out while anything weighs more)
                let kept: Vec<Action>;
                let list = if list.iter().any(|a| a.weight() <= 0.0) && list.iter().any(|a| a.weight() > 0.0) {
                    kept = list.iter().filter(|a| a.weight() > 0.0).cloned().collect();
                    &kept
                } else {
                    list
                };
                if list.len() == 1 {
                    return Ok(list[0].cmd.clone());
                }
                match policy {
                    Policy::Search => self.as_seen(s, |bot, s| bot.search(s, list)),
                    _ => self.as_seen(s, |bot, s| bot.greedy(s, list)),
                }
            }
        }
    }

    /// Runs `think` on the game as the side to act may see it: under fog of war, the enemy units
    /// it may not examine (`Game::hidden_units`) are set aside, in no hex, while the bot looks
    /// ahead, and put back after: what it plays is chosen from what its side sees.
    fn as_seen<R>(&mut self, s: &mut Session, think: impl FnOnce(&mut Bot, &mut Session) -> R) -> R {
        let Some(g) = s.game.as_mut() else { return think(self, s) };
        let hidden = g.hidden_units();
        if hidden.is_empty() {
            return think(self, s);
        }
        let cp = g.checkpoint();
        {
            let mut shared = g.shared.borrow_mut();
            for id in &hidden {
                shared.state.place(id, crate::state::Location::Box(UNSEEN.into()));
            }
        }
        self.fogged = true;
        let r = think(self, s);
        self.fogged = false;
        if let Some(g) = s.game.as_mut() {
            let _ = g.rollback(cp);
        }
        r
    }

    fn greedy(&mut self, s: &mut Session, list: &[Action]) -> Result<String, Failure> {
        // a sample: one command of each group, then others at random
        let mut picked: Vec<usize> = Vec::new();
        for g in Bot::groups(list) {
            picked.push(g[self.below(g.len())]);
        }
        let mut tries = 0;
        while picked.len() < GREEDY_SAMPLE.min(list.len()) && tries < 4 * GREEDY_SAMPLE {
            let i = self.below(list.len());
            if !picked.contains(&i) {
                picked.push(i);
            }
            tries += 1;
        }
        picked.truncate(GREEDY_SAMPLE.max(1));
        // each command is scored against the position now for the side that does it: the gain
        let mut now = Now::default();
        let mut best: Option<(f64, usize)> = None;
        let mut neutral: Vec<usize> = Vec::new();
        // (index, gain) of each command tried, for the trace
        let mut gains: Vec<(usize, f64)> = Vec::new();
        let mut looked = 0;
        for i in picked {
            let who = side_of(s, &list[i]);
            let gain = if who.is_empty() {
                // (an action no side does: neither better nor worse)
                0.0
            } else {
                let base = now.of(self, s, &who)?;
                looked += 1;
                self.look_ahead(s, &list[i].cmd, &who)? - base
            };
            // (ending the segment is always among them: a bot must not put it off for ever
            // because what comes next costs it)
            if gain >= 0.0 || list[i].cmd == "next" {
                neutral.push(i);
            }
            gains.push((i, gain));
            if best.is_none_or(|(b, _)| gain > b) {
                best = Some((gain, i));
            }
        }
        let k = match best {
            Some((b, i)) if b > 0.0 => i,
            // nothing tried improves the position: as the random bot would, among what does not
            // make it worse (`next` is always tried)
            _ if !neutral.is_empty() => self.random_among(list, &neutral),
            _ => self.random(list),
        };
        trace_decision(s, "greedy", &list[k].cmd, looked, &gains, k);
        Ok(list[k].cmd.clone())
    }

    /// The score of the state as it is, for `side`.
    pub(super) fn score_now(&self, s: &Session, side: &str) -> Result<f64, Failure> {
        let fail =
            |kind: &str, message: String| Failure { kind: kind.into(), message, command: "evaluate".into(), at: 0 };
        let g = s.game.as_ref().ok_or_else(|| fail("setup", "no game".into()))?;
        match g.score(side) {
            Ok(Some(score)) => Ok(score),
            Ok(None) => Err(fail(
                "setup",
                format!("the greedy bot needs the rules of {} to score a state (umpire.evaluate)", g.ruleset.id),
            )),
            Err(e) => Err(fail("rule error", e.to_string())),
        }
    }

    /// The score for `side` after `cmd` (its questions answered by default), everything taken
    /// back. A listed command refused here is the failure it is.
    fn look_ahead(&mut self, s: &mut Session, cmd: &str, side: &str) -> Result<f64, Failure> {
        self.look_ahead_rolls(s, cmd, side).map(|(score, _)| score)
    }

    /// [`Bot::look_ahead`], and whether the command rolled or drew (another roll may score
    /// otherwise).
    pub(super) fn look_ahead_rolls(&mut self, s: &mut Session, cmd: &str, side: &str) -> Result<(f64, bool), Failure> {
        let fail = |kind: &str, message: String| Failure { kind: kind.into(), message, command: cmd.into(), at: 0 };
        let salt = self.rng.next_u64();
        let g = s.game.as_mut().ok_or_else(|| fail("setup", "no game".into()))?;
        // (the state to find again after: a snapshot shares its maps, so comparing it with the
        // state taken back costs little where nothing was copied, unlike a hash of the whole)
        let before = g.state().clone();
        let rolls = before.dice.rolls.len();
        let cp = g.checkpoint();
        g.shared.borrow_mut().state.dice.reseed(salt);
        let r = s.execute(cmd);
        let rolled = s.game.as_ref().is_some_and(|g| g.state().dice.rolls.len() != rolls);
        let outcome = match &r.status {
            // (with units set aside for fog of war, the rules may refuse what the whole state
            // allows, e.g. an attack on a stack whose top alone is left: no gain, no loss)
            Status::Error(e) if self.fogged && e.kind() != "rule-error" => self.score_now(s, side),
            Status::Error(e) => {
                Err(fail(if e.kind() == "rule-error" { "rule error" } else { "refused" }, e.to_string()))
            }
            _ => {
                answer_by_default(s);
                self.score_now(s, side).map_err(|f| Failure { command: cmd.into(), ..f })
            }
        };
        let g = s.game.as_mut().expect("the game");
        if let Some(why) = g.rollback(cp) {
            return Err(fail("lookahead", format!("the decision could not be asked again: {why}")));
        }
        if *g.state() != before {
            let (before, after) = (before.hash(), g.state().hash());
            return Err(fail("lookahead", format!("taking `{cmd}` back left the state changed ({before} → {after})")));
        }
        outcome.map(|score| (score, rolled))
    }
}

/// A gain below this is no gain (scores are sums of weighted counts): the search bot judges by
/// it, and the trace counts what gains, loses or neither by it.
pub(super) const EPSILON: f64 = 1e-9;

/// `-vvv` (`RUST_LOG=umpire::bot=trace`): one line a decision of `greedy` or `search`, where
/// the game is, the command chosen with its gain, the lookaheads spent (`nodes`; the search
/// bot's local search around its best move aside) and how many of the commands `tried` (index,
/// gain) gain, lose or neither: where most neither gain nor lose, the bot chose at random among
/// them, and the rules' score tells those positions apart no better than chance.
pub(super) fn trace_decision(s: &Session, bot: &str, cmd: &str, nodes: usize, tried: &[(usize, f64)], k: usize) {
    if !tracing::enabled!(target: "umpire::bot", tracing::Level::TRACE) {
        return;
    }
    let Some(g) = s.game.as_ref() else { return };
    let c = &g.state().clock;
    let gain = tried.iter().find(|t| t.0 == k).map_or(0.0, |t| t.1);
    let gaining = tried.iter().filter(|t| t.1 > EPSILON).count();
    let losing = tried.iter().filter(|t| t.1 < -EPSILON).count();
    tracing::trace!(
        target: "umpire::bot",
        turn = c.turn,
        step = %c.step,
        side = %acting_side(s),
        gain,
        nodes,
        tried = tried.len(),
        gaining,
        losing,
        neither = tried.len() - gaining - losing,
        "{bot}: {cmd}"
    );
}

/// Who does a listed command: the side the rules name for it, else the side that chooses now
/// (empty: no side, as a set-up question no side answers).
pub(super) fn side_of(s: &Session, a: &Action) -> String {
    a.side.clone().unwrap_or_else(|| acting_side(s))
}

/// The scores of the position as it is, by side: each asked of the rules once a decision.
#[derive(Default)]
pub(super) struct Now(Vec<(String, f64)>);

impl Now {
    /// The score of the position now for `who`.
    pub(super) fn of(&mut self, bot: &Bot, s: &Session, who: &str) -> Result<f64, Failure> {
        if let Some(&(_, b)) = self.0.iter().find(|(w, _)| w == who) {
            return Ok(b);
        }
        let b = bot.score_now(s, who)?;
        self.0.push((who.to_string(), b));
        Ok(b)
    }
}

/// Whether a decision is pending while fog of war hides units: the half-done command cannot be
/// looked ahead from with them set aside, so the bots answer it as the random bot does (by the
/// answers' weights), never by what their side may not see.
fn hides_while_deciding(s: &Session) -> bool {
    s.game.as_ref().is_some_and(|g| g.pending.is_some() && !g.hidden_units().is_empty())
}

/// The side that chooses now: the one a pending question asks, else the side to act.
pub fn acting_side(s: &Session) -> String {
    let Some(g) = &s.game else { return String::new() };
    if let Some(side) = g.pending.as_ref().and_then(|p| p.question.side.clone()) {
        return side;
    }
    g.state().clock.side.clone().unwrap_or_default()
}

/// Answers the questions of a command by their defaults (or the first option), a bounded number.
fn answer_by_default(s: &mut Session) {
    for _ in 0..64 {
        let Some(p) = s.game.as_ref().and_then(|g| g.pending.as_ref()) else { return };
        let first = p.question.options.first().cloned();
        if s.execute("auto").error().is_none() {
            continue;
        }
        match first {
            Some(o) if s.execute(&format!("choose {o}")).error().is_none() => {}
            _ => return,
        }
    }
}
