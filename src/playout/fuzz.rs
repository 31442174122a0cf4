//! `umpire fuzz`: games played by listed actions mixed with junk — mangled listed commands,
//! verbs with arguments of the wrong kind, unknown units and hexes, words out of place, and
//! the history commands — checking after every command what must always hold:
//!
//! * no Lua error and no panic, whatever the command;
//! * every listed command is accepted;
//! * a refused command leaves the state hash as it was;
//! * the game is never at a dead end (not over, nothing listed);
//! * a save loads back to the same hash (checked every [`SAVE_EVERY`] commands and at the end
//!   of every game).
//!
//! A failure is written as a command script that reproduces it (`umpire run FILE`) and the
//! fuzzer goes on with the next game. Deterministic from its seed.

use super::{Bot, Lineup, Spec, listed, over, write_script};
use crate::contract::Action;
use crate::session::{Session, Status};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::{Path, PathBuf};

/// How often the fuzzer saves and loads the game back (commands).
pub const SAVE_EVERY: usize = 250;

/// One share in [`JUNK_IN`] of the commands is junk.
pub const JUNK_IN: usize = 4;

/// A failure the fuzzer found.
#[derive(Clone, Debug)]
pub struct Finding {
    pub kind: String,
    pub message: String,
    pub command: String,
    pub seed: u64,
    /// The reproduction written (when a folder was given).
    pub script: Option<PathBuf>,
}

#[derive(Clone, Debug, Default)]
pub struct Report {
    pub commands: usize,
    pub listed: usize,
    pub junk: usize,
    /// Junk commands the rules accepted (a mangled command can still be legal).
    pub junk_accepted: usize,
    pub games: usize,
    pub games_ended: usize,
    pub saves_checked: usize,
    pub findings: Vec<Finding>,
}

struct Fuzzer<'a> {
    spec: &'a Spec,
    /// The bots that pick the listed commands (random unless told).
    bots: &'a Lineup,
    rng: ChaCha8Rng,
    out: Option<&'a Path>,
    report: Report,
}

/// Words that are neither hexes, units nor numbers a rule expects.
const WORDS: &[&str] = &["zz", "-1", "0", "9999", "0000", "A", "all", "--force", "''", "1.5", "nil", "x9"];
/// The built-ins junk may use (their refusals must change nothing; `undo` and `redo` may be
/// accepted).
const BUILTINS: &[&str] = &["undo", "redo", "cancel", "auto", "choose", "next", "status", "actions", "moves"];

impl Fuzzer<'_> {
    fn below(&mut self, n: usize) -> usize {
        self.rng.random_range(0..n.max(1))
    }

    /// A junk command near what is listed.
    fn junk(&mut self, s: &Session, list: &[Action]) -> String {
        let words: Vec<&str> =
            if list.is_empty() { vec!["next"] } else { list[self.below(list.len())].cmd.split_whitespace().collect() };
        let st = s.game.as_ref().map(|g| g.state().clone());
        let unit = st
            .as_ref()
            .and_then(|st| st.units.values().nth(self.below(st.units.len().max(1))).map(|u| u.id.clone()))
            .unwrap_or_else(|| "X".into());
        let hex = s
            .game
            .as_ref()
            .map(|g| {
                let m = &g.scenario.map;
                let n = m.hexes.len();
                m.hexes.keys().nth(self.below(n)).map(|h| m.fmt(*h)).unwrap_or_else(|| "0101".into())
            })
            .unwrap_or_else(|| "0101".into());
        let word = WORDS[self.below(WORDS.len())].to_string();
        let verbs: Vec<String> = s.game.as_ref().map(|g| g.verbs().keys().cloned().collect()).unwrap_or_default();
        match self.below(7) {
            // a listed command with one argument replaced
            0 if words.len() > 1 => {
                let mut w: Vec<String> = words.iter().map(|x| x.to_string()).collect();
                let i = 1 + self.below(w.len() - 1);
                w[i] = [unit, hex, word][self.below(3)].clone();
                w.join(" ")
            }
            // a listed command cut short or with one more argument
            1 if words.len() > 1 => words[..words.len() - 1].join(" "),
            2 => format!("{} {}", words.join(" "), [unit, hex, word][self.below(3)]),
            // a verb of the rules with arguments of any kind
            3 if !verbs.is_empty() => {
                let v = &verbs[self.below(verbs.len())];
                let args: Vec<String> = (0..self.below(4))
                    .map(|_| [unit.clone(), hex.clone(), word.clone()][self.below(3)].clone())
                    .collect();
                format!("{v} {}", args.join(" ")).trim().to_string()
            }
            4 => {
                let b = BUILTINS[self.below(BUILTINS.len())];
                match b {
                    "choose" => format!("choose {word}"),
                    "moves" => format!("moves {unit}"),
                    _ => b.to_string(),
                }
            }
            5 => format!("{word} {unit}"),
            _ => format!("{} {hex} {unit}", words.first().copied().unwrap_or("move")),
        }
    }

    fn found(&mut self, kind: &str, message: String, command: &str, seed: u64, lines: &[String]) {
        let mut script = None;
        if let Some(dir) = self.out {
            let game = self.spec.scenario.replace('/', "-");
            let path = dir.join(format!("fuzz-{game}-seed{seed}.ump"));
            let header = format!(
                "umpire fuzz found: {kind}: {}\nthe last command is the one that failed; `umpire run {}` replays it",
                message.lines().next().unwrap_or(""),
                path.display()
            );
            if write_script(&path, lines, &header).is_ok() {
                script = Some(path);
            }
        }
        self.report.findings.push(Finding { kind: kind.into(), message, command: command.into(), seed, script });
    }

    /// Saves the game and loads it into a new session: the hash must be the same.
    fn save_and_load(&mut self, s: &mut Session, seed: u64, lines: &[String]) -> bool {
        self.report.saves_checked += 1;
        let dir = match tempfile::tempdir() {
            Ok(d) => d,
            Err(_) => return true,
        };
        let path = dir.path().join("fuzz.ump");
        let before = s.hash();
        let r = s.execute(&format!("save {}", path.display()));
        if let Some(e) = r.error() {
            self.found("save", e.to_string(), "save", seed, lines);
            return false;
        }
        let mut other = s.sibling(None);
        other.replaying = false;
        let r = other.execute(&format!("load {}", path.display()));
        if let Some(e) = r.error() {
            self.found("load", e.to_string(), "load", seed, lines);
            return false;
        }
        if other.hash() != before {
            self.found(
                "save/load",
                format!("the save loaded back to {:?}, not {:?}", other.hash(), before),
                "load",
                seed,
                lines,
            );
            return false;
        }
        true
    }

    /// One game from `seed`, at most `budget` commands. Returns the commands played.
    fn game(&mut self, seed: u64, budget: usize) -> usize {
        let mut s = self.spec.session();
        s.free_undo = false;
        let new = self.spec.new_line(seed);
        let mut lines = vec![new.clone()];
        let r = s.execute(&new);
        if let Some(e) = r.error() {
            self.found("setup", e.to_string(), &new, seed, &lines);
            return 1;
        }
        self.report.games += 1;
        let mut bot = Bot::of(self.bots.clone(), seed);
        let mut played = 0;
        while played < budget {
            if over(&s) {
                self.report.games_ended += 1;
                self.save_and_load(&mut s, seed, &lines);
                return played;
            }
            let list = match listed(&s) {
                Ok(l) => l,
                Err(m) => {
                    self.found("rule error", m, "actions", seed, &lines);
                    return played;
                }
            };
            if list.is_empty() {
                self.found("dead end", "the game is not over and nothing is listed".into(), "", seed, &lines);
                return played;
            }
            let junk = self.below(JUNK_IN) == 0;
            let cmd = if junk {
                self.junk(&s, &list)
            } else {
                match bot.choose(&mut s, &list) {
                    Ok(c) => c,
                    Err(f) => {
                        self.found(&f.kind, f.message, &f.command, seed, &lines);
                        return played;
                    }
                }
            };
            let before = s.hash();
            let was_listed = list.iter().any(|a| a.cmd == cmd);
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| s.execute(&cmd)));
            played += 1;
            self.report.commands += 1;
            if junk {
                self.report.junk += 1;
            } else {
                self.report.listed += 1;
            }
            let mut tried = lines.clone();
            tried.push(cmd.clone());
            let r = match r {
                Ok(r) => r,
                Err(_) => {
                    self.found("panic", "umpire panicked".into(), &cmd, seed, &tried);
                    return played;
                }
            };
            match &r.status {
                Status::Error(e) if e.kind() == "rule-error" => {
                    self.found("rule error", e.to_string(), &cmd, seed, &tried);
                    return played;
                }
                Status::Error(e) if was_listed => {
                    self.found("refused listed action", e.to_string(), &cmd, seed, &tried);
                    return played;
                }
                Status::Error(e) if s.hash() != before => {
                    self.found("refusal changed the state", e.to_string(), &cmd, seed, &tried);
                    return played;
                }
                Status::Error(_) => {}
                _ => {
                    if junk {
                        self.report.junk_accepted += 1;
                    }
                    lines.push(cmd);
                }
            }
            if played % SAVE_EVERY == 0 && !self.save_and_load(&mut s, seed, &lines) {
                return played;
            }
        }
        played
    }
}

/// The most commands one game of a fuzz run plays (a game that does not end is cut here and
/// the next seed begins).
pub const GAME_COMMANDS: usize = 5_000;

impl Report {
    fn add(&mut self, o: Report) {
        self.commands += o.commands;
        self.listed += o.listed;
        self.junk += o.junk;
        self.junk_accepted += o.junk_accepted;
        self.games += o.games;
        self.games_ended += o.games_ended;
        self.saves_checked += o.saves_checked;
        self.findings.extend(o.findings);
    }
}

/// One game of a fuzz run: from `seed`, its junk drawn from a generator of its own (so that the
/// games of a run are independent and run side by side).
fn one_game(spec: &Spec, bots: &Lineup, run_seed: u64, seed: u64, out: Option<&Path>) -> Report {
    game_of(spec, bots, run_seed, seed, out, GAME_COMMANDS)
}

/// The game from `seed` of the run from `run_seed`, at most `budget` commands.
fn game_of(spec: &Spec, bots: &Lineup, run_seed: u64, seed: u64, out: Option<&Path>, budget: usize) -> Report {
    let mut rng = ChaCha8Rng::seed_from_u64(run_seed ^ 0xF022);
    rng.set_stream(seed);
    let mut f = Fuzzer { spec, bots, rng, out, report: Report::default() };
    let played = f.game(seed, budget);
    // (a scenario that cannot be set up counts one command, so that a run ends)
    f.report.commands = f.report.commands.max(played).max(1);
    f.report
}

/// Fuzzes `spec` for exactly `commands` commands, game after game from `seed` (seeds `seed`,
/// `seed + 1`...; each game at most [`GAME_COMMANDS`]), on `jobs` threads. The run is the
/// shortest run of games, in seed order, that reaches `commands`, whatever the threads:
/// the same seeds give the same report. Reproductions of failures go to `out` (when given);
/// `progress` is told the commands played so far.
pub fn fuzz(
    spec: &Spec,
    bots: &Lineup,
    commands: usize,
    seed: u64,
    out: Option<&Path>,
    jobs: usize,
    progress: &(dyn Fn(usize) + Sync),
) -> Report {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    // the games done, by index; and whether the prefix of them already reaches the budget
    let done: Mutex<std::collections::BTreeMap<usize, Report>> = Mutex::new(Default::default());
    let enough = |d: &std::collections::BTreeMap<usize, Report>| -> Option<usize> {
        let mut total = 0;
        for i in 0.. {
            total += d.get(&i)?.commands;
            if total >= commands {
                return Some(i);
            }
        }
        None
    };
    let work = || {
        loop {
            if enough(&done.lock().unwrap()).is_some() {
                break;
            }
            let i = next.fetch_add(1, Ordering::SeqCst);
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                one_game(spec, bots, seed, seed + i as u64, out)
            }))
            .unwrap_or_else(|_| Report {
                commands: 1,
                findings: vec![Finding {
                    kind: "panic".into(),
                    message: "umpire panicked".into(),
                    command: String::new(),
                    seed: seed + i as u64,
                    script: None,
                }],
                ..Report::default()
            });
            let mut d = done.lock().unwrap();
            d.insert(i, r);
            progress(d.values().map(|r| r.commands).sum());
        }
    };
    if jobs <= 1 {
        work();
    } else {
        std::thread::scope(|s| {
            for _ in 0..jobs {
                s.spawn(work);
            }
        });
    }
    let mut d = done.into_inner().unwrap();
    let last = enough(&d).unwrap_or(usize::MAX);
    // the last game is played again, cut at the commands left, so that the run is exactly
    // `commands` long (the same game, a shorter budget: a prefix of the one played)
    let before_last: usize = d.range(..last).map(|(_, r)| r.commands).sum();
    if let Some(r) = d.get_mut(&last)
        && before_last + r.commands > commands
    {
        drop_files(r);
        *r = game_of(spec, bots, seed, seed + last as u64, out, commands - before_last);
    }
    let mut report = Report::default();
    for (i, r) in std::mem::take(&mut d) {
        if i <= last {
            report.add(r);
        } else {
            // a game played beyond the run (threads ran ahead): not part of it, nor its files
            drop_files(&r);
        }
    }
    report
}

/// Removes the reproductions a game's report wrote.
fn drop_files(r: &Report) {
    for f in r.findings.iter().filter_map(|f| f.script.as_ref()) {
        let _ = std::fs::remove_file(f);
    }
}
