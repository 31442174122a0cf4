//! Whole games played by bots from the ruleset's list of legal actions (`umpire.actions`), and
//! what is built on them: playouts (`umpire playout`: outcome distributions), comparisons of
//! two rule folders (`umpire compare`), replays of a saved game under other rules
//! (`umpire replay`) and the fuzzer (`umpire fuzz`).
//!
//! A game here is a [`Session`] of its own (its own Lua state), so games run side by side on
//! several threads ([`run_games`]). Every game is deterministic from its seed: the dice are
//! seeded with it and the bot's choices come from a generator seeded with it too, so game
//! `--seed 17` of a playout is the same game whenever it is played, on however many cores.

pub mod fuzz;
pub mod replay;
pub mod report;
pub mod shards;
pub mod stats;

pub use crate::session::bot::{Bot, Failure, Lineup, Policy};

use crate::contract::{Action, ActionFilter, Figure};
use crate::session::{Session, Status};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// What to play: a scenario of a library, with options, and the limits of one game.
#[derive(Clone, Debug)]
pub struct Spec {
    /// The library (a folder holding `rulesets/` and `scenarios/`).
    pub root: PathBuf,
    /// `<game>`, `<game>/<scenario>` or a scenario file.
    pub scenario: String,
    pub options: Vec<String>,
    /// A game that has not ended after this many commands is reported unfinished.
    pub max_commands: usize,
    /// Another rules folder to play under (`compare`; `None`: the library's own).
    pub rules: Option<PathBuf>,
}

impl Spec {
    pub fn new(root: impl Into<PathBuf>, scenario: &str) -> Spec {
        Spec { root: root.into(), scenario: scenario.to_string(), options: vec![], max_commands: 20_000, rules: None }
    }

    /// The `new` line of a game from `seed`.
    pub fn new_line(&self, seed: u64) -> String {
        let mut line = format!("new {} --seed {seed}", self.scenario);
        for o in &self.options {
            line.push_str(&format!(" --option {o}"));
        }
        line
    }

    /// A session on the library of this spec (or the library holding the other rules).
    pub fn session(&self) -> Session {
        let mut s = Session::with_root(&self.root);
        s.rules = self.rules.clone();
        // a bot looks ahead by trying a command and taking it back (dice included: the
        // lookahead's dice are its own, see bot.rs)
        s.free_undo = true;
        s
    }
}

/// One game of a playout (a shard file keeps all but its lines: a save has them).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Record {
    pub seed: u64,
    /// The result the rules declared (`umpire.game_over`), when the game ended.
    pub result: Option<String>,
    /// The turn the game ended on (or stopped on).
    pub turn: i64,
    /// Commands played (answers to questions included).
    pub commands: usize,
    /// The evaluation's figures at the end (`umpire.evaluate`), for the first side.
    pub figures: BTreeMap<String, Figure>,
    pub failure: Option<Failure>,
    /// The lines played, `new` first.
    #[serde(skip)]
    pub lines: Vec<String>,
    /// The state hash at the end.
    pub hash: String,
    /// Each side's score at the end (`umpire.evaluate`: its outcome's weight counts 1000).
    #[serde(default)]
    pub scores: BTreeMap<String, f64>,
    /// What the rules' tables gave over the game (`umpire.outcome`): counts by verb and
    /// outcome, for the commands in effect at the end.
    #[serde(default)]
    pub outcomes: BTreeMap<String, BTreeMap<String, usize>>,
    /// How long the bots thought (by the clock: reported, never used to decide; not written).
    #[serde(skip)]
    pub thinking: Thinking,
}

/// The wall-clock time of a game's decisions by a side's bot, for the strength benchmark.
#[derive(Clone, Debug, Default)]
pub struct Thinking {
    /// Per side: decisions, their seconds in all, the longest one's.
    pub sides: BTreeMap<String, (usize, f64, f64)>,
}

impl Thinking {
    fn add(&mut self, side: &str, secs: f64) {
        let e = self.sides.entry(side.to_string()).or_default();
        *e = (e.0 + 1, e.1 + secs, e.2.max(secs));
    }
}

impl Record {
    /// The outcome as a category: the evaluation's `result` figure where it gives one (a
    /// victory level without the numbers of the text), else the rules' result text.
    pub fn outcome(&self) -> String {
        if let Some(f) = &self.failure {
            return format!("({})", f.kind);
        }
        match self.figures.get("result") {
            Some(Figure::Text(t)) => t.clone(),
            _ => self.result.clone().unwrap_or_else(|| "(no result)".into()),
        }
    }
}

/// The listed actions now (an error if the ruleset lists none).
pub fn listed(s: &Session) -> Result<Vec<Action>, String> {
    let g = s.game.as_ref().ok_or("no game")?;
    match g.actions(&ActionFilter::default()) {
        Ok(Some(l)) => Ok(l),
        Ok(None) => Err(format!("the rules of {} do not list what may be done (umpire.actions)", g.ruleset.id)),
        Err(e) => Err(e.to_string()),
    }
}

pub(crate) fn over(s: &Session) -> bool {
    s.game.as_ref().is_some_and(|g| g.state().clock.over.is_some())
}

/// Whether a game of `spec` starts at all (its rules load, its scenario sets up): `compare`,
/// `playout` and `replay` stop at once on rules that fail to load, with the error's file:line,
/// rather than report every game as failed at set-up. Returns the content hash of the rules.
pub fn starts(spec: &Spec, seed: u64, bots: &Lineup) -> crate::Result<String> {
    let mut s = spec.session();
    if let Some(e) = s.execute(&spec.new_line(seed)).error() {
        return Err(crate::Error::State(format!("{}: {e}", rules_shown(spec))));
    }
    let g = s.game.as_ref().expect("a game after `new`");
    bots.check_sides(&g.sides()).map_err(crate::Error::Usage)?;
    Ok(g.ruleset.content_hash.clone())
}

/// The rules a spec plays under, as messages name them.
fn rules_shown(spec: &Spec) -> String {
    match &spec.rules {
        Some(r) => format!("the rules in {}", r.display()),
        None => format!("the rules of {} in the library {}", spec.scenario, crate::ruleset::shown(&spec.root)),
    }
}

/// Plays one game from `seed` with `bot` to its end (or its first failure).
pub fn play(spec: &Spec, seed: u64, bots: impl Into<Lineup>, save: Option<&Path>) -> Record {
    let bots: Lineup = bots.into();
    let mut s = spec.session();
    let new = spec.new_line(seed);
    let mut rec = Record {
        seed,
        result: None,
        turn: 0,
        commands: 0,
        figures: BTreeMap::new(),
        outcomes: BTreeMap::new(),
        failure: None,
        lines: vec![new.clone()],
        hash: String::new(),
        scores: BTreeMap::new(),
        thinking: Thinking::default(),
    };
    let r = s.execute(&new);
    if let Some(e) = r.error() {
        rec.failure = Some(Failure { kind: "setup".into(), message: e.to_string(), command: new, at: 0 });
        return rec;
    }
    // (a game played here keeps no per-command checkpoint unless it is saved)
    if let Some(g) = s.game.as_mut() {
        g.checkpoints = save.is_some();
    }
    if let Err(m) = bots.check_sides(&s.game.as_ref().map(|g| g.sides()).unwrap_or_default()) {
        rec.failure = Some(Failure { kind: "setup".into(), message: m, command: new, at: 0 });
        return rec;
    }
    let mut bot = Bot::of(bots, seed);
    while !over(&s) {
        if rec.commands >= spec.max_commands {
            rec.failure = Some(Failure {
                kind: "unfinished".into(),
                message: format!("the game had not ended after {} commands", spec.max_commands),
                command: rec.lines.last().cloned().unwrap_or_default(),
                at: rec.commands,
            });
            break;
        }
        // (a command the search bot planned, in a sweep, is checked against the list for its
        // unit: the whole game's list is not made for it)
        let planned = match bot.planned(&mut s) {
            Ok(p) => p,
            Err(f) => {
                rec.failure = Some(Failure { at: rec.commands, ..f });
                break;
            }
        };
        let list = if planned.is_some() {
            vec![]
        } else {
            match listed(&s) {
                Ok(l) => l,
                Err(m) => {
                    rec.failure = Some(Failure {
                        kind: "rule error".into(),
                        message: m,
                        command: "actions".into(),
                        at: rec.commands,
                    });
                    break;
                }
            }
        };
        if list.is_empty() && planned.is_none() {
            rec.failure = Some(Failure {
                kind: "dead end".into(),
                message: "the game is not over and nothing is listed".into(),
                command: rec.lines.last().cloned().unwrap_or_default(),
                at: rec.commands,
            });
            break;
        }
        let thinker = crate::session::bot::acting_side(&s);
        let started = std::time::Instant::now();
        let chosen = match planned {
            Some(c) => Ok(c),
            None => bot.choose(&mut s, &list),
        };
        rec.thinking.add(&thinker, started.elapsed().as_secs_f64());
        let cmd = match chosen {
            Ok(c) => c,
            Err(f) => {
                rec.failure = Some(Failure { at: rec.commands, ..f });
                break;
            }
        };
        let r = s.execute(&cmd);
        rec.commands += 1;
        // (`-vv` follows a game command by command, with the time its bot thought)
        tracing::debug!(seed, n = rec.commands, side = %thinker, ms = started.elapsed().as_millis() as u64, "{cmd}");
        rec.lines.push(cmd.clone());
        if let Status::Error(e) = &r.status {
            let kind = if e.kind() == "rule-error" { "rule error" } else { "refused" };
            rec.failure = Some(Failure { kind: kind.into(), message: e.to_string(), command: cmd, at: rec.commands });
            break;
        }
    }
    finish(&s, &mut rec);
    if let Some(path) = save {
        let r = s.execute(&format!("save {} --force", path.display()));
        if let (Some(e), None) = (r.error(), &rec.failure) {
            rec.failure =
                Some(Failure { kind: "save".into(), message: e.to_string(), command: "save".into(), at: rec.commands });
        }
    }
    rec
}

/// The end of a game: result, turn, hash and the evaluation's figures.
fn finish(s: &Session, rec: &mut Record) {
    let Some(g) = &s.game else { return };
    let first = g.state().sides.first().cloned().unwrap_or_default();
    {
        let st = g.state();
        rec.result = st.clock.over.clone();
        rec.turn = st.clock.turn;
        rec.hash = st.hash();
    }
    rec.outcomes = g.outcomes();
    for side in g.sides() {
        if let Ok(Some(score)) = g.score(&side) {
            rec.scores.insert(side, score);
        }
    }
    match g.evaluate(&first) {
        Ok(Some(e)) => rec.figures = e.figures,
        Ok(None) => {}
        Err(e) if rec.failure.is_none() => {
            rec.failure = Some(Failure {
                kind: "rule error".into(),
                message: e.to_string(),
                command: "evaluate".into(),
                at: rec.commands,
            })
        }
        Err(_) => {}
    }
}

/// Plays the games of `seeds` on `jobs` threads (each game in its own session and Lua state);
/// `done` is called after each game with the number finished. The records come back in the
/// order of `seeds`, whatever the number of threads.
pub fn run_games(
    spec: &Spec,
    seeds: &[u64],
    bots: impl Into<Lineup>,
    jobs: usize,
    save_dir: Option<&Path>,
    done: &(dyn Fn(usize) + Sync),
) -> Vec<Record> {
    let bots: &Lineup = &bots.into();
    let one = |seed: u64| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            play(spec, seed, bots, save_dir.map(|d| d.join(format!("game-{seed}.ump"))).as_deref())
        }))
        .unwrap_or_else(|p| panicked(seed, p))
    };
    if jobs <= 1 {
        // on this thread (a profile of the rule code sees it)
        return seeds
            .iter()
            .enumerate()
            .map(|(i, &seed)| {
                let r = one(seed);
                done(i + 1);
                r
            })
            .collect();
    }
    let next = AtomicUsize::new(0);
    let finished = AtomicUsize::new(0);
    let mut slots: Vec<Option<Record>> = vec![None; seeds.len()];
    let results = std::sync::Mutex::new(&mut slots);
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1).min(seeds.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= seeds.len() {
                        break;
                    }
                    let seed = seeds[i];
                    let rec = one(seed);
                    results.lock().unwrap()[i] = Some(rec);
                    done(finished.fetch_add(1, Ordering::SeqCst) + 1);
                }
            });
        }
    });
    slots.into_iter().map(|r| r.expect("every game played")).collect()
}

/// The record of a game that panicked (a bug of umpire: reported, not hidden).
fn panicked(seed: u64, p: Box<dyn std::any::Any + Send>) -> Record {
    let message = p
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "a panic".into());
    Record {
        seed,
        result: None,
        turn: 0,
        commands: 0,
        figures: BTreeMap::new(),
        outcomes: BTreeMap::new(),
        failure: Some(Failure { kind: "panic".into(), message, command: String::new(), at: 0 }),
        lines: vec![],
        hash: String::new(),
        scores: BTreeMap::new(),
        thinking: Thinking::default(),
    }
}

/// Writes a game's lines as a command script that replays it (`umpire run FILE`): a header of
/// comments, the `new` line, then every command.
pub fn write_script(path: &Path, lines: &[String], header: &str) -> crate::error::Result<()> {
    let mut text = String::new();
    for l in header.lines() {
        text.push_str(&format!("# {l}\n"));
    }
    for l in lines {
        text.push_str(&l.replace('\n', "\\\n"));
        text.push('\n');
    }
    crate::save::write_atomic(path, text.as_bytes(), None)
}
